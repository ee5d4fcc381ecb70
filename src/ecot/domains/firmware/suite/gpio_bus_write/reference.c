#include "stm32f4.h"

void bus_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOBEN;
    (void)RCC->AHB1ENR;
    GPIOB->MODER = (GPIOB->MODER & ~0x0000FFFFu) | 0x00005555u;
    GPIOB->OTYPER &= ~0x00FFu;
}

void bus_write(uint8_t value)
{
    GPIOB->BSRR = ((uint32_t)(uint8_t)~value << 16) | value;
}
