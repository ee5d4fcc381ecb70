import cadquery as cq

knob_d = 30.0
height = 15.0
top_r = 3.0
groove_d = 4.0
bore_d = 6.0
bore_depth = 10.0

knob = cq.Workplane("XY").circle(knob_d / 2).extrude(height)
knob = knob.faces(">Z").edges().fillet(top_r)
grooves = cq.Workplane("XY").polarArray(knob_d / 2, 0, 360, 8).circle(groove_d / 2).extrude(height)
result = knob.cut(grooves)
result = result.cut(cq.Workplane("XY").circle(bore_d / 2).extrude(bore_depth))
