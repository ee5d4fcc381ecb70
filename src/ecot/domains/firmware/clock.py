"""The harness's clock (TIM5), watched from outside the guest.

The runtime refuses a candidate's TIM5 access in its MPU trap, but the candidate runs privileged: it
can switch the MPU off (MPU_CTRL) or raise FAULTMASK, and then its accesses reach QEMU's timer
without a trap. So QEMU itself logs every MMIO write (trace event `memory_region_ops_write`, with the
absolute address) into the run's trace file, which the guest cannot write. The only TIM5 writes a
run may contain are the harness's boot sequence (ecot_startup.c, rt_watchdog_on), once per boot: at
the start and after each system reset request (AIRCR.SYSRESETREQ). Any other TIM5 write, by any
path, is the candidate moving the harness's clock. The boot sequence doubles as a canary: a QEMU
that does not log the event shows none, and then nothing can be vouched for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ecot.domains.firmware import regs

WRITE_EVENT = "memory_region_ops_write"
TIM5_BASE = 0x40000C00
AIRCR = 0xE000ED0C
# TIM5 and AIRCR writes only; "pid@seconds:" leads each line when QEMU runs with -msg timestamp=on
_WRITE = re.compile(
    rf"^(?:\d+@\d+\.\d+:)?{WRITE_EVENT} cpu \d+ mr 0x[0-9a-f]+ addr 0x(?P<addr>40000[c-f][0-9a-f]{{2}}|e000ed0c) "
    r"value 0x(?P<value>[0-9a-f]+) size (?P<size>\d+)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Write:
    addr: int
    value: int


def boot_sequence(budget_us: int) -> tuple[Write, ...]:
    """rt_watchdog_on's writes, in order: PSC, ARR, EGR (UG), SR, DIER (UIE), CR1 (CEN)."""
    offsets_values = ((0x28, 999), (0x2C, budget_us), (0x14, 1), (0x10, 0), (0x0C, 1), (0x00, 1))
    return tuple(Write(TIM5_BASE + off, value) for off, value in offsets_values)


def clock_writes(trace_text: str) -> list[Write]:
    """TIM5 writes and AIRCR writes, in the order QEMU performed them."""
    return [Write(int(m.group("addr"), 16), int(m.group("value"), 16)) for m in _WRITE.finditer(trace_text)]


def _is_reset_request(write: Write) -> bool:
    return write.addr == AIRCR and write.value & 0xFFFF0004 == 0x05FA0004


def tampering(writes: list[Write], budget_us: int) -> str | None:
    """The first TIM5 write that is not part of a boot's sequence, said for the candidate (None: none)."""
    boot = boot_sequence(budget_us)
    expected = list(boot)
    for write in writes:
        if write.addr == AIRCR:
            if _is_reset_request(write):
                expected = list(boot)
        elif expected and write == expected[0]:
            expected.pop(0)
        else:
            return (f"the firmware wrote 0x{write.value:x} to {regs.describe(write.addr)}, reserved for the harness's "
                    "clock and watchdog: firmware under test may not access it (the write went past the MPU trap, "
                    "so the MPU was switched off or FAULTMASK was set)")
    return None


def boot_logged(writes: list[Write], budget_us: int) -> bool:
    """Whether the trace holds the harness's boot sequence: proof that QEMU logs the writes."""
    return tuple(w for w in writes if w.addr != AIRCR)[: len(boot_sequence(budget_us))] == boot_sequence(budget_us)
