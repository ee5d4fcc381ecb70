import cadquery as cq

side = 80.0
thickness = 10.0
spigot_d = 50.0
spigot_h = 5.0
bore_d = 30.0
hole_d = 8.0

plate = cq.Workplane("XY").box(side, side, thickness, centered=(True, True, False))
spigot = cq.Workplane("XY").workplane(offset=-spigot_h).circle(spigot_d / 2).extrude(spigot_h)
result = plate.union(spigot)
result = result.cut(cq.Workplane("XY").workplane(offset=-spigot_h).circle(bore_d / 2).extrude(thickness + spigot_h))
result = result.cut(cq.Workplane("XY").rect(60.0, 60.0, forConstruction=True).vertices().circle(hole_d / 2).extrude(thickness))
