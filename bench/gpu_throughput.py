"""GPU-domain benchmarks, each printing ratios measured within one run.

    python bench/gpu_throughput.py                      # bundled suite: references, cold vs warm, per-job split
    python bench/gpu_throughput.py --compare-preload    # ... and against a warm Python preloading torch only
    python bench/gpu_throughput.py --kernelbench DIR    # every KernelBench reference against itself (CPU path)
    python bench/gpu_throughput.py --kernelbench DIR --levels level1 --limit 20

Suite mode evaluates every bundled reference three times in one process: cold (the warm Python's start,
each task's planning), then as never-seen sources (the steady state of a synthesis run, where every
candidate is new), then the same sources again (compile results cached). It prints evaluations per
second, the share of each sandboxed job, and (with a GPU) speedups and fast_p.
KernelBench mode lists every reference that is not Pass on this machine, with the reason.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from ecot.domains import get_backend
from ecot.domains.gpu import runner as gpu_runner
from ecot.domains.gpu.jobs.timing import fast_p
from ecot.tasks.suite import bundled_suite_path, load_suite

_job_seconds: dict[str, list[float]] = collections.defaultdict(list)


def _instrument() -> None:
    """Record the wall time of every sandboxed job by kind."""
    original = gpu_runner.JobRunner.run

    def run(self: Any, module: str, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(self, module, *args, **kwargs)
        finally:
            _job_seconds[module.replace("gpu_job_", "")].append(time.perf_counter() - start)

    gpu_runner.JobRunner.run = run  # type: ignore[method-assign]


def _round(name: str, tasks: list[Any], variant: str = "") -> list[Any]:
    """Evaluate every reference once; `variant` is appended as a comment (a source never seen before,
    so the per-source compile cache cannot help)."""
    backend = get_backend("gpu")
    _job_seconds.clear()
    start = time.perf_counter()
    outcomes = [backend.run(task, (task.reference or "") + variant) for task in tasks]
    elapsed = time.perf_counter() - start
    print(f"{name}: {len(tasks)} references in {elapsed:.1f} s ({len(tasks) / elapsed:.2f} evaluations/s), "
          f"{sum(o.passed for o in outcomes)} Pass")
    total = sum(sum(v) for v in _job_seconds.values()) or 1.0
    split = ", ".join(f"{k} {100 * sum(v) / total:.0f}% ({statistics.median(v):.2f} s median)" for k, v in _job_seconds.items())
    print(f"  job time: {split}")
    for task, outcome in zip(tasks, outcomes):
        if not outcome.passed:
            print("  NOT PASS", task.id, outcome.label, outcome.diagnostic[:160])
    return [elapsed, outcomes]


def suite_mode(limit: int | None, compare_preload: bool) -> int:
    tasks = load_suite(bundled_suite_path("gpu"))[:limit]
    cold, _ = _round("cold (warm Python start, planning, compiles)", tasks)
    fresh, outcomes = _round("warm, new sources (steady state for new candidates)", tasks, "\n# variant 1\n")
    same, _ = _round("warm, same sources (compile results cached)", tasks, "\n# variant 1\n")
    print(f"ratios: cold / steady {cold / fresh:.2f}x, steady / cached {fresh / same:.2f}x")
    if compare_preload:
        gpu_runner.CPU_PRELOAD = ("torch",)  # what a plain warm_python(("torch",)) would give
        gpu_runner._runners.clear()
        _round("plain torch warm Python, cold", tasks, "\n# variant 2\n")
        plain, _ = _round("plain torch warm Python, new sources", tasks, "\n# variant 3\n")
        print(f"preloading Triton (interpreter mode) and meta kernels: {plain / fresh:.2f}x faster in the steady state")
    speed = [(o.passed, o.metrics.get("speedup")) for o in outcomes]
    if any(s is not None for _, s in speed):
        for p in (0.0, 0.8, 1.0, 1.5, 2.0):
            print(f"fast_{p:g} = {fast_p(speed, p):.3f}")
    return 0


def kernelbench_mode(root: Path, levels: list[str], limit: int | None) -> int:
    from ecot.importers import import_tasks

    backend = get_backend("gpu")
    tasks = [t for t in import_tasks("kernelbench", root) if not levels or t.tags[1] in levels]
    by_level: dict[str, list[Any]] = collections.defaultdict(list)
    for task in tasks:
        by_level[task.tags[1]].append(task)
    failures = []
    start = time.perf_counter()
    for level, items in sorted(by_level.items()):
        counts: collections.Counter[str] = collections.Counter()
        for task in items[:limit]:
            t0 = time.perf_counter()
            outcome = backend.run(task, task.reference or "")
            counts[outcome.label] += 1
            shrink = outcome.metrics.get("cpu_shrink")
            print(f"{task.id}: {outcome.label} in {time.perf_counter() - t0:.1f} s (cpu_shrink {shrink})", flush=True)
            if not outcome.passed:
                failures.append((task.id, outcome.label, outcome.diagnostic[:300]))
        print(f"{level}: {dict(counts)}")
    print(f"{len(tasks)} tasks in {time.perf_counter() - start:.0f} s")
    for failure in failures:
        print("NOT PASS", *failure)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernelbench", type=Path, help="KernelBench folder: evaluate every reference against itself")
    parser.add_argument("--levels", nargs="*", default=[], help="only these levels (e.g. level1)")
    parser.add_argument("--limit", type=int, help="at most this many tasks (per level in KernelBench mode)")
    parser.add_argument("--compare-preload", action="store_true", help="also time a warm Python that preloads torch only")
    args = parser.parse_args(argv)
    _instrument()
    if args.kernelbench:
        return kernelbench_mode(args.kernelbench, args.levels, args.limit)
    return suite_mode(args.limit, args.compare_preload)


if __name__ == "__main__":
    sys.exit(main())
