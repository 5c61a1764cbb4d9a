/*
 * sketch.h - bounded-memory quantiles of durations (nanoseconds), mergeable.
 *
 * Quantile definition (nearest rank): for n values sorted ascending
 * x[1] <= ... <= x[n], the q-quantile is x[k] with k = ceil(q * n), at least
 * 1 (so p50 of {1,2,3,4} is 2, and p100 is the max).
 *
 * A sketch keeps the exact values while it holds at most `exact_max` of them
 * (quantiles are then exact). Past that it switches to log-spaced buckets in
 * the style of DDSketch (Masson et al., VLDB 2019): a value v >= 1 falls in
 * bucket i = ceil(log_gamma v) with gamma = (1+a)/(1-a), a = 0.005, and a
 * bucket answers with 2 gamma^i / (gamma + 1), within a relative 0.5% of any
 * value in it; so the answer is within 0.5% of the exact nearest-rank value.
 * Values <= 0 are counted apart and answer 0 exactly. Buckets are one dense
 * run [lo, lo + nbins) that grows as values arrive; should it pass
 * SAT_QSKETCH_MAX_BINS the lowest buckets are collapsed (never for durations
 * of 1 ns .. 292 years: that range needs ~4400 buckets < the cap).
 *
 * Merging adds bucket counts, so the merge of two sketches equals the sketch
 * of the union of their values. The reported answers are also clamped to the
 * true [min, max], which are kept exactly.
 */
#ifndef SAT_ANALYZE_SKETCH_H
#define SAT_ANALYZE_SKETCH_H

#include "satscope/base.h"

#define SAT_QSKETCH_ALPHA 0.005
#define SAT_QSKETCH_EXACT_DEFAULT 2048
#define SAT_QSKETCH_MAX_BINS 8192

typedef struct sat_qsketch {
    uint64_t n;       /* values added */
    int64_t min, max; /* exact; valid when n > 0 */
    int64_t *vals;    /* exact mode: the values (sorted lazily) */
    uint32_t nvals, vcap;
    uint32_t exact_max; /* switch to buckets past this many values */
    uint8_t bucketed;   /* 0 exact, 1 bucket mode */
    uint8_t sorted;
    uint64_t zeros;     /* bucket mode: values <= 0 */
    uint32_t *bins;     /* bucket mode: counts of buckets lo .. lo+nbins-1 */
    int32_t lo;
    uint32_t nbins;
} sat_qsketch;

/* exact_max 0 -> SAT_QSKETCH_EXACT_DEFAULT. */
void sat_qsketch_init(sat_qsketch *s, uint32_t exact_max);
void sat_qsketch_free(sat_qsketch *s);
/* SAT_OK or SAT_E_NOMEM (the value is then lost, the sketch stays valid). */
int sat_qsketch_add(sat_qsketch *s, int64_t v);
int sat_qsketch_merge(sat_qsketch *into, const sat_qsketch *from);
/* Nearest-rank q-quantile (0 <= q <= 1), as a double in the input unit; NAN
 * when empty. Not const: exact mode sorts its values on first use. */
double sat_qsketch_quantile(sat_qsketch *s, double q);
/* Heap bytes held. */
size_t sat_qsketch_bytes(const sat_qsketch *s);

#endif
