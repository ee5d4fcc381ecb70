"""CAD: CadQuery scripts executed on OpenCascade and compared with a reference solid.

Three kinds of sandboxed job, each a fresh fork of one warm interpreter that imported CadQuery once
(ecot.sandbox.warm), so an evaluation costs tens of milliseconds instead of a 3 s import:

1. the reference script (or STEP file) is built once per task and process; its BREP is kept in the
   host process's memory, where no candidate job can reach it;
2. the candidate script runs alone in its work dir and only exports its `result` solid as BREP;
3. a separate check job, which never runs candidate code, reads both solids through read-once pipes
   and reports validity, measurements, exact IoU and mesh metrics as JSON lines.

A kernel segfault or hang ends only its own fork (labelled Geometry_Error or Timeout); a dead warm
interpreter is restarted and the evaluation retried once. Task options (task.toml [options]):
thresholds of cad_verdict.Thresholds (iou_min, volume_rtol, bbox_tol, single_solid, voxel_iou_min,
chamfer_max, ...) and `reference_step`, a bundle STEP file that is the reference instead of the script.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import secrets
import threading
from collections import OrderedDict
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

from ecot import sandbox
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import Outcome, infra_error, truncate_log
from ecot.core.task import Limits, Task
from ecot.domains.base import Backend
from ecot.domains.cad import verdict
from ecot.domains.cad.options import CadOptions
from ecot.sandbox.warm import WarmPython, WarmSet

PRELOAD = ("cadquery", "ecot.domains.cad.jobs.harness", "ecot.domains.cad.jobs.checks", "ecot.domains.cad.jobs.compare")
HARNESS = "from ecot.domains.cad.jobs.harness import main\nmain()\n"
CHECKS = "from ecot.domains.cad.jobs.checks import main\nmain()\n"
SCRIPT, SHAPE = "candidate.py", "result.brep"
REFERENCE_CACHE_ENTRIES = 256
CHECK_FLOOR = Limits(wall_s=60.0, cpu_s=60.0, memory_mb=3072, output_kb=1024, file_mb=64, procs=16)


class ReferenceFailed(RuntimeError):
    """The task's own reference did not build: a broken task, never the candidate's fault."""


class CadBackend(Backend[CadOptions]):
    domain = "cad"
    options_model = CadOptions
    install_hint = "pip install cadquery (it brings the OCP wheel of OpenCascade); `make setup` does it"
    # the warm interpreter plus a check job's booleans on a large part (placement hint for Ray)
    requires: ClassVar[dict[str, float]] = {"memory_mb": 3072}

    def __init__(self) -> None:
        self._references: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._warm = WarmSet(WarmPython)  # the interpreter that imported CadQuery once, by preload set

    def check_tools(self) -> None:
        for module in ("cadquery", "OCP"):
            if importlib.util.find_spec(module) is None:
                raise ToolMissingError(module, self.install_hint)

    def tool_versions(self) -> dict[str, str]:
        return dict(_versions())

    # -- lifecycle ---------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Start the warm interpreter now: its CadQuery import (seconds) is not the first job's."""
        self.runner().start()

    def runner(self) -> WarmPython:
        """The backend's warm interpreter (created on first use if prepare() was not called)."""
        return self._warm.get(preload())

    def close(self) -> None:
        with self._lock:
            self._references.clear()
        self._warm.close()

    # -- one evaluation -----------------------------------------------------------------------------
    def evaluate(self, task: Task, options: CadOptions, candidate: str) -> Outcome:
        limits = verdict.Thresholds.of(options)
        try:
            reference = self.reference_shape(task, options)
        except ReferenceFailed as err:
            return infra_error(str(err))
        built = self.run_script(candidate, task.limits)
        if isinstance(built, Outcome):
            return built
        shape, script_log = built
        report, check_log = self.check(shape, reference, limits, task.limits)
        log = f"{script_log}\n--- checks ---\n{check_log}".strip()
        return self._verdict(report, limits, log)

    def _verdict(self, report: dict[str, Any], limits: verdict.Thresholds, log: str) -> Outcome:
        if "unreadable" in report:
            return Outcome(verdict.GEOMETRY_ERROR, f"the exported result could not be read back: {report['unreadable']}",
                           truncate_log(log))
        if "measure" not in report:
            what = report.get("failure", "the checks stopped early")
            return Outcome(verdict.GEOMETRY_ERROR, f"checking the solid failed: {what}", truncate_log(log),
                           {"stage": "checks"})
        return verdict.judge(report, limits, log)

    def run_script(self, code: str, limits: Limits) -> tuple[bytes, str] | Outcome:
        """Run a script in its own job: (BREP bytes, log) or the Outcome of its failure."""
        token = f"ECOT-CAD-{secrets.token_hex(8)}"
        hang = max(limits.wall_s - 0.5, 0.5)  # faulthandler names the hanging line just before the kill
        with sandbox.workdir("ecot-cad-") as work:
            sandbox.write_files(work, {SCRIPT: code})
            result = self._job(work, HARNESS, limits, [SCRIPT, SHAPE, token, "--hang-after", f"{hang:.1f}"])
            log = verdict.strip_status(result.output, token)
            failed = verdict.script_outcome(result, verdict.parse_status(result.stdout, token), code, limits, log)
            if failed is not None:
                return failed
            shape = read_output(work, SHAPE, limits)
        if shape is None:
            return Outcome(verdict.RUNTIME_ERROR, "the script finished but its exported solid is missing or not a "
                           "regular file", truncate_log(log))
        return shape, log

    def check(
        self, shape: bytes, reference: bytes, limits: verdict.Thresholds, task_limits: Limits
    ) -> tuple[dict[str, Any], str]:
        """Run the check job. A candidate never chooses its judge: when the exact comparison cannot be
        made on its solid (the booleans crash, hang, fail or break inclusion-exclusion), the verdict
        says why (verdict.not_compared) and no weaker measure stands in. The reference is then compared with
        itself: if that fails too, this machine cannot judge the task (`reference_not_compared`)."""
        report, log = self._check_once(shape, reference, limits.check_options(), task_limits)
        if verdict.not_compared(report) is None:
            return report, log
        probe_options = {**limits.check_options(), "validity": False, "mesh": False}
        probe, probe_log = self._check_once(reference, reference, probe_options, task_limits)
        probe_failed = verdict.not_compared(probe) if "measure" in probe else probe.get("failure", "the checks stopped early")
        if probe_failed is not None:
            report["reference_not_compared"] = probe_failed
        return report, f"{log}\n--- the reference compared with itself ---\n{probe_log}"

    def _check_once(
        self, shape: bytes, reference: bytes, options: dict[str, Any], task_limits: Limits
    ) -> tuple[dict[str, Any], str]:
        token = f"ECOT-CHECK-{secrets.token_hex(8)}"
        limits = _check_limits(task_limits)
        feeds = {"candidate.brep": shape, "reference.brep": reference}
        with sandbox.workdir("ecot-cad-check-") as work:
            argv = ["candidate.brep", "reference.brep", json.dumps(options), token]
            result = self._job(work, CHECKS, limits, argv, feeds)
        report: dict[str, Any] = {}
        for line in result.stdout.splitlines():
            if line.startswith(token + " "):
                try:
                    stage = json.loads(line[len(token) + 1 :])
                except json.JSONDecodeError:  # cut by the output cap: the stage counts as not reached
                    continue
                report[stage.pop("stage")] = stage
        if "unreadable" in report:
            report["unreadable"] = report["unreadable"].get("error", "unreadable")
        report["complete"] = result.returncode == 0 and not result.timed_out
        if not report["complete"]:
            report["failure"] = _check_failure(result, limits)
        return report, verdict.strip_status(result.output, token)

    def _job(
        self, work: Path, code: str, limits: Limits, argv: list[str], feeds: dict[str, bytes] | None = None
    ) -> sandbox.ExecResult:
        """One job in a fresh fork; a warm interpreter that died is restarted and the job retried once."""
        try:
            return self.runner().run(work, code, limits, argv=argv, feeds=feeds)
        except sandbox.SandboxError:
            return self.runner().run(work, code, limits, argv=argv, feeds=feeds)

    # -- the reference --------------------------------------------------------------------------------
    def reference_shape(self, task: Task, options: CadOptions | None = None) -> bytes:
        """The reference solid as BREP bytes, built on first use and kept in memory (least recently used
        dropped first): no file of it exists that a job, or a process left behind, could find.
        `options` are the task's, when the caller has already checked them."""
        step = (options if options is not None else CadOptions.of_task(task)).reference_step
        if step is not None and step not in task.files:
            raise ReferenceFailed(f"task {task.id}: reference_step {step!r} is not a bundle file")
        source = task.files[step] if step else task.reference
        if not source:
            raise ReferenceFailed(f"task {task.id}: no reference script or reference_step to compare against")
        key = hashlib.sha256(f"{'step' if step else 'script'}\0{source}".encode()).hexdigest()[:32]
        with self._lock:
            if key in self._references:
                self._references.move_to_end(key)
                return self._references[key]
        data = self._build_reference(task, source, bool(step))
        with self._lock:
            self._references[key] = data
            while len(self._references) > REFERENCE_CACHE_ENTRIES:
                self._references.popitem(last=False)
        return data

    def _build_reference(self, task: Task, source: str, is_step: bool) -> bytes:
        limits = _check_limits(task.limits)
        if not is_step:
            built = self.run_script(source, limits)
            if isinstance(built, Outcome):
                raise ReferenceFailed(f"task {task.id}: the reference script fails: {built.label}: {built.diagnostic}")
            return built[0]
        token = f"ECOT-REF-{secrets.token_hex(8)}"
        with sandbox.workdir("ecot-cad-ref-") as work:
            sandbox.write_files(work, {"reference.step": source})
            result = self._job(work, HARNESS, limits, ["reference.step", SHAPE, token, "--step"])
            data = read_output(work, SHAPE, limits)
        if data is None or not result.ok:
            raise ReferenceFailed(f"task {task.id}: the reference STEP file did not load: {result.output[-300:]}")
        return data


def preload() -> tuple[str, ...]:
    """Modules the warm interpreter imports once. scipy (a CadQuery dependency) speeds up the
    Chamfer metric; preloading it spares every check job its import."""
    extra = ("scipy.spatial",) if importlib.util.find_spec("scipy") is not None else ()
    return PRELOAD + extra


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    found = []
    for name in ("cadquery", "cadquery-ocp"):
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, "unknown"))
    return tuple(found)


def _check_limits(task_limits: Limits) -> Limits:
    """Trusted jobs (checks, references) get at least CHECK_FLOOR: slow geometry is not a hang."""
    floor = CHECK_FLOOR
    return task_limits.scaled(
        wall_s=max(task_limits.wall_s, floor.wall_s),
        cpu_s=max(task_limits.cpu_s, floor.cpu_s),
        memory_mb=max(task_limits.memory_mb, floor.memory_mb),
        output_kb=max(task_limits.output_kb, floor.output_kb),
        file_mb=max(task_limits.file_mb, floor.file_mb),
    )


def _check_failure(result: sandbox.ExecResult, limits: Limits) -> str:
    if result.timed_out:
        return f"the geometry checks did not finish within {limits.wall_s:g} s"
    if result.signal:
        return f"the geometry kernel crashed (signal {result.signal}) while checking the solid"
    tail = result.stderr.strip().splitlines()[-1:] or ["no message"]
    return f"the check job failed (exit {result.returncode}): {tail[0][:300]}"


def read_output(work: Path, name: str, limits: Limits) -> bytes | None:
    """A file a job wrote, if it is a regular file within the file size limit (never through a link)."""
    data = sandbox.read_job_file(work, name, (limits.file_mb << 20) + 1)
    return None if data is None or len(data) > limits.file_mb << 20 else data
