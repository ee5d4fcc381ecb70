/* Harness for tim3_pwm: TIM3 read back, GPIO and RCC from the trace. */
extern void pwm_init(void);

void harness_main(void)
{
    ecot_preset(&GPIOA->MODER, 0xA8003000u);  /* PA6 left in analog mode with AF9 */
    ecot_preset(&GPIOA->AFR[0], 0x09000000u);
    pwm_init();
    ecot_readback("TIM3_PSC", &TIM3->PSC);
    ecot_readback("TIM3_ARR", &TIM3->ARR);
    ecot_readback("TIM3_CCR1", &TIM3->CCR1);
    ecot_readback_bits("TIM3_CCMR1", &TIM3->CCMR1, 0xFFu);
    ecot_readback_bits("TIM3_CCER", &TIM3->CCER, 0xFu);
    ecot_readback_bits("TIM3_CR1", &TIM3->CR1, 0x9Fu);
}
