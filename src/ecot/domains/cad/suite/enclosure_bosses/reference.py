import cadquery as cq

length = 80.0
width = 50.0
height = 30.0
wall = 2.0
boss_d = 7.0
boss_top = 28.0
pilot_d = 3.0
pilot_depth = 20.0

outer = cq.Workplane("XY").box(length, width, height, centered=(True, True, False))
cavity = cq.Workplane("XY").workplane(offset=wall).box(length - 2 * wall, width - 2 * wall, height, centered=(True, True, False))
result = outer.cut(cavity)
corners = cq.Workplane("XY").workplane(offset=wall).rect(60.0, 30.0, forConstruction=True).vertices()
result = result.union(corners.circle(boss_d / 2).extrude(boss_top - wall))
pilots = cq.Workplane("XY").workplane(offset=boss_top - pilot_depth).rect(60.0, 30.0, forConstruction=True).vertices()
result = result.cut(pilots.circle(pilot_d / 2).extrude(pilot_depth))
