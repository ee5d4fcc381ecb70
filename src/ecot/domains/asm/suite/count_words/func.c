long count_words(const char *s)
{
    long n = 0;
    int in = 0;
    for (; *s; s++) {
        if (*s == ' ')
            in = 0;
        else if (!in) {
            in = 1;
            n++;
        }
    }
    return n;
}
