"""Where x86-64 assembly mistakes can be made: one `find(Source) -> [Site]` per operator.

The readers here understand just enough GNU as syntax (AT&T, the form gcc emits and the suite's
references use): one instruction per line, `#` comments, labels, directives, `%reg` operands.
Every finder searches the comment-masked text and describes the bug from the buggy code's side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ecot.mutators.base import Site, Source

ASM_COMMENTS = re.compile(r"#[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)

# register families by operand size; the high-byte names (ah...) are left alone
_LEGACY = {"a": "ax", "b": "bx", "c": "cx", "d": "dx", "si": "si", "di": "di", "bp": "bp", "sp": "sp"}
FAMILIES: dict[str, dict[int, str]] = {}
for _k, _x in _LEGACY.items():
    low = {"a": "al", "b": "bl", "c": "cl", "d": "dl", "si": "sil", "di": "dil", "bp": "bpl", "sp": "spl"}[_k]
    FAMILIES["r" + _x] = {64: "r" + _x, 32: "e" + _x, 16: _x, 8: low}
for _n in range(8, 16):
    FAMILIES[f"r{_n}"] = {64: f"r{_n}", 32: f"r{_n}d", 16: f"r{_n}w", 8: f"r{_n}b"}
FAMILY_OF = {name: family for family, sizes in FAMILIES.items() for name in sizes.values()}
SIZE_OF = {name: size for sizes in FAMILIES.values() for size, name in sizes.items()}
CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")
ARGUMENTS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
SCRATCH = ("rcx", "rdx", "rsi", "r8", "r9", "r10", "r11")


@dataclass(frozen=True)
class Insn:
    """One instruction: its mnemonic and operands with offsets into the source text."""

    start: int  # offset of the mnemonic
    mnemonic: str
    operands: tuple[tuple[int, int], ...]  # (start, end) of each operand
    line_end: int

    def operand(self, src: Source, index: int) -> str:
        start, end = self.operands[index]
        return src.text[start:end]


_LINE = re.compile(r"^[ \t]*(?:[A-Za-z_.$][\w.$]*:[ \t]*)*(?P<mn>[a-z][a-z0-9]*)(?P<rest>[^\n]*)$", re.M)


def instructions(src: Source) -> list[Insn]:
    found = []
    for m in _LINE.finditer(src.masked):
        rest_start = m.start("rest")
        found.append(Insn(m.start("mn"), m.group("mn"), _operands(src.masked, rest_start, m.end("rest")), m.end()))
    return found


def _operands(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    spans, depth, begin = [], 0, start
    for pos in range(start, end + 1):
        char = text[pos] if pos < end else ","
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            a, b = begin, pos
            while a < b and text[a] in " \t":
                a += 1
            while b > a and text[b - 1] in " \t":
                b -= 1
            if b > a:
                spans.append((a, b))
            begin = pos + 1
    return tuple(spans)


def is_register(operand: str) -> bool:
    return operand.startswith("%") and operand[1:] in FAMILY_OF


def registers_used(src: Source) -> set[str]:
    """Register families the code names anywhere."""
    return {FAMILY_OF[name] for name in re.findall(r"%([a-z0-9]+)", src.masked) if name in FAMILY_OF}


def function_names(src: Source) -> list[str]:
    return re.findall(r"^\s*\.globl\s+([A-Za-z_][\w$]*)", src.masked, re.M)


# -- syntax ---------------------------------------------------------------------------------------
def misspelled_mnemonic(src: Source) -> list[Site]:
    sites = []
    for insn in instructions(src):
        name = insn.mnemonic
        if len(name) >= 3:
            typo = name[1] + name[0] + name[2:]
            if typo != name:
                sites.append(Site(insn.start, insn.start + len(name), typo, f"misspells the mnemonic `{name}` as `{typo}`"))
    return sites


def bad_register(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"%(r[a-z]{2}|e[a-z]{2})\b"):
        name = m.group(1)
        if name in FAMILY_OF:
            typo = name[0] + name[2] + name[1]
            if typo not in FAMILY_OF:
                sites.append(Site(m.start(1), m.end(1), typo, f"names the register `%{typo}`, which does not exist (meant `%{name}`)"))
    return sites


_TWO_OPERANDS = re.compile(r"(mov|add|sub|and|or|xor|cmp|test|lea|cmov[a-z]+|imul)[bwlq]?$")


def missing_operand(src: Source) -> list[Site]:
    sites = []
    for insn in instructions(src):
        if len(insn.operands) == 2 and _TWO_OPERANDS.match(insn.mnemonic) and not insn.mnemonic.startswith("imul"):
            (_, first_end), (_, second_end) = insn.operands
            dropped = src.text[first_end:second_end]
            note = f"drops the destination operand of `{insn.mnemonic}` (`{dropped.lstrip(', ')}`)"
            sites.append(Site(first_end, second_end, "", note))
    return sites


# -- structural (symbols, calling convention, stack) ----------------------------------------------
def wrong_symbol_name(src: Source) -> list[Site]:
    sites = []
    for name in function_names(src):
        uses = [m for m in src.finditer(rf"(?<![\w.$]){re.escape(name)}(?![\w$])")]
        if len(uses) < 2:
            continue
        alt = name + "_opt" if not name.endswith("_opt") else name[:-4]
        first, *rest = uses
        more = tuple((u.start(), u.end(), alt) for u in rest)
        sites.append(Site(first.start(), first.end(), alt, f"names the function `{alt}` instead of `{name}`", more=more))
    return sites


def missing_globl(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*\.globl[ \t]+([A-Za-z_][\w$]*)[ \t]*\n", re.M):
        sites.append(Site(m.start(), m.end(), "", f"never declares `{m.group(1)}` global (its `.globl` line is missing)"))
    return sites


def missing_ret(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*ret[ \t]*\n", re.M):
        sites.append(Site(m.start(), m.end(), "", "loses a `ret`, so execution runs on past the end of that path"))
    return sites


def clobbered_callee_saved(src: Source) -> list[Site]:
    """Rename a scratch register to a callee-saved one nobody saves: the ABI breaks, not the arithmetic."""
    used = registers_used(src)
    free = [r for r in CALLEE_SAVED if r not in used]
    if not free:
        return []
    target = free[0]
    sites = []
    shift_count = re.search(r"\b(?:sh|sa|ro)[lr][bwlq]?\s+%cl\b", src.masked) is not None
    for family in SCRATCH:
        if family not in used or not _written_before_read(src, family) or re.search(r"%[a-d]h\b", src.masked):
            continue
        if family == "rcx" and shift_count:
            continue  # variable shifts can only take their count in %cl
        uses = [m for m in src.finditer(r"%([a-z0-9]+)\b") if FAMILY_OF.get(m.group(1)) == family]
        spans = [(m.start(1), m.end(1), FAMILIES[target][SIZE_OF[m.group(1)]]) for m in uses]
        first, *rest = spans
        note = f"keeps a temporary in `%{target}` instead of `%{family}` without saving it (callee-saved)"
        sites.append(Site(first[0], first[1], first[2], note, more=tuple(rest)))
    return sites


_PURE_WRITE = re.compile(r"(mov[a-z]*|lea[a-z]*|set[a-z]+|pop[a-z]?|cvt[a-z0-9]*)$")


def _written_before_read(src: Source, family: str) -> bool:
    """The register's first use overwrites it, so it carries no argument into the function."""
    for insn in instructions(src):
        names = [(i, insn.operand(src, i)) for i in range(len(insn.operands))]
        hits = [(i, op) for i, op in names if any(FAMILY_OF.get(r) == family for r in re.findall(r"%([a-z0-9]+)", op))]
        if not hits:
            continue
        last = len(insn.operands) - 1
        if all(i == last and is_register(op) for i, op in hits):
            same_xor = insn.mnemonic.startswith("xor") and len({op for _, op in names}) == 1
            return bool(_PURE_WRITE.match(insn.mnemonic)) or same_xor
        return False
    return False


def misaligned_stack(src: Source) -> list[Site]:
    """Drop the 8 bytes of padding that keep %rsp 16-byte aligned at calls (only code that calls)."""
    if not re.search(r"^\s*call", src.masked, re.M):
        return []
    sites = []
    for m in src.finditer(r"^([ \t]*)subq[ \t]+\$(\d+),[ \t]*%rsp[ \t]*\n", re.M):
        size = int(m.group(2))
        if size % 16 != 8:
            continue
        more = []
        for add in src.finditer(r"^([ \t]*)addq[ \t]+\$(\d+),[ \t]*%rsp[ \t]*\n", re.M):
            amount = int(add.group(2)) - 8
            more.append((add.start(), add.end(), "" if amount == 0 else f"{add.group(1)}addq\t${amount}, %rsp\n"))
        new = "" if size == 8 else f"{m.group(1)}subq\t${size - 8}, %rsp\n"
        sites.append(Site(m.start(), m.end(), new, "leaves out the 8 bytes that keep the stack 16-byte aligned at calls",
                          more=tuple(more)))
    return sites


def unbalanced_stack(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*popq[ \t]+%(\w+)[ \t]*\n", re.M):
        sites.append(Site(m.start(), m.end(), "", f"pushes `%{m.group(1)}` but never pops it on this path"))
    return sites


# -- semantic ------------------------------------------------------------------------------------
_CONDITIONS = {"l": "le", "le": "l", "g": "ge", "ge": "g", "b": "be", "be": "b", "a": "ae", "ae": "a",
               "e": "ne", "ne": "e", "z": "nz", "nz": "z", "s": "ns", "ns": "s", "c": "nc", "nc": "c"}


def wrong_condition(src: Source) -> list[Site]:
    sites = []
    for insn in instructions(src):
        m = re.fullmatch(r"(j|cmov|set)([a-z]+?)([wlq]?)", insn.mnemonic)
        if m is None or m.group(2) not in _CONDITIONS or (m.group(1) == "j" and m.group(3)):
            continue
        new = m.group(1) + _CONDITIONS[m.group(2)] + m.group(3)
        note = (f"tests condition `{_CONDITIONS[m.group(2)]}` where `{m.group(2)}` is needed "
                f"(`{new}` instead of `{insn.mnemonic}`)")
        sites.append(Site(insn.start, insn.start + len(insn.mnemonic), new, note))
    return sites


def off_by_one_immediate(src: Source) -> list[Site]:
    sites = []
    for insn in instructions(src):
        if not re.match(r"(cmp|add|sub)[bwlq]?$", insn.mnemonic) or not insn.operands:
            continue
        start, end = insn.operands[0]
        m = re.fullmatch(r"\$(-?\d+)", src.text[start:end])
        if m is None:
            continue
        value = int(m.group(1))
        for new in (value + 1, value - 1):
            verb = "compares against" if insn.mnemonic.startswith("cmp") else "uses"
            sites.append(Site(start, end, f"${new}", f"{verb} ${new} instead of ${value} (off by one)"))
    return sites


_SWAPS = {"add": "sub", "sub": "add", "and": "or", "or": "and", "xor": "or", "shl": "shr", "shr": "sar", "sar": "shr", "sal": "shr"}


def swapped_operation(src: Source) -> list[Site]:
    sites = []
    for insn in instructions(src):
        m = re.fullmatch(r"(add|sub|and|or|xor|shl|shr|sar|sal)([bwlq]?)", insn.mnemonic)
        if m is None or (m.group(1) == "xor" and len({insn.operand(src, i) for i in range(len(insn.operands))}) == 1):
            continue  # xor of a register with itself is a zeroing idiom, not arithmetic
        if insn.operands and insn.operand(src, len(insn.operands) - 1) == "%rsp":
            continue  # stack adjustments belong to the stack operators
        new = _SWAPS[m.group(1)] + m.group(2)
        sites.append(Site(insn.start, insn.start + len(insn.mnemonic), new, f"does `{new}` where `{insn.mnemonic}` is needed"))
    return sites


def wrong_register(src: Source) -> list[Site]:
    """A source register operand replaced by another register of the same size the code also uses."""
    families = sorted(registers_used(src) - {"rsp"})
    sites = []
    for insn in instructions(src):
        if len(insn.operands) != 2 or insn.mnemonic.startswith(("push", "pop", "xor", "sh", "sa", "ro")):
            continue  # shift counts live in %cl only
        start, end = insn.operands[0]
        name = src.text[start + 1 : end] if is_register(src.text[start:end]) else ""
        if name not in FAMILY_OF or FAMILY_OF[name] == "rsp":
            continue
        dest = insn.operand(src, 1)
        for other in families:
            alt = FAMILIES[other].get(SIZE_OF[name])
            if other != FAMILY_OF[name] and alt and f"%{alt}" != dest:
                sites.append(Site(start + 1, end, alt, f"reads `%{alt}` where `%{name}` holds the value it needs"))
                break
    return sites


def wrong_operand_size(src: Source) -> list[Site]:
    """A 64-bit register operation done in 32 bits: the upper half is silently zeroed."""
    sites = []
    for insn in instructions(src):
        m = re.fullmatch(r"(add|sub|and|or|imul|neg|not|shr|shl|sar)q", insn.mnemonic)
        if m is None or not insn.operands:
            continue
        ops = [insn.operand(src, i) for i in range(len(insn.operands))]
        wide = [i for i, op in enumerate(ops) if is_register(op) and SIZE_OF[op[1:]] == 64]
        others_ok = all(i in wide or re.fullmatch(r"\$-?\d+|%cl", op) for i, op in enumerate(ops))
        if not wide or not others_ok or "%rsp" in ops:
            continue
        more = tuple((insn.operands[i][0] + 1, insn.operands[i][1], FAMILIES[FAMILY_OF[ops[i][1:]]][32]) for i in wide)
        note = f"does the 64-bit `{insn.mnemonic}` in 32 bits (`{m.group(1)}l`), truncating the upper half"
        sites.append(Site(insn.start, insn.start + len(insn.mnemonic), m.group(1) + "l", note, more=more))
    return sites
