#include "ecot_asm.h"

unsigned long bswap_loop(unsigned long x);

typedef struct { u64 x; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_u64(&line, &c->x); }
static void gen_case(Case *c) { c->x = ecot_rand(); }
static void show_case(const Case *c) { ecot_show("x=%llu", (unsigned long long)c->x); }
static void run_case(Case *c) { ecot_out("%lu", ECOT_CALL(bswap_loop, c->x)); }

ECOT_DRIVER(Case)
