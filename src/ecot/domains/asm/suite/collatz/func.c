long collatz(unsigned long n)
{
    long s = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        s++;
    }
    return s;
}
