/* Harness for uart_cmd_parser: each line's code and argument. */
extern int parse_cmd(const char *line, int *arg);

void harness_main(void)
{
    static const char *lines[12] = {"LED ON", "LED OFF", "SET 42", "SET 0", "GET", "SET", "SET 12x",
                                    "LED BLINK", "", "SET 65535", "SET 65536", "get"};
    static const char *codes[12] = {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12"};
    static const char *args[12] = {"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12"};
    for (uint32_t i = 0; i < 12u; i++) {
        int arg = -7;
        ecot_result_int(codes[i], parse_cmd(lines[i], &arg));
        ecot_result_int(args[i], arg);
    }
}
