#include "ecot_asm.h"

long log2_floor(unsigned long x);

typedef struct { u64 x; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_u64(&line, &c->x); }
static void gen_case(Case *c) { c->x = ecot_bits(); }
static void show_case(const Case *c) { ecot_show("x=%llu", (unsigned long long)c->x); }
static void run_case(Case *c) { ecot_out("%ld", ECOT_CALL(log2_floor, c->x)); }

ECOT_DRIVER(Case)
