"""The cad domain's descriptor: CadQuery scripts judged by the solid they build."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.languages import python_hints


class CadLabel(KindedLabel):
    SYNTAX_ERROR = "Syntax_Error", LabelKind.BUILD
    RUNTIME_ERROR = "Runtime_Error", LabelKind.RUNTIME
    GEOMETRY_ERROR = "Geometry_Error", LabelKind.WRONG  # the script ran but built an invalid solid
    SHAPE_MISMATCH = "Shape_Mismatch", LabelKind.WRONG


DOMAIN = Domain(
    name="cad",
    language="python",
    fences=("python", "py"),
    suffix=".py",
    comment="#",
    labels=CadLabel,
    backend="ecot.domains.cad.backend:CadBackend",
    options="ecot.domains.cad.options:CadOptions",
    mutators="ecot.domains.cad.mutators:CAD_MUTATIONS",
    hints=python_hints(),
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot.domains.cad.metrics:METRICS",
    preview="ecot.domains.cad.render:PREVIEW",
)
