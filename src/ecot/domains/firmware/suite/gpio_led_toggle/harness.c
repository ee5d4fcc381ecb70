/* Harness for gpio_led_toggle: six toggles, the pin level after each. */
extern void led_init(void);
extern void led_toggle(void);

void harness_main(void)
{
    static const char *keys[6] = {"level1", "level2", "level3", "level4", "level5", "level6"};
    ecot_preset(&GPIOA->MODER, 0xA8000C00u);   /* PA5 left in analog mode, fast, pulled down, high */
    ecot_preset(&GPIOA->OSPEEDR, 0x0C000C00u);
    ecot_preset(&GPIOA->PUPDR, 0x64000800u);
    ecot_preset(&GPIOA->ODR, 0x00000020u);
    led_init();
    for (uint32_t i = 0; i < 6u; i++) {
        led_toggle();
        ecot_result_int(keys[i], (int32_t)((ecot_reg(&GPIOA->IDR) >> 5) & 1u));
    }
}
