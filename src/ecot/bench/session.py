"""A benchmark run as a library call: `benchmark` samples a generator on tasks and judges every sample
for real (or with a world model alone), in a store, resumable, marked as a benchmark run.

    from ecot.bench import benchmark
    from ecot.bench.run import BenchSettings

    result = benchmark(tasks, generator, "out/bench.db", BenchSettings(samples=5))

It is the synthesis session (ecot.run.session) with the benchmark's run key, its reference checks
(ecot.bench.run) and its workers warmed while the first answers are generated; `ecot bench run` is
this call plus its options and printing, `ecot bench report` scores what it stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.bench.contamination import training_data
from ecot.bench.run import BenchSettings, begin, bench_config
from ecot.bench.warm import warm_worker
from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.generators.base import Generator
from ecot.icwm.base import WorldModel
from ecot.icwm.environment import WorldModelJudge
from ecot.run.loop import LoopSettings
from ecot.run.session import RunOptions, RunResult, run_session
from ecot.store import TrajectoryStore

if TYPE_CHECKING:
    from rich.console import Console

    from ecot.executors.work import Executor


def benchmark(
    tasks: Sequence[Task],
    generator: Generator,
    store: Path | str,
    settings: BenchSettings | None = None,
    *,
    system_prompt: str | None = None,
    world_model: WorldModel | None = None,
    options: RunOptions | None = None,
    console: Console | None = None,
) -> RunResult:
    """Run (or resume) the benchmark run these arguments name; `not_run_here` of the result names the
    tasks whose reference does not pass on this machine (checked once, when the run is created). The
    run records which of its tasks the model was trained on: `settings.trained_on`, else the
    train_summary.json of the generator's model when that is a local folder."""
    settings = settings or BenchSettings()
    if settings.trained_on is None:  # a local model folder says what it was trained on
        settings = replace(settings, trained_on=training_data(generator))
    options = options or RunOptions()
    config, identity = bench_config(tasks, generator, settings, system_prompt)
    judge = None if world_model is None else _judge(world_model, tasks)  # checked before the store is touched
    if judge is not None:
        for target in (config, identity):
            target.update(judge.identity())
    skipped: dict[str, str] = {}

    def start(opened: TrajectoryStore, pool: Executor) -> tuple[int, Sequence[Task]]:
        with _checking(console, len(tasks)) as checked:
            run_id, found = begin(opened, pool, tasks, config, identity, checked)
        skipped.update(found)
        return run_id, [t for t in tasks if t.id not in found]

    loop = LoopSettings(max_rounds=settings.max_rounds, max_in_flight=options.max_in_flight, system_prompt=system_prompt)
    result = run_session(generator, Path(store), loop, settings.samples, start, judge=judge, options=options,
                         console=console, title="bench run", warm=warm_worker)
    return replace(result, not_run_here=skipped)


def _judge(world_model: WorldModel, tasks: Sequence[Task]) -> WorldModelJudge:
    """The world model alone as the judge: it must know every selected domain (a real verdict would mix
    into predicted scores)."""
    unknown = sorted({t.domain for t in tasks} - set(world_model.domains()))
    if unknown:
        raise EcotError(f"world model {world_model.name} has no data for domain(s) {', '.join(unknown)}: "
                        "judge those with the toolchains (leave out --world-model) or select other domains")
    return WorldModelJudge(world_model, verify=False)


@contextmanager
def _checking(console: Console | None, total: int) -> Iterator[Callable[[], None]]:
    """A transient bar over the reference checks on a console; a callback that does nothing without one."""
    if console is None:
        yield lambda: None
        return
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        checking = bar.add_task("checking the references", total=total)
        yield lambda: bar.advance(checking)
