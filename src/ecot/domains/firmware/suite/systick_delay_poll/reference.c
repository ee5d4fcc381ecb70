#include "stm32f4.h"

void delay_us(uint32_t us)
{
    SysTick->CTRL = 0u;
    SysTick->LOAD = us * 168u - 1u;
    SysTick->VAL = 0u;
    SysTick->CTRL = SysTick_CTRL_CLKSOURCE_Msk | SysTick_CTRL_ENABLE_Msk;
    while (!(SysTick->CTRL & SysTick_CTRL_COUNTFLAG_Msk)) {
    }
    SysTick->CTRL = 0u;
}
