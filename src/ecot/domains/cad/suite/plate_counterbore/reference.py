import cadquery as cq

side = 60.0
thickness = 10.0
hole_d = 5.5
cbore_d = 10.0
cbore_depth = 5.5

result = (
    cq.Workplane("XY")
    .box(side, side, thickness, centered=(True, True, False))
    .faces(">Z")
    .workplane()
    .rect(40.0, 40.0, forConstruction=True)
    .vertices()
    .cboreHole(hole_d, cbore_d, cbore_depth)
)
