/* Harness for rcc_clock_enables: the register trace is what gets judged. */
extern void clocks_enable(void);

void harness_main(void)
{
    clocks_enable();
}
