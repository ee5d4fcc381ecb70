void reverse_array(long *a, long n)
{
    for (long i = 0, j = n - 1; i < j; i++, j--) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
