/*
 * text_timeline.c - the text form of `satscope timeline` (docs/output.md
 * "Text"), read from the result only (analyze/timeline_result.c): what was
 * read and over what span, the totals and latency, the busiest windows, the
 * hours of local time and the inputs on the one time axis. The full series
 * is for charts and scripts (--json, --csv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/report.h"

static const sat_value *val(const sat_rnode *o, const char *path)
{
    return sat_rnode_value(sat_rnode_get(o, path));
}

static uint64_t count_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v && !v->absent && v->unit == SAT_UNIT_COUNT ? v->v.u : 0;
}

static double dur_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v && !v->absent && v->unit == SAT_UNIT_DURATION ? v->v.d : 0;
}

static const char *fv(const sat_rnode *o, const char *path, char *buf, size_t n)
{
    sat_fmt_value(buf, n, val(o, path));
    return buf;
}

/* "UTC", "UTC+02:00", "UTC-05:30" */
static const char *zone(char *buf, size_t n, long off)
{
    if (!off)
        snprintf(buf, n, "UTC");
    else
        snprintf(buf, n, "UTC%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 3600,
                 labs(off) % 3600 / 60);
    return buf;
}

/* The hours table's columns for text: the fixed ones, then the ops.<TYPE>
 * columns of the TYPE_COLS_TEXT types with the most operations (in the
 * table's order), so that a line fits the width. */
#define TYPE_COLS_TEXT 4
static void type_cols(const sat_rnode *table, char *buf, size_t n, const char *prefix)
{
    size_t ncols;
    const sat_col *c = sat_table_cols(table, &ncols);
    uint64_t tot[64];
    size_t nt = ncols < 64 ? ncols : 64;
    for (size_t i = 0; i < nt; i++) {
        tot[i] = 0;
        if (strncmp(c[i].name, "ops.", 4))
            continue;
        for (const sat_rnode *row = sat_rnode_first(table); row; row = sat_rnode_next(row)) {
            const sat_value *v = sat_row_get(row, c[i].name);
            tot[i] += v && !v->absent && v->unit == SAT_UNIT_COUNT ? v->v.u : 0;
        }
        tot[i] += 1; /* a type column present, even if empty in every row */
    }
    snprintf(buf, n, "%s", prefix);
    for (size_t i = 0; i < nt; i++) {
        if (!tot[i])
            continue;
        size_t better = 0; /* columns with more operations (the earlier of a tie) */
        for (size_t j = 0; j < nt; j++)
            better += tot[j] > tot[i] || (tot[j] == tot[i] && j < i);
        if (better < TYPE_COLS_TEXT && strlen(buf) + 2 * strlen(c[i].name) + 2 < n)
            snprintf(buf + strlen(buf), n - strlen(buf), ",%s=%s", c[i].name, c[i].name + 4);
    }
}

/* "hour", "day", else the window in human units. */
static const char *window_name(char *buf, size_t n, int64_t ns)
{
    if (ns == 3600 * 1000000000LL)
        snprintf(buf, n, "hour");
    else if (ns == 86400 * 1000000000LL)
        snprintf(buf, n, "day");
    else
        sat_fmt_duration(buf, n, (double)ns / 1e9);
    return buf;
}

/* "GET 540, POST 12" from a compact object of counts. */
static void counts_line(const sat_rnode *o, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = '\0';
    for (const sat_rnode *c = sat_rnode_first(o); c && l < n; c = sat_rnode_next(c)) {
        const sat_value *v = sat_rnode_value(c);
        snprintf(buf + l, n - l, "%s%s %llu", l ? ", " : "", sat_rnode_key(c),
                 (unsigned long long)(v && v->unit == SAT_UNIT_COUNT ? v->v.u : 0));
        l = strlen(buf);
    }
}

/* The HTTP requests' totals (the summary's requests .. status_classes). */
static void print_http(sat_text *t, const sat_rnode *root, int alone)
{
    char line[1024];
    if (alone)
        sat_text_summary(t, root,
                         "requests,request_errors=errors (status >= 400),"
                         "requests_timed=with a response time,requests_undated=undated,"
                         "p50_s=response time p50,p90_s=response time p90,"
                         "p99_s=response time p99",
                         "  ");
    else
        sat_text_summary(t, root,
                         "requests=HTTP requests,request_errors=errors (status >= 400),"
                         "requests_timed=with a response time,requests_undated=undated",
                         "  ");
    counts_line(sat_rnode_get(root, "requests_by_method"), line, sizeof line);
    sat_text_line(t, "  by method: %s", line);
    counts_line(sat_rnode_get(root, "status_classes"), line, sizeof line);
    sat_text_line(t, "  by status: %s", line);
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    char a[64], b[64], w[64], s[64], z[32];
    uint64_t ops = count_of(root, "operations"), reqs = count_of(root, "requests");
    sat_fmt_duration(w, sizeof w, dur_of(root, "window_s"));
    sat_fmt_duration(s, sizeof s, dur_of(root, "span_s"));
    const sat_value *first = val(root, "first_ts");
    char what[128];
    if (reqs && !ops)
        snprintf(what, sizeof what, "%llu HTTP %s", (unsigned long long)reqs,
                 sat_plural(reqs, "request", "requests"));
    else if (reqs)
        snprintf(what, sizeof what, "%llu LDAP %s and %llu HTTP %s", (unsigned long long)ops,
                 sat_plural(ops, "operation", "operations"), (unsigned long long)reqs,
                 sat_plural(reqs, "request", "requests"));
    if (reqs && first && !first->absent)
        sat_text_line(t, "satscope timeline: %s, %s .. %s (%s)", what,
                      fv(root, "first_ts", a, sizeof a), fv(root, "last_ts", b, sizeof b), s);
    else if (reqs)
        sat_text_line(t, "satscope timeline: %s, none dated", what);
    else if (first && !first->absent)
        sat_text_line(t, "satscope timeline: %llu LDAP %s, %s .. %s (%s)",
                      (unsigned long long)ops, sat_plural(ops, "operation", "operations"),
                      fv(root, "first_ts", a, sizeof a), fv(root, "last_ts", b, sizeof b), s);
    else
        sat_text_line(t, "satscope timeline: %llu LDAP %s, none dated", (unsigned long long)ops,
                      sat_plural(ops, "operation", "operations"));
    if (!ops && !reqs && !count_of(root, "connections")) {
        sat_text_title(t, "No LDAP operation or connection in these inputs:");
        sat_text_line(t, "the timeline comes from LDAP access logs or traces collected from them.");
    } else {
        sat_text_title(t, "Totals");
        if (ops || !reqs)
            sat_text_summary(t, root,
                             "operations,errors,timed=with an etime,undated,p50_s=etime p50,"
                             "p90_s=etime p90,p99_s=etime p99,connections",
                             "  ");
        if (reqs)
            print_http(t, root, !ops);
        uint64_t nw = count_of(root, "window_count");
        sat_text_line(t, "  %llu %s of %s from the first to the last (--json, --csv: every one)",
                      (unsigned long long)nw, sat_plural(nw, "window", "windows"), w);

        const sat_rnode *busy = sat_rnode_get(root, "busiest");
        sat_text_title(t, "Busiest %s windows (most %s first)", w,
                       reqs && !ops ? "requests" : "operations");
        sat_text_table(t, busy, "start_ts,count,errors,p50_s,p99_s,concurrency", 0, "  ");

        const sat_rnode *hours = sat_rnode_get(root, "hours");
        char hw[64], cols[512];
        window_name(hw, sizeof hw, sat_table_window(hours));
        const sat_value *off = val(root, "utc_offset_s");
        sat_text_title(t, "Per %s (aligned on %s; times in UTC)", hw,
                       zone(z, sizeof z, off && !off->absent ? (long)off->v.d : 0));
        type_cols(hours, cols, sizeof cols, "start_ts,count,errors,p50_s,p90_s,p99_s");
        sat_text_table(t, hours, cols, 0, "  ");
    }
    sat_text_title(t, "Inputs");
    sat_text_table(t, sat_rnode_get(root, "sources"), "path,kind,first_ts,span_s,lines",
                   0, "  ");
    return SAT_OK;
}

static const char *const csv_tables[] = {"windows", "busiest", "hours", "etime_histogram",
                                         "sources", NULL};

const sat_text_report sat_text_timeline = {"timeline", render, csv_tables};
