/*
 * doc_read.c - what the forms of a document share (doc_int.h): a table
 * block's rows, the clock every form shows times on, values in human form.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <string.h>
#include <time.h>

#include "doc_int.h"

const sat_rnode *rd_block_rows(const sat_rnode *block, uint64_t *total)
{
    const sat_rnode *t = sat_get_table(block, "body");
    double n = sat_get_num(block, "rows_total", NAN);
    if (total)
        *total = isfinite(n) ? (uint64_t)n : (uint64_t)sat_rnode_count(t);
    return t;
}

size_t rd_block_cols(const sat_rnode *block, int narrow, sat_col *out, size_t max)
{
    size_t ncols, n = 0;
    const sat_col *cols = sat_table_cols(rd_block_rows(block, NULL), &ncols);
    const sat_rnode *wide = narrow ? sat_get_list(block, "wide_only") : NULL;
    for (size_t i = 0; i < ncols && n < max; i++) {
        int skip = 0;
        for (const sat_rnode *w = sat_rnode_first(wide); w && !skip; w = sat_rnode_next(w))
            skip = !strcmp(sat_get_text(w, NULL, ""), cols[i].name);
        if (!skip)
            out[n++] = cols[i];
    }
    return n;
}

const char *rd_block_highlight(const sat_rnode *block, const sat_rnode *row)
{
    const char *col = sat_get_text(block, "highlight", NULL);
    if (!col || !row)
        return NULL;
    const sat_value *v = sat_row_get(row, col);
    if (!v || v->absent)
        return NULL;
    int on = v->unit == SAT_UNIT_BOOL ? v->v.u != 0 : sat_get_num(row, col, 0) > 0;
    return on ? col : NULL;
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
    double off = sat_get_num(root, "utc_offset_s", NAN);
    rd_clock c = rd_clock_at(isfinite(off) ? (int32_t)off : 0, utc,
                             sat_get_time(root, "first_ts", 0), sat_get_time(root, "last_ts", 0));
    const char *kind = sat_get_text(root, "kind", NULL);
    c.rfc3339 = kind && !strcmp(kind, "command");
    return c;
}

static void fmt_clock(char *buf, size_t n, const rd_clock *c, int64_t ts, int date)
{
    if (!ts) {
        snprintf(buf, n, "-");
        return;
    }
    if (c->rfc3339) {
        sat_fmt_ts(buf, n, ts);
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
