"""Concurrency of the main job against a real OpenAI-compatible server with a fixed latency.

Starts `ecot serve --mode replay --latency-ms L` (answers: a broken first attempt, then the reference,
so every trajectory takes two generation turns and two real evaluations), runs `ecot synth` in this
process with 64 trajectories in flight, and compares its wall time with the ideal
    waves x latency + total backend time / workers
(waves = turns per trajectory, all trajectories advancing together). Also reports the engine's own
CPU time per turn (this process only: event loop, HTTP client, store; backend work runs in workers).
Usage: python bench/synth_concurrency.py [--latency-ms 500] [--tasks 32] [--samples 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ecot.cli.main import main as ecot
from ecot.executors.local import default_workers
from ecot.serve.server import ServerProcess
from ecot.tasks.replay import write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_run(url: str, tasks: int, samples: int, workers: int, folder: Path) -> dict[str, float]:
    store = folder / f"run-{time.monotonic_ns()}.db"
    args = [
        "synth", "--domain", "rtl", "--limit", str(tasks), "--samples", str(samples), "--generator", "openai",
        "--base-url", url, "--model", "replay", "--gen-opt", "api_key=EMPTY", "--max-in-flight", "64",
        "--workers", str(workers), "--store", str(store), "--no-export",
    ]  # fmt: skip
    cpu, start = cpu_self(), time.perf_counter()
    if ecot(args) != 0:
        raise SystemExit("ecot synth failed")
    wall, cpu = time.perf_counter() - start, cpu_self() - cpu
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT trajectory_id, wall_s FROM turns").fetchall()
    per_trajectory: dict[int, int] = {}
    for trajectory, _ in rows:
        per_trajectory[trajectory] = per_trajectory.get(trajectory, 0) + 1
    return {
        "wall_s": wall,
        "turns": len(rows),
        "waves": max(per_trajectory.values()),
        "backend_s": sum(w for _, w in rows),
        "engine_cpu_s": cpu,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    workers = default_workers()
    tasks = load_suite(bundled_suite_path("rtl"))[: args.tasks]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_replay(tasks, folder / "replay.jsonl")
        serve = ["--mode", "replay", "--replay", str(folder / "replay.jsonl"), "--latency-ms", str(args.latency_ms),
                 "--model-name", "replay", "--quiet"]
        with ServerProcess(serve) as server:
            runs = [one_run(server.url, args.tasks, args.samples, workers, folder) for _ in range(args.repeats)]
    latency = args.latency_ms / 1000
    ratios, per_turn = [], []
    for run in runs:
        ideal = run["waves"] * latency + run["backend_s"] / workers
        ratios.append(run["wall_s"] / ideal)
        per_turn.append(run["engine_cpu_s"] / run["turns"] * 1000)
        print(json.dumps({**{k: round(v, 3) for k, v in run.items()}, "ideal_s": round(ideal, 3)}))
    trajectories = args.tasks * args.samples
    print(f"\n{trajectories} trajectories, 64 in flight, {workers} backend workers, latency {args.latency_ms} ms")
    print(f"wall / ideal          median {statistics.median(ratios):.3f}  (target <= 1.25; runs: {[round(r, 3) for r in ratios]})")
    print(f"engine CPU per turn   median {statistics.median(per_turn):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
