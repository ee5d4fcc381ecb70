#include "stm32f4.h"

void usart2_pins_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
    (void)RCC->AHB1ENR;
    GPIOA->MODER = (GPIOA->MODER & ~(0xFu << 4)) | (GPIO_MODE_AF << 4) | (GPIO_MODE_AF << 6);
    GPIOA->OTYPER &= ~(1u << 2);
    GPIOA->OSPEEDR = (GPIOA->OSPEEDR & ~(0xFu << 4)) | (2u << 4) | (2u << 6);
    GPIOA->PUPDR = (GPIOA->PUPDR & ~(0xFu << 4)) | (GPIO_PUPD_PULLUP << 6);
    GPIOA->AFR[0] = (GPIOA->AFR[0] & ~(0xFFu << 8)) | (7u << 8) | (7u << 12);
}
