unsigned long next_pow2(unsigned long x)
{
    unsigned long p = 1;
    while (p && p < x)
        p <<= 1;
    return p;
}
