#include "stm32f4.h"

#define IWDG_KR  (*(volatile uint32_t *)0x40003000u)
#define IWDG_PR  (*(volatile uint32_t *)0x40003004u)
#define IWDG_RLR (*(volatile uint32_t *)0x40003008u)

void iwdg_start(void)
{
    IWDG_KR = 0x5555u;
    IWDG_PR = 4u;
    IWDG_RLR = 500u;
    IWDG_KR = 0xCCCCu;
}

void iwdg_feed(void)
{
    IWDG_KR = 0xAAAAu;
}
