#include <stdint.h>

uint16_t isqrt_u32(uint32_t x)
{
    uint32_t root = 0, bit = 1u << 30;
    while (bit > x)
        bit >>= 2;
    while (bit != 0u) {
        if (x >= root + bit) {
            x -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return (uint16_t)root;
}
