"""The main job as a library call: `synthesize` runs the multi-turn loop over tasks with a generator,
judged by the real toolchains (or a world model), storing every turn as it happens.

    from ecot.generators.repair import RepairGenerator
    from ecot.run import synthesize
    from ecot.tasks.suite import bundled_suite_path, load_suite

    tasks = load_suite(bundled_suite_path("python"))[:2]
    result = synthesize(tasks, RepairGenerator(), "out/ecot.db", samples=2, max_rounds=3)
    print(result.run_id, result.summary.statuses)

Calling it again with the same tasks, generator and settings resumes the run (its key is
ecot.run.identity's). `run_session` is the wiring both `synthesize` and the benchmark's `benchmark`
(ecot.bench.session) share: the store (one writer), the backend pool, the environment, the loop and
its progress. `ecot synth` and `ecot bench run` are these calls plus their options and printing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ecot.core.task import Task
from ecot.generators.base import Generator
from ecot.run.advice import AnswerWatch
from ecot.run.control import Budget, RunControl, RunInterrupted, Stop, StopKind
from ecot.run.identity import run_config
from ecot.run.loop import Environment, LoopSettings, RealEnvironment, RunSummary, SynthesisLoop
from ecot.run.progress import LiveCounters, ProgressReporter
from ecot.run.usage import Tokens, usage_totals
from ecot.store import TrajectoryStore

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # rich, the executors (process pools, Ray) load only where a run starts
    from rich.console import Console

    from ecot.executors.work import Executor, Work


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out; none of it changes the data, so none of it is part of the run's key."""

    max_in_flight: int = 64  # trajectories advancing at once
    workers: int | None = None  # backend workers (default: all cores; on Ray: the cluster's CPUs, per domain)
    ray_address: str | None = None  # run backends on Ray ("local", "auto", "ray://host:port"); None: a local pool
    max_pending: int | None = None  # evaluations submitted and not yet returned (default: 4 per worker)
    progress_every: float = 30.0  # with a console that is no terminal: a progress line every so many seconds


class Judge(Protocol):
    """What observes turns instead of (or before) the real backends alone: a world model (ecot.icwm)."""

    def identity(self) -> dict[str, Any]:
        """What enters the run's config and key (the judge's name, its settings)."""
        ...

    def environment(self, real: RealEnvironment, store: TrajectoryStore) -> Environment:
        """The loop's environment, given the real one and the store (for audits)."""
        ...

    def stats(self) -> dict[str, Any]:
        """What the judge counted during the run (predictions, audits, disagreements)."""
        ...


@dataclass(frozen=True)
class RunResult:
    run_id: int
    summary: RunSummary  # what this call added: statuses, turns, labels, errors, why it stopped early
    budget_hit: bool = False  # a token or cost budget stopped it (rerun with a larger one to resume)
    judge: dict[str, Any] | None = None  # the judge's counts, when one observed the turns
    not_run_here: dict[str, str] = field(default_factory=dict)  # task id -> why it was not attempted (benchmarks)


class Begin(Protocol):
    def __call__(self, store: TrajectoryStore, pool: Executor, /) -> tuple[int, Sequence[Task]]:
        """The run found again (resume) or created: its id, and the tasks to attempt."""
        ...


def synthesize(
    tasks: Sequence[Task],
    generator: Generator,
    store: Path | str,
    *,
    samples: int = 1,
    max_rounds: int = 4,
    system_prompt: str | None = None,
    budget: Budget | None = None,
    judge: Judge | None = None,
    options: RunOptions | None = None,
    console: Console | None = None,
) -> RunResult:
    """Synthesize `samples` trajectories per task into the store at `store`, each of at most
    `max_rounds` correction rounds; resumes the run these arguments name if it exists."""
    config, identity = run_config(tasks, generator, samples, max_rounds, system_prompt)
    if judge is not None:
        for target in (config, identity):
            target.update(judge.identity())
    loop = LoopSettings(max_rounds=max_rounds, max_in_flight=(options or RunOptions()).max_in_flight,
                        system_prompt=system_prompt)

    def begin(opened: TrajectoryStore, pool: Executor) -> tuple[int, Sequence[Task]]:
        return opened.begin_run(config, identity), tasks

    return run_session(generator, Path(store), loop, samples, begin, budget=budget, judge=judge, options=options,
                       console=console)


def run_session(
    generator: Generator,
    store_path: Path,
    loop_settings: LoopSettings,
    samples: int,
    begin: Begin,
    *,
    budget: Budget | None = None,
    judge: Judge | None = None,
    options: RunOptions | None = None,
    console: Console | None = None,
    title: str = "run",
    warm: Callable[[str], None] | None = None,
) -> RunResult:
    """Run (or resume) a run of the loop: check the generator, open the store (one writer) and the pool,
    find or create the run, then advance every trajectory; `warm(domain)` runs in each worker meanwhile.
    Each call is recorded in the store (what it added, why it stopped early); Ctrl-C raises RunInterrupted."""
    from ecot.executors.local import make_executor

    options = options or RunOptions()
    asyncio.run(generator.preflight())  # an unreachable endpoint: one line naming it, nothing stored
    say = _sayer(console)
    with TrajectoryStore(store_path, writer=True) as store, \
            make_executor(options.ray_address, options.workers, options.max_pending) as pool:
        started_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        run_id, tasks = begin(store, pool)
        spent = usage_totals(store.usage_rows(run_id), {}).all  # what earlier invocations of the run spent
        _announce(say, store, run_id, spent, len(tasks) * samples, budget, generator)
        control = RunControl(budget or Budget(), spent.to_dict())
        real = RealEnvironment(pool)
        environment = real if judge is None else judge.environment(real, store)
        counters = LiveCounters(total=len(tasks) * samples, on_turn=_watch(say, generator))
        loop = SynthesisLoop(generator, environment, store, loop_settings, control, counters)
        warming = _warm_work(warm, tasks) * pool.workers
        try:
            with _progress(counters, console, f"{title} {run_id}", options.progress_every) as progress:
                advance = progress.advance if progress is not None else None
                summary = asyncio.run(_advance(loop, run_id, tasks, samples, advance, pool, warming))
        except KeyboardInterrupt:
            kept = usage_totals(store.usage_rows(run_id), {}).all.turns
            stop = Stop(StopKind.INTERRUPTED, f"run {run_id} keeps its {kept} turns ({kept - spent.turns} from this invocation)")
            _record(store, run_id, started_at, spent, stop)
            raise RunInterrupted(f"{stop.detail}; {stop.rerun}") from None
        _record(store, run_id, started_at, spent, summary.stop)
    return RunResult(run_id, summary, control.budget_hit, judge.stats() if judge is not None else None)


def _sayer(console: Console | None) -> Callable[[str], None]:
    """Where a run's notes go: the console (yellow), else the log."""
    if console is None:
        return lambda text: log.warning("%s", text)
    from rich.text import Text

    return lambda text: console.print(Text(text, style="yellow"), soft_wrap=True)


def _announce(say: Callable[[str], None], store: TrajectoryStore, run_id: int, spent: Tokens, total: int,
              budget: Budget | None, generator: Generator) -> None:
    """What the run holds already (a resume), and a budget that cannot bound the answers' length."""
    if spent.turns:
        finished = store.counts(run_id)["finished"]
        left = "nothing left to do" if finished >= total else f"{finished} of {total} trajectories finished"
        say(f"resuming run {run_id}: {spent.turns} turns, {spent.total_tokens:,} tokens already stored ({left})")
    if budget is not None and budget.active and generator.answer_limit is None and not generator.synthetic:
        say("note: the answers have no length limit, so the budget counts each request's answer as the longest "
            "seen so far and the requests in flight may pass it; give --max-tokens N to make it a hard limit")


def _watch(say: Callable[[str], None], generator: Generator) -> Callable[[str], None]:
    watch = AnswerWatch(generator.answer_limit)

    def turn(label: str) -> None:
        warning = watch.turn(label)
        if warning is not None:
            say(warning)

    return turn


def _record(store: TrajectoryStore, run_id: int, started_at: str, before: Tokens, stop: Stop | None) -> None:
    """Record this invocation: the turns and tokens the store gained since `before`, why it stopped early."""
    now = usage_totals(store.usage_rows(run_id), {}).all
    store.record_invocation(run_id, started_at, (now.turns - before.turns, now.total_tokens - before.total_tokens),
                            None if stop is None else (str(stop.kind), stop.detail, stop.rerun))


def _warm_work(warm: Callable[[str], None] | None, tasks: Sequence[Task]) -> list[Work]:
    from ecot.executors.work import Work

    return [] if warm is None else [Work(warm, (domain,)) for domain in sorted({t.domain for t in tasks})]


def _progress(counters: LiveCounters, console: Console | None, title: str,
              every: float) -> AbstractContextManager[ProgressReporter | None]:
    return nullcontext() if console is None else ProgressReporter(counters, console, title, every)


async def _advance(loop: SynthesisLoop, run_id: int, tasks: Sequence[Task], samples: int,
                   advance: Callable[[], None] | None, pool: Executor, warm: list[Work]) -> RunSummary:
    """The loop, with the workers warmed meanwhile (their start-up overlaps the first requests, not the
    judging); the generator is closed however it ends."""
    warming = [asyncio.ensure_future(pool.submit(work)) for work in warm]
    try:
        return await loop.run(run_id, tasks, samples, (lambda _: advance()) if advance is not None else None)
    finally:
        await asyncio.gather(*warming, return_exceptions=True)  # a failed warm-up shows again where it matters
        await loop.generator.aclose()
