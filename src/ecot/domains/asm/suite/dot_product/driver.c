#include "ecot_asm.h"

#define MAXN 64
long dot_product(const int *a, const int *b, long n);

typedef struct { long n; int a[MAXN], b[MAXN]; } Case;

static int read_case(Case *c, const char *line) {
    i64 v;
    if (!ecot_next_i64(&line, &v) || v < 0 || v > MAXN) return 0;
    c->n = v;
    for (long i = 0; i < 2 * c->n; i++) {
        if (!ecot_next_i64(&line, &v)) return 0;
        if (i < c->n) c->a[i] = (int)v; else c->b[i - c->n] = (int)v;
    }
    return 1;
}

static void gen_case(Case *c) {
    c->n = ecot_range(0, MAXN);
    for (long i = 0; i < c->n; i++) {
        c->a[i] = (int)ecot_range(-2147483647 - 1, 2147483647);
        c->b[i] = (int)ecot_range(-2147483647 - 1, 2147483647);
    }
}

static void show_case(const Case *c) {
    ecot_show("n=%ld a=[", c->n);
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %d" : "%d", c->a[i]);
    ecot_show("] b=[");
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %d" : "%d", c->b[i]);
    ecot_show("]");
}

static void run_case(Case *c) { ecot_out("%ld", ECOT_CALL(dot_product, c->a, c->b, c->n)); }

ECOT_DRIVER(Case)
