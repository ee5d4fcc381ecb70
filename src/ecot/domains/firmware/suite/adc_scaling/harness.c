/* Harness for adc_scaling. */
extern uint32_t adc_to_mv(uint16_t raw);
extern uint16_t mv_to_dac(uint32_t mv);

void harness_main(void)
{
    static const uint16_t raw[10] = {0, 1, 2, 620, 1241, 2047, 2048, 4094, 4095, 5000};
    static const uint32_t mv[7] = {0, 1, 2, 1650, 3300, 3301, 4000};
    static const char *rk[10] = {"mv0", "mv1", "mv2", "mv3", "mv4", "mv5", "mv6", "mv7", "mv8", "mv9"};
    static const char *dk[7] = {"dac0", "dac1", "dac2", "dac3", "dac4", "dac5", "dac6"};
    for (uint32_t i = 0; i < 10u; i++)
        ecot_result_int(rk[i], (int32_t)adc_to_mv(raw[i]));
    for (uint32_t i = 0; i < 7u; i++)
        ecot_result_int(dk[i], mv_to_dac(mv[i]));
}
