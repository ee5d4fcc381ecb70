#include "ecot_asm.h"

#define MAXN 64
long sum_array(const long *a, long n);

typedef struct { long n;  long a[MAXN]; } Case;

static int read_case(Case *c, const char *line) {
    i64 v;
    if (!ecot_next_i64(&line, &v) || v < 0 || v > MAXN) return 0;
    c->n = v;
    for (long i = 0; i < c->n; i++) {
        if (!ecot_next_i64(&line, &v)) return 0;
        c->a[i] = v;
    }
    return 1;
}

static void gen_case(Case *c) {
    c->n = ecot_range(0, MAXN);
    i64 span = ecot_range(0, 3) == 0 ? 1000000000000LL : 20;
    for (long i = 0; i < c->n; i++) c->a[i] = ecot_range(-span, span);
}

static void show_case(const Case *c) {
    ecot_show("n=%ld a=[", c->n);
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %ld" : "%ld", c->a[i]);
    ecot_show("]");
}

static void run_case(Case *c) {
    ecot_out("%ld", ECOT_CALL(sum_array, c->a, c->n));
}

ECOT_DRIVER(Case)
