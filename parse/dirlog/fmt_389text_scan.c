/*
 * fmt_389text_scan.c - the lexical pieces of a 389 text access-log line
 * (fmt_389text.c): the "[dd/Mon/yyyy:HH:MM:SS[.frac] +ZZZZ]" timestamp with
 * its hour cache, and key=value tokens (quoted values with backslash escapes, as result.c and
 * the request log statements write them).
 */
#include "fmt_389text_int.h"

/* ---- timestamps ---------------------------------------------------------------- */
static inline int d2(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
static inline int all_digits(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!is_digit(p[i]))
            return 0;
    return 1;
}

/* Parses "[dd/Mon/yyyy:HH:MM:SS[.frac] +ZZZZ]" at p. Returns the position
 * after ']' or NULL. The cache (may be NULL) remembers the last hour. */
const char *sat_t389_parse_ts(const char *p, const char *end, t389 *cache,
                              sat_ts_ns *ts, int32_t *off_out)
{
    /* shortest: [dd/Mon/yyyy:HH:MM:SS +ZZZZ] = 28 bytes */
    if (end - p < 28 || p[0] != '[' || p[3] != '/' || p[7] != '/' || p[12] != ':' ||
        p[15] != ':' || p[18] != ':')
        return NULL;
    if (!all_digits(p + 16, 2) || !all_digits(p + 19, 2))
        return NULL;
    const char *q = p + 21;
    int64_t frac = 0;
    if (*q == '.') {
        int digits;
        q = sat_fraction_ns(q + 1, end, &frac, &digits);
        if (!digits)
            return NULL;
    }
    if (end - q < 7 || q[0] != ' ' || (q[1] != '+' && q[1] != '-') ||
        !all_digits(q + 2, 4) || q[6] != ']')
        return NULL;
    int mm = d2(p + 16), ss = d2(p + 19);
    if (mm > 59 || ss > 60)
        return NULL;
    int64_t hour_s;
    int32_t off;
    if (cache && cache->ts_key_valid && memcmp(cache->ts_key, p + 1, 14) == 0 &&
        memcmp(cache->ts_key + 14, q + 1, 5) == 0) {
        hour_s = cache->ts_hour_s;
        off = cache->ts_off_s;
    } else {
        if (!all_digits(p + 1, 2) || !all_digits(p + 8, 4) || !all_digits(p + 13, 2))
            return NULL;
        int day = d2(p + 1), mon = sat_month_of(p + 4), hh = d2(p + 13);
        int64_t year = d2(p + 8) * 100 + d2(p + 10);
        /* int64 nanoseconds since 1970 end in 2262 */
        if (!mon || day < 1 || day > 31 || hh > 23 || year < 1970 || year > 2261)
            return NULL;
        int oh = d2(q + 2), om = d2(q + 4);
        if (oh > 23 || om > 59)
            return NULL;
        off = (oh * 3600 + om * 60) * (q[1] == '-' ? -1 : 1);
        hour_s = sat_days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 + hh * 3600 - off;
        if (cache) {
            memcpy(cache->ts_key, p + 1, 14);
            memcpy(cache->ts_key + 14, q + 1, 5);
            cache->ts_hour_s = hour_s;
            cache->ts_off_s = off;
            cache->ts_key_valid = 1;
        }
    }
    *ts = (hour_s + mm * 60 + ss) * 1000000000LL + frac;
    if (off_out)
        *off_out = off;
    return q + 7;
}

/* The quote that ends a quoted value starting at v (a backslash escapes the
 * character after it), or end. Searched with memchr, as values (DNs,
 * filters) are long: a quote ends the value when the run of backslashes just
 * before it (within the value) is even, as a scan pairing each backslash with
 * the character after it would find. */
static const char *closing_quote(const char *v, const char *end)
{
    const char *p = v;
    while (p < end) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (!q)
            return end;
        size_t run = 0;
        while (q - run > v && q[-1 - (ptrdiff_t)run] == '\\')
            run++;
        if (!(run & 1))
            return q;
        p = q + 1;
    }
    return end;
}

/* 1 = a token, 0 = end (maybe with trailing text), -1 = unterminated quote. */
int sat_t389_kv_next(const char **pp, const char *end, kv *t, sat_str *text)
{
    const char *p = skip_sp(*pp, end);
    if (p >= end) {
        *pp = p;
        return 0;
    }
    if (*p == '-' && (p + 1 == end || p[1] == ' ')) {
        const char *s = skip_sp(p + 1, end);
        const char *e = end;
        while (e > s && e[-1] == ' ')
            e--;
        *text = sat_str_make(s, (size_t)(e - s));
        *pp = end;
        return 0;
    }
    t->start = p;
    t->k = p;
    while (p < end && *p != '=' && *p != ' ')
        p++;
    t->klen = (size_t)(p - t->k);
    t->quoted = 0;
    if (p >= end || *p == ' ') {
        t->v = NULL;
        t->vlen = 0;
    } else {
        p++; /* '=' */
        if (p < end && *p == '"') {
            p++;
            t->v = p;
            p = closing_quote(p, end);
            if (p >= end) {
                *pp = end;
                return -1;
            }
            t->vlen = (size_t)(p - t->v);
            t->quoted = 1;
            p++;
        } else {
            t->v = p;
            while (p < end && *p != ' ')
                p++;
            t->vlen = (size_t)(p - t->v);
        }
    }
    t->stop = p;
    *pp = p;
    return 1;
}
