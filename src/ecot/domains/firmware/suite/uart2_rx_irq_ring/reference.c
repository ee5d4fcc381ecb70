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

#define RX_SIZE 32u

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint32_t rx_head, rx_tail; /* free-running: head - tail = bytes buffered */

void uart2_rx_irq_init(void)
{
    uart2_init();
    USART2->CR1 |= USART_CR1_RXNEIE;
    NVIC_EnableIRQ(USART2_IRQn);
}

void USART2_IRQHandler(void)
{
    while (USART2->SR & USART_SR_RXNE) {
        uint8_t c = (uint8_t)USART2->DR;
        if (rx_head - rx_tail < RX_SIZE) {
            rx_buf[rx_head % RX_SIZE] = c;
            rx_head++;
        }
    }
}

int uart_read_byte(void)
{
    int c;
    if (rx_head == rx_tail)
        return -1;
    c = rx_buf[rx_tail % RX_SIZE];
    rx_tail++;
    return c;
}
