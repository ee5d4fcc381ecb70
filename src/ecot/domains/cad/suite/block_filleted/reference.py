import cadquery as cq

length = 50.0
width = 40.0
height = 20.0
corner_r = 6.0
top_r = 3.0

result = (
    cq.Workplane("XY")
    .box(length, width, height, centered=(True, True, False))
    .edges("|Z")
    .fillet(corner_r)
    .faces(">Z")
    .edges()
    .fillet(top_r)
)
