#include <stdint.h>

void fir_q15(const int16_t *x, int16_t *y, uint32_t n, const int16_t *h, uint32_t taps)
{
    for (uint32_t k = 0; k < n; k++) {
        int64_t acc = 0;
        for (uint32_t i = 0; i < taps && i <= k; i++)
            acc += (int32_t)h[i] * (int32_t)x[k - i];
        acc = (acc + 0x4000) >> 15;
        if (acc > 32767)
            acc = 32767;
        if (acc < -32768)
            acc = -32768;
        y[k] = (int16_t)acc;
    }
}
