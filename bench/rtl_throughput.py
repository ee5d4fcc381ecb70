"""RTL backend benchmark: evaluations per second and overhead against the bare tools, in one run.

For every reference of the bundled RTL suite (and of RTLLM, when ../shared/data/rtllm exists) it times
  bare:    the same tool commands run directly (iverilog -g2012, vvp, and for designs with dotted
           names the design-alone elaboration), no sandbox, no harness
  bare+yosys: the same plus the structural checks' Yosys script run directly on the design
  backend: RtlBackend.run with synth="off" (the same two tools, through the sandbox and verdict channel)
  full:    RtlBackend.run with the task's default checks (adds Yosys), one step after the other
alternating the four per repeat, and prints medians, the median per-evaluation ratios (backend / bare,
full / bare+yosys), and throughput on 1..N worker processes. The task cache is filled before timing
(what a warm run reads), and the backend runs nothing beside the simulation (Backend.overlap off), as
in a pool with a worker per core.
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
from ecot.domains.rtl.checks import yosys_script
from ecot.domains.rtl.logs import may_reach_outside, top_testbench_module
from ecot.domains.rtl.options import RtlOptions
from ecot.domains.rtl.sim import testbench_name
from ecot.sandbox.isolation import work_root
from ecot.tasks.suite import bundled_suite_path, load_suite

RTLLM = Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"


def bare_once(task: Task, yosys: bool = False) -> float:
    """The iverilog + vvp commands the backend runs (and its Yosys script), straight, in a scratch folder."""
    options = RtlOptions.of_task(task)
    tb_name, design = testbench_name(task, options), options.design_file
    with tempfile.TemporaryDirectory(dir=work_root()) as tmp:  # the file system the backend's jobs use
        work = Path(tmp)
        sources = [design]
        (work / design).write_text(task.reference or "")
        for name, text in task.files.items():
            (work / name).write_text(text)
            if name.endswith((".v", ".sv")):
                sources.append(name)
        top = top_testbench_module(task.files[tb_name]) or "tb"
        start = time.perf_counter()
        subprocess.run(["iverilog", "-g2012", "-s", top, "-o", "sim.vvp", *sources], cwd=work, capture_output=True, check=True)
        subprocess.run(["vvp", "-n", "sim.vvp", "-none"], cwd=work, capture_output=True, timeout=60)
        if may_reach_outside(task.reference or ""):  # the backend then elaborates the design alone too
            alone = ["iverilog", "-g2012", "-s", str(task.option("top")), "-t", "null", "-o", "alone.out", design]
            subprocess.run(alone, cwd=work, capture_output=True)
        if yosys:  # the backend's own script, on the design as written
            subprocess.run(["yosys", "-Q", "-p", yosys_script(options)], cwd=work, capture_output=True)
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
    # cocotb tasks run Python tests, not a testbench the bare commands could run
    suites = {"bundled": [t for t in load_suite(bundled_suite_path("rtl")) if t.option("testbench_kind") != "cocotb"]}
    if rtllm and rtllm.exists():
        from ecot.importers.rtllm import import_rtllm

        candidates = import_rtllm(rtllm)
        suites["rtllm"] = [t for t in candidates if _passes(t)]
    return {k: v[:limit] if limit else v for k, v in suites.items()}


def _passes(task: Task) -> bool:
    return get_backend("rtl").run(task, task.reference or "").passed


def bare_with_yosys(task: Task) -> float:
    return bare_once(task, yosys=True)


def throughput(tasks: list[Task], workers: int, rounds: int = 3) -> float:
    work = [t for t in tasks for _ in range(rounds)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(backend_once, tasks[:workers]))  # warm the workers
        start = time.perf_counter()
        list(pool.map(backend_once, work, chunksize=1))
        return len(work) / (time.perf_counter() - start)


def report(name: str, tasks: list[Task], repeats: int) -> None:
    sides = {"bare": (bare_once, tasks), "bare+yosys": (bare_with_yosys, tasks),
             "backend": (backend_once, [without_synth(t) for t in tasks]), "full": (backend_once, tasks)}
    for fn, chosen in sides.values():  # warm: sandboxes, reference profiles in the task cache
        for task in chosen:
            fn(task)
    times: dict[str, list[list[float]]] = {side: [[] for _ in tasks] for side in sides}
    for _ in range(repeats):
        for side, (fn, chosen) in sides.items():
            for index, task in enumerate(chosen):
                times[side][index].append(fn(task))
    med = {side: [statistics.median(per_task) for per_task in rows] for side, rows in times.items()}
    print(f"\n== {name}: {len(tasks)} references, median of {repeats} alternating runs each ==")
    for side, label in (("bare", "bare iverilog+vvp"), ("bare+yosys", "bare sim+yosys"), ("backend", "backend (sim only)"),
                        ("full", "backend (sim+yosys)")):
        print(f"{label:22} median {statistics.median(med[side]) * 1e3:7.1f} ms/eval")
    for mine, theirs in (("backend", "bare"), ("full", "bare+yosys")):
        ratios = [m / b for m, b in zip(med[mine], med[theirs])]
        q = statistics.quantiles(ratios, n=4)
        print(f"{mine} / {theirs:12} median {statistics.median(ratios):.2f}x  (p25 {q[0]:.2f}x, p75 {q[2]:.2f}x)")
    sim_only = [without_synth(t) for t in tasks]
    cores = os.cpu_count() or 1
    base = throughput(sim_only, 1)
    for workers in sorted({1, cores}):
        rate = throughput(sim_only, workers) if workers > 1 else base
        print(f"throughput sim-only   {workers} worker(s): {rate:6.1f} evals/s  (x{rate / base:.2f} vs 1 worker)")
    full_one = throughput(tasks, 1, rounds=1)
    for workers in sorted({1, cores}):
        rate = throughput(tasks, workers, rounds=1) if workers > 1 else full_one
        print(f"throughput sim+yosys  {workers} worker(s): {rate:6.1f} evals/s  (x{rate / full_one:.2f} vs 1 worker)")


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
