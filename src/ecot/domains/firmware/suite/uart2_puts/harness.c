/* Harness for uart2_puts: what USART2 transmits is judged. */
extern void uart2_init(void);
extern void uart_putc(char c);
extern void uart_puts(const char *s);

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);  /* PA2/PA3 left in analog mode with AF8 */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);
    uart2_init();
    uart_puts("Hello, STM32!\r\n");
    uart_putc('>');
    uart_puts("ok\r\n");
}
