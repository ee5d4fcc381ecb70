import cadquery as cq

outer_d = 20.0
inner_d = 10.5
length = 12.0
edge_c = 0.5

result = (
    cq.Workplane("XY")
    .circle(outer_d / 2)
    .circle(inner_d / 2)
    .extrude(length)
    .edges()
    .chamfer(edge_c)
)
