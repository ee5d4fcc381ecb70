"""Unit tests of the RTL log readers and the verdict tagging (pure text, no tools)."""

from __future__ import annotations

import pytest

from ecot.backends import rtl_logs as logs


@pytest.mark.parametrize(
    ("source", "reaches"),
    [
        ("module a(input x, output y); assign y = x; endmodule", False),
        ("module a(output y); assign y = good1.y; endmodule", True),
        ("module a(output y); assign y = good1 /* c */ . y; endmodule", True),
        ("module a(output y); // good1.y\n assign y = 1.5; endmodule", False),
        ('module a; initial $display("a.b"); endmodule', False),
        ("module a; sub u (.clk(clk), .d(d)); endmodule", False),
        ("module a; `define H good1\n assign y = `H.y; endmodule", True),
        ("module a; assign y = $root.tb.x; endmodule", True),
        ("module a; assign y = \\good1 .y; endmodule", True),
    ],
)
def test_may_reach_outside_never_misses_a_dotted_name(source: str, reaches: bool) -> None:
    assert logs.may_reach_outside(source) is reaches


def test_only_tagged_lines_are_trusted() -> None:
    tag = logs.new_tag()
    tb = logs.tag_testbench('initial begin $display("Mismatches: %0d in %0d samples", e, n); $write("x"); end', tag)
    assert tb.count(tag) == 2
    output = f"Mismatches: 0 in 9 samples\n{tag}Mismatches: 3 in 9 samples\nnoise {tag}done\n"
    assert logs.trusted_lines(output, tag) == ["Mismatches: 3 in 9 samples", "done"]


def test_judging_uses_pass_fail_and_count_patterns() -> None:
    verdict = logs.judge_simulation(
        ["MISMATCH time=5 signal=y expected=1 got=0", "Mismatches: 2 in 10 samples"],
        r"Mismatches: 0 in \d+ samples",
        None,
        r"Mismatches: (?P<mismatches>\d+) in (?P<samples>\d+) samples",
    )
    assert not verdict.passed and verdict.metrics == {"mismatches": 2, "samples": 10}
    assert verdict.diagnostic.startswith("MISMATCH time=5")
    assert logs.judge_simulation(["Mismatches: 0 in 10 samples", "Failed"], r"Mismatches: 0", "Failed", None).passed is False
    assert "printed nothing" in logs.judge_simulation([], "x", None, None).diagnostic


def test_testbench_root_is_the_module_nobody_instantiates() -> None:
    source = "module stim(output x); endmodule\nmodule tb; stim s1 (.x(x)); dut d (.x(x)); endmodule\n"
    assert logs.top_testbench_module(source) == "tb"


def test_yosys_findings() -> None:
    log = (
        "1. Executing Verilog-2005 frontend: design.sv\n"
        "Latch inferred for signal `\\m.\\q' from process `\\m.$proc$design.sv:2$1': $auto$x\n"
        "Warning: found logic loop in module m:\n    cell $not$x ($not)\n    wire \\y\n"
        "Warning: multiple conflicting drivers for m.\\w:\n   Number of cells:                  7\n"
    )
    found = logs.read_yosys(log)
    assert found.started and found.parsed and not found.pass_error
    assert found.metrics == {"cells": 7}
    assert found.problems == ["inferred latch for signal m.q", "combinational loop in module m through y", "multiple conflicting drivers for m.w"]
    parse = logs.read_yosys("1. Executing Verilog-2005 frontend: design.sv\ndesign.sv:3: ERROR: syntax error, unexpected TOK_LOGIC\n")
    assert parse.started and not parse.parsed and not parse.pass_error
    crash = logs.read_yosys("ERROR: readlink(\"/proc/self/exe\") failed\n")
    assert not crash.started
