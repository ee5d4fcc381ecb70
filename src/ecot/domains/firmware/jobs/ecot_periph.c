/* ecot_periph.c - the peripheral model behind the MPU trap (written for ecot).
 *
 * QEMU's STM32F405 leaves RCC, GPIO, CRC and the flash interface unimplemented: reads return 0,
 * writes are only logged (-d unimp). Firmware that polls RCC_CR_HSERDY, reads a button on IDR or
 * toggles ODR with ^= would then misbehave although it is correct. So the startup code makes the
 * APB1, APB2 and AHB1 peripheral windows (and the bit-band alias) no-access in the MPU; every
 * candidate access traps into the fault handler, which decodes the load/store, answers it from a
 * shadow model with the reference manual's semantics (reset values, ready flags, BSRR, IDR from
 * simulated inputs, clock gating, the CRC unit, EXTI from pin edges) and also performs the real
 * access, so QEMU's own unimp log keeps a trace the host can trust. Peripherals QEMU does model
 * (USART, TIM2-4, SPI, ADC) get the real access only, after a clock-gating check; TIM5 is the harness's.
 */

enum { K_RESERVED, K_PASS, K_GPIO, K_RCC, K_CRC, K_FLASH, K_SYSCFG, K_EXTI };
enum { EN_NONE, EN_AHB1, EN_APB1, EN_APB2 };
#define F_QEMU 1u   /* QEMU maps the block: the real access is safe */
#define F_TRACED 2u /* QEMU logs accesses to it (-d unimp) */

typedef struct {
    uint32_t base;
    uint8_t kind, enable, bit, flags;
} rt_block;

/* TIM5 (0x40000C00) is K_RESERVED: it is the harness's clock (ecot_micros, USART and oscillator timing)
 * and its watchdog, so a candidate access is refused with a bus fault instead of reaching the timer.
 * The harness's own accesses go through rt_real, which is not the trap. Gating or resetting TIM5
 * through RCC moves nothing: QEMU leaves RCC unimplemented, so its timer keeps counting. */
static const rt_block rt_blocks[] = {
    {0x40000000u, K_PASS, EN_APB1, 0, F_QEMU},   {0x40000400u, K_PASS, EN_APB1, 1, F_QEMU},
    {0x40000800u, K_PASS, EN_APB1, 2, F_QEMU},   {0x40000C00u, K_RESERVED, EN_NONE, 0, 0},
    {0x40001000u, K_PASS, EN_APB1, 4, 3},        {0x40001400u, K_PASS, EN_APB1, 5, 3},
    {0x40001800u, K_PASS, EN_APB1, 6, 3},        {0x40001C00u, K_PASS, EN_APB1, 7, 3},
    {0x40002000u, K_PASS, EN_APB1, 8, 3},        {0x40002800u, K_PASS, EN_NONE, 0, 3},
    {0x40002C00u, K_PASS, EN_APB1, 11, 3},       {0x40003000u, K_PASS, EN_NONE, 0, 3},
    {0x40003400u, K_PASS, EN_NONE, 0, 0},        {0x40003800u, K_PASS, EN_APB1, 14, F_QEMU},
    {0x40003C00u, K_PASS, EN_APB1, 15, F_QEMU},  {0x40004000u, K_PASS, EN_NONE, 0, 3},
    {0x40004400u, K_PASS, EN_APB1, 17, F_QEMU},  {0x40004800u, K_PASS, EN_APB1, 18, F_QEMU},
    {0x40004C00u, K_PASS, EN_APB1, 19, F_QEMU},  {0x40005000u, K_PASS, EN_APB1, 20, F_QEMU},
    {0x40005400u, K_PASS, EN_APB1, 21, 3},       {0x40005800u, K_PASS, EN_APB1, 22, 3},
    {0x40005C00u, K_PASS, EN_APB1, 23, 3},       {0x40006400u, K_PASS, EN_APB1, 25, 3},
    {0x40006800u, K_PASS, EN_APB1, 26, 3},       {0x40007000u, K_PASS, EN_APB1, 28, 3},
    {0x40007400u, K_PASS, EN_APB1, 29, 3},       {0x40010000u, K_PASS, EN_APB2, 0, 3},
    {0x40010400u, K_PASS, EN_APB2, 1, 3},        {0x40011000u, K_PASS, EN_APB2, 4, F_QEMU},
    {0x40011400u, K_PASS, EN_APB2, 5, F_QEMU},   {0x40012000u, K_PASS, EN_APB2, 8, F_QEMU},
    {0x40012C00u, K_PASS, EN_APB2, 11, 3},       {0x40013000u, K_PASS, EN_APB2, 12, F_QEMU},
    {0x40013800u, K_SYSCFG, EN_APB2, 14, 0},     {0x40013C00u, K_EXTI, EN_NONE, 0, 0},
    {0x40014000u, K_PASS, EN_APB2, 16, 3},       {0x40014400u, K_PASS, EN_APB2, 17, 3},
    {0x40014800u, K_PASS, EN_APB2, 18, 3},       {0x40023000u, K_CRC, EN_AHB1, 12, 3},
    {0x40023800u, K_RCC, EN_NONE, 0, 3},         {0x40023C00u, K_FLASH, EN_NONE, 0, 3},
};

/* ---- shadow state ------------------------------------------------------------------------------ */
typedef struct {
    uint32_t moder, otyper, ospeedr, pupdr, odr, lckr, afr[2];
    uint16_t input, driven; /* simulated pin levels, and which pins the harness drives */
} rt_gpio;

static rt_gpio rt_gpios[9];
static uint32_t rt_rcc[34];
static uint32_t rt_crc_dr, rt_crc_idr;
static uint32_t rt_flash[6];
static uint32_t rt_syscfg[9];
static uint32_t rt_exti[6];
static uint32_t rt_gated_once; /* one note per peripheral is enough */
static uint32_t rt_hse_on_at, rt_pll_on_at; /* simulated microsecond each oscillator was switched on */

#define HSE_STARTUP_US 100u /* the real crystal takes ~2 ms; shorter keeps runs fast, still not instant */
#define PLL_LOCK_US 50u

static uint32_t rt_real(uint32_t addr, uint32_t size, uint32_t write, uint32_t value);
static uint32_t rt_now_us(void) { return rt_real(TIM5_BASE + 0x24u, 4u, 0u, 0u); }

static const uint32_t rt_rcc_reset[34] = {
    0x00000083u, 0x24003010u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00100000u, 0, 0, 0, 0, 0, 0, 0,
    0x7E6791FFu, 0x000000F1u, 0x00000001u, 0, 0x36FEC9FFu, 0x00075F33u, 0, 0, 0, 0x0E000000u, 0, 0, 0,
    0x20003000u,
};

static void rt_gpio_reset(uint32_t port) {
    rt_gpio *g = &rt_gpios[port];
    uint16_t input = g->input, driven = g->driven;
    for (uint32_t i = 0; i < sizeof(*g) / 4u; i++) ((uint32_t *)g)[i] = 0u;
    g->input = input;
    g->driven = driven;
    if (port == 0u) {
        g->moder = 0xA8000000u;
        g->ospeedr = 0x0C000000u;
        g->pupdr = 0x64000000u;
    } else if (port == 1u) {
        g->moder = 0x00000280u;
        g->ospeedr = 0x000000C0u;
        g->pupdr = 0x00000100u;
    }
}

static void rt_index_blocks(void);

static void rt_periph_reset(void) {
    rt_index_blocks();
    for (uint32_t p = 0; p < 9u; p++) rt_gpio_reset(p);
    for (uint32_t i = 0; i < 34u; i++) rt_rcc[i] = rt_rcc_reset[i];
    rt_crc_dr = 0xFFFFFFFFu;
    rt_flash[4] = 0x80000000u;
    rt_flash[5] = 0x0FFFAAEDu;
}

static uint32_t rt_gpio_idr(uint32_t port) {
    const rt_gpio *g = &rt_gpios[port];
    uint32_t idr = 0;
    for (uint32_t pin = 0; pin < 16u; pin++) {
        uint32_t mode = (g->moder >> (2u * pin)) & 3u, level;
        if (mode == 1u) level = (g->odr >> pin) & 1u;
        else if ((g->driven >> pin) & 1u) level = (g->input >> pin) & 1u;
        else level = ((g->pupdr >> (2u * pin)) & 3u) == 1u;
        idr |= level << pin;
    }
    return idr;
}

static uint32_t rt_exti_irq(uint32_t line) {
    return line < 5u ? 6u + line : line < 10u ? 23u : 40u;
}

static void rt_exti_pend(uint32_t bits) {
    rt_exti[5] |= bits;
    for (uint32_t line = 0; line < 16u; line++) {
        if ((bits >> line) & 1u) {
            uint32_t irq = rt_exti_irq(line);
            NVIC->ISPR[irq >> 5] = 1u << (irq & 31u);
        }
    }
}

/* A pin level change: the EXTI edge detector, if the line is routed to this port and unmasked. */
static void rt_pin_edge(uint32_t port, uint32_t pin, uint32_t level) {
    uint32_t route = (rt_syscfg[2u + pin / 4u] >> (4u * (pin % 4u))) & 0xFu, bit = 1u << pin;
    uint32_t edge = level ? rt_exti[2] : rt_exti[3];
    if (route == port && (rt_exti[0] & bit) && (edge & bit)) rt_exti_pend(bit);
}

/* Drive a simulated input pin (harness API); edges reach EXTI like on the real chip. */
RT void ecot_input(GPIO_TypeDef *port, uint32_t pin, uint32_t level) {
    uint32_t p = ((uint32_t)port - GPIOA_BASE) / 0x400u, before, after;
    if (p > 8u || pin > 15u) return;
    before = (rt_gpio_idr(p) >> pin) & 1u;
    rt_gpios[p].driven |= (uint16_t)(1u << pin);
    rt_gpios[p].input = (uint16_t)((rt_gpios[p].input & ~(1u << pin)) | ((level ? 1u : 0u) << pin));
    after = (rt_gpio_idr(p) >> pin) & 1u;
    if (before != after) rt_pin_edge(p, pin, after);
}

/* STM32 CRC unit: CRC-32 (0x04C11DB7), MSB first, one 32-bit word per DR write. */
static uint32_t rt_crc_word(uint32_t crc, uint32_t data) {
    crc ^= data;
    for (uint32_t i = 0; i < 32u; i++) crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    return crc;
}

static uint32_t rt_sws_ready(uint32_t cr, uint32_t sw) {
    return sw == 0u ? (cr >> 1) & 1u : sw == 1u ? (cr >> 17) & 1u : sw == 2u ? (cr >> 25) & 1u : 0u;
}

/* RCC_CR with its ready flags as of now: HSE and the PLL need time after being switched on. */
static uint32_t rt_rcc_cr(void) {
    uint32_t cr = rt_rcc[0] & ~((1u << 17) | (1u << 25) | (1u << 27)), now = rt_now_us();
    uint32_t hse = (cr & RCC_CR_HSEON) && now - rt_hse_on_at >= HSE_STARTUP_US;
    uint32_t source = (rt_rcc[1] & RCC_PLLCFGR_PLLSRC) ? hse : (cr & 1u);
    if (hse) cr |= RCC_CR_HSERDY;
    if ((cr & RCC_CR_PLLON) && source && now - rt_pll_on_at >= PLL_LOCK_US) cr |= RCC_CR_PLLRDY;
    if (cr & (1u << 26)) cr |= 1u << 27; /* PLLI2S */
    return cr;
}

/* RCC_CFGR: the switch to the selected clock completes once that clock is ready (RM0090 6.3.3). */
static uint32_t rt_rcc_cfgr(void) {
    uint32_t sw = rt_rcc[2] & 3u;
    if (rt_sws_ready(rt_rcc_cr(), sw)) rt_rcc[2] = (rt_rcc[2] & ~0xCu) | (sw << 2);
    return rt_rcc[2];
}

/* ---- register semantics: word read / masked word write per block kind -------------------------- */
static uint32_t *rt_gpio_reg(rt_gpio *g, uint32_t index) {
    static uint32_t sink;
    switch (index) {
    case 0: return &g->moder;
    case 1: return &g->otyper;
    case 2: return &g->ospeedr;
    case 3: return &g->pupdr;
    case 5: return &g->odr;
    case 7: return &g->lckr;
    case 8: return &g->afr[0];
    case 9: return &g->afr[1];
    default: sink = 0u; return &sink;
    }
}

static uint32_t rt_shadow_read(const rt_block *b, uint32_t off) {
    uint32_t i = off / 4u;
    switch (b->kind) {
    case K_GPIO: {
        uint32_t port = (b->base - GPIOA_BASE) / 0x400u;
        if (i == 4u) return rt_gpio_idr(port);
        return i == 6u || i > 9u ? 0u : *rt_gpio_reg(&rt_gpios[port], i);
    }
    case K_RCC: return i == 0u ? rt_rcc_cr() : i == 2u ? rt_rcc_cfgr() : i < 34u ? rt_rcc[i] : 0u;
    case K_CRC: return i == 0u ? rt_crc_dr : i == 1u ? rt_crc_idr : 0u;
    case K_FLASH: return i < 6u && i != 1u && i != 2u ? rt_flash[i] : 0u;
    case K_SYSCFG: return i < 9u ? rt_syscfg[i] : 0u;
    case K_EXTI: return i < 6u ? rt_exti[i] : 0u;
    default: return 0u;
    }
}

static void rt_rcc_write(uint32_t i, uint32_t v) {
    static const uint8_t reserved[] = {7, 10, 11, 15, 18, 19, 23, 26, 27, 30, 31};
    for (uint32_t k = 0; k < sizeof(reserved); k++)
        if (reserved[k] == i) return;
    if (i == 0u) { /* CR: HSIRDY follows HSION at once; HSE and PLL start-up times run from now */
        uint32_t now = rt_now_us();
        v &= 0x050D00F9u;
        v |= (v & 1u) << 1;
        v |= rt_rcc[0] & 0xFF00u; /* HSICAL is read-only */
        if ((v & RCC_CR_HSEON) && !(rt_rcc[0] & RCC_CR_HSEON)) rt_hse_on_at = now;
        if ((v & RCC_CR_PLLON) && !(rt_rcc[0] & RCC_CR_PLLON)) rt_pll_on_at = now;
    } else if (i == 2u) { /* CFGR: SWS is read-only; it follows SW when the clock is ready */
        v = (v & ~0xCu) | (rt_rcc[2] & 0xCu);
        rt_rcc[2] = v;
        (void)rt_rcc_cfgr();
        return;
    } else if (i == 4u) { /* AHB1RSTR: held reset returns the GPIO ports and CRC to reset values */
        for (uint32_t p = 0; p < 9u; p++)
            if ((v >> p) & 1u) rt_gpio_reset(p);
        if (v & (1u << 12)) rt_crc_dr = 0xFFFFFFFFu;
    }
    if (i < 34u) rt_rcc[i] = v;
}

static void rt_shadow_write(const rt_block *b, uint32_t off, uint32_t value, uint32_t mask) {
    uint32_t i = off / 4u, old = rt_shadow_read(b, off & ~3u), v = (old & ~mask) | (value & mask);
    switch (b->kind) {
    case K_GPIO: {
        rt_gpio *g = &rt_gpios[(b->base - GPIOA_BASE) / 0x400u];
        if (i == 6u) { /* BSRR: reset bits first, set bits win */
            g->odr &= ~((value & mask) >> 16);
            g->odr |= (value & mask) & 0xFFFFu;
        } else if (i != 4u && i <= 9u) {
            *rt_gpio_reg(g, i) = (i == 1u || i == 5u) ? (v & 0xFFFFu) : v;
        }
        break;
    }
    case K_RCC: rt_rcc_write(i, v); break;
    case K_CRC:
        if (i == 0u && mask == 0xFFFFFFFFu) rt_crc_dr = rt_crc_word(rt_crc_dr, value);
        else if (i == 1u) rt_crc_idr = v & 0xFFu;
        else if (i == 2u && (value & mask & 1u)) rt_crc_dr = 0xFFFFFFFFu;
        break;
    case K_FLASH:
        if (i == 0u) rt_flash[0] = v & 0x1F07u;
        else if (i >= 3u && i < 6u) rt_flash[i] = v;
        break;
    case K_SYSCFG:
        if (i < 9u) rt_syscfg[i] = v;
        break;
    case K_EXTI:
        if (i == 5u) { /* PR: write 1 to clear, which also clears the software trigger */
            rt_exti[5] &= ~(value & mask);
            rt_exti[4] &= ~(value & mask);
        } else if (i == 4u) { /* SWIER: a software edge on unmasked lines */
            rt_exti[4] |= value & mask;
            rt_exti_pend(value & mask & rt_exti[0]);
        } else if (i < 4u) {
            rt_exti[i] = v & 0x7FFFFFu;
        }
        break;
    default: break;
    }
}

/* Block lookup by 1 KiB slot: APB1 slots 0-31, APB2 32-63, AHB1 (GPIO..FLASH) 64-79. The fault
 * handler runs for every trapped access, so this is a table, not a search. */
static const rt_block *rt_slots[80];
static rt_block rt_gpio_blocks[9];

static int32_t rt_slot(uint32_t addr) {
    if (addr >= 0x40000000u && addr < 0x40008000u) return (int32_t)((addr - 0x40000000u) >> 10);
    if (addr >= 0x40010000u && addr < 0x40018000u) return 32 + (int32_t)((addr - 0x40010000u) >> 10);
    if (addr >= 0x40020000u && addr < 0x40024000u) return 64 + (int32_t)((addr - 0x40020000u) >> 10);
    return -1;
}

static void rt_index_blocks(void) {
    for (uint32_t p = 0; p < 9u; p++) {
        rt_block *g = &rt_gpio_blocks[p];
        g->base = GPIOA_BASE + 0x400u * p;
        g->kind = K_GPIO;
        g->enable = EN_AHB1;
        g->bit = (uint8_t)p;
        g->flags = F_QEMU | F_TRACED;
        rt_slots[rt_slot(g->base)] = g;
    }
    for (uint32_t k = 0; k < sizeof(rt_blocks) / sizeof(rt_blocks[0]); k++) rt_slots[rt_slot(rt_blocks[k].base)] = &rt_blocks[k];
}

static const rt_block *rt_find_block(uint32_t addr) {
    int32_t slot = rt_slot(addr);
    return slot < 0 ? 0 : rt_slots[slot];
}

/* ---- USART receive: bytes the harness injects, delivered when the program reads DR --------------- */
typedef struct {
    uint32_t base, irq;
    uint8_t data[96];
    uint32_t head, count;
    uint32_t tx_free_at; /* simulated microsecond at which the transmit shift register is empty */
    uint8_t seen, last;  /* RXNE was read since the last DR read; the byte DR holds */
    uint32_t brr, cr1;   /* copies of the configuration (every write is trapped): no MMIO read per poll */
} rt_uart;

static rt_uart rt_uarts[4] = {{0x40011000u, 37u, {0}, 0, 0, 0, 0, 0, 0, 0}, {0x40004400u, 38u, {0}, 0, 0, 0, 0, 0, 0, 0},
                              {0x40004800u, 39u, {0}, 0, 0, 0, 0, 0, 0, 0}, {0x40011400u, 71u, {0}, 0, 0, 0, 0, 0, 0, 0}};

static rt_uart *rt_uart_at(uint32_t base) {
    for (uint32_t i = 0; i < 4u; i++)
        if (rt_uarts[i].base == base) return &rt_uarts[i];
    return 0;
}

static void rt_uart_kick(const rt_uart *u, uint32_t cr1) {
    if (u->count > 0u && (cr1 & USART_CR1_RXNEIE)) NVIC->ISPR[u->irq >> 5] = 1u << (u->irq & 31u);
}

static uint32_t rt_clock_on(const rt_block *b) {
    static const uint8_t reg[] = {0, 12, 16, 17}; /* RCC word index of AHB1ENR, APB1ENR, APB2ENR */
    return b->enable == EN_NONE || ((rt_rcc[reg[b->enable]] >> b->bit) & 1u);
}
