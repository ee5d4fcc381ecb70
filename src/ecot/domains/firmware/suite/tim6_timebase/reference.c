#include "stm32f4.h"

void tim6_init(void)
{
    RCC->APB1ENR |= RCC_APB1ENR_TIM6EN;
    (void)RCC->APB1ENR;
    TIM6->PSC = 8399u;
    TIM6->ARR = 9999u;
    TIM6->EGR = TIM_EGR_UG;
    TIM6->DIER = TIM_DIER_UIE;
    TIM6->CR1 = TIM_CR1_ARPE | TIM_CR1_CEN;
}
