/*
 * timefmt.h - (internal to parse/) the calendar arithmetic and digit runs that
 * every log format's timestamp parser needs, written once.
 */
#ifndef SAT_TIMEFMT_H
#define SAT_TIMEFMT_H

#include <stdint.h>
#include <string.h>

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
/* The number written by the eight ASCII digits at p, or -1 when any of the
 * eight bytes is not a digit. A word at a time where loads are little-endian
 * (every byte checked at once, then the digits paired, quadrupled and
 * joined by three multiplications), else byte by byte. */
static inline int64_t sat_digits8(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    /* a byte is a digit when its high nibble is 3 and still is after adding
     * 6 ('9' + 6 = 0x3f; ':' + 6 = 0x40); with every high nibble 3 the
     * additions carry into no neighbour */
    if ((w & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL ||
        ((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL)
        return -1;
    w -= 0x3030303030303030ULL;
    w = w * 10 + (w >> 8); /* byte 2k: digits 2k, 2k+1 as a number 0..99 */
    w = ((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
         ((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >>
        32;
    return (int64_t)w;
#else
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
#endif
}

static inline const char *sat_fraction_ns(const char *p, const char *end, int64_t *ns,
                                          int *ndigits)
{
    int64_t frac = 0;
    int digits = 0;
    /* the common case, nine digits or more */
    if (end - p >= 9) {
        int64_t first8 = sat_digits8(p);
        if (first8 >= 0 && p[8] >= '0' && p[8] <= '9') {
            frac = first8 * 10 + (p[8] - '0');
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
