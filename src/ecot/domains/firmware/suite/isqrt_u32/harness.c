/* Harness for isqrt_u32. */
extern uint16_t isqrt_u32(uint32_t x);

void harness_main(void)
{
    static const uint32_t xs[16] = {0u, 1u, 2u, 3u, 4u, 15u, 16u, 17u, 99u, 100u, 65535u, 65536u, 1000000u,
                                    4294836225u, 4294836224u, 4294967295u};
    static const char *keys[16] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11",
                                   "r12", "r13", "r14", "r15"};
    for (uint32_t i = 0; i < 16u; i++)
        ecot_result_int(keys[i], isqrt_u32(xs[i]));
}
