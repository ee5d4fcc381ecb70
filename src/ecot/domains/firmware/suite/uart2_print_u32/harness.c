/* Harness for uart2_print_u32: the numbers USART2 transmits are judged. */
extern void uart2_init(void);
extern void uart_print_u32(uint32_t v);

void harness_main(void)
{
    static const uint32_t values[6] = {0u, 7u, 42u, 65535u, 1000000u, 4294967295u};
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);  /* PA2/PA3 left in analog mode with AF8 */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);
    uart2_init();
    for (uint32_t i = 0; i < 6u; i++)
        uart_print_u32(values[i]);
}
