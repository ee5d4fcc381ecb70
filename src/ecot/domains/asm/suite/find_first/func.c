long find_first(const long *a, long n, long x)
{
    for (long i = 0; i < n; i++)
        if (a[i] == x)
            return i;
    return -1;
}
