"""CAD-Coder's metrics (Comp, IoU), named by the descriptor (`Domain.metrics`) and scored by `ecot bench`;
definitions in docs/benchmarks.md."""

from __future__ import annotations

from ecot.core.outcome import PASS
from ecot.core.scoring import BenchMetric, Verdicts, number, share
from ecot.domains.cad.domain import CadLabel

CAD_VALID = frozenset({PASS, CadLabel.SHAPE_MISMATCH.value})  # scripts that ran and built a valid solid


def cad_comp(verdicts: Verdicts) -> float | None:
    """CAD-Coder's Comp: % of scripts that ran and produced a valid solid."""
    return share([v.label in CAD_VALID for v in verdicts])


def cad_iou(verdicts: Verdicts) -> float | None:
    """CAD-Coder's IoU (%): exact IoU with the reference solid (voxel IoU where the exact one is
    missing), 0 for a script without a valid solid."""
    values = []
    for verdict in verdicts:
        if verdict.label not in CAD_VALID:
            values.append(0.0)
            continue
        iou = number(verdict.metrics.get("iou", verdict.metrics.get("voxel_iou")))
        if iou is not None:
            values.append(100.0 * iou)
    return sum(values) / len(values) if values else None


METRICS = (BenchMetric("comp", "%", "CAD-Coder", cad_comp), BenchMetric("iou", "%", "CAD-Coder", cad_iou))
