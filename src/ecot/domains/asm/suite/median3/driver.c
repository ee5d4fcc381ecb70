#include "ecot_asm.h"

long median3(long a, long b, long c);

typedef struct { i64 a, b, c; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_i64(&line, &c->a) && ecot_next_i64(&line, &c->b) && ecot_next_i64(&line, &c->c); }
static void gen_case(Case *c) { i64 s = ecot_range(0, 1) ? 5 : 1000000; c->a = ecot_range(-s, s); c->b = ecot_range(-s, s); c->c = ecot_range(-s, s); }
static void show_case(const Case *c) { ecot_show("a=%lld b=%lld c=%lld", (long long)c->a, (long long)c->b, (long long)c->c); }
static void run_case(Case *c) { ecot_out("%ld", ECOT_CALL(median3, c->a, c->b, c->c)); }

ECOT_DRIVER(Case)
