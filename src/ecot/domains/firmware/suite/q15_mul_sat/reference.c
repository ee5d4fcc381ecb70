#include <stdint.h>

static int16_t sat16(int32_t v)
{
    if (v > 32767)
        return 32767;
    if (v < -32768)
        return -32768;
    return (int16_t)v;
}

int16_t q15_mul(int16_t a, int16_t b)
{
    int32_t p = (int32_t)a * (int32_t)b;
    return sat16((p + 0x4000) >> 15);
}

int16_t q15_add(int16_t a, int16_t b)
{
    return sat16((int32_t)a + (int32_t)b);
}
