/*
 * crash_text_time.c - what the prefix of a crash text line tells (crash_text.c):
 * its timestamp (ISO 8601 / RFC 3339 through rfc3339.c, 389's
 * "[10/Jun/2025:14:35:00 +0200]", syslog's RFC 3164 "Jun 10 14:35:00" with the
 * year rule of timefmt.h) and a syslog line's host and program[pid].
 */
#include "crash_text_int.h"

/* ---- timestamps ------------------------------------------------------------------- */
static int dig2(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
static int digs(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!isdig(p[i]))
            return 0;
    return 1;
}

static int civil_ok(int y, int mo, int d, int h, int mi, int s)
{
    /* int64 nanoseconds end in April 2262 */
    return y >= 1970 && y <= 2261 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 &&
           mi < 60 && s <= 60;
}

static sat_ts_ns civil_ns(int y, int mo, int d, int h, int mi, int s, int64_t frac, int off)
{
    int64_t secs = sat_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                   mi * 60 + s - off;
    return secs * 1000000000LL + frac;
}

/* "+02:00", "+0200", "-0500", "Z": seconds east of UTC (0 if none); *e past it. */
static const char *zone(const char *q, const char *end, int *off)
{
    *off = 0;
    if (q < end && *q == 'Z')
        return q + 1;
    if (q < end && (*q == '+' || *q == '-') && end - q >= 3 && digs(q + 1, 2)) {
        int sign = *q == '-' ? -1 : 1, hh = dig2(q + 1), mm = 0;
        const char *r = q + 3;
        if (r < end && *r == ':')
            r++;
        if (end - r >= 2 && digs(r, 2)) {
            mm = dig2(r);
            r += 2;
        } else if (r != q + 3) {
            return q;
        }
        if (hh > 14 || mm > 59)
            return q;
        *off = sign * (hh * 3600 + mm * 60);
        return r;
    }
    return q;
}

/* 2024-03-08T01:00:45.505, 2013-09-25 15:06:23.307320, ...+0000, ...Z: what
 * follows the time on the line is the line's; a zone that is none (no zone
 * is UTC) is left to it */
static int iso_ts(const char *p, const char *end, sat_ts_ns *ts)
{
    int32_t off;
    return sat_parse_rfc3339(p, (size_t)(end - p),
                             SAT_TIME_PREFIX | SAT_TIME_ZONE_OPTIONAL | SAT_TIME_ZONE_FREE |
                                 SAT_TIME_DECIMAL_COMMA,
                             ts, &off, NULL) == SAT_OK;
}

/* 389: [10/Jun/2025:14:35:00.123456789 +0200] */
static int ts389(const char *p, const char *end, sat_ts_ns *ts)
{
    if (end - p < 21 || *p != '[' || !digs(p + 1, 2) || p[3] != '/' || p[7] != '/' ||
        !digs(p + 8, 4) || p[12] != ':' || !digs(p + 13, 2) || p[15] != ':' ||
        !digs(p + 16, 2) || p[18] != ':' || !digs(p + 19, 2))
        return 0;
    int mo = sat_month_of(p + 4);
    int d = dig2(p + 1), y = dig2(p + 8) * 100 + dig2(p + 10), h = dig2(p + 13),
        mi = dig2(p + 16), s = dig2(p + 19);
    if (!mo || !civil_ok(y, mo, d, h, mi, s))
        return 0;
    const char *q = p + 21;
    int64_t frac = 0;
    if (q + 1 < end && *q == '.' && isdig(q[1]))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    int off = 0;
    if (q < end && *q == ' ')
        zone(q + 1, end, &off);
    *ts = civil_ns(y, mo, d, h, mi, s, frac, off);
    return 1;
}

/* syslog: "Jun 10 14:35:00", "Jun  2 14:35:00" (no year, no zone: UTC) */
static int syslog_ts(sat_crash_text *ct, const char *p, const char *end, sat_ts_ns *ts,
                     const char **e)
{
    if (end - p < 15 || p[3] != ' ')
        return 0;
    int mo = sat_month_of(p);
    if (!mo)
        return 0;
    int d;
    if (p[4] == ' ' && isdig(p[5]))
        d = p[5] - '0';
    else if (digs(p + 4, 2))
        d = dig2(p + 4);
    else
        return 0;
    const char *t = p + 6;
    if (*t != ' ' || !digs(t + 1, 2) || t[3] != ':' || !digs(t + 4, 2) || t[6] != ':' ||
        !digs(t + 7, 2))
        return 0;
    int h = dig2(t + 1), mi = dig2(t + 4), s = dig2(t + 7);
    if (!ct->year) /* the one year rule, as for every year-less log */
        ct->year = sat_year_for(mo, d, h * 3600 + mi * 60 + s, ct->opts.year_ref);
    if (ct->last_month == 12 && mo == 1)
        ct->year++; /* the log went past New Year */
    ct->last_month = mo;
    if (!civil_ok(ct->year, mo, d, h, mi, s))
        return 0;
    const char *q = t + 9;
    int64_t frac = 0;
    if (q + 1 < end && *q == '.' && isdig(q[1]))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    *ts = civil_ns(ct->year, mo, d, h, mi, s, frac, 0);
    if (e)
        *e = q;
    return 1;
}

/* The first timestamp among a prefix's first bytes, 0 if none. */
sat_ts_ns sat_ct_ts_in(sat_crash_text *ct, const char *p, const char *end)
{
    if (end - p > 160)
        end = p + 160;
    sat_ts_ns ts;
    for (const char *q = p; q < end; q++) {
        if (q > p && isalnum_(q[-1]))
            continue; /* timestamps start a word */
        if ((isdig(*q) && iso_ts(q, end, &ts)) || (*q == '[' && ts389(q, end, &ts)) ||
            (*q >= 'A' && *q <= 'Z' && syslog_ts(ct, q, end, &ts, NULL)))
            return ts;
    }
    return 0;
}

/* ---- the prefix's facts: time, syslog host and program[pid] --------------------------- */
void sat_ct_prefix_facts(sat_crash_text *ct, block *b, const char *p, const char *e)
{
    b->ts = sat_ct_ts_in(ct, p, e);
    /* "Jun 10 14:35:00 host prog[1234]: " or "2025-06-10T14:35:00+02:00 host prog[1234]: " */
    const char *q = NULL;
    sat_ts_ns ts;
    if (syslog_ts(ct, p, e, &ts, &q)) {
        /* q is past the time */
    } else if (iso_ts(p, e, &ts) && p[10] == 'T') {
        for (q = p + 19; q < e && !isblank_(*q); q++)
            ;
    } else {
        return;
    }
    q = skip_blanks(q, e);
    const char *host = q;
    while (q < e && !isblank_(*q))
        q++;
    if (q == host || q >= e)
        return;
    const char *host_end = q;
    q = skip_blanks(q, e);
    const char *tag = q;
    while (q < e && *q != '[' && *q != ':' && !isblank_(*q))
        q++;
    if (q == tag || q >= e || *q != '[')
        return;
    const char *tag_end = q;
    int32_t pid;
    const char *r = sat_ct_dec_num(q + 1, e, &pid);
    if (!r || r >= e || *r != ']')
        return;
    b->host = sat_ct_keep(ct, b, host, (size_t)(host_end - host));
    b->tag = sat_ct_keep(ct, b, tag, (size_t)(tag_end - tag));
    b->pid = pid;
}
