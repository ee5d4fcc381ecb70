"""Just enough Verilog structure for the bug operators: declarations, always blocks, statements.

These are regex readers over the comment-masked text, not a parser; they aim at the code styles
people and models write for small modules and give up (return nothing) on anything unusual.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ecot.mutators.base import Source

IDENT = r"[A-Za-z_][A-Za-z0-9_$]*"
KEYWORDS = frozenset(
    "module endmodule input output inout wire reg logic integer genvar parameter localparam assign always "
    "always_ff always_comb always_latch initial begin end if else case casex casez endcase default for while "
    "posedge negedge or and not generate endgenerate function endfunction task endtask signed unsigned "
    "typedef enum bit byte int".split()
)
_DECL = re.compile(r"^\s*(?:input|output|inout|wire|reg|logic|integer|genvar|parameter|localparam|bit|typedef)\b")


def clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


def is_decl_line(line: str) -> bool:
    return bool(_DECL.match(line)) or line.lstrip().startswith("for")


def header_span(src: Source) -> tuple[int, int]:
    """The first module's header, from `module` to the `;` that ends its port list."""
    m = re.search(r"\bmodule\b", src.masked)
    if m is None:
        return 0, 0
    depth, pos = 0, m.end()
    while pos < len(src.masked):
        char = src.masked[pos]
        depth += (char == "(") - (char == ")")
        if char == ";" and depth == 0:
            return m.start(), pos + 1
        pos += 1
    return m.start(), len(src.masked)


class Port(NamedTuple):
    name: str
    direction: str  # input, output or inout
    pos: int  # offset of the name in its declaration
    width: str  # "[7:0]" or ""


def ports(src: Source) -> list[Port]:
    found = []
    for m in src.finditer(_PORT_DECL):
        pos = m.end()
        width = re.search(r"\[[^\]]*\]", m.group(2))
        while (n := _NAME.match(src.masked, pos)) and n.group(1) not in KEYWORDS:
            found.append(Port(n.group(1), m.group(1), n.start(1), width.group(0).replace(" ", "") if width else ""))
            comma = _COMMA.match(src.masked, n.end())
            if comma is None:
                break
            pos = comma.end()
    return found


_PORT_DECL = re.compile(r"\b(input|output|inout)\b((?:\s+(?:wire|reg|logic|signed))*\s*(?:\[[^\]]*\]\s*)?)")
_NAME = re.compile(rf"\s*({IDENT})")
_COMMA = re.compile(r"\s*,")


def parameters(src: Source) -> list[str]:
    """Parameter, localparam and enum member names, in declaration order."""
    names: list[str] = []
    for statement in src.finditer(r"\b(?:parameter|localparam)\b[^;]*"):
        flat = re.sub(r"\[[^\]]*\]|\([^()]*\)|\{[^{}]*\}", " ", statement.group(0))
        names += re.findall(rf"({IDENT})\s*=(?!=)", flat)
    for enum in src.finditer(r"\benum\b[^{]*\{([^}]*)\}"):
        names += re.findall(rf"({IDENT})\s*(?:=[^,]*)?(?:,|$)", enum.group(1))
    return list(dict.fromkeys(n for n in names if n not in KEYWORDS))


def fsm_states(src: Source) -> list[str]:
    """FSM state names: constants that label items of a case statement."""
    return [s for s in parameters(src) if re.search(rf"^\s*{s}\s*:", src.masked, re.M)]


def declared(src: Source) -> set[str]:
    """Every name the design declares: ports, nets, variables, parameters."""
    names = {port.name for port in ports(src)} | set(parameters(src))
    for m in src.finditer(r"\b(?:wire|reg|logic|integer|genvar|bit)\b((?:\s+signed)?\s*(?:\[[^\]]*\]\s*)?)([^;]*);"):
        names |= {n for n in re.findall(rf"(?:^|,)\s*({IDENT})", re.sub(r"=[^,]*", "", m.group(2)))}
    return names - KEYWORDS


@dataclass(frozen=True)
class Block:
    start: int  # offset of `always`
    body: int  # offset just after the event control
    end: int  # where the next module item begins
    clocked: bool
    kind: str  # "", "_ff", "_comb" or "_latch"


_ALWAYS = re.compile(r"\balways(_ff|_comb|_latch)?\b\s*(?:@\s*(?:\*|\([^)]*\)))?")
_ITEM = re.compile(  # what ends an always block: the next module item
    r"\b(?:always\w*|assign|initial|endmodule|function|task|generate)\b"
    r"|^\s*(?:wire|reg|logic|integer|localparam|parameter)\b",
    re.M,
)


def blocks(src: Source) -> list[Block]:
    found = []
    for m in src.finditer(_ALWAYS):
        nxt = _ITEM.search(src.masked, m.end())
        end = nxt.start() if nxt else len(src.masked)
        kind = m.group(1) or ""
        found.append(Block(m.start(), m.end(), end, "edge" in m.group(0) or kind == "_ff", kind))
    return found


@dataclass(frozen=True)
class Assignment:
    lhs: str
    op: int  # offset of the operator
    text: str  # "=" or "<="
    end: int  # offset after the terminating `;`


_ASSIGN = re.compile(rf"(?<![.\w$])({IDENT})\s*(?:\[[^\]\n]*\]\s*)*(<=|=)(?!=)")


def assignments(src: Source, lo: int, hi: int) -> list[Assignment]:
    """Statement-level assignments in [lo, hi): `=`/`<=` outside parentheses, not in `for` headers."""
    found = []
    for m in _ASSIGN.finditer(src.masked, lo, hi):
        op = m.start(2)
        if m.group(1) in KEYWORDS or src.depth_at(op) != 0 or src.line(op).lstrip().startswith("for"):
            continue
        semi = src.masked.find(";", op)
        found.append(Assignment(m.group(1), op, m.group(2), (semi if semi >= 0 else len(src.masked)) + 1))
    return found


def statement_end(src: Source, pos: int) -> int | None:
    """Offset just after the statement that starts at or after pos (begin/end, case, if/else aware)."""
    m = re.compile(r"\s*(\bbegin\b|\bcase[xz]?\b|\bif\b\s*\(|\S)").match(src.masked, pos)
    if m is None:
        return None
    head = m.group(1)
    if head == "begin" or head.startswith("case"):
        closer = "end" if head == "begin" else "endcase"
        return _matching_close(src, m.start(1), head.rstrip("xz"), closer)
    if head.startswith("if"):
        close = src.closing(m.end() - 1)
        then_end = statement_end(src, close + 1) if close is not None else None
        if then_end is None:
            return None
        tail = re.compile(r"\s*\belse\b").match(src.masked, then_end)
        return statement_end(src, tail.end()) if tail else then_end
    semi = src.masked.find(";", m.start(1))
    return None if semi < 0 else semi + 1


def _matching_close(src: Source, pos: int, opener: str, closer: str) -> int | None:
    depth = 0
    for m in re.compile(rf"\b({opener}[xz]?|{closer})\b").finditer(src.masked, pos):
        depth += 1 if m.group(1) != closer else -1
        if depth == 0:
            return m.end()
    return None


def typos(name: str) -> list[str]:
    """Plausible misspellings: two neighbouring letters swapped, or one letter dropped."""
    if len(name) < 3:
        return [name + "_r"]
    mid = len(name) // 2
    swapped = name[: mid - 1] + name[mid] + name[mid - 1] + name[mid + 1 :]
    dropped = name[:mid] + name[mid + 1 :]
    return [t for t in dict.fromkeys((swapped, dropped)) if t != name and re.fullmatch(IDENT, t)]


RESET_IF = re.compile(r"\bif\s*\(\s*([!~]?)\s*(\w*(?:rst|reset|clr|clear)\w*)\s*\)", re.I)


def in_expression(src: Source) -> Callable[[int], bool]:
    """A test for offsets inside expressions: not the module header, parameters, `for` headers, or
    the declaring part of a declaration (its initialiser after `=` counts)."""
    head_lo, head_hi = header_span(src)

    def test(pos: int) -> bool:
        line = src.line(pos)
        statement = src.masked[max(src.masked.rfind(";", 0, pos), 0) : pos]
        if head_lo <= pos < head_hi or re.match(r"\s*(?:parameter|localparam|for)\b", line):
            return False
        if re.match(r"[;\s]*(?:parameter|localparam)\b", statement):
            return False  # a continuation line of a parameter list
        return not is_decl_line(line) or "=" in src.masked[src.line_span(pos)[0] : pos]

    return test


def scan(src: Source, pos: int, stops: str) -> int | None:
    """First offset from pos holding one of `stops` at bracket depth 0, or an unmatched closer."""
    depth = 0
    for index in range(pos, len(src.masked)):
        char = src.masked[index]
        if depth == 0 and (char in stops or char in ")]}"):
            return index
        depth += (char in "([{") - (char in ")]}")
    return None
