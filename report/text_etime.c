/*
 * text_etime.c - the etime report as text, read from its result sections
 * (analyze/etime_result.c; the layout rules of docs/output.md: 100 columns
 * unless --wide, durations in human units, right plurals). In the order an
 * operator reads it during an incident: what was read, where the time went
 * (per operation type, then per --by key), internal operations, the
 * operation counts of logconv.pl, connections, codes, unindexed searches,
 * binds, tops, and the minute series. This file has the header, the main
 * tables, operations and the series; text_etime_util.c the shared helpers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text_etime.h"

#define MINUTES_FULL 120 /* series longer than this: the slowest buckets only */

/* ---- what was read ------------------------------------------------------------------ */

static void header(etx *x)
{
    const sat_rnode *root = x->root;
    const sat_rnode *in = sat_rnode_get(root, "inputs");
    uint64_t nin = sat_rnode_count(in), lines = etx_count(root, "lines"),
             rej = etx_count(root, "rejects"), ops = etx_count(root, "operations");
    /* HTTP logs alone: requests instead of operations */
    int http = !etx_val(root, "operations") && etx_val(root, "requests");
    if (http)
        ops = etx_count(root, "requests");
    sat_text_title(x->t, "satscope etime: %llu %s in %llu %s (%llu %s, %llu rejected)",
                   (unsigned long long)ops,
                   http ? sat_plural(ops, "request", "requests")
                        : sat_plural(ops, "operation", "operations"),
                   (unsigned long long)nin, sat_plural(nin, "input", "inputs"),
                   (unsigned long long)lines, sat_plural(lines, "line", "lines"),
                   (unsigned long long)rej);
    const sat_value *f = etx_val(root, "first_ts"), *l = etx_val(root, "last_ts");
    if (f && !f->absent) {
        char a[64], b[64], d[64];
        sat_fmt_value(a, sizeof a, f);
        sat_fmt_value(b, sizeof b, l);
        sat_fmt_value(d, sizeof d, etx_val(root, "span_s"));
        sat_text_line(x->t, "  from %s to %s (%s)", a, b, d);
    } else {
        sat_text_line(x->t, "  no timestamps");
    }

    if (nin) {
        /* one line per input, its path never cut */
        sat_text_title(x->t, "Inputs");
        for (const sat_rnode *r = sat_rnode_first(in); r; r = sat_rnode_next(r)) {
            uint64_t nl = etx_count(r, "lines");
            const sat_value *tr = sat_row_get(r, "truncated");
            sat_text_line(x->t, "  %s, %s, %llu %s, %llu rejected%s: %s",
                          sat_row_get(r, "format")->v.s, sat_row_get(r, "compression")->v.s,
                          (unsigned long long)nl, sat_plural(nl, "line", "lines"),
                          (unsigned long long)etx_count(r, "rejects"),
                          tr && !tr->absent && tr->v.i ? " (ended early: truncated or unreadable)"
                                                       : "",
                          sat_row_get(r, "path")->v.s);
        }
    }
    if (rej) {
        const sat_rnode *s = sat_rnode_get(root, "reject_samples");
        size_t ns = sat_rnode_count(s);
        if (ns)
            sat_text_title(x->t, "Rejected lines: %llu (the first %zu shown)",
                           (unsigned long long)rej, ns);
        else
            sat_text_title(x->t, "Rejected lines: %llu", (unsigned long long)rej);
        for (const sat_rnode *r = sat_rnode_first(s); r; r = sat_rnode_next(r)) {
            const sat_value *ex = sat_row_get(r, "excerpt");
            char e[1024] = "";
            if (ex && !ex->absent && *ex->v.s) {
                /* one line: control bytes shown as '?' */
                size_t k = 0;
                e[k++] = ':';
                e[k++] = ' ';
                for (const char *p = ex->v.s; *p && k < sizeof e - 1; p++)
                    e[k++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p;
                e[k] = '\0';
            }
            sat_text_line(x->t, "  %s:%llu: %s%s", sat_row_get(r, "path")->v.s,
                          (unsigned long long)etx_count(r, "line"),
                          sat_row_get(r, "reason")->v.s, e);
        }
    }
}

/* ---- where the time went -------------------------------------------------------------- */

/* The columns of the grouped tables: all with --wide, the ones an operator
 * reads first within 100 columns. */
static const char *time_cols(const etx *x)
{
    return x->t->width ? "count,mean_s,p50_s,p99_s,max_s,total_s,share,wtime_mean_s,"
                         "optime_mean_s,errors"
                       : "count,rate_per_s,mean_s,p50_s,p90_s,p99_s,p999_s,max_s,total_s,share,"
                         "wtime_mean_s,optime_mean_s,errors";
}

static void where(etx *x)
{
    const sat_rnode *root = x->root;
    char cols[512];
    sat_text_title(x->t, "Where the time went, by operation type");
    snprintf(cols, sizeof cols, "op,%s", time_cols(x));
    sat_text_table(x->t, sat_rnode_get(root, "ops"), cols, 0, NULL);
    sat_text_line(x->t, "  (\"all\": every operation with a RESULT. UNBIND, AUTOBIND and "
                        "unfinished operations have no RESULT: counted, no timings. share = "
                        "the group's total etime / all's total etime)");

    const sat_rnode *g = sat_rnode_get(root, "groups");
    if (!g)
        return;
    const sat_value *by = etx_val(root, "by");
    const char *dim = by && !by->absent ? by->v.s : "?";
    int minute = !strcmp(dim, "minute");
    size_t n = sat_rnode_count(g), top = (size_t)etx_count(root, "top_n");
    size_t show = !minute && n > top ? top : n;
    char title[256];
    int o = snprintf(title, sizeof title, "Where the time went, by %s", dim);
    double w = sat_table_window(g) / 1e9;
    if (minute && w > 60)
        snprintf(title + o, sizeof title - (size_t)o, " (buckets of %.0f minutes: a long span)",
                 w / 60);
    else if (show < n)
        snprintf(title + o, sizeof title - (size_t)o, " (top %zu of %zu groups by total etime)",
                 show, n);
    sat_text_title(x->t, "%s", title);
    if (minute)
        snprintf(cols, sizeof cols, "start_ts=%s,%s", w > 60 ? "from (UTC)" : "minute (UTC)",
                 time_cols(x));
    else
        snprintf(cols, sizeof cols, "%s,%s", time_cols(x), dim);
    sat_text_table(x->t, g, cols, show, NULL);
    if (show && show < sat_rnode_count(g))
        sat_text_line(x->t, "  (%llu more %s; --json or --csv has every row)",
                      (unsigned long long)(sat_rnode_count(g) - show),
                      sat_plural(sat_rnode_count(g) - show, "row", "rows"));
    uint64_t folded = etx_count(root, "groups_folded_keys");
    if (folded)
        sat_text_line(x->t, "  (about %llu keys past the key cap are folded into \"(other)\")",
                      (unsigned long long)folded);
}

/* ---- operations (logconv.pl's counts) --------------------------------------------------- */

static uint64_t op_count(const etx *x, const char *op)
{
    const sat_rnode *t = sat_rnode_get(x->root, "ops");
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        const sat_value *k = sat_row_get(r, "op");
        if (k && !k->absent && !strcmp(k->v.s, op))
            return etx_count(r, "count");
    }
    return 0;
}

/* the first of two fields no input logs, else the first some cannot */
static const char *worst(const etx *x, const char *a, const char *b)
{
    if (etx_not_logged(x, a))
        return a;
    if (etx_not_logged(x, b))
        return b;
    return etx_some_cannot(x, a) ? a : b;
}

static void operations(etx *x)
{
    const sat_rnode *o = sat_rnode_get(x->root, "operation_stats");
    sat_text_title(x->t, "Operations");
    etx_kvs k;
    etx_kv_init(&k, x);
    etx_kv(&k, "Total operations:", o, "total", NULL, NULL);
    etx_kv(&k, "Total results (RESULTs and abandons):", o, "answered", NULL,
           "(an ABANDON is never answered)");
    etx_kv(&k, "Overall performance:", o, "answered_ratio", NULL,
           "(answered / operations expecting an answer)");
    etx_kv(&k, "With a RESULT:", o, "results", NULL, NULL);
    etx_kv(&k, "Unfinished (no RESULT by the end):", o, "unfinished", NULL, NULL);
    etx_kv(&k, "RESULT without its request:", o, "no_request", NULL, NULL);
    etx_kv(&k, "Internal operations (not in the tables):", o, "internal", NULL,
           etx_count(o, "internal") ? "(see Internal operations above)" : NULL);
    etx_kv(&k, "Persistent searches:", o, "persistent_searches", NULL, NULL);
    etx_kv(&k, "Paged searches:", o, "paged_searches", "controls", NULL);
    etx_kv(&k, "Entire search base queries:", o, "whole_subtree_searches", NULL,
           "(subtree, filter (objectclass=*) or (objectclass=top))");
    etx_kv(&k, "Proxied authorization operations:", o, "proxied_auth", NULL, NULL);
    etx_kv(&k, "VLV operations:", o, "vlv", "controls", NULL);
    const char *vf = worst(x, "controls", "notes");
    etx_kv(&k, " - VLV unindexed searches (notes=A):", o, "vlv_unindexed", vf, NULL);
    etx_kv(&k, " - VLV unindexed components (notes=U):", o, "vlv_unindexed_components", vf,
           NULL);
    etx_kv(&k, "SORT operations:", o, "sort", "controls", NULL);
    etx_kv(&k, "Entries returned:", o, "entries_returned", NULL, NULL);
    etx_kv(&k, "Entry operations (ENTRY lines):", o, "entry_lines", NULL, NULL);
    etx_kv(&k, "Smart referrals (REFERRAL lines):", o, "referral_lines", NULL, NULL);
    etx_kv(&k, "Extended operations:", o, "extended", NULL, NULL);
    etx_kv(&k, "Abandon requests:", o, "abandons", NULL, NULL);
    etx_kv(&k, "Unbinds:", o, "unbinds", NULL, NULL);
    /* what was taken for a restart (parse/ldap_join.c): disorder of
     * connection numbers never is */
    uint64_t rs = etx_count(o, "restarts");
    char why[200] = "";
    if (rs) {
        uint64_t sl = etx_count(o, "restarts_start_line"),
                 nb = etx_count(o, "restarts_connection_number"), rest = rs - sl - nb;
        int w = snprintf(why, sizeof why,
                         "(taken for one: the server's start line %llu, connection numbers "
                         "starting again %llu",
                         (unsigned long long)sl, (unsigned long long)nb);
        snprintf(why + w, sizeof why - (size_t)w, rest ? ", not said %llu)" : ")",
                 (unsigned long long)rest);
    }
    etx_kv(&k, "Server restarts:", o, "restarts", NULL, why);
    /* logconv.pl's per-type lines; Binds as in the Binds section */
    static const struct {
        const char *label, *op;
    } bytype[] = {{"Searches:", "SRCH"}, {"Modifications:", "MOD"}, {"Adds:", "ADD"},
                  {"Deletes:", "DEL"},   {"Mod RDNs:", "MODRDN"},   {"Compares:", "CMP"}};
    for (size_t i = 0; i < sizeof bytype / sizeof bytype[0]; i++) {
        uint64_t n = op_count(x, bytype[i].op);
        char b[32];
        snprintf(b, sizeof b, "%llu", (unsigned long long)n);
        etx_kv_text(&k, bytype[i].label, b, etx_rate(x, n));
    }
    uint64_t nb = etx_count(sat_rnode_get(x->root, "binds"), "total");
    etx_kv(&k, "Binds:", sat_rnode_get(x->root, "binds"), "total", NULL, etx_rate(x, nb));
    etx_kv(&k, "Average etime:", o, "etime_mean_s", "etime", NULL);
    etx_kv(&k, "Average wtime (queue wait):", o, "wtime_mean_s", "wtime", NULL);
    etx_kv(&k, "Average optime (service):", o, "optime_mean_s", "wtime", NULL);
    etx_kv_print(&k, NULL);
}

/* ---- the series ------------------------------------------------------------------------ */

static double p99_of(const sat_rnode *r)
{
    const sat_value *v = sat_row_get(r, "p99_s");
    return v && !v->absent ? v->v.d : -1;
}

void etx_series(etx *x, const char *per_title)
{
    const sat_rnode *w = sat_rnode_get(x->root, "windows");
    size_t n = sat_rnode_count(w);
    if (!n)
        return;
    double win_min = sat_table_window(w) / 60e9;
    char per[48] = "minute";
    if (win_min > 1)
        snprintf(per, sizeof per, "%.0f minutes", win_min);
    const char *cols = win_min > 1 ? "start_ts=from (UTC),count,errors,mean_s,p99_s,max_s"
                                   : "start_ts,count,errors,mean_s,p99_s,max_s";
    if (n <= MINUTES_FULL) {
        sat_text_title(x->t, "%s %s", per_title, per);
        sat_text_table(x->t, w, cols, 0, NULL);
        return;
    }
    /* too long to read: the slowest buckets by p99 (ties: earlier first) */
    const sat_rnode **rows = (const sat_rnode **)malloc(n * sizeof *rows);
    if (!rows) {
        x->t->err = SAT_E_NOMEM;
        return;
    }
    size_t i = 0;
    for (const sat_rnode *r = sat_rnode_first(w); r; r = sat_rnode_next(r))
        rows[i++] = r;
    size_t top = (size_t)etx_count(x->root, "top_n"), show = top < n ? top : n;
    /* partial selection sort: show is small; the index keeps ties stable */
    size_t *idx = (size_t *)malloc(n * sizeof *idx);
    if (!idx) {
        free(rows);
        x->t->err = SAT_E_NOMEM;
        return;
    }
    for (i = 0; i < n; i++)
        idx[i] = i;
    for (size_t s = 0; s < show; s++) {
        size_t best = s;
        for (size_t k = s + 1; k < n; k++) {
            double pk = p99_of(rows[idx[k]]), pb = p99_of(rows[idx[best]]);
            if (pk > pb || (pk == pb && idx[k] < idx[best]))
                best = k;
        }
        size_t tmp = idx[s];
        idx[s] = idx[best];
        idx[best] = tmp;
    }
    const sat_rnode **sel = (const sat_rnode **)malloc((show ? show : 1) * sizeof *sel);
    if (sel) {
        for (size_t s = 0; s < show; s++)
            sel[s] = rows[idx[s]];
        if (win_min > 1)
            sat_text_title(x->t, "Slowest buckets of %s by p99 (%zu of %zu; --json for the series)",
                           per, show, n);
        else
            sat_text_title(x->t, "Slowest minutes by p99 (%zu of %zu %s; --json for the series)",
                           show, n, sat_plural(n, "minute", "minutes"));
        etx_rows(x, w, cols, sel, show, NULL, NULL);
    } else {
        x->t->err = SAT_E_NOMEM;
    }
    free(sel);
    free(idx);
    free(rows);
}

/* ---- the report -------------------------------------------------------------------------- */

static int render(sat_result *r, sat_text *t)
{
    etx *x = (etx *)calloc(1, sizeof *x);
    if (!x)
        return SAT_E_NOMEM;
    x->t = t;
    x->root = sat_result_root(r);
    const sat_value *sp = etx_val(x->root, "span_s");
    x->span_s = sp && !sp->absent ? sp->v.d : NAN;
    header(x);
    if (!etx_val(x->root, "operations") && etx_val(x->root, "requests")) {
        /* HTTP logs alone */
        etx_http(x);
        sat_text_title(t, "Percentiles are nearest-rank: exact for groups of up to 2048 timed "
                          "requests,");
        sat_text_line(t, "within 0.5%% of the exact value for larger groups.");
        free(x);
        return t->err ? t->err : SAT_OK;
    }
    where(x);
    etx_internal(x);
    operations(x);
    etx_connections(x);
    etx_codes(x);
    etx_unindexed(x);
    etx_binds(x);
    etx_tops(x);
    etx_series(x, "Per");
    const sat_rnode *http = sat_rnode_get(x->root, "http");
    if (http) {
        /* beside a directory's logs: the web front's requests */
        etx hx = *x;
        hx.root = http;
        hx.ni = 0;
        const sat_value *hs = etx_val(http, "span_s");
        hx.span_s = hs && !hs->absent ? hs->v.d : NAN;
        sat_text_title(t, "HTTP requests: %llu (from the HTTP access logs among the inputs)",
                       (unsigned long long)etx_count(http, "requests"));
        etx_http(&hx);
    }
    sat_text_title(t, "Percentiles are nearest-rank: exact for groups of up to 2048 timed "
                      "operations,");
    sat_text_line(t, "within 0.5%% of the exact value for larger groups.");
    free(x);
    return t->err ? t->err : SAT_OK;
}

/* the result's tables (analyze/etime_result.c), the main ones first: ops by
 * default and --by op, groups with another --by, internal_operations.ops with
 * --by internal (the CLI checks --csv NAME against these) */
static const char *const etime_tables[] = {"ops",
                                           "groups",
                                           "internal_operations.ops",
                                           "internal_operations.groups",
                                           "connection_stats.tls_versions",
                                           "close_codes",
                                           "result_codes",
                                           "note_counts",
                                           "unindexed.searches",
                                           "binds.sasl_mechs",
                                           "binds.failed_by_dn",
                                           "binds.failed_by_client",
                                           "top.clients",
                                           "top.bind_dns",
                                           "top.bases",
                                           "top.filters",
                                           "top.extended_ops",
                                           "top.attributes",
                                           "abandon_requests",
                                           "windows",
                                           "not_logged",
                                           "inputs",
                                           "reject_samples",
                                           /* HTTP requests (the main one: groups) */
                                           "methods",
                                           "statuses",
                                           "http.methods",
                                           "http.groups",
                                           "http.statuses",
                                           "http.top.clients",
                                           "http.windows",
                                           "http.not_logged",
                                           NULL};

const sat_text_report sat_text_etime = {"etime", render, etime_tables};
