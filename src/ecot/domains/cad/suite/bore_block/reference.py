import cadquery as cq

length = 50.0
depth = 30.0
height = 20.0
bore_d = 10.0
bore_z = 12.0
screw_d = 5.5

block = cq.Workplane("XY").box(length, depth, height, centered=(True, True, False))
bore = cq.Workplane("YZ").workplane(offset=-length).center(0, bore_z).circle(bore_d / 2).extrude(2 * length)
result = block.cut(bore)
result = result.faces(">Z").workplane().rect(36.0, 18.0, forConstruction=True).vertices().hole(screw_d)
