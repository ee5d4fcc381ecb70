int is_pow2(unsigned long x)
{
    if (!x)
        return 0;
    while (!(x & 1))
        x >>= 1;
    return x == 1;
}
