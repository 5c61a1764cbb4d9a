/*
 * rfc3339.c - the one reader of RFC 3339 / ISO 8601 date-times (parse.h,
 * sat_parse_rfc3339): "2025-06-09T14:24:10.123+02:00" in a bounded span, to
 * UTC nanoseconds and the offset it was written with. Every log format that
 * writes such times (nginx $time_iso8601, 389's JSON local_time, OpenLDAP's
 * RFC 5424 syslog prefix, crash reports in any log) and the command line's
 * time options read them here; the flags say which liberties each one's
 * writers take (RFC 3339 section 5.6, ISO 8601's decimal comma and hour-only
 * offsets, strptime(3)'s way with blanks and short numbers).
 */
#include "satscope/parse.h"

#include "timefmt.h"

static inline int is_digit(char c) { return (unsigned)(unsigned char)(c - '0') <= 9u; }

/* isspace() in the C locale: what strptime(3) skips before a number */
static inline int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* One number of a date or time at *p, at most w digits, into *out.
 * Fixed (the default): exactly w digits. With SAT_TIME_STRPTIME, as glibc's
 * strptime reads %Y %m %d %H %M %S: blanks skipped first, then at least one
 * digit, and another only while the value times ten stays within max; a
 * value outside lo..max is refused there and then. */
static int number(const char **p, const char *end, int w, int lo, int max, unsigned flags,
                  int *out)
{
    const char *q = *p;
    int v = 0;
    if (flags & SAT_TIME_STRPTIME) {
        while (q < end && is_space(*q))
            q++;
        if (q >= end)
            return SAT_E_TRUNCATED;
        if (!is_digit(*q))
            return SAT_E_FORMAT;
        int k = 0;
        do {
            v = v * 10 + (*q++ - '0');
        } while (++k < w && v * 10 <= max && q < end && is_digit(*q));
        if (v < lo || v > max)
            return SAT_E_CORRUPT;
    } else {
        for (int k = 0; k < w; k++, q++) {
            if (q >= end)
                return SAT_E_TRUNCATED;
            if (!is_digit(*q))
                return SAT_E_FORMAT;
            v = v * 10 + (*q - '0');
        }
    }
    *p = q;
    *out = v;
    return SAT_OK;
}

static int expect(const char **p, const char *end, char c)
{
    if (*p >= end)
        return SAT_E_TRUNCATED;
    if (**p != c)
        return SAT_E_FORMAT;
    (*p)++;
    return SAT_OK;
}

/* A numeric offset "+hh[:]mm" (or what the flags allow) at p: SAT_OK with
 * *off and *p past it, or why it is not one. */
static int offset(const char **p, const char *end, unsigned flags, int32_t *off)
{
    const char *q = *p;
    int sign = *q == '-' ? -1 : 1, hh, mm = 0, rc;
    q++;
    unsigned fixed = flags & ~(unsigned)SAT_TIME_STRPTIME; /* an offset's digits are fixed */
    if ((rc = number(&q, end, 2, 0, 99, fixed, &hh)) < 0)
        return rc;
    if (q < end && *q == ':') {
        q++;
        if ((rc = number(&q, end, 2, 0, 99, fixed, &mm)) < 0)
            return rc;
    } else if (flags & SAT_TIME_ZONE_COLON) {
        return q < end ? SAT_E_FORMAT : SAT_E_TRUNCATED;
    } else if (end - q >= 2 && is_digit(q[0]) && is_digit(q[1])) {
        mm = (q[0] - '0') * 10 + (q[1] - '0');
        q += 2;
    } else if (!(flags & SAT_TIME_ZONE_FREE)) {
        return end - q >= 2 ? SAT_E_FORMAT : SAT_E_TRUNCATED;
    }
    /* the command line took hours 00..29 ([0-2][0-9]); offsets in use end at
     * +14:00, which free text is held to */
    int max_h = (flags & SAT_TIME_STRPTIME) ? 29 : (flags & SAT_TIME_ZONE_FREE) ? 14 : 23;
    if (hh > max_h || mm > 59)
        return SAT_E_CORRUPT;
    *off = sign * (hh * 3600 + mm * 60);
    *p = q;
    return SAT_OK;
}

int sat_parse_rfc3339(const char *p, size_t n, unsigned flags, sat_ts_ns *ts, int32_t *off_s,
                      size_t *used)
{
    const char *const start = p, *const end = p + n;
    const int strp = (flags & SAT_TIME_STRPTIME) != 0, range = (flags & SAT_TIME_RANGE_FORMS) != 0;
    /* a line's head whose zone may be absent: what is not a zone is the line's */
    const int open_tail = (flags & SAT_TIME_PREFIX) && (flags & SAT_TIME_ZONE_OPTIONAL);
    int Y, M, D, h = 0, mi = 0, s = 0, rc;
    int64_t frac = 0;
    int32_t off = 0;

    /* the date */
    if ((rc = number(&p, end, 4, 0, 9999, flags, &Y)) < 0 || (rc = expect(&p, end, '-')) < 0 ||
        (rc = number(&p, end, 2, 1, 12, flags, &M)) < 0 || (rc = expect(&p, end, '-')) < 0 ||
        (rc = number(&p, end, 2, 1, 31, flags, &D)) < 0)
        return rc;
    int date_only = range && (p == end || (*p == 'Z' && p + 1 == end));

    /* the time */
    if (!date_only) {
        if (range) {
            if (*p == 'T') /* else nothing: a blank in a strptime format matches none */
                p++;
        } else if (p >= end) {
            return SAT_E_TRUNCATED;
        } else if (*p == 'T' || *p == ' ' || (*p == 't' && (flags & SAT_TIME_LOWER_T))) {
            p++;
        } else {
            return SAT_E_FORMAT;
        }
        if ((rc = number(&p, end, 2, 0, 23, flags, &h)) < 0 || (rc = expect(&p, end, ':')) < 0 ||
            (rc = number(&p, end, 2, 0, 59, flags, &mi)) < 0)
            return rc;
        if (!range || (p < end && *p == ':')) {
            if ((rc = expect(&p, end, ':')) < 0 ||
                (rc = number(&p, end, 2, 0, strp ? 61 : 60, flags, &s)) < 0)
                return rc;
        }
        /* the fraction: at least one digit, the first nine kept */
        if (!range && p < end &&
            (*p == '.' || (*p == ',' && (flags & SAT_TIME_DECIMAL_COMMA)))) {
            if (p + 1 < end && is_digit(p[1]))
                p = sat_fraction_ns(p + 1, end, &frac, NULL);
            else if (flags & SAT_TIME_EMPTY_FRACTION)
                p++;
            else if (p + 1 == end && !open_tail)
                return SAT_E_TRUNCATED; /* the digits would have come next */
        }
    }
    if (!strp && (Y < 1970 || Y > 2261 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 ||
                  mi > 59 || s > 60))
        return SAT_E_CORRUPT; /* int64 nanoseconds since 1970 end in April 2262 */

    /* the zone */
    const char *before_zone = p;
    if (flags & SAT_TIME_ZONE_BLANKS)
        while (p < end && *p == ' ')
            p++;
    int zone = 0;
    if (p < end && (*p == 'Z' || (*p == 'z' && !range))) {
        p++;
        zone = 1;
    } else if (p < end && (*p == '+' || *p == '-') && !range) {
        rc = offset(&p, end, flags, &off);
        if (rc < 0 && !open_tail)
            return rc;
        zone = rc == SAT_OK;
    }
    if (!zone) {
        if (!(flags & (SAT_TIME_ZONE_OPTIONAL | SAT_TIME_RANGE_FORMS)))
            return p < end ? SAT_E_FORMAT : SAT_E_TRUNCATED;
        if (flags & SAT_TIME_PREFIX)
            p = before_zone; /* what follows is the line's, not the time's */
    }
    if (!(flags & SAT_TIME_PREFIX) && p != end)
        return SAT_E_FORMAT;

    /* a day past its month's end carries into the next, as a leap second
     * into the next minute (timegm's arithmetic) */
    int64_t secs = sat_days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400 + h * 3600 +
                   mi * 60 + s - off;
    if (secs > (INT64_MAX - frac) / 1000000000LL || secs < INT64_MIN / 1000000000LL)
        return SAT_E_CORRUPT; /* only strptime's years 0..9999 get here */
    *ts = secs * 1000000000LL + frac;
    *off_s = off;
    if (used)
        *used = (size_t)(p - start);
    return SAT_OK;
}
