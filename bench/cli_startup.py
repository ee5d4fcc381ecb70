"""What a one-shot `ecot check` costs next to the bare toolchain, and what `ecot --help` costs, in one run.

A small bundled RTL task (default rtl/add8_carry): its reference is written to a file and judged as a
candidate. Alternating, `--repeats` times each (after one warm-up of each, which also fills the
toolchain version cache):
    bare   iverilog -g2012 -s <tb> -o x <design> <testbench> && vvp -n x   (what the backend runs, unsandboxed)
    check  a fresh `python -m ecot check <task> <design> --json`            (the whole process)
    help   a fresh `python -m ecot --help`
    python a fresh `python -c pass`                                         (the interpreter's own start)
    import a fresh `python -c "import <the modules ecot check loads>"`      (start + imports, no work)
Printed: the medians, check / bare (target <= 3) and help in ms (target <= 150), and where a check's time
goes (interpreter, imports, the backend's own wall_s, the rest; then the stages inside the backend, timed
in as many more processes). With --cold, checks with an empty
version cache (median of a third as many runs) show what the cache saves.
Usage: python bench/cli_startup.py [--task rtl/add8_carry] [--repeats 15] [--cold] [--json]
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
from typing import Callable

from ecot.cli.common import find_task
from ecot.core.task import Task
from ecot.domains.rtl import logs as rtl_logs
from ecot.domains.rtl import sim as rtl_sim

CHECK_IMPORTS = "import ecot.cli.main, ecot.cli.check, ecot.cli.common, ecot.domains.rtl.backend"
# Run in a fresh interpreter: `ecot check` with the stages of a check timed by wrapping the functions that
# do them; prints {stage: seconds}. Stages nest (a sandbox start happens inside a simulation).
STAGES = """
import contextlib, io, json, sys, time
from ecot.domains.rtl import checks, expect, sim
from ecot.domains import versions
from ecot.sandbox import runner, server
spent = {}
def timing(owner, attribute, stage):
    inner = getattr(owner, attribute)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[stage] = spent.get(stage, 0.0) + time.perf_counter() - start
    setattr(owner, attribute, timed)
timing(server.SandboxServer, "_start", "sandbox_start")
timing(server.SandboxServer, "run", "sandbox_round_trips")
timing(sim, "simulate", "simulations")
timing(expect, "_measure", "reference_profile")
timing(checks, "structural", "yosys")
timing(checks, "standalone", "standalone_elaboration")
timing(versions, "probe", "version_probes")
result = runner._result
def counted(raw, isolated):
    spent["tools_own"] = spent.get("tools_own", 0.0) + raw["wall_s"]
    return result(raw, isolated)
runner._result = counted
start = time.perf_counter()
from ecot.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
spent["in_process"] = time.perf_counter() - start
print(json.dumps(spent))
"""


def write_design(task: Task, folder: Path) -> tuple[Path, Path, str]:
    """The reference and the testbench as files, and the testbench's top module."""
    design = folder / str(task.option("design_file", "design.sv"))
    design.write_text(task.reference or "", encoding="utf-8")
    name = rtl_sim.testbench_name(task)
    testbench = folder / Path(name).name
    testbench.write_text(task.files[name], encoding="utf-8")
    top = task.option("tb_top", None) or rtl_logs.top_testbench_module(task.files[name])
    if top is None:
        raise SystemExit(f"no testbench module found in {name}")
    return design, testbench, str(top)


def timed(command: Callable[[], None]) -> float:
    start = time.perf_counter()
    command()
    return time.perf_counter() - start


def run_quiet(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return proc.stdout


def bare_run(design: Path, testbench: Path, top: str, folder: Path) -> Callable[[], None]:
    def run() -> None:
        run_quiet(["iverilog", "-g2012", "-s", top, "-o", "x.vvp", str(design), str(testbench)], cwd=folder)
        run_quiet(["vvp", "-n", "x.vvp", "-none"], cwd=folder)

    return run


class Check:
    """Whole-process `ecot check`; keeps the backend's own wall_s of each run."""

    def __init__(self, task_id: str, design: Path, env: dict[str, str]) -> None:
        self.argv = [sys.executable, "-m", "ecot", "check", task_id, str(design), "--json"]
        self.env = env
        self.backend_s: list[float] = []

    def __call__(self) -> None:
        outcome = json.loads(run_quiet(self.argv, self.env))
        if outcome["label"] != "Pass":
            raise SystemExit(f"the reference did not pass: {outcome['label']}: {outcome['diagnostic']}")
        self.backend_s.append(float(outcome["wall_s"]))


def cold_check(check: Check, folder: Path, repeats: int) -> float:
    """Median seconds of a check with an empty version cache (each run gets a new one)."""
    def one(index: int) -> float:
        check.env = {**check.env, "ECOT_CACHE": str(folder / f"cold-cache-{index}")}
        return timed(check)

    warm_env = check.env
    try:
        return statistics.median(one(index) for index in range(max(3, repeats // 3)))
    finally:
        check.env = warm_env


def python_run(code: str, env: dict[str, str]) -> Callable[[], None]:
    return lambda: run_quiet([sys.executable, "-c", code], env)


def stages(argv: list[str], env: dict[str, str], repeats: int) -> dict[str, float]:
    """Median seconds per stage of a check over `repeats` fresh processes (0 where a stage did not run)."""
    runs = [json.loads(run_quiet([sys.executable, "-c", STAGES, *argv], env)) for _ in range(repeats)]
    names = sorted({name for one in runs for name in one})
    return {f"stage_{name}_ms": statistics.median(one.get(name, 0.0) for one in runs) * 1000 for name in names}


def measure(task_id: str, repeats: int, cold: bool) -> dict[str, float]:
    task = find_task(task_id)
    with tempfile.TemporaryDirectory(prefix="ecot-cli-startup-") as tmp:
        folder = Path(tmp)
        design, testbench, top = write_design(task, folder)
        env = {**os.environ, "ECOT_CACHE": str(folder / "cache")}
        check = Check(task.id, design, env)
        commands: dict[str, Callable[[], None]] = {
            "bare": bare_run(design, testbench, top, folder),
            "check": check,
            "help": lambda: run_quiet([sys.executable, "-m", "ecot", "--help"], env),
            "python": python_run("pass", env),
            "import": python_run(CHECK_IMPORTS, env),
        }
        cold_s = cold_check(check, folder, repeats) if cold else None
        for command in commands.values():
            command()  # warm-up: page cache, version cache
        check.backend_s.clear()
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeats):  # alternating, so a busy moment of the machine hits every command alike
            for name, command in commands.items():
                times[name].append(timed(command))
        staged = stages(check.argv[3:], env, repeats)
    result = {f"{name}_ms": statistics.median(values) * 1000 for name, values in times.items()}
    result["backend_ms"] = statistics.median(check.backend_s) * 1000
    result["check_over_bare"] = result["check_ms"] / result["bare_ms"]
    result.update(staged)
    if cold_s is not None:
        result["check_cold_cache_ms"] = cold_s * 1000
    return result


def report(task_id: str, repeats: int, result: dict[str, float]) -> str:
    imports = result["import_ms"] - result["python_ms"]
    rest = result["check_ms"] - result["import_ms"] - result["backend_ms"]
    lines = [
        f"task {task_id}, medians of {repeats} alternating runs",
        f"bare iverilog + vvp      {result['bare_ms']:8.1f} ms",
        f"ecot check (process)     {result['check_ms']:8.1f} ms   = {result['check_over_bare']:.1f}x bare (target <= 3x)",
        f"ecot --help (process)    {result['help_ms']:8.1f} ms   (target <= 150 ms)",
        "where a check's time goes:",
        f"  interpreter start      {result['python_ms']:8.1f} ms",
        f"  imports                {imports:8.1f} ms",
        f"  backend run (wall_s)   {result['backend_ms']:8.1f} ms   (sandbox start, simulation, reference profile, Yosys)",
        f"  the rest               {rest:8.1f} ms   (task loading, output)",
        "stages of a check (medians over as many more processes; they nest):",
        *[f"  {name[6:-3]:<24} {value:6.1f} ms" for name, value in result.items() if name.startswith("stage_")],
    ]
    if "check_cold_cache_ms" in result:
        lines.append(f"ecot check, empty version cache {result['check_cold_cache_ms']:6.1f} ms   (every toolchain probed)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="rtl/add8_carry", help="a bundled RTL task id")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--cold", action="store_true", help="also time checks with an empty version cache")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    result = measure(args.task, args.repeats, args.cold)
    print(json.dumps(result, indent=2) if args.json else report(args.task, args.repeats, result))


if __name__ == "__main__":
    main()
