#include "ecot_asm.h"

#define MAXN 64
long find_first(const long *a, long n, long x);

typedef struct { long n; i64 t; long a[MAXN]; } Case;

static int read_case(Case *c, const char *line) {
    i64 v;
    if (!ecot_next_i64(&line, &v) || v < 0 || v > MAXN) return 0;
    c->n = v;
    if (!ecot_next_i64(&line, &v)) return 0;
    c->t = v;
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
    c->t = ecot_range(-20, 20);
}

static void show_case(const Case *c) {
    ecot_show("n=%ld t=%lld a=[", c->n, (long long)c->t);
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %ld" : "%ld", c->a[i]);
    ecot_show("]");
}

static void run_case(Case *c) {
    ecot_out("%ld", ECOT_CALL(find_first, c->a, c->n, c->t));
}

ECOT_DRIVER(Case)
