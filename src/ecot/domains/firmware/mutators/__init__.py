"""The firmware mutation set: bare-metal C mistakes for the repair generator, what each firmware
outcome label implies, and a first-person plan read off a reference solution."""

from __future__ import annotations

import re

from ecot.domains.firmware.mutators import ops
from ecot.domains.firmware.mutators import ops_logic as logic
from ecot.mutators.base import Category, LabelEvidence, Mutation, MutationSet, Source

_ORDER: tuple[Category, ...] = ("syntax", "structural", "timing", "semantic")

MUTATIONS: tuple[Mutation, ...] = (
    # syntax
    Mutation("missing_semicolon", "syntax", ops.missing_semicolon,
             "Without the `;` the compiler runs the statement into the next line.",
             "`GPIOA->BSRR = GPIO_BSRR_BR(5);` -> `GPIOA->BSRR = GPIO_BSRR_BR(5)`"),
    Mutation("misspelled_identifier", "syntax", ops.misspelled_identifier,
             "A misspelled register or type name is just an undeclared identifier to the compiler.",
             "`RCC_AHB1ENR_GPIOAEN` -> `RCC_AHB1ENR_GPIOEN`"),
    Mutation("unbalanced_brace", "syntax", ops.unbalanced_brace,
             "Every `{` needs its `}`; otherwise the block swallows the rest of the file.",
             "the `}` closing `while (!(USART2->SR & USART_SR_TXE)) {` deleted"),
    # structural: names, clocks, registers, memory
    Mutation("wrong_function_name", "structural", ops.wrong_function_name,
             "The harness calls the function by the name the task gives, so any other name leaves it undefined at link time.",
             "`void led_init(void)` -> `void ledInit(void)`"),
    Mutation("misnamed_handler", "structural", ops.misnamed_handler,
             "The vector table refers to handlers by their CMSIS names; a handler under another name is never installed, "
             "so the interrupt lands in the default handler.",
             "`void TIM2_IRQHandler(void)` -> `void TIM2_IRQ_Handler(void)`"),
    Mutation("missing_clock_enable", "structural", ops.missing_clock_enable,
             "A peripheral whose RCC clock is off ignores writes and reads as zero.",
             "`RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;` deleted"),
    Mutation("wrong_register", "structural", ops.wrong_register,
             "The neighbouring register sits at another offset and controls something else.",
             "`GPIOA->MODER` -> `GPIOA->OTYPER`, `AFR[0]` -> `AFR[1]`, `0x40003004` -> `0x40003008`"),
    Mutation("wrong_peripheral", "structural", ops.wrong_peripheral,
             "Another port or timer instance has its own registers and its own clock bit.",
             "`GPIOB->MODER` -> `GPIOC->MODER`, `RCC_AHB1ENR_GPIOAEN` -> `RCC_AHB1ENR_GPIOBEN`"),
    Mutation("link_overflow", "structural", ops.link_overflow,
             "Static data must fit in the 128 KiB of SRAM; the linker refuses a program that does not.",
             "`static uint8_t rx_buf[32]` -> `static uint8_t rx_buf[140000]`"),
    Mutation("stack_overflow", "structural", ops.stack_overflow,
             "Locals live on the 4 KiB thread stack; a large local array runs off its end.",
             "`char digits[10];` -> `char digits[6000];`"),
    # timing: ordering, volatile, waits, interrupt acknowledgement
    Mutation("clock_enable_late", "timing", ops.clock_enable_late,
             "Registers written before their peripheral is clocked are lost; the clock must come first.",
             "`RCC->AHB1ENR |= ...;` moved below `GPIOA->MODER = ...;`"),
    Mutation("missing_volatile", "timing", logic.missing_volatile,
             "Without `volatile` the compiler may keep a value in a register, so a change made by an interrupt or "
             "by hardware is never seen, and writes can be merged or dropped.",
             "`static volatile uint32_t g_ms;` -> `static uint32_t g_ms;`"),
    Mutation("inverted_wait", "timing", logic.inverted_wait,
             "With the test inverted the loop waits for the opposite state of the flag.",
             "`while (!(USART2->SR & USART_SR_TXE))` -> `while ((USART2->SR & USART_SR_TXE))`"),
    Mutation("wrong_wait_flag", "timing", logic.wrong_wait_flag,
             "Polling a flag that the awaited event never sets (or sets at once) breaks the handshake.",
             "`RCC_CFGR_SWS_PLL` -> `RCC_CFGR_SW_PLL` in the switch-status wait"),
    Mutation("missing_wait", "timing", logic.missing_wait,
             "Without the busy-wait the code races ahead of the hardware: data registers are overwritten, delays vanish.",
             "`while (!(USART2->SR & USART_SR_TXE)) { }` deleted"),
    Mutation("missing_flag_clear", "timing", logic.missing_flag_clear,
             "An interrupt flag that is never cleared stays pending, so the interrupt fires again and again.",
             "`TIM2->SR = ~TIM_SR_UIF;` deleted from TIM2_IRQHandler"),
    # semantic: masks, shifts, boundaries, operators
    Mutation("wrong_bit_mask", "semantic", logic.wrong_bit_mask,
             "A mask that is too narrow or not complemented touches the wrong bits of the register.",
             "`~(3u << (5 * 2))` -> `~(1u << (5 * 2))`, `&= ~X` -> `&= X`"),
    Mutation("wrong_shift", "semantic", logic.wrong_shift,
             "A field shifted to the wrong position programs a neighbouring field or pin.",
             "`<< (5 * 2)` -> `<< 5`, `>> 15` -> `>> 16`"),
    Mutation("off_by_one", "semantic", logic.off_by_one,
             "A bound or constant off by one shifts a boundary or a value by exactly one step.",
             "`168000u - 1u` -> `168000u - 0u`, `n < max - 1` -> `n <= max - 1`"),
    Mutation("swapped_operator", "semantic", logic.swapped_operator,
             "The neighbouring operator computes something close but wrong.",
             "`a + b` -> `a - b`, `crc ^ x` -> `crc | x`, `==` -> `!=`"),
    Mutation("missing_base_case", "semantic", logic.missing_base_case,
             "Without its base case the recursion never stops and eats the stack.",
             "`if (lo > hi) return -1;` deleted"),
)


def _suspects(*first: Category) -> tuple[Category, ...]:
    return tuple(dict.fromkeys((*first, *_ORDER)))


EVIDENCE: dict[str, LabelEvidence] = {
    "Compilation_Error": LabelEvidence(
        "arm-none-eabi-gcc rejected the source, so nothing was linked or run: the mistake is in the text itself, "
        "at or just before the line it names.", _suspects("syntax", "structural")),
    "Link_Error": LabelEvidence(
        "Everything compiled, but the linker could not build the image: a function the harness calls is missing or "
        "misnamed, something is defined twice, or the data does not fit in flash or SRAM.", _suspects("structural")),
    "Hard_Fault": LabelEvidence(
        "The core took a fault it could not recover from (an undefined instruction, a bad branch, a division by "
        "zero, or an interrupt with no handler of that name).", _suspects("structural", "semantic", "timing")),
    "Memory_Fault": LabelEvidence(
        "The program touched memory it must not: a NULL or stray pointer, an index past an array, SRAM past its end, "
        "or a stack that ran out.", _suspects("structural", "semantic")),
    "Register_Mismatch": LabelEvidence(
        "It ran to the end, but the peripheral registers were not programmed as required: a missing clock, the "
        "wrong register or instance, a wrong mask or shift, or accesses in the wrong order.",
        _suspects("structural", "semantic", "timing")),
    "Output_Mismatch": LabelEvidence(
        "It ran to the end with the right register set-up, but the values it produced (results or bytes on a "
        "USART) are wrong, so the computation or the data handling is off.", _suspects("semantic", "timing")),
    "Timeout": LabelEvidence(
        "The firmware never finished: it is waiting for something that does not happen, typically a flag it polls "
        "or a variable an interrupt should change.", _suspects("timing", "semantic", "structural")),
    "Resource_Limit": LabelEvidence(
        "The firmware flooded its output or trace, usually from a loop that never ends.", _suspects("timing", "semantic")),
}
DEFAULT_EVIDENCE = LabelEvidence("The firmware did not pass its checks.", _suspects("semantic", "timing"))

_PERIPHERALS = (("RCC", "the RCC clock enables"), ("GPIO", "GPIO"), ("USART", "the USART"), ("TIM", "a timer"),
                ("SysTick", "SysTick"), ("EXTI", "EXTI"), ("SYSCFG", "SYSCFG"), ("CRC", "the CRC unit"),
                ("FLASH", "the flash interface"), ("PWR", "PWR"), ("NVIC", "the NVIC"))


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person plan: what to write, which peripherals in which order, and what to watch."""
    src = Source(reference)
    funcs = [f for f in ops.functions(src) if not f.static]
    first = " ".join(re.split(r"(?<=[.:])\s", prompt.strip(), maxsplit=1)[0].split())
    plan = [f"The task: {ops.clip(first, 200).rstrip('.:')}."]
    if funcs:
        names = ", ".join(f"`{f.name}`" for f in funcs[:6])
        plan.append(f"I'll define {names}.")
    used = [text for key, text in _PERIPHERALS if re.search(rf"\b{key}\w*\s*(->|_)", src.masked)]
    if used:
        plan.append(f"It drives {', '.join(used)}.")
        if "the RCC clock enables" in used:
            plan.append("Each peripheral's clock goes on in RCC before any of its registers is written.")
        if re.search(r"&\s*~|&=\s*~", src.masked):
            plan.append("Shared registers get read-modify-write, so the fields of other pins and features keep their values.")
    else:
        plan.append("It is plain computation with fixed-width integer types; I need to watch overflow, signedness and bounds.")
    handlers = [f.name for f in funcs if f.name.endswith("Handler")]
    if handlers:
        plan.append(f"The interrupt side is `{handlers[0]}`: it acknowledges its flag and stays short, and anything it "
                    "shares with the main code is `volatile`.")
    waits = re.findall(r"\bwhile\s*\(\s*!?\s*\(?\s*\w+\s*->\s*(\w+)\s*&\s*(\w+)", src.masked)
    if waits:
        plan.append(f"Where the hardware needs time I poll the status flag (`{waits[0][1]}` in {waits[0][0]}) before going on.")
    plan.append("Let me write it out.")
    return plan


# Messages that name the mistake outright, whatever the label.
CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"before RCC \w+ bit \d+", ("missing_clock_enable", "clock_enable_late", "wrong_peripheral")),
    (r"undefined reference", ("wrong_function_name",)),
    (r"unexpected interrupt|no \w+_(IRQ)?Handler", ("misnamed_handler",)),
    (r"overflowed by \d+ bytes", ("link_overflow",)),
    (r"stack overflow", ("stack_overflow", "missing_base_case")),
    (r"undeclared|unknown type name|implicit declaration", ("misspelled_identifier",)),
    (r"expected ';'|expected '\)'", ("missing_semicolon",)),
    (r"end of input", ("unbalanced_brace",)),
    (r"_SR_UIF|EXTI_PR|pending", ("missing_flag_clear",)),
    (r"polling a flag|did not finish", ("missing_volatile", "inverted_wait", "wrong_wait_flag")),
    (r"USART\d transmitted", ("missing_wait", "inverted_wait")),
)


def names(code: str) -> set[str]:
    """Identifiers the code uses, C keywords and fixed-width types aside."""
    return set(re.findall(ops.IDENT, Source(code).masked)) - ops.C_KEYWORDS


FIRMWARE_MUTATIONS = MutationSet(
    artifact="firmware",
    domain="firmware",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=names,
    # hardware sequencing and register logic are what firmware gets wrong; syntax masks every other bug
    weights={"syntax": 0.5, "structural": 1.25, "timing": 1.25, "semantic": 1.0},
    clues=CLUES,
)
