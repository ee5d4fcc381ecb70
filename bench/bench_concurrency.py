"""`ecot bench run` with 64 samples in flight against a real OpenAI-compatible server of fixed latency.

Starts `ecot serve --mode replay --latency-ms L` answering every task with its reference, and runs
`ecot bench run --samples N --max-in-flight 64` in this process over T tasks (T x N = 64 by default).
Single mode asks one question per sample, so every sample's answer can be in flight at once:
    ideal = latency + total backend time / workers
(one wave of requests, then the judging spread over the workers). Two ways of asking are measured:
`n` (one request per task for its N samples, the default) and one request per sample (native_n=false,
64 requests at once). The reference check is left out (--no-reference-check): it is not per sample.
A first, untimed run pays this process's one-time imports.
Usage: python bench/bench_concurrency.py [--latency-ms 2000] [--tasks 16] [--samples 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ecot.cli.main import main as ecot
from ecot.executors.local import default_workers
from ecot.serve.server import ServerProcess
from ecot.tasks.replay import fenced
from ecot.tasks.suite import bundled_suite_path, load_suite


def write_replay(path: Path, tasks: int) -> None:
    with path.open("w") as handle:
        for task in load_suite(bundled_suite_path("rtl"))[:tasks]:
            handle.write(json.dumps({"task_id": task.id, "content": fenced(task, task.reference or "", "reference")}) + "\n")


def one_run(url: str, folder: Path, args: argparse.Namespace, workers: int, per_sample: bool) -> dict[str, float]:
    store = folder / f"run-{time.monotonic_ns()}.db"
    command = ["bench", "run", "--domain", "rtl", "--limit", str(args.tasks), "--samples", str(args.samples),
               "--generator", "openai", "--base-url", url, "--model", "replay", "--gen-opt", "api_key=EMPTY",
               "--max-in-flight", "64", "--workers", str(workers), "--no-reference-check", "--store", str(store),
               "--progress-every", "0", *(["--gen-opt", "native_n=false"] if per_sample else [])]
    start = time.perf_counter()
    if ecot(command) != 0:
        raise SystemExit("ecot bench run failed")
    wall = time.perf_counter() - start
    with sqlite3.connect(store) as db:
        samples, backend = db.execute("SELECT COUNT(*), SUM(wall_s) FROM turns").fetchone()
    return {"samples": samples, "wall_s": wall, "backend_s": backend}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=int, default=2000)
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    workers = default_workers()
    latency = args.latency_ms / 1000
    results: dict[str, list[float]] = {"n": [], "per-sample": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_replay(folder / "replay.jsonl", args.tasks)
        serve = ["--mode", "replay", "--replay", str(folder / "replay.jsonl"), "--latency-ms", str(args.latency_ms),
                 "--model-name", "replay", "--quiet"]
        with ServerProcess(serve) as server:
            one_run(server.url, folder, args, workers, per_sample=False)  # untimed: imports and caches of this process
            for _ in range(args.repeats):
                for name, ratios in results.items():
                    run = one_run(server.url, folder, args, workers, per_sample=name == "per-sample")
                    ideal = latency + run["backend_s"] / workers
                    ratios.append(run["wall_s"] / ideal)
                    print(json.dumps({"requests": name, **{k: round(v, 3) for k, v in run.items()}, "ideal_s": round(ideal, 3)}))
    total = args.tasks * args.samples
    print(f"\n{total} samples in flight, {workers} backend workers, latency {args.latency_ms} ms, {args.repeats} runs each")
    for name, ratios in results.items():
        print(f"wall / ideal ({name:10s})  median {statistics.median(ratios):.3f}  (target <= 1.25; runs: "
              f"{[round(r, 3) for r in ratios]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
