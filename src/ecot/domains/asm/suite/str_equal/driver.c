#include "ecot_asm.h"

#define MAXS 96
int str_equal(const char *a, const char *b);

typedef struct { char s[MAXS]; char t[MAXS]; } Case;

static const char charset[] = "abab";

static int read_case(Case *c, const char *line) {
    const char *tab = strchr(line, '\t');
    if (!tab || tab - line >= MAXS || strlen(tab + 1) >= MAXS) return 0;
    memcpy(c->s, line, (size_t)(tab - line));
    c->s[tab - line] = 0;
    strcpy(c->t, tab + 1);
    return 1;
}

static void gen_case(Case *c) {
    long n = ecot_range(0, 12);
    for (long i = 0; i < n; i++) c->s[i] = charset[ecot_range(0, 3)];
    c->s[n] = 0;
    strcpy(c->t, c->s);
    if (ecot_range(0, 1)) {
        long m = ecot_range(0, 12);
        for (long i = 0; i < m; i++) c->t[i] = charset[ecot_range(0, 3)];
        c->t[m] = 0;
    }
}

static void show_case(const Case *c) { ecot_show("a=\"%s\" b=\"%s\"", c->s, c->t); }

static void run_case(Case *c) {
    ecot_out("%ld", (long)ECOT_CALL(str_equal, c->s, c->t));
}

ECOT_DRIVER(Case)
