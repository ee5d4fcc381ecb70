/* Harness for uart2_rx_irq_ring: bytes arrive while the program waits; everything must come out. */
extern void uart2_rx_irq_init(void);
extern int uart_read_byte(void);

void harness_main(void)
{
    static const char input[] = "ecot:rx\n0123456789abcdefghijklmnopqrstuvw";
    char got[48];
    uint32_t n = 0;
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);  /* PA2/PA3 left in analog mode with AF8 */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);
    uart2_rx_irq_init();
    ecot_result_int("empty", uart_read_byte());
    ecot_uart_rx(USART2, input, sizeof(input) - 1u);
    ecot_spin(4000u);
    for (int c = uart_read_byte(); c >= 0 && n < sizeof(got) - 1u; c = uart_read_byte())
        got[n++] = (char)c;
    got[n] = '\0';
    ecot_result_str("received", got, sizeof(got));
    ecot_result_int("count", (int32_t)n);
    ecot_result_int("after", uart_read_byte());
    ecot_readback_bits("USART2_CR1_RXNEIE", &USART2->CR1, USART_CR1_RXNEIE);
}
