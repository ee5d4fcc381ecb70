"""Firmware operators for timing (volatile, waits, interrupt flags) and logic (masks, shifts,
boundaries, operators, recursion). The syntax and structural ones live in firmware_ops."""

from __future__ import annotations

import re

from ecot.domains.firmware.mutators.ops import (
    IDENT,
    _in_function,
    _statement_line,
    clip,
    functions,
)
from ecot.mutators.base import Site, Source


# -- timing: volatile, waiting on flags, interrupt flags -------------------------------------------
def missing_volatile(src: Source) -> list[Site]:
    """Only where it bites: a variable a loop waits on, or a register mapped through a pointer cast."""
    waited = {n for m in src.finditer(r"\bwhile\s*\(([^;{]*)\)") for n in re.findall(IDENT, m.group(1))}
    sites = []
    for m in src.finditer(rf"\bvolatile\s+(?:u?int\d+_t|char|int|unsigned)\s+({IDENT})"):
        if m.group(1) in waited and not _in_function(src, m.start()):
            note = f"declares `{m.group(1)}` without `volatile`, so the loop waiting on it reads a stale copy"
            sites.append(Site(m.start(), m.start() + len("volatile "), "", note))
    for m in src.finditer(r"#define\s+(\w+)\s+\(\s*\*\s*\(\s*(volatile\s+)uint32_t"):
        note = f"maps `{m.group(1)}` through a non-volatile pointer, so the compiler may merge or drop its accesses"
        sites.append(Site(m.start(2), m.end(2), "", note))
    return sites


_WAIT = re.compile(r"\bwhile\s*\(\s*!\s*\((?P<cond>[^;{}]*?)\)\s*\)")


def inverted_wait(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(_WAIT):
        bang = src.masked.index("!", m.start())
        cond = clip(src.text[m.start("cond"):m.end("cond")])
        sites.append(Site(bang, bang + 1, "", f"waits while `{cond}` is set instead of until it is set"))
    return sites


_CONFUSED_FLAGS = {
    "RCC_CFGR_SWS_PLL": "RCC_CFGR_SW_PLL", "USART_SR_TXE": "USART_SR_RXNE", "USART_SR_RXNE": "USART_SR_IDLE",
    "SysTick_CTRL_COUNTFLAG_Msk": "SysTick_CTRL_ENABLE_Msk", "RCC_CR_HSERDY": "RCC_CR_CSSON",
    "RCC_CR_PLLRDY": "RCC_CR_PLLON", "TIM_SR_UIF": "TIM_SR_CC1IF", "USART_SR_TC": "USART_SR_RXNE",
}


def wrong_wait_flag(src: Source) -> list[Site]:
    sites = []
    for loop in src.finditer(r"\bwhile\s*\(([^;{}]*)\)"):
        for m in re.finditer(r"\b\w+\b", loop.group(1)):
            alt = _CONFUSED_FLAGS.get(m.group(0))
            if alt:
                pos = loop.start(1) + m.start()
                note = f"waits on `{alt}` where it means `{m.group(0)}`"
                sites.append(Site(pos, pos + len(m.group(0)), alt, note))
    return sites


def missing_wait(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*while\s*\([^;{}]*(?:\([^;{}]*\)[^;{}]*)*\)\s*(?:\{\s*\}|;)[ \t]*\n", re.MULTILINE):
        cond = clip(src.text[m.start():m.end()].strip().rstrip("{}; \n"))
        sites.append(Site(m.start(), m.end(), "", f"does not wait at all: the busy-wait `{cond}` is missing"))
    return sites


def missing_flag_clear(src: Source) -> list[Site]:
    sites = []
    for f in (f for f in functions(src) if f.name.endswith("Handler")):
        for m in src.finditer(r"\b\w+\s*->\s*(SR|PR)\s*=[^=;][^;]*;"):
            span = _statement_line(src, m.start()) if f.body < m.start() < f.end else None
            if span:
                what = clip(src.text[m.start():m.end()])
                sites.append(Site(*span, "", f"never acknowledges the interrupt in `{f.name}`: `{what}` is missing"))
    return sites


# -- semantic: masks, shifts, boundaries, operators ---------------------------------------------------
_NARROW = {"3": "1", "0x3": "0x1", "0xF": "0x7", "0xFF": "0x7F", "0x3F": "0x1F", "0x7": "0x3", "0xFFFF": "0x7FFF"}


def wrong_bit_mask(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"(?<![\w.])(3|0x3|0xF|0xFF|0x3F|0x7|0xFFFF)(u?)\b(?=\s*<<)"):
        if _in_function(src, m.start()):
            alt = _NARROW[m.group(1)]
            sites.append(Site(m.start(1), m.end(1), alt, f"uses the mask {alt} where the field needs {m.group(1)}"))
    for m in src.finditer(r"&=?\s*(~)\s*(?=[(A-Za-z0-9])"):
        if _in_function(src, m.start()):
            what = clip(src.line(m.start()).strip())
            sites.append(Site(m.start(1), m.end(1), "", f"masks with the bits instead of their complement in `{what}`"))
    return sites


def wrong_shift(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"<<\s*\(\s*(\w+)\s*\*\s*([24])\s*\)"):
        if _in_function(src, m.start()):
            note = f"shifts by `{m.group(1)}` instead of `{m.group(1)} * {m.group(2)}` (each field is {m.group(2)} bits wide)"
            sites.append(Site(m.start(), m.end(), f"<< {m.group(1)}", note))
    for m in src.finditer(r"(<<|>>)\s*(\d+)(u?)\b(?!\s*\*)"):
        n = int(m.group(2))
        if n >= 1 and _in_function(src, m.start()):
            alt = str(n + 1)
            sites.append(Site(m.start(2), m.end(2), alt, f"shifts by {alt} instead of {n}"))
    return sites


def off_by_one(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"(?<![<>=!-])(<|>)(=?)(?![<>=])"):
        if not _in_function(src, m.start()) or src.masked[m.start() - 1:m.start()] == "-":
            continue
        old = m.group(0)
        alt = old + "=" if not m.group(2) else m.group(1)
        what = clip(src.line(m.start()).strip())
        sites.append(Site(m.start(), m.end(), alt, f"compares with `{alt}` instead of `{old}` in `{what}`"))
    for m in src.finditer(r"(?<![\w.\[])(\d+)(u?)\b(?![\w.\[])"):
        value = int(m.group(1))
        before, after = src.masked[max(0, m.start() - 3):m.start()], src.masked[m.end():m.end() + 4]
        if value < 2 or not _in_function(src, m.start()) or re.search(r"(<<|>>|\[|\*)\s*$", before):
            continue  # shift amounts and field positions belong to wrong_shift
        if re.match(r"\s*(<<|\*)", after):
            continue  # masks and field indices (3u << n, 5 * 2) belong to wrong_bit_mask and wrong_shift
        alt = str(value - 1)
        sites.append(Site(m.start(1), m.end(1), alt, f"uses {alt} where {value} is needed"))
    return sites


# `|` -> `^` is left out on purpose: register values mostly combine disjoint bits, where both agree.
_SWAPS = {"+": "-", "-": "+", "^": "|", "|": "&", "&": "|", "&&": "||", "||": "&&", "==": "!=", "!=": "=="}


def swapped_operator(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"(?<=[\w)\]] )(\+|-|\^|\||&&|&|\|\||==|!=)(?= [\w(~])"):
        if _in_function(src, m.start()):
            op = m.group(1)
            alt = _SWAPS[op]
            what = clip(src.line(m.start()).strip())
            sites.append(Site(m.start(), m.end(), alt, f"uses `{alt}` instead of `{op}` in `{what}`"))
    return sites


def missing_base_case(src: Source) -> list[Site]:
    sites = []
    for f in functions(src):
        if not re.search(rf"\b{f.name}\s*\(", src.masked[f.body:f.end]):
            continue  # not recursive
        for m in src.finditer(r"^[ \t]*if\s*\([^;{}]*\)\s*\n?[ \t]*return\b[^;]*;[ \t]*\n", re.MULTILINE):
            if f.body < m.start() < f.end:
                what = clip(src.text[m.start():m.end()])
                sites.append(Site(m.start(), m.end(), "", f"drops the recursion's base case `{what}`, so it never stops"))
                break
    return sites
