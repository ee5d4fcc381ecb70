"""Where each firmware mistake can be made in bare-metal C: one `find(Source) -> [Site]` per operator.

Every finder searches the comment- and string-masked text and describes the bug from the buggy
code's side. They aim at what goes wrong on a microcontroller: clocks, register offsets and masks,
`volatile`, waits on status flags, interrupt handlers, stack and RAM budgets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ecot.mutators.base import Site, Source

IDENT = r"[A-Za-z_]\w*"
C_KEYWORDS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "auto break case char const continue default do double else enum extern float for goto if inline int long "
        "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile "
        "while uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t size_t"
    ).split()
)


def clip(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Function:
    name: str
    start: int  # start of the definition line
    body: int  # offset of the opening brace
    end: int  # offset of the closing brace
    static: bool


_FUNC = re.compile(rf"^(?P<head>[A-Za-z_][\w \t*]*?)\b(?P<name>{IDENT})\s*\((?P<args>[^;{{}}()]*)\)\s*\{{", re.MULTILINE)


def functions(src: Source) -> list[Function]:
    cached = src.__dict__.get("_fw_functions")  # operators ask for every match; parse once per Source
    if cached is None:
        cached = src.__dict__["_fw_functions"] = _parse_functions(src)
    return cached


def _parse_functions(src: Source) -> list[Function]:
    found = []
    for m in _FUNC.finditer(src.masked):
        if m.group("name") in C_KEYWORDS or re.search(r"\b(if|while|for|switch|return)\b", m.group("head")):
            continue
        brace = m.end() - 1
        close = src.closing(brace, "{}")
        if close is not None:
            found.append(Function(m.group("name"), m.start(), brace, close, "static" in m.group("head").split()))
    return found


def _in_function(src: Source, pos: int) -> Function | None:
    return next((f for f in functions(src) if f.body < pos < f.end), None)


def _statement_line(src: Source, pos: int) -> tuple[int, int] | None:
    """The whole line holding pos, with its newline, when it is one complete statement."""
    start, end = src.line_span(pos)
    line = src.masked[start:end].strip()
    if not line.endswith(";") or line.count(";") != 1 or end >= len(src.text):
        return None
    return start, end + 1


# -- syntax -----------------------------------------------------------------------------------------
def missing_semicolon(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r";[ \t]*$", re.MULTILINE):
        stmt = src.line(m.start()).strip()[:-1].strip()
        if stmt and src.depth_at(m.start()) == 0 and _in_function(src, m.start()) and not stmt.startswith("#"):
            sites.append(Site(m.start(), m.start() + 1, "", f"drops the semicolon that ends `{clip(stmt)}`"))
    return sites


def _typo(name: str) -> str:
    """A realistic slip: one character left out near the end (GPIOAEN -> GPIOEN, uint32_t -> uint3_t)."""
    cut = len(name) - 3 if len(name) > 4 else len(name) - 1
    return name[:cut] + name[cut + 1 :]


def misspelled_identifier(src: Source) -> list[Site]:
    sites, seen = [], set()
    names = set(re.findall(IDENT, src.masked))
    for m in src.finditer(r"\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}|GPIO[A-I]|USART\d|TIM\d+|uint(?:8|16|32)_t)\b"):
        name = m.group(0)
        if name in seen or not _in_function(src, m.start()):
            continue
        seen.add(name)
        alt = _typo(name)
        if alt not in names:
            sites.append(Site(m.start(), m.end(), alt, f"misspells `{name}` as `{alt}`, which nothing declares"))
    return sites


def unbalanced_brace(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\b(?:if|while|for|else)\b[^;{}]*\{"):
        close = src.closing(m.end() - 1, "{}")
        if close is None:
            continue
        start, end = src.line_span(close)
        whole = src.masked[start:end].strip() == "}" and end < len(src.text)
        span = (start, end + 1) if whole else (close, close + 1)
        sites.append(Site(*span, "", f"loses the `}}` that closes `{clip(src.text[m.start():m.end() - 1])}`"))
    return sites


# -- structural: names, clocks, registers, memory ---------------------------------------------------
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest) if rest else f"{name}_impl"


def wrong_function_name(src: Source) -> list[Site]:
    sites = []
    everything = functions(src)
    for f in everything:
        callers = [g for g in everything if g is not f and re.search(rf"\b{f.name}\s*\(", src.masked[g.body:g.end])]
        if f.static or f.name.endswith("Handler") or callers:
            continue  # a helper the file itself calls would be renamed everywhere: nothing breaks
        alt = _camel(f.name)
        pos = src.masked.index(f.name, f.start)
        uses = tuple((m.start(), m.end(), alt) for m in src.finditer(rf"\b{f.name}\b") if m.start() != pos)
        sites.append(Site(pos, pos + len(f.name), alt, f"defines `{alt}` although the task asks for `{f.name}`", more=uses))
    return sites


def misnamed_handler(src: Source) -> list[Site]:
    sites = []
    for f in functions(src):
        if f.name.endswith("_IRQHandler"):
            alt = f.name.replace("_IRQHandler", "_IRQ_Handler")
        elif f.name.endswith("_Handler"):
            alt = f.name.replace("_Handler", "_IRQHandler")
        else:
            continue
        pos = src.masked.index(f.name, f.start)
        note = f"names the interrupt handler `{alt}`, which is not the vector table's `{f.name}`"
        sites.append(Site(pos, pos + len(f.name), alt, note))
    return sites


_RCC_ENABLE = re.compile(r"RCC\s*->\s*(\w+ENR)\s*\|=\s*([^;]+);")


def missing_clock_enable(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(_RCC_ENABLE):
        span = _statement_line(src, m.start())
        if span:
            what = clip(src.text[m.start() : m.end()])
            sites.append(Site(*span, "", f"never enables the peripheral clock: `{what}` is missing"))
    return sites


def clock_enable_late(src: Source) -> list[Site]:
    """Move the RCC enable (with the RCC lines right after it) below the next peripheral access."""
    sites = []
    for m in src.finditer(_RCC_ENABLE):
        span = _statement_line(src, m.start())
        func = _in_function(src, m.start())
        if span is None or func is None:
            continue
        block_end = span[1]
        while block_end < func.end:  # take the following RCC lines (more enables, the read-back) along
            nxt = _statement_line(src, block_end)
            if nxt is None or not re.match(r"\s*(\(void\)\s*)?RCC\s*->", src.masked[nxt[0]:nxt[1]]):
                break
            block_end = nxt[1]
        later = re.search(r"\b(?!RCC\b)[A-Z][A-Z0-9]*\s*->\s*\w+[^;]*;", src.masked[block_end:func.end])
        target = _statement_line(src, block_end + later.start()) if later else None
        if later is None or target is None:
            continue
        moved = src.text[span[0]:block_end]
        what = clip(src.text[block_end + later.start():block_end + later.end()])
        note = f"enables the clock only after `{what}`, so that access reaches an unclocked peripheral"
        sites.append(Site(span[0], block_end, "", note, more=((target[1], target[1], moved),)))
    return sites


_NEIGHBOURS = {
    "MODER": "OTYPER", "OTYPER": "MODER", "OSPEEDR": "PUPDR", "PUPDR": "OSPEEDR", "IDR": "ODR", "ODR": "IDR",
    "BSRR": "ODR", "AHB1ENR": "AHB2ENR", "APB1ENR": "APB2ENR", "APB2ENR": "APB1ENR", "BRR": "CR1", "CR1": "CR2",
    "CR2": "CR1", "PSC": "ARR", "ARR": "PSC", "CCR1": "CCR2", "CCMR1": "CCMR2", "CCER": "CCMR2", "DIER": "SR",
    "RTSR": "FTSR", "FTSR": "RTSR", "IMR": "EMR", "LOAD": "VAL", "ACR": "KEYR", "PLLCFGR": "CFGR",
}


def wrong_register(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"->\s*(\w+)\b"):
        reg = m.group(1)
        if re.match(r"\s*\(void\)", src.line(m.start())):
            continue  # a read-back that only waits for the bus: any register would do
        if reg in _NEIGHBOURS and _in_function(src, m.start()):
            alt = _NEIGHBOURS[reg]
            sites.append(Site(m.start(1), m.end(1), alt, f"accesses `{alt}` where `{reg}` is meant (wrong register offset)"))
    for m in src.finditer(r"AFR\[([01])\]"):
        alt = "1" if m.group(1) == "0" else "0"
        sites.append(Site(m.start(1), m.end(1), alt, f"writes AFR[{alt}] instead of AFR[{m.group(1)}] (the other half of the pins)"))
    for m in src.finditer(r"#define\s+\w+\s+\(\s*\*\s*\(\s*volatile\s+uint32_t\s*\*\s*\)\s*(0x[0-9A-Fa-f]+)(u?)\s*\)"):
        addr = int(m.group(1), 16)
        alt = f"0x{addr + 4:08X}"
        sites.append(Site(m.start(1), m.end(1), alt, f"maps the register at {alt}, four bytes past the intended {m.group(1)}"))
    return sites


def wrong_peripheral(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\b(GPIO)([A-H])\s*->"):
        alt = chr(ord(m.group(2)) + 1)
        sites.append(Site(m.start(2), m.end(2), alt, f"programs GPIO{alt} instead of GPIO{m.group(2)}"))
    for m in src.finditer(r"\bRCC_AHB1ENR_GPIO([A-H])EN\b"):
        alt = chr(ord(m.group(1)) + 1)
        sites.append(Site(m.start(1), m.end(1), alt, f"enables the clock of GPIO{alt} instead of GPIO{m.group(1)}"))
    for m in src.finditer(r"\bRCC_APB1ENR_TIM(\d)EN\b"):
        alt = str(int(m.group(1)) + 1)
        sites.append(Site(m.start(1), m.end(1), alt, f"enables the clock of TIM{alt} instead of TIM{m.group(1)}"))
    return sites


_ARRAY = re.compile(rf"\b(?:u?int(8|16|32)_t|char)\s+({IDENT})\s*\[\s*([^\]\s][^\]]*?)\s*\]")


def link_overflow(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(_ARRAY):
        line = src.line(m.start())
        if _in_function(src, m.start()) or "const" in line.split() or line.lstrip().startswith(("typedef", "extern")):
            continue
        count = 140000 * 8 // int(m.group(1) or 8)
        note = f"sizes the static array `{m.group(2)}` at {count} elements, more than the 128 KiB of SRAM"
        sites.append(Site(m.start(3), m.end(3), str(count), note))
    return sites


def stack_overflow(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(_ARRAY):
        line = src.line(m.start())
        if not _in_function(src, m.start()) or "static" in line.split():
            continue
        count = 6000 * 8 // int(m.group(1) or 8)
        note = f"makes the local array `{m.group(2)}` {count} elements long, more than the 4 KiB thread stack holds"
        sites.append(Site(m.start(3), m.end(3), str(count), note))
    return sites
