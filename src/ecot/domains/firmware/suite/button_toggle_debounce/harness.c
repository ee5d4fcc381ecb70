/* Harness for button_toggle_debounce: a bouncy input sampled once per poll. */
extern void app_init(void);
extern void app_poll(void);
extern uint32_t app_presses(void);

void harness_main(void)
{
    static const char samples[] = "00010111000001111101010000111001000110001111100001100";
    ecot_preset(&GPIOA->MODER, 0xA8000C01u); /* PA0 left as an output, PA5 analog and high */
    ecot_preset(&GPIOA->ODR, 0x00000020u);
    app_init();
    for (uint32_t i = 0; samples[i] != '\0'; i++) {
        ecot_input(GPIOA, 0, samples[i] == '1');
        app_poll();
    }
    ecot_result_int("presses", (int32_t)app_presses());
    ecot_result_int("led", (int32_t)((ecot_reg(&GPIOA->IDR) >> 5) & 1u));
}
