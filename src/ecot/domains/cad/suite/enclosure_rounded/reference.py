import cadquery as cq

length = 90.0
width = 60.0
height = 35.0
corner_r = 8.0
wall = 2.0

result = (
    cq.Workplane("XY")
    .box(length, width, height, centered=(True, True, False))
    .edges("|Z")
    .fillet(corner_r)
    .faces(">Z")
    .shell(-wall)
)
