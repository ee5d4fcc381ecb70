"""Turning a firmware run into an outcome: faults, timeouts, register behaviour, results.

Only channels the firmware cannot write decide: the tagged report lines (the per-evaluation secret
is linked into the trusted runtime only), QEMU's own trace and USART output files, QEMU's exit
signal, and the expectations, which never leave the host. QEMU's trace also shows every write to
the harness's clock (TIM5): one the harness did not make fails the run, however it got past the
trap. A candidate that prints a fake result or a fake fault report prints untagged text, which is
kept in the log and judged by nobody.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ecot import sandbox
from ecot.core.outcome import INFRA_ERROR, PASS, RESOURCE_LIMIT, TIMEOUT
from ecot.domains.firmware import regs
from ecot.domains.firmware.clock import boot_logged, tampering
from ecot.domains.firmware.domain import FirmwareLabel
from ecot.domains.firmware.expect import (
    Expectations,
    check_registers,
    compare_lines,
    compare_serial,
)
from ecot.domains.firmware.options import FirmwareOptions
from ecot.domains.firmware.report import (
    CFSR_BITS,
    HARD_FAULT,
    MEMORY_FAULT,
    Report,
    classify_fault,
    fault_bits,
    fault_kind,
    gate_note,
    presets,
    region,
)
from ecot.domains.firmware.run import TRACE_READ_LIMIT, Artifacts
from ecot.domains.firmware.trace import Trace, replay, tail_summary

REGISTER_MISMATCH = FirmwareLabel.REGISTER_MISMATCH.value
OUTPUT_MISMATCH = FirmwareLabel.OUTPUT_MISMATCH.value
SRAM_START = 0x20000000
Symbolize = Callable[[list[int]], dict[int, str]]


@dataclass(frozen=True)
class Verdict:
    label: str
    diagnostic: str
    metrics: dict[str, Any]


def judge(
    settings: FirmwareOptions, expect: Expectations, result: sandbox.ExecResult, found: Artifacts,
    report: Report, trace: Trace, symbolize: Symbolize, wall_s: float,
) -> Verdict:
    metrics: dict[str, Any] = {"trace_accesses": len(trace.accesses), "results": len(report.results)}
    tampered = tampering(trace.clock, settings.budget_us)
    if tampered is not None:
        return Verdict(MEMORY_FAULT, tampered, metrics)
    early = _abnormal_end(settings, result, report, trace, symbolize, wall_s)
    if early is None:
        early = _unwatched_clock(settings, found, trace)
    if early is not None:
        return Verdict(early[0], early[1], metrics)
    state = replay(trace, presets(report))
    metrics["gated_accesses"] = state.gated
    finding = check_registers(expect, trace, state, gate_note(report))
    if finding is not None:
        return Verdict(REGISTER_MISMATCH, finding.text, metrics)
    readback = compare_lines("register readback", report.readbacks, expect.readback)
    if readback:
        return Verdict(REGISTER_MISMATCH, readback, metrics)
    output = compare_lines("result", report.results, expect.results) or compare_serial(expect.serial, found.serial)
    if output:
        return Verdict(OUTPUT_MISMATCH, output, metrics)
    checks = len(expect.results) + len(expect.readback) + len(expect.final) + len(expect.pins) + len(expect.order)
    return Verdict(PASS, f"all {checks + len(expect.serial)} checks passed", metrics)


def _abnormal_end(
    settings: FirmwareOptions, result: sandbox.ExecResult, report: Report, trace: Trace, symbolize: Symbolize, wall_s: float,
) -> tuple[str, str] | None:
    """Label and diagnostic when the run did not reach the harness's end marker."""
    tail = tail_summary(trace)
    last = f"; last peripheral accesses: {tail}" if tail else ""
    if report.stop is not None:
        return _stopped(settings, report, symbolize, last)
    if result.timed_out:
        return TIMEOUT, f"the firmware did not finish within {wall_s:g} s of real time (interrupts masked in a loop?){last}"
    if result.output_overflow:
        return RESOURCE_LIMIT, "the firmware's console output flooded the limit and QEMU was stopped"
    sig = result.signal
    if sig == signal.SIGXFSZ:
        return RESOURCE_LIMIT, f"the firmware's trace or console output outgrew the file size limit{last}"
    if sig == signal.SIGSYS:
        return HARD_FAULT, ("the firmware made a semihosting call that asks the host to run a command (SYS_SYSTEM); "
                            "the harness forbids it, and a board without a debugger answers a BKPT with a HardFault")
    if report.end is not None:
        if report.end != len(report.results):  # lines lost on the way (e.g. a flood before them): not every check reached us
            return OUTPUT_MISMATCH, (f"the harness finished after writing {report.end} result(s), but {len(report.results)} "
                                     "reached the judge: the report was cut short")
        return None
    if "Lockup" in result.stderr:
        pc = re.search(r"R15=([0-9a-f]{8})", result.stderr)
        at = f" at {_place(int(pc.group(1), 16), symbolize([int(pc.group(1), 16)]))}" if pc else ""
        return HARD_FAULT, (f"the core locked up{at}: a fault occurred where none can be taken (inside the fault "
                            "handler, or with FAULTMASK set)")
    if "qemu-system-arm:" in result.stderr:
        line = next(ln for ln in result.stderr.splitlines() if "qemu-system-arm:" in ln)
        return INFRA_ERROR, f"QEMU failed: {line.strip()[:240]}"
    done = f"after {len(report.results)} result(s)" if report.results else "before any result"
    return OUTPUT_MISMATCH, (f"the firmware ended {done} without the harness finishing (exit status "
                             f"{result.returncode}): it stopped the simulation itself, e.g. through exit() or a semihosting exit")


def _unwatched_clock(settings: FirmwareOptions, found: Artifacts, trace: Trace) -> tuple[str, str] | None:
    """Why the trace cannot vouch that the harness's clock was left alone (None when it can)."""
    if found.trace_bytes >= TRACE_READ_LIMIT:
        return RESOURCE_LIMIT, (f"QEMU's register trace outgrew the {TRACE_READ_LIMIT >> 20} MiB the judge reads, so its "
                                "end, where a write to the harness's clock could hide, went unread")
    if not boot_logged(trace.clock, settings.budget_us):
        return INFRA_ERROR, ("QEMU's trace lacks the harness's own TIM5 writes at boot: this QEMU does not log MMIO "
                             "writes (trace event memory_region_ops_write), so the harness's clock cannot be vouched for")
    return None


def _stopped(settings: FirmwareOptions, report: Report, symbolize: Symbolize, last: str) -> tuple[str, str]:
    assert report.stop is not None
    kind, where = report.stop
    pc, lr, xpsr = where.get("pc", 0), where.get("lr", 0), where.get("xpsr", 0)
    names = symbolize([a for a in (pc, lr) if a])
    at = _place(pc, names) + _context(xpsr)
    if kind == "F" and report.fault is not None:
        return _fault(settings, report.fault, where, at)
    if kind == "W":
        touched = where.get("a", 0)
        reg = f"; the last peripheral register it accessed was {regs.describe(touched)}" if touched else ""
        return TIMEOUT, f"the firmware did not finish within {settings.sim_ms} ms of simulated time; it was at {at}{reg or last}"
    if kind == "X":
        target = where.get("a", 0)
        periph = regs.peripheral_at(target)
        traced = periph is not None and periph.base in regs.QEMU_UNIMP.values()
        return TIMEOUT, (f"the firmware made more than {settings.max_accesses} peripheral register accesses without "
                         f"finishing; the last was to {regs.describe(target)} at {at}: is it polling a flag that never "
                         f"changes?{last if traced else ''}")
    if kind == "I":
        exc = where.get("a", 0)
        handler = regs.handler_name(exc)
        irq = f" (IRQ {exc - 16})" if exc >= 16 else ""
        return HARD_FAULT, (f"unexpected interrupt: exception {exc}{irq} fired but no {handler} is defined "
                            f"(missing or misspelled handler), so the default handler caught it; it interrupted {at}")
    insn = where.get("a", 0)
    return INFRA_ERROR, (f"the peripheral emulator cannot decode the instruction 0x{insn:08x} at {at} "
                         f"(an access to 0x{where.get('b', 0):08x}); a harness limitation, not a verdict on the code")


def _place(pc: int, names: dict[int, str]) -> str:
    if not pc:
        return "an unknown PC"
    return f"PC 0x{pc:08x} ({names[pc]})" if pc in names else f"PC 0x{pc:08x}"


def _context(xpsr: int) -> str:
    exc = xpsr & 0x1FF
    return f" while handling {regs.handler_name(exc)}" if exc else ""


def _fault(settings: FirmwareOptions, fault: dict[str, int], where: dict[str, int], at: str) -> tuple[str, str]:
    cfsr, hfsr = fault.get("cfsr", 0), fault.get("hfsr", 0)
    bits = fault_bits(cfsr)
    names = ", ".join(CFSR_BITS[b][0] for b in bits) or ("VECTTBL" if hfsr & 2 else "no status bits")
    label, kind = classify_fault(fault), fault_kind(cfsr)
    addr = fault.get("mmfar") if cfsr & 0x80 else fault.get("bfar") if cfsr & 0x8000 else None
    psp = where.get("psp", 0)
    stack_top = SRAM_START + settings.stack_size
    stacking = bool(set(bits) & {4, 12})
    if stacking or (addr is not None and 0x1FF00000 <= addr < SRAM_START) or (0 < psp < SRAM_START):
        below = SRAM_START - psp if 0 < psp < SRAM_START else 0
        sp = f"; the thread stack pointer is 0x{psp:08x}, {below} bytes below the bottom" if below else ""
        fa = f" at 0x{addr:08x}" if addr is not None else ""
        return MEMORY_FAULT, (f"stack overflow: {kind}{fa} ({names}) while the {settings.stack_size}-byte thread stack "
                              f"(0x20000000-0x{stack_top:08x}) ran out{sp} (deep recursion or large local arrays?)")
    what = "; ".join(CFSR_BITS[b][1] for b in bits) or "a fault with no configurable status bit"
    if addr is not None:
        return label, f"{kind} at 0x{addr:08x}, {at}: {what} ({names}); 0x{addr:08x} is {region(addr, stack_top)}"
    return (MEMORY_FAULT if label == MEMORY_FAULT else HARD_FAULT), f"{kind} at {at}: {what} ({names})"
