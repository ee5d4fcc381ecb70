"""CAD backend throughput: the warm worker against a cold process per script, measured in one run.

Both sides run the same candidates through the same pipeline (candidate job, then a separate check
job, each sandboxed): `warm` forks each job from one interpreter that imported CadQuery once;
`cold` starts a fresh sandboxed interpreter for every job, so each job pays the CadQuery import.
References are built and cached before timing on both sides. Candidates: the bundled references plus
one planted bug per task (repair-generator operators), so failing and passing evaluations both count.

Usage: python bench/cad_throughput.py [--tasks 8] [--cold 6] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from random import Random

from ecot import sandbox
from ecot.core.task import Limits, Task
from ecot.domains.cad.backend import CadBackend, preload
from ecot.mutators import MUTATORS
from ecot.sandbox.warm import WarmPython
from ecot.tasks.suite import bundled_suite_path, load_suite


class ColdCadBackend(CadBackend):
    """The same backend with no warm worker: every job starts (and imports CadQuery in) a new interpreter."""

    def _job(
        self, work: Path, code: str, limits: Limits, argv: list[str], feeds: dict[str, bytes] | None = None
    ) -> sandbox.ExecResult:
        runner = WarmPython(preload())
        try:
            return runner.run(work, code, limits, argv=argv, feeds=feeds)
        finally:
            runner.close()


def candidates(count: int) -> list[tuple[Task, str]]:
    tasks = load_suite(bundled_suite_path("cad"))[:count]
    mset, rng = MUTATORS.get("cad"), Random(0)
    chosen: list[tuple[Task, str]] = []
    for task in tasks:
        reference = (task.reference or "").strip() + "\n"
        chosen.append((task, reference))
        usable = [m for m in mset.mutations if m.sites(reference)]
        bug = rng.choice(usable).apply(reference, rng)
        if bug is not None:
            chosen.append((task, bug.code))
    return chosen


def timed(backend: CadBackend, work: list[tuple[Task, str]]) -> tuple[float, list[float], dict[str, int]]:
    per_eval, labels = [], {}
    start = time.perf_counter()
    for task, code in work:
        began = time.perf_counter()
        label = backend.run(task, code).label
        per_eval.append(time.perf_counter() - began)
        labels[label] = labels.get(label, 0) + 1
    return time.perf_counter() - start, per_eval, labels


def cold_start() -> float:
    """Seconds for one fresh sandboxed interpreter to import CadQuery and run an empty job."""
    runner = WarmPython(preload())
    began = time.perf_counter()
    with sandbox.workdir("ecot-bench-") as work:
        runner.run(work, "pass\n", Limits())
    runner.close()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=8, help="bundled tasks to draw candidates from (2 each)")
    parser.add_argument("--cold", type=int, default=6, help="candidates evaluated cold (each costs two imports)")
    parser.add_argument("--repeats", type=int, default=3, help="warm passes over the candidates (median reported)")
    args = parser.parse_args()
    work = candidates(args.tasks)
    warm = CadBackend()
    for task, _ in work:
        warm.reference_shape(task)  # starts the warm worker and caches every reference
    passes = [timed(warm, work) for _ in range(args.repeats)]
    warm_total = statistics.median(p[0] for p in passes)
    warm_rate = len(work) / warm_total
    cold = ColdCadBackend()
    cold_work = work[: args.cold]
    for task, _ in cold_work:
        cold.reference_shape(task)
    cold_total, cold_each, cold_labels = timed(cold, cold_work)
    cold_rate = len(cold_work) / cold_total
    startup = cold_start()
    print(f"candidates: {len(work)} ({passes[0][2]}), cold subset {len(cold_work)} ({cold_labels})")
    print(f"warm worker : {warm_rate:7.2f} evaluations/s  (median {statistics.median(passes[0][1]) * 1000:.0f} ms/eval)")
    print(f"cold process: {cold_rate:7.2f} evaluations/s  (median {statistics.median(cold_each) * 1000:.0f} ms/eval)")
    print(f"one cold interpreter start (CadQuery import in the sandbox): {startup:.2f} s")
    print(f"ratio warm/cold: {warm_rate / cold_rate:.1f}x")
    warm.close()
    cold.close()


if __name__ == "__main__":
    main()
