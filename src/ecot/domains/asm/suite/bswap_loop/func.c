unsigned long bswap_loop(unsigned long x)
{
    unsigned long r = 0;
    for (int i = 0; i < 8; i++) {
        r = (r << 8) | (x & 0xff);
        x >>= 8;
    }
    return r;
}
