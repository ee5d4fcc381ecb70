/* ecot_harness.h - what a task's harness.c can call (written for ecot).
 *
 * The backend force-includes this header when it compiles a harness, and compiles the runtime with
 * the same ECOT_PREFIX: every name below becomes ECOT_PREFIX_<name>, a prefix drawn at random per
 * process, so a candidate (compiled separately, without this header) cannot call the reporting
 * functions or the harness entry point.
 */
#ifndef ECOT_HARNESS_H
#define ECOT_HARNESS_H

#include <stdint.h>
#include "stm32f4.h"

#ifndef ECOT_PREFIX
#error "harness code is built by the ecot backend, which sets ECOT_PREFIX"
#endif
#define ECOT_JOIN2(a, b) a##_##b
#define ECOT_JOIN(a, b) ECOT_JOIN2(a, b)
#define ECOT_API(name) ECOT_JOIN(ECOT_PREFIX, name)

#define harness_main ECOT_API(harness_main)
#define ecot_result_hex ECOT_API(result_hex)
#define ecot_result_int ECOT_API(result_int)
#define ecot_result_str ECOT_API(result_str)
#define ecot_readback ECOT_API(readback)
#define ecot_readback_bits ECOT_API(readback_bits)
#define ecot_reg ECOT_API(reg)
#define ecot_input ECOT_API(input)
#define ecot_uart_rx ECOT_API(uart_rx)
#define ecot_micros ECOT_API(micros)
#define ecot_spin ECOT_API(spin)
#define ecot_preset ECOT_API(preset)

/* The task's test: called once, on the thread stack, with interrupts enabled. */
void harness_main(void);

/* Result lines "key=value", compared in order with expect.toml's `results` (Output_Mismatch). */
void ecot_result_hex(const char *key, uint32_t value);
void ecot_result_int(const char *key, int32_t value);
void ecot_result_str(const char *key, const char *text, uint32_t max);

/* Register readbacks "NAME=0x...", compared with expect.toml's `readback` (Register_Mismatch). */
void ecot_readback(const char *name, volatile const void *reg);
void ecot_readback_bits(const char *name, volatile const void *reg, uint32_t mask);

/* A register's value as the program would read it (emulated or real), without a trace entry. */
uint32_t ecot_reg(volatile const void *reg);

/* Start an emulated register (RCC, GPIO, CRC, FLASH, SYSCFG, EXTI) at a value other than its reset
 * value, as a bootloader or earlier code would leave it; the host's replay of the trace starts there
 * too. Call it before the code under test touches that register. */
void ecot_preset(volatile void *reg, uint32_t value);

/* Simulated inputs: a pin level (edges reach EXTI), bytes on a USART's RX line. */
void ecot_input(GPIO_TypeDef *port, uint32_t pin, uint32_t level);
void ecot_uart_rx(USART_TypeDef *usart, const char *data, uint32_t n);

/* Simulated time since reset in microseconds, and a busy loop of n iterations. */
uint32_t ecot_micros(void);
void ecot_spin(uint32_t n);

#endif /* ECOT_HARNESS_H */
