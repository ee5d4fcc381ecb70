/* Harness for gpio_bus_write: a few bus values, the output register after each. */
extern void bus_init(void);
extern void bus_write(uint8_t value);

void harness_main(void)
{
    static const uint8_t values[6] = {0xA5, 0x5A, 0xFF, 0x00, 0x81, 0x3C};
    static const char *keys[6] = {"bus1", "bus2", "bus3", "bus4", "bus5", "bus6"};
    ecot_preset(&GPIOB->MODER, 0x0000AAAAu); /* PB0-PB7 left in alternate function mode */
    bus_init();
    for (uint32_t i = 0; i < 6u; i++) {
        bus_write(values[i]);
        ecot_result_hex(keys[i], ecot_reg(&GPIOB->ODR) & 0xFFFFu);
    }
}
