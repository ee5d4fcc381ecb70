import cadquery as cq

coil_r = 12.0
pitch = 6.0
height = 30.0
wire_d = 3.0

helix = cq.Wire.makeHelix(pitch, height, coil_r)
result = cq.Workplane("XZ").center(coil_r, 0).circle(wire_d / 2).sweep(helix, isFrenet=True)
