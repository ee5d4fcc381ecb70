long argmax(const long *a, long n)
{
    long best = 0;
    for (long i = 1; i < n; i++)
        if (a[i] > a[best])
            best = i;
    return best;
}
