import cadquery as cq

length = 70.0
width = 40.0
thickness = 6.0
hole_d = 4.5
csk_d = 9.0

result = (
    cq.Workplane("XY")
    .box(length, width, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .pushPoints([(-20.0, 0.0), (20.0, 0.0)])
    .cskHole(hole_d, csk_d, 90)
)
