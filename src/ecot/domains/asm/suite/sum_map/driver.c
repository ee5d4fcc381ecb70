#include "ecot_asm.h"

#define MAXN 64
long sum_map(const long *a, long n, long (*f)(long));

typedef struct { long n; int which; long a[MAXN]; } Case;

static int read_case(Case *c, const char *line) {
    i64 v;
    if (!ecot_next_i64(&line, &v) || v < 0 || v > MAXN) return 0;
    c->n = v;
    if (!ecot_next_i64(&line, &v) || v < 0 || v > 2) return 0;
    c->which = (int)v;
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
    c->which = (int)ecot_range(0, 2);
}

static void show_case(const Case *c) {
    ecot_show("n=%ld f=%d a=[", c->n, c->which);
    for (long i = 0; i < c->n; i++) ecot_show(i ? " %ld" : "%ld", c->a[i]);
    ecot_show("]");
}

static long twice(long x) { return 2 * x; }
static long square_low(long x) { return (x & 0xffff) * (x & 0xffff); }
static long negate(long x) { return -x; }
static long (*const maps[3])(long) = {twice, square_low, negate};

static void run_case(Case *c) {
    ecot_out("%ld", ECOT_CALL(sum_map, c->a, c->n, ECOT_CALLBACK(*maps[c->which])));
}

ECOT_DRIVER(Case)
