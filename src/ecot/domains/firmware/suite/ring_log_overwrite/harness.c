/* Harness for ring_log_overwrite: snapshots empty, partly filled, and after wrapping. */
#include "samplelog.h"

static void snapshot(const char *n_key, const char *sum_key, const char *first_key)
{
    uint16_t out[LOG_DEPTH + 4u];
    uint32_t sum = 0, n;
    for (uint32_t i = 0; i < LOG_DEPTH + 4u; i++)
        out[i] = 0xFFFFu;
    n = log_snapshot(out);
    for (uint32_t i = 0; i < n && i < LOG_DEPTH; i++)
        sum += (i + 1u) * out[i];
    ecot_result_int(n_key, (int32_t)n);
    ecot_result_int(sum_key, (int32_t)sum);
    ecot_result_int(first_key, n ? (int32_t)out[0] : -1);
}

void harness_main(void)
{
    log_reset();
    snapshot("empty_n", "empty_sum", "empty_first");
    for (uint16_t v = 100; v < 105u; v++)
        log_push(v);
    snapshot("five_n", "five_sum", "five_first");
    for (uint16_t v = 200; v < 213u; v++)
        log_push(v);
    snapshot("wrapped_n", "wrapped_sum", "wrapped_first");
}
