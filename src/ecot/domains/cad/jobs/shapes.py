"""Shape queries shared by the sandboxed CAD checks and comparisons (OCP only, no ecot imports)."""

from __future__ import annotations

from typing import Any

from OCP.Bnd import Bnd_Box
from OCP.BRepBndLib import BRepBndLib
from OCP.BRepGProp import BRepGProp
from OCP.GProp import GProp_GProps
from OCP.TopExp import TopExp
from OCP.TopoDS import TopoDS_Shape
from OCP.TopTools import TopTools_IndexedMapOfShape


def sub_shapes(shape: TopoDS_Shape, kind: Any) -> list[TopoDS_Shape]:
    found = TopTools_IndexedMapOfShape()
    TopExp.MapShapes_s(shape, kind, found)
    return [found.FindKey(i) for i in range(1, found.Extent() + 1)]


def volume_and_center(shape: TopoDS_Shape) -> tuple[float, list[float]]:
    props = GProp_GProps()
    BRepGProp.VolumeProperties_s(shape, props)
    center = props.CentreOfMass()
    return props.Mass(), rounded([center.X(), center.Y(), center.Z()])


def bounding_box(shape: TopoDS_Shape) -> list[float]:
    box = Bnd_Box()
    BRepBndLib.AddOptimal_s(shape, box, False, False)
    return rounded(box.Get()) if not box.IsVoid() else [0.0] * 6


def rounded(values: Any, digits: int = 4) -> list[float]:
    return [round(float(v), digits) for v in values]
