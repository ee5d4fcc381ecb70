"""The cocotb testbench kind: a task's Python tests (cocotb 2.x) drive the design in Icarus.

One evaluation, per parameter set of option `parameters` (one run without): compile the design and
the bundle's Verilog sources with `-s <top>`, the time scale and `-P<top>.<name>=<value>` (iverilog, in
the usual sandbox), then run vvp with cocotb's VPI library in a sandbox that also shows, read-only,
cocotb, a Python to embed and our reporter (`jobs/cocotb_report.py`). The tests and the data files
they name sit in a read-only folder with a per-evaluation secret name: the design can neither change
them nor find them (Verilog cannot list a folder, and the sandbox shows no /proc).

The verdict comes only from the reporter's lines, tagged with a per-evaluation secret the design has
no way to read: one line per test cocotb planned before the design ran, every one passed, and the
regression not cut short by the simulation ending (the design's `$finish`, `$stop`, `$fatal`). What
the design prints, the exit status it leaves, and the results.xml it may write decide nothing.
"""

from __future__ import annotations

import json
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ecot import sandbox
from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome, infra_error, truncate_log
from ecot.core.task import Task
from ecot.domains.rtl import expect as rtl_expect
from ecot.domains.rtl import logs
from ecot.domains.rtl import sim as rtl_sim
from ecot.domains.rtl.cocotb_runtime import CocotbRuntime, runtime
from ecot.domains.rtl.jobs.cocotb_report import PASSED, TAG_VARIABLE
from ecot.domains.rtl.options import ParameterValue, RtlOptions

TIMESCALE_FILE = "ecot_timescale.f"
_MISSING_HANDLE = re.compile(r"^AttributeError: (\S+) contains no child object named (\S+)")
_OUTCOMES = {"FAIL": "failed", "SKIP": "was skipped while it ran", "MISSING": "did not run"}
_STRING = re.compile(r"""(['"])((?:\\.|(?!\1).)*)\1""")


@dataclass
class _Layout:
    """The files of one evaluation in its work folder."""

    design: str
    sources: list[str] = field(default_factory=list)  # other Verilog sources, compiled after the design
    include_dirs: list[str] = field(default_factory=list)
    tests: str = ""  # the folder (relative to work) holding the test modules and their data
    hidden: set[str] = field(default_factory=set)  # the bundle files that go there


@dataclass
class _Report:
    """What the reporter said: the tests it planned, each test's record, its end, or why it stopped."""

    planned: int | None = None
    tests: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    error: str | None = None


def simulate(task: Task, opts: RtlOptions, candidate: str, work: Path, preprocess: bool = False) -> rtl_sim.SimRun:
    """Run the task's cocotb tests on the candidate, once per parameter set; the first failing set decides.
    With preprocess, also keep the design as the compiler's preprocessor read it (for the checks)."""
    harness = runtime()
    layout = _write(task, opts, candidate, work)
    preprocessed: str | None = None
    metrics: dict[str, Any] = {}
    outcome = infra_error(f"task {task.id}: no parameter set to run")
    for index, values in enumerate(opts.parameters or ({},)):
        if index:
            _write_sources(task, opts, candidate, work, layout)
        keep = f"pp_{secrets.token_hex(8)}.sv" if preprocess and index == 0 else None
        compiled = _compile(task, opts, work, layout, values, keep)
        if keep is not None:
            preprocessed = rtl_sim._read_preprocessed(work, keep)
        if compiled is not None:
            return rtl_sim.SimRun(compiled, preprocessed=preprocessed)
        outcome = _run(task, opts, candidate, work, layout, harness)
        for name in ("tests", "tests_passed", "sim_s", "sim_ns"):
            metrics[name] = round(metrics.get(name, 0) + outcome.metrics.get(name, 0), 4)
        if not outcome.passed:
            where = f" (parameters {_shown(values)})" if values else ""
            return rtl_sim.SimRun(Outcome(outcome.label, outcome.diagnostic + where, outcome.log, {**outcome.metrics, **metrics}),
                                  preprocessed=preprocessed)
    sets = f" in each of {len(opts.parameters)} parameter sets" if len(opts.parameters) > 1 else ""
    passed = f"cocotb tests passed: {outcome.metrics.get('tests', 0)} of {outcome.metrics.get('tests', 0)}{sets}"
    return rtl_sim.SimRun(Outcome(outcome.label, passed, outcome.log, {**outcome.metrics, **metrics}),
                          finished=True, preprocessed=preprocessed)


def _write(task: Task, opts: RtlOptions, candidate: str, work: Path) -> _Layout:
    """The design and the bundle's Verilog where the design can see them; the tests (and the data
    files they name) in a folder with a secret name, read-only while the design runs (see _lock)."""
    layout = _Layout(design=opts.design_file, tests=f"tests_{secrets.token_hex(12)}", hidden=_test_data(task))
    layout.sources = [name for name in task.files if name.endswith((".v", ".sv")) and name != opts.design_file]
    shown = [opts.design_file, *(name for name in task.files if name not in layout.hidden)]
    layout.include_dirs = sorted({str(PurePosixPath(name).parent) for name in shown if name.endswith(rtl_sim.SOURCE_SUFFIXES)})
    sandbox.write_files(work, {f"{layout.tests}/{name}": task.files[name] for name in sorted(layout.hidden)})
    _write_sources(task, opts, candidate, work, layout)
    return layout


def _write_sources(task: Task, opts: RtlOptions, candidate: str, work: Path, layout: _Layout) -> None:
    """What the compiler reads, (re)written before each compile: a design's run cannot leave a changed
    helper source or command file to the next parameter set's build."""
    shown = {name: text for name, text in task.files.items() if name not in layout.hidden}
    sandbox.write_files(work, {**shown, opts.design_file: candidate, TIMESCALE_FILE: f"+timescale+{opts.timescale}\n"})


def _test_data(task: Task) -> set[str]:
    """The tests' files: the Python modules, and the bundle's data files they name in a string literal
    (only the tests may open those)."""
    texts = [text for name, text in task.files.items() if name.endswith(".py")]
    literals = {m.group(2) for text in texts for m in _STRING.finditer(text)}
    data = [name for name in task.files if not name.endswith((".py", *rtl_sim.SOURCE_SUFFIXES))]
    named = {name for name in data if name in literals or PurePosixPath(name).name in literals}
    return {name for name in task.files if name.endswith(".py")} | named


def _compile(
    task: Task, opts: RtlOptions, work: Path, layout: _Layout, values: dict[str, ParameterValue], keep: str | None
) -> Outcome | None:
    """Compile for one parameter set (and, with keep, preprocess the design alone): None when it built."""
    top = str(opts.top)
    argv = ["iverilog", "-g2012", "-s", top, "-o", "c.vvp", "-f", TIMESCALE_FILE]
    argv += [f"-P{top}.{name}={value}" for name, value in values.items()]
    argv += [f"-I{folder}" for folder in layout.include_dirs]
    steps = [sandbox.Step([*argv, layout.design, *layout.sources])]
    if keep is not None:
        steps.append(sandbox.Step(["iverilog", "-g2012", "-E", "-o", keep, layout.design]))
    results = sandbox.run_steps(steps, work, task.limits)
    if results[0].returncode != 0 or results[0].timed_out:
        return rtl_sim._compile_outcome(results[0], results[0].output, task, {})
    if len(results) < len(steps) or not results[-1].ok:
        what = f"preprocessing {layout.design} for the structural checks failed: {results[-1].output.strip()[:300]}"
        return Outcome(RESOURCE_LIMIT, what, truncate_log(results[-1].output))
    return None


def _run(task: Task, opts: RtlOptions, candidate: str, work: Path, layout: _Layout, harness: CocotbRuntime) -> Outcome:
    tag = secrets.token_hex(16)
    seed = secrets.randbelow(2**31) if opts.seed == "random" else opts.seed
    # relative: the sandbox shows the work folder under a path of its own
    env = {**harness.environment(layout.tests, opts.cocotb_modules(task.files), str(opts.top)),
           "COCOTB_RANDOM_SEED": str(seed), TAG_VARIABLE: tag}
    argv = ["vvp", "-n", "-m", harness.vpi_library, "c.vvp", "-none", *opts.plusargs]
    _lock(work / layout.tests, writable=False)
    try:
        result = sandbox.run(argv, work, task.limits, env=env, ro_paths=harness.mounts)
    finally:
        _lock(work / layout.tests, writable=True)  # so the work folder can be removed
    outcome = _verdict(task, opts, result, tag, candidate, layout.tests)
    return Outcome(outcome.label, outcome.diagnostic, outcome.log, {**outcome.metrics, "cocotb_seed": seed})


def _lock(folder: Path, writable: bool) -> None:
    """Make the tests' folder read-only for the run (the design runs as its owner, without
    capabilities, so it can neither write there nor change the modes back), and writable after."""
    for path in [folder, *folder.rglob("*")]:
        mode = path.stat().st_mode
        if path.is_dir():
            path.chmod(0o755 if writable else 0o555)
        else:
            path.chmod((mode | stat.S_IWUSR) if writable else 0o444)


def _verdict(task: Task, opts: RtlOptions, result: sandbox.ExecResult, tag: str, candidate: str, tests: str) -> Outcome:
    """`tests`: the tests' folder, whose secret name (and the work folder's path) the log leaves out."""
    report = read_report(result.output, tag)
    shown = "\n".join(line.split(tag, 1)[0] for line in result.output.splitlines() if not line.startswith(tag))
    log = truncate_log(re.sub(rf"[^\s\"']*{re.escape(tests)}/", "", shown))
    metrics: dict[str, Any] = {"sim_s": round(result.wall_s, 4)}
    limit = task.limits
    if result.output_overflow:
        return Outcome(RESOURCE_LIMIT, f"simulation output exceeded {limit.output_kb} KiB and was stopped", log, metrics)
    exhausted = rtl_sim._exhausted_resource(result)
    if exhausted == "cpu":
        return Outcome(TIMEOUT, f"the cocotb tests used more than {limit.cpu_s:g} s of CPU time", log, metrics)
    if exhausted:
        return Outcome(RESOURCE_LIMIT, f"simulation exceeded its {exhausted} limit and was stopped", log, metrics)
    if result.timed_out:
        running = f" (the tests had not ended: {report.planned} planned)" if report.planned else ""
        return Outcome(TIMEOUT, f"the cocotb tests did not finish within {limit.wall_s:g} s{running}", log,
                       {**metrics, "stage": "simulation"})
    refused = logs.vvp_load_errors(result.stdout, result.stderr)
    if refused:
        return Outcome(rtl_sim.ELABORATION_ERROR, rtl_sim._load_diagnostic(refused), log, metrics)
    if report.error is not None or report.planned is None:
        why = report.error or _last_line(shown) or f"vvp exited with status {result.returncode}"
        return infra_error(f"task {task.id}: the cocotb tests did not start: {why}", log)
    return _judge(task, report, result, rtl_expect._enders(candidate, opts.design_file), log, metrics)


def _judge(task: Task, report: _Report, result: sandbox.ExecResult, ender: str, log: str, metrics: dict[str, Any]) -> Outcome:
    """The verdict from a report that started: every planned test passed, and nothing cut the run short.
    `ender`: where the design calls $finish/$stop/$fatal, for a diagnostic."""
    if report.end is None:
        how = f"signal {result.signal}" if result.signal else f"exit status {result.returncode}"
        what = f"the simulation ended ({how}) before cocotb reported its tests' results{ender}"
        return Outcome(rtl_sim.SIMULATION_MISMATCH, what, log, metrics)
    if len(report.tests) != report.planned or report.end.get("tests") != report.planned:
        return infra_error(f"task {task.id}: the cocotb report is incomplete ({len(report.tests)} of {report.planned} tests)", log)
    failed = [test for test in report.tests if not _passed(test)]
    metrics = {**metrics, "tests": len(report.tests), "tests_passed": len(report.tests) - len(failed),
               "sim_ns": round(sum(float(test.get("sim_ns", 0)) for test in report.tests), 3)}
    first = _first_failure(failed)
    counted = f"{len(failed)} of {len(report.tests)} tests failed"
    if report.end.get("cut_short"):
        what = f"the simulation ended before cocotb finished its tests{ender}, so they prove nothing ({counted}; {first})"
        return Outcome(rtl_sim.SIMULATION_MISMATCH, what, log, metrics)
    if failed:
        missing = _MISSING_HANDLE.search(str(failed[0].get("message", "")))
        if missing is not None:  # the design lacks a port or signal the tests drive: its interface is wrong
            what = f"the tests use {missing.group(1)}.{missing.group(2)}, which the design does not have ({counted}; {first})"
            return Outcome(rtl_sim.ELABORATION_ERROR, what, log, metrics)
        return Outcome(rtl_sim.SIMULATION_MISMATCH, f"{first} ({counted})", log, metrics)
    if result.returncode != 0:
        what = f"the simulator exited with status {result.returncode}{ender}: the run did not end cleanly"
        return Outcome(rtl_sim.SIMULATION_MISMATCH, what, log, metrics)
    return Outcome(PASS, f"cocotb tests passed: {len(report.tests)} of {len(report.tests)}", log, metrics)


def _first_failure(failed: list[dict[str, Any]]) -> str:
    if not failed:
        return ""
    test = failed[0]
    return f"{test.get('name')} {_OUTCOMES.get(str(test.get('outcome')), 'failed')}: {test.get('message') or 'no message'}"[:400]


def _passed(test: dict[str, Any]) -> bool:
    """Passed, failed as its test expects, or skipped because the test is marked skip (before any run)."""
    return test.get("outcome") in PASSED or (test.get("outcome") == "SKIP" and test.get("marked_skip") is True)


def read_report(output: str, tag: str) -> _Report:
    """The reporter's records: the text after the tag on each line that holds it."""
    report = _Report()
    for line in output.splitlines():
        if tag not in line:
            continue
        try:
            record = json.loads(line.split(tag, 1)[1])
        except json.JSONDecodeError:
            continue
        kind = record.get("kind") if isinstance(record, dict) else None
        if kind == "start" and report.planned is None:
            report.planned = int(record.get("tests", 0))
        elif kind == "test" and report.end is None:
            report.tests.append(record)
        elif kind == "end" and report.end is None:
            report.end = record
        elif kind == "error":
            report.error = str(record.get("message", ""))[:400]
    return report


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _shown(values: dict[str, ParameterValue]) -> str:
    return ", ".join(f"{name}={value}" for name, value in values.items())


__all__ = ["read_report", "simulate"]
