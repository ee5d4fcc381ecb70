"""Hostile firmware candidates: forged verdicts fail, semihosting cannot reach the judge's files or
the host, floods are stopped, and the machine is left as it was.

Most candidates carry an oracle: they compute the right answer only if the attack worked, so a
contained attack shows up as a failing verdict and an escape would show up as Pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ecot.backends.firmware import LINK_ERROR
from ecot.backends.firmware_judge import OUTPUT_MISMATCH, REGISTER_MISMATCH
from ecot.backends.firmware_report import HARD_FAULT
from ecot.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome

from .common import (
    bundled_task,
    describe,
    evaluate,
    skip_unless_isolated,
    unique_marker,
    with_changes,
)

TASK_ID = "firmware/crc32_ieee"
PRELUDE = r"""
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sh(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static int sh_open(const char *path, int mode) /* mode 0 = "r", 4 = "w" */
{
    uint32_t block[3] = {(uint32_t)path, (uint32_t)mode, (uint32_t)strlen(path)};
    return sh(0x01, block);
}

static uint32_t real_crc(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc ^ 0xFFFFFFFFu;
}
"""
EXPECTED = "check=0xcbf43926"


def crc_candidate(body: str) -> str:
    return PRELUDE + "\nuint32_t crc32_ieee(const uint8_t *data, size_t len)\n{\n" + body + "}\n"


def run(candidate: str, wall_s: float | None = None) -> Outcome:
    return evaluate(with_changes(bundled_task(TASK_ID), wall_s=wall_s), candidate)


# -- forged verdicts --------------------------------------------------------------------------------
def test_printed_result_lines_are_not_results() -> None:
    forged = "".join(f"\\x02{tag} R {EXPECTED}\\n" for tag in ("", "0x000000000x00000000", "0xffffffff0xffffffff"))
    body = (f'    static int once;\n    if (!once++) {{\n        printf("{forged}");\n'
            f'        sh(0x04, "{forged}");\n        sh(0x04, "E results=0x00000006\\n");\n    }}\n'
            "    return real_crc(data, len) ^ 1u;\n")
    outcome = run(crc_candidate(body))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


def test_a_printed_fault_report_does_not_change_a_pass() -> None:
    fake = ("\\x02 F exc=0x00000003 cfsr=0x00000082 hfsr=0x40000000 mmfar=0x00000000 bfar=0x00000000\\n"
            "\\x02 W pc=0x08000100 lr=0x0 xpsr=0x0 psp=0x0 msp=0x0 stacked=0x1 a=0x0 b=0x0\\n")
    body = f'    sh(0x04, "{fake}");\n    printf("{fake}");\n    return real_crc(data, len);\n'
    outcome = run(crc_candidate(body))
    assert outcome.label == PASS, describe(outcome)


@pytest.mark.parametrize("how", ["semihosting", "newlib"])
def test_ending_the_simulation_early_is_not_a_pass(how: str) -> None:
    stop = ("    { uint32_t block[2] = {0x20026u, 0u}; sh(0x20, block); }\n" if how == "semihosting" else "    exit(0);\n")
    outcome = run(crc_candidate(f"    if (len == 9u) {{\n{stop}    }}\n    return real_crc(data, len);\n"))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)
    assert "without the harness finishing" in outcome.diagnostic


def test_the_harness_api_cannot_be_called() -> None:
    body = '    extern void ecot_result_hex(const char *, uint32_t);\n    ecot_result_hex("check", 0xcbf43926u);\n    return 0;\n'
    outcome = run(crc_candidate(body))
    assert outcome.label == LINK_ERROR, describe(outcome)
    assert "ecot_result_hex" in outcome.diagnostic


def test_no_secret_reaches_the_log() -> None:
    """The per-process API prefix names the tag symbols: it must never reach a candidate's next turn."""
    secret = re.compile(r"__ecot_[0-9a-f]{16}|\\x02|\x02")
    link_error = run(crc_candidate("    return real_crc(data, len);\n").replace("crc32_ieee", "crc32"))
    misnamed = evaluate(bundled_task("firmware/tim2_update_irq"), (bundled_task("firmware/tim2_update_irq").reference or "")
                        .replace("void TIM2_IRQHandler(void)", "void TIM2_IRQ_Handler(void)"))
    for outcome in (link_error, misnamed):
        assert not secret.search(outcome.diagnostic + outcome.log), describe(outcome)
    assert "in harness_main at harness.c" in misnamed.diagnostic


# -- semihosting against the host -------------------------------------------------------------------
def _oracle(condition: str) -> str:
    """Correct only when `condition` (C, may call sh_open) holds."""
    return f"    int escaped = 0;\n{condition}    return escaped ? real_crc(data, len) : 0u;\n"


def test_oracle_control_files_of_the_work_dir_can_be_opened() -> None:
    """Positive control: semihosting file access works, so the refusals below are the sandbox's."""
    skip_unless_isolated()
    outcome = run(crc_candidate(_oracle('    if (sh_open("stm32f4.h", 0) >= 0) escaped = 1;\n')))
    assert outcome.label == PASS, describe(outcome)


def test_the_judges_files_cannot_be_opened() -> None:
    skip_unless_isolated()
    names = ["expect.toml", "harness.c", "runtime.o", "harness.o", "firmware.elf", "trace", "semihost", "usart2", "../expect.toml",
             "/etc/shadow", "/root/.bashrc", "/proc/self/cmdline"]
    attack = "".join(f'    if (sh_open("{n}", 0) >= 0) escaped = 1;\n' for n in names)
    attack += "    { char cmd[64] = {0}; uint32_t b[2] = {(uint32_t)cmd, sizeof(cmd)};\n"
    attack += '      if (sh(0x15, b) == 0 && strstr(cmd, "run_")) escaped = 1; }\n'  # the ELF path must not leak
    outcome = run(crc_candidate(_oracle(attack)))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


@pytest.fixture
def host_marker() -> Iterator[str]:
    marker = unique_marker("ecotfw")
    paths = [Path(f"/tmp/{marker}"), Path(f"/etc/{marker}"), Path.home() / marker]
    yield marker
    created = [p for p in paths if p.exists()]
    for path in created:
        path.unlink()
    assert not created, f"a candidate created files on the host: {created}"


def test_semihosting_writes_stay_in_the_sandbox(host_marker: str) -> None:
    skip_unless_isolated()
    targets = [f"/tmp/{host_marker}", f"/etc/{host_marker}", f"{Path.home()}/{host_marker}"]
    attack = "".join(f'    if (sh_open("{t}", 4) >= 0 && "{t}"[1] != \'t\') escaped = 1;\n' for t in targets)
    outcome = run(crc_candidate(_oracle(attack)))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


def test_host_commands_are_refused(host_marker: str) -> None:
    skip_unless_isolated()
    command = f"touch /tmp/{host_marker}"
    body = f'    {{ const char *c = "{command}"; uint32_t b[2] = {{(uint32_t)c, {len(command)}u}}; sh(0x12, b); }}\n'
    outcome = run(crc_candidate(body + "    return real_crc(data, len);\n"))
    assert outcome.label == HARD_FAULT, describe(outcome)
    assert "SYS_SYSTEM" in outcome.diagnostic


def test_forged_trace_files_do_not_hide_register_behaviour() -> None:
    """The candidate writes files named like the judge's in its work dir and skips the clock enable."""
    candidate = PRELUDE + (
        '#include "stm32f4.h"\n'
        "void led_init(void)\n{\n"
        '    const char *fake = "RCC: unimplemented device write (size 4, offset 0x030, value 0x00100001)\\n";\n'
        '    const char *names[3] = {"trace", "semihost", "qemu.log"};\n'
        "    for (int i = 0; i < 3; i++) {\n"
        "        int fd = sh_open(names[i], 4);\n"
        "        if (fd >= 0) { uint32_t b[3] = {(uint32_t)fd, (uint32_t)fake, (uint32_t)strlen(fake)}; sh(0x05, b); }\n"
        "    }\n"
        "    GPIOA->MODER = (GPIOA->MODER & ~(3u << 10)) | (1u << 10);\n"
        "}\n"
    )
    outcome = evaluate(bundled_task("firmware/gpio_led_init"), candidate)
    assert outcome.label == REGISTER_MISMATCH, describe(outcome)
    assert "before RCC AHB1ENR bit 0" in outcome.diagnostic


# -- floods and hangs -----------------------------------------------------------------------------------
def test_a_console_flood_is_stopped() -> None:
    body = '    for (;;)\n        printf("flood flood flood flood flood flood flood flood flood flood\\n");\n'
    outcome = run(crc_candidate(body), wall_s=10.0)
    assert outcome.label in (RESOURCE_LIMIT, TIMEOUT), describe(outcome)


def test_a_hang_with_interrupts_masked_ends_at_the_wall_limit() -> None:
    body = '    __asm__ volatile("cpsid i");\n    for (;;) {\n    }\n'
    outcome = run(crc_candidate(body), wall_s=3.0)
    assert outcome.label == TIMEOUT, describe(outcome)
    assert "real time" in outcome.diagnostic


def test_a_lockup_is_a_hard_fault() -> None:
    """A fault with FAULTMASK set cannot be taken: the core locks up and QEMU stops."""
    outcome = run(crc_candidate('    __asm__ volatile("cpsid f\\n udf #0");\n    return 0;\n'))
    assert outcome.label == HARD_FAULT, describe(outcome)
    assert "locked up at PC 0x" in outcome.diagnostic and "in crc32_ieee" in outcome.diagnostic
