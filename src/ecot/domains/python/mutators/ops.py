"""Where Python mistakes can be made: one `find(Source) -> [Site]` per operator.

Finders search the text with comments and string literals blanked (PY_COMMENTS), work line by line
with indentation as the block structure, and describe each bug from the buggy code's side.
"""

from __future__ import annotations

import keyword
import re

from ecot.mutators.base import Site, Source, split_top_level

PY_COMMENTS = re.compile(
    r"#[^\n]*|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
)
IDENT = r"[A-Za-z_]\w*"
_BLOCK_OPENER = re.compile(r"^[ \t]*(?:def|if|elif|else|for|while|try|except|finally|class|with)\b.*:[ \t]*$", re.M)


def clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def lines_with_offsets(src: Source) -> list[tuple[int, str]]:
    """(offset, masked line) for every line."""
    out, pos = [], 0
    for line in src.masked.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def block_end(src: Source, header_line: int) -> int:
    """Index of the first line after the block opened on header_line (by indentation)."""
    rows = lines_with_offsets(src)
    base = indent_of(rows[header_line][1])
    index = header_line + 1
    while index < len(rows):
        text = rows[index][1]
        if text.strip() and indent_of(text) <= base:
            break
        index += 1
    return index


def local_names(src: Source) -> set[str]:
    """Names the code binds: assignments, loop targets, parameters, defs and imports."""
    names = set(re.findall(rf"^[ \t]*({IDENT})[ \t]*(?:[+\-*/%|&^]|//)?=(?!=)", src.masked, re.M))
    names |= {n for m in src.finditer(r"\bfor\s+([\w, ]+?)\s+in\b") for n in re.findall(IDENT, m.group(1))}
    for m in src.finditer(rf"\bdef\s+({IDENT})\s*\(([^)]*)\)"):
        names.add(m.group(1))
        names |= {re.split(r"[:=]", p)[0].strip().lstrip("*") for p in m.group(2).split(",") if p.strip()}
    names |= set(re.findall(rf"^[ \t]*(?:from\s+\S+\s+)?import\s+({IDENT})", src.masked, re.M))
    return {n for n in names if n and not keyword.iskeyword(n) and n != "self"}


# -- syntax ---------------------------------------------------------------------------------------
def missing_colon(src: Source) -> list[Site]:
    sites = []
    for m in _BLOCK_OPENER.finditer(src.masked):
        colon = src.masked.rfind(":", m.start(), m.end())
        statement = src.text[m.start() : colon].strip()
        sites.append(Site(colon, colon + 1, "", f"drops the colon that ends `{clip(statement)}`"))
    return sites


def unbalanced_paren(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"\b(?:{IDENT})\("):
        close = src.closing(m.end() - 1)
        if close is not None and src.masked.count("\n", m.end(), close) == 0:
            call = src.text[m.start() : close + 1]
            sites.append(Site(close, close + 1, "", f"never closes the parenthesis of `{clip(call)}`"))
    return sites


def bad_indentation(src: Source) -> list[Site]:
    rows = lines_with_offsets(src)
    sites = []
    for index in range(1, len(rows)):
        offset, text = rows[index]
        prev = rows[index - 1][1]
        opens_block = prev.rstrip().endswith((":", "\\", ",", "(", "[", "{"))
        same_indent = indent_of(text) == indent_of(prev) and indent_of(text) > 0
        if text.strip() and prev.strip() and not opens_block and same_indent:
            note = f"indents `{clip(src.text[offset:offset + len(text)])}` deeper than the line before it"
            sites.append(Site(offset, offset, "    ", note))
    return sites


# -- structural: names and definitions -------------------------------------------------------------
def wrong_function_name(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"^[ \t]*def\s+({IDENT})", re.M):
        name = m.group(1)
        if name.startswith("__"):
            continue
        alt = _misspell(name)
        sites.append(Site(m.start(1), m.end(1), alt, f"defines `{alt}` where `{name}` is called for"))
    return sites


def undefined_name(src: Source) -> list[Site]:
    """One later use of a local name misspelled (the binding itself stays correct)."""
    names = local_names(src)
    sites = []
    for name in sorted(names):
        if len(name) < 2:
            continue
        uses = [m for m in src.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)(?!\s*=[^=])")]
        if len(uses) >= 2:
            use = uses[-1]
            alt = _misspell(name)
            if alt not in names:
                sites.append(Site(use.start(), use.end(), alt, f"uses `{alt}` where it means `{name}`; `{alt}` is never defined"))
    return sites


def _misspell(name: str) -> str:
    if len(name) >= 4:
        mid = len(name) // 2
        return name[: mid - 1] + name[mid] + name[mid - 1] + name[mid + 1 :]
    return name + "_"


_EMPTY = r"(?:\[\]|\{\}|set\(\)|dict\(\)|list\(\))"


def mutable_default(src: Source) -> list[Site]:
    """A fresh container built inside the function moved into a default argument, shared across calls."""
    rows = lines_with_offsets(src)
    sites = []
    for m in src.finditer(rf"^([ \t]*)def\s+({IDENT})\s*\(([^)]*)\)(?:\s*->[^:]*)?:[ \t]*$", re.M):
        header = src.line_of(m.start())
        body_indent = None
        for index in range(header + 1, min(block_end(src, header), header + 4)):
            offset, text = rows[index]
            body_indent = indent_of(text) if body_indent is None and text.strip() else body_indent
            hit = re.match(rf"^[ \t]*({IDENT})[ \t]*=[ \t]*({_EMPTY})[ \t]*$", text)
            if hit and indent_of(text) == body_indent:
                params = m.group(3).strip()
                default = f"{hit.group(1)}={src.text[offset + hit.start(2):offset + hit.end(2)]}"
                new_params = f"{params}, {default}" if params else default
                note = f"makes `{hit.group(1)}` a mutable default argument, so it keeps its contents between calls"
                sites.append(Site(m.start(3), m.end(3), new_params, note, more=((offset, offset + len(text) + 1, ""),)))
                break
    return sites


# -- timing: loops that never end -------------------------------------------------------------------
def infinite_loop(src: Source) -> list[Site]:
    """Delete the update of a variable that a while loop's condition depends on."""
    rows = lines_with_offsets(src)
    sites = []
    for m in src.finditer(r"^[ \t]*while\b(.*):[ \t]*$", re.M):
        header = src.line_of(m.start())
        watched = set(re.findall(IDENT, m.group(1))) - set(keyword.kwlist)
        end = block_end(src, header)
        body = [i for i in range(header + 1, end) if rows[i][1].strip()]
        for index in body:
            offset, text = rows[index]
            hit = re.match(rf"^([ \t]*)({IDENT})[ \t]*(?:\+|-|//|>>|\*)=", text)
            if hit and hit.group(2) in watched:
                replacement = hit.group(1) + "pass\n" if len(body) == 1 else ""
                note = f"never updates `{hit.group(2)}` inside `while {clip(m.group(1))}`, so the loop cannot end"
                sites.append(Site(offset, offset + len(text) + 1, replacement, note))
    return sites


# -- semantic -----------------------------------------------------------------------------------------
def off_by_one(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\brange\(([^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)"):
        args = m.group(1)
        if not args.strip():
            continue
        parts = split_top_level(args)
        stop_index = 0 if len(parts) == 1 else 1
        start = m.start(1) + sum(len(p) + 1 for p in parts[:stop_index])
        stop = parts[stop_index]
        end = start + len(stop)
        text = src.text[start:end].strip()
        new = text[:-4] if text.endswith(" + 1") else f"{text} - 1" if not text.endswith(" - 1") else text[:-4]
        lead = len(stop) - len(stop.lstrip())
        sites.append(Site(start + lead, end - (len(stop) - len(stop.rstrip())), new,
                          f"stops the range at `{new}` instead of `{text}`"))
    return sites




_CMP_SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}


def wrong_comparison(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"(?<![<>=!])(<=|>=|==|!=|<|>)(?![<>=])"):
        op = m.group(1)
        line = src.line(m.start())
        if "->" in line and op == ">" or re.match(r"\s*(?:def|class|import|from)\b", line):
            continue
        new = _CMP_SWAPS[op]
        around = clip(src.text[m.start() - 20 : m.end() + 20])
        sites.append(Site(m.start(), m.end(), new, f"compares with `{new}` instead of `{op}` in `{around}`"))
    return sites


_ARITH = {"+": "-", "-": "+", "and": "or", "or": "and"}


def swapped_operator(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"(?<=[\w)\]]) (\+|-|and|or) (?=[\w(\[])"):
        op = m.group(1)
        new = _ARITH[op]
        context = src.text[max(0, m.start() - 15) : m.end() + 15]
        sites.append(Site(m.start(1), m.end(1), new, f"uses `{new}` where `{op}` belongs (`{clip(context)}`)"))
    for m in src.finditer(r"\b(min|max)\("):
        new = "max" if m.group(1) == "min" else "min"
        sites.append(Site(m.start(1), m.end(1), new, f"takes the {new}imum where the {m.group(1)}imum is needed"))
    return sites


def wrong_return(src: Source) -> list[Site]:
    names = local_names(src)
    sites = []
    for m in src.finditer(rf"\breturn[ \t]+({IDENT})[ \t]*$", re.M):
        value = m.group(1)
        if value not in names:
            continue
        others = sorted(n for n in names if n != value and len(n) > 1 and not re.search(rf"\bdef\s+{n}\b", src.masked))
        if others:
            sites.append(Site(m.start(1), m.end(1), others[0], f"returns `{others[0]}` instead of `{value}`"))
    return sites


def missing_edge_case(src: Source) -> list[Site]:
    """Delete an early-return guard: `if <cond>: return ...` on one line or as a two-line block."""
    rows = lines_with_offsets(src)
    sites = []
    for index, (offset, text) in enumerate(rows):
        one = re.match(r"^[ \t]*if\b(.*):[ \t]*return\b.*$", text)
        two = re.match(r"^[ \t]*if\b(.*):[ \t]*$", text)
        if one:
            end = offset + len(text) + 1
        elif two and index + 1 < len(rows) and re.match(r"^[ \t]*return\b", rows[index + 1][1]) and block_end(src, index) == index + 2:
            end = rows[index + 1][0] + len(rows[index + 1][1]) + 1
        else:
            continue
        cond = (one or two).group(1)  # type: ignore[union-attr]
        alone = _only_statement(rows, index, index + (1 if one else 2))
        filler = f"{text[:indent_of(text)]}pass\n" if alone else ""
        sites.append(Site(offset, min(end, len(src.text)), filler, f"drops the special case `if {clip(cond)}` and its early return"))
    return sites


def _only_statement(rows: list[tuple[int, str]], first: int, after: int) -> bool:
    """Whether lines first..after-1 are the whole body of their block (removing them would empty it)."""
    before = next((t for _, t in reversed(rows[:first]) if t.strip()), "")
    following = next((t for _, t in rows[after:] if t.strip()), "")
    own = indent_of(rows[first][1])
    return before.rstrip().endswith(":") and (not following or indent_of(following) < own)


def index_shift(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"(?<=\w)\[({IDENT})\]"):
        name = m.group(1)
        sites.append(Site(m.start(1), m.end(1), f"{name} + 1", f"indexes with `{name} + 1` instead of `{name}`"))
    return sites


def true_division(src: Source) -> list[Site]:
    return [Site(m.start(), m.end(), "/", "divides with `/` (a float) where `//` (integer division) is needed")
            for m in src.finditer(r"(?<!/)//(?![/=])")]


def dict_access(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"({IDENT})\.get\(([^(),\n]+)(?:,[^()\n]*)?\)"):
        key = src.text[m.start(2) : m.end(2)].strip()
        sites.append(Site(m.start(), m.end(), f"{m.group(1)}[{key}]", f"indexes `{m.group(1)}[{key}]` directly instead of `.get`, "
                          "which raises KeyError for a missing key"))
    return sites
