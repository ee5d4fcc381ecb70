/* Harness for exti_button_irq: three presses (rising edges) and their releases. */
extern void button_irq_init(void);
extern volatile uint32_t g_presses;

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA8000003u); /* PA0 left in analog mode with a pull-up */
    ecot_preset(&GPIOA->PUPDR, 0x64000001u);
    button_irq_init();
    ecot_result_int("idle", (int32_t)g_presses);
    for (uint32_t i = 0; i < 3u; i++) {
        ecot_input(GPIOA, 0, 1);
        ecot_spin(50u);
        ecot_input(GPIOA, 0, 0);
        ecot_spin(50u);
    }
    ecot_result_int("presses", (int32_t)g_presses);
    ecot_readback_bits("SYSCFG_EXTICR1", &SYSCFG->EXTICR[0], 0xFu);
    ecot_readback_bits("EXTI_IMR", &EXTI->IMR, 1u);
    ecot_readback_bits("EXTI_RTSR", &EXTI->RTSR, 1u);
    ecot_readback_bits("EXTI_FTSR", &EXTI->FTSR, 1u);
    ecot_readback_bits("EXTI_PR", &EXTI->PR, 1u);
}
