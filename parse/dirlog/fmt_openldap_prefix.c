/*
 * fmt_openldap_prefix.c - the prefix of an OpenLDAP stats line
 * (fmt_openldap.c): BSD syslog "Mon dd HH:MM:SS host slapd[pid]: " (RFC 3164,
 * no year), RFC 3339 syslog "2024-05-01T12:00:00.123456+02:00 host
 * slapd[pid]: " (RFC 5424 times) and the 2.5 debug / 2.6 logfile
 * "hexsec.hexnsec threadid ".
 */
#include "fmt_openldap_int.h"

/* ---- prefixes --------------------------------------------------------------------- */

/* "hexsec.hexnsec threadid " (2.5 debug output, 2.6 logfile). */
static const char *hex_prefix(const char *p, const char *end, sat_ts_ns *ts)
{
    uint64_t sec = 0, frac = 0;
    const char *s = p;
    while (p < end && hexval(*p) >= 0 && p - s < 16)
        sec = sec * 16 + (uint64_t)hexval(*p++);
    if (p - s < 8 || p >= end || *p != '.')
        return NULL;
    s = ++p;
    while (p < end && hexval(*p) >= 0 && p - s < 8)
        frac = frac * 16 + (uint64_t)hexval(*p++);
    if (p - s != 8 || p >= end || *p != ' ')
        return NULL;
    p++;
    s = p;
    while (p < end && *p != ' ')
        p++;
    if (p == s || p >= end || sec > (uint64_t)INT64_MAX / 2000000000ULL)
        return NULL;
    if (frac >= 1000000000ULL) /* a binary fraction, not nanoseconds */
        frac = (frac * 1000000000ULL) >> 32;
    *ts = (sat_ts_ns)(sec * 1000000000ULL + frac);
    return p + 1;
}

/* "host prog[pid]: " after a syslog timestamp; sets host and whether the
 * program is slapd. */
static const char *syslog_tail(const char *p, const char *end, const char **host,
                               size_t *hlen, int *is_slapd)
{
    if (p >= end || *p != ' ')
        return NULL;
    p++;
    *host = p;
    while (p < end && *p != ' ')
        p++;
    *hlen = (size_t)(p - *host);
    if (*hlen == 0 || p >= end)
        return NULL;
    p++;
    const char *prog = p;
    while (p < end && *p != ' ' && *p != '[' && *p != ':')
        p++;
    size_t plen = (size_t)(p - prog);
    if (p < end && *p == '[') {
        while (p < end && *p != ']')
            p++;
        if (p >= end)
            return NULL;
        p++;
    }
    if (p >= end || *p != ':')
        return NULL;
    p++;
    if (p < end && *p == ' ')
        p++;
    *is_slapd = plen >= 5 && memcmp(prog + plen - 5, "slapd", 5) == 0;
    return p;
}

/* RFC 3339 (RFC 5424's TIMESTAMP): 2024-05-01T12:00:00.123456+02:00 */
static const char *rfc3339(const char *p, const char *end, sat_ts_ns *ts, int32_t *off_s)
{
    size_t used;
    if (sat_parse_rfc3339(p, (size_t)(end - p), SAT_TIME_PREFIX | SAT_TIME_EMPTY_FRACTION, ts,
                          off_s, &used) != SAT_OK)
        return NULL;
    return p + used;
}

/* "Oct 26 03:30:53" (day may be space padded). */
static const char *bsd_time(const char *p, const char *end, int *mon, int *day, int *secs)
{
    int d, h, mi, s;
    if (end - p < 15 || !(*mon = sat_month_of(p)) || p[3] != ' ')
        return NULL;
    if (p[4] == ' ' && is_digit(p[5]))
        d = p[5] - '0';
    else if (fixed_digits(p + 4, end, 2, &d))
        return NULL;
    if (p[6] != ' ' || fixed_digits(p + 7, end, 2, &h) || p[9] != ':' ||
        fixed_digits(p + 10, end, 2, &mi) || p[12] != ':' || fixed_digits(p + 13, end, 2, &s))
        return NULL;
    if (d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return NULL;
    *day = d;
    *secs = h * 3600 + mi * 60 + s;
    return p + 15;
}

int sat_ol_parse_prefix(const char *p, const char *end, prefix *px)
{
    const char *m;
    memset(px, 0, sizeof *px);
    px->is_slapd = 1;
    if (p < end && hexval(*p) >= 0 && (m = hex_prefix(p, end, &px->ts))) {
        px->kind = PFX_HEX;
        px->msg = m;
        return 1;
    }
    if (p < end && is_digit(*p) && (m = rfc3339(p, end, &px->ts, &px->off)) &&
        (m = syslog_tail(m, end, &px->host, &px->hlen, &px->is_slapd))) {
        px->kind = PFX_RFC3339;
        px->msg = m;
        return 1;
    }
    if ((m = bsd_time(p, end, &px->mon, &px->day, &px->secs)) &&
        (m = syslog_tail(m, end, &px->host, &px->hlen, &px->is_slapd))) {
        px->kind = PFX_BSD;
        px->msg = m;
        return 1;
    }
    return 0;
}

sat_ts_ns sat_ol_bsd_ts(int year, const prefix *px)
{
    return (sat_days_from_civil(year, (unsigned)px->mon, (unsigned)px->day) * 86400 + px->secs) *
           1000000000LL;
}
