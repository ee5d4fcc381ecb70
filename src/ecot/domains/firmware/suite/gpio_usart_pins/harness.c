/* Harness for gpio_usart_pins: the register trace is what gets judged. */
extern void usart2_pins_init(void);

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA80000F0u);   /* PA2/PA3 left in analog mode */
    ecot_preset(&GPIOA->AFR[0], 0x00008800u);  /* with AF8 selected */
    ecot_preset(&GPIOA->PUPDR, 0x640000A0u);   /* and pull-downs */
    usart2_pins_init();
}
