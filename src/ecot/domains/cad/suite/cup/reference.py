import cadquery as cq

outer_r = 30.0
height = 50.0
wall = 2.0
bottom = 3.0

profile = [
    (0.0, 0.0),
    (outer_r, 0.0),
    (outer_r, height),
    (outer_r - wall, height),
    (outer_r - wall, bottom),
    (0.0, bottom),
]
result = cq.Workplane("XZ").polyline(profile).close().revolve(360, (0, 0, 0), (0, 1, 0))
