"""Planted RTL bugs: each mutation of a bundled reference must earn exactly its expected label.

The labels were established with the real tools (Icarus 11, Yosys 0.23, Verilator 5.006); where a bug
hangs the simulator the task gets a 3 s wall limit so the suite stays quick.
"""

from __future__ import annotations

import pytest

from ecot.core.outcome import PASS, TIMEOUT
from ecot.domains.rtl.backend import (
    ELABORATION_ERROR,
    LINT_ERROR,
    SIMULATION_MISMATCH,
    SYNTAX_ERROR,
    SYNTHESIS_ERROR,
)

from .common import (
    BugCase,
    Mutation,
    bug_params,
    bundled_task,
    compose,
    describe,
    evaluate,
    insert_before_endmodule,
    mutated_code,
    regex_sub,
    replace_once,
    run_bug,
    with_changes,
)

HANG_WALL_S = 3.0

# Two halves of a 4:1 mux that select through each other: a structural loop that settles in
# simulation (the testbench passes), so only Yosys can catch it.
FALSE_PATH_LOOP_MUX = """    wire [7:0] lo, hi, lo_back;
    assign lo      = sel[0] ? d1 : lo_back;
    assign lo_back = sel[0] ? lo : d0;
    assign hi      = sel[0] ? d3 : d2;
    always @* y = sel[1] ? hi : lo;
"""

# An inverter feeding itself whenever sel == 3: Icarus spins forever at one time step.
OSCILLATING_LOOP = """    wire ring;
    assign ring = (sel == 2'b11) ? ~ring : 1'b0;
    always @*"""


def _swap_always_block(replacement: str) -> Mutation:
    """Replace the always block of mux4_bus with other module items."""
    return regex_sub(r"(?s)    always @\*.*?endcase\n    end\n", replacement, count=1)


RTL_BUGS: tuple[BugCase, ...] = (
    BugCase(
        "rtl/delay_line4",
        "blocking_assignments_in_shift_register",
        replace_once(
            "q1 <= din;\n            q2 <= q1;\n            q3 <= q2;\n            q4 <= q3;",
            "q1 = din;\n            q2 = q1;\n            q3 = q2;\n            q4 = q3;",
        ),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/popcount16",
        "width_truncation",
        replace_once("wire [2:0] n0", "wire [1:0] n0"),  # nibble counts of 4 no longer fit
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/bcd_counter",
        "missing_reset",
        replace_once("        if (rst)\n            q <= 4'd0;\n        else if (en) begin", "        if (en) begin"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/mux4_bus",
        "incomplete_sensitivity_list",
        replace_once("always @*", "always @(sel)"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/seq_det_1011",
        "inferred_latch_missing_default",
        replace_once("            default: next = IDLE;\n", ""),  # unreachable states keep `next`: a latch
        SYNTHESIS_ERROR,
    ),
    BugCase(
        "rtl/mux4_bus",
        "combinational_loop_settling",
        _swap_always_block(FALSE_PATH_LOOP_MUX),
        SYNTHESIS_ERROR,
    ),
    BugCase(
        "rtl/mux4_bus",
        "combinational_loop_oscillating",  # the simulation hangs; Yosys names the loop
        compose(
            replace_once("    always @*", OSCILLATING_LOOP),
            replace_once("default: y = d3;", "default: y = d3 ^ {7'b0, ring};"),
        ),
        SYNTHESIS_ERROR,
        wall_s=HANG_WALL_S,
    ),
    BugCase(
        "rtl/alu8",
        "syntax_error_missing_semicolon",
        replace_once("    assign zero = (y == 8'h00);", "    assign zero = (y == 8'h00)"),
        SYNTAX_ERROR,
    ),
    BugCase(
        "rtl/mux4_bus",
        "port_name_mismatch",
        regex_sub(r"\bd0\b", "data0"),
        ELABORATION_ERROR,
    ),
    BugCase(
        "rtl/add8_carry",
        "wrong_module_name",
        replace_once("module add8_carry", "module adder8"),
        ELABORATION_ERROR,
    ),
    BugCase(
        "rtl/bcd_counter",
        "off_by_one_terminal_count",
        replace_once("if (q == 4'd9)", "if (q == 4'd10)"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/hex7seg",
        "zero_delay_infinite_loop",
        insert_before_endmodule("    reg spin;\n    initial forever spin = ~spin;"),
        TIMEOUT,
        wall_s=HANG_WALL_S,
    ),
    BugCase(
        "rtl/add8_carry",
        "undriven_output",
        replace_once("    assign cout  = total[8];\n", ""),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/updown_counter8",
        "synchronous_instead_of_asynchronous_reset",
        replace_once("always @(posedge clk or negedge rst_n)", "always @(posedge clk)"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/edge_detect",
        "inverted_reset_polarity",
        replace_once("if (rst)", "if (!rst)"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/sat_add8",
        "unsigned_instead_of_signed",
        replace_once("{a[7], a} + {b[7], b}", "{1'b0, a} + {1'b0, b}"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/parity16",
        "multiple_drivers",  # a second, equivalent driver: simulation agrees, synthesis must not
        insert_before_endmodule("    assign pbit   = ~(^data) ^ ~odd;"),
        SYNTHESIS_ERROR,
    ),
    BugCase(
        "rtl/dpram32x8",
        "write_first_instead_of_read_first",
        replace_once("        if (we)\n            mem[waddr] <= wdata;\n        rdata <= mem[raddr];",
                     "        if (we)\n            mem[waddr] = wdata;\n        rdata <= mem[raddr];"),
        SIMULATION_MISMATCH,
    ),
    BugCase(
        "rtl/add8_carry",
        "width_mismatch_under_lint",  # simulates correctly; Verilator flags the 9-to-8 bit assignment
        replace_once("assign sum   = total[7:0];", "assign sum   = total;"),
        LINT_ERROR,
        options={"lint": True},
    ),
)

@pytest.mark.parametrize("case", bug_params(RTL_BUGS))
def test_planted_bug_gets_its_label(case: BugCase) -> None:
    outcome = run_bug(case)
    assert outcome.label == case.expected_label, f"{case.name}: expected {case.expected_label}, got {describe(outcome)}"
    assert outcome.diagnostic.strip(), f"{case.name}: a failing verdict needs a diagnostic"


def test_enough_distinct_bug_kinds() -> None:
    kinds = {case.kind for case in RTL_BUGS}
    assert len(kinds) == len(RTL_BUGS), "each planted bug kind should appear once"
    assert len(kinds) >= 12
    labels = {case.expected_label for case in RTL_BUGS}
    assert {SIMULATION_MISMATCH, SYNTHESIS_ERROR, SYNTAX_ERROR, ELABORATION_ERROR, TIMEOUT, LINT_ERROR} <= labels


def test_lint_is_opt_in() -> None:
    """The width-mismatch design is functionally right: without lint = true it passes."""
    case = next(c for c in RTL_BUGS if c.kind == "width_mismatch_under_lint")
    task = bundled_task(case.task_id)
    outcome = evaluate(task, mutated_code(case, task))
    assert outcome.label == PASS, describe(outcome)


def test_reference_is_lint_clean() -> None:
    """Lint findings above come from the planted mismatch, not from the reference itself."""
    task = with_changes(bundled_task("rtl/add8_carry"), options={"lint": True})
    assert task.reference is not None
    outcome = evaluate(task, task.reference)
    assert outcome.label == PASS, describe(outcome)


# Valid SystemVerilog that Icarus simulates but Yosys 0.23 cannot parse (a `return` in a function).
RETURN_IN_FUNCTION = (
    "    function automatic [7:0] pick(input [7:0] v);\n"
    "        return v;\n"
    "    endfunction\n\n"
    "    always @*"
)


@pytest.mark.parametrize(("mode", "expected"), [("check", SYNTHESIS_ERROR), ("strict", SYNTHESIS_ERROR), ("off", PASS)])
def test_yosys_parse_limits_fail_unless_the_checks_are_off(mode: str, expected: str) -> None:
    """A design the checks cannot read is not a design the checks passed (only synth = "off" skips them)."""
    task = with_changes(bundled_task("rtl/mux4_bus"), options={"synth": mode})
    assert task.reference is not None
    candidate = task.reference.replace("    always @*", RETURN_IN_FUNCTION, 1).replace(
        "default: y = d3;", "default: y = pick(d3);"
    )
    assert candidate != task.reference and "pick(d3)" in candidate
    outcome = evaluate(task, candidate)
    assert outcome.label == expected, describe(outcome)
    if expected == SYNTHESIS_ERROR:
        assert "cannot read the design" in outcome.diagnostic and "design.sv:10: ERROR: syntax error" in outcome.diagnostic
