/* ecot_runtime.c - the trusted side of an ecot firmware evaluation (written for ecot).
 *
 * The backend compiles this file, ecot_periph.c, ecot_trap.c and ecot_startup.c as one translation
 * unit, once per process and independently of any task or candidate. Every line the host trusts
 * starts with "\x02<tag> ": results, register readbacks, faults, the end marker. The tag is a
 * per-evaluation secret that enters only at link time, as the values of two absolute symbols whose
 * names are random per process; the harness API is renamed with a random prefix (ecot_harness.h),
 * so a candidate compiled on its own can neither call it nor name the tag. Everything else here is
 * static, and nothing here calls a library function (a candidate could define memcpy or strlen and
 * see the tagged buffer). The tag lives only in literal words, is assembled on the stack, and the
 * line buffer is wiped after each line.
 */
#include <stdint.h>
#include "ecot_harness.h"

#if !defined(ECOT_TAG_HI_SYM) || !defined(ECOT_TAG_LO_SYM)
#error "the runtime is built by the ecot backend, which names the evaluation tag symbols"
#endif
/* Absolute symbols defined at link time: their addresses are the values. */
extern const char ECOT_TAG_HI_SYM[], ECOT_TAG_LO_SYM[], __ecot_budget_us[], __ecot_max_accesses[];
#define ECOT_TAG_HI ((uint32_t)ECOT_TAG_HI_SYM)
#define ECOT_TAG_LO ((uint32_t)ECOT_TAG_LO_SYM)
#define ECOT_BUDGET_US ((uint32_t)__ecot_budget_us)       /* simulated microseconds before the watchdog stops the run */
#define ECOT_MAX_ACCESSES ((uint32_t)__ecot_max_accesses) /* emulated peripheral accesses before the run is stopped */

#define RT /* part of the harness API (ecot_harness.h) */
#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t rt_results; /* result lines written, checked against the end marker */

static inline uint32_t rt_semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

__attribute__((noreturn)) static void rt_exit(uint32_t code) {
    volatile uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, code};
    rt_semihost(SYS_EXIT_EXTENDED, (const void *)block);
    for (;;) {
    }
}

/* ---- tagged lines ------------------------------------------------------------------------------ */
typedef struct {
    char text[200];
    uint32_t n;
} rt_line;

static void rt_put(rt_line *l, char c) {
    if (l->n < sizeof(l->text) - 2u) l->text[l->n++] = c;
}

static void rt_puts(rt_line *l, const char *s) {
    for (uint32_t i = 0; s[i] != '\0' && i < 120u; i++) rt_put(l, s[i]);
}

static void rt_hex(rt_line *l, uint32_t v) {
    rt_put(l, '0');
    rt_put(l, 'x');
    for (int shift = 28; shift >= 0; shift -= 4) {
        uint32_t d = (v >> (uint32_t)shift) & 0xFu;
        rt_put(l, (char)(d < 10u ? '0' + d : 'a' + d - 10u));
    }
}

static void rt_dec(rt_line *l, int32_t v) {
    char digits[12];
    uint32_t n = 0, u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (v < 0) rt_put(l, '-');
    do {
        digits[n++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u != 0u);
    while (n > 0u) rt_put(l, digits[--n]);
}

static void rt_begin(rt_line *l, const char *kind) {
    l->n = 0;
    rt_put(l, '\x02');
    rt_hex(l, (uint32_t)(ECOT_TAG_HI));
    rt_hex(l, (uint32_t)(ECOT_TAG_LO));
    rt_put(l, ' ');
    rt_puts(l, kind);
}

static void rt_field(rt_line *l, const char *name, uint32_t v) {
    rt_put(l, ' ');
    rt_puts(l, name);
    rt_put(l, '=');
    rt_hex(l, v);
}

static void rt_send(rt_line *l) {
    l->text[l->n++] = '\n';
    l->text[l->n] = '\0';
    rt_semihost(SYS_WRITE0, l->text);
    for (uint32_t i = 0; i < sizeof(l->text); i++) ((volatile char *)l->text)[i] = 0;
}

/* ---- the harness API (see docs/domains/firmware.md) -------------------------------------------- */
static void rt_keyed(const char *kind, const char *key, rt_line *l) {
    rt_begin(l, kind);
    rt_put(l, ' ');
    rt_puts(l, key);
    rt_put(l, '=');
}

/* A result line "key=0x0000002a" the host compares with the task's expected results. */
RT void ecot_result_hex(const char *key, uint32_t value) {
    rt_line l;
    rt_keyed("R", key, &l);
    rt_hex(&l, value);
    rt_send(&l);
    rt_results++;
}

/* A result line "key=-42". */
RT void ecot_result_int(const char *key, int32_t value) {
    rt_line l;
    rt_keyed("R", key, &l);
    rt_dec(&l, value);
    rt_send(&l);
    rt_results++;
}

/* A result line "key=text"; bytes outside printable ASCII are written as \xNN. */
RT void ecot_result_str(const char *key, const char *text, uint32_t max) {
    rt_line l;
    rt_keyed("R", key, &l);
    for (uint32_t i = 0; i < max && text[i] != '\0' && l.n < 180u; i++) {
        char c = text[i];
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            rt_put(&l, c);
        } else {
            rt_put(&l, '\\');
            rt_put(&l, 'x');
            rt_put(&l, "0123456789abcdef"[((uint8_t)c) >> 4]);
            rt_put(&l, "0123456789abcdef"[((uint8_t)c) & 0xFu]);
        }
    }
    rt_send(&l);
    rt_results++;
}

/* Internal notes for the host (clock-gating violations and the like); never results. */
static void rt_note(const char *kind, uint32_t addr, uint32_t value, uint32_t pc, uint32_t write) {
    rt_line l;
    rt_begin(&l, "N");
    rt_put(&l, ' ');
    rt_puts(&l, kind);
    rt_field(&l, "addr", addr);
    rt_field(&l, "value", value);
    rt_field(&l, "pc", pc);
    rt_field(&l, "write", write);
    rt_send(&l);
}

/* Exception frame registers the fault and watchdog reports carry. */
typedef struct {
    uint32_t pc, lr, xpsr, psp, msp, stacked;
} rt_where;

__attribute__((noreturn)) static void rt_stop(const char *kind, const rt_where *w, uint32_t a, uint32_t b) {
    rt_line l;
    rt_begin(&l, kind);
    rt_field(&l, "pc", w->pc);
    rt_field(&l, "lr", w->lr);
    rt_field(&l, "xpsr", w->xpsr);
    rt_field(&l, "psp", w->psp);
    rt_field(&l, "msp", w->msp);
    rt_field(&l, "stacked", w->stacked);
    rt_field(&l, "a", a);
    rt_field(&l, "b", b);
    rt_send(&l);
    rt_exit(1u);
}

__attribute__((noreturn)) static void rt_fault_report(const rt_where *w, uint32_t exc, uint32_t cfsr,
                                                      uint32_t hfsr, uint32_t mmfar, uint32_t bfar) {
    rt_line l;
    rt_begin(&l, "F");
    rt_field(&l, "exc", exc);
    rt_field(&l, "cfsr", cfsr);
    rt_field(&l, "hfsr", hfsr);
    rt_field(&l, "mmfar", mmfar);
    rt_field(&l, "bfar", bfar);
    rt_send(&l);
    rt_stop("P", w, 0u, 0u);
}

__attribute__((noreturn)) static void rt_finish(void) {
    rt_line l;
    rt_begin(&l, "E");
    rt_field(&l, "results", rt_results);
    rt_send(&l);
    rt_exit(0u);
}

/* Busy-wait for roughly n loop iterations (simulated time passes, interrupts run). */
RT void ecot_spin(uint32_t n) {
    for (volatile uint32_t i = 0; i < n; i++) {
    }
}
