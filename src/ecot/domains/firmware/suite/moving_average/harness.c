/* Harness for moving_average: ramps, full scale, zeros. */
#include "movavg.h"

void harness_main(void)
{
    static const uint16_t samples[24] = {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 4095, 4095, 4095,
                                         4095, 0, 0, 0, 0, 0, 0, 7, 65535, 65535, 65535};
    static const char *keys[24] = {"avg0", "avg1", "avg2", "avg3", "avg4", "avg5", "avg6", "avg7", "avg8", "avg9",
                                   "avg10", "avg11", "avg12", "avg13", "avg14", "avg15", "avg16", "avg17", "avg18",
                                   "avg19", "avg20", "avg21", "avg22", "avg23"};
    static movavg_t m;
    ma_init(&m);
    for (uint32_t i = 0; i < 24u; i++)
        ecot_result_int(keys[i], ma_push(&m, samples[i]));
}
