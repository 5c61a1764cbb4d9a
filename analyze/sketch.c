/*
 * sketch.c - exact-then-log-bucket quantile sketch (definition and error
 * bound in sketch.h).
 */
#include <math.h>

#include "sketch.h"

/* ln(gamma) with gamma = (1 + a) / (1 - a) */
/* a constant rather than a lazily computed static: no data race between
 * analyzers running in threads. */
static inline double sk_lngamma(void) { return 0.010000083334583179; }

void sat_qsketch_init(sat_qsketch *s, uint32_t exact_max)
{
    memset(s, 0, sizeof *s);
    s->exact_max = exact_max ? exact_max : SAT_QSKETCH_EXACT_DEFAULT;
}

void sat_qsketch_free(sat_qsketch *s)
{
    if (!s)
        return;
    free(s->vals);
    free(s->bins);
    uint32_t em = s->exact_max;
    memset(s, 0, sizeof *s);
    s->exact_max = em;
}

/* The bucket of v > 0. An analyzer adds one operation's time to several
 * sketches in a row (its type's, all operations', its minute's), so the
 * last value's bucket is kept per thread: one log() per operation, not three. */
static _Thread_local int64_t sk_last_v; /* 0: none yet (never a bucketed value) */
static _Thread_local int32_t sk_last_i;

static inline int32_t sk_index(int64_t v)
{
    if (v == sk_last_v)
        return sk_last_i;
    sk_last_i = (int32_t)ceil(log((double)v) / sk_lngamma());
    sk_last_v = v;
    return sk_last_i;
}

/* Make bucket idx addressable, growing (or, past the cap, collapsing). */
static int sk_reach(sat_qsketch *s, int32_t *idx)
{
    int32_t i = *idx;
    if (s->nbins == 0) {
        s->bins = (uint32_t *)calloc(16, sizeof *s->bins);
        if (!s->bins)
            return SAT_E_NOMEM;
        s->nbins = 16;
        s->lo = i - 8;
        return SAT_OK;
    }
    if (i >= s->lo && i < s->lo + (int32_t)s->nbins)
        return SAT_OK;
    int64_t nlo = i < s->lo ? i : s->lo;
    int64_t nhi = i >= s->lo + (int64_t)s->nbins ? i + 1 : s->lo + (int64_t)s->nbins;
    int64_t want = nhi - nlo;
    if (want > SAT_QSKETCH_MAX_BINS) {
        /* collapse the lowest buckets: low quantiles lose accuracy first */
        if (i < s->lo) {
            *idx = s->lo;
            return SAT_OK;
        }
        int64_t newlo = nhi - SAT_QSKETCH_MAX_BINS;
        uint32_t *nb = (uint32_t *)calloc(SAT_QSKETCH_MAX_BINS, sizeof *nb);
        if (!nb)
            return SAT_E_NOMEM;
        for (uint32_t k = 0; k < s->nbins; k++) {
            int64_t b = s->lo + (int64_t)k;
            int64_t t = b < newlo ? newlo : b;
            nb[t - newlo] += s->bins[k];
        }
        free(s->bins);
        s->bins = nb;
        s->lo = (int32_t)newlo;
        s->nbins = SAT_QSKETCH_MAX_BINS;
        return SAT_OK;
    }
    /* grow with slack on the side that moved */
    int64_t slack = want / 2 + 8;
    if (i < s->lo)
        nlo -= slack;
    else
        nhi += slack;
    if (nhi - nlo > SAT_QSKETCH_MAX_BINS) {
        if (i < s->lo)
            nlo = nhi - SAT_QSKETCH_MAX_BINS;
        else
            nhi = nlo + SAT_QSKETCH_MAX_BINS;
    }
    uint32_t ncount = (uint32_t)(nhi - nlo);
    uint32_t *nb = (uint32_t *)calloc(ncount, sizeof *nb);
    if (!nb)
        return SAT_E_NOMEM;
    memcpy(nb + (s->lo - nlo), s->bins, s->nbins * sizeof *nb);
    free(s->bins);
    s->bins = nb;
    s->lo = (int32_t)nlo;
    s->nbins = ncount;
    return SAT_OK;
}

static int sk_bucket_add(sat_qsketch *s, int64_t v, uint64_t count)
{
    if (v <= 0) {
        s->zeros += count;
        return SAT_OK;
    }
    int32_t i = sk_index(v);
    SAT_FORWARD_IF_ERROR(sk_reach(s, &i));
    uint64_t c = s->bins[i - s->lo] + count;
    s->bins[i - s->lo] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    return SAT_OK;
}

static int sk_to_buckets(sat_qsketch *s)
{
    s->bucketed = 1;
    for (uint32_t k = 0; k < s->nvals; k++)
        SAT_FORWARD_IF_ERROR(sk_bucket_add(s, s->vals[k], 1));
    free(s->vals);
    s->vals = NULL;
    s->nvals = s->vcap = 0;
    return SAT_OK;
}

static int sk_exact_push(sat_qsketch *s, int64_t v)
{
    if (s->nvals == s->vcap) {
        uint32_t nc = s->vcap ? s->vcap * 2 : 8;
        if (nc > s->exact_max)
            nc = s->exact_max;
        int64_t *nv = (int64_t *)realloc(s->vals, nc * sizeof *nv);
        if (!nv)
            return SAT_E_NOMEM;
        s->vals = nv;
        s->vcap = nc;
    }
    s->vals[s->nvals++] = v;
    s->sorted = 0;
    return SAT_OK;
}

static void sk_minmax(sat_qsketch *s, int64_t lo, int64_t hi, uint64_t n)
{
    if (!n)
        return;
    if (s->n == 0 || lo < s->min)
        s->min = lo;
    if (s->n == 0 || hi > s->max)
        s->max = hi;
}

int sat_qsketch_add(sat_qsketch *s, int64_t v)
{
    if (!s->bucketed && s->nvals >= s->exact_max)
        SAT_FORWARD_IF_ERROR(sk_to_buckets(s));
    int rc = s->bucketed ? sk_bucket_add(s, v, 1) : sk_exact_push(s, v);
    if (rc < 0)
        return rc;
    sk_minmax(s, v, v, 1);
    s->n++;
    return SAT_OK;
}

int sat_qsketch_merge(sat_qsketch *into, const sat_qsketch *from)
{
    if (from->n == 0)
        return SAT_OK;
    if (!into->bucketed && !from->bucketed &&
        (uint64_t)into->nvals + from->nvals <= into->exact_max) {
        for (uint32_t k = 0; k < from->nvals; k++)
            SAT_FORWARD_IF_ERROR(sk_exact_push(into, from->vals[k]));
    } else {
        if (!into->bucketed)
            SAT_FORWARD_IF_ERROR(sk_to_buckets(into));
        if (from->bucketed) {
            into->zeros += from->zeros;
            for (uint32_t k = 0; k < from->nbins; k++) {
                if (!from->bins[k])
                    continue;
                int32_t i = from->lo + (int32_t)k;
                SAT_FORWARD_IF_ERROR(sk_reach(into, &i));
                uint64_t c = (uint64_t)into->bins[i - into->lo] + from->bins[k];
                into->bins[i - into->lo] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
            }
        } else {
            for (uint32_t k = 0; k < from->nvals; k++)
                SAT_FORWARD_IF_ERROR(sk_bucket_add(into, from->vals[k], 1));
        }
    }
    sk_minmax(into, from->min, from->max, from->n);
    into->n += from->n;
    return SAT_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

double sat_qsketch_quantile(sat_qsketch *s, double q)
{
    if (s->n == 0)
        return NAN;
    if (q <= 0)
        return (double)s->min;
    if (q >= 1)
        return (double)s->max;
    /* rank k = ceil(q n), computed so that 0.99 * 100 gives 99, not 100 */
    double kd = ceil(q * (double)s->n - 1e-9);
    uint64_t k = kd < 1 ? 1 : (uint64_t)kd;
    if (k > s->n)
        k = s->n;
    if (!s->bucketed) {
        if (!s->sorted) {
            qsort(s->vals, s->nvals, sizeof *s->vals, cmp_i64);
            s->sorted = 1;
        }
        return (double)s->vals[k - 1];
    }
    if (k <= s->zeros)
        return s->min < 0 ? (double)s->min : 0.0;
    uint64_t seen = s->zeros;
    const double g = exp(sk_lngamma());
    for (uint32_t b = 0; b < s->nbins; b++) {
        seen += s->bins[b];
        if (seen >= k) {
            double v = 2.0 * exp((double)(s->lo + (int32_t)b) * sk_lngamma()) / (g + 1.0);
            if (v < (double)s->min)
                v = (double)s->min;
            if (v > (double)s->max)
                v = (double)s->max;
            return v;
        }
    }
    return (double)s->max; /* saturated counts */
}

size_t sat_qsketch_bytes(const sat_qsketch *s)
{
    return (size_t)s->vcap * sizeof(int64_t) + (size_t)s->nbins * sizeof(uint32_t);
}
