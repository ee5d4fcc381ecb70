"""Compiling and simulating one design against a task's testbench (Icarus iverilog + vvp).

The testbench reaches the compiler through a named pipe (readable once) and the compiled program
reaches vvp the same way, with /proc absent, so a design cannot read the secret verdict tag. Bundle
modules (the testbench's, `hidden_modules`) and the data files the testbench reads (`hidden_files`)
get per-evaluation names, so a design can neither instantiate the former nor open the latter; every
diagnostic names them as the task does.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import secrets
import shutil
import signal
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ecot import sandbox
from ecot.core.outcome import (
    PASS,
    RESOURCE_LIMIT,
    TIMEOUT,
    Outcome,
    infra_error,
    truncate_log,
)
from ecot.core.task import Task
from ecot.domains.budget import CpuBudget
from ecot.domains.rtl import logs
from ecot.domains.rtl.domain import RtlLabel
from ecot.domains.rtl.options import RtlOptions
from ecot.sandbox.isolation import BASE_PATH

SYNTAX_ERROR = RtlLabel.SYNTAX_ERROR.value
ELABORATION_ERROR = RtlLabel.ELABORATION_ERROR.value
SIMULATION_MISMATCH = RtlLabel.SIMULATION_MISMATCH.value

TESTBENCH_NAMES = ("testbench.sv", "testbench.v", "tb.sv", "tb.v")
SOURCE_SUFFIXES = (".v", ".sv", ".vh", ".svh")
MAX_PREPROCESSED = 8 * 1024 * 1024


@dataclass(frozen=True)
class SimRun:
    """What one simulation showed: the testbench's verdict and how the run ended."""

    outcome: Outcome
    finished: bool = False  # vvp loaded the program and ran until it stopped by itself
    ended_by_testbench: bool = False  # the testbench's own $finish/$stop ended it
    returncode: int | None = None
    preprocessed: str | None = None  # the design as the compiler read it (iverilog -E), when asked for
    toolchain_limit: str | None = None  # the compiler's "sorry:" on a file of the task's own, if it gave one
    cpu_s: float | None = None  # the simulator's CPU time, from the kernel's accounting
    after: sandbox.ExecResult | None = None  # the step run after a passing simulation, when it ran


@dataclass
class _Bundle:
    """The files of one evaluation: read-once sources for the compiler, plain files, and the map
    from every per-evaluation name back to the name the task uses."""

    feeds: dict[str, bytes] = field(default_factory=dict)
    plain: dict[str, str] = field(default_factory=dict)
    back: dict[str, str] = field(default_factory=dict)
    testbench: str = ""


def simulate(task: Task, options: RtlOptions, candidate: str, work: Path, preprocess: bool = False,
             budget: CpuBudget | None = None, after_pass: sandbox.Step | None = None) -> SimRun:
    """Compile and run; with preprocess, also keep the design as the compiler's preprocessor read it,
    written before any design code runs under a name the design cannot know (for the checkers).
    budget: the simulation's own CPU limit, below the task's (expect.cpu_budget). after_pass: a step for
    the same sandbox request, run only once the testbench printed its pass line (Yosys: one request
    instead of two; it must read nothing the design could have written, see checks.yosys_step)."""
    tag = logs.new_tag()
    tb_name = testbench_name(task, options)
    design = options.design_file
    renames = _hidden_renames(options, task.files[tb_name])
    bundle = _bundle(task, options, tb_name, tag, renames)
    sandbox.write_files(work, {**bundle.plain, design: candidate})
    tb_top = options.tb_top
    top = (renames.get(tb_top) if tb_top else None) or logs.top_testbench_module(bundle.testbench)
    if top is None:
        return SimRun(infra_error(f"task {task.id}: no module found in testbench {tb_name}"))
    steps = [sandbox.Step(["iverilog", "-g2012", "-s", str(top), "-o", "c.vvp", design, *bundle.feeds], feeds=bundle.feeds)]
    kept = f"pp_{secrets.token_hex(8)}.sv"
    if preprocess:
        steps.append(sandbox.Step(["iverilog", "-g2012", "-E", "-o", kept, design]))
    steps.append(sandbox.Step(
        # -none: $dumpvars writes nothing, so a design cannot dump and read back the testbench's signals
        ["vvp", "-n", "sim.vvp", "-none", *options.plusargs],
        feed_files={"sim.vvp": "c.vvp"},
        cpu_s=budget.cpu_s if budget is not None else None,
    ))
    at = len(steps) - 1  # the simulation's step
    if after_pass is not None:
        steps.append(dataclasses.replace(after_pass, after=sandbox.Gate(tag, options.pass_pattern)))
    results = sandbox.run_steps(steps, work, task.limits, exe_link=yosys_link())
    if len(results) == 1:
        log = _apply(results[0].output, bundle.back)
        return SimRun(_compile_outcome(results[0], log, task, renames), toolchain_limit=logs.toolchain_limit(log, task.files))
    text = _read_preprocessed(work, kept) if preprocess else None
    if len(results) <= at:  # the compiler accepted the design but its preprocessor alone did not
        what = f"preprocessing {design} for the structural checks failed: {results[1].output.strip()[:300]}"
        return SimRun(Outcome(RESOURCE_LIMIT, what, truncate_log(results[1].output)))
    after = results[at + 1] if len(results) > at + 1 else None
    return dataclasses.replace(_sim_run(task, options, results[at], tag, bundle.back, budget), preprocessed=text, after=after)


@functools.cache
def yosys_link() -> str | None:
    """Yosys as the sandbox finds it, for the stand-in /proc/self/exe of the simulation's sandbox (Yosys
    finds its data through that link and runs there after a pass); None without Yosys."""
    found = shutil.which("yosys", path=BASE_PATH)
    return os.path.realpath(found) if found else None


def _read_preprocessed(work: Path, name: str) -> str | None:
    data = sandbox.read_job_file(work, name, MAX_PREPROCESSED + 1)
    return None if data is None or len(data) > MAX_PREPROCESSED else data.decode("utf-8", "replace")


def _bundle(task: Task, options: RtlOptions, tb_name: str, tag: str, renames: dict[str, str]) -> _Bundle:
    hidden = _hidden_files(task, options, tb_name)
    bundle = _Bundle(back={**{new: old for old, new in renames.items()}, **{new: old for old, new in hidden.items()}})
    for name, text in task.files.items():
        if name.endswith(SOURCE_SUFFIXES):
            text = _rename_modules(text, renames)
            for old, new in hidden.items():
                text = text.replace(f'"{old}"', f'"{new}"')
        if name == tb_name:
            bundle.testbench = text
            fed = f"tb_{secrets.token_hex(6)}.sv"
            bundle.feeds[fed] = logs.tag_testbench(text, tag).encode()
            bundle.back[fed] = tb_name
        elif name.endswith((".v", ".sv")):
            fed = f"src_{secrets.token_hex(4)}_{PurePosixPath(name).name}"
            bundle.feeds[fed] = text.encode()
            bundle.back[fed] = name
        else:
            bundle.plain[hidden.get(name, name)] = text
    return bundle


def _hidden_files(task: Task, options: RtlOptions, tb_name: str) -> dict[str, str]:
    """Data files only the testbench may read (option hidden_files; by default every bundle file
    the testbench names in a string literal, e.g. RTLLM's expected-value files) -> secret names."""
    data = [name for name in task.files if not name.endswith(SOURCE_SUFFIXES)]
    named = options.hidden_files
    if named is None:
        named = tuple(name for name in data if f'"{name}"' in task.files[tb_name])
    suffix = secrets.token_hex(6)
    return {name: str(PurePosixPath(name).with_name(f"data_{suffix}_{PurePosixPath(name).name}")) for name in named if name in data}


def _sim_run(task: Task, options: RtlOptions, result: sandbox.ExecResult, tag: str, back: dict[str, str],
             budget: CpuBudget | None = None) -> SimRun:
    shown = result.output.replace(f"{tag}{logs.END_MARK}\n", "")  # the testbench's end marker is ours, not the reader's
    log = truncate_log(_apply(logs.strip_tag(shown, tag), back))
    lines, ended = logs.split_end(logs.trusted_lines(result.output, tag))
    limit = task.limits
    if result.output_overflow:
        return SimRun(Outcome(RESOURCE_LIMIT, f"simulation output exceeded {limit.output_kb} KiB and was stopped", log))
    exhausted = _exhausted_resource(result)
    if exhausted == "cpu":
        what = budget.exceeded("simulation") if budget is not None else f"simulation used more than {limit.cpu_s:g} s of CPU time"
        return SimRun(Outcome(TIMEOUT, what, log, {"stage": "simulation"}), cpu_s=result.cpu_s)
    if exhausted:
        return SimRun(Outcome(RESOURCE_LIMIT, f"simulation exceeded its {exhausted} limit and was stopped", log))
    if result.timed_out:
        last = f" (last testbench line: {lines[-1][:160]})" if lines else ""
        what = f"simulation did not finish within {limit.wall_s:g} s{last}"
        return SimRun(Outcome(TIMEOUT, what, log, {"stage": "simulation"}))
    refused = logs.vvp_load_errors(_apply(result.stdout, back), _apply(result.stderr, back))
    if refused and not lines:
        return SimRun(Outcome(ELABORATION_ERROR, _load_diagnostic(refused), log))
    verdict = logs.judge_simulation(
        lines,
        options.pass_pattern,
        options.fail_pattern,
        options.count_pattern,
    )
    metrics: dict[str, Any] = {**verdict.metrics, "sim_s": round(result.wall_s, 4)}
    diagnostic = verdict.diagnostic
    if result.signal and not verdict.passed:
        diagnostic = f"simulator killed by signal {result.signal} (resource limit?); {diagnostic}"
    outcome = Outcome(PASS if verdict.passed else SIMULATION_MISMATCH, diagnostic, log, metrics)
    return SimRun(outcome, finished=result.signal is None, ended_by_testbench=ended, returncode=result.returncode,
                  cpu_s=result.cpu_s)


def _load_diagnostic(errors: list[str]) -> str:
    """vvp refused to load the program: name the first unavailable system task and say why."""
    first = errors[0]
    missing = re.search(r"System task/function (\$\w+)\(\) is not defined", first)
    if missing is None:
        return f"the simulator cannot load the compiled design: {first}"
    where = first.split(": ", 1)[0]
    why = " (designs cannot run host commands)" if missing.group(1) == "$system" else ""
    return f"{where}: {missing.group(1)} is not available in the simulator{why}; the design was not run"


def _exhausted_resource(result: sandbox.ExecResult) -> str | None:
    """Which limit stopped the simulator, if one did (signals of rlimits, allocation failures)."""
    sig = result.signal
    if sig == signal.SIGXCPU:
        return "cpu"
    if sig == signal.SIGXFSZ or "File size limit exceeded" in result.stderr:
        return "file size"
    if re.search(r"bad_alloc|[Oo]ut of memory|Cannot allocate memory", result.stderr):
        return "memory"
    return None


def _compile_outcome(result: sandbox.ExecResult, log: str, task: Task, renames: dict[str, str]) -> Outcome:
    """`log`: the compiler's output with the task's own names back; `renames`: the task's modules."""
    if result.timed_out:
        return Outcome(TIMEOUT, f"compilation did not finish within {task.limits.wall_s:g} s", truncate_log(log), {"stage": "compile"})
    verdict = logs.classify_compile(log, {}, renames)
    label = SYNTAX_ERROR if verdict.syntax else ELABORATION_ERROR
    return Outcome(label, verdict.diagnostic, truncate_log(log))


def testbench_name(task: Task, options: RtlOptions) -> str:
    name = options.testbench
    if name:
        if name not in task.files:
            raise ValueError(f"task {task.id}: testbench file {name!r} is not in the bundle")
        return str(name)
    for candidate in TESTBENCH_NAMES:
        if candidate in task.files:
            return candidate
    raise ValueError(f"task {task.id}: no testbench (set options.testbench or add testbench.sv)")


def _hidden_renames(options: RtlOptions, testbench: str) -> dict[str, str]:
    """Per-evaluation names for the testbench's modules and the task's hidden ones: a design cannot
    instantiate them or reach into the testbench with hierarchical or upward references."""
    suffix = secrets.token_hex(4)
    names = [*logs.declared_modules(testbench), *options.hidden_modules]
    return {name: f"{name}_{suffix}" for name in dict.fromkeys(names)}


def _rename_modules(text: str, renames: dict[str, str]) -> str:
    for old, new in renames.items():
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def _apply(text: str, back: dict[str, str]) -> str:
    """Per-evaluation names -> the task's names, longest first (a renamed module inside a file name)."""
    for new in sorted(back, key=len, reverse=True):
        text = text.replace(new, back[new])
    return text
