/* Harness for uart2_getline: bytes arrive on USART2 RX after init; four lines read back. */
extern void uart2_init(void);
extern int uart_getline(char *buf, int max);

void harness_main(void)
{
    static const char input[] = "hello\r\nworld 42\nthis line is far too long for the buffer\nend\n";
    static const char *keys[4] = {"line1", "line2", "line3", "line4"};
    static const char *lens[4] = {"len1", "len2", "len3", "len4"};
    char buf[16];
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);  /* PA2/PA3 left in analog mode with AF8 */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);
    uart2_init();
    ecot_uart_rx(USART2, input, sizeof(input) - 1u);
    for (uint32_t i = 0; i < 4u; i++) {
        int n = uart_getline(buf, (int)sizeof(buf));
        ecot_result_str(keys[i], buf, sizeof(buf));
        ecot_result_int(lens[i], n);
    }
}
