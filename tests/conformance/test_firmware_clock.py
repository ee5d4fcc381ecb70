"""The judge's watch on the harness's clock (TIM5) through QEMU's log of MMIO writes, without QEMU."""

from __future__ import annotations

from ecot.core.outcome import INFRA_ERROR, PASS, RESOURCE_LIMIT
from ecot.domains.firmware.clock import (
    AIRCR,
    WRITE_EVENT,
    Write,
    boot_logged,
    boot_sequence,
    clock_writes,
    tampering,
)
from ecot.domains.firmware.expect import parse_expectations
from ecot.domains.firmware.judge import judge
from ecot.domains.firmware.options import FirmwareOptions
from ecot.domains.firmware.report import MEMORY_FAULT, parse_report
from ecot.domains.firmware.run import TRACE_READ_LIMIT, Artifacts
from ecot.domains.firmware.trace import parse_trace
from ecot.sandbox import ExecResult

BUDGET = FirmwareOptions().budget_us
TAG = "0x000000010x00000002"
RESET = Write(AIRCR, 0x05FA0004)


def logged(writes: list[Write] | tuple[Write, ...], name: str = "stm32f2xx_timer") -> str:
    """Writes as QEMU 7.2's log backend prints the event."""
    return "".join(f"{WRITE_EVENT} cpu 0 mr 0x55d0c0ffee90 addr 0x{w.addr:x} value 0x{w.value:x} size 4 name '{name}'\n"
                   for w in writes)


def test_only_tim5_and_aircr_writes_are_kept_in_order() -> None:
    text = (logged(boot_sequence(BUDGET)[:2]) + logged([Write(0xE000ED94, 0)], "nvic_sysregs")
            + "RCC: unimplemented device write (size 4, offset 0x040, value 0x00000008)\n"
            + logged([Write(0x40000424, 5)]) + logged([RESET], "nvic_sysregs"))
    assert clock_writes(text) == [*boot_sequence(BUDGET)[:2], RESET]
    assert clock_writes("4242@1700000000.123456:" + logged([RESET], "nvic_sysregs")) == [RESET]


def test_the_boot_sequence_is_the_harness_s_own() -> None:
    boot = list(boot_sequence(BUDGET))
    assert tampering(boot, BUDGET) is None and boot_logged(boot, BUDGET)
    assert tampering([*boot, RESET, *boot], BUDGET) is None  # a system reset boots again


def test_any_other_write_to_tim5_is_tampering() -> None:
    boot = list(boot_sequence(BUDGET))
    found = tampering([*boot, Write(0x40000C24, 0x6E)], BUDGET)
    assert found is not None and "0x6e to TIM5_CNT (0x40000c24)" in found and "past the MPU trap" in found
    assert tampering([*boot, *boot], BUDGET) is not None  # replaying the boot without a reset restarts the clock
    assert tampering([*boot, Write(AIRCR, 0x00000004), *boot], BUDGET) is not None  # no VECTKEY: no reset
    assert tampering([Write(0x40000C28, 0), *boot], BUDGET) is not None
    assert tampering(boot[:3] + [Write(0x40000C24, 0)] + boot[3:], BUDGET) is not None


def test_a_trace_without_the_boot_sequence_vouches_for_nothing() -> None:
    assert not boot_logged([], BUDGET)
    assert not boot_logged(list(boot_sequence(BUDGET + 1)), BUDGET)


def _verdict(trace_text: str, trace_bytes: int | None = None) -> tuple[str, str]:
    expect = parse_expectations('results = ["crc=0x00000001"]\n', "expect.toml")
    run = ExecResult(returncode=0, stdout="", stderr="", timed_out=False, output_overflow=False, wall_s=0.1, isolated=True)
    report = parse_report(f"\x02{TAG} R crc=0x00000001\n\x02{TAG} E results=0x00000001\n", TAG)
    found = Artifacts(trace=trace_text, trace_bytes=len(trace_text) if trace_bytes is None else trace_bytes)
    verdict = judge(FirmwareOptions(), expect, run, found, report, parse_trace(trace_text), lambda _: {}, 10.0)
    return verdict.label, verdict.diagnostic


def test_the_judge_fails_a_right_answer_when_the_clock_was_moved_or_not_watched() -> None:
    boot = logged(boot_sequence(BUDGET))
    assert _verdict(boot)[0] == PASS
    label, text = _verdict(boot + logged([Write(0x40000C24, 0x6E)]))
    assert label == MEMORY_FAULT and "reserved for the harness" in text
    assert _verdict("")[0] == INFRA_ERROR
    label, text = _verdict(boot, trace_bytes=TRACE_READ_LIMIT)
    assert label == RESOURCE_LIMIT and "went unread" in text
