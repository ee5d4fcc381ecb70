"""RTL backend benchmark: evaluations per second and overhead against the bare tools, in one run.

For every reference of the bundled RTL suite (and of RTLLM, when ../shared/data/rtllm exists) it times
  bare:    the same tool commands run directly (iverilog -g2012, vvp, and for designs with dotted
           names the design-alone elaboration), no sandbox, no harness
  backend: RtlBackend.run with synth="off" (the same two tools, through the sandbox and verdict channel)
  full:    RtlBackend.run with the task's default checks (adds Yosys)
and prints medians, the median per-evaluation overhead ratio, and throughput on 1..N worker processes.
Usage: python bench/rtl_throughput.py [--repeats 5] [--rtllm PATH] [--limit N]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.rtl.logs import may_reach_outside, top_testbench_module
from ecot.tasks.suite import bundled_suite_path, load_suite

RTLLM = Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"


def bare_once(task: Task) -> float:
    """The iverilog + vvp commands the backend runs, straight, in a scratch folder."""
    tb_name = str(task.option("testbench", "testbench.sv"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sources = ["design.sv"]
        (work / "design.sv").write_text(task.reference or "")
        for name, text in task.files.items():
            (work / name).write_text(text)
            if name.endswith((".v", ".sv")):
                sources.append(name)
        top = top_testbench_module(task.files[tb_name]) or "tb"
        start = time.perf_counter()
        subprocess.run(["iverilog", "-g2012", "-s", top, "-o", "sim.vvp", *sources], cwd=work, capture_output=True, check=True)
        subprocess.run(["vvp", "-n", "sim.vvp", "-none"], cwd=work, capture_output=True, timeout=60)
        if may_reach_outside(task.reference or ""):  # the backend then elaborates the design alone too
            alone = ["iverilog", "-g2012", "-s", str(task.option("top")), "-t", "null", "-o", "alone.out", "design.sv"]
            subprocess.run(alone, cwd=work, capture_output=True)
        return time.perf_counter() - start


def backend_once(task: Task) -> float:
    start = time.perf_counter()
    outcome = get_backend("rtl").run(task, task.reference or "")
    elapsed = time.perf_counter() - start
    if not outcome.passed:
        raise RuntimeError(f"{task.id}: reference did not pass: {outcome.label} {outcome.diagnostic}")
    return elapsed


def without_synth(task: Task) -> Task:
    return dataclasses.replace(task, options={**task.options, "synth": "off"})


def load_tasks(rtllm: Path | None, limit: int | None) -> dict[str, list[Task]]:
    suites = {"bundled": load_suite(bundled_suite_path("rtl"))}
    if rtllm and rtllm.exists():
        from ecot.importers.rtllm import import_rtllm

        candidates = import_rtllm(rtllm)
        suites["rtllm"] = [t for t in candidates if _passes(t)]
    return {k: v[:limit] if limit else v for k, v in suites.items()}


def _passes(task: Task) -> bool:
    return get_backend("rtl").run(task, task.reference or "").passed


def median_time(fn, task: Task, repeats: int) -> float:
    return statistics.median(fn(task) for _ in range(repeats))


def throughput(tasks: list[Task], workers: int, rounds: int = 3) -> float:
    work = [t for t in tasks for _ in range(rounds)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(backend_once, tasks[:workers]))  # warm the workers
        start = time.perf_counter()
        list(pool.map(backend_once, work, chunksize=1))
        return len(work) / (time.perf_counter() - start)


def report(name: str, tasks: list[Task], repeats: int) -> None:
    bare, sandboxed, full = [], [], []
    for task in tasks:
        bare.append(median_time(bare_once, task, repeats))
        sandboxed.append(median_time(backend_once, without_synth(task), repeats))
        full.append(median_time(backend_once, task, repeats))
    ratios = [s / b - 1 for s, b in zip(sandboxed, bare)]
    print(f"\n== {name}: {len(tasks)} references, median of {repeats} runs each ==")
    print(f"bare iverilog+vvp     median {statistics.median(bare) * 1e3:7.1f} ms/eval")
    print(f"backend (sim only)    median {statistics.median(sandboxed) * 1e3:7.1f} ms/eval")
    print(f"backend (sim+yosys)   median {statistics.median(full) * 1e3:7.1f} ms/eval")
    q = statistics.quantiles(ratios, n=4)
    print(f"overhead vs bare      median {statistics.median(ratios):+.1%}  (p25 {q[0]:+.1%}, p75 {q[2]:+.1%})")
    sim_only = [without_synth(t) for t in tasks]
    cores = os.cpu_count() or 1
    base = throughput(sim_only, 1)
    for workers in sorted({1, cores}):
        rate = throughput(sim_only, workers) if workers > 1 else base
        print(f"throughput sim-only   {workers} worker(s): {rate:6.1f} evals/s  (x{rate / base:.2f} vs 1 worker)")
    print(f"throughput sim+yosys  {cores} worker(s): {throughput(tasks, cores, rounds=1):6.1f} evals/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rtllm", type=Path, default=RTLLM)
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    get_backend("rtl")  # fail early, naming a missing tool
    for name, tasks in load_tasks(args.rtllm, args.limit).items():
        report(name, tasks, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
