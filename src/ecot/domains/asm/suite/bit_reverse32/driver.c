#include "ecot_asm.h"

unsigned bit_reverse32(unsigned x);

typedef struct { u64 x; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_u64(&line, &c->x); }
static void gen_case(Case *c) { c->x = ecot_bits(); }
static void show_case(const Case *c) { ecot_show("x=%llu", (unsigned long long)c->x); }
static void run_case(Case *c) { ecot_out("%u", ECOT_CALL(bit_reverse32, (unsigned)c->x)); }

ECOT_DRIVER(Case)
