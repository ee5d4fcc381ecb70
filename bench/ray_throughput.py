"""Executor benchmark: the local process pool vs Ray on this machine, measured in one run.

Sections (each engine measured back to back, medians of --repeats):
  overhead  no-op tasks: throughput, round trip of one task at a time, driver CPU per task
  scaling   fixed CPU-bound tasks (--spin-ms) on 1..N workers: evaluations/s and parallel efficiency
  rtl       every bundled RTL reference on the real backend, 1..N workers: evaluations/s
  loop      the synthesis loop end to end (repair generator, real backend, store): turns/s, driver CPU/turn
  store     SQLite trajectory store: turns appended per second (the driver writes every turn)
and a projection for a larger cluster from these numbers (see docs/scaling.md).
Ray runs as one local instance with N CPUs; each measurement gets fresh warm actors.
Usage: python bench/ray_throughput.py [--max-workers N] [--repeats 3] [--noop 400] [--spin-ms 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.local import LocalPool, Work, spin
from ecot.tasks.suite import bundled_suite_path, load_suite

Factory = Callable[[int], Any]


def engines(max_workers: int) -> dict[str, Factory]:
    import ray

    from ecot.executors.ray import RayExecutor
    from ecot.executors.ray_nodes import connect

    connect(ray, "local", max_workers, {})  # one Ray instance for the whole run
    return {"local": lambda w: LocalPool(w, max_pending=64), "ray": lambda w: RayExecutor("local", workers=w, max_pending=64)}


async def burst(executor: Any, work: list[Work]) -> float:
    start = time.perf_counter()
    await asyncio.gather(*(executor.submit(w) for w in work))
    return time.perf_counter() - start


async def one_by_one(executor: Any, work: Work, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await executor.submit(work)
    return (time.perf_counter() - start) / n


def ready_workers(executor: Any, pool: str, workers: int) -> int:
    return len(executor.placements().get(pool, [])) if hasattr(executor, "placements") else workers


def warm(executor: Any, pool: str, workers: int, step: Callable[[], Any]) -> None:
    """Repeat `step` until every worker of the pool is up (a Ray pool grows on demand), so timings exclude starts."""
    deadline = time.monotonic() + 120
    step()
    while ready_workers(executor, pool, workers) < workers and time.monotonic() < deadline:
        step()


def warm_spin(executor: Any, pool: str, workers: int) -> None:
    noop = Work(spin, (0.0,), pool=pool)
    warm(executor, pool, workers, lambda: asyncio.run(burst(executor, [noop] * (4 * workers))))


def measure_overhead(factory: Factory, workers: int, n: int, repeats: int) -> dict[str, float]:
    noop = Work(spin, (0.0,), pool="noop")
    rates, trips, cpu = [], [], []
    with factory(workers) as executor:
        warm_spin(executor, "noop", workers)
        for _ in range(repeats):
            cpu_start = time.process_time()
            rates.append(n / asyncio.run(burst(executor, [noop] * n)))
            cpu.append((time.process_time() - cpu_start) / n)
            trips.append(asyncio.run(one_by_one(executor, noop, 50)))
    return {"noop_per_s": statistics.median(rates), "round_trip_ms": 1e3 * statistics.median(trips), "driver_cpu_ms": 1e3 * statistics.median(cpu)}


def measure_spin(factory: Factory, workers: int, spin_s: float, per_worker: int, repeats: int) -> float:
    work = Work(spin, (spin_s, True), pool="spin")
    with factory(workers) as executor:
        warm_spin(executor, "spin", workers)
        n = per_worker * workers
        return statistics.median(n / asyncio.run(burst(executor, [work] * n)) for _ in range(repeats))


async def evaluate_all(executor: Any, tasks: list[Task]) -> tuple[float, list[Outcome]]:
    start = time.perf_counter()
    outcomes = await asyncio.gather(*(executor.evaluate(t, t.reference or "") for t in tasks))
    return time.perf_counter() - start, list(outcomes)


def measure_rtl(factory: Factory, workers: int, tasks: list[Task], repeats: int) -> float:
    with factory(workers) as executor:
        warm(executor, "backend:rtl", workers, lambda: asyncio.run(evaluate_all(executor, tasks[: 4 * workers])))
        rates = []
        for _ in range(repeats):
            elapsed, outcomes = asyncio.run(evaluate_all(executor, tasks))
            failed = [o.label for o in outcomes if not o.passed]
            if failed:
                raise RuntimeError(f"references did not pass: {failed}")
            rates.append(len(tasks) / elapsed)
        return statistics.median(rates)


def measure_loop(factory: Factory, workers: int, tasks: list[Task]) -> dict[str, float]:
    """The whole synthesis loop (repair generator, real backend, store): turns/s and driver CPU per turn."""
    from ecot.generators.repair import RepairGenerator
    from ecot.run.loop import LoopSettings, RealEnvironment, SynthesisLoop
    from ecot.store import TrajectoryStore

    with factory(workers) as executor, tempfile.TemporaryDirectory() as tmp, TrajectoryStore(Path(tmp) / "loop.db") as store:
        warm(executor, "backend:rtl", workers, lambda: asyncio.run(evaluate_all(executor, tasks[: 4 * workers])))
        loop = SynthesisLoop(RepairGenerator(), RealEnvironment(executor), store, LoopSettings())
        run_id = store.begin_run({"bench": "loop"})
        start, cpu_start = time.perf_counter(), time.process_time()
        summary = asyncio.run(loop.run(run_id, tasks))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"turns_per_s": summary.turns / elapsed, "driver_cpu_ms": 1e3 * cpu / summary.turns, "turns": summary.turns}


def measure_store(n: int) -> float:
    from ecot.core.trajectory import Turn
    from ecot.store import TrajectoryStore

    task = load_suite(bundled_suite_path("rtl"))[0]
    outcome = Outcome("Simulation_Mismatch", "3 mismatches", "log line\n" * 40, {"mismatches": 3})
    turn = Turn(0, "reasoning " * 200, task.reference, "raw " * 400, outcome)
    with tempfile.TemporaryDirectory() as tmp, TrajectoryStore(Path(tmp) / "bench.db") as store:
        run_id = store.begin_run({"bench": "store"})
        start = time.perf_counter()
        for i in range(n // 5):
            traj = store.trajectory(run_id, task.id, task.domain, i, [{"role": "user", "content": task.prompt}], {})
            for k in range(5):
                store.append_turn(traj, Turn(k, turn.reasoning, turn.code, turn.raw, outcome))
            store.finish(traj, "failed")
        return n / (time.perf_counter() - start)


def worker_counts(max_workers: int) -> list[int]:
    counts, w = [], 1
    while w < max_workers:
        counts.append(w)
        w *= 2
    return counts + [max_workers]


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    factories = engines(args.max_workers)
    results: dict[str, Any] = {"overhead": {}, "spin": {}, "rtl": {}, "loop": {}}
    print(f"== overhead: {args.noop} no-op tasks on {args.max_workers} workers")
    for name, factory in factories.items():
        row = results["overhead"][name] = measure_overhead(factory, args.max_workers, args.noop, args.repeats)
        print(f"  {name:5s} {row['noop_per_s']:8.0f} tasks/s   round trip {row['round_trip_ms']:6.2f} ms   driver CPU {row['driver_cpu_ms']:5.2f} ms/task")
    local, ray = results["overhead"]["local"], results["overhead"]["ray"]
    print(f"  Ray adds {ray['round_trip_ms'] - local['round_trip_ms']:.2f} ms per task (round trip), {ray['driver_cpu_ms']:.2f} ms of driver CPU")
    print(f"== scaling: CPU-bound tasks of {args.spin_ms} ms")
    for w in worker_counts(args.max_workers):
        row = results["spin"][w] = {name: measure_spin(f, w, args.spin_ms / 1e3, args.per_worker, args.repeats) for name, f in factories.items()}
        ideal = w * 1e3 / args.spin_ms
        cells = "   ".join(f"{n} {v:6.1f}/s ({v / ideal:4.0%})" for n, v in row.items())
        print(f"  {w:2d} workers: {cells}   ray/local {row['ray'] / row['local']:.2f}")
    tasks = load_suite(bundled_suite_path("rtl"))
    print(f"== rtl: {len(tasks)} bundled references on the real backend")
    for w in worker_counts(args.max_workers):
        row = results["rtl"][w] = {name: measure_rtl(f, w, tasks, args.repeats) for name, f in factories.items()}
        print(f"  {w:2d} workers: local {row['local']:6.1f}/s   ray {row['ray']:6.1f}/s   ray/local {row['ray'] / row['local']:.2f}")
    print(f"== loop: repair generator + real backend + store over the same tasks, {args.max_workers} workers")
    for name, factory in factories.items():
        row = results["loop"][name] = measure_loop(factory, args.max_workers, tasks)
        print(f"  {name:5s} {row['turns_per_s']:6.1f} turns/s   driver CPU {row['driver_cpu_ms']:5.2f} ms/turn   ({row['turns']} turns)")
    results["store"] = measure_store(args.store_turns)
    print(f"== store: {results['store']:.0f} turns appended per second (SQLite, WAL)")
    project(results, args.max_workers)
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")
    return results


def project(results: dict[str, Any], workers: int) -> None:
    """A 100-node projection: per-worker rate x workers, against the driver's and the store's ceilings."""
    per_worker = results["rtl"][workers]["ray"] / workers
    driver = 1e3 / results["loop"]["ray"]["driver_cpu_ms"]
    for cores in (16, 64):
        cluster = 100 * cores * per_worker
        print(
            f"== projection, 100 nodes x {cores} cores: backends {cluster:,.0f} RTL evals/s; "
            f"one driver ceiling ~{driver:,.0f} turns/s; store ceiling ~{results['store']:,.0f} turns/s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--noop", type=int, default=400, help="no-op tasks per overhead measurement")
    parser.add_argument("--spin-ms", type=float, default=20.0, help="duration of one synthetic CPU-bound task")
    parser.add_argument("--per-worker", type=int, default=25, help="synthetic tasks per worker per measurement")
    parser.add_argument("--store-turns", type=int, default=2000)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
