import cadquery as cq

outer_d = 100.0
thickness = 12.0
bore_d = 40.0
pcd = 75.0
bolt_d = 9.0

result = (
    cq.Workplane("XY")
    .circle(outer_d / 2)
    .extrude(thickness)
    .faces(">Z")
    .workplane()
    .hole(bore_d)
    .faces(">Z")
    .workplane()
    .polarArray(pcd / 2, 0, 360, 6)
    .hole(bolt_d)
)
