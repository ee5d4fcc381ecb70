long sum_map(const long *a, long n, long (*f)(long))
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += f(a[i]);
    return s;
}
