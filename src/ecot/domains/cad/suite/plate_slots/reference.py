import cadquery as cq

length = 120.0
width = 40.0
thickness = 8.0
slot_length = 26.0
slot_width = 6.0

result = (
    cq.Workplane("XY")
    .box(length, width, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .pushPoints([(-40.0, 0.0), (40.0, 0.0)])
    .slot2D(slot_length, slot_width, 0)
    .cutThruAll()
)
