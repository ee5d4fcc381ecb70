void min_max(const long *a, long n, long *mn, long *mx)
{
    long lo = a[0], hi = a[0];
    for (long i = 1; i < n; i++) {
        if (a[i] < lo)
            lo = a[i];
        if (a[i] > hi)
            hi = a[i];
    }
    *mn = lo;
    *mx = hi;
}
