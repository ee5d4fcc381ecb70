"""Where each Verilog mistake can be made: one `find(Source) -> [Site]` per operator.

Grouped by VeriRepair's taxonomy (syntax, type/structural, timing/FSM, semantic/logic). Every
finder searches the comment-masked text and describes the bug from the buggy code's point of view.
"""

from __future__ import annotations

import re

from ecot.domains.rtl.mutators.text import (
    IDENT,
    KEYWORDS,
    RESET_IF,
    Assignment,
    assignments,
    blocks,
    clip,
    declared,
    fsm_states,
    header_span,
    in_expression,
    is_decl_line,
    parameters,
    ports,
    scan,
    statement_end,
    typos,
)
from ecot.mutators.base import Site, Source


# -- syntax ---------------------------------------------------------------------------------------
def missing_semicolon(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r";[ \t]*$", re.M):
        stmt = src.line(m.start()).strip()[:-1].strip()
        if stmt and not stmt.startswith("for"):
            sites.append(Site(m.start(), m.start() + 1, "", f"drops the semicolon that ends `{clip(stmt)}`"))
    return sites


_KEYWORD_TYPOS = {
    "endmodule": ("endmodul", "endmoudle"), "always": ("alwyas", "alway"), "begin": ("begn", "bgein"),
    "endcase": ("endcas", "encase"), "assign": ("asign", "assgin"), "posedge": ("posegde",),
    "negedge": ("negegde",), "else": ("esle",), "output": ("ouput",), "input": ("inptu",), "reg": ("rge",),
}


def misspelled_keyword(src: Source) -> list[Site]:
    sites: list[Site] = []
    for keyword, wrong in _KEYWORD_TYPOS.items():
        found = src.finditer(rf"\b{keyword}\b")
        # only the first and last use of each keyword, so frequent ones (input, reg) do not crowd out the rest
        for m in dict.fromkeys(found[:1] + found[-1:]):
            sites.extend(Site(m.start(), m.end(), typo, f"misspells the keyword `{keyword}` as `{typo}`") for typo in wrong)
    return sites


def unbalanced_begin_end(src: Source) -> list[Site]:
    sites, stack = [], []
    for m in src.finditer(r"\b(begin|end)\b"):
        if m.group(1) == "begin":
            stack.append(m.start())
            continue
        if not stack:
            continue
        opener = clip(src.line(stack.pop()).strip())
        start, end = src.line_span(m.start())
        whole = src.masked[start:end].strip() == "end" and end < len(src.text)
        span = (start, end + 1) if whole else (m.start(), m.end())
        sites.append(Site(*span, "", f"loses the `end` that closes the `begin` of `{opener}`"))
    return sites


def unbalanced_parens(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\b(if|while)\s*\("):
        close = src.closing(m.end() - 1)
        if close is not None:
            cond = src.text[m.start() : close]
            sites.append(Site(close, close + 1, "", f"never closes the parenthesis of `{clip(cond)}`"))
    return sites


# -- type / structural ----------------------------------------------------------------------------
def wrong_module_name(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"\bmodule\s+({IDENT})"):
        name = m.group(1)
        for alt in (f"{name}_top", "top_module", *typos(name)[:1]):
            note = f"names the module `{alt}` instead of `{name}`, the name the task specifies"
            sites.append(Site(m.start(1), m.end(1), alt, note))
    return sites


_PORT_ALIASES = {"clk": "clock", "clock": "clk", "rst": "reset", "reset": "rst", "rst_n": "reset_n", "reset_n": "rst_n"}


def wrong_port_name(src: Source) -> list[Site]:
    sites, names = [], declared(src)
    for name, direction, pos, _ in ports(src):
        alt = _PORT_ALIASES.get(name) or f"{name}_{direction[0]}"
        if alt in names:
            continue
        uses = tuple((m.start(), m.end(), alt) for m in src.finditer(rf"\b{re.escape(name)}\b") if m.start() != pos)
        note = f"declares the {direction} port as `{alt}` although the interface requires `{name}`"
        sites.append(Site(pos, pos + len(name), alt, note, more=uses))
    return sites


_RANGE_DECL = re.compile(
    rf"\b(?:input|output|inout|wire|reg|logic)\b(?:\s+(?:wire|reg|logic|signed))*\s*"
    rf"\[\s*([^\]:]+?)\s*:\s*0\s*\]\s*({IDENT})"
)


def width_truncation(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(_RANGE_DECL):
        msb, name = m.group(1), m.group(2)
        if msb.isdigit() and int(msb) >= 1:
            new = str(int(msb) - 1)
        elif re.fullmatch(rf"{IDENT}\s*-\s*1", msb):
            new = re.sub(r"1$", "2", msb)
        else:
            continue
        note = f"declares `{name}` as [{new}:0], one bit narrower than [{msb}:0], so its top bit is lost"
        sites.append(Site(m.start(1), m.end(1), new, note))
    return sites


_OPERAND_BEFORE = set("=(!~&|^+-*/<>?:{,[%")


def identifier_typo(src: Source) -> list[Site]:
    sites, names = [], declared(src)
    skip_lo, skip_hi = header_span(src)
    for m in src.finditer(rf"\b{IDENT}\b"):
        name, pos = m.group(0), m.start()
        if name not in names or skip_lo <= pos < skip_hi or is_decl_line(src.line(pos)):
            continue
        before = src.masked[max(0, pos - 60) : pos]
        if src.prev_char(pos) not in _OPERAND_BEFORE or re.search(r"\.\s*\w+\s*\(\s*$", before):
            continue  # a port connection would silently create an implicit net
        for alt in typos(name):
            if alt not in names and alt not in KEYWORDS:
                sites.append(Site(pos, m.end(), alt, f"uses `{alt}` where it means `{name}`; `{alt}` was never declared"))
    return sites


def missing_declaration(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*(?:reg|logic|integer)\b[^;=\n]*;[ \t]*\n", re.M):
        decl = m.group(0).strip()
        names = [n for n in re.findall(rf"\b{IDENT}\b", re.sub(r"\[[^\]]*\]", "", decl)) if n not in KEYWORDS]
        if names:
            note = f"uses `{'`, `'.join(names)}` without declaring it (the line `{decl}` is missing)"
            sites.append(Site(m.start(), m.end(), "", note))
    return sites


def reg_wire_mismatch(src: Source) -> list[Site]:
    # Only reg -> wire: SystemVerilog lets a continuous assign drive a variable, so wire -> reg compiles.
    procedural = {a.lhs for b in blocks(src) for a in assignments(src, b.body, b.end)}
    sites = []
    for m in src.finditer(rf"\breg\b((?:\s+signed)?\s*(?:\[[^\]]*\]\s*)?)({IDENT})(?!\s*=)"):
        if m.group(2) in procedural:
            note = f"declares `{m.group(2)}` as a wire, yet an always block assigns it"
            sites.append(Site(m.start(), m.start() + 3, "wire", note))
    return sites


# -- timing / FSM ---------------------------------------------------------------------------------
def blocking_in_clocked(src: Source) -> list[Site]:
    """Only where it matters: a later statement on the same path (or a later block) reads the register."""
    clocked = [b for b in blocks(src) if b.clocked]
    sites = []
    for index, block in enumerate(clocked):
        found = assignments(src, block.body, block.end)
        for a in (a for a in found if a.text == "<="):
            readers = [b for b in found if b.op > a.end and b.lhs != a.lhs and _reads(src, b, a.lhs)]
            same_path = [b for b in readers if not re.search(r"\belse\b|^\s*[\w']+\s*:", src.masked[a.end : b.op], re.M)]
            later_block = any(re.search(rf"\b{a.lhs}\b", src.masked[b.body : b.end]) for b in clocked[index + 1 :])
            if same_path or later_block:
                note = (f"assigns `{a.lhs}` with a blocking `=` in the clocked block, "
                        "so readers see the new value within the same edge")
                sites.append(Site(a.op, a.op + 2, "=", note))
    return sites


def _reads(src: Source, assignment: Assignment, name: str) -> bool:
    return bool(re.search(rf"\b{name}\b", src.masked[assignment.op + len(assignment.text) : assignment.end]))


def missing_reset_branch(src: Source) -> list[Site]:
    sites = []
    for block in blocks(src):
        m = RESET_IF.search(src.masked, block.body, block.end)
        body_end = statement_end(src, m.end()) if m else None
        if m is None or body_end is None:
            continue
        cond = src.text[m.start() : m.end()]
        tail = re.match(r"\s*else\b\s*", src.masked[body_end:])
        if tail:
            note = f"has no reset branch: `{cond}` and its assignments are gone, so the registers power up as X"
            sites.append(Site(m.start(), body_end + tail.end(), "", note))
        in_begin = re.match(r"\s*begin\b", src.masked[m.end() :])
        for a in assignments(src, m.end(), body_end) if in_begin else ():
            start, end = src.line_span(a.op)
            if src.masked[start:end].strip().endswith(";") and src.masked.count(";", start, end) == 1:
                sites.append(Site(start, end + 1, "", f"never resets `{a.lhs}`: its assignment under `{cond}` is missing"))
    return sites


def inverted_reset(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(RESET_IF):
        neg, name = m.group(1), m.group(2)
        wrong, right = (name, f"{neg}{name}") if neg else (f"!{name}", name)
        note = f"tests `if ({wrong})` instead of `if ({right})`, inverting the reset polarity"
        if neg:
            sites.append(Site(m.start(1), m.start(2), "", note))
        else:
            sites.append(Site(m.start(2), m.start(2), "!", note))
    return sites


def incomplete_sensitivity(src: Source) -> list[Site]:
    sites, params, names = [], set(parameters(src)), declared(src)
    for block in blocks(src):
        if block.clocked or block.kind in ("_ff", "_latch"):
            continue
        lhs = {a.lhs for a in assignments(src, block.body, block.end)}
        body = src.masked[block.body : block.end]
        skip = lhs | params | set(re.findall(rf"\bfor\s*\(\s*({IDENT})", body))  # loop counters are not inputs
        reads = [n for n in dict.fromkeys(re.findall(rf"\b{IDENT}\b", body)) if n in names and n not in skip]
        if len(reads) < 2:
            continue
        note = f"lists only `{reads[0]}` in the sensitivity list, so the block ignores changes on `{'`, `'.join(reads[1:3])}`"
        sites.append(Site(block.start, block.body, f"always @({reads[0]})", note))
    return sites


def latch_no_default(src: Source) -> list[Site]:
    sites = []
    for block in (b for b in blocks(src) if not b.clocked):
        for m in src.finditer(r"^[ \t]*default\s*:|\belse\b(?!\s+if\b)", re.M):
            end = statement_end(src, m.end()) if block.body <= m.start() < block.end else None
            if end is None:
                continue
            is_default = "default" in m.group(0)
            opener = list(re.finditer(r"\bcase[xz]?\b" if is_default else r"\bif\b", src.masked[block.body : m.start()]))
            before = src.masked[block.body : block.body + (opener[-1 if is_default else 0].start() if opener else 0)]
            targets = sorted({a.lhs for a in assignments(src, m.end(), end)})
            if not targets or any(re.search(rf"\b{t}\b\s*(\[[^\]]*\])?\s*=(?!=)", before) for t in targets):
                continue  # an earlier default assignment already covers the missing path
            start = m.start() if is_default else len(src.masked[: m.start()].rstrip())
            end += is_default and src.masked[end : end + 1] == "\n"
            what = "`default` item" if is_default else "final `else`"
            holds = "keeps its old value" if len(targets) == 1 else "keep their old values"
            note = f"drops the {what} of the combinational logic, so `{'`, `'.join(targets)}` {holds} there (a latch)"
            sites.append(Site(start, end, "", note))
    return sites


def wrong_fsm_transition(src: Source) -> list[Site]:
    states = fsm_states(src)
    if len(states) < 2:
        return []
    names = "|".join(states)
    sites = []
    for block in blocks(src):
        labels = [m for m in src.finditer(rf"^\s*({names}|default)\s*:", re.M) if block.body <= m.start() < block.end]
        for a in assignments(src, block.body, block.end):
            current = [lab.group(1) for lab in labels if lab.start() < a.op]
            if not current or current[-1] == "default":
                continue  # reset and default assignments are not transitions
            for m in re.finditer(rf"\b({names})\b", src.masked[: a.end]):
                if m.start() <= a.op or re.search(r"[=!]=\s*$", src.masked[a.op + 1 : m.start()]):
                    continue  # only targets on the right-hand side, not comparisons
                for alt in (s for s in states if s != m.group(1)):
                    note = f"sends the FSM from `{current[-1]}` to `{alt}` instead of `{m.group(1)}`"
                    sites.append(Site(m.start(1), m.end(1), alt, note))
    return sites


def wrong_clock_edge(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\b(posedge|negedge)\s+(\w*(?:clk|clock)\w*)", re.I):
        alt = "negedge" if m.group(1) == "posedge" else "posedge"
        note = f"triggers on the {alt} of `{m.group(2)}` instead of the {m.group(1)}"
        sites.append(Site(m.start(1), m.end(1), alt, note))
    return sites


# -- semantic / logic -----------------------------------------------------------------------------
_LITERAL = re.compile(r"(?<![\w'$.#])(?:(\d+)'([sS]?[dDhHbB])([0-9a-fA-F]+)|(\d+))(?![\w'.{])")
_BASES = {"d": 10, "h": 16, "b": 2}


def off_by_one(src: Source) -> list[Site]:
    sites, ok = [], in_expression(src)
    for m in src.finditer(_LITERAL):
        pos, text = m.start(), m.group(0)
        if not ok(pos) or src.depth_at(pos, "[", "]") or re.match(rf"\s*{re.escape(text)}\s*[:,]", src.line(pos)):
            continue  # bit selects and case labels are other operators' business
        width, base, digits = (m.group(1), m.group(2)[-1].lower(), m.group(3)) if m.group(2) else (None, "d", m.group(4))
        if width == "1":
            continue  # flipping a single bit is not an off-by-one
        try:
            value = int(digits, _BASES[base])
        except (KeyError, ValueError):
            continue
        op = re.search(r"(==|!=|<=|>=|<|>)\s*$", src.masked[max(0, pos - 8) : pos])
        compares = op and (op.group(1) != "<=" or src.depth_at(pos) > 0)
        for new in (value - 1, value + 1):
            if new < 0 or (width and new >= 2 ** int(width)):
                continue
            rendered = _render(new, base, digits)
            wrong = f"{m.group(1)}'{m.group(2)}{rendered}" if m.group(2) else rendered
            verb = "compares against" if compares else "uses"
            sites.append(Site(m.start(), m.end(), wrong, f"{verb} {wrong} instead of {text}"))
    return sites


def _render(value: int, base: str, like: str) -> str:
    if base == "d":
        return str(value)
    text = format(value, "b" if base == "b" else "x").zfill(len(like))
    return text.upper() if like.upper() == like else text


_SWAPS = (
    (r"(?<![=!<>])==(?!=)", "!="), (r"!=(?!=)", "=="), (r"&&", "||"), (r"\|\|", "&&"),
    (r"(?<![&~|^])&(?![&=])", "|"), (r"(?<![|~&^])\|(?![|=])", "&"),
    (r"(?<![+])\+(?![+:=])", "-"), (r"(?<![-])-(?![-:>=])", "+"),
    (r"(?<![<=!>])<(?![<=])", "<="), (r"(?<![<=!>])<=(?!=)", "<"),
    (r"(?<![>=-])>(?![>=])", ">="), (r"(?<![>=<])>=", ">"),
    (r"(?<!<)<<(?![<=])", ">>"), (r"(?<!>)>>(?![>=])", "<<"),
)


_OPERAND = r"([~!]?[\w.']+(?:\s*\[[^\[\]]*\])?|\([^()]*\))"
_OPERAND_LEFT = re.compile(_OPERAND + r"\s*$")
_OPERAND_RIGHT = re.compile(r"\s*" + _OPERAND)


def swapped_operator(src: Source) -> list[Site]:
    sites, ok = [], in_expression(src)
    for pattern, new in _SWAPS:
        for m in src.finditer(pattern):
            pos, old = m.start(), m.group(0)
            if not ok(pos) or not re.match(r"[\w)\]}]", src.prev_char(pos)) or src.depth_at(pos, "[", "]"):
                continue  # unary operators and index arithmetic are left alone
            if old == "<=" and src.depth_at(pos) == 0:
                continue  # a non-blocking assignment, not a comparison
            left = _OPERAND_LEFT.search(src.text[max(0, pos - 40) : pos])
            right = _OPERAND_RIGHT.match(src.text, m.end())
            if left and right:
                lhs, rhs = left.group(1), right.group(1)
                note = f"has `{lhs} {new} {rhs}` where `{lhs} {old} {rhs}` belongs"
            else:
                note = f"has `{new}` where `{old}` belongs"
            sites.append(Site(pos, m.end(), new, note))
    return sites


def swapped_ternary(src: Source) -> list[Site]:
    sites, ok = [], in_expression(src)
    for m in src.finditer(r"\?"):
        colon = scan(src, m.end(), ":") if ok(m.start()) else None
        stop = scan(src, colon + 1, ";,") if colon is not None and src.masked[colon] == ":" else None
        if colon is None or stop is None or "?" in src.masked[m.end() : stop]:
            continue  # nested conditionals are too easy to garble
        arms = [(m.end(), colon), (colon + 1, stop)]
        (ts, te), (fs, fe) = [(s + len(src.text[s:e]) - len(src.text[s:e].lstrip()), len(src.text[:e].rstrip())) for s, e in arms]
        yes, no = src.text[ts:te], src.text[fs:fe]
        if yes and no and yes != no:
            swapped, right = f"? {clip(no, 30)} : {clip(yes, 30)}", f"? {clip(yes, 30)} : {clip(no, 30)}"
            note = f"swaps the arms of the conditional: `{swapped}` instead of `{right}`"
            sites.append(Site(ts, te, no, note, more=((fs, fe, yes),)))
    return sites


def wrong_bit_index(src: Source) -> list[Site]:
    sites, ok = [], in_expression(src)
    for m in src.finditer(rf"\b({IDENT})\s*\[\s*(\d+)\s*(?::\s*(\d+)\s*)?\]"):
        name, hi = m.group(1), int(m.group(2))
        if name in KEYWORDS or not ok(m.start()):
            continue
        if m.group(3) is None:
            new = hi - 1 if hi >= 1 else hi + 1  # stay inside the vector where possible
            sites.append(Site(m.start(2), m.end(2), str(new), f"reads `{name}[{new}]` instead of `{name}[{hi}]`"))
            continue
        lo = int(m.group(3))
        step = -1 if lo >= 1 else 1
        note = f"selects `{name}[{hi + step}:{lo + step}]` instead of `{name}[{hi}:{lo}]`"
        sites.append(Site(m.start(2), m.end(2), str(hi + step), note, more=((m.start(3), m.end(3), str(lo + step)),)))
    return sites
