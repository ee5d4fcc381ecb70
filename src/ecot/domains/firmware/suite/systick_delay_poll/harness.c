/* Harness for systick_delay_poll: three delays measured in simulated time. */
extern void delay_us(uint32_t us);

void harness_main(void)
{
    static const uint32_t delays[3] = {100u, 2500u, 8000u};
    static const char *keys[3] = {"delay100", "delay2500", "delay8000"};
    for (uint32_t i = 0; i < 3u; i++) {
        uint32_t t0 = ecot_micros(), dt;
        delay_us(delays[i]);
        dt = ecot_micros() - t0;
        ecot_result_int(keys[i], dt >= delays[i] && dt <= delays[i] + delays[i] / 20u + 20u);
    }
    ecot_readback_bits("SysTick_CTRL", &SysTick->CTRL, 0x7u);
}
