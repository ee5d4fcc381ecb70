/* Harness for gpio_led_init: PA5 starts as a bootloader left it (analog, open-drain, fast, pull-down, high). */
extern void led_init(void);

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA8000C00u);
    ecot_preset(&GPIOA->OTYPER, 0x00000020u);
    ecot_preset(&GPIOA->OSPEEDR, 0x0C000C00u);
    ecot_preset(&GPIOA->PUPDR, 0x64000800u);
    ecot_preset(&GPIOA->ODR, 0x00000020u);
    led_init();
    ecot_result_int("pa5_level", (int32_t)((ecot_reg(&GPIOA->IDR) >> 5) & 1u));
}
