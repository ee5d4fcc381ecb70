import cadquery as cq

length = 100.0
width = 60.0
thickness = 3.0
lip_l = 94.0
lip_w = 54.0
lip_wall = 2.0
lip_h = 4.0

plate = cq.Workplane("XY").box(length, width, thickness, centered=(True, True, False))
lip = (
    cq.Workplane("XY")
    .workplane(offset=-lip_h)
    .rect(lip_l, lip_w)
    .rect(lip_l - 2 * lip_wall, lip_w - 2 * lip_wall)
    .extrude(lip_h)
)
result = plate.union(lip)
