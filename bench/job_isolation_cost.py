"""What a job's isolation costs when the job itself costs nothing: the time per trivial job in a served
sandbox (`/bin/true` through the supervisor) and in a warm interpreter (`pass` in a fork), today's code
against an older revision (default: main before each job got a fresh IPC namespace, no network and no
keyrings), alternating in the same run. The worst case of bench/hardening_cost.py: every millisecond
added per job shows here undiluted by the work of a real evaluation.

    .venv/bin/python bench/job_isolation_cost.py                  # 5 rounds of 200 jobs per kind
    .venv/bin/python bench/job_isolation_cost.py --rounds 9 --jobs 500
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from hardening_cost import ROOT, source_of

BASELINE = "e5eb40b"  # main before issue 26 (kernel objects outliving a job)

# Runs in a child process whose sys.path starts with one side's source: prints the median per kind.
WORKER = """
import json, statistics, sys, time
from ecot import sandbox
from ecot.core.task import Limits
from ecot.sandbox.warm import WarmPython
limits = Limits(wall_s=10, cpu_s=10, memory_mb=512, output_kb=256, file_mb=64, procs=16, disk_mb=32)
warm = WarmPython(("json",))
def served(work):
    sandbox.run(["/bin/true"], work, limits)
def forked(work):
    warm.run(work, "pass", limits)
medians = {}
for name, job in (("served", served), ("warm", forked)):
    times = []
    for index in range(int(sys.argv[1]) + 5):  # the first five start the sandbox and warm it up
        with sandbox.workdir() as work:
            start = time.perf_counter()
            job(work)
            times.append(time.perf_counter() - start)
    medians[name] = statistics.median(times[5:])
warm.close()
print(json.dumps(medians))
"""


def measure(src: Path, jobs: int) -> dict[str, float]:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(Path.home())}
    proc = subprocess.run([sys.executable, "-c", WORKER, str(jobs)], env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{src}: {proc.stderr[-2000:]}")
    medians: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=BASELINE, help=f"the revision to compare with (default {BASELINE})")
    parser.add_argument("--rounds", type=int, default=5, help="alternating old/new rounds (default 5)")
    parser.add_argument("--jobs", type=int, default=200, help="jobs of each kind per round (default 200)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ecot-bench-") as scratch:
        Path(scratch).chmod(0o755)  # the sandbox's unprivileged user imports the old source from here
        old_src, new_src = source_of(args.baseline, Path(scratch)), ROOT / "src"
        old: dict[str, list[float]] = {"served": [], "warm": []}
        new: dict[str, list[float]] = {"served": [], "warm": []}
        for _ in range(args.rounds):
            for side, src in ((old, old_src), (new, new_src)):
                for kind, median in measure(src, args.jobs).items():
                    side[kind].append(median)
        print(f"{'job':<8} {'old ms/job':>11} {'new ms/job':>11} {'new/old':>8}  (medians of {args.rounds} rounds)")
        for kind in old:
            old_ms, new_ms = 1000 * statistics.median(old[kind]), 1000 * statistics.median(new[kind])
            print(f"{kind:<8} {old_ms:>11.3f} {new_ms:>11.3f} {new_ms / old_ms:>8.3f}")


if __name__ == "__main__":
    main()
