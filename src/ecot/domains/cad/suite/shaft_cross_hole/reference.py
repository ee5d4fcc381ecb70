import cadquery as cq

shaft_d = 16.0
length = 80.0
hole_d = 5.0
hole_z = 10.0

shaft = cq.Workplane("XY").circle(shaft_d / 2).extrude(length)
shaft = shaft.faces(">Z").edges().chamfer(1.0)
cross = cq.Workplane("YZ").workplane(offset=-shaft_d).center(0, hole_z).circle(hole_d / 2).extrude(2 * shaft_d)
result = shaft.cut(cross)
