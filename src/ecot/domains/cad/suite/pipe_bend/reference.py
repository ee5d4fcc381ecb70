import cadquery as cq

outer_r = 10.0
inner_r = 8.0
rise = 40.0
bend_r = 30.0
run = 40.0

mid = (bend_r - bend_r * 2 ** -0.5, 0.0, rise + bend_r * 2 ** -0.5)
path = cq.Wire.assembleEdges([
    cq.Edge.makeLine(cq.Vector(0, 0, 0), cq.Vector(0, 0, rise)),
    cq.Edge.makeThreePointArc(cq.Vector(0, 0, rise), cq.Vector(*mid), cq.Vector(bend_r, 0, rise + bend_r)),
    cq.Edge.makeLine(cq.Vector(bend_r, 0, rise + bend_r), cq.Vector(bend_r + run, 0, rise + bend_r)),
])
result = cq.Workplane("XY").circle(outer_r).circle(inner_r).sweep(path, transition="round")
