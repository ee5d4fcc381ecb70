/* Harness for iir_lowpass_q15: steps up and down with two smoothing factors. */
#include "lowpass.h"

void harness_main(void)
{
    static const int16_t x[24] = {32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
                                  -32768, -32768, -32768, -32768, -32768, -32768, 0, 0, 0, 0, 1234, -1234, 5, -5};
    static const char *fast[24] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
                                   "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23"};
    static const char *slow[4] = {"s0", "s9", "s15", "s23"};
    static lowpass_t f, s;
    int16_t out = 0;
    lpf_init(&f, 16384);
    lpf_init(&s, 3277);
    for (uint32_t i = 0; i < 24u; i++)
        ecot_result_int(fast[i], lpf_step(&f, x[i]));
    for (uint32_t i = 0; i < 24u; i++) {
        out = lpf_step(&s, x[i]);
        if (i == 0u || i == 9u || i == 15u || i == 23u)
            ecot_result_int(slow[i == 0u ? 0 : i == 9u ? 1 : i == 15u ? 2 : 3], out);
    }
}
