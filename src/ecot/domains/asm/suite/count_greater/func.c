long count_greater(const long *a, long n, long t)
{
    long c = 0;
    for (long i = 0; i < n; i++)
        if (a[i] > t)
            c++;
    return c;
}
