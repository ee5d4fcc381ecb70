/* Harness for crc16_ccitt: standard check value and a few more buffers. */
#include <stddef.h>
extern uint16_t crc16_ccitt(const uint8_t *data, size_t len);

void harness_main(void)
{
    static uint8_t seq[64];
    static const uint8_t ones[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t zero[1] = {0x00};

    for (uint32_t i = 0; i < 64u; i++)
        seq[i] = (uint8_t)i;
    ecot_result_hex("check", crc16_ccitt((const uint8_t *)"123456789", 9u));
    ecot_result_hex("empty", crc16_ccitt(seq, 0u));
    ecot_result_hex("zero", crc16_ccitt(zero, 1u));
    ecot_result_hex("ones", crc16_ccitt(ones, 4u));
    ecot_result_hex("seq64", crc16_ccitt(seq, 64u));
    ecot_result_hex("text", crc16_ccitt((const uint8_t *)"STM32F405 firmware", 18u));

}
