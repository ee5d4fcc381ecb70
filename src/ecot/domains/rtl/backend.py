"""Verilog/SystemVerilog RTL: Icarus compile + simulation, Yosys structural checks, Verilator lint.

One evaluation: refuse literal host paths; simulate against the testbench (rtl_sim), under a CPU
budget from the reference; require the expected amount of work (rtl_expect: the testbench ended the
run itself and checked as many samples as the reference does); elaborate the design on its own when
it could reach outside itself; then Yosys and, when asked for, Verilator on the text the simulator
compiled (rtl_checks). Yosys runs in the simulation's own sandbox request once the testbench passed,
or beside the simulation where cores are free (`overlap`). See docs/domains/rtl.md.

Per-task options (task.toml [options]; the typed model is options.RtlOptions, checked at suite load):
  top            module the candidate must define (Yosys/Verilator; without it every module is checked)
  testbench      bundle file with the self-checking testbench (default: testbench.sv/.v, tb.sv/.v)
  design_file    name the candidate is written to (default design.sv)
  hidden_modules bundle modules renamed per evaluation so a candidate cannot instantiate them
  hidden_files   bundle data files renamed per evaluation so only the testbench can open them
                 (default: every data file the testbench names in a string literal)
  pass_pattern / fail_pattern / count_pattern   regexes over the testbench's own lines
  samples        the sample count a passing run must report: default measured from the reference,
                 an integer, or "any" (not checked)
  synth          "check" (default; "strict" is the same): Yosys must read the design, and latches,
                 loops and multiple drivers fail; "warn": Yosys runs, but what it finds is only a
                 warning (metric structural_warning) on a design that passes; "off": no structural checks
  allow_latches  do not fail on inferred latches
  gate_count     run full Yosys synthesis so the `cells` metric counts gates (slower, ~0.5 s)
  lint           run Verilator lint after a passing simulation (default false)
  plusargs       extra vvp +args
  time_factor    the candidate's simulation may use this many times the reference's CPU time (default 50,
                 at least time_floor_s = 2 s, at most the task's cpu_s; None: the task's limits alone)
  testbench_kind "cocotb": the task's Python tests (cocotb 2.x) drive `top` instead of a Verilog testbench
                 (cocotb_sim); test_modules, parameters, timescale and seed configure that run
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path

from ecot import sandbox
from ecot.core.outcome import TIMEOUT, Outcome
from ecot.core.task import Limits, Task
from ecot.domains.base import Backend
from ecot.domains.rtl import checks, cocotb_sim, sim
from ecot.domains.rtl import expect as rtl_expect
from ecot.domains.rtl import logs as rtl_logs
from ecot.domains.rtl.options import RtlOptions

# the verdict labels re-exported for compatibility: tests and the hostile cases import them from here
SYNTAX_ERROR = sim.SYNTAX_ERROR
ELABORATION_ERROR = sim.ELABORATION_ERROR
SIMULATION_MISMATCH = sim.SIMULATION_MISMATCH
SYNTHESIS_ERROR = checks.SYNTHESIS_ERROR
LINT_ERROR = checks.LINT_ERROR


class RtlBackend(Backend[RtlOptions]):
    domain = "rtl"
    options_model = RtlOptions
    tools = ("iverilog", "vvp", "yosys", "verilator")
    install_hint = "install the Debian packages iverilog, yosys and verilator (`make setup`)"
    _ahead_pool: ThreadPoolExecutor | None = None

    def prepare(self) -> None:
        """Start the sandboxes of a task with default limits in the background: the simulation's (where
        Yosys runs too, after a pass) and, when Yosys runs beside the simulation, Yosys's own."""
        self._warm_up(Limits(), structural=True)

    def _warm_up(self, limits: Limits, structural: bool) -> None:
        sandbox.prestart(limits, exe_link=sim.yosys_link())
        if structural and self.overlap:  # else its sandbox starts when a hang or a directive needs it
            sandbox.prestart(checks.yosys_limits(limits), proc_fs=True)
            sandbox.prestart(checks.yosys_limits(limits, ahead=True), proc_fs=True)

    def evaluate(self, task: Task, options: RtlOptions, candidate: str) -> Outcome:
        mode = options.synth
        self._warm_up(task.limits, mode != "off")  # a no-op once they run
        refused = rtl_logs.outside_paths(candidate, options.design_file)
        if refused:
            what = f"{refused[0]} names a file outside the design's folder; a design may only open files next to it"
            return Outcome(ELABORATION_ERROR, what, "\n".join(refused))
        # without a directive the preprocessor acts on, it would return the text unchanged
        directives = rtl_logs.needs_preprocessor(candidate)
        # what Yosys reads when it may start before the simulation's verdict: beside it (cores to spare) or
        # after it in the same sandbox request; a design with directives waits for the preprocessed text
        early = None if directives or mode == "off" else checks.checked_source(options, candidate)
        with sandbox.workdir("ecot-rtl-") as work, self._yosys_ahead(task, options, early if self.overlap else None) as ahead:
            wanted = directives and (mode != "off" or options.lint)
            outcome, preprocessed, ran = self._simulate(task, options, candidate, work, wanted, None if self.overlap else early)
            return self._checks(task, options, preprocessed if directives else candidate, work, outcome, mode, ahead, ran)

    @staticmethod
    def _simulate(task: Task, options: RtlOptions, candidate: str, work: Path, preprocess: bool,
                  after: str | Outcome | None = None) -> tuple[Outcome, str | None, sandbox.ExecResult | None]:
        """The testbench's verdict, the design as the simulator's preprocessor read it (when asked for), and
        Yosys's run on `after` (the checked text) made in the simulation's own request after a pass."""
        if options.testbench_kind == "cocotb":
            tested = cocotb_sim.simulate(task, options, candidate, work, preprocess=preprocess)
            return tested.outcome, tested.preprocessed, None
        step, fed = checks.yosys_step(task, options, after) if isinstance(after, str) else (None, "")
        run = sim.simulate(task, options, candidate, work, preprocess=preprocess, budget=rtl_expect.cpu_budget(task, options),
                           after_pass=step)
        outcome = rtl_expect.check(task, options, run, candidate)
        if outcome.passed:
            outcome = checks.standalone(task, options, candidate, work, outcome)
        return outcome, run.preprocessed, checks.as_design_file(run.after, fed, options) if run.after is not None else None

    @contextmanager
    def _yosys_ahead(
        self, task: Task, options: RtlOptions, checked: str | Outcome | None
    ) -> Iterator[Future[sandbox.ExecResult] | None]:
        """Yosys reads `checked` (the design, when it needs no preprocessing) while it is simulated (its
        verdict counts only if the simulation passes or hangs), within checks.AHEAD_S. Not for gate counts
        (a full synthesis). Leaving waits for Yosys, whose folder is its own."""
        if not isinstance(checked, str) or options.gate_count:
            yield None
            return

        def yosys() -> sandbox.ExecResult:
            with sandbox.workdir("ecot-rtl-synth-") as folder:
                return checks.run_yosys(task, options, checked, folder, ahead=True)

        running = self._ahead().submit(yosys)
        try:
            yield running
        finally:
            wait([running])

    def _ahead(self) -> ThreadPoolExecutor:
        """One thread for the runs made ahead, kept for the backend's life: a pool made per evaluation
        cost 2-4 ms of a ~20 ms check (measured alternating)."""
        if self._ahead_pool is None:
            self._ahead_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ecot-rtl-ahead")
        return self._ahead_pool

    def close(self) -> None:
        if self._ahead_pool is not None:
            self._ahead_pool.shutdown(wait=True)
            self._ahead_pool = None

    @staticmethod
    def _checks(task: Task, options: RtlOptions, preprocessed: str | None, work: Path, outcome: Outcome, mode: str,
                ahead: Future[sandbox.ExecResult] | None = None, ran: sandbox.ExecResult | None = None) -> Outcome:
        """Yosys after a pass (or a hang, to name a loop) unless synth = "off"; Verilator if lint. `ahead`:
        Yosys's run beside the simulation; `ran`: its run in the simulation's request, after the pass."""
        hung = outcome.label == TIMEOUT and outcome.metrics.get("stage") == "simulation"
        structural = mode != "off" and (outcome.passed or hung)
        lint = outcome.passed and options.lint
        if not (structural or lint):
            return outcome
        checked = checks.checked_source(options, preprocessed)
        if isinstance(checked, Outcome):
            return (checks.as_warning(outcome, checked) if mode == "warn" else checked) if outcome.passed else outcome
        if structural:
            if ahead is not None:
                ran = ahead.result()
                ran = None if ran is not None and checks.cut_short(ran) else ran  # then run in full below
            found = checks.structural(task, options, checked, work, outcome, ran)
            outcome = checks.as_warning(outcome, found) if mode == "warn" else found
        if lint and outcome.passed:
            outcome = checks.lint(task, options, checked, work, outcome)
        return outcome
