"""What a one-shot `ecot check` costs next to the bare toolchain, and what `ecot --help` costs, in one run.

A small bundled RTL task (default rtl/add8_carry): its reference is written to a file and judged as a
candidate (each check gets a file of its own, the reference plus a comment naming the run, so no cache
of any kind can answer for it). Alternating, `--repeats` times each (after one warm-up of each, which
also fills the toolchain version cache):
    bare   iverilog -g2012 -s <tb> -o x <design> <testbench> && vvp -n x   (what the backend runs, unsandboxed)
    check  a fresh `python -m ecot check <task> <design> --json`, ECOT_CHECKER=off (the whole process)
    resident  the same command with a resident checker running (`ecot checker start`, socket in a temporary folder)
    help   a fresh `python -m ecot --help`
    python a fresh `python -c pass`                                         (the interpreter's own start)
    import a fresh `python -c "import <the modules ecot check loads>"`      (start + imports, no work)
    pydantic  a fresh interpreter that imports pydantic and defines one model
    stages a check in a fresh interpreter, its stages timed (they nest: a sandbox start is inside a simulation)
Printed: the medians, resident / bare (target <= 3), check / bare and help in ms (target <= 150), and where a
one-shot check's time goes (interpreter, imports, the backend's own wall_s, the rest; the stages inside the backend). With --cold,
a check with an empty version cache joins the rotation and shows what the cache saves.
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
from collections.abc import Callable
from pathlib import Path

from ecot.cli.common import find_task
from ecot.core.task import Task
from ecot.domains.rtl import logs as rtl_logs
from ecot.domains.rtl import sim as rtl_sim
from ecot.domains.rtl.options import RtlOptions

CHECK_IMPORTS = "import ecot.cli.main, ecot.cli.check, ecot.cli.common, ecot.domains.rtl.backend"
PYDANTIC = "import pydantic\nclass Model(pydantic.BaseModel):\n    x: int = pydantic.Field(default=1, gt=0)"
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
    name = rtl_sim.testbench_name(task, RtlOptions.of_task(task))
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
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return proc.stdout


def bare_run(design: Path, testbench: Path, top: str, folder: Path) -> Callable[[], None]:
    def run() -> None:
        run_quiet(["iverilog", "-g2012", "-s", top, "-o", "x.vvp", str(design), str(testbench)], cwd=folder)
        run_quiet(["vvp", "-n", "x.vvp", "-none"], cwd=folder)

    return run


class Check:
    """Whole-process `ecot check` of a new copy of the design each run; keeps the backend's own wall_s of
    each run. With `fresh_caches`, every run gets a new, empty version cache there (every toolchain is
    probed)."""

    def __init__(self, task_id: str, design: Path, env: dict[str, str], fresh_caches: Path | None = None) -> None:
        self.argv = [sys.executable, "-m", "ecot", "check", task_id, str(design), "--json"]
        self.design = design
        self.env = env
        self.fresh_caches = fresh_caches
        self.backend_s: list[float] = []
        self.runs = 0

    def __call__(self) -> None:
        env = self.env
        if self.fresh_caches is not None:
            env = {**env, "ECOT_CACHE": str(self.fresh_caches / str(len(self.backend_s)))}
        self.runs += 1
        copy = self.design.with_name(f"{self.design.stem}-{id(self)}-{self.runs}{self.design.suffix}")
        copy.write_text(f"{self.design.read_text(encoding='utf-8')}\n// run {self.runs}\n", encoding="utf-8")
        outcome = json.loads(run_quiet([*self.argv[:5], str(copy), *self.argv[6:]], env))
        copy.unlink()
        if outcome["label"] != "Pass":
            raise SystemExit(f"the reference did not pass: {outcome['label']}: {outcome['diagnostic']}")
        self.backend_s.append(float(outcome["wall_s"]))


class Stages:
    """A check in a fresh interpreter with its stages timed (STAGES); keeps {stage: seconds} per run."""

    def __init__(self, check: Check) -> None:
        self.argv = [sys.executable, "-c", STAGES, *check.argv[3:]]
        self.env = check.env
        self.runs: list[dict[str, float]] = []

    def __call__(self) -> None:
        self.runs.append(json.loads(run_quiet(self.argv, self.env)))

    def medians(self) -> dict[str, float]:
        names = sorted({name for one in self.runs for name in one})
        return {f"stage_{name}_ms": statistics.median(one.get(name, 0.0) for one in self.runs) * 1000 for name in names}


def process_run(argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    def run() -> None:
        run_quiet(argv, env)

    return run


def python_run(code: str, env: dict[str, str]) -> Callable[[], None]:
    return process_run([sys.executable, "-c", code], env)


def measure(task_id: str, repeats: int, cold: bool) -> dict[str, float]:
    task = find_task(task_id)
    with tempfile.TemporaryDirectory(prefix="ecot-cli-startup-") as tmp:
        folder = Path(tmp)
        design, testbench, top = write_design(task, folder)
        env = {**os.environ, "ECOT_CACHE": str(folder / "cache"), "ECOT_CHECKER_SOCKET": str(folder / "checker" / "checker.sock")}
        one_shot = {**env, "ECOT_CHECKER": "off"}
        check = Check(task.id, design, one_shot)
        resident = Check(task.id, design, env)
        staged = Stages(check)
        commands: dict[str, Callable[[], None]] = {
            "bare": bare_run(design, testbench, top, folder),
            "check": check,
            "resident": resident,
            "help": process_run([sys.executable, "-m", "ecot", "--help"], env),
            "python": python_run("pass", env),
            "import": python_run(CHECK_IMPORTS, env),
            "pydantic": python_run(PYDANTIC, env),
            "stages": staged,
        }
        if cold:
            commands["check_cold_cache"] = Check(task.id, design, one_shot, fresh_caches=folder / "cold")
        run_quiet([sys.executable, "-m", "ecot", "checker", "start", "--idle-minutes", "30"], env)
        try:
            for command in commands.values():
                command()  # warm-up: page cache, version cache, the resident checker's first check
            check.backend_s.clear()
            resident.backend_s.clear()
            staged.runs.clear()
            times: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(repeats):  # alternating, so a busy moment of the machine hits every command alike
                for name, command in commands.items():
                    times[name].append(timed(command))
            served = run_quiet([sys.executable, "-m", "ecot", "checker", "status"], env)
        finally:
            run_quiet([sys.executable, "-m", "ecot", "checker", "stop"], env)
    if f" {repeats + 1} checks" not in served:
        raise SystemExit(f"the resident checker did not serve every resident check: {served.strip()}")
    result = {f"{name}_ms": statistics.median(values) * 1000 for name, values in times.items() if name != "stages"}
    result["backend_ms"] = statistics.median(check.backend_s) * 1000
    result["resident_backend_ms"] = statistics.median(resident.backend_s) * 1000
    result["check_over_bare"] = result["check_ms"] / result["bare_ms"]
    result["resident_over_bare"] = result["resident_ms"] / result["bare_ms"]
    result.update(staged.medians())
    return result


def report(task_id: str, repeats: int, result: dict[str, float]) -> str:
    imports = result["import_ms"] - result["python_ms"]
    rest = result["check_ms"] - result["import_ms"] - result["backend_ms"]
    lines = [
        f"task {task_id}, medians of {repeats} alternating runs",
        f"bare iverilog + vvp      {result['bare_ms']:8.1f} ms",
        f"ecot check, resident     {result['resident_ms']:8.1f} ms   = {result['resident_over_bare']:.2f}x bare (target <= 3x)"
        f"   (backend {result['resident_backend_ms']:.1f} ms)",
        f"ecot check (one-shot)    {result['check_ms']:8.1f} ms   = {result['check_over_bare']:.1f}x bare",
        f"ecot --help (process)    {result['help_ms']:8.1f} ms   (target <= 150 ms)",
        "where a one-shot check's time goes:",
        f"  interpreter start      {result['python_ms']:8.1f} ms",
        f"  imports                {imports:8.1f} ms",
        f"  backend run (wall_s)   {result['backend_ms']:8.1f} ms   (sandbox start, simulation, reference profile, Yosys)",
        f"  the rest               {rest:8.1f} ms   (task loading, output)",
        f"(pydantic and one model alone: {result['pydantic_ms'] - result['python_ms']:.1f} ms over the interpreter start)",
        "stages of a check (they nest):",
        *[f"  {name[6:-3]:<24} {value:6.1f} ms" for name, value in result.items() if name.startswith("stage_")],
    ]
    if "check_cold_cache_ms" in result:
        lines.append(f"ecot check, empty version cache {result['check_cold_cache_ms']:6.1f} ms   (every toolchain probed each run)")
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
