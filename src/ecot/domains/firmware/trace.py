"""QEMU's register access trace (-d unimp), replayed on the host.

QEMU writes one line per access to a device it does not model; the guest runtime replays every
trapped access for real, so the log holds the program's RCC, GPIO, CRC and flash-interface traffic
in order, written by QEMU itself (the firmware cannot forge it). The replay tracks register values
(reset values, byte lanes, BSRR acting on ODR, writes to unclocked peripherals ignored like on the
chip), pin level changes and the first access to a peripheral whose clock was still off.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ecot.domains.firmware import regs
from ecot.domains.firmware.clock import WRITE_EVENT, Write, clock_writes

MAX_ACCESSES = 400_000  # a flooding program's trace is cut here; the judge only needs its head and tail

_LINE = re.compile(
    r"^(?P<dev>[^:\n]+): unimplemented device (?P<op>read|write)\s+\(size (?P<size>\d+), offset 0x(?P<off>[0-9a-f]+)"
    r"(?:, value 0x(?P<val>[0-9a-f]+))?\)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Access:
    write: bool
    addr: int
    size: int
    value: int = 0

    def describe(self) -> str:
        where = regs.describe(self.addr)
        return f"write of 0x{self.value:x} to {where}" if self.write else f"read of {where}"


@dataclass
class Trace:
    accesses: list[Access]
    other: list[str]  # QEMU guest-error lines (bad offsets, invalid accesses)
    truncated: bool = False
    clock: list[Write] = field(default_factory=list)  # writes to the harness's clock and reset requests, all of them


def parse_trace(text: str) -> Trace:
    accesses: list[Access] = []
    clock = clock_writes(text)
    for match in _LINE.finditer(text):
        base = regs.QEMU_UNIMP.get(match.group("dev"))
        if base is None:
            continue
        value = int(match.group("val"), 16) if match.group("val") else 0
        accesses.append(Access(match.group("op") == "write", base + int(match.group("off"), 16), int(match.group("size")), value))
        if len(accesses) >= MAX_ACCESSES:
            return Trace(accesses, [], truncated=True, clock=clock)
    other = [ln for ln in text.splitlines() if ln and "unimplemented device" not in ln and f"{WRITE_EVENT} " not in ln][:50]
    return Trace(accesses, other, clock=clock)


@dataclass
class Replay:
    values: dict[int, int] = field(default_factory=dict)  # register word address -> value
    pins: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # "PA5" -> levels
    gate_violation: str | None = None
    gated: int = 0
    events: list[tuple[int, int, int]] = field(default_factory=list)  # (index, word address, value after write)

    def value(self, addr: int) -> int:
        return self.values.get(addr, regs.reset_value(addr))


def _clock_off(state: Replay, periph: regs.Peripheral | None) -> bool:
    if periph is None or periph.enable is None:
        return False
    reg, bit = periph.enable
    return not (state.value(regs.ENABLE_REGISTERS[reg]) >> bit) & 1


def _gpio_odr(state: Replay, periph: regs.Peripheral, new: int) -> None:
    odr = periph.base + 0x14
    old = state.value(odr)
    state.values[odr] = new & 0xFFFF
    for pin in range(16):
        if (old ^ new) >> pin & 1:
            state.pins[f"P{periph.name[-1]}{pin}"].append(new >> pin & 1)


def replay(trace: Trace, presets: dict[int, int] | None = None) -> Replay:
    """presets: registers the harness started away from their reset values (ecot_preset)."""
    state = Replay(values=dict(presets or {}))
    for index, acc in enumerate(trace.accesses):
        periph = regs.peripheral_at(acc.addr)
        if _clock_off(state, periph):
            state.gated += 1
            if state.gate_violation is None:
                assert periph is not None
                state.gate_violation = f"{acc.describe()} before {periph.enable_text} was set"
            continue
        if not acc.write:
            continue
        word, shift = acc.addr & ~3, (acc.addr & 3) * 8
        mask = 0xFFFFFFFF if acc.size >= 4 else ((1 << (8 * acc.size)) - 1) << shift
        value = (acc.value << shift) & mask
        if periph is not None and periph.name.startswith("GPIO") and word - periph.base in (0x14, 0x18):
            odr = state.value(periph.base + 0x14)
            if word - periph.base == 0x14:
                new = (odr & ~mask) | value
            else:
                new = (odr & ~(value >> 16)) | (value & 0xFFFF)
            _gpio_odr(state, periph, new)
            state.events.append((index, periph.base + 0x14, state.value(periph.base + 0x14)))
            continue
        state.values[word] = (state.value(word) & ~mask) | value
        state.events.append((index, word, state.values[word]))
    return state


def tail_summary(trace: Trace, count: int = 12) -> str:
    """What the program was doing last: `8 reads of RCC_CR (0x40023800)`, newest last."""
    if not trace.accesses:
        return ""
    runs: list[tuple[str, int]] = []
    for acc in trace.accesses[-count:]:
        what = acc.describe()
        if runs and runs[-1][0] == what:
            runs[-1] = (what, runs[-1][1] + 1)
        else:
            runs.append((what, 1))
    parts = [f"{n} × {what}" if n > 1 else what for what, n in runs[-3:]]
    return "; ".join(parts)


def writes_to(trace: Trace, periph_name: str, limit: int = 4) -> list[str]:
    """The first few writes to one peripheral, for a mismatch diagnostic."""
    found = []
    for acc in trace.accesses:
        periph = regs.peripheral_at(acc.addr)
        if acc.write and periph is not None and periph.name == periph_name:
            found.append(f"{regs.register_name(acc.addr)}=0x{acc.value:08x}")
            if len(found) == limit:
                break
    return found
