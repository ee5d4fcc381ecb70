/* Harness for ring_buffer_u8: fill past capacity, drain part, refill across the wrap, drain past empty. */
#include "ringbuf.h"

void harness_main(void)
{
    static ringbuf_t rb;
    static const char *keys[46] = {
        "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "r16",
        "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31",
        "r32", "r33", "r34", "r35", "r36", "r37", "r38", "r39", "r40", "r41", "r42", "r43", "r44", "r45", "r46"};
    uint32_t k = 0;
    uint8_t byte;
    rb_init(&rb);
    for (uint32_t i = 1; i <= 17u; i++)
        ecot_result_int(keys[k++], rb_put(&rb, (uint8_t)i));
    for (uint32_t i = 0; i < 5u; i++)
        ecot_result_int(keys[k++], rb_get(&rb, &byte) == 0 ? (int32_t)byte : -1);
    for (uint32_t i = 0; i < 6u; i++)
        ecot_result_int(keys[k++], rb_put(&rb, (uint8_t)(0xA0u + i)));
    for (uint32_t i = 0; i < 18u; i++)
        ecot_result_int(keys[k++], rb_get(&rb, &byte) == 0 ? (int32_t)byte : -1);
    ecot_result_int("count", (int32_t)rb_count(&rb));
}
