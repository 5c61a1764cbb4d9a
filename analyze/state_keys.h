/*
 * state_keys.h - (internal to analyze/) checks the analyzers' loaders
 * share (state_io.h): a hash table read back from a partial whose keys are
 * packed binary ids (a window index, a source id) holds only keys of that
 * length, so that reading one as its id never reads past it; a window's
 * index is a time at its width; a sketch's count is what it holds.
 */
#ifndef SAT_ANALYZE_STATE_KEYS_H
#define SAT_ANALYZE_STATE_KEYS_H

#include "state_io.h"

/* SAT_OK, or a failure naming `what` when a key of t is not len bytes. */
static inline int sat_sr_keys_len(sat_sr *r, const sat_strtab *t, size_t len, const char *what)
{
    for (size_t i = 0; i < t->n && sat_sr_ok(r); i++)
        if (sat_strtab_len(t, i) != len)
            return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a key of %u bytes where %zu are expected",
                               what, (unsigned)sat_strtab_len(t, i), len);
    return sat_sr_status(r);
}

/* The same for a window series (winseries.h): int64 window indices whose
 * start and end at width (index * width) are times an int64 holds. */
static inline int sat_sr_win_keys(sat_sr *r, const sat_strtab *t, int64_t width, const char *what)
{
    if (sat_sr_keys_len(r, t, sizeof(int64_t), what) != SAT_OK)
        return r->err;
    int64_t lim = width > 0 ? INT64_MAX / width - 1 : 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(t, i), sizeof k);
        if (k > lim || k < -lim)
            return sat_sr_fail(r, SAT_E_CORRUPT, "%s: window %lld of %lld ns is no time", what,
                               (long long)k, (long long)width);
    }
    return SAT_OK;
}

/* The sketches of record rec (of d) hold what their counts say: n values
 * kept when exact, at most n in the zeros and the buckets (a bucket's count
 * saturates) with buckets whose indices an int32 holds; else a quantile
 * would read past its values (sat_sr_sketch reads each sketch's parts, not
 * how they agree). */
static inline int sat_sr_sketches_check(sat_sr *r, const sat_rec_desc *d, const void *rec)
{
    for (size_t i = 0; i < d->nfields && sat_sr_ok(r); i++) {
        if (d->fields[i].kind != SAT_ACC_SKETCH)
            continue;
        const sat_qsketch *s = (const sat_qsketch *)(const void *)((const char *)rec +
                                                                   d->fields[i].off);
        int ok;
        uint64_t held = s->nvals;
        if (s->bucketed) {
            held = s->zeros;
            for (uint32_t b = 0; b < s->nbins; b++)
                held += s->bins[b];
            ok = held <= s->n && s->lo > INT32_MIN + SAT_QSKETCH_MAX_BINS &&
                 s->lo < INT32_MAX - SAT_QSKETCH_MAX_BINS;
        } else {
            ok = held == s->n && !s->nbins && !s->zeros;
        }
        if (!ok)
            return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a sketch of %llu values holding %llu",
                               r->what ? r->what : "state", (unsigned long long)s->n,
                               (unsigned long long)held);
    }
    return sat_sr_status(r);
}

#endif
