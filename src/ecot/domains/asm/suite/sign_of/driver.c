#include "ecot_asm.h"

long sign_of(long x);

typedef struct { i64 x; } Case;

static int read_case(Case *c, const char *line) { return ecot_next_i64(&line, &c->x); }
static void gen_case(Case *c) { c->x = ecot_range(0, 2) - 1 == 0 ? 0 : (i64)ecot_rand(); }
static void show_case(const Case *c) { ecot_show("x=%lld", (long long)c->x); }
static void run_case(Case *c) { ecot_out("%ld", ECOT_CALL(sign_of, c->x)); }

ECOT_DRIVER(Case)
