import cadquery as cq

disc_d = 90.0
disc_t = 15.0
face_d = 60.0
face_h = 2.0
pcd = 70.0
bolt_d = 10.0

disc = cq.Workplane("XY").circle(disc_d / 2).extrude(disc_t)
raised = cq.Workplane("XY").workplane(offset=disc_t).circle(face_d / 2).extrude(face_h)
result = disc.union(raised)
bolts = cq.Workplane("XY").polarArray(pcd / 2, 22.5, 360, 8).circle(bolt_d / 2).extrude(disc_t)
result = result.cut(bolts)
