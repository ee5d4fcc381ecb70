long parity64(unsigned long x)
{
    long p = 0;
    while (x) {
        p ^= x & 1;
        x >>= 1;
    }
    return p;
}
