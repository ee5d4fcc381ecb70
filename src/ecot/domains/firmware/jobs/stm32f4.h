/* stm32f4.h - register definitions for the STM32F405 used by ecot's firmware tasks.
 *
 * Written for ecot in the CMSIS naming style (peripheral structs, RCC_AHB1ENR_GPIOAEN-style bit
 * names, NVIC_EnableIRQ & co.), so code written against the vendor headers reads the same here.
 * Only the peripherals the tasks use are described. Addresses follow the STM32F405 reference manual.
 */
#ifndef ECOT_STM32F4_H
#define ECOT_STM32F4_H

#include <stdint.h>

#define __I  volatile const
#define __O  volatile
#define __IO volatile

/* ---- interrupt numbers (vector table position - 16) ---------------------------------------- */
typedef enum {
    NonMaskableInt_IRQn = -14, HardFault_IRQn = -13, MemoryManagement_IRQn = -12, BusFault_IRQn = -11,
    UsageFault_IRQn = -10, SVCall_IRQn = -5, DebugMonitor_IRQn = -4, PendSV_IRQn = -2, SysTick_IRQn = -1,
    WWDG_IRQn = 0, PVD_IRQn = 1, TAMP_STAMP_IRQn = 2, RTC_WKUP_IRQn = 3, FLASH_IRQn = 4, RCC_IRQn = 5,
    EXTI0_IRQn = 6, EXTI1_IRQn = 7, EXTI2_IRQn = 8, EXTI3_IRQn = 9, EXTI4_IRQn = 10,
    DMA1_Stream0_IRQn = 11, ADC_IRQn = 18, EXTI9_5_IRQn = 23, TIM1_UP_TIM10_IRQn = 25,
    TIM2_IRQn = 28, TIM3_IRQn = 29, TIM4_IRQn = 30, I2C1_EV_IRQn = 31, SPI1_IRQn = 35, SPI2_IRQn = 36,
    USART1_IRQn = 37, USART2_IRQn = 38, USART3_IRQn = 39, EXTI15_10_IRQn = 40, TIM5_IRQn = 50,
    SPI3_IRQn = 51, UART4_IRQn = 52, UART5_IRQn = 53, TIM6_DAC_IRQn = 54, TIM7_IRQn = 55,
    USART6_IRQn = 71, FPU_IRQn = 81
} IRQn_Type;

/* ---- core peripherals ----------------------------------------------------------------------- */
typedef struct {
    __IO uint32_t CTRL;
    __IO uint32_t LOAD;
    __IO uint32_t VAL;
    __I  uint32_t CALIB;
} SysTick_Type;

typedef struct {
    __IO uint32_t ISER[8];
    uint32_t RESERVED0[24];
    __IO uint32_t ICER[8];
    uint32_t RESERVED1[24];
    __IO uint32_t ISPR[8];
    uint32_t RESERVED2[24];
    __IO uint32_t ICPR[8];
    uint32_t RESERVED3[24];
    __IO uint32_t IABR[8];
    uint32_t RESERVED4[56];
    __IO uint8_t  IP[240];
    uint32_t RESERVED5[644];
    __O  uint32_t STIR;
} NVIC_Type;

typedef struct {
    __I  uint32_t CPUID;
    __IO uint32_t ICSR;
    __IO uint32_t VTOR;
    __IO uint32_t AIRCR;
    __IO uint32_t SCR;
    __IO uint32_t CCR;
    __IO uint8_t  SHP[12];
    __IO uint32_t SHCSR;
    __IO uint32_t CFSR;
    __IO uint32_t HFSR;
    __IO uint32_t DFSR;
    __IO uint32_t MMFAR;
    __IO uint32_t BFAR;
    __IO uint32_t AFSR;
} SCB_Type;

#define SCS_BASE     0xE000E000UL
#define SysTick_BASE (SCS_BASE + 0x0010UL)
#define NVIC_BASE    (SCS_BASE + 0x0100UL)
#define SCB_BASE     (SCS_BASE + 0x0D00UL)
#define SysTick      ((SysTick_Type *)SysTick_BASE)
#define NVIC         ((NVIC_Type *)NVIC_BASE)
#define SCB          ((SCB_Type *)SCB_BASE)

#define SysTick_CTRL_ENABLE_Msk    (1UL << 0)
#define SysTick_CTRL_TICKINT_Msk   (1UL << 1)
#define SysTick_CTRL_CLKSOURCE_Msk (1UL << 2)
#define SysTick_CTRL_COUNTFLAG_Msk (1UL << 16)
#define SysTick_LOAD_RELOAD_Msk    (0xFFFFFFUL)
#define __NVIC_PRIO_BITS 4U

/* ---- core functions (CMSIS-style) ------------------------------------------------------------- */
static inline void __enable_irq(void)  { __asm volatile("cpsie i" ::: "memory"); }
static inline void __disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void __WFI(void)         { __asm volatile("wfi"); }
static inline void __NOP(void)         { __asm volatile("nop"); }
static inline void __DSB(void)         { __asm volatile("dsb 0xF" ::: "memory"); }
static inline void __ISB(void)         { __asm volatile("isb 0xF" ::: "memory"); }
static inline uint32_t __get_PRIMASK(void) { uint32_t r; __asm volatile("mrs %0, primask" : "=r"(r)); return r; }
static inline void __set_PRIMASK(uint32_t v) { __asm volatile("msr primask, %0" :: "r"(v) : "memory"); }

static inline void NVIC_EnableIRQ(IRQn_Type n)  { if ((int32_t)n >= 0) NVIC->ISER[(uint32_t)n >> 5] = 1UL << ((uint32_t)n & 31U); }
static inline void NVIC_DisableIRQ(IRQn_Type n) { if ((int32_t)n >= 0) NVIC->ICER[(uint32_t)n >> 5] = 1UL << ((uint32_t)n & 31U); }
static inline void NVIC_SetPendingIRQ(IRQn_Type n)   { if ((int32_t)n >= 0) NVIC->ISPR[(uint32_t)n >> 5] = 1UL << ((uint32_t)n & 31U); }
static inline void NVIC_ClearPendingIRQ(IRQn_Type n) { if ((int32_t)n >= 0) NVIC->ICPR[(uint32_t)n >> 5] = 1UL << ((uint32_t)n & 31U); }
static inline uint32_t NVIC_GetEnableIRQ(IRQn_Type n) {
    return (int32_t)n >= 0 ? (NVIC->ISER[(uint32_t)n >> 5] >> ((uint32_t)n & 31U)) & 1UL : 0UL;
}
static inline void NVIC_SetPriority(IRQn_Type n, uint32_t priority) {
    uint8_t value = (uint8_t)((priority << (8U - __NVIC_PRIO_BITS)) & 0xFFU);
    if ((int32_t)n >= 0) NVIC->IP[(uint32_t)n] = value;
    else SCB->SHP[((uint32_t)n & 0xFU) - 4U] = value;
}
static inline uint32_t NVIC_GetPriority(IRQn_Type n) {
    uint8_t value = (int32_t)n >= 0 ? NVIC->IP[(uint32_t)n] : SCB->SHP[((uint32_t)n & 0xFU) - 4U];
    return (uint32_t)value >> (8U - __NVIC_PRIO_BITS);
}
/* Start SysTick with `ticks` core clocks per interrupt; returns 1 when ticks does not fit. */
static inline uint32_t SysTick_Config(uint32_t ticks) {
    if (ticks - 1UL > SysTick_LOAD_RELOAD_Msk) return 1UL;
    SysTick->LOAD = ticks - 1UL;
    NVIC_SetPriority(SysTick_IRQn, (1UL << __NVIC_PRIO_BITS) - 1UL);
    SysTick->VAL = 0UL;
    SysTick->CTRL = SysTick_CTRL_CLKSOURCE_Msk | SysTick_CTRL_TICKINT_Msk | SysTick_CTRL_ENABLE_Msk;
    return 0UL;
}

/* ---- device peripherals ----------------------------------------------------------------------- */
typedef struct {
    __IO uint32_t CR, PLLCFGR, CFGR, CIR, AHB1RSTR, AHB2RSTR, AHB3RSTR;
    uint32_t RESERVED0;
    __IO uint32_t APB1RSTR, APB2RSTR;
    uint32_t RESERVED1[2];
    __IO uint32_t AHB1ENR, AHB2ENR, AHB3ENR;
    uint32_t RESERVED2;
    __IO uint32_t APB1ENR, APB2ENR;
    uint32_t RESERVED3[2];
    __IO uint32_t AHB1LPENR, AHB2LPENR, AHB3LPENR;
    uint32_t RESERVED4;
    __IO uint32_t APB1LPENR, APB2LPENR;
    uint32_t RESERVED5[2];
    __IO uint32_t BDCR, CSR;
    uint32_t RESERVED6[2];
    __IO uint32_t SSCGR, PLLI2SCFGR;
} RCC_TypeDef;

typedef struct {
    __IO uint32_t MODER, OTYPER, OSPEEDR, PUPDR, IDR, ODR, BSRR, LCKR;
    __IO uint32_t AFR[2];
} GPIO_TypeDef;

typedef struct {
    __IO uint32_t SR, DR, BRR, CR1, CR2, CR3, GTPR;
} USART_TypeDef;

typedef struct {
    __IO uint32_t CR1, CR2, SMCR, DIER, SR, EGR, CCMR1, CCMR2, CCER, CNT, PSC, ARR, RCR;
    __IO uint32_t CCR1, CCR2, CCR3, CCR4, BDTR, DCR, DMAR, OR;
} TIM_TypeDef;

typedef struct {
    __IO uint32_t IMR, EMR, RTSR, FTSR, SWIER, PR;
} EXTI_TypeDef;

typedef struct {
    __IO uint32_t MEMRMP, PMC;
    __IO uint32_t EXTICR[4];
    uint32_t RESERVED[2];
    __IO uint32_t CMPCR;
} SYSCFG_TypeDef;

typedef struct {
    __IO uint32_t DR;
    __IO uint8_t  IDR;
    uint8_t RESERVED0;
    uint16_t RESERVED1;
    __IO uint32_t CR;
} CRC_TypeDef;

typedef struct {
    __IO uint32_t ACR, KEYR, OPTKEYR, SR, CR, OPTCR;
} FLASH_TypeDef;

typedef struct {
    __IO uint32_t CR, CSR;
} PWR_TypeDef;

#define PERIPH_BASE     0x40000000UL
#define APB1PERIPH_BASE PERIPH_BASE
#define APB2PERIPH_BASE (PERIPH_BASE + 0x00010000UL)
#define AHB1PERIPH_BASE (PERIPH_BASE + 0x00020000UL)

#define TIM2_BASE   (APB1PERIPH_BASE + 0x0000UL)
#define TIM3_BASE   (APB1PERIPH_BASE + 0x0400UL)
#define TIM4_BASE   (APB1PERIPH_BASE + 0x0800UL)
#define TIM5_BASE   (APB1PERIPH_BASE + 0x0C00UL)
#define TIM6_BASE   (APB1PERIPH_BASE + 0x1000UL)
#define TIM7_BASE   (APB1PERIPH_BASE + 0x1400UL)
#define USART2_BASE (APB1PERIPH_BASE + 0x4400UL)
#define USART3_BASE (APB1PERIPH_BASE + 0x4800UL)
#define PWR_BASE    (APB1PERIPH_BASE + 0x7000UL)
#define TIM1_BASE   (APB2PERIPH_BASE + 0x0000UL)
#define USART1_BASE (APB2PERIPH_BASE + 0x1000UL)
#define USART6_BASE (APB2PERIPH_BASE + 0x1400UL)
#define SYSCFG_BASE (APB2PERIPH_BASE + 0x3800UL)
#define EXTI_BASE   (APB2PERIPH_BASE + 0x3C00UL)
#define GPIOA_BASE  (AHB1PERIPH_BASE + 0x0000UL)
#define GPIOB_BASE  (AHB1PERIPH_BASE + 0x0400UL)
#define GPIOC_BASE  (AHB1PERIPH_BASE + 0x0800UL)
#define GPIOD_BASE  (AHB1PERIPH_BASE + 0x0C00UL)
#define GPIOE_BASE  (AHB1PERIPH_BASE + 0x1000UL)
#define GPIOF_BASE  (AHB1PERIPH_BASE + 0x1400UL)
#define GPIOG_BASE  (AHB1PERIPH_BASE + 0x1800UL)
#define GPIOH_BASE  (AHB1PERIPH_BASE + 0x1C00UL)
#define GPIOI_BASE  (AHB1PERIPH_BASE + 0x2000UL)
#define CRC_BASE    (AHB1PERIPH_BASE + 0x3000UL)
#define RCC_BASE    (AHB1PERIPH_BASE + 0x3800UL)
#define FLASH_R_BASE (AHB1PERIPH_BASE + 0x3C00UL)

#define TIM2   ((TIM_TypeDef *)TIM2_BASE)
#define TIM3   ((TIM_TypeDef *)TIM3_BASE)
#define TIM4   ((TIM_TypeDef *)TIM4_BASE)
#define TIM5   ((TIM_TypeDef *)TIM5_BASE)
#define TIM6   ((TIM_TypeDef *)TIM6_BASE)
#define TIM7   ((TIM_TypeDef *)TIM7_BASE)
#define TIM1   ((TIM_TypeDef *)TIM1_BASE)
#define USART1 ((USART_TypeDef *)USART1_BASE)
#define USART2 ((USART_TypeDef *)USART2_BASE)
#define USART3 ((USART_TypeDef *)USART3_BASE)
#define USART6 ((USART_TypeDef *)USART6_BASE)
#define PWR    ((PWR_TypeDef *)PWR_BASE)
#define SYSCFG ((SYSCFG_TypeDef *)SYSCFG_BASE)
#define EXTI   ((EXTI_TypeDef *)EXTI_BASE)
#define GPIOA  ((GPIO_TypeDef *)GPIOA_BASE)
#define GPIOB  ((GPIO_TypeDef *)GPIOB_BASE)
#define GPIOC  ((GPIO_TypeDef *)GPIOC_BASE)
#define GPIOD  ((GPIO_TypeDef *)GPIOD_BASE)
#define GPIOE  ((GPIO_TypeDef *)GPIOE_BASE)
#define GPIOF  ((GPIO_TypeDef *)GPIOF_BASE)
#define GPIOG  ((GPIO_TypeDef *)GPIOG_BASE)
#define GPIOH  ((GPIO_TypeDef *)GPIOH_BASE)
#define GPIOI  ((GPIO_TypeDef *)GPIOI_BASE)
#define CRC    ((CRC_TypeDef *)CRC_BASE)
#define RCC    ((RCC_TypeDef *)RCC_BASE)
#define FLASH  ((FLASH_TypeDef *)FLASH_R_BASE)

/* ---- RCC bits ---------------------------------------------------------------------------------- */
#define RCC_CR_HSION      (1UL << 0)
#define RCC_CR_HSIRDY     (1UL << 1)
#define RCC_CR_HSEON      (1UL << 16)
#define RCC_CR_HSERDY     (1UL << 17)
#define RCC_CR_HSEBYP     (1UL << 18)
#define RCC_CR_CSSON      (1UL << 19)
#define RCC_CR_PLLON      (1UL << 24)
#define RCC_CR_PLLRDY     (1UL << 25)

#define RCC_PLLCFGR_PLLM_Pos   0U
#define RCC_PLLCFGR_PLLM       (0x3FUL << 0)
#define RCC_PLLCFGR_PLLN_Pos   6U
#define RCC_PLLCFGR_PLLN       (0x1FFUL << 6)
#define RCC_PLLCFGR_PLLP_Pos   16U
#define RCC_PLLCFGR_PLLP       (0x3UL << 16)
#define RCC_PLLCFGR_PLLSRC     (1UL << 22)
#define RCC_PLLCFGR_PLLSRC_HSE (1UL << 22)
#define RCC_PLLCFGR_PLLQ_Pos   24U
#define RCC_PLLCFGR_PLLQ       (0xFUL << 24)

#define RCC_CFGR_SW        (0x3UL << 0)
#define RCC_CFGR_SW_HSI    (0x0UL << 0)
#define RCC_CFGR_SW_HSE    (0x1UL << 0)
#define RCC_CFGR_SW_PLL    (0x2UL << 0)
#define RCC_CFGR_SWS       (0x3UL << 2)
#define RCC_CFGR_SWS_HSI   (0x0UL << 2)
#define RCC_CFGR_SWS_HSE   (0x1UL << 2)
#define RCC_CFGR_SWS_PLL   (0x2UL << 2)
#define RCC_CFGR_HPRE      (0xFUL << 4)
#define RCC_CFGR_HPRE_DIV1 (0x0UL << 4)
#define RCC_CFGR_PPRE1     (0x7UL << 10)
#define RCC_CFGR_PPRE1_DIV2 (0x4UL << 10)
#define RCC_CFGR_PPRE1_DIV4 (0x5UL << 10)
#define RCC_CFGR_PPRE2     (0x7UL << 13)
#define RCC_CFGR_PPRE2_DIV2 (0x4UL << 13)
#define RCC_CFGR_PPRE2_DIV4 (0x5UL << 13)

#define RCC_AHB1ENR_GPIOAEN (1UL << 0)
#define RCC_AHB1ENR_GPIOBEN (1UL << 1)
#define RCC_AHB1ENR_GPIOCEN (1UL << 2)
#define RCC_AHB1ENR_GPIODEN (1UL << 3)
#define RCC_AHB1ENR_GPIOEEN (1UL << 4)
#define RCC_AHB1ENR_GPIOFEN (1UL << 5)
#define RCC_AHB1ENR_GPIOGEN (1UL << 6)
#define RCC_AHB1ENR_GPIOHEN (1UL << 7)
#define RCC_AHB1ENR_GPIOIEN (1UL << 8)
#define RCC_AHB1ENR_CRCEN   (1UL << 12)
#define RCC_AHB1ENR_DMA1EN  (1UL << 21)
#define RCC_AHB1ENR_DMA2EN  (1UL << 22)
#define RCC_AHB1RSTR_GPIOARST (1UL << 0)

#define RCC_APB1ENR_TIM2EN   (1UL << 0)
#define RCC_APB1ENR_TIM3EN   (1UL << 1)
#define RCC_APB1ENR_TIM4EN   (1UL << 2)
#define RCC_APB1ENR_TIM5EN   (1UL << 3)
#define RCC_APB1ENR_TIM6EN   (1UL << 4)
#define RCC_APB1ENR_TIM7EN   (1UL << 5)
#define RCC_APB1ENR_USART2EN (1UL << 17)
#define RCC_APB1ENR_USART3EN (1UL << 18)
#define RCC_APB1ENR_PWREN    (1UL << 28)
#define RCC_APB2ENR_TIM1EN   (1UL << 0)
#define RCC_APB2ENR_USART1EN (1UL << 4)
#define RCC_APB2ENR_USART6EN (1UL << 5)
#define RCC_APB2ENR_SYSCFGEN (1UL << 14)

/* ---- FLASH, PWR -------------------------------------------------------------------------------- */
#define FLASH_ACR_LATENCY      (0x7UL << 0)
#define FLASH_ACR_LATENCY_5WS  (0x5UL << 0)
#define FLASH_ACR_PRFTEN       (1UL << 8)
#define FLASH_ACR_ICEN         (1UL << 9)
#define FLASH_ACR_DCEN         (1UL << 10)
#define PWR_CR_VOS             (1UL << 14)

/* ---- GPIO -------------------------------------------------------------------------------------- */
#define GPIO_MODER_MODER0   (0x3UL << 0)
#define GPIO_MODE_INPUT  0x0UL
#define GPIO_MODE_OUTPUT 0x1UL
#define GPIO_MODE_AF     0x2UL
#define GPIO_MODE_ANALOG 0x3UL
#define GPIO_PUPD_NONE     0x0UL
#define GPIO_PUPD_PULLUP   0x1UL
#define GPIO_PUPD_PULLDOWN 0x2UL
#define GPIO_BSRR_BS(n) (1UL << (n))
#define GPIO_BSRR_BR(n) (1UL << ((n) + 16U))

/* ---- USART ------------------------------------------------------------------------------------- */
#define USART_SR_PE    (1UL << 0)
#define USART_SR_FE    (1UL << 1)
#define USART_SR_ORE   (1UL << 3)
#define USART_SR_IDLE  (1UL << 4)
#define USART_SR_RXNE  (1UL << 5)
#define USART_SR_TC    (1UL << 6)
#define USART_SR_TXE   (1UL << 7)
#define USART_CR1_SBK    (1UL << 0)
#define USART_CR1_RE     (1UL << 2)
#define USART_CR1_TE     (1UL << 3)
#define USART_CR1_RXNEIE (1UL << 5)
#define USART_CR1_TCIE   (1UL << 6)
#define USART_CR1_TXEIE  (1UL << 7)
#define USART_CR1_PCE    (1UL << 10)
#define USART_CR1_M      (1UL << 12)
#define USART_CR1_UE     (1UL << 13)
#define USART_CR1_OVER8  (1UL << 15)
#define USART_CR2_STOP   (0x3UL << 12)

/* ---- TIM --------------------------------------------------------------------------------------- */
#define TIM_CR1_CEN   (1UL << 0)
#define TIM_CR1_UDIS  (1UL << 1)
#define TIM_CR1_URS   (1UL << 2)
#define TIM_CR1_OPM   (1UL << 3)
#define TIM_CR1_DIR   (1UL << 4)
#define TIM_CR1_ARPE  (1UL << 7)
#define TIM_DIER_UIE  (1UL << 0)
#define TIM_DIER_CC1IE (1UL << 1)
#define TIM_SR_UIF    (1UL << 0)
#define TIM_SR_CC1IF  (1UL << 1)
#define TIM_EGR_UG    (1UL << 0)
#define TIM_CCMR1_OC1M_Pos 4U
#define TIM_CCMR1_OC1M  (0x7UL << 4)
#define TIM_CCMR1_OC1PE (1UL << 3)
#define TIM_CCMR1_OC2M_Pos 12U
#define TIM_CCMR1_OC2M  (0x7UL << 12)
#define TIM_CCMR1_OC2PE (1UL << 11)
#define TIM_CCER_CC1E (1UL << 0)
#define TIM_CCER_CC1P (1UL << 1)
#define TIM_CCER_CC2E (1UL << 4)

/* ---- EXTI, SYSCFG, CRC ------------------------------------------------------------------------- */
#define EXTI_IMR_MR0   (1UL << 0)
#define EXTI_RTSR_TR0  (1UL << 0)
#define EXTI_FTSR_TR0  (1UL << 0)
#define EXTI_PR_PR0    (1UL << 0)
#define SYSCFG_EXTICR1_EXTI0 (0xFUL << 0)
#define SYSCFG_EXTICR1_EXTI0_PA (0x0UL << 0)
#define CRC_CR_RESET   (1UL << 0)

#endif /* ECOT_STM32F4_H */
