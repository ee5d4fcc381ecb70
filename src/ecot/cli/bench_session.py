"""One `ecot bench run` invocation: the store, the backend pool, the loop and its progress, wired as
`ecot synth` wires them (one writer per store, every turn committed as it happens)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from rich.progress import Progress

from ecot.bench.run import BenchSettings, begin, bench_config
from ecot.bench.warm import warm_worker
from ecot.cli.common import console
from ecot.cli.synth_report import exit_status, print_report
from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.executors.local import Work, make_executor
from ecot.generators.base import Generator
from ecot.run.control import RunControl
from ecot.run.loop import LoopSettings, RealEnvironment, RunSummary, SynthesisLoop
from ecot.run.progress import LiveCounters, ProgressReporter
from ecot.store import TrajectoryStore


def execute(args: argparse.Namespace, tasks: Sequence[Task], generator: Generator, settings: BenchSettings,
            system_prompt: str | None) -> tuple[int, int]:
    """Run (or resume) the benchmark run; returns (run id, exit status)."""
    config, identity = bench_config(tasks, generator, settings, system_prompt)
    world = _world_model(args.world_model, tasks, config, identity)  # a bad model fails before the store is touched
    asyncio.run(generator.preflight())  # an unreachable endpoint: one line naming it, nothing stored
    loop_settings = LoopSettings(max_rounds=settings.max_rounds, max_in_flight=args.max_in_flight, system_prompt=system_prompt)
    control = RunControl()
    with TrajectoryStore(args.store, writer=True) as store, make_executor(None, args.workers) as pool:
        with Progress(console=console, transient=True) as bar:
            checking = bar.add_task("checking the references", total=len(tasks))
            run_id, skipped = begin(store, pool, tasks, config, identity, lambda: bar.advance(checking))
        if skipped:
            console.print(f"[yellow]{len(skipped)} tasks not run here: their reference does not pass on this machine "
                          "(`ecot bench report` lists them)[/yellow]")
        runnable = [t for t in tasks if t.id not in skipped]
        environment: Any = RealEnvironment(pool) if world is None else _world_environment(world)
        counters = LiveCounters(total=len(runnable) * settings.samples)
        loop = SynthesisLoop(generator, environment, store, loop_settings, control, counters)
        warm = [Work(warm_worker, (domain,)) for domain in sorted({t.domain for t in runnable})] * pool.workers
        with ProgressReporter(counters, console, f"bench run {run_id}", args.progress_every) as progress:
            summary = asyncio.run(_loop(loop, run_id, runnable, settings.samples, lambda _: progress.advance(), warm))
        print_report(store, run_id, summary, None)
    return run_id, exit_status(summary, control)


async def _loop(loop: SynthesisLoop, run_id: int, tasks: Sequence[Task], samples: int, on_done: Any,
                warm: list[Work]) -> RunSummary:
    """The loop, with the workers warmed meanwhile (their start-up overlaps the first requests, not the judging)."""
    pool = getattr(loop.environment, "executor", None)
    warming = [asyncio.ensure_future(pool.submit(work)) for work in warm] if pool is not None else []
    try:
        return await loop.run(run_id, tasks, samples, on_done)
    finally:
        await asyncio.gather(*warming, return_exceptions=True)  # a failed warm-up shows again where it matters
        await loop.generator.aclose()


def _world_model(path: Any, tasks: Sequence[Task], config: dict[str, Any], identity: dict[str, Any]) -> Any:
    """The --world-model judge: it must know every selected domain (a real verdict would mix into predicted scores)."""
    if path is None:
        return None
    from ecot.icwm import load_model

    world = load_model(path)
    unknown = sorted({t.domain for t in tasks} - set(world.domains()))
    if unknown:
        raise EcotError(f"world model {world.name} has no data for domain(s) {', '.join(unknown)}: "
                        "judge those with the toolchains (leave out --world-model) or select other domains")
    for target in (config, identity):
        target["environment"] = world.source
    return world


def _world_environment(world: Any) -> Any:
    from ecot.icwm.environment import WorldModelEnvironment

    return WorldModelEnvironment(world, real=None, store=None, audit_rate=0.0, verify=False)
