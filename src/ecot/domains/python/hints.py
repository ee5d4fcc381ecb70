"""The python domain's world-model hints: Python's, plus where a changed reference line runs."""

from __future__ import annotations

from functools import lru_cache

from ecot.core.task import Task
from ecot.domains.languages import python_hints


@lru_cache(maxsize=256)
def _python_line_roles(reference: str, entry: str) -> tuple[tuple[str, ...], ...]:
    """Per reference line, read from indentation: whether it runs in a loop (or a nested one), and in
    the entry point, a helper or at module level."""
    roles: list[tuple[str, ...]] = []
    blocks: list[tuple[int, str]] = []  # (indent, "loop" | "def:NAME" | "block") of the open blocks
    for text in reference.splitlines():
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            roles.append(())
            continue
        indent = len(text) - len(text.lstrip())
        while blocks and blocks[-1][0] >= indent:
            blocks.pop()
        kinds = [kind for _, kind in blocks]
        functions = [kind[4:] for kind in kinds if kind.startswith("def:")]
        where = "module" if not functions else "entry" if functions[0] == entry else "helper"
        loops = kinds.count("loop")
        roles.append((f"in:{where}", *(["in:loop"] if loops else []), *(["in:loop2"] if loops > 1 else [])))
        if stripped.startswith(("for ", "while ", "async for ")):
            blocks.append((indent, "loop"))
        elif stripped.startswith("def "):
            blocks.append((indent, "def:" + stripped[4:].split("(")[0].strip()))
        elif stripped.endswith(":"):
            blocks.append((indent, "block"))
    return tuple(roles)


def python_line_context(task: Task, line: int) -> tuple[str, ...]:
    """Where a changed line runs: in a loop, a changed index or bound is hit on every pass (an
    IndexError more than a wrong answer); in the entry point or a helper, or once at module level."""
    entry = str(task.options.get("entry_point") or "").rpartition(".")[2]
    roles = _python_line_roles(task.reference or "", entry)
    return roles[line - 1] if 0 < line <= len(roles) else ()


HINTS = python_hints(line_context=python_line_context)
