#include "ecot_asm.h"

#define MAXS 96
long count_char(const char *s, char c);

typedef struct { char s[MAXS]; char ch; } Case;

static const char charset[] = "aab ba\xe9";

static int read_case(Case *c, const char *line) {
    if (!line[0] || strlen(line) >= MAXS) return 0;
    c->ch = line[0];
    memcpy(c->s, line + 1, strlen(line));
    return 1;
}

static void gen_case(Case *c) {
    long n = ecot_range(0, MAXS - 16);
    for (long i = 0; i < n; i++) c->s[i] = charset[ecot_range(0, (i64)sizeof charset - 2)];
    c->s[n] = 0;
    c->ch = charset[ecot_range(0, (i64)sizeof charset - 2)];
}

static void show_case(const Case *c) { ecot_show("c=%d s=\"%s\"", c->ch, c->s); }

static void run_case(Case *c) {
    ecot_out("%ld", (long)ECOT_CALL(count_char, c->s, c->ch));
}

ECOT_DRIVER(Case)
