import cadquery as cq

length = 90.0
width = 50.0
thickness = 3.0
pitch = 20.0
hole_d = 8.0

result = (
    cq.Workplane("XY")
    .box(length, width, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .rarray(pitch, pitch, 4, 2)
    .hole(hole_d)
)
