import cadquery as cq

rod_d = 10.0
span = 80.0
height = 30.0
bend_r = 10.0

x = span / 2
s = bend_r * (1 - 2 ** -0.5)
V = cq.Vector
path = cq.Wire.assembleEdges([
    cq.Edge.makeLine(V(-x, 0, 0), V(-x, 0, height - bend_r)),
    cq.Edge.makeThreePointArc(V(-x, 0, height - bend_r), V(-x + s, 0, height - s), V(-x + bend_r, 0, height)),
    cq.Edge.makeLine(V(-x + bend_r, 0, height), V(x - bend_r, 0, height)),
    cq.Edge.makeThreePointArc(V(x - bend_r, 0, height), V(x - s, 0, height - s), V(x, 0, height - bend_r)),
    cq.Edge.makeLine(V(x, 0, height - bend_r), V(x, 0, 0)),
])
result = cq.Workplane("XY").center(-x, 0).circle(rod_d / 2).sweep(path, transition="round")
