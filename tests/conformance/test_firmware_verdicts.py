"""Firmware verdicts beyond the attack classes of ecot/audit/hostile/firmware.py: what a refused or stopped run
tells the reader, and what it must never tell (the harness's secret names)."""

from __future__ import annotations

import re

from ecot.audit.hostile.firmware import EXITS, crc
from ecot.domains.firmware.judge import OUTPUT_MISMATCH
from ecot.domains.firmware.report import HARD_FAULT

from .common import bundled_task, describe, evaluate

CRC = "firmware/crc32_ieee"


def test_no_secret_reaches_the_log() -> None:
    """The per-process API prefix names the tag symbols: it must never reach a candidate's next turn."""
    secret = re.compile(r"__ecot_[0-9a-f]{16}|\\x02|\x02")
    link_error = evaluate(bundled_task(CRC), crc("    return 0;\n").replace("crc32_ieee", "crc32"))
    irq = bundled_task("firmware/tim2_update_irq")
    misnamed = evaluate(irq, (irq.reference or "").replace("void TIM2_IRQHandler(void)", "void TIM2_IRQ_Handler(void)"))
    for outcome in (link_error, misnamed):
        assert not secret.search(outcome.diagnostic + outcome.log), describe(outcome)
    assert "in harness_main at harness.c" in misnamed.diagnostic


def test_a_lockup_is_a_hard_fault() -> None:
    """A fault with FAULTMASK set cannot be taken: the core locks up and QEMU stops."""
    outcome = evaluate(bundled_task(CRC), crc('    __asm__ volatile("cpsid f\\n udf #0");\n    return 0;\n'))
    assert outcome.label == HARD_FAULT, describe(outcome)
    assert "locked up at PC 0x" in outcome.diagnostic and "in crc32_ieee" in outcome.diagnostic


def test_an_early_exit_says_how_far_the_harness_got() -> None:
    stop = EXITS["sys_exit"]
    outcome = evaluate(bundled_task(CRC), crc(f"    if (len == 0u) {{\n{stop}    }}\n    return 0xcbf43926u;\n"))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)
    assert "ended after 1 result(s) without the harness finishing" in outcome.diagnostic
