"""What the sandbox hardening costs per evaluation, per domain: today's code against an older revision
(default: the last commit before the hardening), measured alternately in the same run.

Each side runs in its own process with its own copy of the source (`git archive` of the revision), warms
up its backends on the domain's first reference, then evaluates the first --tasks references of each
domain --repeat times. Prints the median seconds per evaluation of each side and the ratio new/old.

    .venv/bin/python bench/hardening_cost.py                      # every domain, 5 tasks, 3 rounds
    .venv/bin/python bench/hardening_cost.py --domains rtl python --tasks 10 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "83b3b4d"  # main before the issue-15 hardening
DOMAINS = ("rtl", "python", "asm", "firmware", "cad", "gpu")

# Runs in a child process whose sys.path starts with one side's source: prints one JSON line of timings.
WORKER = """
import importlib, json, sys, time
try:  # today's layout, else the one before the redesign (the baseline's)
    get_backend = importlib.import_module("ecot.domains").get_backend
    suites = importlib.import_module("ecot.tasks.suite")
except ImportError:  # redesign: keep old module names
    get_backend = importlib.import_module("ecot.backends").get_backend
    suites = importlib.import_module("ecot.suite")
bundled_suite_path, load_suite = suites.bundled_suite_path, suites.load_suite
domain, count, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tasks = [t for t in load_suite(bundled_suite_path(domain)) if t.reference][:count]
backend = get_backend(domain)
backend.run(tasks[0], tasks[0].reference)  # warm: sandboxes, interpreters, reference caches
times, labels = [], []
for _ in range(repeat):
    for task in tasks:
        start = time.perf_counter()
        outcome = backend.run(task, task.reference)
        times.append(time.perf_counter() - start)
        labels.append(outcome.label)
print(json.dumps({"times": times, "labels": labels}))
"""


def source_of(revision: str, into: Path) -> Path:
    """The src/ folder of a revision, unpacked into a temporary folder."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def measure(src: Path, domain: str, tasks: int, repeat: int) -> dict[str, list]:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(Path.home())}
    proc = subprocess.run([sys.executable, "-c", WORKER, domain, str(tasks), str(repeat)], env=env, capture_output=True,
                          text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"{domain} with {src}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=BASELINE, help=f"the revision to compare with (default {BASELINE})")
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS), choices=DOMAINS)
    parser.add_argument("--tasks", type=int, default=5, help="references per domain (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating old/new rounds (default 3)")
    parser.add_argument("--repeat", type=int, default=2, help="evaluations of each task per round (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ecot-bench-") as scratch:
        Path(scratch).chmod(0o755)  # the sandbox's unprivileged user imports the old source from here
        old_src, new_src = source_of(args.baseline, Path(scratch)), ROOT / "src"
        print(f"{'domain':<10} {'old s/eval':>11} {'new s/eval':>11} {'new/old':>8}  (medians of {args.rounds} rounds)")
        for domain in args.domains:
            old: list[float] = []
            new: list[float] = []
            for _ in range(args.rounds):
                for side, src in ((old, old_src), (new, new_src)):
                    result = measure(src, domain, args.tasks, args.repeat)
                    if set(result["labels"]) != {"Pass"}:
                        raise SystemExit(f"{domain}: a reference did not pass ({src}): {result['labels']}")
                    side.append(statistics.median(result["times"]))
            old_s, new_s = statistics.median(old), statistics.median(new)
            print(f"{domain:<10} {old_s:>11.4f} {new_s:>11.4f} {new_s / old_s:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
