#include "ecot_asm.h"

unsigned long gcd(unsigned long a, unsigned long b);

typedef struct { u64 x, y; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_u64(&line, &c->x) && ecot_next_u64(&line, &c->y); }
static void gen_case(Case *c) { c->x = ecot_bits(); c->y = ecot_range(0, 1) ? ecot_bits() : c->x / (u64)ecot_range(1, 1000) * 3; }
static void show_case(const Case *c) { ecot_show("a=%llu b=%llu", (unsigned long long)c->x, (unsigned long long)c->y); }
static void run_case(Case *c) { ecot_out("%lu", ECOT_CALL(gcd, c->x, c->y)); }

ECOT_DRIVER(Case)
