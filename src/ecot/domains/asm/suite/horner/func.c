long horner(const long *c, long n, long x)
{
    long r = 0;
    for (long i = n - 1; i >= 0; i--)
        r = r * x + c[i];
    return r;
}
