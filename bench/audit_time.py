"""`ecot audit` on a bundled suite: its wall time against the target (the bundled rtl suite in under 5
minutes) and against a baseline measured in the same run, `ecot eval` of the same suite (each reference
judged once), alternating the two.

It prints, per command, the median wall time; the audit's evaluations (reference runs plus mutants,
read from its JSON), their rate, the ratio audit / eval, the machine's load at the start and the end,
and whether the audit met the target.
Usage: python bench/audit_time.py [--domain rtl] [--repeats 1] [--workers 2] [--mutants 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 300.0


def timed(argv: list[str]) -> float:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "ecot", *argv], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"ecot {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", default="rtl")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--mutants", type=int, default=20)
    args = parser.parse_args()
    load_start = os.getloadavg()
    times: dict[str, list[float]] = {"eval": [], "audit": []}
    evaluations = 0
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "audit.json"
        for _ in range(args.repeats):
            times["eval"].append(timed(["eval", "--domain", args.domain, "--quiet", "--workers", str(args.workers)]))
            times["audit"].append(timed(["audit", args.domain, "--mutants", str(args.mutants), "--workers", str(args.workers),
                                         "--json", str(report)]))
        found = json.loads(report.read_text())
        evaluations = sum(len(t["reference"]["labels"]) + len(t["mutants"]) for t in found["tasks"] if t.get("reference"))
        tasks = len(found["tasks"])
    eval_s, audit_s = statistics.median(times["eval"]), statistics.median(times["audit"])
    print(f"{args.domain}: {tasks} tasks, {args.workers} workers, {os.cpu_count()} cores, load {load_start[0]:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"  ecot eval  (each reference once)       median {eval_s:7.1f} s over {args.repeats} runs")
    print(f"  ecot audit ({args.mutants} mutants, 3 runs each)  median {audit_s:7.1f} s: {evaluations} evaluations, "
          f"{evaluations / audit_s:.1f} per second")
    print(f"  ratio audit / eval: {audit_s / eval_s:.1f}x; target {TARGET_S:.0f} s: {'met' if audit_s < TARGET_S else 'MISSED'}")


if __name__ == "__main__":
    main()
