#include "samplelog.h"

static uint16_t samples[LOG_DEPTH];
static uint32_t next, stored;

void log_reset(void)
{
    next = 0u;
    stored = 0u;
}

void log_push(uint16_t sample)
{
    samples[next] = sample;
    next = (next + 1u) % LOG_DEPTH;
    if (stored < LOG_DEPTH)
        stored++;
}

uint32_t log_snapshot(uint16_t *out)
{
    uint32_t start = (next + LOG_DEPTH - stored) % LOG_DEPTH;
    for (uint32_t i = 0; i < stored; i++)
        out[i] = samples[(start + i) % LOG_DEPTH];
    return stored;
}
