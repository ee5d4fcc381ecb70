unsigned long powmod(unsigned long b, unsigned long e, unsigned long m)
{
    unsigned long r = 1 % m;
    b %= m;
    for (unsigned long i = 0; i < e; i++)
        r = r * b % m;
    return r;
}
