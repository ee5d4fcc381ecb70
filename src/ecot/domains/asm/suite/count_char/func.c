long count_char(const char *s, char c)
{
    long n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}
