import cadquery as cq

length = 100.0
width = 60.0
height = 40.0
wall = 2.5
floor = 3.0

outer = cq.Workplane("XY").box(length, width, height, centered=(True, True, False))
cavity = cq.Workplane("XY").workplane(offset=floor).box(length - 2 * wall, width - 2 * wall, height, centered=(True, True, False))
result = outer.cut(cavity)
