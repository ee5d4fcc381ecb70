import cadquery as cq

disc_d = 120.0
disc_t = 10.0
hub_d = 60.0
hub_top = 40.0
bore_d = 35.0
pcd = 90.0
bolt_d = 11.0

disc = cq.Workplane("XY").circle(disc_d / 2).extrude(disc_t)
hub = cq.Workplane("XY").workplane(offset=disc_t).circle(hub_d / 2).extrude(hub_top - disc_t)
result = disc.union(hub)
result = result.faces(">Z").workplane().hole(bore_d)
bolts = cq.Workplane("XY").polarArray(pcd / 2, 45, 360, 4).circle(bolt_d / 2).extrude(disc_t)
result = result.cut(bolts)
