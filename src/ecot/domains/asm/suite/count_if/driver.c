#include "ecot_asm.h"

#define MAXN 64
long count_if(const long *a, long n, int (*pred)(long));

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

static int is_odd(long x) { return (int)(x & 1); }
static int is_positive(long x) { return x > 0; }
static int is_mult3(long x) { return x % 3 == 0; }
static int (*const preds[3])(long) = {is_odd, is_positive, is_mult3};

static void run_case(Case *c) {
    ecot_out("%ld", ECOT_CALL(count_if, c->a, c->n, ECOT_CALLBACK(*preds[c->which])));
}

ECOT_DRIVER(Case)
