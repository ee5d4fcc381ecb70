/* ecot_trap.c - the fault handler: emulate trapped peripheral accesses, report real faults
 * (written for ecot).
 *
 * Every fault escalates to HardFault (SHCSR enables none of the configurable fault handlers), so
 * it preempts candidate interrupt handlers of any priority and runs with the MPU off. A data
 * access violation inside a trapped peripheral window is decoded (Thumb-2 LDR/STR in all their
 * single-register forms, LDRD/STRD), answered by ecot_periph.c, the PC is stepped past it and
 * the program resumes. Anything else is a real fault: CFSR, HFSR, MMFAR, BFAR and the stacked
 * PC/LR/xPSR are reported on the tagged channel and the run ends.
 */

#define MPU_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define CFSR_DACCVIOL 0x02u
#define CFSR_MMARVALID 0x80u
#define CFSR_STACKING 0x18u /* MUNSTKERR | MSTKERR: the frame is not trustworthy */

static uint32_t rt_accesses;
static uint32_t rt_last_addr, rt_last_pc, rt_repeats;

typedef struct {
    uint32_t *frame; /* r0-r3, r12, lr, pc, xpsr of the interrupted code */
    uint32_t *saved; /* r4-r11, pushed by the entry stub */
    uint32_t exc_return;
} rt_ctx;

static uint32_t *rt_regp(rt_ctx *c, uint32_t r) {
    if (r < 4u) return &c->frame[r];
    if (r < 12u) return &c->saved[r - 4u];
    if (r == 12u) return &c->frame[4];
    if (r == 14u) return &c->frame[5];
    return 0; /* SP and PC are never the data or base register of a peripheral access */
}

static rt_where rt_where_of(const rt_ctx *c, uint32_t stacked) {
    rt_where w;
    uint32_t msp, psp;
    __asm__ volatile("mrs %0, msp" : "=r"(msp));
    __asm__ volatile("mrs %0, psp" : "=r"(psp));
    w.pc = stacked ? c->frame[6] : 0u;
    w.lr = stacked ? c->frame[5] : 0u;
    w.xpsr = stacked ? c->frame[7] : 0u;
    w.psp = psp;
    w.msp = msp;
    w.stacked = stacked;
    return w;
}

/* ---- real accesses (traced by QEMU) ------------------------------------------------------------ */
static uint32_t rt_real(uint32_t addr, uint32_t size, uint32_t write, uint32_t value) {
    uint32_t ctrl = MPU_CTRL, result = 0u, ipsr, toggle;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    /* HardFault runs without the MPU already; elsewhere (harness readback, or a MemManage handler a
     * candidate enabled) switch it off around the access. Toggling flushes QEMU's TLB: avoid it. */
    toggle = (ipsr & 0x1FFu) != 3u && (ctrl & 1u);
    if (toggle) {
        MPU_CTRL = 0u;
        __DSB();
        __ISB();
    }
    if (size == 1u) {
        if (write) *(volatile uint8_t *)addr = (uint8_t)value;
        else result = *(volatile uint8_t *)addr;
    } else if (size == 2u) {
        if (write) *(volatile uint16_t *)addr = (uint16_t)value;
        else result = *(volatile uint16_t *)addr;
    } else {
        if (write) *(volatile uint32_t *)addr = value;
        else result = *(volatile uint32_t *)addr;
    }
    if (toggle) {
        MPU_CTRL = ctrl;
        __DSB();
        __ISB();
    }
    return result;
}

static void rt_gate_note(const rt_block *b, uint32_t addr, uint32_t value, uint32_t pc, uint32_t write) {
    if (!rt_gated_once && !(b->flags & F_TRACED)) { /* traced blocks: the host sees it in the trace */
        rt_gated_once = 1u;
        rt_note("GATE", addr, value, pc, write);
    }
}

/* ---- USART timing: QEMU transmits instantly whatever the configuration, the chip does not ------- */

/* One character (start + 8 data + stop bits) in microseconds, from BRR and the bus clock. */
static uint32_t rt_uart_char_us(const rt_uart *u) {
    uint32_t mhz = u->base >= 0x40010000u ? 84u : 42u;
    return (10u * u->brr + mhz - 1u) / mhz;
}

/* Keep copies of BRR and CR1 as the program writes them (the write itself still reaches QEMU). */
static void rt_uart_note_write(rt_uart *u, uint32_t off, uint32_t value, uint32_t mask) {
    if (off == 0x08u) u->brr = (u->brr & ~mask) | (value & mask);
    if (off == 0x0Cu) u->cr1 = (u->cr1 & ~mask) | (value & mask);
}

/* A DR write the chip would lose: transmitter off, no baud rate, or the data register still full
 * (the program did not wait for TXE). Returns 1 when the byte is dropped. */
static uint32_t rt_uart_tx_lost(rt_uart *u) {
    uint32_t cr1 = u->cr1, now = rt_now_us(), bit = rt_uart_char_us(u);
    if (!(cr1 & USART_CR1_UE) || !(cr1 & USART_CR1_TE) || bit == 0u) return 1u;
    if (u->tx_free_at > now + bit) return 1u;
    u->tx_free_at = (u->tx_free_at > now ? u->tx_free_at : now) + bit;
    return 0u;
}

/* SR and DR reads: TXE/TC follow the character timing; injected receive bytes set RXNE and come
 * out of DR once the program has seen RXNE (QEMU's own receive path drops bytes that arrive before RE
 * is set, and its timing is not deterministic, so the harness feeds bytes here instead). */
static uint32_t rt_uart_read(const rt_block *b, uint32_t addr, uint32_t *value) {
    rt_uart *u = rt_uart_at(b->base);
    uint32_t off = addr - b->base;
    if (u == 0 || (off != 0u && off != 4u) || (off == 4u && u->count == 0u)) return 0u;
    if (off == 0u) { /* the flags are the model's; reading the clock only while a byte is on the wire */
        uint32_t now = u->tx_free_at != 0u ? rt_now_us() : 0u, sr = 0u;
        if (u->tx_free_at <= now + rt_uart_char_us(u)) sr |= USART_SR_TXE;
        if (u->tx_free_at <= now) sr |= USART_SR_TC;
        if (u->tx_free_at != 0u && u->tx_free_at <= now) u->tx_free_at = 0u; /* idle again */
        u->seen = u->count > 0u; /* the program has seen RXNE: the next DR read gets the byte */
        *value = u->count > 0u ? sr | USART_SR_RXNE : sr;
        return 1u;
    }
    if (!u->seen) { /* DR read without waiting for RXNE: the chip returns the previous byte again */
        *value = u->last;
        return 1u;
    }
    *value = u->last = u->data[u->head];
    u->seen = 0u;
    u->head = (u->head + 1u) % sizeof(u->data);
    u->count--;
    rt_uart_kick(u, u->cr1);
    return 1u;
}

/* Bytes arriving on a USART's RX line (harness API): kept only while the receiver is enabled. */
RT void ecot_uart_rx(USART_TypeDef *usart, const char *data, uint32_t n) {
    rt_uart *u = rt_uart_at((uint32_t)usart);
    uint32_t cr1;
    if (u == 0) return;
    cr1 = u->cr1;
    if (!(cr1 & USART_CR1_UE) || !(cr1 & USART_CR1_RE)) return;
    for (uint32_t i = 0; i < n && u->count < sizeof(u->data); i++, u->count++)
        u->data[(u->head + u->count) % sizeof(u->data)] = (uint8_t)data[i];
    rt_uart_kick(u, cr1);
}

/* One emulated access; returns 0 when there is no peripheral at addr. */
static uint32_t rt_access(const rt_ctx *c, uint32_t addr, uint32_t size, uint32_t write, uint32_t *value) {
    const rt_block *b = rt_find_block(addr);
    uint32_t pc = c->frame[6], shift = (addr & 3u) * 8u, on, real = 0u;
    uint32_t mask = size == 4u ? 0xFFFFFFFFu : ((1u << (size * 8u)) - 1u) << shift;
    if (b == 0 || b->kind == K_RESERVED || (addr & (size - 1u)) != 0u) return 0u;
    if (++rt_accesses > ECOT_MAX_ACCESSES) {
        rt_where w = rt_where_of(c, 1u);
        rt_stop("X", &w, addr, rt_accesses);
    }
    rt_repeats = (!write && addr == rt_last_addr && pc == rt_last_pc) ? rt_repeats + 1u : 0u;
    rt_last_addr = addr;
    rt_last_pc = pc;
    on = rt_clock_on(b);
    if (!on) rt_gate_note(b, addr, write ? *value : 0u, pc, write);
    if (on && !write && rt_uart_read(b, addr, value)) return 1u;
    if (on && write && rt_uart_at(b->base) != 0) {
        if ((addr & 0x3FFu) == 4u && rt_uart_tx_lost(rt_uart_at(b->base))) return 1u; /* lost, as on the chip */
        rt_uart_note_write(rt_uart_at(b->base), addr & 0x3FCu, *value << shift, mask);
    }
    /* the real access keeps QEMU's trace; a flag polled in a tight loop is logged 8 times, not forever */
    if ((b->flags & F_QEMU) && (on || (b->flags & F_TRACED)) && (write || rt_repeats < 8u || b->kind == K_PASS))
        real = rt_real(addr, size, write, write ? *value : 0u);
    if (write) {
        if (on && b->kind != K_PASS) rt_shadow_write(b, addr & 0x3FCu, *value << shift, mask);
    } else if (!on) {
        *value = 0u;
    } else {
        *value = b->kind == K_PASS ? real : (rt_shadow_read(b, addr & 0x3FCu) & mask) >> shift;
    }
    return 1u;
}

/* Bit-band alias: one bit of a peripheral word, read or read-modify-written. */
static uint32_t rt_bitband(const rt_ctx *c, uint32_t alias, uint32_t write, uint32_t *value) {
    uint32_t target = 0x40000000u + ((alias - 0x42000000u) >> 5), bit = (target & 3u) * 8u + ((alias >> 2) & 7u);
    uint32_t word = 0u;
    if (!rt_access(c, target & ~3u, 4u, 0u, &word)) return 0u;
    if (!write) {
        *value = (word >> bit) & 1u;
        return 1u;
    }
    word = (*value & 1u) ? word | (1u << bit) : word & ~(1u << bit);
    return rt_access(c, target & ~3u, 4u, 1u, &word);
}

/* ---- Thumb-2 load/store decoding ---------------------------------------------------------------- */
typedef struct {
    uint32_t load, size, sign, rt, rt2, rn, len, writeback, pair, pre;
    int32_t delta; /* base register change on writeback; pair: offset of the first word */
} rt_insn;

static uint32_t rt_decode16(uint32_t hw, rt_insn *d) {
    static const uint8_t sizes[8] = {4, 2, 1, 1, 4, 2, 1, 2};
    uint32_t top = hw & 0xF800u, op = (hw >> 9) & 7u;
    d->len = 2u;
    d->rt = hw & 7u;
    if (top >= 0x6000u && top <= 0x8800u) {
        d->load = (hw >> 11) & 1u;
        d->size = top < 0x7000u ? 4u : top < 0x8000u ? 1u : 2u;
        return 1u;
    }
    if ((hw & 0xF000u) == 0x5000u) {
        d->load = op >= 3u;
        d->size = sizes[op];
        d->sign = op == 3u || op == 7u;
        return 1u;
    }
    return 0u;
}

static uint32_t rt_decode32(uint32_t hw1, uint32_t hw2, rt_insn *d) {
    d->len = 4u;
    d->rn = hw1 & 0xFu;
    d->rt = hw2 >> 12;
    if ((hw1 & 0xFE00u) == 0xF800u) {
        uint32_t size = (hw1 >> 5) & 3u;
        d->load = (hw1 >> 4) & 1u;
        d->sign = (hw1 >> 8) & 1u;
        d->size = 1u << size;
        if (size == 3u || (d->sign && !d->load) || d->rn == 15u) return 0u;
        if (!((hw1 >> 7) & 1u) && (hw2 & 0x800u) && ((hw2 >> 8) & 1u)) {
            d->writeback = 1u;
            d->delta = ((hw2 >> 9) & 1u) ? (int32_t)(hw2 & 0xFFu) : -(int32_t)(hw2 & 0xFFu);
        }
        return 1u;
    }
    if ((hw1 & 0xFE40u) == 0xE840u && (hw1 & 0x0120u) != 0u) { /* LDRD/STRD, not LDREX/STREX */
        int32_t imm = (int32_t)((hw2 & 0xFFu) * 4u);
        imm = ((hw1 >> 7) & 1u) ? imm : -imm;
        d->load = (hw1 >> 4) & 1u;
        d->size = 4u;
        d->pair = 1u;
        d->rt2 = (hw2 >> 8) & 0xFu;
        d->writeback = (hw1 >> 5) & 1u;
        d->delta = imm;
        d->pre = (hw1 >> 8) & 1u;
        return 1u;
    }
    return 0u;
}

static void rt_it_advance(uint32_t *xpsr) {
    uint32_t it = ((*xpsr >> 25) & 3u) | ((*xpsr >> 8) & 0xFCu);
    if ((it & 0xFu) == 0u) return;
    it = (it & 7u) == 0u ? 0u : (it & 0xE0u) | ((it << 1) & 0x1Fu);
    *xpsr = (*xpsr & ~((3u << 25) | (0x3Fu << 10))) | ((it & 3u) << 25) | ((it >> 2) << 10);
}

static uint32_t rt_transfer(const rt_ctx *c, uint32_t addr, const rt_insn *d, uint32_t *reg) {
    uint32_t value = d->load ? 0u : *reg, ok;
    if (addr >= 0x42000000u && addr < 0x44000000u) ok = rt_bitband(c, addr, !d->load, &value);
    else ok = rt_access(c, addr, d->size, !d->load, &value);
    if (ok && d->load) {
        if (d->sign && d->size == 1u) value = (uint32_t)(int32_t)(int8_t)value;
        if (d->sign && d->size == 2u) value = (uint32_t)(int32_t)(int16_t)value;
        *reg = value;
    }
    return ok;
}

/* Emulate the access at the stacked PC; 0 when it cannot (the caller reports a fault). */
static uint32_t rt_emulate(rt_ctx *c, uint32_t fault_addr) {
    uint32_t pc = c->frame[6], hw1, hw2, *rt, *rn, addr = fault_addr;
    rt_insn d = {0};
    if (pc < 0x08000000u || pc >= 0x08100000u) return 0u;
    hw1 = *(const uint16_t *)pc;
    hw2 = *(const uint16_t *)(pc + 2u);
    if (!((hw1 >> 11) >= 0x1Du ? rt_decode32(hw1, hw2, &d) : rt_decode16(hw1, &d))) {
        rt_where w = rt_where_of(c, 1u);
        rt_stop("U", &w, hw1 << 16 | hw2, fault_addr);
    }
    rt = rt_regp(c, d.rt);
    rn = d.len == 4u ? rt_regp(c, d.rn) : 0;
    if (rt == 0 || ((d.writeback || d.pair) && rn == 0)) return 0u;
    if (d.pair) {
        uint32_t *rt2 = rt_regp(c, d.rt2);
        addr = d.pre ? *rn + (uint32_t)d.delta : *rn;
        if (rt2 == 0 || !rt_transfer(c, addr, &d, rt) || !rt_transfer(c, addr + 4u, &d, rt2)) return 0u;
    } else if (!rt_transfer(c, addr, &d, rt)) {
        return 0u;
    }
    if (d.writeback) *rn += (uint32_t)d.delta;
    c->frame[6] = pc + d.len;
    rt_it_advance(&c->frame[7]);
    return 1u;
}

static uint32_t rt_trapped(uint32_t addr) {
    return (addr >= 0x40000000u && addr < 0x40008000u) || (addr >= 0x40010000u && addr < 0x40018000u) ||
           (addr >= 0x40020000u && addr < 0x40024000u) || (addr >= 0x42000000u && addr < 0x44000000u);
}

/* C side of the fault entry stub: resume after an emulated access, or report and stop. */
__attribute__((used)) static void rt_fault(uint32_t *frame, uint32_t *saved, uint32_t exc_return) {
    uint32_t cfsr = SCB->CFSR, mmfar = SCB->MMFAR, ipsr;
    rt_ctx c = {frame, saved, exc_return};
    uint32_t stacked = (cfsr & CFSR_STACKING) == 0u;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    if ((cfsr & (CFSR_DACCVIOL | CFSR_MMARVALID | 1u)) == (CFSR_DACCVIOL | CFSR_MMARVALID) && stacked &&
        rt_trapped(mmfar)) {
        if (rt_emulate(&c, mmfar)) {
            SCB->CFSR = cfsr & 0xFFu;
            SCB->HFSR = SCB->HFSR;
            return;
        }
        { /* no peripheral there: the chip would answer with a precise bus fault */
            rt_where w = rt_where_of(&c, 1u);
            rt_fault_report(&w, ipsr & 0x1FFu, 0x8200u, SCB->HFSR, 0u, mmfar);
        }
    }
    {
        rt_where w = rt_where_of(&c, stacked);
        rt_fault_report(&w, ipsr & 0x1FFu, cfsr, SCB->HFSR, mmfar, SCB->BFAR);
    }
}

/* A register as the program would read it, without a trace entry (harness API). */
RT uint32_t ecot_reg(volatile const void *reg) {
    uint32_t addr = (uint32_t)reg & ~3u; /* whole words: pass the address of the word holding a byte field */
    const rt_block *b = rt_find_block(addr);
    if (addr >= 0xE000E000u && addr < 0xE000F000u) return *(volatile const uint32_t *)addr; /* core: NVIC, SCB */
    if (b == 0 || b->kind == K_RESERVED || (b->kind == K_PASS && !(b->flags & F_QEMU))) return 0u;
    if (!rt_clock_on(b)) return 0u;
    return b->kind == K_PASS ? rt_real(addr & ~3u, 4u, 0u, 0u) : rt_shadow_read(b, addr & 0x3FCu);
}

/* A readback line "NAME=0x..." of the register's bits in mask, checked against the task's
 * expected readbacks (Register_Mismatch when they differ). */
RT void ecot_readback_bits(const char *name, volatile const void *reg, uint32_t mask) {
    rt_line l;
    rt_keyed("B", name, &l);
    rt_hex(&l, ecot_reg(reg) & mask);
    rt_send(&l);
}

RT void ecot_readback(const char *name, volatile const void *reg) { ecot_readback_bits(name, reg, 0xFFFFFFFFu); }

/* Simulated time in microseconds since reset (the watchdog timer's counter). */
RT uint32_t ecot_micros(void) { return rt_real(TIM5_BASE + 0x24u, 4u, 0u, 0u); }

RT void ecot_preset(volatile void *reg, uint32_t value) {
    uint32_t addr = (uint32_t)reg & ~3u;
    const rt_block *b = rt_find_block(addr);
    if (b == 0 || b->kind == K_PASS || b->kind == K_RESERVED) return;
    rt_shadow_write(b, addr & 0x3FCu, value, 0xFFFFFFFFu);
    rt_note("PRESET", addr, value, 0u, 1u);
}
