/* Harness for fir_q15: an 8-tap low-pass over steps, extremes and small values. */
extern void fir_q15(const int16_t *x, int16_t *y, uint32_t n, const int16_t *h, uint32_t taps);

void harness_main(void)
{
    static const int16_t h[8] = {1638, 3277, 4915, 6554, 6554, 4915, 3277, 1638};
    static const int16_t x[24] = {12000, 32767, 32767, 32767, -32768, -32768, 0, 1000, -1000, 16384, 16384, 16384,
                                  16384, -5, 5, 0, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767};
    static const char *keys[24] = {"y0", "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10", "y11",
                                   "y12", "y13", "y14", "y15", "y16", "y17", "y18", "y19", "y20", "y21", "y22", "y23"};
    static int16_t y[24];
    fir_q15(x, y, 24u, h, 8u);
    for (uint32_t k = 0; k < 24u; k++)
        ecot_result_int(keys[k], y[k]);
}
