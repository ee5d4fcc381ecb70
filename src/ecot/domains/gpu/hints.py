"""The gpu domain's world-model hints: Python's, plus how a reference line of a Triton kernel reaches memory."""

from __future__ import annotations

import re
from functools import lru_cache

from ecot.core.domain import PYTHON_MASK
from ecot.core.task import Task
from ecot.domains.languages import python_hints
from ecot.mutators.base import Source, split_top_level

TRITON_ACCESS = re.compile(r"\btl\.(load|store)\(")
PY_ASSIGNED = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")


def _triton_accesses(line: str) -> list[tuple[str, str, str]]:
    """(load or store, row or flat, address and mask text) of each Triton memory access on a line; an
    address with a product or a 2-D broadcast is row-addressed."""
    found = []
    source = Source(line, PYTHON_MASK)
    for match in TRITON_ACCESS.finditer(source.masked):
        close = source.closing(match.end() - 1)
        args = [a.strip() for a in split_top_level(line[match.end() : len(line) if close is None else close])]
        positional_mask = 1 if match.group(1) == "load" else 2  # tl.load(ptr, mask, ...), tl.store(ptr, value, mask)
        masks = [a for a in args if a.startswith("mask=")] or args[positional_mask:positional_mask + 1]
        address = args[0] if args else ""
        found.append((match.group(1), "row" if "*" in address or "None" in address else "flat", " ".join([address, *masks])))
    return found


@lru_cache(maxsize=4096)
def triton_line_context(task: Task, line: int) -> tuple[str, ...]:
    """How a reference line reaches memory: its own loads and stores, and those whose address or mask
    the name it assigns (a mask, offsets) feeds. An overrun of a stored row lands in the next row
    (programs race: a wrong number); a flat overrun, or one only loaded, leaves the buffer (a fault)."""
    lines = (task.reference or "").splitlines()
    if not 0 < line <= len(lines):
        return ()
    text = lines[line - 1]
    words = {f"access:{kind}:{shape}" for kind, shape, _ in _triton_accesses(text)}
    assigned = PY_ASSIGNED.match(text)
    if assigned:
        name = re.compile(rf"\b{re.escape(assigned.group(1))}\b")
        uses = [(kind, shape) for at, other in enumerate(lines) if at != line - 1 and name.search(other)
                for kind, shape, where in _triton_accesses(other) if name.search(where)]
        stores = [shape for kind, shape in uses if kind == "store"]
        if stores:
            words.add("guards:store:" + ("row" if "row" in stores else "flat"))
        elif uses:
            words.add("guards:load:" + ("row" if any(shape == "row" for _, shape in uses) else "flat"))
    return tuple(sorted(words))


HINTS = python_hints(line_context=triton_line_context)
