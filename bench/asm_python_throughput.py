"""asm and python backends: evaluations per second, in one run, with ratios between the variants.

For every bundled task of each domain it times warm evaluations (the per-task preparation and the
reference timing are done once first, as a long synth run would) of:
  asm     pass/off        the reference, speed="off" (assemble, link, run the cases, compare)
          pass/callgrind  the reference with the default instruction count (adds one callgrind run)
          pass/both       the reference with callgrind and the wall-time benchmark
          fail            a planted bug (first applicable operator of the mutation set), speed="off"
  python  pass            the reference
          fail            a planted bug
          trace           the reference with a line trace recorded
It prints per-variant medians, evaluations per second on one process, the cost ratios, and the
throughput of the default variants on 1..N worker processes. It also prints one sample trace.
Usage: python bench/asm_python_throughput.py [--repeats 3] [--limit N] [--workers 2] [--domains asm]
(--workers 0 skips the multi-process rates, e.g. to compare two checkouts' medians in turn).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from random import Random
from typing import Any

from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.python.jobs.trace import render
from ecot.mutators import MUTATORS
from ecot.tasks.suite import bundled_suite_path, load_suite


def with_options(task: Task, **options: Any) -> Task:
    return dataclasses.replace(task, options={**task.options, **options})


def planted_bug(task: Task) -> str:
    """The first operator of the domain's mutation set that applies, with a fixed rng."""
    reference = (task.reference or "").strip() + "\n"
    for mutation in MUTATORS.get(task.domain).mutations:
        applied = mutation.apply(reference, Random(0))
        if applied is not None and mutation.category != "timing":  # skip planted hangs: they measure the limit
            return applied.code
    return reference


def timed(task: Task, code: str) -> float:
    start = time.perf_counter()
    get_backend(task.domain).run(task, code)
    return time.perf_counter() - start


def variants(domain: str) -> dict[str, Callable[[Task], tuple[Task, str]]]:
    if domain == "asm":
        return {
            "pass/off": lambda t: (with_options(t, speed="off"), t.reference or ""),
            "pass/callgrind": lambda t: (with_options(t, speed="callgrind"), t.reference or ""),
            "pass/both": lambda t: (with_options(t, speed="both"), t.reference or ""),
            "fail": lambda t: (with_options(t, speed="off"), planted_bug(t)),
        }
    return {
        "pass": lambda t: (t, t.reference or ""),
        "fail": lambda t: (t, planted_bug(t)),
        "trace": lambda t: (with_options(t, trace=True), t.reference or ""),
    }


def measure(domain: str, tasks: list[Task], repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    for name, make in variants(domain).items():
        jobs = [make(t) for t in tasks]
        for task, code in jobs:  # warm: per-task preparation, reference timing, baseline counts
            get_backend(domain).run(task, code)
        times[name] = [timed(task, code) for _ in range(repeats) for task, code in jobs]
    return times


def _one(args: tuple[Task, str]) -> None:
    task, code = args
    get_backend(task.domain).run(task, code)


def pool_rate(jobs: list[tuple[Task, str]], workers: int) -> float:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        list(pool.map(_one, jobs))  # warm every worker's caches
        start = time.perf_counter()
        list(pool.map(_one, jobs))
        return len(jobs) / (time.perf_counter() - start)


def report(domain: str, times: dict[str, list[float]], base: str) -> None:
    print(f"\n{domain}: {len(times[base])} timed evaluations per variant")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        rate = len(values) / sum(values)
        print(f"  {name:15s} median {medians[name] * 1000:8.1f} ms   {rate:7.1f} evaluations/s on one process"
              f"   x{medians[name] / medians[base]:.2f} vs {base}")


def sample_trace(tasks: list[Task]) -> None:
    task = next(t for t in tasks if t.id == "python/lower_bound")
    buggy = (task.reference or "").replace("if a[mid] < x:", "if a[mid] <= x:")
    outcome = get_backend("python").run(with_options(task, trace=True, trace_events=40), buggy)
    trace = json.loads(str(outcome.metrics["trace"]))
    print(f"\nsample trace: {task.id} with `a[mid] <= x` ({outcome.label}: {outcome.diagnostic})")
    print(f"traced test {trace['test']}, input {trace['input']}, {len(trace['events'])} events")
    print(render(trace["events"][:24], trace["truncated"] or len(trace["events"]) > 24))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, help="at most this many tasks per domain")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--domains", nargs="+", choices=("asm", "python"), default=["asm", "python"])
    args = parser.parse_args()
    suites = {d: load_suite(bundled_suite_path(d))[: args.limit] for d in ("asm", "python")}
    for domain, base in (("asm", "pass/off"), ("python", "pass")):
        if domain not in args.domains:
            continue
        times = measure(domain, suites[domain], args.repeats)
        report(domain, times, base)
        default = "pass/callgrind" if domain == "asm" else "pass"
        jobs = [variants(domain)[default](t) for t in suites[domain]] * args.repeats
        for workers in range(1, args.workers + 1):
            print(f"  {default} on {workers} worker process(es): {pool_rate(jobs, workers):.1f} evaluations/s")
    if "python" in args.domains:
        sample_trace(suites["python"] if args.limit is None else load_suite(bundled_suite_path("python")))


if __name__ == "__main__":
    main()
