"""A firmware task's expectations (expect.toml): read on the host, never handed to the firmware.

    results  = ["crc=0xcbf43926"]              harness result lines, in order       -> Output_Mismatch
    readback = ["USART2_BRR=0x0000016d"]        harness register readbacks, in order -> Register_Mismatch
    [serial] USART2 = "Hello\\r\\n"             bytes the USART transmitted          -> Output_Mismatch
    [[final]] reg, mask, value, why             register value at the end of the QEMU trace
    [[pins]]  pin = "PA5", levels = [1, 0]      output level changes of a pin, in order
    [[order]] first = {reg, mask, value}, then = {...}, why   `first` must hold before `then` is written

Register checks read the QEMU trace, so they apply to the peripherals QEMU logs (RCC, GPIO, CRC,
FLASH, TIM1/6/7/8-14, PWR, DMA...); modelled ones (USART, TIM2-5, EXTI, SYSCFG, NVIC) are checked
through harness readbacks.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ecot.domains.firmware import regs
from ecot.domains.firmware.trace import Replay, Trace, writes_to


class RegCondition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reg: str
    mask: int = Field(default=0xFFFFFFFF, ge=0, le=0xFFFFFFFF)
    value: int = Field(ge=0, le=0xFFFFFFFF)
    why: str = ""

    @field_validator("reg")
    @classmethod
    def _known(cls, name: str) -> str:
        regs.address_of(name)  # KeyError -> validation error naming the register
        return name

    @property
    def addr(self) -> int:
        return regs.address_of(self.reg)

    def holds(self, value: int) -> bool:
        return value & self.mask == self.value & self.mask

    def text(self) -> str:
        if self.mask == 0xFFFFFFFF:
            return f"{self.reg} = 0x{self.value:08x}"
        return f"{self.reg} & 0x{self.mask:08x} = 0x{self.value & self.mask:08x}"


class PinLevels(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pin: str = Field(pattern=r"^P[A-I](1[0-5]|[0-9])$")
    levels: list[int]


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")
    first: RegCondition
    then: RegCondition
    why: str = ""


class Expectations(BaseModel):
    model_config = ConfigDict(extra="forbid")
    results: list[str] = Field(default_factory=list)
    readback: list[str] = Field(default_factory=list)
    serial: dict[str, str] = Field(default_factory=dict)
    final: list[RegCondition] = Field(default_factory=list)
    pins: list[PinLevels] = Field(default_factory=list)
    order: list[Order] = Field(default_factory=list)

    @field_validator("serial")
    @classmethod
    def _usarts(cls, serial: dict[str, str]) -> dict[str, str]:
        unknown = set(serial) - {"USART1", "USART2", "USART3", "USART6"}
        if unknown:
            raise ValueError(f"serial output is captured for USART1, USART2, USART3 and USART6, not {sorted(unknown)}")
        return serial


def parse_expectations(text: str, where: str) -> Expectations:
    try:
        return Expectations.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError, KeyError) as err:
        raise ValueError(f"{where}: invalid expectations: {err}") from None


@dataclass(frozen=True)
class Finding:
    register: bool  # Register_Mismatch (else Output_Mismatch)
    text: str


def check_registers(exp: Expectations, trace: Trace, state: Replay, gate_note: str | None) -> Finding | None:
    """The first register-behaviour problem: clock gating, ordering, final values, pin sequences."""
    if state.gate_violation or gate_note:
        return Finding(True, state.gate_violation or gate_note or "")
    for rule in exp.order:
        problem = _order_problem(rule, state)
        if problem:
            return Finding(True, problem)
    for cond in exp.final:
        got = state.value(cond.addr)
        if not cond.holds(got):
            return Finding(True, _final_problem(cond, got, trace))
    for pin in exp.pins:
        levels = state.pins.get(pin.pin, [])
        if levels != pin.levels:
            return Finding(True, f"pin {pin.pin} went through levels {_levels(levels)}, expected {_levels(pin.levels)}")
    return None


def _levels(levels: list[int]) -> str:
    if not levels:
        return "[] (it never changed)"
    shown = ", ".join(map(str, levels[:16]))
    return f"[{shown}{', ...' if len(levels) > 16 else ''}] ({len(levels)} changes)"


def _first_time(cond: RegCondition, state: Replay) -> int | None:
    for index, addr, value in state.events:
        if addr == cond.addr and cond.holds(value):
            return index
    return None


def _order_problem(rule: Order, state: Replay) -> str | None:
    then = _first_time(rule.then, state)
    if then is None:
        return None  # a missing final value is reported by the final checks
    first = _first_time(rule.first, state)
    if first is not None and first < then:
        return None
    why = f": {rule.why}" if rule.why else ""
    return f"{rule.then.text()} was written before {rule.first.text()}{why}"


def _final_problem(cond: RegCondition, got: int, trace: Trace) -> str:
    periph = cond.reg.split("_", 1)[0]
    seen = writes_to(trace, periph)
    wrote = f"; writes to {periph}: {', '.join(seen)}" if seen else f"; the program never wrote to {periph}"
    why = f" ({cond.why})" if cond.why else ""
    addr = regs.address_of(cond.reg)
    if cond.mask == 0xFFFFFFFF:
        return f"{cond.reg} (0x{addr:08x}) is 0x{got:08x} at the end, expected 0x{cond.value:08x}{why}{wrote}"
    return (f"{cond.reg} (0x{addr:08x}) bits 0x{cond.mask:08x} are 0x{got & cond.mask:08x} at the end, "
            f"expected 0x{cond.value & cond.mask:08x}{why}{wrote}")


def compare_lines(kind: str, got: list[str], want: list[str]) -> str | None:
    """First difference between reported key=value lines and the expected ones."""
    for index, expected in enumerate(want):
        if index >= len(got):
            return f"the harness reported {len(got)} of {len(want)} {kind}s; missing `{expected}`"
        if got[index] != expected:
            key = expected.split("=", 1)[0]
            value = got[index].split("=", 1)[1] if "=" in got[index] else got[index]
            if got[index].split("=", 1)[0] != key:
                return f"{kind} {index + 1} is `{got[index]}`, expected `{expected}`"
            return f"{kind} `{key}` is {value}, expected {expected.split('=', 1)[1]}"
    if len(got) > len(want):
        return f"the harness reported an unexpected extra {kind} `{got[len(want)]}`"
    return None


def compare_serial(want: dict[str, str], got: dict[str, bytes]) -> str | None:
    for port, text in want.items():
        sent = got.get(port, b"").decode("latin-1")
        if sent != text:
            if not sent:
                return f"{port} transmitted nothing, expected {text!r}"
            cut = next((i for i, (a, b) in enumerate(zip(sent, text)) if a != b), min(len(sent), len(text)))
            return f"{port} transmitted {_clip(sent)!r}, expected {_clip(text)!r} (first difference at byte {cut})"
    return None


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
