/* Harness for rcc_pll_168mhz: the trace is judged; SWS must show the PLL at the end. */
extern void system_clock_init(void);

void harness_main(void)
{
    ecot_preset(&RCC->CFGR, 0x00001080u); /* a bootloader left AHB /2 and APB1 /2 */
    system_clock_init();
    ecot_result_int("sws", (int32_t)((ecot_reg(&RCC->CFGR) >> 2) & 3u));
}
