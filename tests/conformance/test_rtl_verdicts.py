"""What a passing RTL verdict requires, on imported benchmarks and on tasks built here: the attacks
the cross-domain hostile suite (hostile/rtl.py) cannot express because they need a VerilogEval or
RTLLM testbench, plus the labels and diagnostics of refused designs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ecot.core.outcome import PASS
from ecot.core.task import Task
from ecot.domains.rtl.backend import ELABORATION_ERROR, SIMULATION_MISMATCH
from ecot.importers import import_tasks

from .common import bundled_task, describe, evaluate, skip_unless_isolated

VE_FIXTURES = Path(__file__).parents[1] / "fixtures" / "verilog_eval"
VE_TASKS = {task.id: task for task in import_tasks("verilog-eval", VE_FIXTURES)}


def ve_task(name: str) -> Task:
    return VE_TASKS[f"verilog-eval/{name}"]


def top_module_head(task: Task) -> str:
    """`module TopModule (...);` of the task's reference, without the body."""
    reference = task.reference or ""
    start = reference.index("module TopModule")
    return reference[start : reference.index(";", start) + 1] + "\n"


# -- VerilogEval: the summary line comes from a `final` block, so it is printed however the run ends --
@pytest.mark.parametrize("task_id", sorted(VE_TASKS))
def test_verilog_eval_empty_design_that_finishes_at_once_does_not_pass(task_id: str) -> None:
    """The reported attack: `Mismatches: 0 in 0 samples` was a Pass on every VerilogEval problem."""
    task = VE_TASKS[task_id]
    outcome = evaluate(task, top_module_head(task) + "  initial $finish;\nendmodule\n")
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert "ended before the testbench finished" in outcome.diagnostic and "calls $finish" in outcome.diagnostic


@pytest.mark.parametrize("task_id", sorted(VE_TASKS))
@pytest.mark.parametrize("ender", ["initial $stop;", "initial #7 $finish;", 'initial #3 $fatal(0, "x");',
                                   "integer n; initial begin for (n = 0; n < 300000; n = n + 1) ; #9 $finish(0); end"])
def test_verilog_eval_right_design_that_ends_the_run_early_does_not_pass(task_id: str, ender: str) -> None:
    """Right logic is not enough: the samples the design cut off were never checked."""
    task = VE_TASKS[task_id]
    candidate = "`timescale 1 ps/1 ps\n" + (task.reference or "").replace("endmodule", f"  {ender}\nendmodule")
    outcome = evaluate(task, candidate)
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert "ended before the testbench finished" in outcome.diagnostic, describe(outcome)


def test_verilog_eval_references_still_pass_and_report_their_samples() -> None:
    for task in VE_TASKS.values():
        outcome = evaluate(task, task.reference or "")
        assert outcome.label == PASS, describe(outcome)
        assert int(outcome.metrics["samples"]) > 0 and "ECOT-TESTBENCH-END" not in outcome.log


def test_verilog_eval_upward_reference_hidden_behind_a_string_does_not_pass() -> None:
    """`"//"` in a string once made the hierarchy scan skip the rest of the line, so the design's read of
    the reference instance (`good1.out`, an upward reference into the bench) went unchecked."""
    task = ve_task("Prob001_and_gate")
    candidate = top_module_head(task) + '  initial $display("//"); assign out = good1.out;\nendmodule\n'
    outcome = evaluate(task, candidate)
    assert outcome.label == ELABORATION_ERROR, describe(outcome)
    assert "on its own" in outcome.diagnostic


# -- the sample count: a testbench that asks the design whether to go on ---------------------------------
ASKING_BENCH = """module tb;
    reg [3:0] a; wire [3:0] y; wire more;
    integer errors = 0, samples = 0;
    asker dut (.a(a), .y(y), .more(more));
    initial begin
        a = 0;
        while (samples < 16 && (samples < 2 || more)) begin
            #1; samples = samples + 1;
            if (y !== ~a) errors = errors + 1;
            a = a + 3;
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
"""
ASKER = "module asker (input [3:0] a, output [3:0] y, output more);\n    assign y = ~a;\n    assign more = 1'b1;\nendmodule\n"
# right only for the first samples, then it tells the bench to stop: the bench ends itself, cleanly
QUITTER = "module asker (input [3:0] a, output [3:0] y, output more);\n    assign y = a < 6 ? ~a : a;\n    assign more = 1'b0;\nendmodule\n"


def asking_task(**options: object) -> Task:
    base = bundled_task("rtl/mux4_bus")
    opts = {"top": "asker", "testbench": "tb.sv", "hidden_modules": ["tb"], **options}
    return dataclasses.replace(base, id="rtl/asker", files={"tb.sv": ASKING_BENCH}, reference=ASKER, options=opts)


def test_a_run_with_fewer_samples_than_the_reference_does_not_pass() -> None:
    assert evaluate(asking_task(), ASKER).label == PASS
    outcome = evaluate(asking_task(), QUITTER)
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert "checked 2 samples, but the reference reports 16" in outcome.diagnostic


def test_the_sample_count_can_be_fixed_or_left_open_by_option() -> None:
    wrong = evaluate(asking_task(samples=17), ASKER)
    assert wrong.label == SIMULATION_MISMATCH and "the task (option samples) reports 17" in wrong.diagnostic, describe(wrong)
    assert evaluate(asking_task(samples="any"), QUITTER).label == PASS


# -- RTLLM-style testbenches -----------------------------------------------------------------------------
RTLLM_TB = """module tiny_tb;
  reg [3:0] a; wire [3:0] y; reg [3:0] expected [0:3];
  integer i, errors = 0;
  tiny dut (.a(a), .y(y));
  initial begin
    $readmemh("expected.txt", expected);
    for (i = 0; i < 4; i = i + 1) begin a = i; #1; if (y !== expected[i]) errors = errors + 1; end
    if (errors == 0) $display("===========Your Design Passed===========");
    else $display("===========Error===========");
    $finish;
  end
endmodule
"""
RTLLM_REF = "module verified_tiny (input [3:0] a, output [3:0] y);\n  assign y = a * 3 + 1;\nendmodule\n"


@pytest.fixture(scope="module")
def rtllm_task(tmp_path_factory: pytest.TempPathFactory) -> Task:
    folder = tmp_path_factory.mktemp("rtllm") / "Misc" / "tiny"
    folder.mkdir(parents=True)
    files = {"design_description.txt": "y = 3a + 1 (4 bits).", "testbench.v": RTLLM_TB,
             "verified_tiny.v": RTLLM_REF, "expected.txt": "1\n4\n7\na\n"}
    for name, text in files.items():
        (folder / name).write_text(text)
    (task,) = import_tasks("rtllm", folder.parents[1])
    return task


def test_rtllm_reference_passes(rtllm_task: Task) -> None:
    outcome = evaluate(rtllm_task, rtllm_task.reference or "")
    assert outcome.label == PASS, describe(outcome)


def test_rtllm_expected_values_cannot_be_read_by_the_design(rtllm_task: Task) -> None:
    skip_unless_isolated()
    cheat = "module tiny (input [3:0] a, output [3:0] y);\n  reg [3:0] m [0:3];\n  initial $readmemh(\"expected.txt\", m);\n  assign y = m[a];\nendmodule\n"
    outcome = evaluate(dataclasses.replace(rtllm_task, options={**rtllm_task.options, "synth": "off"}), cheat)
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert "data_" not in outcome.diagnostic + outcome.log  # the secret name stays secret


@pytest.mark.parametrize("ender", ["initial $finish;", "initial begin repeat (200000) #0; $finish; end", "initial #2 $stop;"])
def test_rtllm_design_ending_the_run_does_not_pass(rtllm_task: Task, ender: str) -> None:
    candidate = f"module tiny (input [3:0] a, output [3:0] y);\n  assign y = a * 3 + 1;\n  {ender}\nendmodule\n"
    outcome = evaluate(rtllm_task, candidate)
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)


# -- refused designs and the names diagnostics use ----------------------------------------------------------
def test_system_is_an_elaboration_error() -> None:
    task = bundled_task("rtl/mux4_bus")
    candidate = (task.reference or "").replace("endmodule", '    initial $system("touch /tmp/x");\nendmodule')
    outcome = evaluate(task, candidate)
    assert outcome.label == ELABORATION_ERROR, describe(outcome)
    assert "$system is not available in the simulator" in outcome.diagnostic and outcome.diagnostic.startswith("design.sv:")


def test_literal_host_paths_are_refused_before_anything_runs() -> None:
    task = bundled_task("rtl/mux4_bus")
    candidate = (task.reference or "").replace("endmodule", '    integer fd;\n    initial fd = $fopen("../../etc/passwd", "r");\nendmodule')
    outcome = evaluate(task, candidate)
    assert outcome.label == ELABORATION_ERROR, describe(outcome)
    assert '$fopen("../../etc/passwd") names a file outside the design\'s folder' in outcome.diagnostic


def test_diagnostics_name_bundle_files_as_the_task_does() -> None:
    base = bundled_task("rtl/mux4_bus")
    helper = "module twin (input [7:0] a, output [7:0] b);\n    assign b = a;\nendmodule\n"
    task = dataclasses.replace(base, files={**base.files, "helpers/twin.sv": helper})
    outcome = evaluate(task, (base.reference or "") + helper)
    assert outcome.label == ELABORATION_ERROR, describe(outcome)
    assert "twin.sv" in outcome.log and "src_" not in outcome.log and "tb_" not in outcome.log, outcome.log


# -- a VerilogEval-style bench: the reference instance `good1` and a named block sit beside the design ----
UPWARD_BENCH = """module tb;
    reg [1:0] sel; reg [7:0] d0, d1, d2, d3; wire [7:0] y, y_ref;
    integer errors = 0, n = 0;
    mux4_golden good1 (.sel(sel), .d0(d0), .d1(d1), .d2(d2), .d3(d3), .y(y_ref));
    mux4_bus dut (.sel(sel), .d0(d0), .d1(d1), .d2(d2), .d3(d3), .y(y));
    initial begin : stimulus
        reg [7:0] expected;
        repeat (64) begin
            {sel, d0, d1, d2, d3} = $urandom; expected = y_ref; #1;
            if (y !== y_ref) errors = errors + 1; n = n + 1;
        end
        $display("Mismatches: %0d in %0d samples", errors, n); $finish;
    end
endmodule
module mux4_golden (input [1:0] sel, input [7:0] d0, d1, d2, d3, output [7:0] y);
    assign y = sel == 0 ? d0 : sel == 1 ? d1 : sel == 2 ? d2 : d3;
endmodule
"""
HEAD_WIRE = "module mux4_bus (input wire [1:0] sel, input wire [7:0] d0, d1, d2, d3, output wire [7:0] y);\n"
UPWARD_ATTACKS = {
    "sibling_instance": HEAD_WIRE + "    assign y = good1.y;\nendmodule\n",
    "named_block": HEAD_WIRE + "    assign y = stimulus.expected;\nendmodule\n",
    "behind_a_string": HEAD_WIRE + '    initial $display("/*"); assign y = good1.y; initial $display("*/");\nendmodule\n',
}


@pytest.mark.parametrize("candidate", list(UPWARD_ATTACKS.values()), ids=list(UPWARD_ATTACKS))
def test_upward_references_into_the_bench_do_not_pass(candidate: str) -> None:
    task = dataclasses.replace(bundled_task("rtl/mux4_bus"), files={"testbench.sv": UPWARD_BENCH})
    assert evaluate(task, bundled_task("rtl/mux4_bus").reference or "").label == PASS  # the bench itself works
    outcome = evaluate(task, candidate)
    assert outcome.label != PASS, describe(outcome)
    if outcome.label == ELABORATION_ERROR:
        assert "on its own" in outcome.diagnostic  # caught by elaborating the design without the bench
