import cadquery as cq

bore_r = 8.0
flange_r = 20.0
flange_t = 5.0
barrel_r = 12.5
length = 30.0

profile = [
    (bore_r, 0.0),
    (flange_r, 0.0),
    (flange_r, flange_t),
    (barrel_r, flange_t),
    (barrel_r, length),
    (bore_r, length),
]
result = cq.Workplane("XZ").polyline(profile).close().revolve(360, (0, 0, 0), (0, 1, 0))
