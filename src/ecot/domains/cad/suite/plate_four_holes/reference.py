import cadquery as cq

length = 100.0
width = 60.0
thickness = 5.0
hole_d = 6.6

result = (
    cq.Workplane("XY")
    .box(length, width, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .rect(80.0, 40.0, forConstruction=True)
    .vertices()
    .hole(hole_d)
)
