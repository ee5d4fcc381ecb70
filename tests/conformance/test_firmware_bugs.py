"""Planted firmware bugs: each mutation of a bundled reference must earn exactly its expected label,
and its diagnostic must say what an engineer needs (the register, the address, the clock bit).

Labels were established on Debian 12's arm-none-eabi-gcc 12.2 and QEMU 7.2 (netduinoplus2). Hangs end
through the harness's simulated-time watchdog (200 ms of simulated time, a fraction of a real second);
the one case that masks interrupts falls back to a 3 s wall limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from ecot.core.outcome import TIMEOUT
from ecot.domains.firmware.backend import COMPILATION_ERROR, LINK_ERROR
from ecot.domains.firmware.judge import OUTPUT_MISMATCH, REGISTER_MISMATCH
from ecot.domains.firmware.report import HARD_FAULT, MEMORY_FAULT

from .common import (
    BugCase,
    bug_params,
    compose,
    describe,
    regex_sub,
    replace_once,
    run_bug,
)

WALL_HANG_S = 3.0


@dataclass(frozen=True)
class FirmwareBug(BugCase):
    diagnostic: str = ""  # regex the diagnostic must match


BUGS: tuple[FirmwareBug, ...] = (
    FirmwareBug("firmware/gpio_led_init", "missing_clock_enable",
                replace_once("    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;\n", ""), REGISTER_MISMATCH,
                diagnostic=r"GPIOA_MODER \(0x40020000\) before RCC AHB1ENR bit 0 \(GPIOAEN\) was set"),
    FirmwareBug("firmware/uart2_init", "missing_clock_enable_modelled_peripheral",
                replace_once("    RCC->APB1ENR |= RCC_APB1ENR_USART2EN;\n", ""), REGISTER_MISMATCH,
                diagnostic=r"USART2_\w+ \(0x400044..\) before RCC APB1ENR bit 17 \(USART2EN\)"),
    FirmwareBug("firmware/gpio_led_init", "clock_enable_after_first_access",
                compose(replace_once("    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;\n", ""),
                        replace_once("    GPIOA->OTYPER", "    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;\n    GPIOA->OTYPER")),
                REGISTER_MISMATCH, diagnostic=r"GPIOA_MODER .* before RCC AHB1ENR bit 0"),
    FirmwareBug("firmware/gpio_led_init", "wrong_register_offset",
                replace_once("GPIOA->MODER = (GPIOA->MODER", "GPIOA->OTYPER = (GPIOA->OTYPER"), REGISTER_MISMATCH,
                diagnostic=r"GPIOA_MODER \(0x40020000\) is 0xa8000c00 at the end, expected 0xa8000400.*GPIOA_OTYPER="),
    FirmwareBug("firmware/iwdg_setup", "wrong_register_address",
                replace_once("(*(volatile uint32_t *)0x40003004u)", "(*(volatile uint32_t *)0x40003008u)"),
                REGISTER_MISMATCH, diagnostic=r"IWDG_PR"),
    FirmwareBug("firmware/gpio_led_init", "wrong_bit_mask",
                replace_once("~(3u << (5 * 2))) | (GPIO_MODE_OUTPUT", "~(1u << (5 * 2))) | (GPIO_MODE_OUTPUT"),
                REGISTER_MISMATCH, diagnostic=r"GPIOA_MODER .* is 0xa8000c00 at the end"),
    FirmwareBug("firmware/gpio_bus_write", "wrong_shift_glitches_the_bus",
                replace_once("<< 16) | value", "<< 15) | value"), REGISTER_MISMATCH, diagnostic=r"pin PB\d went through"),
    FirmwareBug("firmware/systick_ms_tick", "missing_volatile",
                replace_once("static volatile uint32_t g_ms;", "static uint32_t g_ms;"), TIMEOUT,
                diagnostic=r"did not finish within 200 ms of simulated time; it was at PC 0x0800[0-9a-f]+ \(in delay_ms at solution\.c:\d+\)"),
    # at -O2 GCC turns the tail recursion into a loop: no stack is used, the search never ends
    FirmwareBug("firmware/bsearch_recursive", "missing_base_case_tail_recursion",
                replace_once("    if (lo > hi)\n        return -1;\n", ""), TIMEOUT, diagnostic=r"in bsearch_rec at solution\.c"),
    FirmwareBug("firmware/bsearch_recursive", "stack_overflow_recursion_at_O0",
                replace_once("    if (lo > hi)\n        return -1;\n", ""), MEMORY_FAULT, options={"opt": "-O0"},
                diagnostic=r"stack overflow: MemManage fault .*4096-byte thread stack"),
    FirmwareBug("firmware/uart2_print_u32", "stack_overflow_local_array",
                replace_once("char digits[10];", "char digits[6000];"), MEMORY_FAULT, diagnostic=r"stack overflow"),
    FirmwareBug("firmware/ring_buffer_u8", "null_dereference",
                replace_once("    rb->head = 0u;\n    rb->tail = 0u;", "    rb = 0;\n    rb->head = 0u;\n    rb->tail = 0u;"),
                MEMORY_FAULT, diagnostic=r"MemManage fault at 0x000000[0-9a-f]{2}, PC .*NULL pointer dereference"),
    FirmwareBug("firmware/ring_log_overwrite", "unmapped_access_past_sram",
                replace_once("    samples[next] = sample;", "    *(volatile uint32_t *)0x20020004u = sample;\n    samples[next] = sample;"),
                MEMORY_FAULT, diagnostic=r"MemManage fault at 0x20020004, PC 0x0800[0-9a-f]+ \(in log_push at solution\.c:\d+\).*beyond the end"),
    FirmwareBug("firmware/moving_average", "out_of_bounds_index",
                replace_once("m->window[m->next] = sample;", "m->window[m->next + 0x10000u] = sample;"),
                MEMORY_FAULT, diagnostic=r"MemManage fault at 0x2002"),
    FirmwareBug("firmware/crc8_maxim", "write_to_flash",
                replace_once("    uint8_t crc = 0;\n", "    uint8_t crc = 0;\n    ((volatile uint8_t *)data)[0] = data[0];\n"),
                MEMORY_FAULT, diagnostic=r"0x080[0-9a-f]{5} is flash, which is read-only"),
    FirmwareBug("firmware/rcc_clock_enables", "reserved_peripheral_address",
                replace_once("    (void)RCC->APB2ENR;\n", "    (void)*(volatile uint32_t *)0x40007800u;\n"),
                MEMORY_FAULT, diagnostic=r"BusFault at 0x40007800.*no peripheral"),
    FirmwareBug("firmware/uart2_puts", "infinite_wait_on_flag",
                replace_once("while (!(USART2->SR & USART_SR_TXE))", "while (!(USART2->SR & USART_SR_RXNE))"), TIMEOUT,
                diagnostic=r"USART2_SR|polling a flag"),
    FirmwareBug("firmware/rcc_pll_168mhz", "wrong_switch_status_compare",
                replace_once("!= RCC_CFGR_SWS_PLL", "!= RCC_CFGR_SW_PLL"), TIMEOUT, diagnostic=r"RCC_CFGR"),
    FirmwareBug("firmware/uart2_puts", "missing_wait_for_txe",
                replace_once("    while (!(USART2->SR & USART_SR_TXE)) {\n    }\n", ""), OUTPUT_MISMATCH,
                diagnostic=r"USART2 transmitted .* expected 'Hello, STM32!"),
    FirmwareBug("firmware/ring_log_overwrite", "link_overflow",
                replace_once("static uint16_t samples[LOG_DEPTH];", "static uint16_t samples[70000];"), LINK_ERROR,
                diagnostic=r"RAM overflowed by \d+ bytes"),
    FirmwareBug("firmware/gpio_led_toggle", "misnamed_function",
                regex_sub(r"\bled_toggle\b", "ledToggle"), LINK_ERROR,
                diagnostic=r"harness\.c:\d+: undefined reference to `led_toggle`"),
    FirmwareBug("firmware/gpio_led_init", "syntax_error",
                replace_once("GPIOA->BSRR = GPIO_BSRR_BR(5);", "GPIOA->BSRR = GPIO_BSRR_BR(5)"), COMPILATION_ERROR,
                diagnostic=r"^solution\.c:\d+:\d+: error: expected ';'"),
    FirmwareBug("firmware/tim2_update_irq", "misnamed_irq_handler",
                replace_once("void TIM2_IRQHandler(void)", "void TIM2_IRQ_Handler(void)"), HARD_FAULT,
                diagnostic=r"exception 44 \(IRQ 28\) fired but no TIM2_IRQHandler is defined"),
    FirmwareBug("firmware/tim2_update_irq", "missing_interrupt_flag_clear",
                replace_once("        TIM2->SR = ~TIM_SR_UIF;\n", ""), REGISTER_MISMATCH, diagnostic=r"TIM2_SR_UIF"),
    FirmwareBug("firmware/moving_average", "division_by_zero",
                replace_once("m->sum / m->count", "m->sum / (m->count - 1u)"), HARD_FAULT,
                diagnostic=r"UsageFault at PC 0x0800[0-9a-f]+ \(in ma_push at solution\.c:\d+\): integer division by zero"),
    FirmwareBug("firmware/systick_ms_tick", "interrupts_masked_forever",
                replace_once("    SysTick->LOAD = 168000u - 1u;", "    __disable_irq();\n    SysTick->LOAD = 168000u - 1u;"),
                TIMEOUT, wall_s=WALL_HANG_S, diagnostic=r"did not finish within 3 s of real time"),
    FirmwareBug("firmware/uart2_getline", "reads_without_waiting",
                replace_once("    while (!(USART2->SR & USART_SR_RXNE)) {\n    }\n", ""), TIMEOUT),
)


@pytest.mark.parametrize("case", bug_params(BUGS))
def test_planted_bug_gets_its_label(case: FirmwareBug) -> None:
    outcome = run_bug(case)
    assert outcome.label == case.expected_label, f"{case.name}: {describe(outcome)}"
    if case.diagnostic:
        assert re.search(case.diagnostic, outcome.diagnostic), f"{case.name}: {outcome.diagnostic}"
