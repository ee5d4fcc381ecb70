/* Harness for crc32_ieee: standard check value and a few more buffers. */
#include <stddef.h>
extern uint32_t crc32_ieee(const uint8_t *data, size_t len);

void harness_main(void)
{
    static uint8_t seq[64];
    static const uint8_t ones[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t zero[1] = {0x00};

    for (uint32_t i = 0; i < 64u; i++)
        seq[i] = (uint8_t)i;
    ecot_result_hex("check", crc32_ieee((const uint8_t *)"123456789", 9u));
    ecot_result_hex("empty", crc32_ieee(seq, 0u));
    ecot_result_hex("zero", crc32_ieee(zero, 1u));
    ecot_result_hex("ones", crc32_ieee(ones, 4u));
    ecot_result_hex("seq64", crc32_ieee(seq, 64u));
    ecot_result_hex("text", crc32_ieee((const uint8_t *)"STM32F405 firmware", 18u));

}
