/* Harness for systick_ms_tick: a 5 ms delay measured in simulated time. */
extern void systick_init(void);
extern uint32_t millis(void);
extern void delay_ms(uint32_t ms);

void harness_main(void)
{
    uint32_t t0, dt;
    systick_init();
    t0 = ecot_micros();
    delay_ms(5u);
    dt = ecot_micros() - t0;
    ecot_result_int("millis", (int32_t)millis());
    ecot_result_int("delay_in_range", dt >= 4500u && dt <= 5600u);
    ecot_readback("SysTick_LOAD", &SysTick->LOAD);
    ecot_readback_bits("SysTick_CTRL", &SysTick->CTRL, 0x7u);
}
