/* Harness for vending_fsm: coins, vends, rejects and refunds. */
extern void vm_reset(void);
extern int vm_coin(int cents);
extern int vm_change(void);
extern int vm_vended(void);
extern int vm_cancel(void);

void harness_main(void)
{
    /* op: 'c' coin, 'g' change, 'v' vended, 'x' cancel */
    static const char ops[21] = {'c', 'c', 'c', 'c', 'g', 'c', 'c', 'g', 'c', 'c', 'c', 'x', 'c', 'c', 'g', 'c',
                                 'c', 'c', 'g', 'v', 'x'};
    static const int args[21] = {10, 10, 10, 5, 0, 25, 25, 0, 1, 50, 5, 0, 25, 10, 0, 10, 25, 25, 0, 0, 0};
    static const char *keys[21] = {"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12",
                                   "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21"};
    vm_reset();
    for (uint32_t i = 0; i < 21u; i++) {
        int r = ops[i] == 'c' ? vm_coin(args[i]) : ops[i] == 'g' ? vm_change() : ops[i] == 'v' ? vm_vended() : vm_cancel();
        ecot_result_int(keys[i], r);
    }
}
