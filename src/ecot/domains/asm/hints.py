"""The asm domain's world-model hints: x86-64 registers by their role in the calling convention, and the
kinds of the routine's arguments read from its C prototype in the bundle."""

from __future__ import annotations

import re

from ecot.core.domain import WorldModelHints
from ecot.core.task import Task

X86_CALLEE_SAVED = re.compile(r"[re]?bx|b[lh]|[re]?bp|bpl|[re]?sp|spl|r1[2-5][dwb]?")
X86_REGISTER = re.compile(r"[re]?[acd]x|[acd][lh]|[re]?(?:si|di)|(?:si|di)l|r(?:8|9|1[01])[dwb]?|[xyz]mm\d+|rip")
C_PROTOTYPE = re.compile(r"^\s*(?:extern\s+)?([\w\s*]+?)\s*\b(\w+)\s*\(([^;{}]*)\)\s*;", re.MULTILINE)
C_PARAMETERS = re.compile(r",(?![^()]*\))")  # commas between parameters, not inside a callback's type


def c_kind(declaration: str) -> str:
    """A C parameter or return type by what its register holds: fn, ptr, i64, i8, i32 or void."""
    if "(*" in declaration:
        return "fn"
    if "*" in declaration:
        return "ptr"
    words = set(re.findall(r"\w+", declaration))
    if words & {"long", "size_t", "int64_t", "uint64_t", "intptr_t", "uintptr_t"}:
        return "i64"
    if "char" in words:
        return "i8"
    return "void" if words <= {"void"} else "i32"


def asm_context(task: Task) -> tuple[str, ...]:
    """The kinds of the routine's arguments and result, from its C prototype in the bundle: an address
    bug faults only on a pointer argument, a clobbered register only matters around a callback."""
    name = task.options.get("function")
    for text in task.files.values():
        for match in C_PROTOTYPE.finditer(text):
            if match.group(2) == name:
                params = [p for p in C_PARAMETERS.split(match.group(3)) if p.strip() not in ("", "void")]
                return tuple(sorted({f"arg:{c_kind(p)}" for p in params} | {f"ret:{c_kind(match.group(1))}"}))
    return ()


def x86_word(text: str) -> str | None:
    """An x86-64 register by its role in the System V calling convention (callee-saved or scratch)."""
    if X86_CALLEE_SAVED.fullmatch(text):
        return "REG_SAVED"
    return "REG" if X86_REGISTER.fullmatch(text) else None


HINTS = WorldModelHints(word_class=x86_word, context=asm_context)
