"""Judge hostile cases on the real backends, the way a synthesis run evaluates candidates.

`judge` runs one case in this process: the case's host-side check around its candidate (and the wrong
candidate of `then`, right after it in the same process: no state may survive a job), then a verdict:
contained, forged (the attack earned a Pass), leak (the host check found something escaped), uncontained
(no Pass, yet not what containment gives), error, or not run (a tool is missing). The test suite calls it
directly; `audit` hands every case to the executor's worker processes, which keep their backends warm
between cases as they do between a run's candidates, and collects the report.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from itertools import zip_longest

from ecot import __version__, sandbox
from ecot.audit.common import bundled_task, describe, with_changes
from ecot.audit.hostile.framework import Case
from ecot.audit.hostile.report import AuditReport, CaseResult, ControlResult, DomainResult, Verdict, clean_text
from ecot.audit.hostile.suite import Listed, control_of, find_case, listed_cases, not_applicable
from ecot.core.errors import EcotError, ToolMissingError
from ecot.core.outcome import PASS, Outcome
from ecot.domains import BACKENDS, get_backend
from ecot.executors.work import Executor, Work, WorkerLost, backend_requires

Reporter = Callable[[CaseResult | ControlResult], None]


class UndeclaredLabel(EcotError):
    """A backend returned a label its domain does not declare: the audit cannot judge that."""


# -- one case, in this process ----------------------------------------------------------------------------
def judge(listed: Listed) -> CaseResult:
    start = time.monotonic()
    verdict, label, detail = _verdict(listed.case)
    return CaseResult(domain=listed.domain, attack=listed.attack.value, case=listed.case.name, verdict=verdict,
                      label=label, detail=clean_text(detail), seconds=round(time.monotonic() - start, 2),
                      known_failure=listed.known_failure)


def judge_named(domain: str, attack: str, name: str) -> CaseResult:
    """`judge` for a worker process: the case is looked up there, since a case holds functions."""
    return judge(find_case(domain, attack, name))


def judge_control(domain: str) -> ControlResult:
    case = control_of(domain)
    try:
        outcome = _outcome(case)
    except Exception as err:  # noqa: BLE001 -- reported: a control that cannot run makes the domain's row void
        return ControlResult(case=case.name, label=None, detail=clean_text(_why(err)))
    return ControlResult(case=case.name, label=outcome.label, detail="" if outcome.label == PASS else clean_text(describe(outcome)))


def _verdict(case: Case) -> tuple[Verdict, str | None, str]:
    check = case.host()
    try:
        check.__enter__()
    except ToolMissingError as err:
        return Verdict.NOT_RUN, None, err.tool
    except Exception as err:  # noqa: BLE001 -- an audit reports what it could not judge and goes on
        return Verdict.ERROR, None, f"the host check could not start: {_why(err)}"
    try:
        outcome = _outcome(case)
    except Exception as err:  # noqa: BLE001
        try:
            check.__exit__(type(err), err, err.__traceback__)
        except Exception:  # noqa: BLE001, S110 -- the evaluation's own error is the one to report
            pass
        if isinstance(err, ToolMissingError):
            return Verdict.NOT_RUN, None, err.tool
        return Verdict.ERROR, None, _why(err)
    try:
        check.__exit__(None, None, None)
    except Exception as err:  # noqa: BLE001 -- a failed host check is what a leak is
        return Verdict.LEAK, outcome.label, f"{_why(err)} (outcome {outcome.label}: {outcome.diagnostic})"
    if not case.contained(outcome):
        verdict = Verdict.FORGED if outcome.label == PASS else Verdict.UNCONTAINED
        return verdict, outcome.label, f"containment requires {case.contained.__name__}; got {describe(outcome)}"
    return _twin_passes(case) or (Verdict.CONTAINED, outcome.label, "")


def _twin_passes(case: Case) -> tuple[Verdict, str | None, str] | None:
    """None when the case has no honest twin or its twin passes; a check that also turns away the honest
    version of the same move is not containment but an error of the check."""
    if case.twin is None:
        return None
    try:
        honest = _evaluate(case, case.twin)
    except Exception as err:  # noqa: BLE001
        return Verdict.ERROR, None, f"the honest twin could not be judged: {_why(err)}"
    if honest.label == PASS:
        return None
    return Verdict.ERROR, honest.label, f"contained, but the honest twin fails too: {describe(honest)}"


def _outcome(case: Case) -> Outcome:
    outcome = _evaluate(case, case.candidate)
    if case.then is not None:
        outcome = _evaluate(case, case.then)
    return outcome


def _evaluate(case: Case, candidate: str) -> Outcome:
    task = with_changes(bundled_task(case.task_id), dict(case.options) or None, case.wall_s)
    backend = get_backend(task.domain)
    outcome = backend.run(task, candidate)
    if outcome.label not in backend.all_labels():
        raise UndeclaredLabel(f"{task.id}: the backend returned {outcome.label!r}, a label its domain does not declare")
    return outcome


def _why(err: BaseException) -> str:
    """An exception as one line; a bare `assert` says which of its lines failed."""
    text = str(err)
    if not text:
        frames = traceback.extract_tb(err.__traceback__)
        text = f"failed: {frames[-1].line}" if frames and frames[-1].line else "failed"
    return text if isinstance(err, AssertionError) else f"{type(err).__name__}: {text}"


# -- the whole suite, through an executor -----------------------------------------------------------------
def isolation() -> str:
    return "bubblewrap" if sandbox.bwrap_available() else "none: bubblewrap is missing or disabled (only rlimits apply)"


def missing_tool(domain: str) -> str | None:
    """What keeps the domain's cases from running here: bubblewrap (nothing is contained without it)
    or a tool of the domain's backend."""
    if not sandbox.bwrap_available():
        return "bwrap"
    try:
        BACKENDS.get(domain)().check_tools()
    except ToolMissingError as err:
        return err.tool
    return None


def plan(domain: str) -> DomainResult:
    """The domain's result before anything ran: what is missing, or why its cases do not load."""
    missing = missing_tool(domain)
    if missing is not None:
        return DomainResult(domain=domain, missing=missing)
    try:
        skipped = not_applicable(domain)
    except Exception as err:  # noqa: BLE001 -- a domain whose cases do not load is reported, the rest still run
        return DomainResult(domain=domain, broken=clean_text(_why(err)))
    return DomainResult(domain=domain, not_applicable={attack.value: reason for attack, reason in skipped.items()})


def _interleaved(domains: Iterable[DomainResult]) -> Iterator[Listed]:
    """Every case of the runnable domains, one domain after another in turn, so that no domain's slow
    cases all wait for the end."""
    per_domain = [listed_cases(d.domain) for d in domains if d.missing is None and d.broken is None]
    for row in zip_longest(*per_domain):
        yield from (listed for listed in row if listed is not None)


async def audit(domains: list[DomainResult], executor: Executor, report: Reporter | None = None) -> None:
    """Run every case and control of the planned domains on the executor; fill in their results."""
    by_name = {d.domain: d for d in domains}

    async def case(listed: Listed) -> None:
        work = Work(judge_named, (listed.domain, listed.attack.value, listed.case.name), f"backend:{listed.domain}",
                    backend_requires(listed.domain))
        try:
            result: CaseResult = await executor.submit(work)
        except WorkerLost as err:
            result = CaseResult(domain=listed.domain, attack=listed.attack.value, case=listed.case.name, verdict=Verdict.ERROR,
                                detail=f"the worker judging it died: {err}", known_failure=listed.known_failure)
        by_name[listed.domain].cases.append(result)
        by_name[listed.domain].seconds += result.seconds
        if report is not None:
            report(result)

    async def control(domain: DomainResult) -> None:
        try:
            result: ControlResult = await executor.submit(Work(judge_control, (domain.domain,), f"backend:{domain.domain}",
                                                               backend_requires(domain.domain)))
        except WorkerLost as err:
            result = ControlResult(case="control", label=None, detail=f"the worker judging it died: {err}")
        domain.control = result
        if report is not None:
            report(result)

    runnable = [d for d in domains if d.missing is None and d.broken is None]
    await asyncio.gather(*(control(d) for d in runnable), *(case(listed) for listed in _interleaved(runnable)))
    order = {listed.id: i for d in runnable for i, listed in enumerate(listed_cases(d.domain))}
    for domain in runnable:  # the suite's order, whatever order the workers finished in
        domain.cases.sort(key=lambda r: order.get(f"{r.domain}-{r.attack}-{r.case}", len(order)))


def count_cases(domains: Iterable[DomainResult]) -> int:
    """Cases and controls an audit of these planned domains will judge."""
    return sum(len(listed_cases(d.domain)) + 1 for d in domains if d.missing is None and d.broken is None)


def run_audit(planned: list[DomainResult], executor: Executor, report: Reporter | None = None) -> AuditReport:
    """Audit the planned domains (see `plan`) on the executor."""
    if not __debug__:
        raise EcotError("the cases' host-side checks are assert statements, which python -O drops: run the audit without -O")
    start = time.monotonic()
    asyncio.run(audit(planned, executor, report))
    return AuditReport(ecot_version=__version__, isolation=isolation(), workers=executor.workers,
                       seconds=round(time.monotonic() - start, 1), domains=planned)
