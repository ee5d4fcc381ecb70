#include "stm32f4.h"

void button_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOCEN;
    (void)RCC->AHB1ENR;
    GPIOC->MODER &= ~(3u << (13 * 2));
    GPIOC->PUPDR = (GPIOC->PUPDR & ~(3u << (13 * 2))) | (GPIO_PUPD_PULLUP << (13 * 2));
}

int button_pressed(void)
{
    return (GPIOC->IDR & (1u << 13)) ? 0 : 1;
}
