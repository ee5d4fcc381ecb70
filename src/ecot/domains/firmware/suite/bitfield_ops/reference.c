#include <stdint.h>

static uint32_t field_mask(unsigned width)
{
    return width >= 32u ? 0xFFFFFFFFu : ((1u << width) - 1u);
}

uint32_t field_set(uint32_t reg, unsigned pos, unsigned width, uint32_t value)
{
    uint32_t mask = field_mask(width) << pos;
    return (reg & ~mask) | ((value << pos) & mask);
}

uint32_t field_get(uint32_t reg, unsigned pos, unsigned width)
{
    return (reg >> pos) & field_mask(width);
}
