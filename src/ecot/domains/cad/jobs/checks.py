"""Geometry checks of a candidate solid against a reference solid, run in a sandboxed job.

Executed in a fresh fork of the warm interpreter that never ran candidate code:

    python -c "from ecot.domains.cad.jobs.checks import main; main()" CANDIDATE REFERENCE OPTIONS_JSON TOKEN

CANDIDATE and REFERENCE are read-once pipes holding BREP text. Each finished stage prints one line
`TOKEN {"stage": ..., ...}` and flushes it, so when the kernel crashes or hangs in a later stage the
host still has the earlier findings and knows where it stopped. Stages: `measure` (sizes of both
shapes, validity of the candidate), `compare` (exact IoU by boolean common/fuse, and where material
is missing or extra), `mesh` (voxel IoU after normalization, Chamfer distance). Options (JSON):
`self_check`, `tolerance_max`, `fuzzy`, `voxels`, `samples`, and `validity` / `mesh` (false for the
host's probe that compares the reference with itself).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from OCP.BRep import BRep_Builder, BRep_Tool
from OCP.BRepAdaptor import BRepAdaptor_Curve
from OCP.BRepAlgoAPI import BRepAlgoAPI_Check
from OCP.BRepCheck import BRepCheck_Analyzer
from OCP.BRepGProp import BRepGProp
from OCP.BRepTools import BRepTools
from OCP.GCPnts import GCPnts_AbscissaPoint
from OCP.GProp import GProp_GProps
from OCP.TopAbs import (
    TopAbs_EDGE,
    TopAbs_FACE,
    TopAbs_SHELL,
    TopAbs_SOLID,
    TopAbs_VERTEX,
    TopAbs_WIRE,
)
from OCP.TopExp import TopExp
from OCP.TopoDS import TopoDS, TopoDS_Shape
from OCP.TopTools import TopTools_IndexedDataMapOfShapeListOfShape

from ecot.domains.cad.jobs.shapes import bounding_box, rounded, sub_shapes, volume_and_center

ZERO_LENGTH_MM = 1e-5  # shorter non-degenerate edges are flagged (BRepCheck accepts them)
TOLERANCE_MAX_MM = 1e-3  # a sub-shape claiming a coarser accuracy blurs the exact booleans (see tolerance_faults)
MAX_FAULTS_PER_KIND = 4
_KIND_NAMES = {TopAbs_VERTEX: "vertex", TopAbs_EDGE: "edge", TopAbs_WIRE: "wire", TopAbs_FACE: "face",
               TopAbs_SHELL: "shell", TopAbs_SOLID: "solid"}
_CASTS = {TopAbs_VERTEX: TopoDS.Vertex_s, TopAbs_EDGE: TopoDS.Edge_s, TopAbs_FACE: TopoDS.Face_s}


# -- reading and measuring ---------------------------------------------------------------------
def read_brep(path: str) -> TopoDS_Shape:
    """Copy a (possibly read-once) file to private /tmp storage and parse it as BREP."""
    with open(path, "rb") as source:
        data = source.read()
    local = os.path.join("/tmp", f"shape-{os.getpid()}-{abs(hash(path))}.brep")
    with open(local, "wb") as target:
        target.write(data)
    shape = TopoDS_Shape()
    if not BRepTools.Read_s(shape, local, BRep_Builder()) or shape.IsNull():
        raise ValueError(f"{os.path.basename(path)} is not a readable BREP shape")
    return shape


def measure(shape: TopoDS_Shape) -> dict[str, Any]:
    volume, center = volume_and_center(shape)
    props = GProp_GProps()
    BRepGProp.SurfaceProperties_s(shape, props)
    solids = sub_shapes(shape, TopAbs_SOLID)
    return {
        "volume": volume,
        "area": props.Mass(),
        "center": center,
        "bbox": bounding_box(shape),
        "solids": len(solids),
        "solid_volumes": sorted((volume_and_center(s)[0] for s in solids), key=abs, reverse=True)[:6],
        "shells": len(sub_shapes(shape, TopAbs_SHELL)),
        "faces": len(sub_shapes(shape, TopAbs_FACE)),
        "edges": len(sub_shapes(shape, TopAbs_EDGE)),
    }


# -- validity ----------------------------------------------------------------------------------
def where(shape: TopoDS_Shape) -> list[float]:
    """A representative point: a vertex itself, an edge's midpoint, else the bounding box centre."""
    if shape.ShapeType() == TopAbs_VERTEX:
        point = BRep_Tool.Pnt_s(TopoDS.Vertex_s(shape))
        return rounded([point.X(), point.Y(), point.Z()])
    if shape.ShapeType() == TopAbs_EDGE and not BRep_Tool.Degenerated_s(TopoDS.Edge_s(shape)):
        curve = BRepAdaptor_Curve(TopoDS.Edge_s(shape))
        point = curve.Value((curve.FirstParameter() + curve.LastParameter()) / 2)
        return rounded([point.X(), point.Y(), point.Z()])
    box = bounding_box(shape)
    return rounded([(box[i] + box[i + 3]) / 2 for i in range(3)])


def edge_length(edge: TopoDS_Shape) -> float:
    return float(GCPnts_AbscissaPoint.Length_s(BRepAdaptor_Curve(TopoDS.Edge_s(edge))))


def brep_faults(shape: TopoDS_Shape) -> list[dict[str, Any]]:
    """Sub-shapes that BRepCheck_Analyzer rejects, with its status names."""
    analyzer = BRepCheck_Analyzer(shape)
    if analyzer.IsValid():
        return []
    faults = []
    for kind, name in _KIND_NAMES.items():
        for sub in sub_shapes(shape, kind):
            result = analyzer.Result(sub)
            statuses = [s.name.replace("BRepCheck_", "") for s in result.Status()] if result is not None else []
            statuses = [s for s in statuses if s != "NoError"]
            if statuses:
                faults.append({"check": "brep", "kind": statuses[0], "shape": name, "at": where(sub),
                               "detail": ", ".join(dict.fromkeys(statuses))})
    # the analyzer can reject a shape without pinning a sub-shape; say so rather than pass it
    return faults or [{"check": "brep", "kind": "Invalid", "shape": "shape", "at": where(shape),
                       "detail": "BRepCheck_Analyzer rejects the shape"}]


def topology_faults(shape: TopoDS_Shape) -> list[dict[str, Any]]:
    """Open boundaries (an edge on one face), zero-thickness contacts (an edge on more than two
    faces: a feature tangent to a face) and zero-length edges."""
    faces_of = TopTools_IndexedDataMapOfShapeListOfShape()
    TopExp.MapShapesAndAncestors_s(shape, TopAbs_EDGE, TopAbs_FACE, faces_of)
    faults = []
    for index in range(1, faces_of.Extent() + 1):
        edge = faces_of.FindKey(index)
        if BRep_Tool.Degenerated_s(TopoDS.Edge_s(edge)):
            continue
        uses = faces_of.FindFromIndex(index).Size()  # a seam edge is listed twice for its one face
        length = edge_length(edge)
        if length < ZERO_LENGTH_MM:
            faults.append({"check": "topology", "kind": "ZeroLengthEdge", "shape": "edge", "at": where(edge),
                           "size": length, "detail": f"edge has zero length ({length:.2g} mm)"})
        elif uses == 1:
            faults.append({"check": "topology", "kind": "FreeEdge", "shape": "edge", "at": where(edge), "size": length,
                           "detail": f"{length:.3g} mm edge bounds only one face: the shell is open there"})
        elif uses > 2:
            faults.append({"check": "topology", "kind": "NonManifoldEdge", "shape": "edge", "at": where(edge),
                           "size": length, "detail": f"{length:.3g} mm edge shared by {uses} faces: zero-thickness "
                           "contact (a feature tangent to a face, or bodies touching along a line)"})
    return faults


def self_intersections(shape: TopoDS_Shape) -> list[dict[str, Any]]:
    """BOPAlgo's argument analysis: self-intersections, too-small edges, invalid curves on surfaces."""
    check = BRepAlgoAPI_Check(shape, True, True)
    if check.IsValid():
        return []
    faults = []
    for result in check.Result():
        status = result.GetCheckStatus().name.replace("BOPAlgo_", "")
        if status == "NotValid":  # BRepCheck's verdict again, reported by brep_faults
            continue
        shapes = list(result.GetFaultyShapes1())
        names = " x ".join(_KIND_NAMES.get(s.ShapeType(), "shape") for s in shapes) or "shape"
        at = where(shapes[0]) if shapes else where(shape)
        faults.append({"check": "boolean", "kind": status, "shape": names, "at": at, "detail": f"{status} between {names}"})
    return faults


def tolerance_faults(shape: TopoDS_Shape, bound: float) -> list[dict[str, Any]]:
    """Sub-shapes whose tolerance exceeds `bound` mm. OpenCascade treats geometry within a sub-shape's
    tolerance as coincident, so a shape that claims 0.3 mm makes the booleans merge (or fail on) features
    up to 0.3 mm apart: such a solid cannot be compared exactly and is rejected before it is compared."""
    faults = []
    for kind, cast in _CASTS.items():
        for sub in sub_shapes(shape, kind):
            value = float(BRep_Tool.Tolerance_s(cast(sub)))
            if not value <= bound:  # NaN fails too
                name = _KIND_NAMES[kind]
                faults.append({"check": "tolerance", "kind": "ExcessiveTolerance", "shape": name, "at": where(sub),
                               "size": value, "detail": f"{name} tolerance {value:.3g} mm exceeds {bound:g} mm: the "
                               "solid is too coarse to be compared exactly with the reference"})
    return faults


def validity(shape: TopoDS_Shape, deep: bool, tolerance_max: float = TOLERANCE_MAX_MM) -> list[dict[str, Any]]:
    brep, topology = brep_faults(shape), topology_faults(shape)
    if topology and [f["kind"] for f in brep] == ["Invalid"]:
        brep = []  # the topology findings already say what is wrong
    found = tolerance_faults(shape, tolerance_max) + brep + topology
    if deep and not found:
        found = self_intersections(shape)
    for solid in sub_shapes(shape, TopAbs_SOLID):
        volume = volume_and_center(solid)[0]
        if volume <= 0:
            found.append({"check": "topology", "kind": "InsideOut", "shape": "solid", "at": where(solid),
                          "size": volume, "detail": f"solid has non-positive volume {volume:.4g} (faces point inwards)"})
    return _capped(found)


def _capped(faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for fault in faults:
        counts[fault["kind"]] = counts.get(fault["kind"], 0) + 1
        if counts[fault["kind"]] <= MAX_FAULTS_PER_KIND:
            kept.append(fault)
    for fault in kept:
        fault["count"] = counts[fault["kind"]]
    return kept


# -- the job -----------------------------------------------------------------------------------
def emit(token: str, stage: str, **data: Any) -> None:
    print(f"{token} {json.dumps({'stage': stage, **data})}", flush=True)


def main(argv: list[str] | None = None) -> None:
    from ecot.domains.cad.jobs import compare as cad_compare  # numpy and the boolean kernel: only when run

    args = list(sys.argv[1:] if argv is None else argv)
    cand_path, ref_path, options, token = args[0], args[1], json.loads(args[2]), args[3]
    start = time.monotonic()
    reference = read_brep(ref_path)
    try:
        candidate = read_brep(cand_path)
    except ValueError as err:
        emit(token, "unreadable", error=str(err))
        return
    found = validity(candidate, bool(options.get("self_check", True)),
                     float(options.get("tolerance_max", TOLERANCE_MAX_MM))) if options.get("validity", True) else []
    emit(token, "measure", candidate=measure(candidate), reference=measure(reference), faults=found,
         seconds=round(time.monotonic() - start, 4))
    if found or not options.get("compare", True):
        return
    emit(token, "compare", **cad_compare.exact(candidate, reference, float(options.get("fuzzy", 1e-5))))
    if options.get("mesh", True):
        emit(token, "mesh", **cad_compare.mesh_metrics(candidate, reference, int(options.get("voxels", 32)),
                                                      int(options.get("samples", 1000))),
             seconds=round(time.monotonic() - start, 4))
