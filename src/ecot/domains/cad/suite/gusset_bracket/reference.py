import cadquery as cq

t = 6.0
width = 50.0
leg = 40.0
rib = 30.0
rib_t = 4.0

base = cq.Workplane("XY").box(width, leg, t, centered=(True, False, False))
upright = cq.Workplane("XY").box(width, t, leg, centered=(True, False, False))
gusset = cq.Workplane("YZ").polyline([(t, t), (t + rib, t), (t, t + rib)]).close().extrude(rib_t / 2, both=True)
result = base.union(upright).union(gusset)
result = result.cut(cq.Workplane("XY").pushPoints([(-15.0, 25.0), (15.0, 25.0)]).circle(3.25).extrude(t))
