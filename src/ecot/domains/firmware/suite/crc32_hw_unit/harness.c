/* Harness for crc32_hw_unit: five word sequences. */
#include <stddef.h>
extern uint32_t crc_hw(const uint32_t *words, size_t n);

void harness_main(void)
{
    static const uint32_t a[1] = {0x12345678u};
    static const uint32_t b[1] = {0x00000000u};
    static const uint32_t c[2] = {0xFFFFFFFFu, 0x00000000u};
    static const uint32_t d[3] = {0x31323334u, 0x35363738u, 0x39000000u};
    static uint32_t e[16];
    for (uint32_t i = 0; i < 16u; i++)
        e[i] = i * 0x01010101u;
    ecot_result_hex("a", crc_hw(a, 1u));
    ecot_result_hex("b", crc_hw(b, 1u));
    ecot_result_hex("c", crc_hw(c, 2u));
    ecot_result_hex("d", crc_hw(d, 3u));
    ecot_result_hex("e", crc_hw(e, 16u));
    ecot_result_hex("again_a", crc_hw(a, 1u));
}
