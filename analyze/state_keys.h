/*
 * state_keys.h - (internal to analyze/) checks the analyzers' loaders
 * share (state_io.h): a hash table read back from a partial whose keys are
 * packed binary ids (a window index, a source id) holds only keys of that
 * length, so that reading one as its id never reads past it; a window's
 * index is a time at its width. (A sketch is checked as it is read:
 * state_io.c.)
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


#endif
