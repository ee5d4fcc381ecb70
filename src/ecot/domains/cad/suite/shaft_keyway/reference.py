import cadquery as cq

shaft_d = 20.0
length = 100.0
key_w = 6.0
key_depth = 3.5
key_start = 60.0
key_len = 30.0

shaft = cq.Workplane("XY").circle(shaft_d / 2).extrude(length)
key = (
    cq.Workplane("XY")
    .workplane(offset=key_start)
    .center(shaft_d / 2 - key_depth + 5.0, 0)
    .rect(10.0, key_w)
    .extrude(key_len)
)
result = shaft.cut(key)
