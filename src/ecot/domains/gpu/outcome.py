"""Turning the GPU jobs' reports into outcome labels and diagnostics."""

from __future__ import annotations

import signal
from typing import Any

from ecot.core.outcome import PASS, TIMEOUT, Metric, Outcome, infra_error, truncate_log
from ecot.core.task import Task
from ecot.domains.gpu.domain import GpuLabel
from ecot.domains.gpu.jobs import limits as gpu_limits
from ecot.domains.gpu.runner import JobResult

COMPILATION_ERROR = GpuLabel.COMPILATION_ERROR.value
RUNTIME_ERROR = GpuLabel.RUNTIME_ERROR.value
MEMORY_FAULT = GpuLabel.MEMORY_FAULT.value
NUMERICAL_MISMATCH = GpuLabel.NUMERICAL_MISMATCH.value

KIND_LABELS = {
    "syntax": COMPILATION_ERROR,
    "compile": COMPILATION_ERROR,
    "illegal_access": MEMORY_FAULT,
    "out_of_resources": MEMORY_FAULT,
    "memory": MEMORY_FAULT,
    "data_race": NUMERICAL_MISMATCH,
    "runtime": RUNTIME_ERROR,
}


def candidate_outcome(task: Task, result: JobResult, log: str) -> Outcome | None:
    """The label of a candidate job that failed, or None when it ran every trial."""
    run, report = result.exec, result.report
    stage = (report or {}).get("stage") or result.progress or "start-up"
    if run.timed_out:
        return Outcome(TIMEOUT, f"ModelNew did not finish within {task.limits.wall_s:g} s (during {stage})", log,
                       {"stage": stage})
    if run.signal == signal.SIGXCPU:
        return Outcome(TIMEOUT, f"ModelNew used more than {task.limits.cpu_s:g} s of CPU time (during {stage})", log,
                       {"stage": stage})
    if run.output_overflow:
        return Outcome(RUNTIME_ERROR, f"the candidate printed more than {task.limits.output_kb} KiB (during {stage})", log)
    if report is None:
        return _no_report(task, result, stage, log)
    if report.get("status") == "ok":
        return None
    kind = str(report.get("kind", "runtime"))
    if kind == "save":
        return infra_error(f"ModelNew's outputs could not be saved for the verdict ({report.get('message', '')[:200]}); "
                           f"the job's file limit is {task.limits.file_mb} MB", log)
    if kind == "needs_gpu":
        return None  # the caller runs the nvcc check
    label = KIND_LABELS.get(kind, RUNTIME_ERROR)
    message = str(report.get("message", ""))
    where = f" ({report['where']})" if report.get("where") else ""
    prefix = "" if kind in ("illegal_access", "data_race", "syntax") else f"{_stage_text(stage)}: "
    if kind == "memory":
        message = f"{message} (the job's memory limit is {task.limits.memory_mb} MB)"
    return Outcome(label, f"{prefix}{message}{where}"[:1500], log, {"stage": stage, "error_kind": kind})


def _stage_text(stage: str) -> str:
    return {"import": "importing the candidate", "init": "constructing ModelNew"}.get(stage, f"ModelNew failed in {stage}")


def _no_report(task: Task, result: JobResult, stage: str, log: str) -> Outcome:
    run = result.exec
    sig = run.signal
    if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT):
        name = signal.Signals(sig).name
        label = MEMORY_FAULT if sig in (signal.SIGSEGV, signal.SIGBUS) else RUNTIME_ERROR
        return Outcome(label, f"the candidate's process died of {name} during {stage}", log, {"stage": stage})
    if "MemoryError" in run.stderr:
        return Outcome(MEMORY_FAULT, f"out of host memory during {stage} (limit {task.limits.memory_mb} MB)", log)
    last = next((ln for ln in reversed(run.stderr.splitlines()) if ln.strip()), "")
    return Outcome(RUNTIME_ERROR, f"the candidate ended the process during {stage} (exit {run.returncode}){': ' + last if last else ''}",
                   log, {"stage": stage})


def compile_outcome(report: dict[str, Any], target: gpu_limits.Arch, log: str) -> tuple[Outcome | None, dict[str, Any], list[str]]:
    """(a failing outcome or None, resource metrics, notes) from the compile job's results."""
    metrics: dict[str, Any] = {}
    notes: list[str] = []
    usages = []
    for item in report.get("results", []):
        if "error" in item:
            text = f"Triton cannot compile kernel `{item['kernel']}` ({item.get('config', '')}) for {target.name}: {item['message']}"
            return Outcome(COMPILATION_ERROR, text[:1500], log, {"kernel": item["kernel"]}), metrics, notes
        if "skipped" in item:
            notes.append(f"resource check of `{item['kernel']}` skipped: {item['skipped']}")
            continue
        usage = gpu_limits.Usage(**item["usage"])
        usages.append(usage)
        if item.get("note"):
            notes.append(item["note"])
        overflow = gpu_limits.check(usage, target)
        if overflow is not None:
            found: dict[str, Metric] = {
                **usage.metrics(), "resource": overflow.resource, "required": overflow.required, "limit": overflow.limit,
            }
            return Outcome(MEMORY_FAULT, overflow.diagnostic, log, found), metrics, notes
        if spill := gpu_limits.spill_note(usage):
            notes.append(spill)
    if usages:
        metrics = {
            "kernels": len(usages),
            "shared_bytes": max(u.dynamic_shared + u.static_shared for u in usages),
            "registers": max(u.registers for u in usages),
            "stack_bytes": max(u.stack for u in usages),
            "target": target.name,
        }
    if report.get("import_error"):
        notes.append(f"resource check skipped: {report['import_error']}")
    return None, metrics, notes


def verdict_outcome(report: dict[str, Any] | None, result: JobResult, log: str) -> Outcome:
    if report is None:
        tail = result.exec.stderr.strip().splitlines()[-3:]
        if result.exec.timed_out:
            return infra_error("the reference did not finish in the verdict job's time limit", result.exec.output)
        return infra_error(f"the verdict job failed: {' | '.join(tail)[:600]}", result.exec.output)
    verdict = report.get("verdict")
    metrics = dict(report.get("metrics") or {})
    if verdict == "unreadable":
        return Outcome(RUNTIME_ERROR, str(report["diagnostic"]), log, metrics)
    if verdict == "mismatch":
        return Outcome(NUMERICAL_MISMATCH, str(report["diagnostic"])[:1500], log, metrics)
    if report.get("timed_mismatch"):
        return Outcome(NUMERICAL_MISMATCH, str(report["timed_mismatch"])[:1500], log, metrics)
    text = f"all {metrics.get('trials', '?')} trials match the reference"
    if int(metrics.get("shape_sets") or 1) > 1:
        text += f" ({metrics['shape_sets']} shape sets)"
    if metrics.get("float64_reference"):
        text += ", computed in float64"
    notes = [str(n) for n in report.get("notes") or [] if n]
    if notes:
        text += "; note: " + "; ".join(notes)
    return Outcome(PASS, text, log, metrics)


def speed_metrics(cand: dict[str, Any] | None, verdict: dict[str, Any]) -> dict[str, Any]:
    """Candidate and reference times (median ms) and the speedups over eager PyTorch and torch.compile.
    A candidate that runs every operation of the reference does all of its work: its speedups are capped at
    1 (what was measured stays in `measured_speedup`), so fast_p never counts it as faster."""
    if not cand or "reference_timing" not in verdict:
        return {}
    mine = float(cand["median_ms"])
    ref = float(verdict["reference_timing"]["median_ms"])
    found: dict[str, Any] = {"time_ms": round(mine, 5), "ref_time_ms": round(ref, 5), "speedup": round(ref / mine, 4) if mine > 0 else 0.0}
    if "compile_timing" in verdict:
        comp = float(verdict["compile_timing"]["median_ms"])
        found.update(compile_time_ms=round(comp, 5), speedup_vs_compile=round(comp / mine, 4) if mine > 0 else 0.0)
    if (verdict.get("metrics") or {}).get("reference_ops"):
        found["measured_speedup"] = found["speedup"]
        for key in ("speedup", "speedup_vs_compile"):
            if key in found:
                found[key] = min(found[key], 1.0)
    return found


def joined_log(*parts: str) -> str:
    return truncate_log("\n".join(p for p in parts if p and p.strip()))
