long ctz64(unsigned long x)
{
    if (!x)
        return 64;
    long c = 0;
    while (!(x & 1)) {
        x >>= 1;
        c++;
    }
    return c;
}
