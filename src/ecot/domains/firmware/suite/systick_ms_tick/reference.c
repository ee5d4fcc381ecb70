#include "stm32f4.h"

static volatile uint32_t g_ms;

void SysTick_Handler(void)
{
    g_ms++;
}

void systick_init(void)
{
    SysTick->LOAD = 168000u - 1u;
    SysTick->VAL = 0u;
    SysTick->CTRL = SysTick_CTRL_CLKSOURCE_Msk | SysTick_CTRL_TICKINT_Msk | SysTick_CTRL_ENABLE_Msk;
}

uint32_t millis(void)
{
    return g_ms;
}

void delay_ms(uint32_t ms)
{
    uint32_t start = g_ms;
    while ((g_ms - start) < ms) {
    }
}
