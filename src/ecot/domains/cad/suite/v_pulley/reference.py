import cadquery as cq

profile = [
    (6.0, 0.0),
    (30.0, 0.0),
    (30.0, 4.0),
    (22.0, 7.0),
    (22.0, 13.0),
    (30.0, 16.0),
    (30.0, 20.0),
    (6.0, 20.0),
]

result = cq.Workplane("XZ").polyline(profile).close().revolve(360, (0, 0, 0), (0, 1, 0))
