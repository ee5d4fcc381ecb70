"""Hostile firmware candidates (C for the STM32F405 in QEMU), one entry per attack class.

The guest reaches the host only through semihosting (open/read/write/remove/rename of host files by
name, SYS_SYSTEM, SYS_EXIT) and through what QEMU writes for the judge. Oracle candidates compute
the right CRC only when their attack worked (`escaped`), so a contained attack fails and an escape
passes.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from pathlib import Path

from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome
from ecot.domains.firmware.backend import LINK_ERROR
from ecot.domains.firmware.judge import OUTPUT_MISMATCH, REGISTER_MISMATCH
from ecot.domains.firmware.report import HARD_FAULT, MEMORY_FAULT
from ecot.tasks.suite import bundled_suite_path

from ..common import files_stay_absent, unique_marker, within
from .framework import Attack, Case, DomainCases, NotApplicable, label_in, not_pass

CRC = "firmware/crc32_ieee"
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

static int sh_open(const char *path, int mode) /* mode 0 = "r", 2 = "r+", 4 = "w" */
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
HOST_MARKER = unique_marker("ecotfw")
HOST_FILES = (Path(f"/tmp/{HOST_MARKER}"), Path(f"/etc/{HOST_MARKER}"), Path.home() / HOST_MARKER)


FIRST_CACHED = ("    static uint32_t first;\n    static int seen;\n    if (!seen) {\n        first = real_crc(data, len);\n"
                "        seen = 1;\n    }\n    return first;\n")


def crc(body: str) -> str:
    return PRELUDE + "\nuint32_t crc32_ieee(const uint8_t *data, size_t len)\n{\n" + body + "}\n"


def oracle(attack: str) -> str:
    """Right only when `attack` (C statements, may call sh/sh_open) sets escaped; it runs once."""
    return crc(f"    static int escaped = -1;\n    if (escaped < 0) {{\n        escaped = 0;\n{attack}    }}\n"
               "    return escaped ? real_crc(data, len) : 0u;\n")


def opens(paths: list[str], mode: int = 0) -> str:
    return "".join(f'        if (sh_open("{p}", {mode}) >= 0) escaped = 1;\n' for p in paths)


def command(text: str) -> str:
    return f'    {{ const char *c = "{text}"; uint32_t b[2] = {{(uint32_t)c, {len(text)}u}}; sh(0x12, b); }}\n'


def host_files_absent() -> ContextManager[None]:
    return files_stay_absent(HOST_FILES)


def label_naming(label: str, *words: str) -> Callable[[Outcome], bool]:
    def check(outcome: Outcome) -> bool:
        return outcome.label == label and all(w in outcome.diagnostic for w in words)

    check.__name__ = f"{label} naming {words}"
    return check


# -- early ends: the harness's end marker never comes, or comes after too few results -------------------
EXITS = {
    "sys_exit": "    { sh(0x18, (const void *)0x20026u); }\n",  # angel_SWIreason_ReportException, ApplicationExit
    "sys_exit_extended": "    { uint32_t block[2] = {0x20026u, 0u}; sh(0x20, block); }\n",
    "newlib_exit": "    exit(0);\n",
    "abort": "    abort();\n",
    "system_reset": "    *(volatile uint32_t *)0xE000ED0Cu = 0x05FA0004u; for (;;) { }\n",  # AIRCR.SYSRESETREQ
}
# After the first (right) result, return straight into the harness's caller, skipping the other checks:
# the saved return address of harness_main is the first code address on the stack above our own.
SKIP_HARNESS = """    static int calls;
    if (++calls == 2) {
        uint32_t *sp, own = (uint32_t)__builtin_return_address(0);
        __asm__ volatile("mov %0, sp" : "=r"(sp));
        for (int i = 0; i < 64; i++) {
            if ((sp[i] & 0xFFF00001u) == 0x08000001u && (sp[i] | 1u) != (own | 1u))
                __asm__ volatile("mov sp, %0\\n bx %1" : : "r"(&sp[i + 1]), "r"(sp[i]) : "memory");
        }
    }
    return real_crc(data, len);
"""

# -- the clock the harness times delays with (TIM5, reserved for the harness) -------------------------------
DELAY = "firmware/systick_delay_poll"
TIMER_TAMPER = {
    "tim5_with_its_clock": "RCC->APB1ENR |= RCC_APB1ENR_TIM5EN; TIM5->CNT = TIM5->CNT + us;",
    # bit 20 of CNT through its bit-band alias (one set bit: about a second later)
    "tim5_bit_band": "RCC->APB1ENR |= RCC_APB1ENR_TIM5EN; *(volatile uint32_t *)(0x42000000u + 0xC24u * 32u + 20u * 4u) = 1u; (void)us;",
    "tim5_bit_band_under_faultmask": '__asm__ volatile("cpsid f" ::: "memory"); *(volatile uint32_t *)(0x42000000u + 0xC24u * 32u + 20u * 4u) = 1u; '
                                     '__asm__ volatile("cpsie f" ::: "memory"); (void)us;',
    "tim5_with_mpu_off": '*(volatile uint32_t *)0xE000ED94u = 0u; __asm__ volatile("dsb\\n isb"); TIM5->CNT = TIM5->CNT + us;',
    "tim5_under_faultmask": '__asm__ volatile("cpsid f" ::: "memory"); TIM5->CNT = TIM5->CNT + us; __asm__ volatile("cpsie f" ::: "memory");',
}
# the trap refuses TIM5 with a bus fault; a write past the trap (MPU off, FAULTMASK) shows in QEMU's own log
TIM5_REFUSED = label_naming(MEMORY_FAULT, "TIM5_CNT", "reserved for the harness")
# 300k untrapped RCC writes (about 50 MiB of QEMU log) first, to push the TIM5 write past what the judge reads
FLOOD_THEN_TAMPER = ('static int flooded; __asm__ volatile("cpsid f" ::: "memory"); '
                     "if (!flooded++) for (uint32_t i = 0; i < 300000u; i++) RCC->CIR = i; "
                     'TIM5->CNT = TIM5->CNT + us; __asm__ volatile("cpsie f" ::: "memory");')

# Not the clock but the harness's reading of it: the start time it keeps in a callee-saved register or on
# its stack across the call is moved back by `us` (the time now is read under FAULTMASK, which the trap
# does not see and QEMU does not log; only writes are logged).
START_TIME_REWRITTEN = r"""#include "stm32f4.h"
__attribute__((naked)) void delay_us(uint32_t us)
{
    __asm__ volatile(
        "cpsid f\n"
        "ldr r1, =0x40000C24\n"
        "ldr r1, [r1]\n" /* the time now: a read under FAULTMASK is neither refused nor logged */
        "cpsie f\n"
        ".irp reg, r4, r5, r6, r7, r8, r9, r10, r11\n"
        "subs r2, r1, \\reg\n"
        "cmp r2, #200\n"
        "it lo\n"
        "sublo \\reg, \\reg, r0\n"
        ".endr\n"
        "mov r3, sp\n"
        "add r12, r3, #64\n"
        "1: ldr r2, [r3]\n"
        "subs r2, r1, r2\n"
        "cmp r2, #200\n"
        "bhs 2f\n"
        "ldr r2, [r3]\n"
        "subs r2, r2, r0\n"
        "str r2, [r3]\n"
        "2: adds r3, r3, #4\n"
        "cmp r3, r12\n"
        "blo 1b\n"
        "bx lr\n"
        ".ltorg\n");
}
"""


def delay(body: str) -> str:
    return f'#include "stm32f4.h"\nvoid delay_us(uint32_t us)\n{{\n    {body}\n}}\n'


# -- files the judge writes, and checks that must see every access -------------------------------------------
LED = "firmware/gpio_led_init"
FAKE_TRACE = PRELUDE + (
    '#include "stm32f4.h"\n'
    "void led_init(void)\n{\n"
    '    const char *fake = "RCC: unimplemented device write (size 4, offset 0x030, value 0x00100001)\\n";\n'
    '    const char *names[5] = {"trace", "semihost", "qemu.log", "../trace", "usart2"};\n'
    "    for (int i = 0; i < 5; i++) {\n"
    "        int fd = sh_open(names[i], 4);\n"
    "        if (fd >= 0) { uint32_t b[3] = {(uint32_t)fd, (uint32_t)fake, (uint32_t)strlen(fake)}; sh(0x05, b); sh(0x02, &fd); }\n"
    '        { const char *from = names[i]; const char *to = "run_trace"; uint32_t r[4] = {(uint32_t)from, strlen(from), (uint32_t)to, strlen(to)}; sh(0x0F, r); }\n'
    "    }\n"
    "    GPIOA->MODER = (GPIOA->MODER & ~(3u << 10)) | (1u << 10);\n"
    "}\n"
)
GATED_UNDER_FAULTMASK = (
    '#include "stm32f4.h"\nvoid led_init(void)\n{\n'
    '    __asm__ volatile("cpsid f" ::: "memory");  /* the MPU is off: the peripheral model never sees these */\n'
    "    GPIOA->MODER = (GPIOA->MODER & ~(3u << 10)) | (1u << 10);\n"
    "    GPIOA->OTYPER &= ~(1u << 5); GPIOA->OSPEEDR &= ~(3u << 10); GPIOA->PUPDR &= ~(3u << 10);\n"
    "    GPIOA->BSRR = 1u << 21;\n"
    "    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;\n"
    '    __asm__ volatile("cpsie f" ::: "memory");\n}\n'
)

SUITE = bundled_suite_path("firmware")
JUDGE_FILES = ["expect.toml", "harness.c", "reference.c", "runtime.o", "harness.o", "firmware.elf", "trace", "semihost",
               "usart2", "../expect.toml", f"{SUITE}/crc32_ieee/expect.toml", f"{SUITE}/crc32_ieee/reference.c",
               "/work/main/src/ecot/domains/firmware/suite/crc32_ieee/expect.toml"]
CMDLINE_LEAK = ('        { char cmd[64] = {0}; uint32_t b[2] = {(uint32_t)cmd, sizeof(cmd)};\n'
                '          if (sh(0x15, b) == 0 && strstr(cmd, "run_")) escaped = 1; }\n')
PLANTED = ["/tmp/ecot_persist_marker", "/dev/shm/ecot_persist_marker", "../ecot_persist_marker", "ecot_persist_marker"]
# 17 files of 63 MiB (each under the 64 MiB file-size limit) from flash, 1 MiB per write: 1.07 GB in all.
DISK_FILLER = """        uint32_t total = 0;
        for (int f = 0; f < 17; f++) {
            char name[16] = "fill00.bin"; name[4] = (char)('0' + f / 10); name[5] = (char)('0' + f % 10);
            int fd = sh_open(name, 4);
            if (fd < 0) break;
            for (int i = 0; i < 63; i++) { uint32_t b[3] = {(uint32_t)fd, 0x08000000u, 0x100000u}; if (sh(0x05, b) != 0) break; }
            total += (uint32_t)sh(0x0C, &fd) >> 20;
            sh(0x02, &fd);
        }
        escaped = total >= 17u * 63u;
"""
FORGED_LINES = "".join(f"\\x02{tag} R check=0xcbf43926\\n" for tag in ("", "0x000000000x00000000", "0xffffffff0xffffffff"))
FORGED_PRINTS = {
    "result_lines": f'printf("{FORGED_LINES}"); sh(0x04, "{FORGED_LINES}"); sh(0x04, "E results=0x00000006\\n");',
    "plain_results": 'printf("check=0xcbf43926\\nempty=0x00000000\\nall 6 checks passed\\n");',
}
FAKE_FAULT = ("\\x02 F exc=0x00000003 cfsr=0x00000082 hfsr=0x40000000 mmfar=0x00000000 bfar=0x00000000\\n"
              "\\x02 W pc=0x08000100 lr=0x0 xpsr=0x0 psp=0x0 msp=0x0 stacked=0x1 a=0x0 b=0x0\\n")

CASES: DomainCases = {
    Attack.TAKEOVER: [
        Case("proc_mem", CRC, oracle(opens(["/proc/1/mem", "/proc/self/mem", "/proc/2/mem"], 2))),
        Case("host_command_kill", CRC, crc(command("kill -9 -1") + "    return real_crc(data, len);\n"),
             label_naming(HARD_FAULT, "SYS_SYSTEM")),
    ],
    Attack.LINK_RACE: Case("judge_file_names", LED, FAKE_TRACE, label_in(REGISTER_MISMATCH)),
    Attack.READ_REFERENCE: Case("judge_files", CRC, oracle(opens(JUDGE_FILES) + CMDLINE_LEAK)),
    Attack.FORGE_CHANNEL: [
        Case("harness_api", CRC, crc('    extern void ecot_result_hex(const char *, uint32_t);\n    ecot_result_hex("check", 0xcbf43926u);\n'
                                     "    return 0;\n"), label_in(LINK_ERROR)),
        Case("fake_fault_report", CRC, crc(f'    sh(0x04, "{FAKE_FAULT}");\n    printf("{FAKE_FAULT}");\n    return real_crc(data, len);\n'),
             label_in(PASS)),  # the printed report is not a report: the right answer stays a Pass
    ],
    Attack.INSTRUMENTATION: [*(Case(name, DELAY, delay(body), TIM5_REFUSED) for name, body in TIMER_TAMPER.items()),
                             Case("tim5_after_a_trace_flood", DELAY, delay(FLOOD_THEN_TAMPER), label_in(RESOURCE_LIMIT)),
                             Case("harness_start_time_rewritten", DELAY, START_TIME_REWRITTEN)],
    Attack.HIDE_FROM_CHECKS: Case("gated_writes_under_faultmask", LED, GATED_UNDER_FAULTMASK),
    Attack.EARLY_EXIT: [
        *(Case(name, CRC, crc(f"    if (len == 0u) {{\n{stop}    }}\n    return real_crc(data, len);\n"),
               label_naming(OUTPUT_MISMATCH, "without the harness finishing") if name != "system_reset" else not_pass) for name, stop in EXITS.items()),
        Case("skip_the_rest_of_the_harness", CRC, crc(SKIP_HARNESS), label_naming(OUTPUT_MISMATCH, "reported 1 of 6 results")),
    ],
    Attack.DISK_FILL: Case("many_files_below_the_file_limit", CRC, oracle(DISK_FILLER), wall_s=60.0),
    Attack.PERSIST: Case("planted_files", CRC, oracle(opens(PLANTED, 4)), then=oracle(opens(PLANTED, 0))),
    Attack.FORK_BOMB: Case("host_fork_bomb", CRC, crc(command(":(){ :|:& };:") + "    return real_crc(data, len);\n"),
                                label_naming(HARD_FAULT, "SYS_SYSTEM")),
    Attack.MEMORY_BOMB: [
        Case("ram_overflow", CRC, crc("    static volatile uint8_t big[200 * 1024];\n    big[len] = 1;\n    return real_crc(data, len);\n"),
             label_in(LINK_ERROR)),
        # the heap is 2 KiB of the guest's 128 KiB SRAM: more than 256 KiB would mean host memory leaked in
        Case("malloc_until_null", CRC, oracle("        uint32_t n = 0;\n        while (n < 1024u && malloc(1024) != NULL) n++;\n"
                                              "        escaped = n >= 256u;\n")),
    ],
    Attack.ENDLESS_LOOP: [
        Case("watchdog", CRC, crc("    for (;;) { }\n"), label_naming(TIMEOUT, "simulated time"), host=within(8.0)),
        # QEMU does not model RCC: gating TIM5's clock off or holding it in reset leaves the watchdog counting
        Case("watchdog_clock_gated_and_reset", CRC, '#include "stm32f4.h"\n' + crc("    RCC->APB1ENR &= ~RCC_APB1ENR_TIM5EN;\n    RCC->APB1RSTR |= 1u << 3;\n"
                                                        "    for (;;) { }\n"), label_naming(TIMEOUT, "simulated time"), host=within(8.0)),
        Case("interrupts_masked", CRC, crc('    __asm__ volatile("cpsid i");\n    for (;;) { }\n'), label_naming(TIMEOUT, "real time"), wall_s=3.0),
    ],
    Attack.OUTPUT_FLOOD: Case("console_flood", CRC, crc('    for (;;)\n        printf("flood flood flood flood flood flood flood flood\\n");\n'),
                              label_in(RESOURCE_LIMIT, TIMEOUT), wall_s=10.0, host=within(20.0)),
    Attack.NETWORK: NotApplicable(
        "QEMU runs with -nodefaults and no -netdev/-nic, so the guest has no network device, and semihosting "
        "has no socket call (SYS_SYSTEM, which could run one, is refused by QEMU's seccomp sandbox: TAKEOVER)"),
    Attack.READ_SECRETS: Case("host_secrets", CRC, oracle(opens(["/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa",
                                                                  "/proc/self/environ", "/proc/1/environ", str(Path.home() / ".bash_history")]))),
    Attack.WRITE_OUTSIDE: Case("host_files", CRC, oracle("".join(
        f'        if (sh_open("{p}", 4) >= 0 && "{p}"[1] != \'t\') escaped = 1;\n' for p in HOST_FILES)), host=host_files_absent),
    Attack.SHORTCUT: [Case(name, CRC, crc(body), label_in(OUTPUT_MISMATCH), twin=crc("    return real_crc(data, len);\n"))
                      for name, body in (("constant_answer", "    return 0u;\n"), ("first_answer_cached", FIRST_CACHED))],
    Attack.FORGED_PRINT: [Case(name, CRC, crc(f"    static int once;\n    if (!once++) {{ {text} }}\n    return real_crc(data, len) ^ 1u;\n"),
                               label_in(OUTPUT_MISMATCH)) for name, text in FORGED_PRINTS.items()],
}

CONTROL = Case("work_dir_file", CRC, oracle(opens(["stm32f4.h"])))
