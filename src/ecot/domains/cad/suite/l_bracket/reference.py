import cadquery as cq

t = 5.0
width = 60.0
leg = 40.0
hole_r = 3.0

base = cq.Workplane("XY").box(width, leg, t, centered=(True, False, False))
upright = cq.Workplane("XY").box(width, t, leg, centered=(True, False, False))
result = base.union(upright)
result = result.cut(cq.Workplane("XY").pushPoints([(-18.0, 25.0), (18.0, 25.0)]).circle(hole_r).extrude(t))
result = result.cut(cq.Workplane("XZ").pushPoints([(-18.0, 25.0), (18.0, 25.0)]).circle(hole_r).extrude(-t))
