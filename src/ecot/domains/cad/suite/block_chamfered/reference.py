import cadquery as cq

length = 60.0
width = 40.0
height = 15.0
hole_d = 12.0
edge_c = 2.0
hole_c = 1.0

block = cq.Workplane("XY").box(length, width, height, centered=(True, True, False))
block = block.faces(">Z").edges().chamfer(edge_c)
block = block.faces(">Z").workplane().hole(hole_d)
result = block.faces(">Z").edges("%CIRCLE").chamfer(hole_c)
