/* Harness for tim2_update_irq: wait for five updates, stop the timer, inspect it. */
extern void tim2_init(void);
extern volatile uint32_t g_tim2_ticks;

void harness_main(void)
{
    tim2_init();
    for (uint32_t i = 0; i < 400000u && g_tim2_ticks < 5u; i++) {
    }
    TIM2->CR1 &= ~TIM_CR1_CEN;
    ecot_result_int("five_ticks", g_tim2_ticks >= 5u);
    ecot_readback("TIM2_PSC", &TIM2->PSC);
    ecot_readback("TIM2_ARR", &TIM2->ARR);
    ecot_readback_bits("TIM2_DIER", &TIM2->DIER, TIM_DIER_UIE);
    ecot_readback_bits("TIM2_SR_UIF", &TIM2->SR, TIM_SR_UIF);
    ecot_readback_bits("NVIC_ISER0_TIM2", &NVIC->ISER[0], 1u << 28);
}
