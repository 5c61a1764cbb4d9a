/*
 * state_keys.h - (internal to analyze/) a check the analyzers' loaders
 * share (state_io.h): a hash table read back from a partial whose keys are
 * packed binary ids (a window index, a source id) holds only keys of that
 * length, so that reading one as its id never reads past it.
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

#endif
