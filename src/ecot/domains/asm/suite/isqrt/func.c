long isqrt(unsigned long x)
{
    unsigned long r = 0;
    while ((r + 1) * (r + 1) <= x && r < 4294967295UL)
        r++;
    return r;
}
