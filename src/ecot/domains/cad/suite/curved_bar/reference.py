import cadquery as cq

radius = 50.0
bar_w = 10.0
bar_h = 6.0

path = cq.Wire.assembleEdges([
    cq.Edge.makeThreePointArc(cq.Vector(radius, 0, 0), cq.Vector(radius * 2 ** -0.5, radius * 2 ** -0.5, 0), cq.Vector(0, radius, 0)),
])
section = cq.Workplane("XZ").center(radius, 0).rect(bar_w, bar_h)
result = section.sweep(path)
