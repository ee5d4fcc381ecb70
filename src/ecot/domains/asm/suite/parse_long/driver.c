#include "ecot_asm.h"

#define MAXS 96
long parse_long(const char *s);

typedef struct { char s[MAXS];  } Case;

static const char charset[] = "0123456789";

static int read_case(Case *c, const char *line) {
    size_t n = strlen(line);
    if (n >= MAXS) return 0;
    memcpy(c->s, line, n + 1);
    return 1;
}

static void gen_case(Case *c) {
    long n = 0;
    if (ecot_range(0, 2) == 0) c->s[n++] = '-';
    long digits = ecot_range(0, 18);
    for (long i = 0; i < digits; i++) c->s[n++] = charset[ecot_range(0, 9)];
    if (ecot_range(0, 3) == 0) c->s[n++] = "x -5"[ecot_range(0, 3)];
    c->s[n] = 0;
}

static void show_case(const Case *c) { ecot_show("s=\"%s\"", c->s); }

static void run_case(Case *c) {
    ecot_out("%ld", (long)ECOT_CALL(parse_long, c->s));
}

ECOT_DRIVER(Case)
