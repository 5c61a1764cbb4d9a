/*
 * report_read.c - reading results for the report builders and renderers
 * (report_doc_int.h): typed values out of result trees, the clock every
 * form shows times on, values in human form.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <string.h>
#include <time.h>

#include "doc_int.h"

const sat_rnode *rd_root(const sat_result_set *s, const char *name)
{
    for (size_t i = 0; s && name && i < s->n; i++)
        if (s->results[i] && !strcmp(sat_result_command(s->results[i]), name))
            return sat_result_root(s->results[i]);
    return NULL;
}

int64_t rd_ts(const sat_value *v)
{
    if (!v || v->absent)
        return 0;
    if (v->unit == SAT_UNIT_TIME || v->unit == SAT_UNIT_INT)
        return v->v.i;
    if (v->unit == SAT_UNIT_COUNT)
        return (int64_t)v->v.u;
    return 0;
}

const char *rd_text(const sat_value *v)
{
    return v && !v->absent && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

int rd_bool(const sat_value *v)
{
    if (!v || v->absent || v->unit != SAT_UNIT_BOOL)
        return -1;
    return v->v.i != 0;
}

const sat_rnode *rd_table(const sat_rnode *o, const char *path)
{
    const sat_rnode *t = o ? sat_rnode_get(o, path) : NULL;
    return t && sat_rnode_kind_of(t) == SAT_RN_TABLE ? t : NULL;
}

const sat_rnode *rd_list(const sat_rnode *o, const char *key)
{
    const sat_rnode *l = o ? sat_rnode_get(o, key) : NULL;
    return l && sat_rnode_kind_of(l) == SAT_RN_LIST ? l : NULL;
}

const sat_rnode *rd_block_rows(const sat_rnode *block, uint64_t *total)
{
    const sat_rnode *t = rd_table(block, "body");
    double n = rd_onum(block, "rows_total");
    if (total)
        *total = isfinite(n) ? (uint64_t)n : (uint64_t)sat_rnode_count(t);
    return t;
}

/* ---- the clock ------------------------------------------------------------------ */

static int same_day(int64_t a, int64_t b, int32_t off)
{
    int64_t da = (a / 1000000000 + off) / 86400, db = (b / 1000000000 + off) / 86400;
    return da == db;
}

rd_clock rd_clock_at(int32_t utc_offset_s, int utc, int64_t first_ts, int64_t last_ts)
{
    rd_clock c;
    memset(&c, 0, sizeof c);
    c.utc = utc;
    c.offset_s = utc ? 0 : utc_offset_s;
    c.dates = first_ts && last_ts && !same_day(first_ts, last_ts, c.offset_s);
    return c;
}

rd_clock rd_clock_of(const sat_rnode *root, int utc)
{
    double off = rd_onum(root, "utc_offset_s");
    return rd_clock_at(isfinite(off) ? (int32_t)off : 0, utc, rd_ots(root, "first_ts"),
                       rd_ots(root, "last_ts"));
}

static void fmt_clock(char *buf, size_t n, const rd_clock *c, int64_t ts, int date)
{
    if (!ts) {
        snprintf(buf, n, "-");
        return;
    }
    int64_t s = ts / 1000000000, ns = ts % 1000000000;
    if (ns < 0) {
        ns += 1000000000;
        s--;
    }
    time_t t = (time_t)(s + c->offset_s);
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, n, "-");
        return;
    }
    char base[40];
    strftime(base, sizeof base, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
    int ms = (int)(ns / 1000000);
    if (ms) {
        char f[8];
        snprintf(f, sizeof f, "%03d", ms);
        for (int i = 2; i > 0 && f[i] == '0'; i--)
            f[i] = '\0';
        snprintf(buf, n, "%s.%s", base, f);
    } else {
        snprintf(buf, n, "%s", base);
    }
}

void rd_fmt_time(char *buf, size_t n, const rd_clock *c, int64_t ts_ns)
{
    fmt_clock(buf, n, c, ts_ns, c->dates);
}

void rd_fmt_datetime(char *buf, size_t n, const rd_clock *c, int64_t ts_ns)
{
    fmt_clock(buf, n, c, ts_ns, 1);
}

void rd_fmt_zone(char *buf, size_t n, const rd_clock *c)
{
    if (c->utc || c->offset_s == 0) {
        snprintf(buf, n, "UTC");
        return;
    }
    int32_t o = c->offset_s < 0 ? -c->offset_s : c->offset_s;
    snprintf(buf, n, "UTC%c%02d:%02d", c->offset_s < 0 ? '-' : '+', (int)(o / 3600),
             (int)(o % 3600 / 60));
}

void rd_fmt_value(char *buf, size_t n, const rd_clock *c, const sat_value *v)
{
    if (v && !v->absent && v->unit == SAT_UNIT_TIME)
        rd_fmt_time(buf, n, c, v->v.i);
    else
        sat_fmt_value(buf, n, v);
}

void rd_col_title(char *buf, size_t n, const sat_col *col)
{
    if (col->title)
        snprintf(buf, n, "%s", col->title);
    else
        sat_key_label(buf, n, col->name);
}
