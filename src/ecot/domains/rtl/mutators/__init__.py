"""The RTL mutation set: Verilog bug operators (VeriRepair's taxonomy), what each RTL outcome label
implies for a repair, and a first-person design plan read off a reference module."""

from __future__ import annotations

import re

from ecot.domains.rtl.mutators import ops
from ecot.domains.rtl.mutators.text import RESET_IF, Block, assignments, blocks, clip, declared, fsm_states, ports
from ecot.mutators.base import Category, LabelEvidence, Mutation, MutationSet, Source

_ORDER: tuple[Category, ...] = ("syntax", "structural", "timing", "semantic")

MUTATIONS: tuple[Mutation, ...] = (
    # syntax
    Mutation("missing_semicolon", "syntax", ops.missing_semicolon,
             "Without the `;` the parser runs the statement into the next line.",
             "`assign sum = total[7:0];` -> `assign sum = total[7:0]`"),
    Mutation("misspelled_keyword", "syntax", ops.misspelled_keyword,
             "A misspelled keyword is just an unknown word to the parser.",
             "`endcase` -> `endcas`"),
    Mutation("unbalanced_begin_end", "syntax", ops.unbalanced_begin_end,
             "Every `begin` needs its `end`; otherwise the block swallows the rest of the module.",
             "`end` closing `if (en) begin` deleted"),
    Mutation("unbalanced_parens", "syntax", ops.unbalanced_parens,
             "An unclosed parenthesis makes the parser read the statement as part of the condition.",
             "`if (req[7])` -> `if (req[7]`"),
    # type / structural
    Mutation("wrong_module_name", "structural", ops.wrong_module_name,
             "The testbench instantiates the module by the name in the spec, so any other name leaves it undefined.",
             "`module mux4_bus` -> `module mux4_bus_top`"),
    Mutation("wrong_port_name", "structural", ops.wrong_port_name,
             "Port names are part of the interface: instances connect them by name.",
             "`input wire clk` -> `input wire clock` (every use renamed)"),
    Mutation("width_truncation", "structural", ops.width_truncation,
             "A declaration one bit too narrow silently drops the most significant bit.",
             "`wire [8:0] total` -> `wire [7:0] total`"),
    Mutation("identifier_typo", "structural", ops.identifier_typo,
             "A misspelled name refers to a signal that does not exist.",
             "`assign sum = total[7:0]` -> `assign sum = ttoal[7:0]`"),
    Mutation("missing_declaration", "structural", ops.missing_declaration,
             "A variable assigned in an always block must be declared first.",
             "`reg [3:0] count;` deleted"),
    Mutation("reg_wire_mismatch", "structural", ops.reg_wire_mismatch,
             "Procedural assignments need a variable (reg) and continuous assigns need a net (wire).",
             "`output reg [7:0] y` -> `output wire [7:0] y`"),
    # timing / FSM
    Mutation("blocking_in_clocked", "timing", ops.blocking_in_clocked,
             "Clocked registers must use `<=` so every register samples the values from before the edge.",
             "`q1 <= d;` -> `q1 = d;` in an `always @(posedge clk)` block"),
    Mutation("missing_reset_branch", "timing", ops.missing_reset_branch,
             "Without the reset assignment the register starts as X and the X propagates.",
             "`if (!rst_n) count <= 0; else ...` -> `...`"),
    Mutation("inverted_reset", "timing", ops.inverted_reset,
             "With the polarity inverted the design sits in reset exactly when it should run.",
             "`if (!rst_n)` -> `if (rst_n)`"),
    Mutation("incomplete_sensitivity", "timing", ops.incomplete_sensitivity,
             "A combinational block only re-evaluates on the signals in its sensitivity list.",
             "`always @*` -> `always @(sel)`"),
    Mutation("latch_no_default", "timing", ops.latch_no_default,
             "A combinational path that assigns nothing makes the output hold its value: a latch.",
             "`default: y = d3;` deleted"),
    Mutation("wrong_fsm_transition", "timing", ops.wrong_fsm_transition,
             "One wrong next-state assignment derails every sequence that passes through that state.",
             "`S1: next = S2;` -> `S1: next = S0;`"),
    Mutation("wrong_clock_edge", "timing", ops.wrong_clock_edge,
             "Registers clocked on the wrong edge update half a cycle away from where the testbench samples.",
             "`posedge clk` -> `negedge clk`"),
    # semantic / logic
    Mutation("off_by_one", "semantic", ops.off_by_one,
             "A constant off by one shifts a boundary or a value by exactly one step.",
             "`out == 4'd11` -> `out == 4'd10`"),
    Mutation("swapped_operator", "semantic", ops.swapped_operator,
             "The neighbouring operator computes something close but wrong.",
             "`a + b` -> `a - b`, `a < b` -> `a <= b`, `&` -> `|`, `==` -> `!=`"),
    Mutation("swapped_ternary", "semantic", ops.swapped_ternary,
             "With the arms exchanged, the selection does the opposite of the condition.",
             "`sub ? ~b : b` -> `sub ? b : ~b`"),
    Mutation("wrong_bit_index", "semantic", ops.wrong_bit_index,
             "Indexing the neighbouring bit reads or writes the wrong part of the vector.",
             "`total[8]` -> `total[7]`, `in[7:4]` -> `in[6:3]`"),
)


def _suspects(*first: Category) -> tuple[Category, ...]:
    return tuple(dict.fromkeys((*first, *_ORDER)))


EVIDENCE: dict[str, LabelEvidence] = {
    "Syntax_Error": LabelEvidence(
        "Icarus stopped while parsing, so nothing was elaborated or simulated: the mistake is in the text "
        "itself, at or just before the line it names.", _suspects("syntax", "structural")),
    "Elaboration_Error": LabelEvidence(
        "The source parses, but elaboration failed: a module, port or signal name does not resolve, or a "
        "declaration does not match how the signal is driven.", _suspects("structural", "syntax")),
    "Simulation_Mismatch": LabelEvidence(
        "It compiles and simulates, but the outputs disagree with the testbench's expected values, so the "
        "logic computes the wrong thing or computes it at the wrong time.", _suspects("semantic", "timing", "structural")),
    "Synthesis_Error": LabelEvidence(
        "Simulation passed, but Yosys found a structure that hardware would not implement as intended, "
        "such as a latch or a combinational loop.", _suspects("timing", "structural", "semantic")),
    "Timeout": LabelEvidence(
        "The simulation never finished, which points at logic that keeps re-triggering itself or at an "
        "output the testbench waits for and never sees.", _suspects("timing", "semantic")),
    "Lint_Error": LabelEvidence(
        "Verilator's lint flagged the design even though it simulates.", _suspects("structural", "timing")),
    "Resource_Limit": LabelEvidence(
        "The simulation hit a resource limit, usually logic that oscillates or floods the output.",
        _suspects("timing", "semantic")),
}
DEFAULT_EVIDENCE = LabelEvidence("The design did not pass its checks.", _suspects("semantic", "timing"))


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person design plan: the module, its interface, and the approach the reference takes."""
    src = Source(reference)
    module = re.search(r"\bmodule\s+(\w+)", src.masked)
    name = module.group(1) if module else "the module"
    plan = [_restate(prompt, name)]
    port_list = ports(src)
    for direction in ("input", "output", "inout"):
        group = [f"`{p.name}`{p.width}" for p in port_list if p.direction == direction]
        if group:
            plan.append(f"Its {direction}s are {', '.join(group)}." if len(group) > 1 else f"Its {direction} is {group[0]}.")
    behaviour = re.search(r"^Behaviou?r[^:\n]*:\s*(?:-\s*)?(.+?)(?:\.\s|\n\s*\n|\n\s*-|\Z)", prompt, re.M | re.S)
    if behaviour:
        said = clip(behaviour.group(1), 240)
        plan.append(f"The behaviour to get right: {said if said.endswith('...') else said.rstrip('.') + '.'}")
    plan.extend(_approach(src))
    plan.append("Let me write it out.")
    return plan


def _restate(prompt: str, name: str) -> str:
    first = " ".join(re.split(r"(?<=\.)\s|\n\s*\n", prompt.strip(), maxsplit=1)[0].split())
    first = clip(first.rstrip("."), 240)
    verb = re.match(r"(Write|Implement|Design|Create|Build)\b", first)
    said = f"I need to {first[0].lower()}{first[1:]}." if verb else f"The task: {first}."
    return said if name in first else f"{said} The module is `{name}`."


def _approach(src: Source) -> list[str]:
    found = blocks(src)
    clocked = [b for b in found if b.clocked]
    states = fsm_states(src)
    lines = []
    if clocked:
        lines.append(_registers(src, clocked))
        lines.extend(_reset_plan(src, clocked[0]))
    if len(states) >= 2:
        lines.append(f"I'll build it as a state machine over {', '.join(states)}: "
                     "a state register plus next-state logic in a case statement.")
    if any(not b.clocked for b in found):
        shape = " around a case statement" if re.search(r"\bcase", src.masked) else ""
        lines.append(f"The combinational part goes in an always @* block{shape}, "
                     "assigning every output on every path so nothing latches.")
    if not found:
        count = len(re.findall(r"\bassign\b", src.masked))
        lines.append(f"It is purely combinational, so {count} continuous assign{'s' if count != 1 else ''} "
                     "and a few helper wires are enough.")
    return lines


def _registers(src: Source, clocked: list[Block]) -> str:
    edge = re.search(r"\b(posedge|negedge)\s+(\w+)", src.masked[clocked[0].start : clocked[0].body])
    regs = sorted({a.lhs for b in clocked for a in assignments(src, b.body, b.end)})
    names = ", ".join(f"`{r}`" for r in regs[:6])
    clock = f"the {'rising' if edge.group(1) == 'posedge' else 'falling'} edge of `{edge.group(2)}`" if edge else "the clock"
    subject = f"the registers {names} update" if len(regs) != 1 else f"the register {names} updates"
    return f"It is sequential: {subject} on {clock}."


def _reset_plan(src: Source, block: Block) -> list[str]:
    m = RESET_IF.search(src.masked, block.body, block.end)
    if m is None:
        return []
    level = "low" if m.group(1) else "high"
    timing = "asynchronous" if m.group(2) in src.masked[block.start : block.body] else "synchronous"
    return [f"Reset is {timing} and active-{level} on `{m.group(2)}`, clearing the registers."]


# Messages that name the mistake outright, whatever the label.
CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"Unknown module type", ("wrong_module_name",)),
    (r"is not a port of", ("wrong_port_name",)),
    (r"Unable to bind|Could not find variable", ("identifier_typo", "missing_declaration")),
    (r"not a valid l-value", ("reg_wire_mismatch",)),
    (r"latch", ("latch_no_default",)),
    (r"got=x|=\s*x+\b|\bx{2,}\b", ("missing_reset_branch", "inverted_reset")),  # X: something never reset
)

RTL_MUTATIONS = MutationSet(
    domain="rtl",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=lambda code: declared(Source(code)),
    # Logic and timing mistakes dominate what engineers and models get wrong; a syntax error masks
    # every other bug behind it, so it is planted less often.
    weights={"syntax": 0.5, "structural": 1.0, "timing": 1.25, "semantic": 1.25},
    clues=CLUES,
)
