"""Previews for reports: STL and STEP files of candidate and reference, and a PNG of the two side by side.

    from ecot.domains.cad.render import preview
    shown = preview(task, candidate_code, Path("report/fig"))   # -> Preview(files, png, outcome)

    python -m ecot.cli.preview SUITE_TASK_DIR CANDIDATE.py OUT_DIR [--no-png]

`ecot report --previews N` shows the PNG on trajectory pages (the descriptor names `PREVIEW`).

The candidate script runs in the sandbox as in an evaluation; a separate sandboxed export job (which
never runs candidate code) writes the STL/STEP files and a triangle mesh; the PNG is drawn on the host
with matplotlib's Agg backend from that mesh (no GPU or OpenGL needed).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.core.views import Preview, PreviewHook

EXPORT = "from ecot.domains.cad.render import export_main\nexport_main()\n"
MESH_FILE = "meshes.json"
KINDS = ("candidate", "reference")
_ELEV, _AZIM = 25.0, -60.0  # degrees; _EYE points from the part towards the viewer
_EYE = (math.cos(math.radians(_ELEV)) * math.cos(math.radians(_AZIM)),
        math.cos(math.radians(_ELEV)) * math.sin(math.radians(_AZIM)), math.sin(math.radians(_ELEV)))


# -- inside the sandbox (export job) ----------------------------------------------------------------
def export_main(argv: list[str] | None = None) -> None:
    """Read candidate.brep / reference.brep (pipes), write STEP, STL and a JSON mesh of each."""
    import cadquery as cq

    from ecot.domains.cad.jobs.checks import read_brep
    from ecot.domains.cad.jobs.compare import triangulate

    meshes: dict[str, Any] = {}
    for kind in (argv if argv is not None else sys.argv[1:]):
        shape = cq.Shape.cast(read_brep(f"{kind}.brep"))
        shape.exportStep(f"{kind}.step")
        vertices, triangles = triangulate(shape.wrapped)
        shape.exportStl(f"{kind}.stl", tolerance=1e-2, angularTolerance=0.2)
        meshes[kind] = {"vertices": vertices.round(4).tolist(), "triangles": triangles.tolist()}
    with open(MESH_FILE, "w", encoding="utf-8") as handle:
        json.dump(meshes, handle)


# -- on the host ---------------------------------------------------------------------------------------
def preview(task: Task, candidate: str, out_dir: Path, png: bool = True, backend: Any = None) -> Preview:
    """Evaluate the candidate, then export and draw it next to the reference into out_dir."""
    from ecot.domains import get_backend
    from ecot.domains.cad.backend import read_output

    backend = backend or get_backend("cad")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    shown = Preview(outcome=backend.run(task, candidate))
    feeds = {"reference.brep": backend.reference_shape(task)}
    built = backend.run_script(candidate, task.limits)
    if not isinstance(built, Outcome):
        feeds["candidate.brep"] = built[0]
    kinds = [k for k in KINDS if f"{k}.brep" in feeds]
    limits = task.limits.scaled(wall_s=max(task.limits.wall_s, 60.0), cpu_s=max(task.limits.cpu_s, 60.0),
                                memory_mb=max(task.limits.memory_mb, 3072), file_mb=max(task.limits.file_mb, 64))
    with sandbox.workdir("ecot-cad-preview-") as work:
        result = backend.runner().run(work, EXPORT, limits, argv=kinds, feeds=feeds)
        if not result.ok:
            raise RuntimeError(f"the preview export failed: {result.output[-500:]}")
        for kind in kinds:
            for suffix in (".step", ".stl"):
                data = read_output(work, f"{kind}{suffix}", limits)
                if data is not None:
                    target = out_dir / f"{kind}{suffix}"
                    target.write_bytes(data)
                    shown.files[target.name] = target
        raw = read_output(work, MESH_FILE, limits)
    if png and raw is not None:
        shown.png = render_png(json.loads(raw), out_dir / "preview.png", _title(task, shown.outcome))
    return shown


def _title(task: Task, outcome: Outcome | None) -> str:
    if outcome is None:
        return task.id
    iou = outcome.metrics.get("iou")
    return f"{task.id}: {outcome.label}" + (f" (IoU {iou:.4f})" if isinstance(iou, float) else "")


def render_png(meshes: dict[str, Any], target: Path, title: str = "") -> Path:
    """Candidate and reference side by side, same scale and view, flat-shaded from one light."""
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib import pyplot as plt
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    loaded = {k: (np.asarray(m["vertices"], float), np.asarray(m["triangles"], int)) for k, m in meshes.items()}
    points = np.vstack([v for v, t in loaded.values() if len(t)] or [np.zeros((1, 3))])
    low, high = points.min(axis=0), points.max(axis=0)
    middle, half = (low + high) / 2, max(float((high - low).max()) / 2, 1e-6)
    figure = plt.figure(figsize=(10, 5), dpi=110)
    for index, kind in enumerate(KINDS, start=1):
        axes = figure.add_subplot(1, 2, index, projection="3d")
        axes.set_title(kind if kind in loaded else f"{kind}: no solid")
        if kind in loaded and len(loaded[kind][1]):
            vertices, triangles = loaded[kind]
            faces = vertices[triangles]
            normals = np.cross(faces[:, 1] - faces[:, 0], faces[:, 2] - faces[:, 0])
            normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
            front = normals @ np.array(_EYE) > 0  # back-face culling: matplotlib's depth sort cannot be trusted
            light = np.clip(normals[front] @ np.array([0.4, -0.5, 0.77]), 0, 1) * 0.7 + 0.3
            colour = (0.85, 0.45, 0.2) if kind == "candidate" else (0.25, 0.5, 0.8)
            shades = np.outer(light, colour)
            axes.add_collection3d(Poly3DCollection(faces[front], facecolors=shades, edgecolors=shades, linewidths=0.3))
        for setter, axis in zip((axes.set_xlim, axes.set_ylim, axes.set_zlim), range(3)):
            setter(middle[axis] - half, middle[axis] + half)
        axes.set_box_aspect((1, 1, 1))
        axes.view_init(elev=_ELEV, azim=_AZIM)
        axes.set_xlabel("x")
        axes.set_ylabel("y")
        axes.set_zlabel("z")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(target)
    plt.close(figure)
    return target


PREVIEW = PreviewHook(
    title="CAD preview",
    caption="The last attempt's solid (left) next to the reference (right), same scale and view.",
    draw=preview,
)
