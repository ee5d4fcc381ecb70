/* Harness for traffic_light_fsm: sixteen ticks, the lamps after each. */
extern void tl_init(void);
extern void tl_tick(void);

void harness_main(void)
{
    static const char *keys[17] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11",
                                   "t12", "t13", "t14", "t15", "t16"};
    ecot_preset(&GPIOD->MODER, 0x2A000000u); /* PD12-PD14 left in alternate function mode */
    tl_init();
    ecot_result_int(keys[0], (int32_t)((ecot_reg(&GPIOD->ODR) >> 12) & 7u));
    for (uint32_t i = 1; i <= 16u; i++) {
        tl_tick();
        ecot_result_int(keys[i], (int32_t)((ecot_reg(&GPIOD->ODR) >> 12) & 7u));
    }
}
