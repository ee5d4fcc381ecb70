"""rtl tasks with a cocotb testbench (testbench_kind = "cocotb"), on the bundled tasks rtl/cocotb_*:
references pass, wrong designs fail with the label that fits, parameter sets each run, a broken testbench
is the task's fault (Infra_Error), and the report is read only from its tagged lines. The hostile cases
are in hostile/rtlcocotb.py (run by test_hostile.py); their honest twin is here.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from ecot.audit.hostile import rtlcocotb
from ecot.core.errors import TaskFormatError
from ecot.core.outcome import INFRA_ERROR, PASS
from ecot.core.task import Task
from ecot.domains.rtl.backend import ELABORATION_ERROR, SIMULATION_MISMATCH, SYNTAX_ERROR
from ecot.domains.rtl.cocotb_sim import read_report
from ecot.tasks.suite import bundled_suite_path, load_suite

from .common import bundled_task, bundled_tasks, describe, evaluate, with_changes

TASK_IDS = sorted(task.id for task in bundled_tasks("rtl") if task.id.startswith("rtl/cocotb_"))

# Wrong designs for each fixture: (name, old text of the reference, new text). Each must fail its tests.
WRONG_VARIANTS = {
    "rtl/cocotb_counter": [
        ("no_wrap", "count <= count + 1'b1;", "count <= (&count) ? count : count + 1'b1;"),
        ("ignores_enable", "else if (en) count", "else count"),
        ("async_reset_high_value", "if (rst) count <= {WIDTH{1'b0}};", "if (rst) count <= {WIDTH{1'b1}};"),
    ],
    "rtl/cocotb_seq_detect": [
        ("no_overlap", "GOT1011: state <= din ? GOT1 : GOT10;", "GOT1011: state <= IDLE;"),
        ("mealy_output", "assign found = (state == GOT1011);", "assign found = (state == GOT101) && din;"),
    ],
    "rtl/cocotb_delay_line": [
        ("one_stage_short", "assign dout = stage[DEPTH-1];", "assign dout = stage[(DEPTH > 1) ? DEPTH-2 : 0];"),
        ("fixed_width", "input  wire [WIDTH-1:0] din,", "input  wire [7:0] din,"),
    ],
}


def task_of(task_id: str) -> Task:
    return bundled_task(task_id)


def variant(task: Task, old: str, new: str) -> str:
    reference = task.reference or ""
    assert old in reference, f"{task.id}: the variant's text {old!r} is not in the reference"
    return reference.replace(old, new)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reference_passes(task_id: str) -> None:
    outcome = evaluate(task_of(task_id), task_of(task_id).reference or "")
    assert outcome.label == PASS, describe(outcome)
    assert outcome.metrics["tests"] == outcome.metrics["tests_passed"] > 0


@pytest.mark.parametrize(("task_id", "name", "old", "new"),
                         [(task_id, *change) for task_id, changes in WRONG_VARIANTS.items() for change in changes])
def test_wrong_design_fails_its_tests(task_id: str, name: str, old: str, new: str) -> None:
    outcome = evaluate(task_of(task_id), variant(task_of(task_id), old, new))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert re.search(r"test_\w+\.\w+ failed: ", outcome.diagnostic), outcome.diagnostic


def test_every_parameter_set_runs_and_the_failing_one_is_named() -> None:
    task = task_of("rtl/cocotb_delay_line")
    outcome = evaluate(task, task.reference or "")
    assert outcome.metrics["tests"] == 6 and "each of 3 parameter sets" in outcome.diagnostic, describe(outcome)
    # right for DEPTH = 3 and DEPTH = 1, wrong for the third set only
    only_short = variant(task, "assign dout = stage[DEPTH-1];", "assign dout = stage[(DEPTH > 3) ? 3 : DEPTH-1];")
    outcome = evaluate(task, only_short)
    assert outcome.label == SIMULATION_MISMATCH and "(parameters WIDTH=16, DEPTH=6)" in outcome.diagnostic, describe(outcome)


@pytest.mark.parametrize(("candidate", "label", "words"), [
    ("module counter(input clk, rst, en, output reg [7:0] count)\n  always @(posedge clk) count <= 0;\nendmodule\n",
     SYNTAX_ERROR, "syntax error"),
    ("module counter_x(input clk, rst, en, output reg [7:0] count);\nendmodule\n", ELABORATION_ERROR, "counter"),
    ('module counter(input clk, rst, en, output reg [7:0] count);\n  initial $system("true");\nendmodule\n',
     ELABORATION_ERROR, "$system is not available"),
    # a port the tests drive is missing: cocotb's handle lookup fails inside the tests, the interface is wrong
    ("module counter(input clk, rst, output reg [7:0] count);\n  always @(posedge clk) count <= rst ? 0 : count + 1;\nendmodule\n",
     ELABORATION_ERROR, "the tests use counter.en, which the design does not have"),
])
def test_refused_designs_get_the_label_that_fits(candidate: str, label: str, words: str) -> None:
    outcome = evaluate(task_of("rtl/cocotb_counter"), candidate)
    assert outcome.label == label and words in outcome.diagnostic, describe(outcome)


def test_a_testbench_that_cannot_load_is_the_tasks_fault() -> None:
    task = task_of("rtl/cocotb_counter")
    broken = dataclasses.replace(task, files={**task.files, "test_counter.py": "import cocotb\nraise ImportError('no such helper')\n"})
    outcome = evaluate(broken, task.reference or "")
    assert outcome.label == INFRA_ERROR and "did not start" in outcome.diagnostic and "no such helper" in outcome.diagnostic, describe(outcome)


def test_the_log_keeps_neither_the_tag_nor_the_tests_folder() -> None:
    task = task_of("rtl/cocotb_counter")
    outcome = evaluate(task, variant(task, "else if (en) count", "else count"))
    assert "test_counter.py" in outcome.log  # the traceback names the test file, as the task does
    assert not re.search(r"tests_[0-9a-f]{24}|[0-9a-f]{32}\{", outcome.log), outcome.log[-2000:]


def test_honest_twin_of_the_hostile_oracle_passes() -> None:
    """The hostile oracles are right only when their attack works; with a harmless one they pass, so a
    contained attack fails because the sandbox refused, not because the oracle is broken."""
    case = rtlcocotb.CONTROL
    outcome = evaluate(with_changes(bundled_task(case.task_id), dict(case.options)), case.candidate)
    assert outcome.label == PASS, describe(outcome)


def test_report_lines_count_only_with_the_tag() -> None:
    tag = "ab" * 16
    output = "\n".join([
        '{"kind": "start", "tests": 1}',  # untagged: the design's
        f'noise{tag}{{"kind": "start", "tests": 2}}',
        f'{tag}{{"kind": "test", "name": "t.a", "outcome": "PASS"}}',
        f'{"cd" * 16}{{"kind": "test", "name": "t.b", "outcome": "PASS"}}',  # another tag
        f'{tag}{{"kind": "end", "tests": 2, "cut_short": false}}',
    ])
    report = read_report(output, tag)
    assert report.planned == 2 and [t["name"] for t in report.tests] == ["t.a"] and report.end is not None


@pytest.mark.parametrize(("options", "words"), [
    ({"top": None}, "needs option top"),
    ({"timescale": "1ns"}, "unit/precision"),
    ({"test_modules": ["test_missing"]}, "test_missing.py"),
    ({"parameters": {"BAD NAME": 1}}, "parameter name"),
])
def test_bad_cocotb_options_fail_when_the_suite_loads(tmp_path: object, options: dict[str, object], words: str) -> None:
    source = bundled_suite_path("rtl") / "cocotb_counter"
    folder = tmp_path / "counter"  # type: ignore[operator]
    folder.mkdir()
    for path in source.iterdir():
        (folder / path.name).write_text(path.read_text())
    toml = (folder / "task.toml").read_text()
    for key, value in options.items():
        toml = re.sub(rf"(?m)^{key} = .*\n", "", toml)
        if value is not None:
            toml += f"{key} = {_toml(value)}\n"
    (folder / "task.toml").write_text(toml)
    with pytest.raises(TaskFormatError, match=re.escape(words)):
        load_suite(folder.parent)


def _toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml(v)}' for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return f'"{value}"' if isinstance(value, str) else str(value)
