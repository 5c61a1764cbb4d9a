/*
 * http_time.c - the timestamps of HTTP access logs, to UTC nanoseconds with
 * the offset they were written with:
 *   CLF (NCSA Common Log Format, as nginx $time_local, Apache %t and Tomcat %t
 *   write it): "01/Dec/2026:16:45:44 +0000", in [ ] or not, a fraction after
 *   the seconds accepted;
 *   ISO 8601 / RFC 3339 (nginx $time_iso8601): "2026-12-01T16:45:44+00:00",
 *   'T' or ' ', a fraction, "Z", "+hh:mm" or "+hhmm" (parse/rfc3339.c);
 *   strftime(3) formats (Apache %{format}t; Tomcat's SimpleDateFormat patterns
 *   are converted to these by http_format_pct.c): the conversions %Y %y %m %d
 *   %e %H %I %p %M %S %j %b %h %B %a %A %z %Z %T %R %D %F %s %n %t %%, and the
 *   internal %L (3 digits of milliseconds, SimpleDateFormat's SSS). A format
 *   without %z or %s is read as UTC (Apache writes %{...}t in local time:
 *   give %z to keep it exact).
 * Epoch figures ($msec, %{msec}t, Tomcat %{begin:msec}t) are plain numbers:
 * http_row.c reads them.
 */
#include "http_int.h"
#include "timefmt.h"

#include <strings.h>

static sat_ts_ns civil_ns(int y, int mo, int d, int h, int mi, int s, int32_t off)
{
    int64_t days = sat_days_from_civil(y, (unsigned)mo, (unsigned)d);
    return ((days * 86400 + h * 3600 + mi * 60 + s) - off) * 1000000000LL;
}

static int valid_civil(int y, int mo, int d, int h, int mi, int s)
{
    /* 2261: the last year an int64 ns timestamp holds */
    return y >= 1970 && y <= 2261 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 &&
           mi <= 59 && s <= 60;
}

/* "+hhmm" or "+hh:mm" or "Z"; returns the byte after, or NULL. */
static const char *zone(const char *p, const char *end, int32_t *off, int allow_colon)
{
    if (p < end && (*p == 'Z' || *p == 'z')) {
        *off = 0;
        return p + 1;
    }
    if (p >= end || (*p != '+' && *p != '-'))
        return NULL;
    int sign = *p == '-' ? -1 : 1;
    int hh = hx_fixed(p + 1, end, 2);
    if (hh < 0)
        return NULL;
    const char *q = p + 3;
    if (allow_colon && q < end && *q == ':')
        q++;
    int mm = hx_fixed(q, end, 2);
    if (mm < 0 || hh > 23 || mm > 59)
        return NULL;
    *off = sign * (hh * 3600 + mm * 60);
    return q + 2;
}

int sat_http_time_clf(const char *p, size_t n, sat_ts_ns *ts, int32_t *off)
{
    const char *end = p + n;
    if (p < end && *p == '[') {
        if (end[-1] != ']')
            return -1;
        p++;
        end--;
    }
    /* dd/Mon/yyyy:HH:MM:SS +zzzz */
    if (end - p < 26 || p[2] != '/' || p[6] != '/' || p[11] != ':' || p[14] != ':' ||
        p[17] != ':')
        return -1;
    int d = hx_fixed(p, end, 2), mo = sat_month_of(p + 3), y = hx_fixed(p + 7, end, 4);
    int h = hx_fixed(p + 12, end, 2), mi = hx_fixed(p + 15, end, 2),
        s = hx_fixed(p + 18, end, 2);
    if (d < 0 || y < 0 || h < 0 || mi < 0 || s < 0 || !valid_civil(y, mo, d, h, mi, s))
        return -1;
    const char *q = p + 20;
    int64_t frac = 0;
    if (q < end && (*q == '.' || *q == ','))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    if (q >= end || *q != ' ')
        return -1;
    int32_t o;
    q = zone(q + 1, end, &o, 0);
    if (!q || q != end)
        return -1;
    *ts = civil_ns(y, mo, d, h, mi, s, o) + frac;
    *off = o;
    return 0;
}

int sat_http_time_iso(const char *p, size_t n, sat_ts_ns *ts, int32_t *off)
{
    /* nginx writes the host's zone, which may be none; ',' and an empty
     * fraction have always been read too */
    return sat_parse_rfc3339(p, n,
                             SAT_TIME_ZONE_OPTIONAL | SAT_TIME_DECIMAL_COMMA |
                                 SAT_TIME_EMPTY_FRACTION,
                             ts, off, NULL) == SAT_OK
               ? 0
               : -1;
}

/* ---- strftime subsets -------------------------------------------------------------- */
typedef struct strf_tm {
    int y, mo, d, h, mi, s, yday, pm; /* pm: -1 unknown, 0 AM, 1 PM (with %I) */
    int h12;
    int64_t frac;
    int32_t off;
    int have_epoch;
    int64_t epoch;
} strf_tm;

/* Up to max digits (at least one), an optional leading blank for %e. */
static const char *num(const char *p, const char *end, int max, int *out)
{
    int v = 0, k = 0;
    while (p < end && k < max && hx_digit(*p)) {
        v = v * 10 + (*p - '0');
        p++;
        k++;
    }
    if (!k)
        return NULL;
    *out = v;
    return p;
}

static const char *name_of(const char *p, const char *end, const char *const *names,
                           int count, int *out)
{
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if ((size_t)(end - p) >= n && strncasecmp(p, names[i], n) == 0) {
            *out = i;
            return p + n;
        }
    }
    return NULL;
}

static const char *const months_long[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};
static const char *const months_short[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const days_long[] = {"Sunday", "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday"};
static const char *const days_short[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

/* One conversion c at p. Returns the byte after, or NULL. depth bounds the
 * composite ones (%T = %H:%M:%S). */
static const char *conv(char c, const char *p, const char *end, strf_tm *t, int depth);

static const char *run(const char *f, const char *fe, const char *p, const char *end,
                       strf_tm *t, int depth)
{
    while (f < fe && p) {
        if (*f == '%' && f + 1 < fe) {
            char c = f[1];
            f += 2;
            while ((c == 'E' || c == 'O' || c == '-' || c == '_' || c == '0') && f < fe)
                c = *f++; /* glibc's flags and modifiers read as the plain conversion */
            p = conv(c, p, end, t, depth);
        } else if (*f == ' ') {
            f++;
            while (p < end && *p == ' ')
                p++; /* strptime's rule: a blank matches any run of blanks */
        } else {
            if (p >= end || *p != *f)
                return NULL;
            p++;
            f++;
        }
    }
    return p;
}

static const char *conv(char c, const char *p, const char *end, strf_tm *t, int depth)
{
    int v, i;
    if (depth > 2)
        return NULL;
    switch (c) {
    case 'Y': {
        const char *q = num(p, end, 4, &v);
        if (q)
            t->y = v;
        return q;
    }
    case 'y': {
        const char *q = num(p, end, 2, &v);
        if (q)
            t->y = v < 69 ? 2000 + v : 1900 + v; /* POSIX's pivot */
        return q;
    }
    case 'm': {
        const char *q = num(p, end, 2, &t->mo);
        return q;
    }
    case 'e':
        if (p < end && *p == ' ')
            p++;
        /* fallthrough */
    case 'd':
        return num(p, end, 2, &t->d);
    case 'H':
    case 'k':
        while (c == 'k' && p < end && *p == ' ')
            p++;
        return num(p, end, 2, &t->h);
    case 'I':
    case 'l':
        while (c == 'l' && p < end && *p == ' ')
            p++;
        return num(p, end, 2, &t->h12);
    case 'p':
        if (end - p >= 2 && (p[1] == 'M' || p[1] == 'm')) {
            if (p[0] == 'A' || p[0] == 'a')
                t->pm = 0;
            else if (p[0] == 'P' || p[0] == 'p')
                t->pm = 1;
            else
                return NULL;
            return p + 2;
        }
        return NULL;
    case 'M':
        return num(p, end, 2, &t->mi);
    case 'S':
        return num(p, end, 2, &t->s);
    case 'L': { /* milliseconds, exactly 3 digits */
        int ms = hx_fixed(p, end, 3);
        if (ms < 0)
            return NULL;
        t->frac = ms * 1000000LL;
        return p + 3;
    }
    case 'j':
        return num(p, end, 3, &t->yday);
    case 'b':
    case 'h':
        p = name_of(p, end, months_short, 12, &i);
        if (p)
            t->mo = i + 1;
        return p;
    case 'B': {
        const char *q = name_of(p, end, months_long, 12, &i);
        if (!q)
            q = name_of(p, end, months_short, 12, &i);
        if (q)
            t->mo = i + 1;
        return q;
    }
    case 'a':
        return name_of(p, end, days_short, 7, &i);
    case 'A': {
        const char *q = name_of(p, end, days_long, 7, &i);
        return q ? q : name_of(p, end, days_short, 7, &i);
    }
    case 'z':
        return zone(p, end, &t->off, 1);
    case 'Z': /* only the names of UTC: another zone's name does not say its offset */
        if (end - p >= 3 && (!strncmp(p, "UTC", 3) || !strncmp(p, "GMT", 3))) {
            t->off = 0;
            return p + 3;
        }
        return NULL;
    case 's': {
        int64_t e = 0;
        const char *s0 = p;
        while (p < end && hx_digit(*p) && p - s0 < 12)
            e = e * 10 + (*p++ - '0');
        if (p == s0 || e > 9000000000LL) /* an int64 of ns holds up to 2262 */
            return NULL;
        t->have_epoch = 1;
        t->epoch = e;
        return p;
    }
    case 'T': {
        static const char f[] = "%H:%M:%S";
        return run(f, f + 8, p, end, t, depth + 1);
    }
    case 'R': {
        static const char f[] = "%H:%M";
        return run(f, f + 5, p, end, t, depth + 1);
    }
    case 'D': {
        static const char f[] = "%m/%d/%y";
        return run(f, f + 8, p, end, t, depth + 1);
    }
    case 'F': {
        static const char f[] = "%Y-%m-%d";
        return run(f, f + 8, p, end, t, depth + 1);
    }
    case 'n':
    case 't':
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        return p;
    case '%':
        return p < end && *p == '%' ? p + 1 : NULL;
    default:
        return NULL;
    }
}

/* The strftime conversions this reader knows (the compiler checks a format
 * with it, so that a line is never read with one it does not). */
int sat_http_strf_supported(const char *fmt)
{
    static const char known[] = "YymdeHkIlpMSLjbhBaAzZsTRDFnt%";
    for (const char *f = fmt; *f; f++) {
        if (*f != '%')
            continue;
        f++;
        while (*f == 'E' || *f == 'O' || *f == '-' || *f == '_' || *f == '0')
            f++;
        if (!*f || !strchr(known, *f))
            return 0;
    }
    return 1;
}

int sat_http_time_strf(const char *fmt, const char *p, size_t n, sat_ts_ns *ts, int32_t *off)
{
    strf_tm t;
    memset(&t, 0, sizeof t);
    t.y = 1970;
    t.mo = 1;
    t.d = 1;
    t.pm = -1;
    t.h12 = -1;
    const char *end = p + n;
    const char *q = run(fmt, fmt + strlen(fmt), p, end, &t, 0);
    if (!q || q != end)
        return -1;
    if (t.have_epoch) {
        *ts = t.epoch * 1000000000LL + t.frac;
        *off = t.off;
        return 0;
    }
    if (t.h12 >= 0) {
        if (t.h12 < 1 || t.h12 > 12)
            return -1;
        t.h = t.h12 % 12 + (t.pm == 1 ? 12 : 0);
    }
    if (t.yday > 0) {
        if (t.yday > 366)
            return -1;
        int64_t days = sat_days_from_civil(t.y, 1, 1) + t.yday - 1;
        if (!valid_civil(t.y, 1, 1, t.h, t.mi, t.s))
            return -1;
        *ts = ((days * 86400 + t.h * 3600 + t.mi * 60 + t.s) - t.off) * 1000000000LL + t.frac;
        *off = t.off;
        return 0;
    }
    if (!valid_civil(t.y, t.mo, t.d, t.h, t.mi, t.s))
        return -1;
    *ts = civil_ns(t.y, t.mo, t.d, t.h, t.mi, t.s, t.off) + t.frac;
    *off = t.off;
    return 0;
}
