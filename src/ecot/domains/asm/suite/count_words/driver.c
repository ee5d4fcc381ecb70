#include "ecot_asm.h"

#define MAXS 96
long count_words(const char *s);

typedef struct { char s[MAXS];  } Case;

static const char charset[] = "ab  c ";

static int read_case(Case *c, const char *line) {
    size_t n = strlen(line);
    if (n >= MAXS) return 0;
    memcpy(c->s, line, n + 1);
    return 1;
}

static void gen_case(Case *c) {
    long n = ecot_range(0, MAXS - 16);
    for (long i = 0; i < n; i++) c->s[i] = charset[ecot_range(0, (i64)sizeof charset - 2)];
    c->s[n] = 0;
}

static void show_case(const Case *c) { ecot_show("s=\"%s\"", c->s); }

static void run_case(Case *c) {
    ecot_out("%ld", (long)ECOT_CALL(count_words, c->s));
}

ECOT_DRIVER(Case)
