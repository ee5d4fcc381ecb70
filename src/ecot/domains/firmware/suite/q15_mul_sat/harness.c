/* Harness for q15_mul_sat. */
extern int16_t q15_mul(int16_t a, int16_t b);
extern int16_t q15_add(int16_t a, int16_t b);

void harness_main(void)
{
    static const int16_t mul[10][2] = {{16384, 16384}, {-16384, 16384}, {32767, 32767}, {-32768, -32768},
                                       {-32768, 32767}, {1, 1}, {-1, 1}, {12345, -23456}, {0, -32768}, {3, 16384}};
    static const int16_t add[6][2] = {{30000, 10000}, {-30000, -10000}, {100, -200}, {32767, 1}, {-32768, -1},
                                      {-32768, 32767}};
    static const char *mk[10] = {"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"};
    static const char *ak[6] = {"a1", "a2", "a3", "a4", "a5", "a6"};
    for (uint32_t i = 0; i < 10u; i++)
        ecot_result_int(mk[i], q15_mul(mul[i][0], mul[i][1]));
    for (uint32_t i = 0; i < 6u; i++)
        ecot_result_int(ak[i], q15_add(add[i][0], add[i][1]));
}
