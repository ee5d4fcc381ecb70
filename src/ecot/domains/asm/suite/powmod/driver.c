#include "ecot_asm.h"

unsigned long powmod(unsigned long b, unsigned long e, unsigned long m);

typedef struct { u64 b, e, m; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_u64(&line, &c->b) && ecot_next_u64(&line, &c->e) && ecot_next_u64(&line, &c->m) && c->m && c->m < 4294967296ULL; }
static void gen_case(Case *c) { c->b = ecot_bits(); c->e = ecot_range(0, 2000); c->m = ecot_range(1, 4294967295LL); }
static void show_case(const Case *c) { ecot_show("b=%llu e=%llu m=%llu", (unsigned long long)c->b, (unsigned long long)c->e, (unsigned long long)c->m); }
static void run_case(Case *c) { ecot_out("%lu", ECOT_CALL(powmod, c->b, c->e, c->m)); }

ECOT_DRIVER(Case)
