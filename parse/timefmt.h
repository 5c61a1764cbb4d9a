/*
 * timefmt.h - (internal to parse/) the calendar arithmetic and digit runs that
 * every log format's timestamp parser needs, written once.
 */
#ifndef SAT_TIMEFMT_H
#define SAT_TIMEFMT_H

#include <stdint.h>

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's
 * days_from_civil), valid for every year an int64 ns timestamp can hold. */
int64_t sat_days_from_civil(int64_t y, unsigned m, unsigned d);

/* 1..12 for the English month abbreviation at p[0..3) ("Jan".."Dec", exact
 * case), 0 for anything else. p must have 3 readable bytes. */
int sat_month_of(const char *p);

/* The digits of a decimal fraction, starting at p (after the '.' or ','),
 * as nanoseconds: the first 9 digits count, later ones are read and dropped.
 * Returns the first byte after the digits (p itself when there are none) and
 * sets *ns and, if non-NULL, *ndigits. Never reads at or past end.
 * Inline: every line of a 389 log has one (nanosecond timestamps). */
static inline const char *sat_fraction_ns(const char *p, const char *end, int64_t *ns,
                                          int *ndigits)
{
    int64_t frac = 0;
    int digits = 0;
    /* the common case, exactly nine digits, without a loop-carried branch */
    if (end - p >= 9) {
        unsigned all = 0;
        for (int i = 0; i < 9; i++)
            all |= (unsigned)(unsigned char)(p[i] - '0') > 9u;
        if (!all) {
            for (int i = 0; i < 9; i++)
                frac = frac * 10 + (p[i] - '0');
            p += 9;
            digits = 9;
            while (p < end && *p >= '0' && *p <= '9') {
                digits++;
                p++;
            }
            *ns = frac;
            if (ndigits)
                *ndigits = digits;
            return p;
        }
    }
    int kept = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (kept < 9) {
            frac = frac * 10 + (*p - '0');
            kept++;
        }
        digits++;
        p++;
    }
    for (int k = kept; k < 9; k++)
        frac *= 10;
    *ns = frac;
    if (ndigits)
        *ndigits = digits;
    return p;
}

#endif
