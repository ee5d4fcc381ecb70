"""Reading CadQuery (Python) source for the CAD bug operators: masking, calls, arguments, dimensions.

Everything works on a `Source` whose masked copy blanks comments and string literals, so operators
never edit a comment, and offsets from the masked text address the real text.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from ecot.mutators.base import Source

PY_MASK = re.compile(r'#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
NUMBER = re.compile(r"(?<![\w.])\d+\.\d*|(?<![\w.])\d+(?![\w.])")
IDENT = r"[A-Za-z_]\w*"


def python_source(code: str) -> Source:
    return Source(code, PY_MASK)


def clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fmt(value: float) -> str:
    """A literal as an engineer would type it: 12.0, 7.5, 0.25."""
    value = round(value, 3)
    return f"{value:.1f}" if value == int(value) else f"{value:g}"


@dataclass(frozen=True)
class Call:
    """`.name(args)` in the source: offsets of the name, the parentheses and each top-level argument."""

    name: str
    start: int  # the name
    open: int  # "("
    close: int  # ")"
    args: tuple[tuple[int, int], ...]  # stripped argument spans

    def arg_text(self, src: Source, index: int) -> str:
        start, end = self.args[index]
        return src.text[start:end]

    def positional(self, src: Source) -> list[int]:
        """Indexes of the arguments that are not keyword arguments."""
        return [i for i, (s, e) in enumerate(self.args) if not re.match(rf"{IDENT}\s*=(?!=)", src.masked[s:e])]

    def keyword(self, src: Source, name: str) -> int | None:
        for i, (s, e) in enumerate(self.args):
            if re.match(rf"{name}\s*=(?!=)", src.masked[s:e]):
                return i
        return None


def calls(src: Source, *names: str) -> list[Call]:
    """Method or function calls by name, in source order (`.hole(` and `Workplane(` alike)."""
    pattern = rf"\b({'|'.join(map(re.escape, names))})\s*\("
    found = []
    for m in src.finditer(pattern):
        close = src.closing(m.end() - 1)
        if close is not None:
            found.append(Call(m.group(1), m.start(1), m.end() - 1, close, _split_args(src, m.end(), close)))
    return found


def _split_args(src: Source, start: int, end: int) -> tuple[tuple[int, int], ...]:
    spans, depth, begin = [], 0, start
    for index in range(start, end):
        char = src.masked[index]
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            spans.append((begin, index))
            begin = index + 1
    spans.append((begin, end))
    stripped = []
    for s, e in spans:
        text = src.text[s:e]
        lead = len(text) - len(text.lstrip())
        if text.strip():
            stripped.append((s + lead, s + lead + len(text.strip())))
    return tuple(stripped)


def statement(src: Source, pos: int) -> tuple[int, int]:
    """The logical statement holding pos: from the first line that starts outside every bracket to
    the end of the line where the brackets it opens are closed (a parenthesized chain spans lines)."""
    start, _ = src.line_span(pos)
    while start > 0 and _depth_before(src, start) > 0:
        start = src.line_span(start - 1)[0]
    depth = 0
    for index in range(start, len(src.masked)):
        char = src.masked[index]
        depth += (char in "([{") - (char in ")]}")
        if char == "\n" and depth <= 0:
            return start, index
    return start, len(src.text)


def _depth_before(src: Source, pos: int) -> int:
    return sum((c in "([{") - (c in ")]}") for c in src.masked[:pos])


def assignments(src: Source) -> list[tuple[str, int, int, int]]:
    """Top-level `name = expression` statements: (name, name offset, expression start, statement end)."""
    found = []
    for m in src.finditer(rf"^({IDENT})[ \t]*=(?!=)[ \t]*", re.M):
        start, end = statement(src, m.start())
        if start == m.start():
            found.append((m.group(1), m.start(1), m.end(), end))
    return found


_OPS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def evaluate(expression: str, names: dict[str, float]) -> float | None:
    """The value of a small arithmetic expression over numbers and known names, else None (no eval())."""
    try:
        tree = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError:
        return None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.operand))
        raise ValueError("not a plain arithmetic expression")

    try:
        result = value(tree)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    return float(result) if isinstance(result, (int, float)) and abs(result) < 1e9 else None


def dimensions(src: Source) -> dict[str, float]:
    """Top-level numeric variables, evaluated in order (`pcd = 75.0`, `x = span / 2`)."""
    known: dict[str, float] = {}
    for name, _, expr_start, end in assignments(src):
        found = evaluate(src.text[expr_start:end], known)
        if found is not None:
            known[name] = found
    return known


def string_literals(src: Source) -> list[tuple[int, int]]:
    """Spans of simple one-line string literals (quotes included) in the real text."""
    return [m.span() for m in re.finditer(r"\"[^\"\n\\]*\"|'[^'\n\\]*'", src.text)
            if src.masked[m.start()] == " " and src.masked[m.end() - 1] == " "]


def declared(src: Source) -> set[str]:
    """Names the script assigns (the identifiers a diagnostic may mention)."""
    return {name for name, *_ in assignments(src)} | set(re.findall(rf"\bimport\s+\w+\s+as\s+({IDENT})", src.masked))
