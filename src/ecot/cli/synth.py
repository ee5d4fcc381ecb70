"""Synthesize verified multi-turn trajectories (the main job), then export the folded ECoT corpus.

Each task is attempted by the generator; the code runs on the domain's real toolchain; the verdict
goes back for up to --max-rounds corrections. Every turn is stored as it happens: rerunning the same
command resumes a killed run without losing or duplicating turns. With no arguments it runs every
bundled suite offline with the `repair` generator (no API key, GPU or network needed).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

from ecot.errors import EcotError

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", help="suite folders or .jsonl files (default: every bundled suite)")
    parser.add_argument("--domain", action="append", default=[], help="only these domains (repeatable)")
    parser.add_argument("--limit", type=int, help="at most this many tasks per domain")
    parser.add_argument("--generator", default="repair", help="generator name: repair (default), openai, hf, replay")
    parser.add_argument("--gen-opt", action="append", default=[], metavar="KEY=VALUE", help="generator option (repeatable)")
    parser.add_argument("--model", help="shorthand for --gen-opt model=...")
    parser.add_argument("--base-url", help="shorthand for --gen-opt base_url=... (OpenAI-compatible endpoint)")
    parser.add_argument("--samples", type=int, default=1, help="trajectories per task (default 1)")
    parser.add_argument("--max-rounds", type=int, default=4, help="correction rounds after the first attempt (default 4)")
    parser.add_argument("--workers", type=int, help="backend workers (default: all cores; on Ray: the cluster's CPUs, per domain)")
    parser.add_argument("--ray-address", metavar="ADDR", help="run backends on Ray: 'local' (start one here), 'auto' (the running cluster), 'ray://HOST:PORT' or HOST:PORT (default: a local process pool, no Ray)")
    parser.add_argument("--max-pending", type=int, metavar="N", help="evaluations submitted and not yet returned, at most (default: 4 per worker)")
    parser.add_argument("--max-in-flight", type=int, default=64, help="trajectories advancing at once (default 64)")
    parser.add_argument("--store", type=Path, default=Path("out/ecot.db"), help="trajectory store (SQLite)")
    parser.add_argument("--out", type=Path, default=Path("out/corpus"), help="folder for the exported corpus")
    parser.add_argument("--no-export", action="store_true", help="only synthesize; export later with `ecot export`")
    parser.add_argument("--world-model", type=Path, metavar="PATH", help="observe with this ICWM (from `ecot icwm train`) instead of the real backends; every predicted Pass is verified for real")
    parser.add_argument("--audit-rate", type=float, default=0.1, metavar="R", help="with --world-model: share of world-model turns also run for real and recorded as audits (default 0.1)")
    parser.add_argument("--min-confidence", type=float, default=0.0, metavar="C", help="with --world-model: run a turn for real when the model's confidence is below C (default 0: always predict; see the selective table of `ecot icwm eval`)")


def generator_options(args: argparse.Namespace) -> dict[str, str]:
    from ecot.cli.common import key_values

    options = key_values(args.gen_opt, "--gen-opt")
    if args.model:
        options["model"] = args.model
    if args.base_url:
        options["base_url"] = args.base_url
    return options


def runnable_tasks(args: argparse.Namespace) -> list[Any]:
    """The selected tasks whose toolchains are installed; a domain with a missing tool is skipped loudly."""
    from ecot.backends import BACKENDS
    from ecot.cli.common import console, load_tasks
    from ecot.errors import ToolMissingError

    tasks = load_tasks(args.suites, args.domain)
    usable: list[Any] = []
    for domain in sorted({t.domain for t in tasks}):
        try:
            BACKENDS.get(domain)().check_tools()
        except ToolMissingError as err:
            console.print(f"[yellow]skipping domain {domain}: {err}[/yellow]")
            continue
        chosen = [t for t in tasks if t.domain == domain]
        usable += chosen[: args.limit] if args.limit else chosen
    if not usable:
        raise EcotError("no task can run: every selected domain lacks its toolchain (see messages above)")
    return usable


def run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ecot.cli.common import check_folder, console
    from ecot.executor import make_executor
    from ecot.generators import GENERATORS
    from ecot.loop import LoopSettings, RealEnvironment, SynthesisLoop
    from ecot.store import TrajectoryStore

    if args.samples < 1 or args.max_rounds < 0 or args.max_in_flight < 1:
        raise EcotError("--samples and --max-in-flight must be >= 1 and --max-rounds >= 0")
    if args.limit is not None and args.limit < 1:  # tasks[:0] would run every task, tasks[:-1] all but one
        raise EcotError(f"--limit must be >= 1, got {args.limit}")
    for flag, value in (("--audit-rate", args.audit_rate), ("--min-confidence", args.min_confidence)):
        if not 0.0 <= value <= 1.0:
            raise EcotError(f"{flag} must be in [0, 1], got {value}")
    if not args.no_export:
        check_folder(args.out, "--out")
    tasks = runnable_tasks(args)
    generator = GENERATORS.get(args.generator).from_options(generator_options(args))
    settings = LoopSettings(max_rounds=args.max_rounds, max_in_flight=args.max_in_flight)
    config = {
        "tasks": sorted(t.id for t in tasks),
        "generator": generator.provenance(),
        "samples": args.samples,
        "max_rounds": args.max_rounds,
        "environment": "real",
    }
    world = _world_model(args, config)  # a bad model fails before a store is created
    store = TrajectoryStore(args.store)
    run_id = store.begin_run(config)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with make_executor(args.ray_address, args.workers, args.max_pending) as pool, Progress(*columns, console=console) as progress:
            environment = RealEnvironment(pool)
            if world is not None:
                environment = _world_environment(world, environment, store, args)
            loop = SynthesisLoop(generator, environment, store, settings)
            bar = progress.add_task(f"run {run_id}: trajectories", total=len(tasks) * args.samples)
            summary = asyncio.run(_run(loop, run_id, tasks, args.samples, lambda _: progress.advance(bar)))
        console.print(_summary_table(store, run_id, summary))
        if world is not None:
            console.print(f"world model {world.name}: {environment.stats.as_dict()}")
        if not args.no_export:
            _export(store, run_id, args.out)
    finally:
        store.close()
    return 1 if summary.generator_errors or summary.harness_errors else 0


def _world_model(args: argparse.Namespace, config: dict[str, Any]) -> Any:
    """The --world-model, loaded offline; its name and the audit rate enter the run config (and key)."""
    if args.world_model is None:
        return None
    from ecot.icwm import load_model

    world = load_model(args.world_model)
    config.update(environment=world.source, audit_rate=args.audit_rate)
    if args.min_confidence:
        config.update(min_confidence=args.min_confidence)
    return world


def _world_environment(world: Any, real: Any, store: Any, args: argparse.Namespace) -> Any:
    from ecot.icwm.environment import WorldModelEnvironment

    return WorldModelEnvironment(
        world, real, store, audit_rate=args.audit_rate, verify=True, min_confidence=args.min_confidence
    )


async def _run(loop: Any, run_id: int, tasks: list[Any], samples: int, on_done: Any) -> Any:
    try:
        return await loop.run(run_id, tasks, samples, on_done)
    finally:
        await loop.generator.aclose()


def _summary_table(store: Any, run_id: int, summary: Any) -> Any:
    from collections import Counter, defaultdict

    from rich.table import Table

    per_domain: dict[str, Counter[str]] = defaultdict(Counter)
    rounds: dict[str, list[int]] = defaultdict(list)
    for traj in store.iter_trajectories(run_id=run_id, finished_only=False):
        per_domain[traj.domain]["trajectories"] += 1
        per_domain[traj.domain]["passed"] += traj.passed
        per_domain[traj.domain]["turns"] += len(traj.turns)
        if traj.passed:
            rounds[traj.domain].append(len(traj.turns) - 1)
    table = Table(title=f"run {run_id}: this invocation added {summary.turns} turns ({dict(summary.statuses)})")
    for column in ("domain", "trajectories", "passed", "turns", "mean rounds to pass"):
        table.add_column(column)
    for domain, counts in sorted(per_domain.items()):
        done = rounds[domain]
        mean = f"{sum(done) / len(done):.2f}" if done else "-"
        table.add_row(domain, str(counts["trajectories"]), str(counts["passed"]), str(counts["turns"]), mean)
    captions = []
    if summary.generator_errors:
        captions.append(f"{len(summary.generator_errors)} generator errors (rerun to retry): {summary.generator_errors[0]}")
    if summary.harness_errors:  # the backend could not judge: a broken task bundle or toolchain, not the code
        captions.append(f"{len(summary.harness_errors)} trajectories ended by Infra_Error: {summary.harness_errors[0]}")
    table.caption = "\n".join(captions) or None
    return table


def _export(store: Any, run_id: int, out: Path) -> None:
    from ecot.cli.common import console
    from ecot.export import export_run

    report = export_run(store, out, run_id=run_id)
    console.print(f"exported {report} -> {out}")
