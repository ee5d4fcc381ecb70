"""The checks after a passing simulation: the design on its own (Icarus), structure (Yosys), lint
(Verilator).

Yosys and Verilator read exactly the text the simulator compiled: the candidate preprocessed by
iverilog itself (so `ifdef __ICARUS__`/`SYNTHESIS`/`VERILATOR` cannot give the checkers a different
design), without comments and attributes (so `// synopsys translate_off`, `full_case`, `lint_off`,
`(* nolatches *)` or `(* blackbox *)` cannot hide code from them). A check that is switched on either
runs to its end or fails the candidate: Yosys failing to read the design, stopping early or running
out of time is never a silent skip.
"""

from __future__ import annotations

import dataclasses
import secrets
import signal
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.outcome import RESOURCE_LIMIT, TIMEOUT, Outcome, truncate_log
from ecot.core.task import Limits, Task
from ecot.domains.rtl import logs
from ecot.domains.rtl import sim as rtl_sim
from ecot.domains.rtl.domain import RtlLabel
from ecot.domains.rtl.options import RtlOptions

SYNTHESIS_ERROR = RtlLabel.SYNTHESIS_ERROR.value
LINT_ERROR = RtlLabel.LINT_ERROR.value
OFF_HINT = "a design must be readable by synthesis as well as by the simulator"
AHEAD_S = 1.0  # time for a Yosys run made beside the simulation; typical designs need ~10 ms


# -- the design on its own --------------------------------------------------------------------------
def standalone(task: Task, options: RtlOptions, candidate: str, work: Path, sim: Outcome) -> Outcome:
    """Elaborate the design without the testbench: a design that passed only by reaching into the
    testbench (hierarchical or upward references to its instances, blocks or signals) fails here."""
    if not logs.may_reach_outside(candidate):
        return sim
    alone = work / "alone"
    alone.mkdir()
    sources = {"design.sv": candidate, **helper_sources(task, options)}
    sandbox.write_files(alone, sources)
    top = options.top
    argv = ["iverilog", "-g2012", *(["-s", str(top)] if top else []), "-t", "null", "-o", "alone.out", *sources]
    result = sandbox.run(argv, alone, task.limits, exe_link=rtl_sim.yosys_link())  # the simulation's sandbox
    if result.returncode == 0:
        return sim
    first = logs.classify_compile(result.output, {}).diagnostic
    what = f"the design does not elaborate on its own (it refers outside itself): {first}"
    return Outcome(rtl_sim.ELABORATION_ERROR, what, truncate_log(result.output), sim.metrics)


def helper_sources(task: Task, options: RtlOptions) -> dict[str, str]:
    """Bundle sources a design may use: neither the testbench nor files defining hidden modules."""
    testbench = rtl_sim.testbench_name(task, options)
    hidden = set(options.hidden_modules)
    return {
        name: text
        for name, text in task.files.items()
        if name.endswith((".v", ".sv")) and name != testbench and not hidden & set(logs.declared_modules(text))
    }


# -- what the checkers read -------------------------------------------------------------------------
def checked_source(options: RtlOptions, preprocessed: str | None) -> str | Outcome:
    """The design as the simulator compiled it (iverilog -E, kept by rtl_sim), stripped of comments
    and attributes; or the failing outcome when there is none."""
    if preprocessed is None:
        what = f"the structural checks cannot read {options.design_file}: its preprocessed text is missing or larger than 8 MiB"
        return Outcome(SYNTHESIS_ERROR, what)
    return logs.strip_for_checks(preprocessed)


# -- Yosys ------------------------------------------------------------------------------------------
def as_warning(sim: Outcome, checked: Outcome) -> Outcome:
    """synth = "warn" (a benchmark whose own harness applies no structural checks): a design that passed
    the simulation keeps its Pass; what Yosys found becomes the metric `structural_warning` and a note."""
    if not sim.passed or checked.passed:
        return checked
    note = f"warning (not a failure for this task): {checked.label}: {checked.diagnostic}"
    metrics = {**sim.metrics, **checked.metrics, "structural_warning": checked.label}
    return Outcome(sim.label, f"{sim.diagnostic}; {note}", truncate_log(f"{checked.log}\n[ecot] {note}"), metrics)


def structural(
    task: Task, options: RtlOptions, checked: str, work: Path, sim: Outcome, ran: sandbox.ExecResult | None = None
) -> Outcome:
    """Yosys: latches, combinational loops, multiple drivers. After a timed-out simulation only a
    loop it finds replaces the timeout; after a pass every way the check can fail fails the candidate.
    `ran`: Yosys's run on `checked` made beforehand (run_yosys), alongside the simulation."""
    result = ran if ran is not None else run_yosys(task, options, checked, work)
    findings = logs.read_yosys(result.output)
    metrics = {**sim.metrics, **findings.metrics}
    problems = [p for p in findings.problems if not (options.allow_latches and "latch" in p)]
    log = truncate_log(sim.log + "\n" + result.output)
    if problems:
        prefix = "simulation hung; " if sim.label == TIMEOUT else ""
        return Outcome(SYNTHESIS_ERROR, prefix + "; ".join(problems[:3]), log, metrics)
    if not sim.passed:
        return sim
    failed = _incomplete(result, findings, task)
    if failed is not None:
        return Outcome(failed[0], failed[1], log, metrics)
    return Outcome(sim.label, sim.diagnostic, sim.log, metrics)


def run_yosys(task: Task, options: RtlOptions, checked: str, work: Path, ahead: bool = False) -> sandbox.ExecResult:
    """Yosys's structural script on the checked text, in a folder of its own under `work`. `ahead`: run
    before the simulation's verdict is known, so held to AHEAD_S of wall time (a failing candidate does
    not wait for a slow check it does not need); one cut short there is run again in full (cut_short)."""
    folder = work / "synth"
    folder.mkdir()
    sandbox.write_files(folder, {options.design_file: checked})
    command = ["yosys", "-Q", "-p", yosys_script(options)]
    return sandbox.run(command, folder, yosys_limits(task.limits, ahead), proc_fs=True)


def yosys_step(task: Task, options: RtlOptions, checked: str) -> tuple[sandbox.Step, str]:
    """Yosys's structural script as a step of the simulation's own request (rtl_sim.simulate gates it on
    the pass line): one sandbox request instead of two. By then the design's code has run in that folder,
    so Yosys reads the checked text from a file written only when its step starts, once the simulator has
    ended, under a name no design can know (Yosys seeks in its input: a read-once pipe will not do);
    returns the step and that name, which its messages show in place of the design file."""
    fed = f"ys_{secrets.token_hex(8)}.sv"
    step = sandbox.Step(["yosys", "-Q", "-p", yosys_script(options, fed)], fresh={fed: checked.encode()},
                        output_kb=yosys_limits(task.limits).output_kb)
    return step, fed


def as_design_file(result: sandbox.ExecResult, fed: str, options: RtlOptions) -> sandbox.ExecResult:
    """Yosys's output from yosys_step as a run on the design file would show it."""
    name = options.design_file
    return dataclasses.replace(result, stdout=result.stdout.replace(fed, name), stderr=result.stderr.replace(fed, name))


def yosys_limits(limits: Limits, ahead: bool = False) -> Limits:
    """Yosys's limits for a task's: its statistics need more output room; a run made ahead gets AHEAD_S
    of wall time only (a sandbox server retires itself once its own CPU use nears half of cpu_s)."""
    scaled = limits.scaled(output_kb=4096)
    return scaled.scaled(wall_s=min(scaled.wall_s, AHEAD_S)) if ahead else scaled


def yosys_script(options: RtlOptions, source: str | None = None) -> str:
    """The Yosys script of the structural checks, reading the design file (or `source`) from the current folder."""
    top = options.top
    hierarchy = f"hierarchy -top {top}" if top else "hierarchy"  # no top: every module is checked
    # proc + check find latches, loops and multiple drivers in ~10 ms; full synth (gate counts) takes ~0.5 s
    if options.gate_count:
        passes = f"synth {'-top ' + str(top) if top else '-auto-top'} -flatten"
    else:
        passes = f"{hierarchy}; proc; flatten; check; opt_clean; stat"
    return f"read_verilog -sv {source or options.design_file}; {passes}"


def cut_short(result: sandbox.ExecResult) -> bool:
    """A run stopped by its time limits, which full limits might have let finish; what else ends a run
    (output, file size or memory caps, its own errors) would end it the same way with full time."""
    return result.timed_out or result.signal == signal.SIGXCPU


def _incomplete(result: sandbox.ExecResult, findings: logs.SynthFindings, task: Task) -> tuple[str, str] | None:
    """Label and diagnostic when Yosys did not run every pass of the script, else None."""
    if cut_short(result):
        return TIMEOUT, f"the structural checks (Yosys) did not finish within {task.limits.wall_s:g} s; the design was not checked"
    if result.output_overflow or result.signal == signal.SIGXFSZ or "bad_alloc" in result.output:
        return RESOURCE_LIMIT, "the structural checks (Yosys) ran out of resources on this design; it was not checked"
    if not findings.started:
        raise RuntimeError(f"yosys failed before reading the design: {findings.first_error or result.output.strip()[:300]}")
    if not findings.parsed:
        return SYNTHESIS_ERROR, (f"the structural checks (Yosys) cannot read the design, so latches, loops and multiple "
                                 f"drivers were not checked: {findings.first_error} ({OFF_HINT})")
    if findings.pass_error:
        return SYNTHESIS_ERROR, f"yosys cannot synthesize the design: {findings.first_error}"
    if not findings.completed or result.returncode != 0:
        return SYNTHESIS_ERROR, (f"the structural checks (Yosys) stopped before their end "
                                 f"(exit status {result.returncode}); the design was not checked")
    return None


# -- Verilator --------------------------------------------------------------------------------------
def lint(task: Task, options: RtlOptions, checked: str, work: Path, sim: Outcome) -> Outcome:
    folder = work / "lint"
    folder.mkdir()
    design = options.design_file
    sandbox.write_files(folder, {design: checked})
    argv = ["verilator", "--lint-only", *options.lint_flags, design]
    if options.top:
        argv += ["--top-module", options.top]
    result = sandbox.run(argv, folder, task.limits, proc_fs=True)
    findings = logs.read_verilator(result.output)
    metrics: dict[str, Any] = {**sim.metrics, "lint_findings": len(findings)}
    if result.timed_out:
        message = f"the lint check (Verilator) did not finish within {task.limits.wall_s:g} s"
        return Outcome(TIMEOUT, message, truncate_log(result.output), metrics)
    if result.returncode != 0 or findings:
        first = findings[0] if findings else (result.output.strip()[:300] or f"verilator exited with status {result.returncode}")
        return Outcome(LINT_ERROR, first, truncate_log(result.output), metrics)
    return sim
