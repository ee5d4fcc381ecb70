"""Where each CadQuery mistake can be made: one `find(Source) -> [Site]` per operator.

Three groups: syntax (the script does not parse), structural (API misuse that raises, and geometry
the kernel cannot build or that is not one valid solid) and semantic (a valid solid of the wrong
shape: dimensions, positions, missing features, wrong operations or planes). Finders search the
comment- and string-masked text and describe each bug from the buggy script's side.
"""

from __future__ import annotations

import keyword
import re

from ecot.domains.cad.mutators.text import (
    IDENT,
    NUMBER,
    Call,
    assignments,
    calls,
    clip,
    dimensions,
    evaluate,
    fmt,
    statement,
    string_literals,
)
from ecot.mutators.base import Site, Source

FEATURES = ("hole", "cboreHole", "cskHole", "fillet", "chamfer", "cutThruAll", "cutBlind", "shell")
SELECTORS = ("faces", "edges", "vertices", "workplane", "rect", "pushPoints", "rarray", "polarArray", "center")
POSITIONERS = ("pushPoints", "center", "polarArray", "rarray")


# -- syntax -----------------------------------------------------------------------------------------
def missing_paren(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, *FEATURES, "extrude", "box", "circle", "workplane", "union", "cut", "revolve", "sweep"):
        line_start, line_end = src.line_span(call.close)
        if src.masked[call.close + 1 : line_end].strip() == "":  # the line ends with this call
            text = src.text[call.start : call.close + 1]
            sites.append(Site(call.close, call.close + 1, "", f"never closes the parenthesis of `.{clip(text)}`"))
    return sites


def missing_comma(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, "box", "rect", "polarArray", "rarray", "cboreHole", "cskHole", "slot2D", "center"):
        if len(call.args) >= 2:
            comma = src.masked.index(",", call.args[0][1])
            text = src.text[call.start : call.close + 1]
            sites.append(Site(comma, comma + 1, "", f"drops the comma after the first argument of `.{clip(text)}`"))
    return sites


def unterminated_string(src: Source) -> list[Site]:
    sites = []
    for start, end in string_literals(src):
        literal = src.text[start:end]
        sites.append(Site(end - 1, end, "", f"leaves the string {literal} unterminated"))
    return sites[:6]


# -- structural: API misuse ------------------------------------------------------------------------
_METHOD_TYPOS = {
    "hole": "holes", "extrude": "extrudes", "fillet": "filet", "chamfer": "chamfers", "circle": "circles",
    "box": "cube", "workplane": "workPlane", "polarArray": "polararray", "rarray": "rectArray",
    "revolve": "revolution", "sweep": "sweepAlong", "cut": "subtract", "union": "fuse_with",
    "cboreHole": "counterboreHole", "cskHole": "countersinkHole", "shell": "hollow", "faces": "face",
    "edges": "edge", "vertices": "vertexes", "pushPoints": "pushpoints", "slot2D": "slot",
}


def misspelled_method(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, *_METHOD_TYPOS):
        if src.masked[call.start - 1 : call.start] != ".":
            continue
        wrong = _METHOD_TYPOS[call.name]
        sites.append(Site(call.start, call.start + len(call.name), wrong,
                          f"calls `.{wrong}(...)`, a method CadQuery's Workplane does not have (it is `.{call.name}`)"))
    return sites


_KEYWORD_TYPOS = {"centered": "centred", "forConstruction": "construction", "both": "symmetric",
                  "offset": "distance", "transition": "transitionMode", "isFrenet": "frenet"}


def wrong_keyword(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"\b({'|'.join(_KEYWORD_TYPOS)})\s*=(?!=)"):
        if src.depth_at(m.start()) <= 0:
            continue
        wrong = _KEYWORD_TYPOS[m.group(1)]
        sites.append(Site(m.start(1), m.end(1), wrong, f"passes a keyword `{wrong}=` that the method does not accept "
                          f"(it is `{m.group(1)}=`)"))
    return sites


def missing_argument(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, "box", "rect", "polarArray", "rarray", "cboreHole", "slot2D"):
        positional = call.positional(src)
        if len(positional) < 2:
            continue
        last = positional[-1]
        start = call.args[last - 1][1] if last > 0 else call.args[last][0]
        end = call.args[last][1]
        sites.append(Site(start, end, "", f"calls `.{call.name}` without its argument `{call.arg_text(src, last)}`, "
                          "which it requires"))
    return sites


def _typo(name: str) -> str:
    """A letter dropped from the middle (never a Python keyword such as `with` from `width`)."""
    for cut in (len(name) // 2, len(name) // 2 + 1, 1):
        typo = name[:cut] + name[cut + 1 :]
        if len(name) > 3 and typo != name and not keyword.iskeyword(typo) and re.fullmatch(IDENT, typo):
            return typo
    return name + "_"


def undefined_name(src: Source) -> list[Site]:
    sites = []
    assigned = {name: pos for name, pos, *_ in assignments(src)}
    for name, pos in assigned.items():
        uses = [m for m in src.finditer(rf"(?<![.\w]){re.escape(name)}\b") if m.start() > pos]
        typo = _typo(name)
        if uses and typo not in assigned:
            note = f"uses `{typo}`, a name never defined (it means `{name}`)"
            sites.append(Site(uses[0].start(), uses[0].end(), typo, note))
    return sites


# -- structural: geometry the kernel rejects ------------------------------------------------------
def fillet_too_large(src: Source) -> list[Site]:
    sites = []
    dims = dimensions(src)
    for call in calls(src, "fillet", "chamfer"):
        if not call.args:
            continue
        start, end = call.args[0]
        value = evaluate(src.text[start:end], dims)
        if value is None or value <= 0:
            continue
        big = fmt(max(value * 8, 20.0))
        sites.append(Site(start, end, big, f"asks for a {call.name} of {big} mm where {fmt(value)} mm is specified, "
                          "larger than the faces it has to blend"))
    return sites


def tangent_feature(src: Source) -> list[Site]:
    """Move a hole or bore until its wall touches an outer face: a zero-thickness, non-manifold contact."""
    dims = dimensions(src)
    boxes = [b for b in calls(src, "box") if len(b.args) >= 3]
    holes = [h for h in calls(src, "hole", "cboreHole") if h.args]  # a countersink would break through instead
    sites: list[Site] = []
    if boxes and holes:
        sites += _tangent_holes_in_box(src, dims, boxes[0], holes)
    sites += _tangent_polar(src, dims)
    if boxes:
        sites += _tangent_bore(src, dims, boxes[0])
    return sites


def _tangent_holes_in_box(src: Source, dims: dict[str, float], box: Call, holes: list[Call]) -> list[Site]:
    length = evaluate(box.arg_text(src, 0), dims)
    widest = 1 if holes[0].name == "cboreHole" and len(holes[0].args) > 1 else 0
    diameter = evaluate(holes[0].arg_text(src, widest), dims)
    if length is None or diameter is None:
        return []
    edge = fmt(length / 2 - diameter / 2)
    note = f"puts the holes {edge} mm off centre, so their walls touch the side faces with zero thickness"
    sites = []
    for call in calls(src, "rect"):
        if call.keyword(src, "forConstruction") is not None and call.open > box.close:
            start, end = call.args[0]
            sites.append(Site(start, end, fmt(length - diameter), note))
    for call in calls(src, "pushPoints"):
        first = NUMBER.search(src.masked, call.open, call.close)
        if first and call.open > box.close:
            sign = "-" if src.masked[first.start() - 1] == "-" else ""
            start = first.start() - len(sign)
            sites.append(Site(start, first.end(), f"{sign}{edge}", note))
    return sites


def _tangent_polar(src: Source, dims: dict[str, float]) -> list[Site]:
    radii = [evaluate(c.arg_text(src, 0), dims) for c in calls(src, "circle") if c.args]
    outer = max((r for r in radii if r is not None), default=None)
    sites = []
    for polar in calls(src, "polarArray"):
        follower = next((c for c in calls(src, "hole", "circle") if c.open > polar.close and c.args), None)
        size = evaluate(follower.arg_text(src, 0), dims) if follower else None
        if outer is None or size is None:
            continue
        radius = size / 2 if follower is not None and follower.name == "hole" else size
        start, end = polar.args[0]
        new = fmt(outer - radius)
        sites.append(Site(start, end, new, f"places the bolt circle at radius {new} mm, so the holes touch the rim "
                          "with zero wall thickness"))
    return sites


def _tangent_bore(src: Source, dims: dict[str, float], box: Call) -> list[Site]:
    height = evaluate(box.arg_text(src, 2), dims)
    sites = []
    for center in calls(src, "center"):
        circle = next((c for c in calls(src, "circle") if c.open > center.close and c.args), None)
        if height is None or circle is None or len(center.args) < 2 or "\n" in src.text[center.close : circle.start]:
            continue
        radius = evaluate(circle.arg_text(src, 0), dims)
        axis = evaluate(center.arg_text(src, 1), dims)
        if radius is None or axis is None or not radius < axis < height - radius:
            continue
        if re.search(r'Workplane\(\s*"(YZ|XZ)"', src.text[statement(src, center.start)[0] : center.start]):
            start, end = center.args[1]
            sites.append(Site(start, end, fmt(height - radius), f"raises the bore axis to {fmt(height - radius)} mm, "
                              "so the bore is tangent to the top face (a zero-thickness wall)"))
    return sites


def detached_feature(src: Source) -> list[Site]:
    """Offset a body that is later fused on, so it no longer touches: the union leaves two solids."""
    sites = []
    for call in calls(src, "workplane"):
        index = call.keyword(src, "offset")
        if index is None:
            continue
        stmt_start, stmt_end = statement(src, call.start)
        owner = re.match(rf"({IDENT})\s*=", src.masked[stmt_start:stmt_end])
        if not re.search(r'Workplane\(\s*"XY"', src.text[stmt_start : call.start]):
            continue  # only bodies stacked along Z, where a larger offset opens a gap
        later = src.masked[stmt_end:]
        fused = owner and re.search(rf"\.union\(\s*{owner.group(1)}\b", src.masked[stmt_end:])
        if not fused and not (owner and re.search(rf"\.union\([^\n]*\b{owner.group(1)}\.", later)):
            continue
        start, end = call.args[index]
        expr = src.text[start:end].split("=", 1)[1].strip()
        shifted = f"{expr} - 5.0" if expr.startswith("-") else f"{expr} + 5.0"
        value_start = src.text.index(expr, start)
        sites.append(Site(value_start, value_start + len(expr), shifted,
                          f"moves `{owner.group(1) if owner else 'the feature'}` 5 mm further along Z, away from "
                          "the body it is fused to"))
    return sites


# -- semantic ---------------------------------------------------------------------------------------
def _changed(value: float) -> float:
    return value + 2.0 if abs(value) < 8 else round(value * 1.2, 1)


def wrong_dimension(src: Source) -> list[Site]:
    sites = []
    for name, _, expr_start, end in assignments(src):
        m = NUMBER.fullmatch(src.masked[expr_start:end].strip())
        if m is None:
            continue
        old = float(m.group(0))
        if old == 0:
            continue
        new = fmt(_changed(old))
        start = src.masked.index(m.group(0), expr_start)
        sites.append(Site(start, start + len(m.group(0)), new, f"sets `{name}` to {new} instead of {fmt(old)}"))
    for call in calls(src, "box", "extrude", "circle", "hole"):
        for start, end in call.args:
            m = NUMBER.fullmatch(src.masked[start:end])
            if m and float(m.group(0)) > 0:
                new = fmt(_changed(float(m.group(0))))
                sites.append(Site(start, end, new, f"gives `.{call.name}` {new} where the part needs {m.group(0)}"))
    return sites


def wrong_position(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, *POSITIONERS, "rect"):
        if call.name == "rect" and call.keyword(src, "forConstruction") is None:
            continue
        for m in NUMBER.finditer(src.masked, call.open, call.close):
            old = float(m.group(0))
            if call.name in ("polarArray", "rarray") and src.masked[call.open : m.start()].count(",") >= 2:
                continue  # angles and counts are not positions
            new = fmt(old + 3.0)
            sites.append(Site(m.start(), m.end(), new, f"places the feature with {new} in `.{call.name}(...)` where "
                              f"the drawing says {fmt(old)}"))
    return sites


def missing_feature(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, *FEATURES):
        line_start, line_end = src.line_span(call.start)
        if src.masked[line_start:call.start].strip() == "." and src.masked[call.close + 1 : line_end].strip() == "":
            start = _selector_lines_before(src, line_start)
            what = clip(src.text[call.start : call.close + 1])
            sites.append(Site(start, line_end + 1, "", f"leaves out the `.{what}` feature (and its selection)"))
    features = calls(src, *FEATURES, "cut", "union")
    for name, _, expr_start, end in assignments(src):
        m = re.match(rf"({IDENT})\s*\.", src.masked[expr_start:end])
        if m is None or "\n" in src.text[expr_start:end] or not any(expr_start < c.start < end for c in features):
            continue
        line_start = src.line_span(expr_start)[0]
        what = clip(src.text[expr_start:end], 50)
        if m.group(1) == name:
            sites.append(Site(line_start, end + 1, "", f"never applies `{what}`"))
        else:
            sites.append(Site(expr_start, end, m.group(1), f"assigns `{name} = {m.group(1)}` and never applies `{what}`"))
    return sites


def _selector_lines_before(src: Source, line_start: int) -> int:
    """Walk up over chained selector lines (`.faces(">Z")`, `.workplane()`, ...) that only serve this feature."""
    start = line_start
    while start > 0:
        prev_start, prev_end = src.line_span(start - 1)
        line = src.masked[prev_start:prev_end].strip()
        selector = re.fullmatch(rf"\.(?:{'|'.join(SELECTORS)})\(.*\)", line)
        sketch = re.search(r"\.rect\((?!.*=)", src.text[prev_start:prev_end])  # a profile, not a construction
        if not selector or sketch:
            break
        start = prev_start
    return start


def wrong_operation(src: Source) -> list[Site]:
    swap = {"cut": "union", "union": "cut"}
    sites = []
    for call in calls(src, "cut", "union"):
        if src.masked[call.start - 1 : call.start] == ".":
            new = swap[call.name]
            sites.append(Site(call.start, call.start + len(call.name), new,
                              f"uses `.{new}(...)` where the feature must be {'removed' if new == 'union' else 'added'}"))
    return sites


_PLANES = {"XY": "XZ", "XZ": "YZ", "YZ": "XY"}
_SELECTOR_FLIPS = {">Z": "<Z", "<Z": ">Z", "|Z": "|X", ">X": "<X", "<X": ">X"}


def wrong_workplane(src: Source) -> list[Site]:
    sites = []
    for call in calls(src, "Workplane", "faces", "edges"):
        if not call.args:
            continue
        start, end = call.args[0]
        literal = src.text[start:end]
        inner = literal[1:-1] if literal[:1] in "\"'" and literal[-1:] == literal[:1] else None
        table = _PLANES if call.name == "Workplane" else _SELECTOR_FLIPS
        stmt_start, stmt_end = statement(src, call.start)
        if call.name == "Workplane" and ".revolve(" in src.masked[stmt_start:stmt_end]:
            continue  # a profile revolved about Z gives the same solid from either vertical plane
        if inner in table:
            new = table[inner]
            what = "sketches on the" if call.name == "Workplane" else "selects"
            sites.append(Site(start + 1, end - 1, new, f"{what} \"{new}\" instead of \"{inner}\", so the feature "
                              "ends up on the wrong face or axis"))
    return sites
