/* ecot_startup.c - vector table, reset, MPU and watchdog for ecot firmware tasks (written for ecot).
 *
 * Reset copies .data, clears .bss, resets the peripheral model, points VTOR at the table, traps
 * integer division by zero, starts the TIM5 watchdog (TIM5 is reserved for the harness), programs
 * the MPU and moves thread code onto the process stack (PSP) at the bottom of RAM, so a thread
 * stack overflow faults while the handlers keep a healthy stack of their own (MSP). Then it runs
 * the task harness and writes the end marker. Device interrupt handlers are weak aliases of a
 * handler that reports the unexpected interrupt, so a misnamed handler is diagnosed, not silent.
 */
#include <stddef.h>

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end;
extern uint32_t __msp_top, __msp_guard, __stack_top, __stack_bottom;
extern char end, __heap_limit;
extern void initialise_monitor_handles(void) __attribute__((weak));

#define MPU_RNR (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RASR (*(volatile uint32_t *)0xE000EDA0u)
#define XN (1u << 28)
#define AP_NONE (0u << 24)
#define AP_RW (3u << 24)
#define AP_RO (6u << 24)
#define NORMAL_WT (1u << 17)
#define NORMAL_WB_SHARED ((1u << 18) | (1u << 17) | (1u << 16))
#define DEVICE_SHARED ((1u << 18) | (1u << 16))

static void rt_region(uint32_t n, uint32_t base, uint32_t log2size, uint32_t attrs) {
    MPU_RNR = n;
    MPU_RBAR = base;
    MPU_RASR = attrs | ((log2size - 1u) << 1) | 1u;
}

/* Nothing is mapped outside these regions (no background map), so NULL, the flash alias at 0,
 * SRAM beyond 128 KiB and anything below the thread stack fault; peripheral windows trap. */
static void rt_mpu_on(void) {
    rt_region(0, 0x08000000u, 20u, AP_RO | NORMAL_WT);               /* flash, read-only */
    rt_region(1, 0x20000000u, 17u, XN | AP_RW | NORMAL_WB_SHARED);   /* SRAM1 + SRAM2 */
    rt_region(2, 0x40000000u, 29u, XN | AP_RW | DEVICE_SHARED);      /* other peripherals */
    rt_region(3, 0x40000000u, 15u, XN | AP_NONE);                    /* APB1: trapped */
    rt_region(4, 0x40010000u, 15u, XN | AP_NONE);                    /* APB2: trapped */
    rt_region(5, 0x40020000u, 14u, XN | AP_NONE);                    /* GPIO..RCC..FLASH: trapped */
    rt_region(6, 0x42000000u, 25u, XN | AP_NONE);                    /* bit-band alias: trapped */
    rt_region(7, (uint32_t)&__msp_guard, 8u, XN | AP_NONE);          /* handler stack guard */
    MPU_CTRL = 1u;
    __DSB();
    __ISB();
}

/* TIM5 counts simulated time (QEMU clocks it at 1 GHz): PSC 999 gives microseconds. These are the only
 * TIM5 writes the host accepts in QEMU's log (clock.py, boot_sequence): change both together. */
static void rt_watchdog_on(void) {
    TIM5->PSC = 999u;
    TIM5->ARR = ECOT_BUDGET_US;
    TIM5->EGR = TIM_EGR_UG;
    TIM5->SR = 0u;
    TIM5->DIER = TIM_DIER_UIE;
    NVIC->IP[TIM5_IRQn] = 0u;
    NVIC_EnableIRQ(TIM5_IRQn);
    TIM5->CR1 = TIM_CR1_CEN;
}

__attribute__((used)) static void rt_boot(void) {
    for (uint32_t *src = &__data_load, *dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
    for (uint32_t *dst = &__bss_start; dst < &__bss_end;) *dst++ = 0u;
    rt_periph_reset();
    SCB->VTOR = 0x08000000u;
    SCB->CCR |= 1u << 4; /* DIV_0_TRP */
    SCB->SHCSR = 0u;     /* every fault escalates to HardFault */
    rt_watchdog_on();
    rt_mpu_on();
    if (initialise_monitor_handles) initialise_monitor_handles();
}

__attribute__((used, noreturn)) static void rt_run(void) {
    __enable_irq();
    harness_main();
    rt_finish();
}

__attribute__((naked, noreturn)) static void rt_reset(void) {
    __asm__ volatile(
        "bl rt_boot\n"
        "ldr r0, =__stack_top\n"
        "msr psp, r0\n"
        "movs r0, #2\n"
        "msr control, r0\n" /* thread mode on PSP */
        "isb\n"
        "bl rt_run\n");
}

/* The interrupted frame, r4-r11 and EXC_RETURN go to rt_fault; it may change them and return. */
__attribute__((naked)) static void rt_fault_entry(void) {
    __asm__ volatile(
        "tst lr, #4\n"
        "ite eq\n"
        "mrseq r0, msp\n"
        "mrsne r0, psp\n"
        "push {r4-r11}\n"
        "mov r1, sp\n"
        "mov r2, lr\n"
        "push {r2, r3}\n"
        "bl rt_fault\n"
        "pop {r2, r3}\n"
        "pop {r4-r11}\n"
        "bx r2\n");
}

/* a: the exception number (unexpected interrupt) or the last peripheral register touched (watchdog). */
__attribute__((used, noreturn)) static void rt_stop_in_handler(uint32_t *frame, const char *kind) {
    rt_ctx c = {frame, 0, 0};
    rt_where w = rt_where_of(&c, 1u);
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    rt_stop(kind, &w, kind[0] == 'W' ? rt_last_addr : ipsr & 0x1FFu, rt_accesses);
}

__attribute__((used, noreturn)) static void rt_unexpected_c(uint32_t *frame) { rt_stop_in_handler(frame, "I"); }
__attribute__((used, noreturn)) static void rt_watchdog_c(uint32_t *frame) { rt_stop_in_handler(frame, "W"); }

#define RT_FRAME_STUB(name, target)                                                                   \
    __attribute__((naked)) static void name(void) {                                                   \
        __asm__ volatile("tst lr, #4\n ite eq\n mrseq r0, msp\n mrsne r0, psp\n b " #target "\n");    \
    }
RT_FRAME_STUB(rt_unexpected, rt_unexpected_c)
RT_FRAME_STUB(rt_watchdog, rt_watchdog_c)

/* newlib's malloc: the heap ends at the linker's __heap_limit (the stack is elsewhere). */
void *_sbrk(ptrdiff_t incr) __attribute__((weak));
void *_sbrk(ptrdiff_t incr) {
    static char *brk;
    char *old;
    if (brk == 0) brk = &end;
    if (incr < 0 || brk + incr > &__heap_limit) return (void *)-1;
    old = brk;
    brk += incr;
    return old;
}

#define WEAK_IRQ(name) void name(void) __attribute__((weak, alias("rt_unexpected")));
WEAK_IRQ(SVC_Handler) WEAK_IRQ(DebugMon_Handler) WEAK_IRQ(PendSV_Handler) WEAK_IRQ(SysTick_Handler)
WEAK_IRQ(WWDG_IRQHandler) WEAK_IRQ(PVD_IRQHandler) WEAK_IRQ(TAMP_STAMP_IRQHandler) WEAK_IRQ(RTC_WKUP_IRQHandler)
WEAK_IRQ(FLASH_IRQHandler) WEAK_IRQ(RCC_IRQHandler) WEAK_IRQ(EXTI0_IRQHandler) WEAK_IRQ(EXTI1_IRQHandler)
WEAK_IRQ(EXTI2_IRQHandler) WEAK_IRQ(EXTI3_IRQHandler) WEAK_IRQ(EXTI4_IRQHandler) WEAK_IRQ(DMA1_Stream0_IRQHandler)
WEAK_IRQ(DMA1_Stream1_IRQHandler) WEAK_IRQ(DMA1_Stream2_IRQHandler) WEAK_IRQ(DMA1_Stream3_IRQHandler)
WEAK_IRQ(DMA1_Stream4_IRQHandler) WEAK_IRQ(DMA1_Stream5_IRQHandler) WEAK_IRQ(DMA1_Stream6_IRQHandler)
WEAK_IRQ(ADC_IRQHandler) WEAK_IRQ(CAN1_TX_IRQHandler) WEAK_IRQ(CAN1_RX0_IRQHandler) WEAK_IRQ(CAN1_RX1_IRQHandler)
WEAK_IRQ(CAN1_SCE_IRQHandler) WEAK_IRQ(EXTI9_5_IRQHandler) WEAK_IRQ(TIM1_BRK_TIM9_IRQHandler)
WEAK_IRQ(TIM1_UP_TIM10_IRQHandler) WEAK_IRQ(TIM1_TRG_COM_TIM11_IRQHandler) WEAK_IRQ(TIM1_CC_IRQHandler)
WEAK_IRQ(TIM2_IRQHandler) WEAK_IRQ(TIM3_IRQHandler) WEAK_IRQ(TIM4_IRQHandler) WEAK_IRQ(I2C1_EV_IRQHandler)
WEAK_IRQ(I2C1_ER_IRQHandler) WEAK_IRQ(I2C2_EV_IRQHandler) WEAK_IRQ(I2C2_ER_IRQHandler) WEAK_IRQ(SPI1_IRQHandler)
WEAK_IRQ(SPI2_IRQHandler) WEAK_IRQ(USART1_IRQHandler) WEAK_IRQ(USART2_IRQHandler) WEAK_IRQ(USART3_IRQHandler)
WEAK_IRQ(EXTI15_10_IRQHandler) WEAK_IRQ(RTC_Alarm_IRQHandler) WEAK_IRQ(OTG_FS_WKUP_IRQHandler)
WEAK_IRQ(TIM8_BRK_TIM12_IRQHandler) WEAK_IRQ(TIM8_UP_TIM13_IRQHandler) WEAK_IRQ(TIM8_TRG_COM_TIM14_IRQHandler)
WEAK_IRQ(TIM8_CC_IRQHandler) WEAK_IRQ(DMA1_Stream7_IRQHandler) WEAK_IRQ(FSMC_IRQHandler) WEAK_IRQ(SDIO_IRQHandler)
WEAK_IRQ(SPI3_IRQHandler) WEAK_IRQ(UART4_IRQHandler) WEAK_IRQ(UART5_IRQHandler) WEAK_IRQ(TIM6_DAC_IRQHandler)
WEAK_IRQ(TIM7_IRQHandler) WEAK_IRQ(DMA2_Stream0_IRQHandler) WEAK_IRQ(DMA2_Stream1_IRQHandler)
WEAK_IRQ(DMA2_Stream2_IRQHandler) WEAK_IRQ(DMA2_Stream3_IRQHandler) WEAK_IRQ(DMA2_Stream4_IRQHandler)
WEAK_IRQ(ETH_IRQHandler) WEAK_IRQ(ETH_WKUP_IRQHandler) WEAK_IRQ(CAN2_TX_IRQHandler) WEAK_IRQ(CAN2_RX0_IRQHandler)
WEAK_IRQ(CAN2_RX1_IRQHandler) WEAK_IRQ(CAN2_SCE_IRQHandler) WEAK_IRQ(OTG_FS_IRQHandler)
WEAK_IRQ(DMA2_Stream5_IRQHandler) WEAK_IRQ(DMA2_Stream6_IRQHandler) WEAK_IRQ(DMA2_Stream7_IRQHandler)
WEAK_IRQ(USART6_IRQHandler) WEAK_IRQ(I2C3_EV_IRQHandler) WEAK_IRQ(I2C3_ER_IRQHandler)
WEAK_IRQ(OTG_HS_EP1_OUT_IRQHandler) WEAK_IRQ(OTG_HS_EP1_IN_IRQHandler) WEAK_IRQ(OTG_HS_WKUP_IRQHandler)
WEAK_IRQ(OTG_HS_IRQHandler) WEAK_IRQ(DCMI_IRQHandler) WEAK_IRQ(CRYP_IRQHandler) WEAK_IRQ(HASH_RNG_IRQHandler)
WEAK_IRQ(FPU_IRQHandler)

typedef void (*rt_vector)(void);

__attribute__((used, section(".isr_vector"))) static const rt_vector rt_vectors[16 + 82] = {
    (rt_vector)&__msp_top, rt_reset, rt_unexpected, rt_fault_entry, rt_fault_entry, rt_fault_entry, rt_fault_entry,
    0, 0, 0, 0, SVC_Handler, DebugMon_Handler, 0, PendSV_Handler, SysTick_Handler,
    WWDG_IRQHandler, PVD_IRQHandler, TAMP_STAMP_IRQHandler, RTC_WKUP_IRQHandler, FLASH_IRQHandler, RCC_IRQHandler,
    EXTI0_IRQHandler, EXTI1_IRQHandler, EXTI2_IRQHandler, EXTI3_IRQHandler, EXTI4_IRQHandler,
    DMA1_Stream0_IRQHandler, DMA1_Stream1_IRQHandler, DMA1_Stream2_IRQHandler, DMA1_Stream3_IRQHandler,
    DMA1_Stream4_IRQHandler, DMA1_Stream5_IRQHandler, DMA1_Stream6_IRQHandler, ADC_IRQHandler,
    CAN1_TX_IRQHandler, CAN1_RX0_IRQHandler, CAN1_RX1_IRQHandler, CAN1_SCE_IRQHandler, EXTI9_5_IRQHandler,
    TIM1_BRK_TIM9_IRQHandler, TIM1_UP_TIM10_IRQHandler, TIM1_TRG_COM_TIM11_IRQHandler, TIM1_CC_IRQHandler,
    TIM2_IRQHandler, TIM3_IRQHandler, TIM4_IRQHandler, I2C1_EV_IRQHandler, I2C1_ER_IRQHandler,
    I2C2_EV_IRQHandler, I2C2_ER_IRQHandler, SPI1_IRQHandler, SPI2_IRQHandler, USART1_IRQHandler,
    USART2_IRQHandler, USART3_IRQHandler, EXTI15_10_IRQHandler, RTC_Alarm_IRQHandler, OTG_FS_WKUP_IRQHandler,
    TIM8_BRK_TIM12_IRQHandler, TIM8_UP_TIM13_IRQHandler, TIM8_TRG_COM_TIM14_IRQHandler, TIM8_CC_IRQHandler,
    DMA1_Stream7_IRQHandler, FSMC_IRQHandler, SDIO_IRQHandler, rt_watchdog, SPI3_IRQHandler,
    UART4_IRQHandler, UART5_IRQHandler, TIM6_DAC_IRQHandler, TIM7_IRQHandler, DMA2_Stream0_IRQHandler,
    DMA2_Stream1_IRQHandler, DMA2_Stream2_IRQHandler, DMA2_Stream3_IRQHandler, DMA2_Stream4_IRQHandler,
    ETH_IRQHandler, ETH_WKUP_IRQHandler, CAN2_TX_IRQHandler, CAN2_RX0_IRQHandler, CAN2_RX1_IRQHandler,
    CAN2_SCE_IRQHandler, OTG_FS_IRQHandler, DMA2_Stream5_IRQHandler, DMA2_Stream6_IRQHandler,
    DMA2_Stream7_IRQHandler, USART6_IRQHandler, I2C3_EV_IRQHandler, I2C3_ER_IRQHandler,
    OTG_HS_EP1_OUT_IRQHandler, OTG_HS_EP1_IN_IRQHandler, OTG_HS_WKUP_IRQHandler, OTG_HS_IRQHandler,
    DCMI_IRQHandler, CRYP_IRQHandler, HASH_RNG_IRQHandler, FPU_IRQHandler,
};
