/* Harness for crc8_maxim: standard check value and a few more buffers. */
#include <stddef.h>
extern uint8_t crc8_maxim(const uint8_t *data, size_t len);

void harness_main(void)
{
    static uint8_t seq[64];
    static const uint8_t ones[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t zero[1] = {0x00};
    static const uint8_t rom[7] = {0x02, 0x1C, 0xB8, 0x01, 0x00, 0x00, 0x00};
    for (uint32_t i = 0; i < 64u; i++)
        seq[i] = (uint8_t)i;
    ecot_result_hex("check", crc8_maxim((const uint8_t *)"123456789", 9u));
    ecot_result_hex("empty", crc8_maxim(seq, 0u));
    ecot_result_hex("zero", crc8_maxim(zero, 1u));
    ecot_result_hex("ones", crc8_maxim(ones, 4u));
    ecot_result_hex("seq64", crc8_maxim(seq, 64u));
    ecot_result_hex("text", crc8_maxim((const uint8_t *)"STM32F405 firmware", 18u));
    ecot_result_hex("rom", crc8_maxim(rom, 7u));
}
