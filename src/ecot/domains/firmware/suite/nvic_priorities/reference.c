#include "stm32f4.h"

void irq_setup(void)
{
    NVIC_SetPriority(USART2_IRQn, 1u);
    NVIC_SetPriority(TIM2_IRQn, 2u);
    NVIC_SetPriority(EXTI0_IRQn, 3u);
    NVIC_SetPriority(SysTick_IRQn, 15u);
    NVIC_EnableIRQ(USART2_IRQn);
    NVIC_EnableIRQ(TIM2_IRQn);
    NVIC_EnableIRQ(EXTI0_IRQn);
}
