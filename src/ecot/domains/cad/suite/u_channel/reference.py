import cadquery as cq

width = 50.0
depth = 30.0
height = 40.0
wall = 4.0
hole_d = 8.0

outer = cq.Workplane("XY").box(width, depth, height, centered=(True, True, False))
inner = cq.Workplane("XY").workplane(offset=wall).box(width - 2 * wall, depth + 2, height, centered=(True, True, False))
result = outer.cut(inner)
result = result.faces("<Z").workplane().hole(hole_d)
