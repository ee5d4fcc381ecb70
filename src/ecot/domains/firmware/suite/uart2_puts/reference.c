#include "stm32f4.h"

void uart2_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
    RCC->APB1ENR |= RCC_APB1ENR_USART2EN;
    (void)RCC->APB1ENR;

    GPIOA->MODER = (GPIOA->MODER & ~(0xFu << 4)) | (GPIO_MODE_AF << 4) | (GPIO_MODE_AF << 6);
    GPIOA->AFR[0] = (GPIOA->AFR[0] & ~(0xFFu << 8)) | (7u << 8) | (7u << 12);

    USART2->CR1 = 0;
    USART2->BRR = 0x16D; /* 42 MHz / 115200 */
    USART2->CR2 = 0;
    USART2->CR3 = 0;
    USART2->CR1 = USART_CR1_TE | USART_CR1_RE | USART_CR1_UE;
}

void uart_putc(char c)
{
    while (!(USART2->SR & USART_SR_TXE)) {
    }
    USART2->DR = (uint8_t)c;
}

void uart_puts(const char *s)
{
    while (*s != '\0')
        uart_putc(*s++);
}
