"""Firmware backend benchmark: time per evaluation, evaluations per second, and what planted bugs
are labelled, all measured in one run.

For every reference of the bundled firmware suite it times
  bare:    the backend's own commands (arm-none-eabi-gcc compile, link with the cached runtime and
           harness objects, QEMU) run straight in a scratch folder: no sandbox, no verdict
  backend: FirmwareBackend.run (the same commands through the sandbox, plus parsing and judging)
and prints medians of build, run and total time, the backend/bare ratio, and evaluations per second
on 1..N worker processes. With --bugs it also plants every firmware mutation operator into every
reference it applies to (one site each, seeded) and prints the label distribution and the median
time per label.
Usage: python bench/firmware_throughput.py [--repeats 3] [--limit N] [--workers N] [--bugs]
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from random import Random

from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.firmware import build
from ecot.domains.firmware import run as qemu
from ecot.domains.firmware.options import FirmwareOptions
from ecot.mutators import MUTATORS
from ecot.tasks.suite import bundled_suite_path, load_suite


def bare_once(task: Task) -> float:
    """The backend's compile, link and QEMU commands, run directly."""
    settings = FirmwareOptions.of_task(task)
    trusted = build.trusted_object(task, settings)
    assert not isinstance(trusted, str), trusted
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, text in {**build.candidate_visible_files(task, settings), settings.source_file: task.reference or ""}.items():
            (work / name).write_text(text)
        folder = qemu.RunFolder.new()
        qemu.prepare(work, folder)
        (work / folder.objects[0]).write_bytes(trusted.runtime)
        (work / folder.objects[1]).write_bytes(trusted.harness)
        tag = (secrets.randbits(32), secrets.randbits(32))
        start = time.perf_counter()
        for argv in (build.compile_argv(settings), build.link_argv(settings, trusted, tag, folder.elf, folder.objects), qemu.qemu_argv(folder)):
            subprocess.run(argv, cwd=work, capture_output=True, timeout=60, check=False)
        return time.perf_counter() - start


def backend_once(task: Task) -> tuple[float, float, float]:
    start = time.perf_counter()
    outcome = get_backend("firmware").run(task, task.reference or "")
    elapsed = time.perf_counter() - start
    if not outcome.passed:
        raise RuntimeError(f"{task.id}: reference did not pass: {outcome.label} {outcome.diagnostic}")
    return elapsed, float(outcome.metrics.get("build_s", 0.0)), float(outcome.metrics.get("run_s", 0.0))


def _warm(task: Task) -> None:
    get_backend("firmware").run(task, task.reference or "")  # compiles the runtime and this task's harness


def _worker(tasks: list[Task]) -> int:
    for task in tasks:
        _warm(task)
    return len(tasks)


def throughput(tasks: list[Task], workers: int, rounds: int) -> float:
    """Evaluations per second with `workers` processes, caches warmed first in every process."""
    chunks = [tasks * rounds for _ in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_worker, [tasks] * workers))  # warm each process (runtime + harness objects)
        start = time.perf_counter()
        done = sum(pool.map(_worker, chunks))
        return done / (time.perf_counter() - start)


def planted_bugs(tasks: list[Task], seed: int) -> None:
    mset = MUTATORS.get("firmware")
    backend = get_backend("firmware")
    labels: Counter[str] = Counter()
    times: dict[str, list[float]] = defaultdict(list)
    per_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for mutation in mset.mutations:
        for task in tasks:
            applied = mutation.apply((task.reference or "").strip() + "\n", Random(seed))
            if applied is None:
                continue
            start = time.perf_counter()
            outcome = backend.run(task, applied.code)
            times[outcome.label].append(time.perf_counter() - start)
            labels[outcome.label] += 1
            per_kind[mutation.kind][outcome.label] += 1
    total = sum(labels.values())
    print(f"\nplanted bugs: {total} evaluations (one seeded site per operator and task)")
    for label, count in labels.most_common():
        print(f"  {label:18s} {count:4d}  {100 * count / total:5.1f}%   median {statistics.median(times[label]):.3f} s")
    print("per operator:")
    for kind, counts in per_kind.items():
        print(f"  {kind:22s} " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--bugs", action="store_true", help="also plant every mutation operator and count labels")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tasks = load_suite(bundled_suite_path("firmware"))[: args.limit]
    for task in tasks:
        _warm(task)
    bare = [min(bare_once(t) for _ in range(args.repeats)) for t in tasks]
    runs = [min(backend_once(t) for _ in range(args.repeats)) for t in tasks]
    total, build_s, run_s = (statistics.median(r[i] for r in runs) for i in range(3))
    ratios = [r[0] / b for r, b in zip(runs, bare)]
    print(f"{len(tasks)} references, best of {args.repeats} each (medians over tasks)")
    print(f"  bare commands:   {statistics.median(bare):.3f} s per evaluation")
    print(f"  backend.run:     {total:.3f} s per evaluation (build {build_s:.3f} s, QEMU {run_s:.3f} s)")
    print(f"  overhead ratio backend/bare: {statistics.median(ratios):.2f}x")
    for workers in sorted({1, args.workers}):
        rate = throughput(tasks, workers, rounds=1)
        print(f"  throughput with {workers} worker process(es): {rate:.2f} evaluations/s")
    if args.bugs:
        planted_bugs(tasks, args.seed)


if __name__ == "__main__":
    main()
