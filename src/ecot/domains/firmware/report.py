"""The trusted report channel of a firmware run, and what its fault records mean.

The runtime writes lines `\\x02<tag> KIND fields` through semihosting, the tag being a per-evaluation
secret linked into the runtime only. Kinds: R (result), B (register readback), N (note, e.g. a
clock-gated access to a peripheral QEMU models), F + P (fault status and where), W (watchdog:
simulated time ran out), X (peripheral access budget spent), I (interrupt with no handler), U (an
access the emulator cannot decode), E (the harness finished). Lines without the tag are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ecot.domains.firmware import regs
from ecot.domains.firmware.domain import FirmwareLabel

MEMORY_FAULT = FirmwareLabel.MEMORY_FAULT.value
HARD_FAULT = FirmwareLabel.HARD_FAULT.value

_FIELD = re.compile(r"(\w+)=(\S+)")
CFSR_BITS = {
    0: ("IACCVIOL", "instruction fetch from a location the MPU forbids"),
    1: ("DACCVIOL", "data access the MPU forbids"),
    3: ("MUNSTKERR", "fault while unstacking an exception frame"),
    4: ("MSTKERR", "fault while stacking an exception frame"),
    8: ("IBUSERR", "bus error on an instruction fetch"),
    9: ("PRECISERR", "precise data bus error"),
    10: ("IMPRECISERR", "imprecise data bus error"),
    11: ("UNSTKERR", "bus error while unstacking"),
    12: ("STKERR", "bus error while stacking"),
    16: ("UNDEFINSTR", "undefined instruction"),
    17: ("INVSTATE", "invalid execution state (a branch to an address with bit 0 clear)"),
    18: ("INVPC", "invalid exception return value in PC"),
    19: ("NOCP", "coprocessor (FPU) instruction with the coprocessor disabled"),
    24: ("UNALIGNED", "unaligned access"),
    25: ("DIVBYZERO", "integer division by zero"),
}
MEMORY_BITS = {1, 3, 4, 9, 10, 11, 12}  # data-side and stack faults; the rest are execution faults


@dataclass
class Report:
    results: list[str] = field(default_factory=list)
    readbacks: list[str] = field(default_factory=list)
    notes: list[dict[str, str]] = field(default_factory=list)
    fault: dict[str, int] | None = None
    stop: tuple[str, dict[str, int]] | None = None  # (kind, fields) of F/W/X/I/U
    end: int | None = None


def tag_text(hi: int, lo: int) -> str:
    return f"0x{hi:08x}0x{lo:08x}"


def _ints(text: str) -> dict[str, int]:
    return {k: int(v, 16) for k, v in _FIELD.findall(text) if v.startswith("0x")}


def parse_report(text: str, tag: str) -> Report:
    report = Report()
    marker = f"\x02{tag} "
    for chunk in text.split(marker)[1:]:
        line = chunk.split("\n", 1)[0].rstrip("\r")
        kind, _, rest = line.partition(" ")
        if kind == "R":
            report.results.append(rest)
        elif kind == "B":
            report.readbacks.append(rest)
        elif kind == "N":
            name, _, fields = rest.partition(" ")
            report.notes.append({"kind": name, **dict(_FIELD.findall(fields))})
        elif kind == "F":
            report.fault = _ints(rest)
        elif kind in ("P", "W", "X", "I", "U") and report.stop is None:
            report.stop = ("F" if kind == "P" else kind, _ints(rest))
        elif kind == "E":
            report.end = _ints(rest).get("results", 0)
    return report


def presets(report: Report) -> dict[int, int]:
    """Registers the harness preset (ecot_preset): word address -> value."""
    return {int(n["addr"], 16): int(n["value"], 16) for n in report.notes if n.get("kind") == "PRESET"}


def gate_note(report: Report) -> str | None:
    for note in report.notes:
        if note.get("kind") == "GATE":
            addr = int(note["addr"], 16)
            periph = regs.peripheral_at(addr)
            what = f"write of {note['value']} to" if note.get("write", "0x0") != "0x00000000" else "read of"
            clock = periph.enable_text if periph and periph.enable else "its RCC clock enable"
            return f"{what} {regs.describe(addr)} before {clock} was set (the chip ignores it)"
    return None


def fault_bits(cfsr: int) -> list[int]:
    return [bit for bit in CFSR_BITS if cfsr >> bit & 1]


def classify_fault(fault: dict[str, int]) -> str:
    bits = fault_bits(fault.get("cfsr", 0))
    return MEMORY_FAULT if any(b in MEMORY_BITS for b in bits) else HARD_FAULT


def fault_kind(cfsr: int) -> str:
    if cfsr & 0xFF:
        return "MemManage fault"
    if cfsr & 0xFF00:
        return "BusFault"
    if cfsr & 0xFFFF0000:
        return "UsageFault"
    return "HardFault"


def region(addr: int, stack_top: int) -> str:
    """Which part of the memory map an address falls in, said the way an engineer would."""
    if addr < 0x100:
        return "a NULL pointer dereference"
    if addr < 0x00100000:
        return "the flash alias at 0x00000000, which the MPU leaves unmapped (a near-NULL pointer?)"
    if 0x08000000 <= addr < 0x08100000:
        return "flash, which is read-only (a write to a const object or through a bad pointer?)"
    if 0x1FF00000 <= addr < 0x20000000:
        return f"below the start of SRAM: the thread stack (0x20000000-0x{stack_top:08x}) overflowed"
    if 0x20000000 <= addr < 0x20020000:
        return "SRAM that the MPU forbids here (the handler stack guard, or code execution from RAM)"
    if 0x20020000 <= addr < 0x30000000:
        return "beyond the end of the 128 KiB SRAM (0x20000000-0x2001ffff): an out-of-bounds index or pointer?"
    if 0x42000000 <= addr < 0x44000000:
        return _bit_band(addr)
    reserved = regs.reserved_use(addr)
    if reserved is not None:
        return f"{regs.describe(addr)}, reserved for {reserved}: firmware under test may not access it"
    if 0x40000000 <= addr < 0x60000000:
        return f"the peripheral space, but no peripheral is at {regs.describe(addr)}"
    return "an address where nothing is mapped"


def _bit_band(alias: int) -> str:
    """A peripheral bit-band alias address, named by the register bit it stands for."""
    target = 0x40000000 + ((alias - 0x42000000) >> 5)
    bit = (target & 3) * 8 + ((alias >> 2) & 7)
    word = target & ~3
    what = f"the bit-band alias of bit {bit} of {regs.describe(word)}"
    reserved = regs.reserved_use(word)
    if reserved is not None:
        return f"{what}, reserved for {reserved}: firmware under test may not access it"
    return what if regs.peripheral_at(word) else f"{what}, where no peripheral is"
