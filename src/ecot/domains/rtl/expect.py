"""How much work a passing simulation must show: a verdict needs the expected run, not just a clean
summary line.

A design can end the simulation itself (`$finish`, `$stop`, `$fatal`) before the testbench has
checked anything; a VerilogEval testbench then prints `Mismatches: 0 in 0 samples` from its `final`
block. So a passing run must also (1) end the way the reference's run ends: through the testbench's
own `$finish`/`$stop` when the reference's does, (2) exit cleanly, and (3) report the sample count
the reference reports.

The expectation is measured by simulating the task's reference, once per task and toolchain: the count
depends on the testbench, its data and the simulator version, all of which a number stored at import
time could silently outlive, and importers stay free of toolchains. The measurement is kept across
processes (ecot.domains.taskcache), keyed by the task's content, its options, the simulator's identity
and this code; only a reference that simulated to its end is kept. Option `samples`
overrides it: an integer, or "any" for a testbench whose count legitimately depends on the design.
Without a reference the run must still end through the testbench's own $finish/$stop if it has one.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from ecot import sandbox
from ecot.core.outcome import TIMEOUT, Outcome, infra_error
from ecot.core.task import Task
from ecot.domains import budget, taskcache
from ecot.domains.budget import CpuBudget
from ecot.domains.rtl import logs
from ecot.domains.rtl import sim as rtl_sim
from ecot.domains.rtl.options import RtlOptions

SIMULATOR = ("iverilog", "vvp")


@dataclass(frozen=True)
class Profile:
    samples: int | None  # the count a passing run must report (None: not checked)
    ends_itself: bool  # the testbench's own $finish/$stop must end the run
    source: str  # where the expectation comes from, for diagnostics
    toolchain_limit: str | None = None  # the simulator cannot compile the task's own files with the reference
    cpu_s: float | None = None  # the reference's simulation CPU time (kernel accounting), when measured
    broken: str | None = None  # why the reference does not simulate here (then there is no expectation)


def check(task: Task, options: RtlOptions, run: rtl_sim.SimRun, candidate: str) -> Outcome:
    """The run's outcome, or Simulation_Mismatch when a passing run did not do the expected work, or
    Infra_Error when the simulator cannot compile the task's own files (its reference fails there too)."""
    outcome = run.outcome
    if run.toolchain_limit is not None and task.reference is not None:
        limit = _reference(task, options).toolchain_limit
        if limit is not None:
            return infra_error(f"not run here: the simulator cannot compile the task's own files ({limit}); the "
                               "task's reference fails there too, so this is a limit of the toolchain, not of the design",
                               outcome.log)
    if not outcome.passed:
        return outcome
    expected = profile(task, options)
    problem = _shortfall(run, expected, _enders(candidate, options.design_file))
    if problem is None:
        return outcome
    return Outcome(rtl_sim.SIMULATION_MISMATCH, problem, outcome.log, outcome.metrics)


def _shortfall(run: rtl_sim.SimRun, expected: Profile, ender: str) -> str | None:
    if expected.ends_itself and not run.ended_by_testbench:
        return f"the simulation ended before the testbench finished{ender}, so its summary line proves nothing"
    if run.returncode not in (0, None):
        return f"the simulator exited with status {run.returncode}{ender}: the run did not end cleanly"
    if expected.samples is None:
        return None
    got = run.outcome.metrics.get("samples")
    if got is None:
        return f"the testbench never reported its sample count ({expected.source} reports {expected.samples})"
    if int(got) != expected.samples:
        return f"the testbench checked {got} samples, but {expected.source} reports {expected.samples}{ender}: not every check ran"
    return None


def _enders(candidate: str, design: str) -> str:
    """Where the design itself stops the simulation, said for the diagnostic."""
    code = logs.code_only(candidate)
    stops = re.finditer(r"\$(?:finish|stop|fatal)\b", code)
    found = [f"{design}:{code.count(chr(10), 0, m.start()) + 1} calls {m.group(0)}" for m in stops]
    return f" ({', '.join(found[:3])})" if found else ""


def profile(task: Task, options: RtlOptions) -> Profile:
    """The expected run of this task: from option `samples`, else the reference's run (cached)."""
    option = options.samples
    static = logs.calls_finish(task.files[rtl_sim.testbench_name(task, options)])
    if option == "any":
        return Profile(None, static, "option samples")
    if option is not None:
        return Profile(int(option), static, "the task (option samples)")
    if task.reference is None:
        return Profile(None, static, "the testbench")
    return _reference(task, options)


def _reference(task: Task, options: RtlOptions) -> Profile:
    """What the task's reference shows when simulated; ValueError when it does not simulate here."""
    found = _measured(task, options)
    if found.broken is not None:
        raise ValueError(found.broken)
    return found


def _measured(task: Task, options: RtlOptions) -> Profile:
    """The reference's run, measured once per task and toolchain: a broken reference is kept as such too
    (it would fail the same way every time), a reference that ran out of time is not (the machine's load)."""
    return taskcache.lookup("rtl-reference", profile_key(task, options), lambda: _measure(task, options), _dump, _load)


def profile_key(task: Task, options: RtlOptions) -> str:
    """Everything the reference's run reads: the task's content, its options, the simulator, this code."""
    return taskcache.key(
        "rtl-reference", dict(task.files), task.reference, options.model_dump(mode="json"), task.limits.to_dict(),
        [taskcache.tool_identity(tool) for tool in SIMULATOR],
        taskcache.code_identity(__name__, rtl_sim.__name__, logs.__name__),
    )


def _dump(profile: Profile) -> dict[str, Any]:
    return dataclasses.asdict(profile)


def _load(entry: dict[str, Any]) -> Profile:
    samples, ends, source, limit = entry["samples"], entry["ends_itself"], entry["source"], entry["toolchain_limit"]
    cpu, broken = entry["cpu_s"], entry["broken"]
    if not (samples is None or type(samples) is int) or type(ends) is not bool or not isinstance(source, str) \
            or not (limit is None or isinstance(limit, str)) or not (cpu is None or type(cpu) in (int, float) and cpu >= 0) \
            or not (broken is None or isinstance(broken, str)):
        raise ValueError("not a reference profile")
    return Profile(samples, ends, source, limit, cpu, broken)


def cpu_budget(task: Task, options: RtlOptions) -> CpuBudget | None:
    """The candidate's simulation CPU limit: time_factor times the reference's (at least time_floor_s),
    when that is below the task's cpu_s; None without a factor, a reference that simulates, or a
    measured time. A design that hangs (a testbench waiting forever for a signal it never raises) then
    stops in seconds rather than at the task's limit: the verdict is the same Timeout."""
    if options.time_factor is None or task.reference is None:
        return None
    try:
        measured = _measured(task, options).cpu_s  # None for a reference that does not simulate: the task's limits
    except ValueError:  # it ran out of time (not kept): the task's limits alone
        return None
    return budget.from_reference(options, measured, task.limits.cpu_s, "the reference's simulation")


def _measure(task: Task, options: RtlOptions) -> Profile:
    with sandbox.workdir("ecot-rtl-ref-") as work:
        run = rtl_sim.simulate(task, options, task.reference or "", work)
    if run.toolchain_limit is not None:
        return Profile(None, False, "the reference", run.toolchain_limit)
    if not run.finished:
        # the reference does not simulate here (a broken task): the expected work is unknown, so no verdict
        why = (f"task {task.id}: the reference does not simulate ({run.outcome.label}: {run.outcome.diagnostic}), "
               "so the expected number of samples is unknown; set option samples or fix the reference")
        if run.outcome.label == TIMEOUT:
            raise ValueError(why)
        return Profile(None, False, "the reference", broken=why)
    samples = run.outcome.metrics.get("samples")
    return Profile(int(samples) if samples is not None else None, run.ended_by_testbench, "the reference", cpu_s=run.cpu_s)

