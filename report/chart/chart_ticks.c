/*
 * chart_ticks.c - where an axis puts its ticks and what they read.
 *
 * Value axes step by 1, 2 or 5 times a power of ten (bytes: of a power of
 * 1024, so ticks read "256 KiB", "512 KiB"; durations past a minute: of
 * minutes or hours), log axes by decades (bytes: powers of two) with 2 and 5
 * between when the decades are few. Time axes step by a round number of
 * seconds, minutes, hours or days in the local time of the UTC offset given,
 * so a tick is where a clock on the server's wall would read a round time;
 * the date is written under the first tick and wherever it changes (a
 * midnight crossed). Labels carry their unit ("10 ms", "45%", "1 MiB",
 * "1.2k") through the project's human formats, trailing zeros trimmed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chart_int.h"
#include "satscope/report.h"

double ch_nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    double m = pow(10, floor(log10(raw)));
    double f = raw / m;
    /* f lies in [1, 10); a hair over a step (rounding) still takes it */
    double k = f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10;
    return k * m;
}

/* Ticks at multiples of step within [lo, hi]. */
static size_t multiples(double lo, double hi, double step, double *v, size_t max)
{
    size_t n = 0;
    double first = ceil(lo / step - 1e-9);
    for (double k = first; n < max; k++) {
        double t = k * step;
        if (t > hi + step * 1e-9)
            break;
        if (fabs(t) < step * 1e-9)
            t = 0;
        v[n++] = t;
    }
    return n;
}

size_t ch_ticks_linear(double *lo, double *hi, int expand, sat_unit unit, int target, double *v,
                       size_t max)
{
    if (target < 2)
        target = 2;
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    if (!(*hi > *lo))
        *hi = *lo + (*lo == 0 ? 1 : fabs(*lo));
    double raw = (*hi - *lo) / target;
    double step;
    if (unit == SAT_UNIT_BYTES) {
        /* steps of 1-2-5 in the binary unit the range is told in */
        double base = 1;
        while (base * 1024 <= fmax(fabs(*hi), fabs(*lo)) && base < 1099511627776.0)
            base *= 1024;
        step = fmax(ch_nice_step(raw / base) * base, 1);
    } else if (unit == SAT_UNIT_DURATION && raw >= 45) {
        /* minutes and hours, in steps a clock has */
        static const double steps[] = {60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
                                       86400};
        step = 0;
        for (size_t i = 0; i < sizeof steps / sizeof steps[0] && !step; i++)
            if (steps[i] >= raw)
                step = steps[i];
        if (!step)
            step = ch_nice_step(raw / 86400) * 86400;
    } else if (unit == SAT_UNIT_COUNT || unit == SAT_UNIT_INT) {
        step = fmax(ch_nice_step(raw), 1); /* no tick between whole numbers */
    } else {
        step = ch_nice_step(raw);
    }
    if (expand) {
        *lo = floor(*lo / step + 1e-9) * step;
        *hi = ceil(*hi / step - 1e-9) * step;
        if (!(*hi > *lo))
            *hi = *lo + step;
    }
    return multiples(*lo, *hi, step, v, max);
}

size_t ch_ticks_log(double *lo, double *hi, int expand, sat_unit unit, int target, double *v,
                    size_t max)
{
    if (target < 2)
        target = 2;
    if (!(*hi > 0) || !isfinite(*hi))
        *hi = 1;
    if (!(*lo > 0) || !isfinite(*lo) || *lo >= *hi)
        *lo = *hi / 10;
    size_t n = 0;
    if (unit == SAT_UNIT_BYTES) {
        double a = floor(log2(*lo) + 1e-9), b = ceil(log2(*hi) - 1e-9);
        if (b <= a)
            b = a + 1;
        if (expand) {
            *lo = exp2(a);
            *hi = exp2(b);
        }
        static const int ks[] = {1, 2, 5, 10, 20};
        int k = 20;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            if ((b - a) / ks[i] <= target) {
                k = ks[i];
                break;
            }
        for (double e = ceil(a / k) * k; e <= b && n < max; e += k) {
            double t = exp2(e);
            if (t >= *lo * (1 - 1e-9) && t <= *hi * (1 + 1e-9))
                v[n++] = t;
        }
        return n;
    }
    double a = floor(log10(*lo) + 1e-9), b = ceil(log10(*hi) - 1e-9);
    if (b <= a)
        b = a + 1;
    if (expand) {
        *lo = pow(10, a);
        *hi = pow(10, b);
    }
    double nd = b - a;
    static const double few[] = {1, 2, 5}, all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const double *ms = NULL;
    size_t nms = 0;
    int k = 1;
    if (nd * 3 <= target) {
        ms = few;
        nms = 3;
    } else {
        ms = few;
        nms = 1;
        k = (int)ceil(nd / target);
    }
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (double e = ceil(a / k) * k; e <= b && n < max; e += k)
            for (size_t i = 0; i < nms && n < max; i++) {
                double t = ms[i] * pow(10, e);
                if (t >= *lo * (1 - 1e-9) && t <= *hi * (1 + 1e-9))
                    v[n++] = t;
            }
        if (n >= 2)
            break;
        ms = all; /* less than a decade shown: every digit */
        nms = 9;
        k = 1;
    }
    return n;
}

size_t ch_ticks_time(double lo, double hi, int32_t utc_offset_s, int target, double *v, size_t max,
                     double *step)
{
    static const double steps[] = {1,    2,    5,    10,    15,    30,    60,    120,   300,
                                   600,  900,  1800, 3600,  7200,  10800, 21600, 43200, 86400,
                                   172800, 604800};
    if (target < 2)
        target = 2;
    if (!(hi > lo))
        hi = lo + 1;
    double raw = (hi - lo) / target, st = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && !st; i++)
        if (steps[i] >= raw)
            st = steps[i];
    if (!st)
        st = ceil(raw / 604800) * 604800;
    *step = st;
    /* round in local time: a tick is where local time is a multiple of the step */
    double off = utc_offset_s;
    size_t n = multiples(lo + off, hi + off, st, v, max);
    for (size_t i = 0; i < n; i++)
        v[i] -= off;
    return n;
}

/* Trims the trailing zeros of the first number in buf: "1.50 ms" -> "1.5 ms",
 * "2.00" -> "2". */
static void trim_zeros(char *buf)
{
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = dot + 1;
    while (*end >= '0' && *end <= '9')
        end++;
    char *z = end;
    while (z > dot + 1 && z[-1] == '0')
        z--;
    if (z == dot + 1)
        z = dot;
    memmove(z, end, strlen(end) + 1);
}

void ch_tick_label(char *buf, size_t n, sat_unit unit, double v)
{
    char t[64];
    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return;
    }
    switch (unit) {
    case SAT_UNIT_DURATION:
        if (fabs(v) >= 60 && fmod(v, 3600) == 0)
            snprintf(buf, n, "%.0f h", v / 3600);
        else if (fabs(v) >= 60 && fmod(v, 60) == 0)
            snprintf(buf, n, "%.0f min", v / 60);
        else
            sat_fmt_duration(buf, n, v);
        break;
    case SAT_UNIT_BYTES: sat_fmt_bytes(buf, n, v > 0 && v < 1.8e19 ? (uint64_t)llround(v) : 0); break;
    case SAT_UNIT_RATIO:
        sat_fmt_sig3(t, sizeof t, v * 100);
        trim_zeros(t);
        snprintf(buf, n, "%s%%", t);
        return;
    default: {
        static const double scale[] = {1e9, 1e6, 1e3};
        static const char *const suffix[] = {"G", "M", "k"};
        for (size_t i = 0; i < 3; i++)
            if (fabs(v) >= (i == 2 ? 1e4 : scale[i])) {
                sat_fmt_sig3(t, sizeof t, v / scale[i]);
                trim_zeros(t);
                snprintf(buf, n, "%s%s", t, suffix[i]);
                return;
            }
        sat_fmt_sig3(buf, n, v);
        break;
    }
    }
    trim_zeros(buf);
}

void ch_time_label(char *buf, size_t n, char *date, size_t dn, double t, int32_t utc_offset_s,
                   double step)
{
    time_t lt = ch_secs(t + utc_offset_s + 1e-6);
    struct tm tm = {0};
    if (!gmtime_r(&lt, &tm)) /* out of range: zeros rather than garbage */
        memset(&tm, 0, sizeof tm);
    if (date)
        snprintf(date, dn, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    if (step >= 86400)
        snprintf(buf, n, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    else if (step >= 60)
        snprintf(buf, n, "%02d:%02d", tm.tm_hour, tm.tm_min);
    else
        snprintf(buf, n, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void ch_zone_name(char *buf, size_t n, int32_t utc_offset_s, int utc)
{
    if (utc || utc_offset_s == 0) {
        snprintf(buf, n, "UTC");
        return;
    }
    int32_t a = utc_offset_s < 0 ? -utc_offset_s : utc_offset_s;
    snprintf(buf, n, "UTC%c%02d:%02d", utc_offset_s < 0 ? '-' : '+', (int)(a / 3600),
             (int)(a % 3600 / 60));
}

#define CH_MAX_TICKS 64

int ch_axis_ticks(sat_chart *c, ch_axis *a, int target, int expand)
{
    double v[CH_MAX_TICKS];
    size_t n = 0;
    double step = 0;
    ch_axis_clear_layout(a);
    switch (a->scale) {
    case SAT_AXIS_LOG: n = ch_ticks_log(&a->lo, &a->hi, expand, a->unit, target, v, CH_MAX_TICKS); break;
    case SAT_AXIS_TIME:
        n = ch_ticks_time(a->lo, a->hi, c->utc ? 0 : c->tz, target, v, CH_MAX_TICKS, &step);
        break;
    case SAT_AXIS_CATEGORY: n = 0; break;
    default: n = ch_ticks_linear(&a->lo, &a->hi, expand, a->unit, target, v, CH_MAX_TICKS); break;
    }
    if (!n)
        return 0;
    a->ticks = calloc(n, sizeof *a->ticks);
    if (!a->ticks) {
        c->status = SAT_E_NOMEM;
        return SAT_E_NOMEM;
    }
    char prev_date[32] = "";
    for (size_t i = 0; i < n; i++) {
        char buf[64], date[32];
        a->ticks[i].v = v[i];
        if (a->scale == SAT_AXIS_TIME) {
            ch_time_label(buf, sizeof buf, date, sizeof date, v[i], c->utc ? 0 : c->tz, step);
            if (step < 86400 && strcmp(date, prev_date) != 0)
                a->ticks[i].label2 = ch_strdup(c, date);
            snprintf(prev_date, sizeof prev_date, "%s", date);
        } else {
            ch_tick_label(buf, sizeof buf, a->unit, v[i]);
        }
        a->ticks[i].label = ch_strdup(c, buf);
    }
    a->nticks = n;
    return c->status;
}
