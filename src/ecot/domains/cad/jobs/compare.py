"""Candidate vs reference in the check job: exact IoU by OpenCascade booleans, and mesh metrics.

Exact IoU = volume(common) / volume(fuse). When the two differ, the boolean cuts ref - cand and
cand - ref say where: each missing or extra piece of material with its volume, centre and box, which
is what an engineer needs to find a misplaced hole or a missing fillet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from OCP.Bnd import Bnd_Box
from OCP.BOPAlgo import BOPAlgo_PaveFiller
from OCP.BRep import BRep_Tool
from OCP.BRepAlgoAPI import BRepAlgoAPI_Common, BRepAlgoAPI_Cut, BRepAlgoAPI_Fuse
from OCP.BRepBndLib import BRepBndLib
from OCP.BRepMesh import BRepMesh_IncrementalMesh
from OCP.TopAbs import TopAbs_FACE, TopAbs_REVERSED, TopAbs_SOLID
from OCP.TopLoc import TopLoc_Location
from OCP.TopoDS import TopoDS, TopoDS_Shape
from OCP.TopTools import TopTools_ListOfShape

from ecot.domains.cad.jobs import metrics as cad_metrics
from ecot.domains.cad.jobs.shapes import bounding_box, sub_shapes, volume_and_center

IDENTICAL = 1e-7  # relative volume differences below this are boolean round-off, not geometry
MAX_PIECES = 5


class BooleanFailed(RuntimeError):
    pass


def _intersect(first: TopoDS_Shape, second: TopoDS_Shape, fuzzy: float) -> BOPAlgo_PaveFiller:
    """Intersect the two shapes once; common, fuse and both cuts are then cheap to build from it."""
    arguments = TopTools_ListOfShape()
    arguments.Append(first)
    arguments.Append(second)
    filler = BOPAlgo_PaveFiller()
    filler.SetArguments(arguments)
    filler.SetFuzzyValue(fuzzy)  # tolerates faces that coincide up to round-off in both solids
    filler.SetRunParallel(False)
    filler.Perform()
    if filler.HasErrors():
        raise BooleanFailed("intersecting candidate and reference failed")
    return filler


def _boolean(op: type, first: TopoDS_Shape, second: TopoDS_Shape, filler: BOPAlgo_PaveFiller) -> TopoDS_Shape:
    built = op(first, second, filler)
    if not built.IsDone():
        raise BooleanFailed(f"{op.__name__.replace('BRepAlgoAPI_', '')} failed")
    return built.Shape()


def pieces(shape: TopoDS_Shape, scale: float) -> list[dict[str, Any]]:
    """The solids of a difference, largest first, ignoring round-off slivers."""
    found: list[dict[str, Any]] = []
    for solid in sub_shapes(shape, TopAbs_SOLID):
        volume, center = volume_and_center(solid)
        if volume > IDENTICAL * scale:
            found.append({"volume": round(volume, 4), "center": center, "bbox": bounding_box(solid)})
    found.sort(key=lambda p: -p["volume"])
    return found[:MAX_PIECES]


def exact(candidate: TopoDS_Shape, reference: TopoDS_Shape, fuzzy: float) -> dict[str, Any]:
    v_cand, _ = volume_and_center(candidate)
    v_ref, _ = volume_and_center(reference)
    filler = _intersect(candidate, reference, fuzzy)
    common = volume_and_center(_boolean(BRepAlgoAPI_Common, candidate, reference, filler))[0]
    fuse = volume_and_center(_boolean(BRepAlgoAPI_Fuse, candidate, reference, filler))[0]
    scale = max(abs(v_ref), abs(v_cand), 1e-12)
    # inclusion-exclusion must hold; when it does not, a boolean went wrong on this geometry
    consistent = abs(fuse - (v_cand + v_ref - common)) <= 1e-3 * scale
    report: dict[str, Any] = {"iou": common / fuse if fuse > 0 else 0.0, "common": common, "fuse": fuse,
                              "consistent": consistent, "missing": [], "extra": []}
    if fuse - common > IDENTICAL * scale:
        report["missing"] = pieces(_boolean(BRepAlgoAPI_Cut, reference, candidate, filler), scale)
        report["extra"] = pieces(_boolean(BRepAlgoAPI_Cut, candidate, reference, filler), scale)
    return report


def triangulate(shape: TopoDS_Shape) -> tuple[np.ndarray, np.ndarray]:
    """A triangle mesh of the shape's faces, outward-oriented, with deflection relative to its size."""
    box = Bnd_Box()
    BRepBndLib.Add_s(shape, box)  # a loose box is enough to scale the deflection
    low, high = box.CornerMin(), box.CornerMax()
    size = max(high.X() - low.X(), high.Y() - low.Y(), high.Z() - low.Z(), 1e-6)
    BRepMesh_IncrementalMesh(shape, size * 4e-3, False, 0.5, True)
    points: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    offset = 0
    for face in sub_shapes(shape, TopAbs_FACE):
        location = TopLoc_Location()
        mesh = BRep_Tool.Triangulation_s(TopoDS.Face_s(face), location)
        if mesh is None:
            continue
        move = location.Transformation()
        nodes = [mesh.Node(i).Transformed(move) for i in range(1, mesh.NbNodes() + 1)]
        points.append(np.array([[p.X(), p.Y(), p.Z()] for p in nodes], dtype=np.float64))
        tris = np.array([mesh.Triangle(i).Get() for i in range(1, mesh.NbTriangles() + 1)], dtype=np.int64) - 1
        if face.Orientation() == TopAbs_REVERSED:
            tris = tris[:, ::-1]
        triangles.append(tris + offset)
        offset += len(nodes)
    if not points:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    return np.vstack(points), np.vstack(triangles)


def mesh_metrics(candidate: TopoDS_Shape, reference: TopoDS_Shape, voxels: int, samples: int) -> dict[str, Any]:
    mesh_c, mesh_r = triangulate(candidate), triangulate(reference)
    if not len(mesh_c[1]) or not len(mesh_r[1]):
        return {"voxel_iou": 0.0, "chamfer": None, "hausdorff": None, "triangles": len(mesh_c[1])}
    voxel = cad_metrics.normalized_voxel_iou(mesh_c, mesh_r, voxels)
    mean, worst = cad_metrics.chamfer(mesh_c, mesh_r, samples)
    return {"voxel_iou": round(voxel, 4), "chamfer": round(mean, 4), "hausdorff": round(worst, 4),
            "triangles": int(len(mesh_c[1]))}
