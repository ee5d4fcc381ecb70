#include <stdint.h>

uint32_t adc_to_mv(uint16_t raw)
{
    if (raw >= 4095u)
        return 3300u;
    return ((uint32_t)raw * 3300u + 2047u) / 4095u;
}

uint16_t mv_to_dac(uint32_t mv)
{
    if (mv >= 3300u)
        return 4095u;
    return (uint16_t)((mv * 4095u + 1650u) / 3300u);
}
