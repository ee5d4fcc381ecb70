long dot_product(const int *a, const int *b, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += (long)a[i] * b[i];
    return s;
}
