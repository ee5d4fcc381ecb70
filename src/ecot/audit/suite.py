"""Audit a suite's tests on this machine, through the executor a synthesis run uses: per task, the
reference `runs` times (does it pass here, the same way every time, how close to its time limit), then
the domain's own mutants of the reference until `mutants` of them have been judged (see mutation.py,
verdicts.py). A stillborn mutant (it does not build) is replaced by the next one drawn, up to
MAX_DRAWS_PER_MUTANT draws per mutant asked for, so the score rests on mutants that reached the tests.

Mutants run only against a reference that passed on every run: against a failing or unstable reference
their verdicts would mean nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from ecot import __version__
from ecot.audit.hostile.report import clean_text
from ecot.audit.mutation import Mutant, draw
from ecot.audit.verdicts import AuditSettings, Fate, MutantResult, ReferenceRuns, SuiteAudit, TaskAudit, fate, load_now
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.domains import BACKENDS
from ecot.executors.work import Executor

MAX_DRAWS_PER_MUTANT = 3
TASKS_AT_ONCE_PER_WORKER = 2  # tasks in flight per worker: enough to keep the workers busy between a task's batches
DETAIL_LIMIT = 600  # characters of a killed mutant's diagnostic kept

OnTask = Callable[[TaskAudit], None]


def missing_tools(tasks: Sequence[Task]) -> dict[str, str]:
    """domain -> the tool it lacks here, for the domains among tasks that cannot run."""
    missing = {}
    for domain in sorted({task.domain for task in tasks}):
        try:
            BACKENDS.get(domain)().check_tools()
        except ToolMissingError as err:
            missing[domain] = err.tool
    return missing


async def audit_task(task: Task, executor: Executor, settings: AuditSettings) -> TaskAudit:
    if not task.reference:
        return TaskAudit(task_id=task.id, domain=task.domain)
    outcomes = await asyncio.gather(*(executor.evaluate(task, task.reference) for _ in range(settings.runs)))
    reference = reference_runs(task, outcomes)
    spent = sum(o.wall_s for o in outcomes)
    if not reference.passed or settings.mutants == 0:
        return TaskAudit(task_id=task.id, domain=task.domain, reference=reference, seconds=round(spent, 2))
    drawn = draw(task.id, task.domain, task.reference, settings.seed)
    results, seconds = await judge_mutants(executor, task, drawn.mutants, settings.mutants)
    return TaskAudit(task_id=task.id, domain=task.domain, reference=reference, offered=drawn.offered,
                     equivalent=drawn.equivalent, duplicates=drawn.duplicates, mutants=results,
                     seconds=round(spent + seconds, 2))


def reference_runs(task: Task, outcomes: Sequence[Outcome]) -> ReferenceRuns:
    failing = next((o for o in outcomes if not o.passed), None)
    cpu = [float(o.metrics["cpu_s"]) for o in outcomes if isinstance(o.metrics.get("cpu_s"), int | float)]
    return ReferenceRuns(labels=[o.label for o in outcomes],
                         diagnostic=clean_text(failing.diagnostic, DETAIL_LIMIT) if failing else "",
                         wall_s=max(o.wall_s for o in outcomes), limit_wall_s=task.limits.wall_s,
                         cpu_s=max(cpu) if cpu else None, limit_cpu_s=task.limits.cpu_s)


async def judge_mutants(executor: Executor, task: Task, mutants: Sequence[Mutant], wanted: int) -> tuple[list[MutantResult], float]:
    """Judge mutants in order until `wanted` of them were killed or survived (stillborn and unjudged
    ones are replaced by the next), at most MAX_DRAWS_PER_MUTANT * wanted in all."""
    budget = min(len(mutants), MAX_DRAWS_PER_MUTANT * wanted)
    results: list[MutantResult] = []
    seconds, position = 0.0, 0
    while position < budget:
        missing = wanted - sum(r.fate in (Fate.KILLED, Fate.SURVIVED) for r in results)
        if missing <= 0:
            break
        batch = mutants[position : min(position + missing, budget)]
        position += len(batch)
        outcomes = await asyncio.gather(*(executor.evaluate(task, mutant.code) for mutant in batch))
        results += [mutant_result(task, mutant, outcome) for mutant, outcome in zip(batch, outcomes, strict=True)]
        seconds += sum(o.wall_s for o in outcomes)
    return results, seconds


def mutant_result(task: Task, mutant: Mutant, outcome: Outcome) -> MutantResult:
    found = fate(task.domain, outcome.label)
    survived = found == Fate.SURVIVED
    detail = clean_text(mutant.diff(task.reference or ""), 2 * DETAIL_LIMIT) if survived else clean_text(outcome.diagnostic, DETAIL_LIMIT)
    return MutantResult(kind=mutant.kind, category=mutant.category, line=mutant.line, description=clean_text(mutant.description),
                        label=outcome.label, fate=found, detail=detail)


async def audit_tasks(tasks: Sequence[Task], executor: Executor, settings: AuditSettings, on_task: OnTask | None = None) -> list[TaskAudit]:
    """Every task audited, in suite order (a few at a time, so that they start in that order). Skipped, with
    the reason: tasks whose domain lacks a tool here, and those not started within settings.budget_s."""
    missing = missing_tools(tasks)
    deadline = None if settings.budget_s is None else time.monotonic() + settings.budget_s
    started = asyncio.Semaphore(TASKS_AT_ONCE_PER_WORKER * executor.workers)

    async def one(task: Task) -> TaskAudit:
        async with started:
            if task.domain in missing:
                result = TaskAudit(task_id=task.id, domain=task.domain, skipped=f"needs {missing[task.domain]}")
            elif deadline is not None and time.monotonic() >= deadline:
                result = TaskAudit(task_id=task.id, domain=task.domain, skipped=f"not started within the audit's {settings.budget_s:g} s")
            else:
                result = await audit_task(task, executor, settings)
        if on_task is not None:
            on_task(result)
        return result

    return list(await asyncio.gather(*(one(task) for task in tasks)))


def run_audit(tasks: Sequence[Task], suites: Sequence[str], executor: Executor, settings: AuditSettings,
              on_task: OnTask | None = None) -> SuiteAudit:
    """The whole audit of `tasks` (loaded from `suites`) on the executor."""
    start = time.monotonic()
    report = SuiteAudit(ecot_version=__version__, workers=executor.workers, suites=list(suites), settings=settings, tasks=[])
    report.tasks = asyncio.run(audit_tasks(tasks, executor, settings, on_task))
    report.seconds = round(time.monotonic() - start, 1)
    report.load.end = load_now()
    return report
