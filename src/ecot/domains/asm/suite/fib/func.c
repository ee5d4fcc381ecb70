unsigned long fib(unsigned n)
{
    unsigned long a = 0, b = 1;
    while (n--) {
        unsigned long t = a + b;
        a = b;
        b = t;
    }
    return a;
}
