unsigned long gray_decode(unsigned long g)
{
    unsigned long b = 0;
    for (; g; g >>= 1)
        b ^= g;
    return b;
}
