/* Harness for uart2_init: USART2 registers read back, GPIO and RCC from the trace. */
extern void uart2_init(void);

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);  /* PA2/PA3 left in analog mode with AF8 */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);
    uart2_init();
    ecot_readback("USART2_BRR", &USART2->BRR);
    ecot_readback_bits("USART2_CR1", &USART2->CR1, 0x0000BFFFu);
    ecot_readback_bits("USART2_CR2_STOP", &USART2->CR2, USART_CR2_STOP);
}
