import cadquery as cq

shaft_d = 25.0
length = 60.0
flat_len = 25.0
flat_x = 9.5

shaft = cq.Workplane("XY").circle(shaft_d / 2).extrude(length)
cutter = (
    cq.Workplane("XY")
    .workplane(offset=length - flat_len)
    .center(flat_x + 10.0, 0)
    .rect(20.0, 40.0)
    .extrude(flat_len)
)
result = shaft.cut(cutter)
