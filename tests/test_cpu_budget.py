"""A candidate that hangs stops at a CPU budget measured from the task's reference (options time_factor,
time_floor_s): an RTL simulation, an assembly program. Not at the task's own limit: the same Timeout,
seconds sooner."""

from __future__ import annotations

import dataclasses
import time

import pytest

from ecot.audit.common import bundled_task, describe, with_changes
from ecot.core.outcome import PASS, TIMEOUT
from ecot.core.task import Task
from ecot.domains.base import Backend
from ecot.domains.rtl import expect
from ecot.domains.rtl.checks import SYNTHESIS_ERROR
from ecot.domains.rtl.options import RtlOptions

TASK = "rtl/mux4_bus"  # limits: 10 s of wall and of CPU time
ASM_TASK = "asm/argmax"  # the same limits
HEAD = "module mux4_bus (input wire [1:0] sel, input wire [7:0] d0, d1, d2, d3, output reg [7:0] y);\n"
MUX = "    always @* case (sel) 2'b00: y = d0; 2'b01: y = d1; 2'b10: y = d2; default: y = d3; endcase\nendmodule\n"
SPIN = "    reg spin;\n    initial forever spin = ~spin;\n"  # time never advances: the testbench never ends
ASM_SPIN = "\t.text\n\t.globl argmax\n\t.type argmax, @function\nargmax:\n.Lspin:\n\tjmp .Lspin\n\t.size argmax, .-argmax\n"
LOOP = "    wire a, c;\n    assign a = ~c;\n    assign c = (sel == 2'b00) ? a : 1'b0;\n"  # a hang through a loop a netlist shows


def options(task: Task) -> RtlOptions:
    return RtlOptions.of_task(task)


def test_the_reference_profile_holds_the_kernels_cpu_time() -> None:
    task = bundled_task(TASK)
    measured = expect._reference(task, options(task)).cpu_s
    assert measured is not None and 0 < measured < options(task).time_floor_s


def test_the_budget_is_the_ratio_times_the_reference_at_least_the_floor_below_the_tasks_limit() -> None:
    task = bundled_task(TASK)
    budget = expect.cpu_budget(task, options(task))
    assert budget is not None and budget.cpu_s == 2.0 and "option time_factor" in budget.why
    assert budget.why.startswith("50x the ") and "s of the reference's simulation, at least 2 s" in budget.why
    off = with_changes(task, {"time_factor": None})
    assert expect.cpu_budget(off, options(off)) is None
    generous = with_changes(task, {"time_factor": 1e9})  # more than the task's own 10 s: the task's limit
    assert expect.cpu_budget(generous, options(generous)) is None
    short = with_changes(task, wall_s=1.0)  # cpu_s 2 s: the floor is no tighter
    assert expect.cpu_budget(short, options(short)) is None
    floor = with_changes(task, {"time_floor_s": 3.0})
    assert (expect.cpu_budget(floor, options(floor)) or budget).cpu_s == 3.0


def test_a_hanging_design_stops_at_the_budget_not_at_the_tasks_limit(rtl: Backend) -> None:
    task = bundled_task(TASK)
    start = time.monotonic()
    outcome = rtl.run(task, HEAD + SPIN + MUX)
    took = time.monotonic() - start
    assert outcome.label == TIMEOUT, describe(outcome)
    assert "used more than 2 s of CPU time" in outcome.diagnostic and "of the reference's simulation" in outcome.diagnostic, outcome.diagnostic
    assert outcome.metrics.get("stage") == "simulation"
    assert took < 8.0, f"took {took:.1f} s with a 2 s budget (the task allows 10 s)"
    assert rtl.run(task, HEAD + MUX).label == PASS  # the right design under the same budget


def test_without_a_ratio_the_tasks_own_limit_applies(rtl: Backend) -> None:
    task = with_changes(bundled_task(TASK), {"time_factor": None}, wall_s=3.0)
    outcome = rtl.run(task, HEAD + SPIN + MUX)
    assert outcome.label == TIMEOUT and "reference" not in outcome.diagnostic, describe(outcome)


def test_a_hang_stopped_by_the_budget_still_gets_its_loop_named(rtl: Backend) -> None:
    """A Timeout by CPU is a hang like one by wall time: Yosys looks for the loop that caused it."""
    outcome = rtl.run(bundled_task(TASK), HEAD + LOOP + MUX)
    assert outcome.label == SYNTHESIS_ERROR, describe(outcome)
    assert outcome.diagnostic == "simulation hung; combinational loop in module mux4_bus", describe(outcome)


def test_an_assembly_program_that_spins_stops_at_the_baselines_budget(asm: Backend) -> None:
    """The budget comes from the -O3 baseline's run on the very cases the candidate runs (the kernel's CPU
    count of that run): a candidate that never returns is a Timeout after 2 s, not the driver's 9 s."""
    task = bundled_task(ASM_TASK)
    start = time.monotonic()
    outcome = asm.run(task, ASM_SPIN)
    took = time.monotonic() - start
    assert outcome.label == TIMEOUT, describe(outcome)
    assert outcome.diagnostic.startswith("the test program used more than 2 s of CPU time (50x the "), outcome.diagnostic
    assert "of the baseline's run on the same cases, at least 2 s; option time_factor)" in outcome.diagnostic
    assert took < 8.0, f"took {took:.1f} s with a 2 s budget (the task allows 10 s)"
    assert asm.run(task, task.reference or "").label == PASS


def test_an_assembly_task_without_a_factor_keeps_the_drivers_own_alarm(asm: Backend) -> None:
    task = with_changes(bundled_task(ASM_TASK), {"time_factor": None}, wall_s=2.0)
    outcome = asm.run(task, ASM_SPIN)
    assert outcome.label == TIMEOUT and outcome.diagnostic.startswith("`argmax` did not return within 2 s on case 0"), describe(outcome)


def test_a_reference_that_does_not_simulate_is_measured_once_and_gives_no_budget(rtl: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept in the task cache as broken (it fails the same way every time): later evaluations neither run
    it again nor get a budget from it, and a passing-looking run still cannot pass without its profile."""
    from ecot import sandbox

    task = bundled_task(TASK)
    broken = dataclasses.replace(task, reference=(task.reference or "").replace("endmodule", "  wire [1:0] bad = ;\nendmodule"))
    with pytest.raises(ValueError, match="the reference does not simulate"):
        expect._reference(broken, options(broken))
    ran: list[object] = []
    real = sandbox.run_steps
    monkeypatch.setattr(sandbox, "run_steps", lambda *a, **k: ran.append(a) or real(*a, **k))
    assert expect.cpu_budget(broken, options(broken)) is None
    with pytest.raises(ValueError, match="the reference does not simulate"):
        expect._reference(broken, options(broken))
    assert ran == []
