"""Evaluate every task of one or more suites (default: all bundled suites) and print the outcome table.

By default each task's reference solution is evaluated, which checks a suite and its toolchain.
With --candidates DIR, the file DIR/<task id with / replaced by __>.<ext> is evaluated instead.

Facts about a task that do not depend on the candidate (the reference's sample count, CPU times and
answers) are measured once and kept in the task cache (ecot.domains.taskcache, under ECOT_CACHE or
~/.cache/ecot); --no-cache (or ECOT_NO_CACHE=1) measures them again in this run. The local workers
start while the tasks load; their number adapts to the machine (one per core, fewer where memory is
short) and is printed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the CLI imports its implementation lazily; these are for the annotations
    from ecot.core.outcome import Outcome
    from ecot.core.task import Task
    from ecot.executors.work import Executor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", help="suite folders or .jsonl files (default: bundled suites)")
    parser.add_argument("--domain", action="append", default=[], help="only these domains (repeatable)")
    parser.add_argument("--limit", type=int, metavar="N", help="at most N tasks per domain (the first N of each, in suite order)")
    parser.add_argument("--candidates", type=Path, help="folder of candidate files named after task ids")
    parser.add_argument("--workers", type=int, default=None,
                        help="workers (default: one per core, fewer where memory is short; on Ray: the cluster's CPUs, per domain)")
    parser.add_argument("--ray-address", metavar="ADDR", help="run backends on Ray: 'local' (start one here), 'auto', 'ray://HOST:PORT' or HOST:PORT (default: a local process pool)")
    parser.add_argument("--max-pending", type=int, metavar="N", help="evaluations submitted and not yet returned, at most (default: 4 per worker)")
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON lines to this file")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--no-cache", action="store_true",
                        help="measure what each task's verdicts need (the reference's profile) again instead of reading the task cache")


def _candidate(task_id: str, folder: Path) -> str | None:
    matches = sorted(folder.glob(task_id.replace("/", "__") + ".*"))
    return matches[0].read_text(encoding="utf-8", errors="replace") if matches else None


def _limited(tasks: list[Any], limit: int | None) -> list[Any]:
    """The first `limit` tasks of each domain, in suite order."""
    if limit is None:
        return tasks
    taken: dict[str, int] = {}
    kept = []
    for task in tasks:
        if taken.get(task.domain, 0) < limit:
            taken[task.domain] = taken.get(task.domain, 0) + 1
            kept.append(task)
    return kept


def run(args: argparse.Namespace) -> int:
    import asyncio
    import contextlib
    import json
    import os

    from ecot.executors.local import make_executor

    if args.no_cache:  # before the workers start: they inherit it
        from ecot.domains.taskcache import NO_CACHE_ENV

        os.environ[NO_CACHE_ENV] = "1"
    with contextlib.ExitStack() as stack:
        # the local workers start first, while this process imports, checks its arguments and loads the tasks
        early = None if args.ray_address else stack.enter_context(make_executor(None, args.workers, args.max_pending))
        _check_arguments(args)
        warmed = _expected_domains(args)
        if early is not None and warmed:  # their backends start while the tasks load
            early.warm(warmed)
        tasks = _load(args)
        if early is None or _too_many(args, early, tasks):
            early, warmed = None, set()
            stack.close()
        pool = early or stack.enter_context(make_executor(args.ray_address, _workers(args, tasks), args.max_pending))
        pool.warm({task.domain for task in tasks} - warmed)
        rows = asyncio.run(_evaluate_all(args, tasks, pool))
    return _report(args, rows, json)


def _expected_domains(args: argparse.Namespace) -> set[str]:
    """The domains the run will likely need, known before its tasks load: --domain, else each suite's first
    task's (a guess only: the loaded tasks decide)."""
    from pathlib import Path

    from ecot.tasks.suite import first_domain

    if args.domain:
        return set(args.domain)
    return {d for d in (first_domain(Path(s)) for s in args.suites) if d is not None}


def _workers(args: argparse.Namespace, tasks: list[Task]) -> int | None:
    """--workers, else (local) one per core and no more than the tasks' domains leave memory for."""
    from ecot.executors.work import default_workers, worker_memory_mb

    if args.workers is not None or args.ray_address:
        return int(args.workers) if args.workers is not None else None
    return default_workers(worker_memory_mb({task.domain for task in tasks}))


def _too_many(args: argparse.Namespace, pool: Executor, tasks: list[Task]) -> bool:
    """Whether the workers started before the tasks were known are more than their domains' memory allows."""
    wanted = _workers(args, tasks)
    return wanted is not None and wanted < pool.workers


def _check_arguments(args: argparse.Namespace) -> None:
    from ecot.cli.common import check_file
    from ecot.core.errors import EcotError

    check_file(args.json, "--json")
    if args.candidates is not None and not args.candidates.is_dir():  # else every task is silently No_Code
        raise EcotError(f"--candidates {args.candidates} is not a folder")
    if args.limit is not None and args.limit < 1:  # tasks[:0] would evaluate nothing and call it success
        raise EcotError(f"--limit must be >= 1, got {args.limit}")


def _load(args: argparse.Namespace) -> list[Any]:
    from ecot.cli.common import load_tasks

    return _limited(load_tasks(args.suites, args.domain), args.limit)


async def _evaluate_all(args: argparse.Namespace, tasks: list[Task], pool: Executor) -> list[tuple[Task, Outcome]]:
    import asyncio

    from rich.progress import Progress

    from ecot.cli.common import console
    from ecot.core.outcome import no_code

    if not args.quiet:
        console.print(f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} on {_workers_text(pool, tasks)}", highlight=False)
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("evaluating", total=len(tasks))

        async def one(task: Task) -> tuple[Task, Outcome]:
            code = _candidate(task.id, args.candidates) if args.candidates else task.reference
            outcome = no_code("no candidate found for this task") if code is None else await pool.evaluate(task, code)
            progress.advance(bar)
            return task, outcome

        return await asyncio.gather(*(one(t) for t in tasks))


def _workers_text(pool: Executor, tasks: list[Task]) -> str:
    from ecot.executors.work import Machine, worker_memory_mb

    if pool.engine != "local":
        return f"{pool.engine} workers"
    return Machine.here().describe(pool.workers, worker_memory_mb({t.domain for t in tasks}))


def _report(args: argparse.Namespace, rows: list[tuple[Task, Outcome]], json: Any) -> int:
    from ecot.cli.common import console, label_counts, outcome_table

    if not args.quiet:
        console.print(outcome_table(rows, f"{len(rows)} tasks"))
    passed = sum(o.passed for _, o in rows)
    console.print(f"[bold]{passed}/{len(rows)} Pass[/bold]  ({label_counts(o for _, o in rows)})")
    not_run = [task.id for task, o in rows if o.is_infra]
    if not_run:  # the harness or this machine could not judge them: not a verdict on the code
        shown = ", ".join(not_run[:5]) + (" ..." if len(not_run) > 5 else "")
        console.print(f"not run here (Infra_Error, not a verdict on the code): {len(not_run)}: {shown}", highlight=False)
    if args.json:
        with args.json.open("w") as handle:
            for task, outcome in rows:
                handle.write(json.dumps({"task_id": task.id, **outcome.to_dict()}) + "\n")
    return 0 if passed == len(rows) else 1
