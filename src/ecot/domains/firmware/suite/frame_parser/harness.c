/* Harness for frame_parser: noise, good frames, a bad checksum, bad lengths. */
extern int frame_feed(uint8_t byte);
extern int frame_payload(uint8_t *out);

void harness_main(void)
{
    static const uint8_t stream[] = {0x00, 0x13, 0x37, 0x7E, 0x03, 0x01, 0x02, 0x03, 0x03, 0xAA, 0x7E, 0x02, 0x7E, 0x10, 0x39, 0x7E, 0x00, 0x7E, 0x10, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x09, 0x10, 0x7E, 0x11, 0x01, 0x02, 0x7E, 0x04, 0x41, 0x42, 0x43, 0x7E, 0x3A};
    static const char *at[8] = {"e1_at", "e2_at", "e3_at", "e4_at", "e5_at", "e6_at", "e7_at", "e8_at"};
    static const char *code[8] = {"e1_code", "e2_code", "e3_code", "e4_code", "e5_code", "e6_code", "e7_code", "e8_code"};
    static const char *lens[8] = {"e1_len", "e2_len", "e3_len", "e4_len", "e5_len", "e6_len", "e7_len", "e8_len"};
    static const char *sums[8] = {"e1_sum", "e2_sum", "e3_sum", "e4_sum", "e5_sum", "e6_sum", "e7_sum", "e8_sum"};
    uint32_t events = 0;
    for (uint32_t i = 0; i < sizeof(stream) && events < 8u; i++) {
        int r = frame_feed(stream[i]);
        if (r == 0)
            continue;
        ecot_result_int(at[events], (int32_t)i);
        ecot_result_int(code[events], r);
        if (r == 1) {
            uint8_t out[16];
            int n = frame_payload(out), sum = 0;
            for (int k = 0; k < n && k < 16; k++)
                sum += out[k];
            ecot_result_int(lens[events], n);
            ecot_result_int(sums[events], sum);
        }
        events++;
    }
    ecot_result_int("events", (int32_t)events);
}
