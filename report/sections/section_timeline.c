/*
 * section_timeline.c - the sections of the timeline analyzer's result
 * (analyze/timeline_result.c): what was read and over what span, the totals
 * and latency, the busiest windows, the hours of local time and the inputs
 * on the one time axis. The full series is for charts and scripts (--json,
 * --csv). `satscope timeline` prints them; a report embeds those it names.
 */
#include <string.h>

#include "sections.h"

/* "12127 LDAP operations", "656 HTTP requests", or both. */
static void what_was_read(const sat_rnode *root, char *buf, size_t n)
{
    uint64_t ops = sat_get_count(root, "operations", 0), reqs = sat_get_count(root, "requests", 0);
    if (reqs && !ops)
        snprintf(buf, n, "%llu HTTP %s", (unsigned long long)reqs,
                 sat_plural(reqs, "request", "requests"));
    else if (reqs)
        snprintf(buf, n, "%llu LDAP %s and %llu HTTP %s", (unsigned long long)ops,
                 sat_plural(ops, "operation", "operations"), (unsigned long long)reqs,
                 sat_plural(reqs, "request", "requests"));
    else
        snprintf(buf, n, "%llu LDAP %s", (unsigned long long)ops,
                 sat_plural(ops, "operation", "operations"));
}

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    char what[128], a[64], b[64], span[64];
    what_was_read(root, what, sizeof what);
    if (!sat_get_time(root, "first_ts", 0)) {
        snprintf(buf, n, "%s, none dated", what);
        return;
    }
    sec_fmt(c, a, sizeof a, root, "first_ts");
    sec_fmt(c, b, sizeof b, root, "last_ts");
    sec_fmt(c, span, sizeof span, root, "span_s");
    snprintf(buf, n, "%s, %s .. %s (%s)", what, a, b, span);
}

/* "GET 540, POST 12" from an object of counts. */
static void counts_line(const sat_rnode *o, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = '\0';
    for (const sat_rnode *k = sat_rnode_first(o); k && l < n; k = sat_rnode_next(k)) {
        snprintf(buf + l, n - l, "%s%s %llu", l ? ", " : "", sat_rnode_key(k),
                 (unsigned long long)sat_get_count(k, NULL, 0));
        l = strlen(buf);
    }
}

/* The totals: of the LDAP operations, of the HTTP requests (their response
 * times under the etime's keys when there is no operation), and how many
 * windows the series holds. */
static void totals(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    uint64_t ops = sat_get_count(root, "operations", 0), reqs = sat_get_count(root, "requests", 0);
    sat_rnode *s = sec_section(c, parent, "totals", "Totals");
    sat_rnode *v = sat_doc_values(s);
    if (ops || !reqs) {
        sec_copy(v, root, "operations", NULL, NULL);
        sec_copy(v, root, "errors", NULL, NULL);
        sec_copy(v, root, "timed", NULL, "with an etime");
        sec_copy(v, root, "undated", NULL, NULL);
        sec_copy(v, root, "p50_s", NULL, "etime p50");
        sec_copy(v, root, "p90_s", NULL, "etime p90");
        sec_copy(v, root, "p99_s", NULL, "etime p99");
        sec_copy(v, root, "connections", NULL, NULL);
    }
    /* what follows the values: an untitled group, drawn in its place */
    sat_rnode *after = sec_section(c, s, "totals-more", NULL);
    if (reqs) {
        sec_copy(v, root, "requests", NULL, ops ? "HTTP requests" : NULL);
        sec_copy(v, root, "request_errors", NULL, "errors (status >= 400)");
        sec_copy(v, root, "requests_timed", NULL, "with a response time");
        sec_copy(v, root, "requests_undated", NULL, "undated");
        if (!ops) {
            sec_copy(v, root, "p50_s", NULL, "response time p50");
            sec_copy(v, root, "p90_s", NULL, "response time p90");
            sec_copy(v, root, "p99_s", NULL, "response time p99");
        }
        char line[1024];
        counts_line(sat_get_obj(root, "requests_by_method"), line, sizeof line);
        sat_doc_para(after, "by method: %s", line);
        counts_line(sat_get_obj(root, "status_classes"), line, sizeof line);
        sat_doc_para(after, "by status: %s", line);
    }
    char w[64];
    uint64_t nw = sat_get_count(root, "window_count", 0);
    sec_fmt(c, w, sizeof w, root, "window_s");
    sat_doc_para(after, "%llu %s of %s from the first to the last (--json, --csv: every one)",
                 (unsigned long long)nw, sat_plural(nw, "window", "windows"), w);
}

/* The hours table's columns: the fixed ones, then the ops.<TYPE> columns of
 * the TYPE_COLS types with the most operations (in the table's order), so
 * that a line fits the width. */
#define TYPE_COLS 4
static void hour_columns(const sat_rnode *table, char *buf, size_t n)
{
    size_t ncols;
    const sat_col *col = sat_table_cols(table, &ncols);
    uint64_t tot[64];
    size_t nt = ncols < 64 ? ncols : 64;
    for (size_t i = 0; i < nt; i++) {
        tot[i] = 0;
        if (strncmp(col[i].name, "ops.", 4))
            continue;
        for (const sat_rnode *row = sat_rnode_first(table); row; row = sat_rnode_next(row))
            tot[i] += sat_get_count(row, col[i].name, 0);
        tot[i] += 1; /* a type column present, even if empty in every row */
    }
    snprintf(buf, n, "start_ts,count,errors,p50_s,p90_s,p99_s");
    for (size_t i = 0; i < nt; i++) {
        if (!tot[i])
            continue;
        size_t better = 0; /* columns with more operations (the earlier of a tie) */
        for (size_t j = 0; j < nt; j++)
            better += tot[j] > tot[i] || (tot[j] == tot[i] && j < i);
        if (better < TYPE_COLS && strlen(buf) + 2 * strlen(col[i].name) + 2 < n)
            snprintf(buf + strlen(buf), n - strlen(buf), ",%s=%s", col[i].name, col[i].name + 4);
    }
}

/* "hour", "day", else the window in human units. */
static void window_name(char *buf, size_t n, int64_t ns)
{
    if (ns == 3600 * 1000000000LL)
        snprintf(buf, n, "hour");
    else if (ns == 86400 * 1000000000LL)
        snprintf(buf, n, "day");
    else
        sat_fmt_duration(buf, n, (double)ns / 1e9);
}

static void hours(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *h = sat_get_table(root, "hours");
    char hw[64], aligned[32], shown[32], cols[512];
    window_name(hw, sizeof hw, sat_table_window(h));
    /* aligned on the inputs' local hours; shown on the context's clock */
    rd_clock local = rd_clock_at((int32_t)sat_get_dur(root, "utc_offset_s", 0), 0, 0, 0);
    rd_fmt_zone(aligned, sizeof aligned, &local);
    rd_fmt_zone(shown, sizeof shown, &c->clock);
    sat_rnode *s = sec_section(c, parent, "hours", "Per %s (aligned on %s; times in %s)", hw, aligned,
                               shown);
    hour_columns(h, cols, sizeof cols);
    sat_doc_table(s, NULL, NULL, h, cols, 0, NULL, NULL);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    uint64_t ops = sat_get_count(root, "operations", 0), reqs = sat_get_count(root, "requests", 0);
    if (!ops && !reqs && !sat_get_count(root, "connections", 0)) {
        sat_rnode *s = sec_section(c, parent, "none",
                                   "No LDAP operation or connection in these inputs:");
        sat_doc_para(s, "the timeline comes from LDAP access logs or traces collected from them.");
    } else {
        totals(c, root, parent);
        char w[64];
        sec_fmt(c, w, sizeof w, root, "window_s");
        sat_doc_table(sec_section(c, parent, "busiest", "Busiest %s windows (most %s first)", w,
                                  reqs && !ops ? "requests" : "operations"),
                      NULL, NULL, sat_get_table(root, "busiest"),
                      "start_ts,count,errors,p50_s,p99_s,concurrency", 0, NULL, NULL);
        hours(c, root, parent);
    }
    sat_doc_table(sec_section(c, parent, "inputs", "Inputs"), NULL, NULL,
                  sat_get_table(root, "sources"), "path,kind,first_ts,span_s,lines", 0, NULL,
                  NULL);
}

static const char *const csv_tables[] = {"windows", "busiest",         "hours",
                                         "minutes", "etime_histogram", "sources", NULL};

const sec_builder sec_timeline = {"timeline", lead, build, csv_tables};
