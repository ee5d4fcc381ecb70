/* Harness for bitfield_ops. */
extern uint32_t field_set(uint32_t reg, unsigned pos, unsigned width, uint32_t value);
extern uint32_t field_get(uint32_t reg, unsigned pos, unsigned width);

void harness_main(void)
{
    static const uint32_t cases[7][4] = {
        {0xA8000000u, 10u, 2u, 1u}, {0xFFFFFFFFu, 4u, 4u, 0u}, {0x00000000u, 28u, 4u, 0xFu},
        {0x12345678u, 0u, 32u, 0xCAFEBABEu}, {0x12345678u, 31u, 1u, 1u}, {0x0000FFFFu, 8u, 8u, 0x1FFu},
        {0xDEADBEEFu, 0u, 1u, 0u}};
    static const char *sets[7] = {"set1", "set2", "set3", "set4", "set5", "set6", "set7"};
    static const char *gets[7] = {"get1", "get2", "get3", "get4", "get5", "get6", "get7"};
    for (uint32_t i = 0; i < 7u; i++) {
        ecot_result_hex(sets[i], field_set(cases[i][0], cases[i][1], cases[i][2], cases[i][3]));
        ecot_result_hex(gets[i], field_get(cases[i][0], cases[i][1], cases[i][2]));
    }
}
