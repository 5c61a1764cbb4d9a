/*
 * cs_refs.c - the cachesize analyzer's curve alone (analyze/cachesize.c), without
 * parsing: N references (Zipf 0.9 over K keys, fixed seed) fed through sat_cs_add_ref,
 * then the curve built exactly (Mattson) and with SHARDS; prints references per second
 * of each stage and the analyzer's stored stream (8 bytes a reference kept). Used by
 * bench/run_cachesize.sh.
 * usage: cs_refs [N [K]]   (default 10,000,000 references over 1,000,000 keys)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "satscope/analyze.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double unif(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 10000000;
    size_t k = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000000;
    if (!n || !k)
        return 2;
    double *cdf = malloc(k * sizeof *cdf);
    uint32_t *keys = malloc(n * sizeof *keys);
    if (!cdf || !keys)
        return 1;
    double z = 0, run = 0;
    for (size_t i = 0; i < k; i++)
        z += pow((double)(i + 1), -0.9);
    for (size_t i = 0; i < k; i++) {
        run += pow((double)(i + 1), -0.9) / z;
        cdf[i] = run;
    }
    for (size_t i = 0; i < n; i++) {
        double u = unif();
        size_t lo = 0, hi = k - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cdf[mid] >= u)
                hi = mid;
            else
                lo = mid + 1;
        }
        keys[i] = (uint32_t)lo;
    }
    for (int mode = 0; mode < 2; mode++) {
        sat_cs_opts o = {0};
        o.force_shards = mode;
        o.max_refs = n + 1;
        sat_cs *c = sat_cs_create(&o);
        if (!c)
            return 1;
        char dn[80];
        double t0 = now();
        for (size_t i = 0; i < n; i++) {
            int len = snprintf(dn, sizeof dn, "uid=user%u,ou=people,dc=example,dc=com", keys[i]);
            if (sat_cs_add_ref(c, dn, (size_t)len, 0) != SAT_OK)
                return 1;
        }
        double t1 = now();
        if (sat_cs_finish(c) != SAT_OK)
            return 1;
        double t2 = now();
        /* distinct keys and the references stored (8 bytes each) from the result */
        sat_result *r = sat_result_new("cachesize");
        if (!r || sat_cs_result(c, r) != SAT_OK)
            return 1;
        const sat_rnode *root = sat_result_root(r);
        printf("%-6s refs %zu keys %llu  add %.2f s (%.1f M refs/s)  curve %.2f s (%.1f M refs/s)"
               "  stored stream %.1f MB\n",
               mode ? "shards" : "exact", n,
               (unsigned long long)sat_get_count(root, "unique", 0), t1 - t0,
               n / (t1 - t0) / 1e6, t2 - t1, n / (t2 - t1) / 1e6,
               (double)sat_get_count(root, "sampling.kept", 0) * 8 / 1e6);
        sat_result_free(r);
        sat_cs_free(c);
    }
    free(cdf);
    free(keys);
    return 0;
}
