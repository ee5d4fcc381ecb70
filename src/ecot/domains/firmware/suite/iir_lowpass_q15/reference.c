#include "lowpass.h"

void lpf_init(lowpass_t *f, int16_t alpha)
{
    f->alpha = alpha;
    f->y = 0;
}

int16_t lpf_step(lowpass_t *f, int16_t x)
{
    int32_t diff = (int32_t)x - (int32_t)f->y;
    f->y = (int16_t)((int32_t)f->y + (((int32_t)f->alpha * diff) >> 15));
    return f->y;
}
