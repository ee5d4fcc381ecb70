"""The STM32F405 register map the firmware backend speaks: names for addresses, clock enables,
reset values, and QEMU's names for the devices it leaves unimplemented (its -d unimp log uses them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

GPIO_REGS = ("MODER", "OTYPER", "OSPEEDR", "PUPDR", "IDR", "ODR", "BSRR", "LCKR", "AFRL", "AFRH")
TIM_REGS = ("CR1", "CR2", "SMCR", "DIER", "SR", "EGR", "CCMR1", "CCMR2", "CCER", "CNT", "PSC", "ARR", "RCR",
            "CCR1", "CCR2", "CCR3", "CCR4", "BDTR", "DCR", "DMAR", "OR")
USART_REGS = ("SR", "DR", "BRR", "CR1", "CR2", "CR3", "GTPR")
SPI_REGS = ("CR1", "CR2", "SR", "DR", "CRCPR", "RXCRCR", "TXCRCR", "I2SCFGR", "I2SPR")
I2C_REGS = ("CR1", "CR2", "OAR1", "OAR2", "DR", "SR1", "SR2", "CCR", "TRISE", "FLTR")
RCC_REGS = {
    0x00: "CR", 0x04: "PLLCFGR", 0x08: "CFGR", 0x0C: "CIR", 0x10: "AHB1RSTR", 0x14: "AHB2RSTR", 0x18: "AHB3RSTR",
    0x20: "APB1RSTR", 0x24: "APB2RSTR", 0x30: "AHB1ENR", 0x34: "AHB2ENR", 0x38: "AHB3ENR", 0x40: "APB1ENR",
    0x44: "APB2ENR", 0x50: "AHB1LPENR", 0x54: "AHB2LPENR", 0x58: "AHB3LPENR", 0x60: "APB1LPENR",
    0x64: "APB2LPENR", 0x70: "BDCR", 0x74: "CSR", 0x80: "SSCGR", 0x84: "PLLI2SCFGR",
}
RCC_RESET = {0x00: 0x00000083, 0x04: 0x24003010, 0x30: 0x00100000, 0x50: 0x7E6791FF, 0x54: 0x000000F1,
             0x58: 0x00000001, 0x60: 0x36FEC9FF, 0x64: 0x00075F33, 0x74: 0x0E000000, 0x84: 0x20003000}
ENABLE_REGISTERS = {"AHB1ENR": 0x40023830, "APB1ENR": 0x40023840, "APB2ENR": 0x40023844}


@dataclass(frozen=True)
class Peripheral:
    name: str
    base: int
    size: int
    registers: dict[int, str]
    enable: tuple[str, int] | None = None  # (RCC enable register, bit)
    reset: dict[int, int] | None = None

    def register_at(self, offset: int) -> str:
        word = offset & ~3
        reg = self.registers.get(word)
        if reg is None:
            return f"{self.name}+0x{offset:03x}"
        return f"{self.name}_{reg}" if word == offset else f"{self.name}_{reg}+{offset - word}"

    @property
    def enable_text(self) -> str:
        assert self.enable is not None
        reg, bit = self.enable
        return f"RCC {reg} bit {bit} ({self.name}EN)"


def _regs(names: tuple[str, ...]) -> dict[int, str]:
    return {4 * i: n for i, n in enumerate(names)}


def _gpio(letter: str, index: int) -> Peripheral:
    reset = {0x00: 0xA8000000, 0x08: 0x0C000000, 0x0C: 0x64000000} if letter == "A" else {}
    if letter == "B":
        reset = {0x00: 0x00000280, 0x08: 0x000000C0, 0x0C: 0x00000100}
    return Peripheral(f"GPIO{letter}", 0x40020000 + 0x400 * index, 0x400, _regs(GPIO_REGS), ("AHB1ENR", index), reset)


def _peripherals() -> list[Peripheral]:
    apb1 = [("TIM2", 0x0000, 0), ("TIM3", 0x0400, 1), ("TIM4", 0x0800, 2), ("TIM5", 0x0C00, 3), ("TIM6", 0x1000, 4),
            ("TIM7", 0x1400, 5), ("TIM12", 0x1800, 6), ("TIM13", 0x1C00, 7), ("TIM14", 0x2000, 8)]
    found = [Peripheral(n, 0x40000000 + off, 0x400, _regs(TIM_REGS), ("APB1ENR", bit)) for n, off, bit in apb1]
    found += [Peripheral(n, 0x40010000 + off, 0x400, _regs(TIM_REGS), ("APB2ENR", bit))
              for n, off, bit in (("TIM1", 0x0000, 0), ("TIM8", 0x0400, 1), ("TIM9", 0x4000, 16),
                                  ("TIM10", 0x4400, 17), ("TIM11", 0x4800, 18))]
    found += [Peripheral(n, base, 0x400, _regs(USART_REGS), enable)
              for n, base, enable in (("USART2", 0x40004400, ("APB1ENR", 17)), ("USART3", 0x40004800, ("APB1ENR", 18)),
                                      ("UART4", 0x40004C00, ("APB1ENR", 19)), ("UART5", 0x40005000, ("APB1ENR", 20)),
                                      ("USART1", 0x40011000, ("APB2ENR", 4)), ("USART6", 0x40011400, ("APB2ENR", 5)))]
    found += [Peripheral(n, base, 0x400, _regs(SPI_REGS), enable)
              for n, base, enable in (("SPI2", 0x40003800, ("APB1ENR", 14)), ("SPI3", 0x40003C00, ("APB1ENR", 15)),
                                      ("SPI1", 0x40013000, ("APB2ENR", 12)))]
    found += [Peripheral(f"I2C{i + 1}", 0x40005400 + 0x400 * i, 0x400, _regs(I2C_REGS), ("APB1ENR", 21 + i)) for i in range(3)]
    found += [_gpio(letter, i) for i, letter in enumerate("ABCDEFGHI")]
    found += [
        Peripheral("RTC", 0x40002800, 0x400, {}),
        Peripheral("WWDG", 0x40002C00, 0x400, _regs(("CR", "CFR", "SR")), ("APB1ENR", 11)),
        Peripheral("IWDG", 0x40003000, 0x400, _regs(("KR", "PR", "RLR", "SR"))),
        Peripheral("CAN1", 0x40006400, 0x400, {}, ("APB1ENR", 25)),
        Peripheral("CAN2", 0x40006800, 0x400, {}, ("APB1ENR", 26)),
        Peripheral("PWR", 0x40007000, 0x400, _regs(("CR", "CSR")), ("APB1ENR", 28)),
        Peripheral("DAC", 0x40007400, 0x400, {}, ("APB1ENR", 29)),
        Peripheral("ADC", 0x40012000, 0x400, {}, ("APB2ENR", 8)),
        Peripheral("SDIO", 0x40012C00, 0x400, {}, ("APB2ENR", 11)),
        Peripheral("SYSCFG", 0x40013800, 0x400, _regs(("MEMRMP", "PMC", "EXTICR1", "EXTICR2", "EXTICR3", "EXTICR4",
                                                     "RESERVED0", "RESERVED1", "CMPCR")), ("APB2ENR", 14)),
        Peripheral("EXTI", 0x40013C00, 0x400, _regs(("IMR", "EMR", "RTSR", "FTSR", "SWIER", "PR"))),
        Peripheral("CRC", 0x40023000, 0x400, _regs(("DR", "IDR", "CR")), ("AHB1ENR", 12), {0x00: 0xFFFFFFFF}),
        Peripheral("RCC", 0x40023800, 0x400, RCC_REGS, None, RCC_RESET),
        Peripheral("FLASH", 0x40023C00, 0x400, _regs(("ACR", "KEYR", "OPTKEYR", "SR", "CR", "OPTCR")), None,
                   {0x10: 0x80000000, 0x14: 0x0FFFAAED}),
        Peripheral("BKPSRAM", 0x40024000, 0x1000, {}, ("AHB1ENR", 18)),
        Peripheral("DMA1", 0x40026000, 0x400, _regs(("LISR", "HISR", "LIFCR", "HIFCR")), ("AHB1ENR", 21)),
        Peripheral("DMA2", 0x40026400, 0x400, _regs(("LISR", "HISR", "LIFCR", "HIFCR")), ("AHB1ENR", 22)),
        Peripheral("SysTick", 0xE000E010, 0x10, _regs(("CTRL", "LOAD", "VAL", "CALIB"))),
        Peripheral("NVIC", 0xE000E100, 0xE04, {0x000: "ISER0", 0x080: "ICER0", 0x100: "ISPR0", 0x180: "ICPR0"}),
        Peripheral("SCB", 0xE000ED00, 0x90, _regs(("CPUID", "ICSR", "VTOR", "AIRCR", "SCR", "CCR", "SHPR1", "SHPR2",
                                                  "SHPR3", "SHCSR", "CFSR", "HFSR", "DFSR", "MMFAR", "BFAR"))),
    ]
    return found


@lru_cache(maxsize=1)
def peripherals() -> tuple[Peripheral, ...]:
    return tuple(_peripherals())


@lru_cache(maxsize=1)
def by_name() -> dict[str, Peripheral]:
    return {p.name: p for p in peripherals()}


def peripheral_at(addr: int) -> Peripheral | None:
    for p in peripherals():
        if p.base <= addr < p.base + p.size:
            return p
    return None


def register_name(addr: int) -> str:
    """`GPIOA_MODER`, `GPIOA+0x100` (no register there) or the bare address."""
    p = peripheral_at(addr)
    return p.register_at(addr - p.base) if p else f"0x{addr:08x}"


def describe(addr: int) -> str:
    """`GPIOA_MODER (0x40020000)`."""
    name = register_name(addr)
    return name if name.startswith("0x") else f"{name} (0x{addr:08x})"


@cache
def address_of(name: str) -> int:
    """The address of a register named like `GPIOA_MODER` or `RCC_AHB1ENR`; KeyError if unknown."""
    for p in peripherals():
        prefix = f"{p.name}_"
        if name.startswith(prefix):
            for offset, reg in p.registers.items():
                if reg == name[len(prefix):]:
                    return p.base + offset
    raise KeyError(f"unknown register name {name!r}")


def reset_value(addr: int) -> int:
    p = peripheral_at(addr)
    return (p.reset or {}).get(addr - p.base, 0) if p else 0


# Peripherals the harness keeps for itself: the runtime refuses a candidate's access with a bus fault.
HARNESS_RESERVED = {"TIM5": "the harness's clock and watchdog"}


def reserved_use(addr: int) -> str | None:
    """What the harness uses the peripheral at addr for, when it reserves it."""
    p = peripheral_at(addr)
    return HARNESS_RESERVED.get(p.name) if p else None


# QEMU 7.2 netduinoplus2: names of its unimplemented devices, as they appear in the -d unimp log.
QEMU_UNIMP = {
    **{f"GPIO{c}": 0x40020000 + 0x400 * i for i, c in enumerate("ABCDEFGHI")},
    "RCC": 0x40023800, "CRC": 0x40023000, "Flash Int": 0x40023C00, "BKPSRAM": 0x40024000,
    "DMA1": 0x40026000, "DMA2": 0x40026400, "PWR": 0x40007000, "DAC": 0x40007400, "RTC and BKP": 0x40002800,
    "WWDG": 0x40002C00, "IWDG": 0x40003000, "I2S2ext": 0x40003000, "I2S3ext": 0x40004000, "I2C1": 0x40005400, "I2C2": 0x40005800,
    "I2C3": 0x40005C00, "CAN1": 0x40006400, "CAN2": 0x40006800, "SDIO": 0x40012C00,
    "timer[1]": 0x40010000, "timer[8]": 0x40010400, "timer[6]": 0x40001000, "timer[7]": 0x40001400,
    "timer[12]": 0x40001800, "timer[13]": 0x40001C00, "timer[14]": 0x40002000, "timer[9]": 0x40014000,
    "timer[10]": 0x40014400, "timer[11]": 0x40014800,
}

# Device interrupt names by IRQ number (the vector table's order), for "no handler" diagnostics.
IRQ_NAMES = (  # noqa: SIM905 - a word list reads better as text
    "WWDG PVD TAMP_STAMP RTC_WKUP FLASH RCC EXTI0 EXTI1 EXTI2 EXTI3 EXTI4 DMA1_Stream0 DMA1_Stream1 "
    "DMA1_Stream2 DMA1_Stream3 DMA1_Stream4 DMA1_Stream5 DMA1_Stream6 ADC CAN1_TX CAN1_RX0 CAN1_RX1 CAN1_SCE "
    "EXTI9_5 TIM1_BRK_TIM9 TIM1_UP_TIM10 TIM1_TRG_COM_TIM11 TIM1_CC TIM2 TIM3 TIM4 I2C1_EV I2C1_ER I2C2_EV "
    "I2C2_ER SPI1 SPI2 USART1 USART2 USART3 EXTI15_10 RTC_Alarm OTG_FS_WKUP TIM8_BRK_TIM12 TIM8_UP_TIM13 "
    "TIM8_TRG_COM_TIM14 TIM8_CC DMA1_Stream7 FSMC SDIO TIM5 SPI3 UART4 UART5 TIM6_DAC TIM7 DMA2_Stream0 "
    "DMA2_Stream1 DMA2_Stream2 DMA2_Stream3 DMA2_Stream4 ETH ETH_WKUP CAN2_TX CAN2_RX0 CAN2_RX1 CAN2_SCE "
    "OTG_FS DMA2_Stream5 DMA2_Stream6 DMA2_Stream7 USART6 I2C3_EV I2C3_ER OTG_HS_EP1_OUT OTG_HS_EP1_IN "
    "OTG_HS_WKUP OTG_HS DCMI CRYP HASH_RNG FPU"
).split()
CORE_EXCEPTIONS = {2: "NMI", 11: "SVCall", 12: "DebugMonitor", 14: "PendSV", 15: "SysTick"}


def handler_name(exception: int) -> str:
    """CMSIS handler name of an exception number (IPSR), e.g. 44 -> TIM2_IRQHandler."""
    if exception in CORE_EXCEPTIONS:
        name = CORE_EXCEPTIONS[exception]
        return f"{'SVC' if name == 'SVCall' else 'DebugMon' if name == 'DebugMonitor' else name}_Handler"
    irq = exception - 16
    return f"{IRQ_NAMES[irq]}_IRQHandler" if 0 <= irq < len(IRQ_NAMES) else f"exception {exception}"
