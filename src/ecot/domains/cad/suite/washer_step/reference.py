import cadquery as cq

outer_d = 24.0
inner_d = 13.0
thickness = 2.5

result = cq.Workplane("XY").circle(outer_d / 2).circle(inner_d / 2).extrude(thickness)
