#include "ecot_asm.h"

#define MAXS 96
int is_palindrome(const char *s, long n);

typedef struct { char s[MAXS];  } Case;

static const char charset[] = "abc";

static int read_case(Case *c, const char *line) {
    size_t n = strlen(line);
    if (n >= MAXS) return 0;
    memcpy(c->s, line, n + 1);
    return 1;
}

static void gen_case(Case *c) {
    long n = ecot_range(0, 20);
    for (long i = 0; i < n; i++) c->s[i] = charset[ecot_range(0, 2)];
    if (ecot_range(0, 1)) for (long i = 0; i < n / 2; i++) c->s[n - 1 - i] = c->s[i];
    c->s[n] = 0;
}

static void show_case(const Case *c) { ecot_show("s=\"%s\"", c->s); }

static void run_case(Case *c) {
    ecot_out("%ld", (long)ECOT_CALL(is_palindrome, c->s, (long)strlen(c->s)));
}

ECOT_DRIVER(Case)
