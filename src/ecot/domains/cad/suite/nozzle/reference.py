import cadquery as cq

profile = [
    (5.0, 0.0),
    (15.0, 0.0),
    (15.0, 20.0),
    (7.0, 35.0),
    (7.0, 40.0),
    (2.5, 40.0),
    (2.5, 35.0),
    (5.0, 20.0),
]

result = cq.Workplane("XZ").polyline(profile).close().revolve(360, (0, 0, 0), (0, 1, 0))
