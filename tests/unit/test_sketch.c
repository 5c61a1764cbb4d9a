/*
 * test_sketch.c - the quantile sketch (analyze/sketch.h) against exact
 * nearest-rank quantiles on random lognormal, bimodal, constant and
 * zero-heavy data: relative error <= 1% (the sketch promises 0.5%), exact
 * while small, and merge(A, B) answering exactly like the sketch of A u B.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/sketch.h"
#include "check.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unif(void) { return ((double)(xorshift() >> 11) + 0.5) / 9007199254740992.0; }
static double gauss(void)
{
    return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif());
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t exact_rank(int64_t *sorted, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n - 1e-9);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return sorted[k - 1];
}

static const double qs[] = {0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0};

static void check_against_exact(int64_t *vals, size_t n, const char *what)
{
    sat_qsketch s;
    sat_qsketch_init(&s, 0);
    for (size_t i = 0; i < n; i++)
        CHECK(sat_qsketch_add(&s, vals[i]) == 0);
    qsort(vals, n, sizeof *vals, cmp64);
    int bad = 0;
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double want = (double)exact_rank(vals, n, qs[i]);
        double got = sat_qsketch_quantile(&s, qs[i]);
        double err = want == 0 ? fabs(got) : fabs(got - want) / want;
        if (!(err <= 0.01)) {
            fprintf(stderr, "%s n=%zu q=%g: want %.0f got %.3f (err %.4f)\n", what, n,
                    qs[i], want, got, err);
            bad = 1;
        }
        if (n <= SAT_QSKETCH_EXACT_DEFAULT && got != want) {
            fprintf(stderr, "%s n=%zu q=%g: small group not exact\n", what, n, qs[i]);
            bad = 1;
        }
    }
    CHECK(!bad);
    sat_qsketch_free(&s);
}

static void gen(int kind, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: /* lognormal etimes around 1 ms */
            v[i] = (int64_t)(1e6 * exp(1.5 * gauss()));
            break;
        case 1: /* bimodal: cache hits ~50us, misses ~200ms */
            v[i] = (xorshift() % 10 < 8) ? (int64_t)(50e3 * exp(0.2 * gauss()))
                                         : (int64_t)(200e6 * exp(0.3 * gauss()));
            break;
        case 2: /* constant */
            v[i] = 123456789;
            break;
        default: /* zero-heavy: whole-second logs (etime=0) */
            v[i] = (xorshift() % 100 < 90) ? 0 : (int64_t)(1 + xorshift() % 3) * 1000000000LL;
            break;
        }
    }
}

static void test_distributions(void)
{
    static const char *const names[] = {"lognormal", "bimodal", "constant", "zero-heavy"};
    size_t sizes[] = {1, 7, 100, 2048, 2049, 10000, 200000};
    for (int kind = 0; kind < 4; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            int64_t *v = (int64_t *)malloc(n * sizeof *v);
            gen(kind, v, n);
            check_against_exact(v, n, names[kind]);
            free(v);
        }
}

static void test_merge_equals_union(void)
{
    for (int kind = 0; kind < 4; kind++) {
        size_t na = 3000 + (size_t)kind * 500, nb = 1500;
        int64_t *a = (int64_t *)malloc(na * sizeof *a);
        int64_t *b = (int64_t *)malloc(nb * sizeof *b);
        gen(kind, a, na);
        gen((kind + 1) % 4, b, nb);
        sat_qsketch sa, sb, su;
        sat_qsketch_init(&sa, 0);
        sat_qsketch_init(&sb, 0);
        sat_qsketch_init(&su, 0);
        for (size_t i = 0; i < na; i++) {
            sat_qsketch_add(&sa, a[i]);
            sat_qsketch_add(&su, a[i]);
        }
        for (size_t i = 0; i < nb; i++) {
            sat_qsketch_add(&sb, b[i]);
            sat_qsketch_add(&su, b[i]);
        }
        CHECK(sat_qsketch_merge(&sa, &sb) == 0);
        CHECK_EQ_INT(sa.n, su.n);
        CHECK_EQ_INT(sa.min, su.min);
        CHECK_EQ_INT(sa.max, su.max);
        for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
            CHECK(sat_qsketch_quantile(&sa, qs[i]) == sat_qsketch_quantile(&su, qs[i]));
        sat_qsketch_free(&sa);
        sat_qsketch_free(&sb);
        sat_qsketch_free(&su);
        free(a);
        free(b);
    }
    /* two small exact sketches stay exact when merged */
    sat_qsketch x, y;
    sat_qsketch_init(&x, 0);
    sat_qsketch_init(&y, 0);
    for (int i = 1; i <= 4; i++)
        sat_qsketch_add(&x, i);
    for (int i = 5; i <= 8; i++)
        sat_qsketch_add(&y, i);
    sat_qsketch_merge(&x, &y);
    CHECK(x.bucketed == 0);
    CHECK(sat_qsketch_quantile(&x, 0.5) == 4.0);
    CHECK(sat_qsketch_quantile(&x, 0.99) == 8.0);
    sat_qsketch_free(&x);
    sat_qsketch_free(&y);
}

static void test_edges(void)
{
    sat_qsketch s;
    sat_qsketch_init(&s, 0);
    CHECK(isnan(sat_qsketch_quantile(&s, 0.5)));
    /* nearest rank: p50 of {1,2,3,4} is 2, p99 of 1..100 is 99 */
    for (int i = 1; i <= 4; i++)
        sat_qsketch_add(&s, i);
    CHECK(sat_qsketch_quantile(&s, 0.5) == 2.0);
    sat_qsketch_free(&s);
    sat_qsketch_init(&s, 0);
    for (int i = 1; i <= 100; i++)
        sat_qsketch_add(&s, i);
    CHECK(sat_qsketch_quantile(&s, 0.99) == 99.0);
    CHECK(sat_qsketch_quantile(&s, 0.999) == 100.0);
    sat_qsketch_free(&s);
    /* huge and tiny values in bucket mode: no crash, bounded bins */
    sat_qsketch_init(&s, 4);
    sat_qsketch_add(&s, 1);
    sat_qsketch_add(&s, INT64_MAX);
    sat_qsketch_add(&s, -5);
    sat_qsketch_add(&s, 0);
    sat_qsketch_add(&s, 1000);
    CHECK(s.bucketed == 1);
    CHECK(s.nbins <= SAT_QSKETCH_MAX_BINS);
    CHECK(sat_qsketch_quantile(&s, 1.0) == (double)INT64_MAX);
    CHECK(sat_qsketch_quantile(&s, 0.0) == -5.0);
    sat_qsketch_free(&s);
}

int main(void)
{
    test_edges();
    test_distributions();
    test_merge_equals_union();
    return CHECK_DONE();
}
