#include <stdint.h>
#include <string.h>

static int parse_u16(const char *s, int *out)
{
    int32_t v = 0;
    if (*s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 65535)
            return -1;
    }
    *out = (int)v;
    return 0;
}

int parse_cmd(const char *line, int *arg)
{
    int v;
    if (strcmp(line, "LED ON") == 0)
        return 1;
    if (strcmp(line, "LED OFF") == 0)
        return 2;
    if (strcmp(line, "GET") == 0)
        return 4;
    if (strncmp(line, "SET ", 4) == 0 && parse_u16(line + 4, &v) == 0) {
        *arg = v;
        return 3;
    }
    return -1;
}
