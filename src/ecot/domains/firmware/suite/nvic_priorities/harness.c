/* Harness for nvic_priorities: the NVIC and SCB priority registers read back. */
extern void irq_setup(void);

void harness_main(void)
{
    irq_setup();
    ecot_readback_bits("NVIC_IPR_EXTI0", &NVIC->IP[4], 0x00FF0000u);   /* IRQ 6 */
    ecot_readback_bits("NVIC_IPR_TIM2", &NVIC->IP[28], 0x000000FFu);   /* IRQ 28 */
    ecot_readback_bits("NVIC_IPR_USART2", &NVIC->IP[36], 0x00FF0000u); /* IRQ 38 */
    ecot_readback_bits("SCB_SHPR3_SYSTICK", &SCB->SHP[8], 0xFF000000u);
    ecot_readback("NVIC_ISER0", &NVIC->ISER[0]);
    ecot_readback_bits("NVIC_ISER1", &NVIC->ISER[1], ~(1u << (50 - 32))); /* TIM5 is the harness's */
}
