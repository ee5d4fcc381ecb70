import cadquery as cq

base_l = 80.0
base_w = 30.0
base_t = 10.0
axis_z = 25.0
housing_d = 40.0
bore_d = 20.0

base = cq.Workplane("XY").box(base_l, base_w, base_t, centered=(True, True, False))
web = cq.Workplane("XY").workplane(offset=base_t).box(housing_d, base_w, axis_z - base_t, centered=(True, True, False))
housing = cq.Workplane("XZ").workplane(offset=-base_w / 2).center(0, axis_z).circle(housing_d / 2).extrude(base_w)
result = base.union(web).union(housing)
bore = cq.Workplane("XZ").workplane(offset=-base_w).center(0, axis_z).circle(bore_d / 2).extrude(2 * base_w)
result = result.cut(bore)
result = result.cut(cq.Workplane("XY").pushPoints([(-30.0, 0.0), (30.0, 0.0)]).circle(4.5).extrude(base_t))
