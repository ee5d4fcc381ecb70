import cadquery as cq

side = 80.0
thickness = 6.0
bore_d = 22.0
pcd = 60.0
hole_d = 5.5

result = (
    cq.Workplane("XY")
    .box(side, side, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .hole(bore_d)
    .faces(">Z")
    .workplane()
    .polarArray(pcd / 2, 0, 360, 6)
    .hole(hole_d)
)
