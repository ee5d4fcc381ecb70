/* Harness for bsearch_recursive: 200 sorted values, hits and misses at both ends. */
extern int bsearch_rec(const int32_t *a, int lo, int hi, int32_t key);

void harness_main(void)
{
    static int32_t a[200];
    static const int32_t keys[9] = {-40, 557, -41, 558, 100, 101, 0, 200, 299};
    static const char *names[9] = {"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};
    for (int32_t i = 0; i < 200; i++)
        a[i] = -40 + 3 * i;
    for (uint32_t i = 0; i < 9u; i++)
        ecot_result_int(names[i], bsearch_rec(a, 0, 199, keys[i]));
    ecot_result_int("empty", bsearch_rec(a, 5, 4, 0));
}
