"""VerilogEval judged as its own analyzer judges it, on problems written for ecot in its layout
(tests/fixtures/verilog_eval_parity): a testbench whose watchdog prints TIMEOUT fails, each problem gets
30 s, a reference the simulator cannot compile makes the task "not run here", and a design that
instantiates RefModule is told it may not."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ecot.core.outcome import INFRA_ERROR, PASS
from ecot.core.task import Task
from ecot.domains.base import Backend
from ecot.importers import import_tasks

FIXTURES = Path(__file__).parent / "fixtures"
COUNTER = "module TopModule (input clk, input reset, output reg [15:0] q);\n  always @(posedge clk) q <= reset ? 16'd0 : q + 16'd1;\nendmodule\n"
HALVES = "module TopModule (input [3:0] in, output [1:0] hi, output [1:0] lo);\n  assign {hi, lo} = in;\nendmodule\n"


@pytest.fixture(scope="module")
def parity() -> dict[str, Task]:
    return {task.id.split("/")[-1]: task for task in import_tasks("verilog-eval", FIXTURES / "verilog_eval_parity")}


def test_tasks_get_the_benchmarks_time_and_its_timeout_rule(parity: dict[str, Task]) -> None:
    for task in parity.values():
        assert task.limits.wall_s == 30.0 and task.limits.cpu_s == 30.0
        assert task.option("fail_pattern") == "^TIMEOUT$"


def test_a_testbench_whose_watchdog_fires_fails_every_design(rtl: Backend, parity: dict[str, Task]) -> None:
    task = parity["Prob201_slow_counter"]
    for design in (task.reference or "", COUNTER):
        outcome = rtl.run(task, design)
        assert outcome.label == "Simulation_Mismatch" and outcome.diagnostic == "TIMEOUT", outcome
    # the same design passes once the rule is gone: the TIMEOUT line, not the design, is what fails it
    lenient = dataclasses.replace(task, options={k: v for k, v in task.options.items() if k != "fail_pattern"})
    assert rtl.run(lenient, COUNTER).label == PASS


def test_a_reference_the_simulator_cannot_compile_is_not_run_here(rtl: Backend, parity: dict[str, Task]) -> None:
    task = parity["Prob202_pack_fields"]
    for design in (task.reference or "", HALVES):
        outcome = rtl.run(task, design)
        assert outcome.label == INFRA_ERROR, outcome
        assert outcome.diagnostic.startswith("not run here") and "ref.sv:14: sorry: This cast operation is not yet supported" in outcome.diagnostic


def test_a_construct_the_simulator_cannot_compile_in_the_design_is_the_designs_failure(rtl: Backend) -> None:
    (task,) = [t for t in import_tasks("verilog-eval", FIXTURES / "verilog_eval") if t.id.endswith("Prob001_and_gate")]
    design = ("module TopModule (input a, input b, output out);\n  typedef struct packed { logic x; logic y; } p_t;\n"
              "  p_t p;\n  assign p = p_t'({a, b});\n  assign out = p.x & p.y;\nendmodule\n")
    outcome = rtl.run(task, design)
    assert outcome.label == "Elaboration_Error" and "sorry" in outcome.diagnostic, outcome


def test_a_design_that_instantiates_refmodule_is_told_it_may_not(rtl: Backend) -> None:
    (task,) = [t for t in import_tasks("verilog-eval", FIXTURES / "verilog_eval") if t.id.endswith("Prob001_and_gate")]
    cheat = "module TopModule (input a, input b, output out);\n  RefModule inner (.a(a), .b(b), .out(out));\nendmodule\n"
    outcome = rtl.run(task, cheat)
    assert outcome.label == "Elaboration_Error", outcome
    assert "`RefModule` is the task's own module, which a design may not instantiate" in outcome.diagnostic
    assert "must define" not in outcome.diagnostic
    missing = rtl.run(task, "module TopModule (input a, input b, output out);\n  Helper h (.a(a), .b(b), .out(out));\nendmodule\n")
    assert "the design must define module `Helper`" in missing.diagnostic, missing
