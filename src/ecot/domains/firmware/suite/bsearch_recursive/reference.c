#include <stdint.h>

int bsearch_rec(const int32_t *a, int lo, int hi, int32_t key)
{
    int mid;
    if (lo > hi)
        return -1;
    mid = lo + (hi - lo) / 2;
    if (a[mid] == key)
        return mid;
    if (a[mid] < key)
        return bsearch_rec(a, mid + 1, hi, key);
    return bsearch_rec(a, lo, mid - 1, key);
}
