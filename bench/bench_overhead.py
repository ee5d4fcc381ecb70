"""What `ecot bench` costs per sample beyond the backend's own time, measured in one run.

Runs `ecot bench run` in this process with the replay generator (its answers cost nothing) on the
bundled RTL suite, one sample at a time on one backend worker (--max-in-flight 1 --workers 1), so the
samples follow each other. From the store's timestamps, per sample:
    cycle     = next sample's start - this sample's start (the last: its own finish - start)
    harness   = cycle - the backend's own wall_s (the loop, the executor round trip, the store's commits)
and per run the scoring time (`ecot bench report`'s computation: load the run, every metric, the
bootstrap) shared over the samples. Reported: median harness + scoring per sample / median backend
time (target <= 5%), and apart from it the one-time start (the first sample's worker start-up).
Answers are the tasks' references, so every sample runs the whole pipeline (simulation, Yosys).
Usage: python bench/bench_overhead.py [--tasks 20] [--samples 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from ecot.bench import report
from ecot.bench.results import load_run
from ecot.cli.main import main as ecot
from ecot.store import TrajectoryStore
from ecot.tasks.replay import fenced
from ecot.tasks.suite import bundled_suite_path, load_suite


def write_replay(path: Path, tasks: int) -> None:
    with path.open("w") as handle:
        for task in load_suite(bundled_suite_path("rtl"))[:tasks]:
            handle.write(json.dumps({"task_id": task.id, "content": fenced(task, task.reference or "", "reference")}) + "\n")


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def one_run(folder: Path, tasks: int, samples: int) -> dict[str, float]:
    store = folder / f"run-{time.monotonic_ns()}.db"
    args = ["bench", "run", "--domain", "rtl", "--limit", str(tasks), "--samples", str(samples), "--generator", "replay",
            "--gen-opt", f"path={folder / 'replay.jsonl'}", "--max-in-flight", "1", "--workers", "1",
            "--no-reference-check", "--store", str(store), "--progress-every", "0"]
    if ecot(args) != 0:
        raise SystemExit("ecot bench run failed")
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT t.started_at, t.finished_at, u.wall_s, u.label FROM trajectories t "
                          "JOIN turns u ON u.trajectory_id = t.id ORDER BY t.started_at, t.id").fetchall()
    if {row[3] for row in rows} != {"Pass"}:
        raise SystemExit(f"expected every reference to pass, got {sorted({row[3] for row in rows})}")
    starts = [seconds(row[0]) for row in rows] + [seconds(rows[-1][1])]
    harness = [starts[i + 1] - starts[i] - rows[i][2] for i in range(len(rows))]
    start = time.perf_counter()
    with TrajectoryStore(store) as opened:
        report.build(load_run(opened, 1))
    scoring = (time.perf_counter() - start) / len(rows)
    return {"samples": len(rows), "backend_ms": 1000 * statistics.median(r[2] for r in rows),
            "harness_ms": 1000 * statistics.median(harness[1:]), "first_sample_harness_ms": 1000 * harness[0],
            "scoring_ms": 1000 * scoring}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_replay(folder / "replay.jsonl", args.tasks)
        runs = [one_run(folder, args.tasks, args.samples) for _ in range(args.repeats)]
    for run in runs:
        print(json.dumps({key: round(value, 3) for key, value in run.items()}))
    ratios = [(r["harness_ms"] + r["scoring_ms"]) / r["backend_ms"] for r in runs]
    print(f"\n{runs[0]['samples']:.0f} samples per run (rtl references, one at a time, 1 worker), {args.repeats} runs")
    print(f"backend time per sample      median {statistics.median(r['backend_ms'] for r in runs):.1f} ms")
    print(f"harness per sample           median {statistics.median(r['harness_ms'] for r in runs):.2f} ms")
    print(f"scoring per sample           median {statistics.median(r['scoring_ms'] for r in runs):.3f} ms")
    print(f"one-time start (1st sample)  median {statistics.median(r['first_sample_harness_ms'] for r in runs):.0f} ms")
    print(f"(harness + scoring) / backend  median {100 * statistics.median(ratios):.2f}%  (target <= 5%; runs: "
          f"{[round(100 * r, 2) for r in ratios]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
