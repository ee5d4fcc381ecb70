"""Hostile RTL candidates: contained, labelled, and the machine left as it was.

Most candidates carry an oracle: they behave correctly only if the attack worked, so a contained attack
shows up as a failing verdict and an escape would show up as Pass.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest

from ecot.backends.rtl import ELABORATION_ERROR, SIMULATION_MISMATCH, SYNTAX_ERROR
from ecot.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome

from .common import (
    files_stay_absent,
    bundled_task,
    describe,
    evaluate,
    processes_matching,
    skip_unless_isolated,
    unique_marker,
    with_changes,
)

TASK_ID = "rtl/mux4_bus"
HANG_WALL_S = 3.0
HEAD = "module mux4_bus (input wire [1:0] sel, input wire [7:0] d0, d1, d2, d3, output reg [7:0] y);\n"
# The correct mux when `escaped` is 1, a wrong one otherwise: Pass would mean the attack succeeded.
ORACLE_MUX = (
    "    always @* case (sel) 2'b00: y = escaped ? d0 : ~d0; 2'b01: y = d1; 2'b10: y = d2;"
    " default: y = d3; endcase\n"
)
CORRECT_MUX = "    always @* case (sel) 2'b00: y = d0; 2'b01: y = d1; 2'b10: y = d2; default: y = d3; endcase\n"
WRONG_MUX = "    always @* case (sel) 2'b00: y = d1; 2'b01: y = d0; 2'b10: y = d2; default: y = d3; endcase\n"
OUTSIDE_FILES = (Path("/etc/ecot_pwned"), Path("/tmp/ecot_pwned"), Path.home() / "ecot_pwned")


def design(body: str) -> str:
    return f"{HEAD}{body}endmodule\n"


def oracle_design(attack: str, declarations: str = "") -> str:
    """A design that is correct only when `attack` (statements in an initial block) sets escaped."""
    return design(f"    integer fd;\n    reg escaped = 1'b0;\n{declarations}    initial begin\n{attack}    end\n{ORACLE_MUX}")


def run(candidate: str, wall_s: float | None = None, **options: object) -> Outcome:
    return evaluate(with_changes(bundled_task(TASK_ID), options=options or None, wall_s=wall_s), candidate)


@pytest.fixture(autouse=True)
def _isolated() -> None:
    skip_unless_isolated()


@pytest.fixture
def outside_files_absent() -> Iterator[None]:
    with files_stay_absent(OUTSIDE_FILES):
        yield


# -- file system ------------------------------------------------------------------------------------
def _write_attempt(path: str) -> str:
    # the sandbox may give jobs a private, writable /tmp: only the other paths would be an escape
    flag = "" if path.startswith("/tmp/") else " escaped = 1;"
    return (
        f'        fd = $fopen("{path}", "w");\n'
        f'        if (fd != 0) begin $fdisplay(fd, "pwned"); $fclose(fd);{flag} end\n'
    )


def test_oracle_control_writes_in_the_work_dir_are_allowed() -> None:
    """Positive control: the oracle passes when its file operation succeeds, so a failure above means
    the sandbox refused, not that the oracle is broken."""
    outcome = run(oracle_design(_write_attempt("scratch.txt")))
    assert outcome.label == PASS, describe(outcome)


def test_writes_outside_the_work_dir_do_not_reach_the_host(outside_files_absent: None) -> None:
    attack = "".join(_write_attempt(str(path)) for path in OUTSIDE_FILES)
    attack += '        $dumpfile("/etc/ecot_pwned"); $dumpvars(0, y);\n'
    outcome = run(oracle_design(attack))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)


def test_sandbox_file_system_is_read_only_outside_work_dir_and_tmp() -> None:
    attack = "".join(_write_attempt(path) for path in ("/etc/ecot_probe", "/ecot_probe", "/usr/ecot_probe"))
    outcome = run(oracle_design(attack))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)


def _preload_writer(content: str) -> str:
    return design(
        "    integer fd;\n"
        f'    initial begin fd = $fopen("/etc/ld.so.preload", "w"); if (fd != 0) begin $fwrite(fd, "{content}"); $fclose(fd); end end\n'
        + CORRECT_MUX
    )


def test_planted_preload_does_not_reach_later_evaluations() -> None:
    """A library named in /etc/ld.so.preload would run inside every later job's iverilog and vvp."""
    marker = unique_marker()
    run(_preload_writer(f"/{marker}.so\\n"))
    try:
        later = run(bundled_task(TASK_ID).reference or "")
    finally:
        run(_preload_writer(""))  # should the write ever succeed, an empty list is harmless later on
    assert marker not in later.log, describe(later)


def test_secret_files_cannot_be_read() -> None:
    targets = ["/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa", str(Path.home() / ".bash_history")]
    attack = "".join(f'        fd = $fopen("{t}", "r");\n        if (fd != 0) escaped = 1;\n' for t in targets)
    attack += '        $readmemh("/etc/shadow", mem);\n        if (mem[0] !== 8\'hxx) escaped = 1;\n'
    outcome = run(oracle_design(attack, declarations="    reg [7:0] mem [0:3];\n"))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)
    assert "root:" not in outcome.log


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/passwd", "../../../../../../etc/passwd", "/root/.bashrc"])
def test_include_of_outside_files_fails_without_leaking(path: str) -> None:
    outcome = run(f'`include "{path}"\n' + design(CORRECT_MUX))
    assert outcome.label in (SYNTAX_ERROR, ELABORATION_ERROR), describe(outcome)
    assert "root:" not in outcome.log


COMPILE_BOMBS = {
    "include_dev_zero": '`include "/dev/zero"\n',
    "recursive_macro": "`define BOMB `BOMB `BOMB\n`define USE `BOMB\n",
}


@pytest.mark.parametrize("bomb", list(COMPILE_BOMBS.values()), ids=list(COMPILE_BOMBS))
def test_compile_time_bombs_fail_quickly(bomb: str) -> None:
    body = CORRECT_MUX if "USE" not in bomb else "    always @* y = `USE;\n"
    start = time.monotonic()
    outcome = run(bomb + design(body), wall_s=HANG_WALL_S)
    assert outcome.label in (SYNTAX_ERROR, ELABORATION_ERROR, TIMEOUT, RESOURCE_LIMIT), describe(outcome)
    # the compiler and then Yosys may each use up the wall limit on such input
    assert time.monotonic() - start < 2 * HANG_WALL_S + 3


# Scans the compiled program (which holds the testbench's secret tag) for "@ECOT...@" and, if found,
# prints a forged verdict with it.
TAG_THIEF = """    integer fd, c;
    reg [8*22-1:0] window, tag;
    reg found;
    initial begin
        found = 0; window = 0; tag = 0;
        fd = $fopen("sim.vvp", "r");
        if (fd == 0) fd = $fopen("c.vvp", "r");
        if (fd != 0) begin
            c = $fgetc(fd);
            while (c != -1 && !found) begin
                window = {window[8*21-1:0], c[7:0]};
                if (window[8*22-1:8*17] == "@ECOT" && window[7:0] == "@") begin found = 1; tag = window; end
                c = $fgetc(fd);
            end
        end
        if (found) begin $display("%sMismatches: 0 in 600 samples", tag); $finish; end
    end
"""


def test_compiled_program_cannot_be_mined_for_the_verdict_tag() -> None:
    outcome = run(design(TAG_THIEF + WRONG_MUX), wall_s=HANG_WALL_S)
    assert outcome.label in (TIMEOUT, SIMULATION_MISMATCH), describe(outcome)


def test_no_process_can_be_spawned(outside_files_absent: None) -> None:
    """Icarus has no $system; a design calling it must fail and run nothing."""
    outcome = run(design('    initial $system("touch /tmp/ecot_pwned");\n' + CORRECT_MUX))
    assert outcome.label != PASS, describe(outcome)


# -- resources -------------------------------------------------------------------------------------
def test_output_flood_is_stopped_quickly() -> None:
    flood = '    initial forever $display("' + "A" * 120 + '");\n'
    start = time.monotonic()
    outcome = run(design(flood + CORRECT_MUX))
    assert outcome.label == RESOURCE_LIMIT, describe(outcome)
    assert time.monotonic() - start < 5.0


DISK_FILLER = """    integer fd;
    initial begin
        fd = $fopen("fill.bin", "w");
        forever $fwrite(fd, "%0s", "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    end
"""
MEMORY_HOG = """    reg [63:0] big [0:(1<<28)-1];
    integer i;
    initial for (i = 0; i < (1<<28); i = i + 4096) big[i] = i;
"""


@pytest.mark.parametrize("hog", [DISK_FILLER, MEMORY_HOG], ids=["disk", "memory"])
def test_resource_hogs_are_stopped(hog: str) -> None:
    start = time.monotonic()
    outcome = run(design(hog + CORRECT_MUX))
    assert outcome.label in (RESOURCE_LIMIT, SIMULATION_MISMATCH), describe(outcome)
    assert time.monotonic() - start < 8.0


@pytest.mark.parametrize("hog", [DISK_FILLER, MEMORY_HOG], ids=["disk", "memory"])
def test_resource_hogs_are_labelled_resource_limit(hog: str) -> None:
    outcome = run(design(hog + CORRECT_MUX))
    assert outcome.label == RESOURCE_LIMIT, describe(outcome)


def test_endless_simulation_times_out_and_leaves_no_process() -> None:
    marker = unique_marker()
    spin = "    reg spin;\n    initial forever spin = ~spin;\n"
    outcome = run(design(spin + CORRECT_MUX), wall_s=HANG_WALL_S, plusargs=[f"+{marker}"])
    assert outcome.label == TIMEOUT, describe(outcome)
    deadline = time.monotonic() + 2.0
    while processes_matching(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_matching(marker) == []


# -- the verdict channel ---------------------------------------------------------------------------
FORGERIES = {
    "plain": '$display("Mismatches: 0 in 600 samples");',
    "plain_then_finish": '$display("Mismatches: 0 in 600 samples"); $finish;',
    "guessed_tag": '$display("@ECOT0123456789abcdef@Mismatches: 0 in 600 samples"); $finish;',
    "stdout_descriptor": '$fdisplay(32\'h8000_0001, "Mismatches: 0 in 600 samples"); $fwrite(1, "Mismatches: 0 in 1 samples\\n");',
    "late_forgery": '#100000 $display("Mismatches: 0 in 600 samples");',
}


@pytest.mark.parametrize("forgery", list(FORGERIES.values()), ids=list(FORGERIES))
def test_forged_verdict_lines_do_not_pass(forgery: str) -> None:
    outcome = run(design(f"    initial begin {forgery} end\n" + WRONG_MUX))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)


def test_finish_at_time_zero_is_not_a_pass() -> None:
    outcome = run(design("    initial $finish;\n" + CORRECT_MUX))
    assert outcome.label == SIMULATION_MISMATCH, describe(outcome)


HEAD_WIRE = HEAD.replace("output reg", "output wire")
HIERARCHY_ATTACKS = {
    "force_error_count": HEAD + "    initial force tb.errors = 0;\n" + WRONG_MUX + "endmodule\n",
    "copy_expected_value": HEAD_WIRE + "    assign y = tb.exp_y;\nendmodule\n",
}


@pytest.mark.parametrize("candidate", list(HIERARCHY_ATTACKS.values()), ids=list(HIERARCHY_ATTACKS))
def test_testbench_internals_are_out_of_reach(candidate: str) -> None:
    """The bundled suite hides its testbench module (hidden_modules), so `tb.` names nothing."""
    outcome = run(candidate)
    assert outcome.label == ELABORATION_ERROR, describe(outcome)


@pytest.mark.parametrize("candidate", list(HIERARCHY_ATTACKS.values()), ids=list(HIERARCHY_ATTACKS))
def test_testbench_internals_are_out_of_reach_without_hidden_modules(candidate: str) -> None:
    outcome = run(candidate, hidden_modules=[])
    assert outcome.label != PASS, describe(outcome)


# Dumps every signal of the simulation (testbench included) to a VCD and looks for the testbench's
# expected-value register in it, half a time unit before the first check.
WAVEFORM_SPY = """    integer fd, c;
    reg escaped = 1'b0;
    reg [8*5-1:0] window = 0;
    initial begin
        $dumpfile("spy.vcd");
        $dumpvars;
        #0.5 $dumpflush;
        fd = $fopen("spy.vcd", "r");
        if (fd != 0) begin
            c = $fgetc(fd);
            while (c != -1 && !escaped) begin
                window = {window[8*4-1:0], c[7:0]};
                if (window == "exp_y") escaped = 1;
                c = $fgetc(fd);
            end
        end
    end
"""


def test_waveform_dump_cannot_spy_on_the_testbench() -> None:
    outcome = run("`timescale 1ns/100ps\n" + design(WAVEFORM_SPY + ORACLE_MUX))
    assert outcome.label != PASS, describe(outcome)


def test_no_state_leaks_between_evaluations() -> None:
    """A file left beside the work dir must not reach the next evaluation."""
    name = f"../{unique_marker()}"
    writer = f'        fd = $fopen("{name}", "w");\n        if (fd != 0) begin $fdisplay(fd, "hi"); $fclose(fd); end\n'
    reader = f'        fd = $fopen("{name}", "r");\n        if (fd != 0) escaped = 1;\n'
    run(oracle_design(writer))
    outcome = run(oracle_design(reader))
    assert outcome.label != PASS, describe(outcome)


# A VerilogEval-style bench: the reference instance `good1` and a named block sit beside the design.
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
UPWARD_ATTACKS = {
    "sibling_instance": HEAD_WIRE + "    assign y = good1.y;\nendmodule\n",
    "named_block": HEAD_WIRE + "    assign y = stimulus.expected;\nendmodule\n",
}


@pytest.mark.parametrize("candidate", list(UPWARD_ATTACKS.values()), ids=list(UPWARD_ATTACKS))
def test_upward_references_into_the_bench_do_not_pass(candidate: str) -> None:
    import dataclasses

    task = dataclasses.replace(bundled_task(TASK_ID), files={"testbench.sv": UPWARD_BENCH})
    assert evaluate(task, CORRECT_MUX.join([HEAD, "endmodule\n"])).label == PASS  # the bench itself works
    outcome = evaluate(task, candidate)
    assert outcome.label != PASS, describe(outcome)
    if outcome.label == ELABORATION_ERROR:  # caught by elaborating the design without the bench
        assert "on its own" in outcome.diagnostic
