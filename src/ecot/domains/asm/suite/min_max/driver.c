#include "ecot_asm.h"

#define MAXN 64
void min_max(const long *a, long n, long *mn, long *mx);

typedef struct { long n;  long a[MAXN]; } Case;

static int read_case(Case *c, const char *line) {
    i64 v;
    if (!ecot_next_i64(&line, &v) || v < 1 || v > MAXN) return 0;
    c->n = v;
    for (long i = 0; i < c->n; i++) {
        if (!ecot_next_i64(&line, &v)) return 0;
        c->a[i] = v;
    }
    return 1;
}

static void gen_case(Case *c) {
    c->n = ecot_range(1, MAXN);
    i64 span = ecot_range(0, 3) == 0 ? 1000000000000LL : 20;
    for (long i = 0; i < c->n; i++) c->a[i] = ecot_range(-span, span);
}

static void show_case(const Case *c) {
    ecot_show("n=%ld a=[", c->n);
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %ld" : "%ld", c->a[i]);
    ecot_show("]");
}

static void run_case(Case *c) {
    long lo = 0x5a5a, hi = 0x5a5a;
    ECOT_CALL_VOID(min_max, c->a, c->n, &lo, &hi);
    ecot_out("%ld %ld", lo, hi);
}

ECOT_DRIVER(Case)
