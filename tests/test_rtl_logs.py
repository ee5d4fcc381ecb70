"""Unit tests of the RTL log readers and the verdict tagging (pure text, no tools)."""

from __future__ import annotations

import pytest

from ecot.domains.rtl import logs


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
    assert not found.completed and logs.read_yosys(log + "End of script. Logfile hash: 1\n").completed


def test_latch_cells_count_even_without_the_message() -> None:
    log = "1. Executing Verilog-2005 frontend: d.sv\n   Number of cells:                  2\n     $dlatch                         1\n     $mux  1\n"
    assert logs.read_yosys(log).problems == ["1 latch cell(s) of type $dlatch in the design"]


@pytest.mark.parametrize(
    ("source", "reaches"),
    [
        ('module a(output y); initial $display("//"); assign y = good1.y; endmodule', True),
        ('module a(output y); initial $display("/*"); assign y = good1.y; initial $display("*/"); endmodule', True),
        ("module a(output y); wire \\p//q ; assign y = good1.y; endmodule", True),
        ('module a(output y); initial $display("a.b // c.d"); endmodule', False),
    ],
)
def test_comments_strings_and_escaped_names_are_read_as_the_compiler_reads_them(source: str, reaches: bool) -> None:
    assert logs.may_reach_outside(source) is reaches


def test_the_checkers_read_no_comments_or_attributes() -> None:
    source = (
        '(* blackbox *)\nmodule m (input a, output reg q); // synopsys translate_off\n'
        '  (* nolatches *) always @(*) if (a) q = a; /* full_case\n lint_off */\n'
        '  initial $display("// kept (* kept *)"); wire \\w(*x ;\nendmodule\n'
    )
    checked = logs.strip_for_checks(source)
    assert checked.count("\n") == source.count("\n")  # line numbers still point at the design
    for gone in ("blackbox", "translate_off", "nolatches", "full_case", "lint_off"):
        assert gone not in checked
    assert "always @(*)" in checked and '"// kept (* kept *)"' in checked and "\\w(*x" in checked


def test_testbench_finishes_print_the_tagged_end_mark() -> None:
    tb = 'initial begin #5 $finish; end\n// $finish;\ninitial $display("$stop;");\nalways @(x) if (y) $stop(1) ; else $finish();\n'
    marked = logs.tag_testbench(tb, "@T@")
    assert marked.count('$display("@T@ECOT-TESTBENCH-END")') == 3
    assert '"@T@$stop;"' in marked and "// $finish;" in marked  # strings and comments untouched
    lines, ended = logs.split_end(["Mismatches: 0 in 3 samples", logs.END_MARK])
    assert lines == ["Mismatches: 0 in 3 samples"] and ended
    assert logs.split_end(["Mismatches: 0 in 0 samples"]) == (["Mismatches: 0 in 0 samples"], False)
    assert logs.calls_finish(tb) and not logs.calls_finish('// $finish\ninitial $display("$finish");\n')


def test_literal_paths_outside_the_work_folder_are_named() -> None:
    source = (
        'initial fd = $fopen("scratch.txt", "w");\n'
        'initial fd = $fopen("/etc/shadow", "r"); // $fopen("/etc/passwd")\n'
        '`include "../../x.vh"\n'
        'initial $readmemh("sub/../../data.hex", m);\n'
        'initial $dumpfile("/tmp/w.vcd");\n'
    )
    assert logs.outside_paths(source, "design.sv") == [
        'design.sv:2: $fopen("/etc/shadow")',
        'design.sv:3: `include "../../x.vh"',
        'design.sv:4: $readmemh("sub/../../data.hex")',
        'design.sv:5: $dumpfile("/tmp/w.vcd")',
    ]


def test_vvp_load_errors_only_when_the_program_did_not_run() -> None:
    stderr = "design.sv:2: Error: System task/function $system() is not defined by any module.\n"
    assert logs.vvp_load_errors("sim.vvp: Program not runnable, 1 errors.\n", stderr) == [
        "design.sv:2: System task/function $system() is not defined by any module."
    ]
    assert logs.vvp_load_errors("Mismatches: 0 in 1 samples\n", stderr) == []
