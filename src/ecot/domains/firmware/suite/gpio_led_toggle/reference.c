#include "stm32f4.h"

void led_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
    (void)RCC->AHB1ENR; /* read back: the clock is running before GPIOA is touched */

    GPIOA->MODER = (GPIOA->MODER & ~(3u << (5 * 2))) | (GPIO_MODE_OUTPUT << (5 * 2));
    GPIOA->OTYPER &= ~(1u << 5);
    GPIOA->OSPEEDR &= ~(3u << (5 * 2));
    GPIOA->PUPDR &= ~(3u << (5 * 2));
    GPIOA->BSRR = GPIO_BSRR_BR(5);
}

void led_toggle(void)
{
    if (GPIOA->ODR & (1u << 5))
        GPIOA->BSRR = GPIO_BSRR_BR(5);
    else
        GPIOA->BSRR = GPIO_BSRR_BS(5);
}
