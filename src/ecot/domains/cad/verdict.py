"""From job results to an Outcome: the CAD labels, per-task thresholds and engineer-facing diagnostics.

Pure host-side logic (no OpenCascade): `script_outcome` reads the candidate job (syntax, runtime,
kernel exceptions, crashes, limits), `judge` reads the check job's report (validity, single solid,
an exact comparison that could be made, bounding box, volume, exact IoU, optional voxel IoU and
Chamfer limits).
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from pydantic import ValidationError

from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Metric, Outcome, infra_error, truncate_log
from ecot.core.task import Limits
from ecot.domains.base import describe_options_error
from ecot.domains.cad.domain import CadLabel
from ecot.domains.cad.options import CadOptions
from ecot.sandbox import ExecResult

SYNTAX_ERROR = CadLabel.SYNTAX_ERROR.value
RUNTIME_ERROR = CadLabel.RUNTIME_ERROR.value
GEOMETRY_ERROR = CadLabel.GEOMETRY_ERROR.value
SHAPE_MISMATCH = CadLabel.SHAPE_MISMATCH.value
CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGFPE, signal.SIGILL}
_FRAME = re.compile(r'File "candidate\.py", line (\d+)')


@dataclass(frozen=True)
class Thresholds:
    """Per-task acceptance limits, read from task.toml [options] (all optional)."""

    single_solid: bool = True  # the part must be one connected solid
    iou_min: float = 0.999  # exact IoU (boolean common / fuse) with the reference
    volume_rtol: float = 0.001  # relative volume difference allowed
    bbox_tol: float = 0.05  # mm, on each face of the axis-aligned bounding box
    voxel_iou_min: float | None = None  # normalized voxel IoU (CAD-Coder style); a metric unless set
    chamfer_max: float | None = None  # mm, symmetric mean surface distance; a metric unless set
    self_check: bool = True  # BOPAlgo self-intersection analysis (slower on large parts)
    voxels: int = 32
    samples: int = 1000
    fuzzy: float = 1e-5  # mm, boolean fuzzy value for faces that coincide up to round-off
    tolerance_max: float = 1e-3  # mm, a coarser sub-shape tolerance blurs the exact booleans: not comparable

    @classmethod
    def from_options(cls, options: Mapping[str, Any], where: str) -> Thresholds:
        """The thresholds among a task's options, checked by the domain's option model (ValueError if wrong)."""
        try:
            typed = CadOptions.model_validate(dict(options))
        except ValidationError as err:
            option, message = describe_options_error(err, CadOptions)
            raise ValueError(f"{where}: option '{option}': {message}") from None
        return cls.of(typed)

    @classmethod
    def of(cls, options: CadOptions) -> Thresholds:
        """The thresholds among options already checked by the domain's option model."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(cls)})

    def check_options(self) -> dict[str, Any]:
        return {"self_check": self.self_check, "voxels": self.voxels, "samples": self.samples, "fuzzy": self.fuzzy,
                "tolerance_max": self.tolerance_max}


# -- the candidate's script -------------------------------------------------------------------------
def parse_status(stdout: str, token: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(token + " "):
            try:
                data = json.loads(line[len(token) + 1 :])
            except json.JSONDecodeError:
                return None
            return data if isinstance(data, dict) else None
    return None


def strip_status(text: str, token: str) -> str:
    return "\n".join(line for line in text.splitlines() if token not in line)


def _where(line: Any, source: str) -> str:
    """`candidate.py:7 (`the code on that line`)`, or '' when no line is known."""
    if not isinstance(line, int) or line < 1:
        return ""
    lines = source.splitlines()
    code = lines[line - 1].strip() if line <= len(lines) else ""
    code = code if len(code) <= 90 else code[:87] + "..."
    return f"candidate.py:{line}" + (f" (`{code}`)" if code else "") + ": "


def script_outcome(result: ExecResult, status: dict[str, Any] | None, source: str, limits: Limits, log: str) -> Outcome | None:
    """The outcome when the script did not produce a shape; None when it did."""
    log = truncate_log(log)
    frames = _FRAME.findall(result.stderr)
    last_line = int(frames[-1]) if frames else None
    if result.output_overflow:
        return Outcome(RESOURCE_LIMIT, f"the script's output exceeded {limits.output_kb} KiB and was stopped", log)
    if result.timed_out or result.signal == signal.SIGXCPU:
        budget = f"{limits.wall_s:g} s" if result.timed_out else f"{limits.cpu_s:g} s of CPU time"
        return Outcome(TIMEOUT, f"{_where(last_line, source)}the script did not finish within {budget}", log,
                       {"stage": "script"})
    if result.signal == signal.SIGXFSZ:
        return Outcome(RESOURCE_LIMIT, f"the script wrote more than {limits.file_mb} MiB to a file", log)
    if result.signal in CRASH_SIGNALS:
        name = signal.Signals(result.signal).name
        return Outcome(GEOMETRY_ERROR, f"{_where(last_line, source)}the geometry kernel crashed ({name}) while the "
                       "script ran; this usually means degenerate input to a kernel operation", log, {"stage": "script"})
    if status is None or status.get("stage") != "done":
        return _status_outcome(status, result, source, limits, log)
    return None


def _status_outcome(status: dict[str, Any] | None, result: ExecResult, source: str, limits: Limits, log: str) -> Outcome:
    if status is None:
        how = f"signal {result.signal}" if result.signal else f"exit status {result.returncode}"
        return Outcome(RUNTIME_ERROR, f"the script ended the process ({how}) before producing a solid", log)
    kind, message = str(status.get("type", "Error")), str(status.get("message", "")).strip()
    where = _where(status.get("line"), source)
    stage = status.get("stage")
    if stage == "syntax":
        return Outcome(SYNTAX_ERROR, f"{where}{kind}: {message}", log, {"stage": "syntax"})
    if kind == "MemoryError" or "Standard_OutOfMemory" in kind:
        return Outcome(RESOURCE_LIMIT, f"{where}the script ran out of memory (limit {limits.memory_mb} MiB)", log)
    if status.get("kernel"):
        said = f"{kind}: {message}" if message else kind
        return Outcome(GEOMETRY_ERROR, f"{where}the geometry kernel could not build this feature ({said})", log,
                       {"stage": str(stage)})
    return Outcome(RUNTIME_ERROR, f"{where}{kind}: {message}" if message else f"{where}{kind}", log, {"stage": str(stage)})


# -- the checks ---------------------------------------------------------------------------------
def _fmt(value: float) -> str:
    value = value + 0.0  # no "-0"
    text = f"{value:.4g}" if abs(value) < 1000 else f"{value:.1f}"
    return "0" if text in ("-0", "-0.0") else text


def _point(values: list[float]) -> str:
    return "(" + ", ".join(_fmt(v) for v in values) + ")"


def _size(box: list[float]) -> str:
    return " x ".join(_fmt(box[i + 3] - box[i]) for i in range(3)) + " mm"


def _numbers(cand: dict[str, Any], ref: dict[str, Any]) -> str:
    rel = (cand["volume"] - ref["volume"]) / ref["volume"] if ref["volume"] else 0.0
    return (f"volume {_fmt(cand['volume'])} vs reference {_fmt(ref['volume'])} mm^3 ({rel:+.2%}); "
            f"bounding box {_size(cand['bbox'])} vs {_size(ref['bbox'])}")


def _fault_text(faults: list[dict[str, Any]]) -> str:
    parts = []
    for kind in dict.fromkeys(f["kind"] for f in faults):
        first = next(f for f in faults if f["kind"] == kind)
        count = first.get("count", 1)
        many = f"{count} x " if count > 1 else ""
        parts.append(f"{many}{kind} on {first['shape']} at {_point(first['at'])}: {first['detail']}")
    return "; ".join(parts[:3])


def _box_gap(cand: list[float], ref: list[float]) -> tuple[float, str]:
    names = ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax")
    gaps = [abs(c - r) for c, r in zip(cand, ref)]
    worst = max(range(6), key=lambda i: gaps[i])
    return gaps[worst], f"{names[worst]} {_fmt(cand[worst])} vs {_fmt(ref[worst])}"


def _pieces(label: str, pieces: list[dict[str, Any]]) -> str:
    if not pieces:
        return ""
    total = sum(p["volume"] for p in pieces)
    spots = ", ".join(f"{_fmt(p['volume'])} mm^3 at {_point(p['center'])}" for p in pieces[:3])
    return f"{label} material {_fmt(total)} mm^3 ({spots})"


def metrics_of(report: dict[str, Any]) -> dict[str, Metric]:
    measure, compare, mesh = report.get("measure", {}), report.get("compare", {}), report.get("mesh", {})
    cand, ref = measure.get("candidate", {}), measure.get("reference", {})
    found: dict[str, Metric] = {}
    if cand:
        found.update(volume=round(cand["volume"], 4), solids=cand["solids"], faces=cand["faces"], edges=cand["edges"])
        found.update({f"size_{a}": round(cand["bbox"][i + 3] - cand["bbox"][i], 4) for i, a in enumerate("xyz")})
    if ref:
        found["ref_volume"] = round(ref["volume"], 4)
    if "faults" in measure:
        found["faults"] = len(measure["faults"])
    if "iou" in compare:
        found["iou"] = round(compare["iou"], 6)
    for key, name in (("voxel_iou", "voxel_iou"), ("chamfer", "chamfer_mm"), ("hausdorff", "hausdorff_mm")):
        if mesh.get(key) is not None:
            found[name] = mesh[key]
    return found


def not_compared(report: dict[str, Any]) -> str | None:
    """Why the exact comparison of a measured, valid solid is missing or untrustworthy; None when it
    was made (or when there is no such solid: the verdict then fails for that reason)."""
    measure = report.get("measure")
    if measure is None or measure.get("faults"):
        return None
    compare = report.get("compare")
    if compare is None:
        return str(report.get("failure") or "the check job ended before the exact comparison")
    if compare.get("consistent") is not True:
        return ("the boolean volumes contradict each other (volume(fuse) differs from volume(candidate) + "
                "volume(reference) - volume(common))")
    return None


def judge(report: dict[str, Any], limits: Thresholds, log: str) -> Outcome:
    """The label and diagnostic from the check job's stages (see cad_checks)."""
    metrics, log = metrics_of(report), truncate_log(log)
    measure = report["measure"]
    cand, ref, faults = measure["candidate"], measure["reference"], measure["faults"]
    if cand["solids"] == 0:
        what = f"{cand['faces']} faces and {cand['edges']} edges" if cand["faces"] or cand["edges"] else "nothing"
        return Outcome(GEOMETRY_ERROR, f"the result holds no solid, only {what}: the script stopped at a sketch, "
                       "wire or surface, or a cut removed everything", log, metrics)
    if faults:
        return Outcome(GEOMETRY_ERROR, f"invalid solid: {_fault_text(faults)}; {_numbers(cand, ref)}", log, metrics)
    if limits.single_solid and cand["solids"] > 1:
        volumes = ", ".join(_fmt(v) for v in cand["solid_volumes"][:4])
        return Outcome(GEOMETRY_ERROR, f"the result is {cand['solids']} separate solids (volumes {volumes} mm^3) where "
                       f"one connected part is required: a feature does not touch the body or a boolean split it; "
                       f"{_numbers(cand, ref)}", log, metrics)
    if "reference_not_compared" in report:
        return infra_error(f"the reference cannot be compared exactly with itself on this machine "
                           f"({report['reference_not_compared']}), so no candidate can be judged", log)
    why = not_compared(report)
    if why is not None:
        return Outcome(GEOMETRY_ERROR, f"the solid cannot be compared exactly with the reference: {why}; a solid the "
                       f"boolean kernel cannot compare does not pass; {_numbers(cand, ref)}", log, metrics)
    problems = _mismatches(report, limits)
    if problems:
        compare = report.get("compare", {})
        where = "; ".join(p for p in (_pieces("missing", compare.get("missing", [])),
                                       _pieces("extra", compare.get("extra", []))) if p)
        text = "; ".join(problems) + f"; {_numbers(cand, ref)}" + (f"; {where}" if where else "")
        return Outcome(SHAPE_MISMATCH, text, log, metrics)
    iou = report["compare"]["iou"]
    return Outcome(PASS, f"valid single solid matching the reference: IoU {iou:.5f}; {_numbers(cand, ref)}", log, metrics)


def _mismatches(report: dict[str, Any], limits: Thresholds) -> list[str]:
    cand, ref = report["measure"]["candidate"], report["measure"]["reference"]
    compare, mesh = report.get("compare", {}), report.get("mesh", {})
    found = []
    gap, which = _box_gap(cand["bbox"], ref["bbox"])
    if gap > limits.bbox_tol:
        found.append(f"bounding box differs by {_fmt(gap)} mm ({which})")
    rel = abs(cand["volume"] - ref["volume"]) / abs(ref["volume"]) if ref["volume"] else 0.0
    if rel > limits.volume_rtol:
        found.append(f"volume differs by {rel:.2%}")
    if compare["iou"] < limits.iou_min:
        found.append(f"IoU {compare['iou']:.4f} with the reference is below {limits.iou_min:g}")
    # a gate the task sets is never skipped: a value the mesh stage could not measure fails it
    voxel, chamfer = mesh.get("voxel_iou"), mesh.get("chamfer")
    if limits.voxel_iou_min is not None and not (voxel is not None and voxel >= limits.voxel_iou_min):
        found.append(f"normalized voxel IoU {_measured(voxel, '.4f')} is below {limits.voxel_iou_min:g}")
    if limits.chamfer_max is not None and not (chamfer is not None and chamfer <= limits.chamfer_max):
        found.append(f"Chamfer distance {_measured(chamfer, '.4g')} mm exceeds {limits.chamfer_max:g} mm")
    return found


def _measured(value: float | None, spec: str) -> str:
    return format(value, spec) if value is not None else "(not measured)"
