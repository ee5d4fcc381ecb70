#include "stm32f4.h"

typedef enum { GREEN, YELLOW, RED, RED_YELLOW } phase_t;

static const uint8_t durations[4] = {3, 1, 3, 1};
static const uint8_t lamps[4] = {0x1, 0x2, 0x4, 0x6}; /* bit 0 = PD12 green, 1 = PD13 yellow, 2 = PD14 red */
static phase_t phase;
static uint8_t elapsed;

static void show(phase_t p)
{
    uint32_t on = (uint32_t)lamps[p] << 12, off = (~(uint32_t)lamps[p] & 0x7u) << 12;
    GPIOD->BSRR = on | (off << 16);
}

void tl_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIODEN;
    (void)RCC->AHB1ENR;
    GPIOD->MODER = (GPIOD->MODER & ~(0x3Fu << 24)) | (0x15u << 24);
    phase = GREEN;
    elapsed = 0;
    show(phase);
}

void tl_tick(void)
{
    if (++elapsed >= durations[phase]) {
        phase = (phase_t)((phase + 1) % 4);
        elapsed = 0;
        show(phase);
    }
}
