long log2_floor(unsigned long x)
{
    long r = -1;
    while (x) {
        x >>= 1;
        r++;
    }
    return r;
}
