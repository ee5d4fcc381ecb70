long count_if(const long *a, long n, int (*pred)(long))
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (pred(a[i]))
            c++;
    return c;
}
