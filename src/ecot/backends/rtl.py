"""Verilog/SystemVerilog RTL: Icarus compile + simulation, Yosys structural checks, Verilator lint.

The testbench reaches the compiler through a named pipe (readable once) and the compiled program
reaches vvp the same way, with /proc absent, so a design cannot read the secret verdict tag.
Per-task options (task.toml [options]):
  top            module the candidate must define (used by Yosys/Verilator)
  testbench      bundle file with the self-checking testbench (default: testbench.sv/.v, tb.sv/.v)
  design_file    name the candidate is written to (default design.sv)
  hidden_modules bundle modules renamed per evaluation so a candidate cannot instantiate them
  pass_pattern / fail_pattern / count_pattern   regexes over the testbench's own lines
  synth          "check" (default: latches, loops, multiple drivers fail; parse limits of Yosys are
                 tolerated), "strict" (Yosys must parse too) or "off"
  allow_latches  do not fail on inferred latches
  gate_count     run full Yosys synthesis so the `cells` metric counts gates (slower, ~0.5 s)
  lint           run Verilator lint after a passing simulation (default false)
  plusargs       extra vvp +args
"""

from __future__ import annotations

import re
import secrets
import signal
from pathlib import Path
from typing import Any, ClassVar

from ecot import sandbox
from ecot.backends import rtl_logs as logs
from ecot.backends.base import Backend
from ecot.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome, infra_error, truncate_log
from ecot.task import Task

SYNTAX_ERROR = "Syntax_Error"
ELABORATION_ERROR = "Elaboration_Error"
SIMULATION_MISMATCH = "Simulation_Mismatch"
SYNTHESIS_ERROR = "Synthesis_Error"
LINT_ERROR = "Lint_Error"

DEFAULT_PASS = r"Mismatches: 0 in \d+ samples"
DEFAULT_COUNT = r"Mismatches: (?P<mismatches>\d+) in (?P<samples>\d+) samples"
TESTBENCH_NAMES = ("testbench.sv", "testbench.v", "tb.sv", "tb.v")
SOURCE_SUFFIXES = (".v", ".sv", ".vh", ".svh")
LINT_FLAGS = ("-Wall", "-Wno-DECLFILENAME", "-Wno-UNUSEDSIGNAL", "-Wno-UNUSEDPARAM", "-Wno-EOFNEWLINE")


class RtlBackend(Backend):
    domain = "rtl"
    labels: ClassVar[tuple[str, ...]] = (
        PASS,
        SYNTAX_ERROR,
        ELABORATION_ERROR,
        SIMULATION_MISMATCH,
        SYNTHESIS_ERROR,
        LINT_ERROR,
        TIMEOUT,
        RESOURCE_LIMIT,
    )
    tools = ("iverilog", "vvp", "yosys", "verilator")
    install_hint = "install the Debian packages iverilog, yosys and verilator (`make setup`)"

    def evaluate(self, task: Task, candidate: str) -> Outcome:
        opts = task.options
        with sandbox.workdir("ecot-rtl-") as work:
            outcome = self._simulate(task, candidate, work)
            if outcome.passed:
                outcome = self._standalone(task, candidate, work, outcome)
            if outcome.passed or (outcome.label == TIMEOUT and outcome.metrics.get("stage") == "simulation"):
                outcome = self._structural_checks(task, candidate, work, outcome, opts)
            if outcome.passed and opts.get("lint", False):
                outcome = self._lint(task, candidate, work, outcome)
        return outcome

    # -- compile + simulate -------------------------------------------------------------------
    def _simulate(self, task: Task, candidate: str, work: Path) -> Outcome:
        tag = logs.new_tag()
        tb_name = _testbench_name(task)
        design = str(task.option("design_file", "design.sv"))
        renames = _hidden_renames(task, task.files[tb_name])
        tb_file = f"tb_{secrets.token_hex(6)}.sv"
        feeds: dict[str, bytes] = {}  # sources read once by the compiler, gone before simulation
        tb_source = ""
        for name, text in task.files.items():
            if name.endswith(SOURCE_SUFFIXES):
                text = _rename_modules(text, renames)
            if name == tb_name:
                tb_source = text
                feeds[tb_file] = logs.tag_testbench(text, tag).encode()
            elif name.endswith((".v", ".sv")):
                feeds[f"src_{secrets.token_hex(4)}_{Path(name).name}"] = text.encode()
            else:
                sandbox.write_files(work, {name: text})
        sandbox.write_files(work, {design: candidate})
        top = renames.get(task.option("tb_top", ""), None) or logs.top_testbench_module(tb_source)
        if top is None:
            return infra_error(f"task {task.id}: no module found in testbench {tb_name}")
        back = {tb_file: tb_name, **{v: k for k, v in renames.items()}}
        compile_step = sandbox.Step(["iverilog", "-g2012", "-s", str(top), "-o", "c.vvp", design, *feeds], feeds=feeds)
        run_step = sandbox.Step(
            # -none: $dumpvars writes nothing, so a design cannot dump and read back the testbench's signals
            ["vvp", "-n", "sim.vvp", "-none", *[str(a) for a in task.option("plusargs", [])]],
            feed_files={"sim.vvp": "c.vvp"},
        )
        results = sandbox.run_steps([compile_step, run_step], work, task.limits)
        if len(results) == 1:
            return _compile_outcome(results[0], back, task)
        return _sim_outcome(task, results[1], tag, back)

    # -- the design on its own --------------------------------------------------------------------
    def _standalone(self, task: Task, candidate: str, work: Path, sim: Outcome) -> Outcome:
        """Elaborate the design without the testbench: a design that passed only by reaching into the
        testbench (hierarchical or upward references to its instances, blocks or signals) fails here."""
        top = task.option("top") or _only_module(candidate)
        if top is None or not logs.may_reach_outside(candidate):
            return sim
        alone = work / "alone"
        alone.mkdir()
        sources = {"design.sv": candidate, **_helper_sources(task)}
        sandbox.write_files(alone, sources)
        argv = ["iverilog", "-g2012", "-s", str(top), "-t", "null", "-o", "alone.out", *sources]
        result = sandbox.run(argv, alone, task.limits)
        if result.returncode == 0:
            return sim
        first = logs.classify_compile(result.output, {}).diagnostic
        what = f"the design does not elaborate on its own (it refers outside itself): {first}"
        return Outcome(ELABORATION_ERROR, what, truncate_log(result.output), sim.metrics)

    # -- Yosys ------------------------------------------------------------------------------------
    def _structural_checks(self, task: Task, candidate: str, work: Path, sim: Outcome, opts: Any) -> Outcome:
        mode = str(opts.get("synth", "check"))
        top = opts.get("top") or _only_module(candidate)
        if mode == "off" or top is None:
            return sim
        synth_dir = work / "synth"
        synth_dir.mkdir()
        sandbox.write_files(synth_dir, {"design.sv": candidate})
        # proc + check find latches, loops and multiple drivers in ~10 ms; full synth (gate counts) takes ~0.5 s
        passes = f"synth -top {top} -flatten" if opts.get("gate_count") else f"hierarchy -top {top}; proc; flatten; check; opt_clean; stat"
        script = f"read_verilog -sv design.sv; {passes}"
        result = sandbox.run(["yosys", "-p", script], synth_dir, task.limits.scaled(output_kb=4096), proc_fs=True)
        findings = logs.read_yosys(result.output)
        metrics = {**sim.metrics, **findings.metrics}
        if result.timed_out:
            return _with(sim, metrics=metrics, note="yosys timed out; structural checks skipped")
        if not findings.started:
            return infra_error(f"yosys failed before reading the design: {findings.first_error}", result.output)
        if findings.pass_error:  # the design was read, then a synthesis pass rejected it
            what = f"yosys cannot synthesize the design: {findings.first_error}"
            return Outcome(SYNTHESIS_ERROR, what, truncate_log(sim.log + "\n" + result.output), metrics)
        if not findings.parsed:
            if mode == "strict":
                return Outcome(SYNTHESIS_ERROR, f"yosys rejected the design: {findings.first_error}", truncate_log(result.output), metrics)
            note = f"yosys could not read the design ({findings.first_error}); structural checks skipped"
            return _with(sim, metrics={**metrics, "synth_skipped": True}, note=note)
        problems = [p for p in findings.problems if not (opts.get("allow_latches") and "latch" in p)]
        if problems:
            what = "; ".join(problems[:3])
            prefix = "simulation hung; " if sim.label == TIMEOUT else ""
            return Outcome(SYNTHESIS_ERROR, f"{prefix}{what}", truncate_log(sim.log + "\n" + result.output), metrics)
        return _with(sim, metrics=metrics)

    # -- Verilator ---------------------------------------------------------------------------------
    def _lint(self, task: Task, candidate: str, work: Path, sim: Outcome) -> Outcome:
        lint_dir = work / "lint"
        lint_dir.mkdir()
        sandbox.write_files(lint_dir, {"design.sv": candidate})
        argv = ["verilator", "--lint-only", *task.option("lint_flags", LINT_FLAGS), "design.sv"]
        if task.option("top"):
            argv += ["--top-module", str(task.option("top"))]
        result = sandbox.run(argv, lint_dir, task.limits, proc_fs=True)
        findings = logs.read_verilator(result.output)
        if result.returncode != 0 or findings:
            first = findings[0] if findings else result.output.strip()[:300]
            return Outcome(LINT_ERROR, first, truncate_log(result.output), {**sim.metrics, "lint_findings": len(findings)})
        return sim


def _sim_outcome(task: Task, result: sandbox.ExecResult, tag: str, renames: dict[str, str]) -> Outcome:
    log = truncate_log(_apply(logs.strip_tag(result.output, tag), renames))
    lines = logs.trusted_lines(result.output, tag)
    limit = task.limits
    if result.output_overflow:
        return Outcome(RESOURCE_LIMIT, f"simulation output exceeded {limit.output_kb} KiB and was stopped", log)
    exhausted = _exhausted_resource(result)
    if exhausted == "cpu":
        return Outcome(TIMEOUT, f"simulation used more than {limit.cpu_s:g} s of CPU time", log)
    if exhausted:
        return Outcome(RESOURCE_LIMIT, f"simulation exceeded its {exhausted} limit and was stopped", log)
    if result.timed_out:
        last = f" (last testbench line: {lines[-1][:160]})" if lines else ""
        return Outcome(TIMEOUT, f"simulation did not finish within {limit.wall_s:g} s{last}", log, {"stage": "simulation"})
    verdict = logs.judge_simulation(
        lines,
        str(task.option("pass_pattern", DEFAULT_PASS)),
        task.option("fail_pattern"),
        task.option("count_pattern", DEFAULT_COUNT),
    )
    metrics: dict[str, Any] = {**verdict.metrics, "sim_s": round(result.wall_s, 4)}
    if verdict.passed:
        return Outcome(PASS, verdict.diagnostic, log, metrics)
    diagnostic = verdict.diagnostic
    if result.signal:
        diagnostic = f"simulator killed by signal {result.signal} (resource limit?); {diagnostic}"
    return Outcome(SIMULATION_MISMATCH, diagnostic, log, metrics)


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


def _compile_outcome(result: sandbox.ExecResult, renames: dict[str, str], task: Task) -> Outcome:
    log = _apply(result.output, renames)
    if result.timed_out:
        return Outcome(TIMEOUT, f"compilation did not finish within {task.limits.wall_s:g} s", truncate_log(log), {"stage": "compile"})
    verdict = logs.classify_compile(log, {})
    label = SYNTAX_ERROR if verdict.syntax else ELABORATION_ERROR
    return Outcome(label, verdict.diagnostic, truncate_log(log))


def _helper_sources(task: Task) -> dict[str, str]:
    """Bundle sources a design may use: neither the testbench nor files defining hidden modules."""
    testbench = _testbench_name(task)
    hidden = set(task.option("hidden_modules", []))
    return {
        name: text
        for name, text in task.files.items()
        if name.endswith((".v", ".sv")) and name != testbench and not hidden & set(logs.declared_modules(text))
    }


def _testbench_name(task: Task) -> str:
    name = task.option("testbench")
    if name:
        if name not in task.files:
            raise ValueError(f"task {task.id}: testbench file {name!r} is not in the bundle")
        return str(name)
    for candidate in TESTBENCH_NAMES:
        if candidate in task.files:
            return candidate
    raise ValueError(f"task {task.id}: no testbench (set options.testbench or add testbench.sv)")


def _hidden_renames(task: Task, testbench: str) -> dict[str, str]:
    """Per-evaluation names for the testbench's modules and the task's hidden ones: a design cannot
    instantiate them or reach into the testbench with hierarchical or upward references."""
    suffix = secrets.token_hex(4)
    names = [*logs.declared_modules(testbench), *task.option("hidden_modules", [])]
    return {name: f"{name}_{suffix}" for name in dict.fromkeys(names)}


def _rename_modules(text: str, renames: dict[str, str]) -> str:
    for old, new in renames.items():
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def _apply(text: str, renames: dict[str, str]) -> str:
    for old, new in renames.items():
        text = text.replace(old, new)
    return text


def _only_module(source: str) -> str | None:
    modules = logs.declared_modules(source)
    return modules[0] if len(modules) == 1 else None


def _with(outcome: Outcome, metrics: dict[str, Any] | None = None, note: str = "") -> Outcome:
    log = f"{outcome.log}\n[ecot] {note}" if note else outcome.log
    return Outcome(outcome.label, outcome.diagnostic, log, metrics if metrics is not None else outcome.metrics)
