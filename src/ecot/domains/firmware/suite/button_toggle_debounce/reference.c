#include "stm32f4.h"

static uint8_t stable, count;
static uint32_t presses;

void app_init(void)
{
    RCC->AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
    (void)RCC->AHB1ENR;
    GPIOA->MODER = (GPIOA->MODER & ~((3u << 0) | (3u << 10))) | (GPIO_MODE_OUTPUT << 10);
    GPIOA->PUPDR = (GPIOA->PUPDR & ~((3u << 0) | (3u << 10))) | (GPIO_PUPD_PULLDOWN << 0);
    GPIOA->BSRR = GPIO_BSRR_BR(5);
    stable = 0;
    count = 0;
    presses = 0;
}

void app_poll(void)
{
    uint8_t raw = (GPIOA->IDR & 1u) ? 1u : 0u;
    if (raw == stable) {
        count = 0;
        return;
    }
    if (++count < 3u)
        return;
    stable = raw;
    count = 0;
    if (stable) {
        presses++;
        GPIOA->BSRR = (GPIOA->ODR & (1u << 5)) ? GPIO_BSRR_BR(5) : GPIO_BSRR_BS(5);
    }
}

uint32_t app_presses(void)
{
    return presses;
}
