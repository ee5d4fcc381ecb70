import cadquery as cq

profile = [
    (0.0, 0.0),
    (15.0, 0.0),
    (15.0, 40.0),
    (10.0, 40.0),
    (10.0, 90.0),
    (7.5, 90.0),
    (7.5, 120.0),
    (0.0, 120.0),
]

result = (
    cq.Workplane("XZ")
    .polyline(profile)
    .close()
    .revolve(360, (0, 0, 0), (0, 1, 0))
    .faces("<Z or >Z")
    .edges()
    .chamfer(1.0)
)
