"""`ecot import cvdp`: CVDP's non-agentic code-generation JSONL as rtl tasks with a cocotb testbench, on the
two example datapoints in ../shared/data/cvdp and on datapoints written here in CVDP's layout; and the
reading of test_runner.py (timescale, parameter sets, plusargs) without running it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ecot.cli.main import main
from ecot.core.errors import TaskFormatError
from ecot.core.outcome import PASS
from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.rtl.backend import ELABORATION_ERROR, SIMULATION_MISMATCH, SYNTAX_ERROR
from ecot.importers import Skipped, import_tasks
from ecot.importers.cvdp_runner import RunnerProblem, read_runner
from ecot.tasks.suite import load_suite

CVDP = Path(os.environ.get("ECOT_CVDP_DIR", Path(__file__).resolve().parents[2] / "shared" / "data" / "cvdp"))
NONAGENTIC = CVDP / "cvdp_v1.1.0_example_nonagentic_code_generation_no_commercial_with_solutions.jsonl"
LFSR = "cvdp/cvdp_copilot_lfsr_0001"

RUNNER = """import os
from cocotb_tools.runner import get_runner
import pytest

def runner(WIDTH: int = 0, plusargs=[]):
    parameter = {"WIDTH": WIDTH}
    r = get_runner(os.getenv("SIM", "icarus"))
    r.build(sources=os.getenv("VERILOG_SOURCES").split(), hdl_toplevel=os.getenv("TOPLEVEL"), parameters=parameter,
            always=True, timescale=("1ns", "1ps"))
    r.test(hdl_toplevel=os.getenv("TOPLEVEL"), test_module=os.getenv("MODULE"), plusargs=plusargs)

@pytest.mark.parametrize("test", range(3))
@pytest.mark.parametrize("WIDTH", [4, 8])
def test_adder(WIDTH, test):
    runner(WIDTH=WIDTH)
"""
TESTS = """import random
import cocotb
from cocotb.triggers import Timer
from helpers import expected_sum

@cocotb.test()
async def adds(dut):
    width = len(dut.a)
    for _ in range(50):
        a, b = random.getrandbits(width), random.getrandbits(width)
        dut.a.value, dut.b.value = a, b
        await Timer(1, unit="ns")
        assert int(dut.sum.value) == expected_sum(a, b, width), f"{a} + {b} gave {int(dut.sum.value)}"
"""
FULL_ADDER = "module full_adder(input a, b, cin, output s, cout);\n  assign {cout, s} = a + b + cin;\nendmodule\n"
ADDER = """module adder #(parameter WIDTH = 4) (input [WIDTH-1:0] a, b, output [WIDTH:0] sum);
  wire [WIDTH:0] carry;
  assign carry[0] = 1'b0;
  genvar i;
  generate for (i = 0; i < WIDTH; i = i + 1) begin : bit_
    full_adder fa(.a(a[i]), .b(b[i]), .cin(carry[i]), .s(sum[i]), .cout(carry[i+1]));
  end endgenerate
  assign sum[WIDTH] = carry[WIDTH];
endmodule
"""


def datapoint(**changes: Any) -> dict[str, Any]:
    """A non-agentic CVDP datapoint in the benchmark's layout: a ripple-carry adder built from a given full adder."""
    row: dict[str, Any] = {
        "id": "cvdp_made_adder_0001",
        "categories": ["cid003", "easy"],
        "input": {"prompt": "Write module `adder` with parameter WIDTH from instances of the given `full_adder`.",
                  "context": {"rtl/full_adder.sv": FULL_ADDER}},
        "output": {"response": "", "context": {"rtl/adder.sv": ADDER}},
        "harness": {"files": {
            "Dockerfile": "FROM __OSS_SIM_IMAGE__\n",
            "src/.env": "SIM = icarus\nTOPLEVEL_LANG = verilog\nVERILOG_SOURCES = /code/rtl/full_adder.sv /code/rtl/adder.sv\n"
                        "TOPLEVEL = adder\nMODULE = test_adder\nPYTHONPATH = /src\n",
            "src/test_runner.py": RUNNER,
            "src/test_adder.py": TESTS,
            "src/helpers.py": "def expected_sum(a, b, width):\n    return a + b\n",
        }},
    }
    for key, value in changes.items():
        row[key] = value
    return row


def write_jsonl(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def check(task: Task, candidate: str) -> Any:
    return get_backend("rtl").run(task, candidate)


# -- the shared examples --------------------------------------------------------------------------------
def test_shared_examples_import_the_nonagentic_datapoint_and_name_the_agentic_one() -> None:
    skips: list[Skipped] = []
    tasks = import_tasks("cvdp", CVDP, skips)
    assert [task.id for task in tasks] == [LFSR]
    named = " ".join(f"{skip.where} {skip.reason}" for skip in skips)
    assert "cvdp_agentic_fixed_arbiter_0001" in named and "agentic" in named
    task = tasks[0]
    assert task.options["testbench_kind"] == "cocotb" and task.options["top"] == "lfsr_8bit"
    assert task.options["design_file"] == "rtl/lfsr_8bit.sv" and task.options["timescale"] == "1ns/1ns"
    assert sorted(task.files) == ["test_lfsr.py"] and "cid003" in task.tags
    assert "Answer with the complete Verilog of `rtl/lfsr_8bit.sv`" in task.prompt


@pytest.fixture(scope="module")
def lfsr() -> Task:
    return import_tasks("cvdp", NONAGENTIC)[0]


def test_shared_reference_passes(lfsr: Task) -> None:
    outcome = check(lfsr, lfsr.reference or "")
    assert outcome.label == PASS and outcome.metrics["tests"] == 3, f"{outcome.label}: {outcome.diagnostic}\n{outcome.log[-1500:]}"


@pytest.mark.parametrize(("change", "label"), [
    (("q1,q2,lfsr_out[4]", "q2,q1,lfsr_out[4]"), SIMULATION_MISMATCH),  # two taps swapped
    (("lfsr_out <= {lfsr_out[0],lfsr_out[7],q1,q2,lfsr_out[4],lfsr_out[3],lfsr_out[2],q3};", "lfsr_out <= lfsr_out;"),
     SIMULATION_MISMATCH),  # never shifts
    (("lfsr_out <= {lfsr_out[0],lfsr_out[7],", "lfsr_out <= ~{lfsr_out[0],lfsr_out[7],"), SIMULATION_MISMATCH),  # inverted
    (("module lfsr_8bit", "module lfsr8"), ELABORATION_ERROR),
    (("end\nendmodule", "endmodule"), SYNTAX_ERROR),
])
def test_shared_wrong_designs_fail(lfsr: Task, change: tuple[str, str], label: str) -> None:
    reference = lfsr.reference or ""
    assert change[0] in reference
    outcome = check(lfsr, reference.replace(change[0], change[1]))
    assert outcome.label == label, f"{outcome.label}: {outcome.diagnostic}"


def test_a_mutant_the_benchmarks_tests_miss_passes_as_it_does_there(lfsr: Task) -> None:
    """Parity, not strictness: test_lfsr.py checks one step and the period from the reached state, so a
    reset that loads 0 (an LFSR stuck at 0: its next value and its value 255 steps later are 0) passes
    CVDP's own harness, and passes here too (a weak test for `ecot audit` to report, not to hide)."""
    outcome = check(lfsr, (lfsr.reference or "").replace("lfsr_out <= lfsr_seed;", "lfsr_out <= 8'h00;"))
    assert outcome.label == PASS, f"{outcome.label}: {outcome.diagnostic}"


def test_cli_writes_a_suite_that_loads_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "cvdp", str(NONAGENTIC), str(tmp_path / "suite")]) == 0
    assert "imported 1 cvdp tasks" in capsys.readouterr().out
    (task,) = load_suite(tmp_path / "suite")
    assert task.id == LFSR and check(task, task.reference or "").label == PASS


# -- datapoints written here ----------------------------------------------------------------------------
def test_given_rtl_helpers_and_parameter_sets(tmp_path: Path) -> None:
    (task,) = import_tasks("cvdp", write_jsonl(tmp_path / "made.jsonl", datapoint()))
    assert task.options["parameters"] == [{"WIDTH": 4}, {"WIDTH": 8}] and task.options["timescale"] == "1ns/1ps"
    assert sorted(task.files) == ["helpers.py", "rtl/full_adder.sv", "test_adder.py"]
    assert "`rtl/full_adder.sv`:\n```verilog\nmodule full_adder" in task.prompt
    outcome = check(task, task.reference or "")
    assert outcome.label == PASS and "each of 2 parameter sets" in outcome.diagnostic, f"{outcome.label}: {outcome.diagnostic}"
    wrong_width = ADDER.replace("assign sum[WIDTH] = carry[WIDTH];", "assign sum[WIDTH] = carry[4];")
    outcome = check(task, wrong_width)  # right for WIDTH = 4 only
    assert outcome.label == SIMULATION_MISMATCH and "(parameters WIDTH=8)" in outcome.diagnostic, outcome.diagnostic


@pytest.mark.parametrize(("changes", "reason"), [
    ({"harness": {"files": {**datapoint()["harness"]["files"], "src/.env": "SIM = verilator\nTOPLEVEL = adder\nMODULE = test_adder\n"}}},
     "simulates with 'verilator'"),
    ({"harness": {"files": {**datapoint()["harness"]["files"],
                            "src/.env": "SIM = icarus\nTOPLEVEL_LANG = vhdl\nTOPLEVEL = adder\nMODULE = test_adder\n"}}}, "'vhdl'"),
    ({"harness": {"files": {**datapoint()["harness"]["files"],
                            "src/test_runner.py": RUNNER.replace("always=True,", "always=True, defines={'FAST': 1},")}}},
     "build defines"),
    ({"harness": {}}, "no cocotb harness"),
    ({"output": {"context": {"docs/notes.md": "text"}}}, "no design to write"),
])
def test_unusable_datapoints_are_skipped_and_named(tmp_path: Path, changes: dict[str, Any], reason: str) -> None:
    source = write_jsonl(tmp_path / "mixed.jsonl", datapoint(), datapoint(id="cvdp_made_bad_0002", **changes))
    skips: list[Skipped] = []
    tasks = import_tasks("cvdp", source, skips)
    assert [task.id for task in tasks] == ["cvdp/cvdp_made_adder_0001"]
    assert [skip.where.split(" ")[0] for skip in skips] == ["cvdp_made_bad_0002"]
    assert reason in skips[0].reason, skips


def test_malformed_rows_name_the_line(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text(json.dumps(datapoint()) + "\n{not json\n")
    with pytest.raises(TaskFormatError, match=r"bad\.jsonl:2"):
        import_tasks("cvdp", source)


# -- test_runner.py, read without running it -------------------------------------------------------------
@pytest.mark.parametrize(("runner", "expected"), [
    (RUNNER, {"timescale": "1ns/1ps", "parameter_sets": [{"WIDTH": 4}, {"WIDTH": 8}], "plusargs": []}),
    (RUNNER.replace("runner(WIDTH=WIDTH)", "runner(WIDTH=WIDTH, plusargs=['+fast'])"),
     {"timescale": "1ns/1ps", "parameter_sets": [{"WIDTH": 4}, {"WIDTH": 8}], "plusargs": ["+fast"]}),
    # two names varied together by one decorator, crossed with another: 2 x 2 sets, not 2 x 2 x 2
    ("""@pytest.mark.parametrize("W", [4, 8])
@pytest.mark.parametrize("D, M", [(2, "a"), (3, "b")])
def test_x(W, D, M):
    go(parameter={"W": W, "D": D, "M": str(M)})
def go(parameter={}):
    r.build(sources=s, hdl_toplevel=t, parameters=parameter)
    r.test(hdl_toplevel=t, test_module=m)
""", {"timescale": None, "parameter_sets": [{"W": 4, "D": 2, "M": "a"}, {"W": 4, "D": 3, "M": "b"}, {"W": 8, "D": 2, "M": "a"},
                                            {"W": 8, "D": 3, "M": "b"}], "plusargs": []}),
])
def test_runner_settings(runner: str, expected: dict[str, Any]) -> None:
    settings = read_runner(runner)
    assert {"timescale": settings.timescale, "parameter_sets": settings.parameter_sets, "plusargs": settings.plusargs} == expected


@pytest.mark.parametrize(("runner", "words"), [
    (RUNNER.replace("[4, 8]", "[random.randint(1, 32) for _ in range(3)]"), "computes parameter WIDTH"),
    (RUNNER.replace("plusargs=plusargs)", "plusargs=plusargs, extra_env={'A': '1'})"), "extra environment variables"),
    (RUNNER.replace('timescale=("1ns", "1ps")', "timescale=scale()"), "timescale"),
    ("def f(:\n", "does not parse"),
    ("print('no runner here')\n", "calls no runner.build()"),
])
def test_runner_settings_that_cannot_be_read(runner: str, words: str) -> None:
    with pytest.raises(RunnerProblem, match=words):
        read_runner(runner)
