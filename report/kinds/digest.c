/*
 * report_digest.c - the nightly digest (report_digest.h): the inputs and the
 * --baseline inputs each split by server and local day, every (server, day)
 * analysed by the digest's plan (analyze.h), its results read by role; a page per
 * server and day with its volumes, latency by operation type against the
 * same server's baseline days, what is new (result codes, unindexed filter
 * shapes, heavy clients, failing bind DNs), old TLS, storms, crashes and the
 * cache; the rules of report_digest_rules.c write its findings; a fleet
 * summary page first, and every finding again in the report's own list,
 * most severe first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest_int.h"
#include "satscope/report.h"

/* ---- days ---------------------------------------------------------------------------- */

static int day_cmp(const void *a, const void *b)
{
    const sat_dg_day *x = a, *y = b;
    int c = strcmp(x->server, y->server);
    if (c)
        return c;
    return x->start_ts < y->start_ts ? -1 : x->start_ts > y->start_ts;
}

/* The roles of the digest's plan (analyze.h), by sat_dg_member. */
static const char *const roles[SAT_DG__N] = {"etime",   "etime_unindexed", "etime_clients",
                                             "storms",  "crashes",         "cachesize",
                                             "handshakes", "timeline"};

/* The days of `in` with their results, sorted by server then day; NULL when
 * out of memory (n == 0: none). */
static sat_dg_day *days_of(sat_report *rep, const sat_report_day *in, size_t n)
{
    sat_dg_day *d = calloc(n ? n : 1, sizeof *d);
    for (size_t i = 0; d && i < n; i++) {
        d[i].server = in[i].server;
        memcpy(d[i].date, in[i].date, sizeof d[i].date);
        d[i].start_ts = in[i].start_ts;
        d[i].utc_offset_s = in[i].utc_offset_s;
        d[i].rows = in[i].rows;
        d[i].set = in[i].set;
        const sat_result_set *rs = sat_report_set(rep, (size_t)in[i].set);
        for (int m = 0; m < SAT_DG__N; m++)
            d[i].res[m] = sat_result_set_get(rs, roles[m]);
    }
    if (d && n)
        qsort(d, n, sizeof *d, day_cmp);
    return d;
}

static int digest_build(sat_report *rep, const sat_report_input *in, sat_diag *diag)
{
    sat_dg_day *cur = days_of(rep, in->days, in->ndays);
    sat_dg_day *base = days_of(rep, in->base_days, in->nbase_days);
    int rc = cur && base ? sat_digest_write(rep, cur, in->ndays, base, in->nbase_days, in->title,
                                            in->dropped_days, in->days_kept)
                         : SAT_E_NOMEM;
    if (rc < 0)
        sat_diag_set(diag, rc, NULL, "digest: %s", sat_strerror(rc));
    free(cur);
    free(base);
    return rc;
}

const sat_report_kind sat_report_kind_digest = {
    "digest", "one page per server per day, against --baseline: what ran, what was slow, "
              "what failed, what is new",
    NULL, 1, digest_build};

static const char *const op_types[] = {"BIND", "SRCH", "ADD", "MOD", "DEL", "MODRDN", "CMP", "EXT"};
#define NOPS (sizeof op_types / sizeof op_types[0])

static size_t count_rows(const sat_dg_day *d, int m, const char *path)
{
    const sat_rnode *t = sat_dg_get(d, m, path);
    return t ? sat_rnode_count(t) : 0;
}

/* The errors of a day: results other than success (0), SASL bind in
 * progress (14) and compare false/true (5, 6), which are answers. */
static uint64_t day_errors(const sat_dg_day *d)
{
    const sat_rnode *t = sat_dg_get(d, SAT_DG_ETIME, "result_codes");
    uint64_t n = 0;
    for (const sat_rnode *r = t ? sat_rnode_first(t) : NULL; r; r = sat_rnode_next(r)) {
        double code = sat_get_num(r, "result_code", NAN), c = sat_get_num(r, "count", NAN);
        if (code != 0 && code != 14 && code != 5 && code != 6 && isfinite(c))
            n += (uint64_t)c;
    }
    return n;
}

/* The errors of the fleet's tables: the LDAP ones and the HTTP requests
 * answered with a status >= 400. */
static uint64_t fleet_errors(const sat_dg_day *d)
{
    uint64_t errs = day_errors(d);
    const char *hp = sat_dg_http_prefix(d, SAT_DG_ETIME);
    if (hp) {
        char ep[64];
        snprintf(ep, sizeof ep, "%srequest_stats", hp);
        const sat_rnode *st = sat_dg_get(d, SAT_DG_ETIME, ep);
        double ce = sat_get_num(st, "client_errors", NAN),
               se = sat_get_num(st, "server_errors", NAN);
        errs += (uint64_t)((isfinite(ce) ? ce : 0) + (isfinite(se) ? se : 0));
    }
    return errs;
}

/* The baseline days of d's server. */
static size_t baseline_of(const sat_dg_day *d, const sat_dg_day *base, size_t nbase,
                          const sat_dg_day **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < nbase && n < max; i++)
        if (!strcmp(base[i].server, d->server) && strcmp(base[i].date, d->date) != 0)
            out[n++] = &base[i];
    return n;
}

/* Whether a baseline day's table has a row keyed like `row`. */
typedef struct newness {
    const sat_dg_day *const *base;
    size_t nbase;
    int member;
    const char *path, *col;
} newness;

static int is_new(const newness *w, const sat_rnode *row)
{
    char key[512];
    sat_get_key(row, w->col, key, sizeof key);
    for (size_t i = 0; i < w->nbase; i++)
        if (sat_get_row(sat_dg_get(w->base[i], w->member, w->path), w->col, key))
            return 0;
    return 1;
}

/* A table block of src's rows with columns cols and a `new` column (not in
 * any baseline day) when there is a baseline. */
static void keyed_table(sat_rnode *sec, const char *title, const char *note, const sat_rnode *src,
                        const sat_col *cols, size_t ncols, const newness *w, size_t max_rows)
{
    if (!src)
        return;
    sat_col all[16];
    size_t n = 0;
    for (size_t i = 0; i < ncols && n < 15; i++)
        all[n++] = cols[i];
    if (w->nbase)
        all[n++] = (sat_col){"new", SAT_UNIT_BOOL, 0, "new"};
    sat_rnode *t = sat_doc_new_table(sec, title, note, all, n);
    if (w->nbase)
        sat_doc_highlight(sec, "new");
    uint64_t total = 0;
    for (const sat_rnode *row = sat_rnode_first(src); row; row = sat_rnode_next(row), total++) {
        if (total >= max_rows)
            continue;
        sat_rnode *r = sat_table_row(t);
        for (size_t i = 0; i < ncols; i++) {
            sat_put_copy(r, cols[i].name, row, cols[i].name);
        }
        if (w->nbase)
            sat_put_bool(r, "new", is_new(w, row));
    }
    /* the block's rows_total: every row of the source */
    const sat_rnode *tables = sat_rnode_get(sec, "tables");
    const sat_rnode *last = NULL;
    for (const sat_rnode *b = tables ? sat_rnode_first(tables) : NULL; b; b = sat_rnode_next(b))
        last = b;
    sat_put_count((sat_rnode *)last, "rows_total", total);
}

/* Whether the page has a latency finding (a rule "latency.*") for op. */
static int latency_regressed(const sat_rnode *page, const char *op)
{
    const sat_rnode *fl = sat_rnode_get(page, "findings");
    for (const sat_rnode *f = fl ? sat_rnode_first(fl) : NULL; f; f = sat_rnode_next(f)) {
        const char *rule = sat_get_text(f, "figures.rule", ""), *fop = sat_get_text(f, "figures.op", "");
        if (!strncmp(rule, "latency.", 8) && !strcmp(fop, op))
            return 1;
    }
    return 0;
}

static void latency_section(sat_rnode *page, const sat_dg_day *d, const sat_dg_day *const *b,
                            size_t nb)
{
    sat_rnode *sec = sat_doc_section(page, "latency", "Latency by operation type");
    const sat_rnode *ops = sat_dg_get(d, SAT_DG_ETIME, "ops");
    static const sat_col cols[] = {
        {"op", SAT_UNIT_TEXT, 0, "op"},
        {"count", SAT_UNIT_COUNT, 0, "ops"},
        {"p50_s", SAT_UNIT_DURATION, 9, "p50"},
        {"p90_s", SAT_UNIT_DURATION, 9, "p90"},
        {"p99_s", SAT_UNIT_DURATION, 9, "p99"},
        {"baseline.p90_s", SAT_UNIT_DURATION, 9, "base p90"},
        {"baseline.p90_low_s", SAT_UNIT_DURATION, 9, "base low"},
        {"baseline.p90_high_s", SAT_UNIT_DURATION, 9, "base high"},
        {"p90_change", SAT_UNIT_NUMBER, 2, "change"},
        {"regressed", SAT_UNIT_BOOL, 0, "regressed"}};
    sat_rnode *t = sat_doc_new_table(sec, "etime by operation type",
                                     nb ? "base: the baseline days' median p90, low-high their "
                                          "range (one day: its hours'); regressed: a p50, p90 "
                                          "or p99 finding"
                                        : "no baseline day of this server",
                                     cols, nb ? 10 : 5);
    if (nb)
        sat_doc_highlight(sec, "regressed");
    for (const sat_rnode *row = ops ? sat_rnode_first(ops) : NULL; row; row = sat_rnode_next(row)) {
        const char *op = sat_get_text(row, "op", NULL);
        double p90 = sat_get_num(row, "p90_s", NAN);
        if (!op || !isfinite(p90))
            continue; /* UNBIND, ABANDON: no etime */
        sat_rnode *r = sat_table_row(t);
        sat_put_text(r, "op", op);
        sat_put_copy(r, "count", row, "count");
        sat_put_dur(r, "p50_s", sat_get_num(row, "p50_s", NAN), 9);
        sat_put_dur(r, "p90_s", p90, 9);
        sat_put_dur(r, "p99_s", sat_get_num(row, "p99_s", NAN), 9);
        if (!nb)
            continue;
        /* as the p90 rule takes it (report_digest_rules.c) */
        sat_dg_latency x;
        sat_dg_baseline(b, nb, op, "p90_s", 20, &x);
        double med = x.base, lo = x.lo, hi = x.hi;
        sat_put_dur(r, "baseline.p90_s", med, 9);
        sat_put_dur(r, "baseline.p90_low_s", lo, 9);
        sat_put_dur(r, "baseline.p90_high_s", hi, 9);
        sat_put_num(r, "p90_change", isfinite(med) && med > 0 ? p90 / med : NAN, 2);
        sat_put_bool(r, "regressed", latency_regressed(page, op));
    }
}

/* The day's HTTP requests (access logs): volumes, latency by method against
 * the baseline days, the statuses (new: answered on no baseline day) and the
 * top clients. */
static void http_section(sat_rnode *page, const sat_dg_day *d, const sat_dg_day *const *b,
                         size_t nb)
{
    const char *pre = sat_dg_http_prefix(d, SAT_DG_ETIME);
    char path[64];
    sat_rnode *sec = sat_doc_section(page, "http", "HTTP requests");
    snprintf(path, sizeof path, "%srequest_stats", pre);
    const sat_rnode *st = sat_dg_get(d, SAT_DG_ETIME, path);
    sat_rnode *v = sat_doc_values(sec);
    sat_put_copy(v, "requests", st, "total");
    double ce = sat_get_num(st, "client_errors", NAN),
           se = sat_get_num(st, "server_errors", NAN);
    if (isfinite(ce) && isfinite(se))
        sat_put_count(v, "request_errors", (uint64_t)(ce + se));
    sat_put_note(v, "statuses >= 400");
    sat_put_copy(v, "server_errors", st, "server_errors");
    if (isfinite(sat_get_num(st, "first_requests", NAN)))
        sat_put_copy(v, "connections_opened", st, "first_requests");
    if (isfinite(sat_get_num(st, "response_time_mean_s", NAN)))
        sat_put_copy(v, "response_time_mean_s", st, "response_time_mean_s");
    else
        sat_doc_para(sec, "The access logs' format has no response time: requests and "
                          "statuses only.");

    static const sat_col cols[] = {{"method", SAT_UNIT_TEXT, 0, "method"},
                                   {"count", SAT_UNIT_COUNT, 0, "requests"},
                                   {"errors", SAT_UNIT_COUNT, 0, "errors"},
                                   {"p50_s", SAT_UNIT_DURATION, 9, "p50"},
                                   {"p90_s", SAT_UNIT_DURATION, 9, "p90"},
                                   {"p99_s", SAT_UNIT_DURATION, 9, "p99"},
                                   {"baseline.p90_s", SAT_UNIT_DURATION, 9, "base p90"},
                                   {"p90_change", SAT_UNIT_NUMBER, 2, "change"}};
    sat_rnode *t = sat_doc_new_table(sec, "Response time by method",
                                     nb ? "all: every request; base: the baseline days' median "
                                          "p90"
                                        : "all: every request; no baseline day of this server",
                                     cols, nb ? 8 : 6);
    snprintf(path, sizeof path, "%smethods", pre);
    const sat_rnode *methods = sat_dg_get(d, SAT_DG_ETIME, path);
    for (const sat_rnode *row = sat_rnode_first(methods); row; row = sat_rnode_next(row)) {
        const char *m = sat_get_text(row, "method", NULL);
        sat_rnode *r = sat_table_row(t);
        sat_put_text(r, "method", m ? m : "?");
        sat_put_copy(r, "count", row, "count");
        sat_put_copy(r, "errors", row, "errors");
        sat_put_dur(r, "p50_s", sat_get_num(row, "p50_s", NAN), 9);
        sat_put_dur(r, "p90_s", sat_get_num(row, "p90_s", NAN), 9);
        sat_put_dur(r, "p99_s", sat_get_num(row, "p99_s", NAN), 9);
        if (!nb)
            continue;
        double base = m ? sat_dg_http_base(b, nb, SAT_DG_ETIME, "methods", "method", m, "p90_s") : NAN;
        double p90 = sat_get_num(row, "p90_s", NAN);
        sat_put_dur(r, "baseline.p90_s", base, 9);
        sat_put_num(r, "p90_change", isfinite(base) && base > 0 ? p90 / base : NAN, 2);
    }
    {
        static const sat_col scols[] = {{"status", SAT_UNIT_INT, 0, "status"},
                                        {"meaning", SAT_UNIT_TEXT, 0, "meaning"},
                                        {"count", SAT_UNIT_COUNT, 0, "requests"}};
        snprintf(path, sizeof path, "%sstatuses", pre);
        /* new is judged on each baseline day's own HTTP table: the same prefix
         * when its logs were of the same kind */
        newness w = {b, nb, SAT_DG_ETIME, path, "status"};
        keyed_table(sec, "Statuses", nb ? "new: answered on no baseline day" : NULL,
                    sat_dg_get(d, SAT_DG_ETIME, path), scols, 3, &w, 40);
    }
    {
        static const sat_col ccols[] = {{"client", SAT_UNIT_TEXT, 0, "client"},
                                        {"count", SAT_UNIT_COUNT, 0, "requests"},
                                        {"total_s", SAT_UNIT_DURATION, 9, "total time"}};
        const char *cpre = sat_dg_http_prefix(d, SAT_DG_CLIENTS);
        snprintf(path, sizeof path, "%sgroups", cpre ? cpre : "");
        newness w = {b, nb, SAT_DG_CLIENTS, path, "client"};
        if (cpre)
            keyed_table(sec, "Clients by total time", nb ? "new: in no baseline day" : NULL,
                        sat_dg_get(d, SAT_DG_CLIENTS, path), ccols, 3, &w, 10);
    }
}

static void cache_section(sat_rnode *page, const sat_dg_day *d);

/* What a day page looked for and did not find, said in one closing line
 * rather than a section each ("No storm", "No crash", "none"): a reader of a
 * fleet's pages sees what happened, not every check that came out empty. */
typedef struct nothing_found {
    char text[768];
    size_t n;
} nothing_found;

static void nothing_add(nothing_found *nf, const char *what)
{
    size_t len = strlen(nf->text);
    snprintf(nf->text + len, sizeof nf->text - len, "%s%s", nf->n ? "; " : "", what);
    nf->n++;
}

static void day_page(sat_report *rep, sat_rnode *page, const sat_dg_day *d,
                     const sat_dg_day *const *b, size_t nb)
{
    nothing_found nf = {"", 0};
    const char *http = sat_dg_http_prefix(d, SAT_DG_ETIME);
    /* what ran */
    sat_rnode *sec = sat_doc_section(page, "summary", "What ran");
    if (nb) {
        char list[512] = "";
        for (size_t i = 0; i < nb; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     b[i]->date);
        sat_doc_para(sec, "Compared with %zu baseline %s of this server: %s.", nb,
                     sat_plural(nb, "day", "days"), list);
    } else {
        sat_doc_para(sec, "No baseline day of this server: nothing is compared (give --baseline "
                          "with earlier logs or traces of it).");
    }
    sat_rnode *v = sat_doc_values(sec);
    double nops0 = sat_get_num(sat_dg_get(d, SAT_DG_ETIME, NULL), "operations", NAN);
    if (!http || nops0 > 0) {
        sat_put_copy(v, "operations", sat_dg_get(d, SAT_DG_ETIME, NULL), "operations");
        sat_put_copy(v, "connections", sat_dg_get(d, SAT_DG_ETIME, NULL), "connections");
        sat_put_count(v, "errors", day_errors(d));
        sat_put_note(v, "results other than 0, 5, 6, 14");
    }
    if (http) {
        char rp[64];
        snprintf(rp, sizeof rp, "%srequests", http);
        sat_put_copy(v, "requests", sat_dg_get(d, SAT_DG_ETIME, NULL), rp);
    }
    sat_put_copy(v, "first_ts", sat_dg_get(d, SAT_DG_ETIME, NULL), "first_ts");
    sat_put_copy(v, "last_ts", sat_dg_get(d, SAT_DG_ETIME, NULL), "last_ts");
    /* bytes: the inputs' the day's rows come from (a log of several days on each) */
    {
        const sat_rnode *src = sat_dg_get(d, SAT_DG_TIMELINE, "sources");
        uint64_t bytes = 0;
        size_t nsrc = 0;
        for (const sat_rnode *r = src ? sat_rnode_first(src) : NULL; r; r = sat_rnode_next(r)) {
            double by = sat_get_num(r, "bytes", NAN);
            if (isfinite(by)) {
                bytes += (uint64_t)by;
                nsrc++;
            }
        }
        if (nsrc) {
            sat_put_bytes(v, "input_read_bytes", bytes);
            sat_put_note(v, nsrc == 1 ? "read from its input (all of its days)"
                                      : "read from its inputs (all of their days)");
        }
    }
    sat_doc_chart(sec, "timeline");
    /* the timeline's minutes (a short day) or hours count operations and
     * requests alike */
    const char *step;
    const sat_rnode *series = sat_doc_spark_series(sat_dg_get(d, SAT_DG_TIMELINE, NULL), &step);
    int words = !http ? 0 : nops0 > 0 ? 2 : 1;
    static const char *const spark[3][3] = {{"operations", "etime p90", "errors"},
                                            {"requests", "response p90", "errors"},
                                            {"ops+reqs", "etime/response p90", "errors"}};
    static const char *const spark_cols[3] = {"count", "p90_s", "errors"};
    /* the latency of LDAP operations alone: etime's own windows, the figures
     * `etime --by minute` prints for the same minute */
    char lstep[32];
    const sat_rnode *lseries =
        words == 0 ? sat_doc_latency_series(sat_dg_get(d, SAT_DG_ETIME, NULL),
                                            sat_dg_get(d, SAT_DG_TIMELINE, NULL), lstep, sizeof lstep)
                   : series;
    for (int k = 0; k < 3; k++) {
        char title[64];
        snprintf(title, sizeof title, "%s per %s", spark[words][k],
                 k == 1 && words == 0 ? lstep : step ? step : "hour");
        sat_doc_sparkline(sec, title, k == 1 ? lseries : series, spark_cols[k], 1);
    }
    const sat_rnode *ops_t = sat_dg_get(d, SAT_DG_ETIME, "ops");
    if (nops0 > 0)
        sat_doc_table(sec, "Operations by type", NULL, ops_t,
                      "op=op,count=operations,errors,rate_per_s=per second,total_s=total time,"
                      "share=share of time",
                      0, NULL, NULL);
    if (nops0 > 0) {
        /* "all" is etime's: the answered operations, beside a total that
         * counts every one */
        const sat_rnode *all = sat_get_row(ops_t, "op", "all");
        sat_doc_footnote(sec, "all: the %llu operations answered with a RESULT, of the %llu above "
                              "(UNBIND, AUTOBIND and ABANDON get none: counted, not timed)",
                         (unsigned long long)sat_get_count(all, "count", 0),
                         (unsigned long long)nops0);
    }
    double nops = sat_get_num(sat_dg_get(d, SAT_DG_ETIME, NULL), "operations", NAN);
    if (!(nops > 0)) {
        if (http)
            http_section(page, d, b, nb);
        else
            sat_doc_para(sec, "No LDAP operation this day.");
        goto wire;
    }
    latency_section(page, d, b, nb);

    sec = sat_doc_section(page, "errors", "Result codes");
    {
        static const sat_col cols[] = {{"result_code", SAT_UNIT_INT, 0, "err"},
                                       {"name", SAT_UNIT_TEXT, 0, "name"},
                                       {"count", SAT_UNIT_COUNT, 0, "results"}};
        newness w = {b, nb, SAT_DG_ETIME, "result_codes", "result_code"};
        keyed_table(sec, "Results by code", NULL, sat_dg_get(d, SAT_DG_ETIME, "result_codes"),
                    cols, 3, &w, 40);
    }
    {
        static const sat_col cols[] = {{"filter", SAT_UNIT_TEXT, 0, "filter shape"},
                                       {"count", SAT_UNIT_COUNT, 0, "searches"},
                                       {"p90_s", SAT_UNIT_DURATION, 9, "p90"},
                                       {"total_s", SAT_UNIT_DURATION, 9, "total time"}};
        newness w = {b, nb, SAT_DG_UNINDEXED, "groups", "filter"};
        const sat_rnode *g = sat_dg_get(d, SAT_DG_UNINDEXED, "groups");
        /* a format that does not mark them (OpenLDAP: no notes=) says nothing
         * of them: not "none" */
        const sat_rnode *et = sat_dg_get(d, SAT_DG_ETIME, NULL);
        const sat_rnode *why = NULL;
        for (const sat_rnode *r = sat_rnode_first(sat_get_table(et, "not_logged")); r;
             r = sat_rnode_next(r)) {
            const char *f = sat_get_text(r, "field", NULL);
            if (f && !strcmp(f, "notes"))
                why = r;
        }
        int marked = sat_get_has(et, "unindexed.total"), any = g && sat_rnode_first(g);
        if (marked && !any && !why)
            nothing_add(&nf, "no unindexed search (notes=A or U)");
        else {
            sec = sat_doc_section(page, "unindexed", "Unindexed searches by filter shape");
            if (!marked)
                sat_doc_para(sec, "Not marked by this log format%s%s.", why ? ": " : "",
                             why ? sat_get_text(why, "why", "") : "");
            else if (!any)
                sat_doc_para(sec, "No unindexed search (notes=A or U).");
            else
                keyed_table(sec, "notes=A and notes=U searches", NULL, g, cols, 4, &w, 20);
            if (marked && why)
                sat_doc_para(sec, "%llu of %llu inputs do not mark them (%s): their searches "
                                  "are not counted here.",
                             (unsigned long long)sat_get_count(why, "inputs_without", 0),
                             (unsigned long long)sat_get_count(why, "of_inputs", 0),
                             sat_get_text(why, "why", "not logged"));
        }
    }
    sec = sat_doc_section(page, "clients", "Top clients");
    {
        static const sat_col cols[] = {{"client", SAT_UNIT_TEXT, 0, "client"},
                                       {"count", SAT_UNIT_COUNT, 0, "operations"},
                                       {"total_s", SAT_UNIT_DURATION, 9, "total time"}};
        newness w = {b, nb, SAT_DG_CLIENTS, "groups", "client"};
        keyed_table(sec, "Clients by total time", "new: in no baseline day",
                    sat_dg_get(d, SAT_DG_CLIENTS, "groups"), cols, 3, &w, 10);
    }
    {
        static const sat_col cols[] = {{"binddn", SAT_UNIT_TEXT, 0, "bind DN"},
                                       {"count", SAT_UNIT_COUNT, 0, "failures"}};
        newness w = {b, nb, SAT_DG_ETIME, "binds.failed_by_dn", "binddn"};
        const sat_rnode *et = sat_dg_get(d, SAT_DG_ETIME, NULL);
        if (sat_get_has(et, "binds.failed") && sat_get_count(et, "binds.failed", 0) == 0) {
            char what[96];
            uint64_t nbinds = sat_get_count(et, "binds.total", 0);
            snprintf(what, sizeof what, "no failed bind (of %llu %s)", (unsigned long long)nbinds,
                     sat_plural(nbinds, "bind", "binds"));
            nothing_add(&nf, what);
        } else {
            sec = sat_doc_section(page, "binds", "Failed binds");
            sat_rnode *bv = sat_doc_values(sec);
            sat_put_copy(bv, "total_binds", et, "binds.total");
            sat_put_copy(bv, "failed_binds", et, "binds.failed");
            keyed_table(sec, "Failed binds by DN", "new: failing in no baseline day",
                        sat_dg_get(d, SAT_DG_ETIME, "binds.failed_by_dn"), cols, 2, &w, 10);
        }
    }
    if (http)
        http_section(page, d, b, nb);
wire:
    {
        const sat_rnode *tv = sat_dg_get(d, SAT_DG_ETIME, "connection_stats.tls_versions");
        const sat_rnode *hv = sat_dg_get(d, SAT_DG_HANDSHAKES, "versions");
        const sat_rnode *lg0 = sat_get_obj(sat_dg_get(d, SAT_DG_HANDSHAKES, NULL), "logs");
        if (!(tv && sat_rnode_first(tv)) && !(hv && sat_rnode_first(hv)) &&
            !sat_get_has(lg0, "full") && !sat_get_has(lg0, "on_new_session")) {
            nothing_add(&nf, "no TLS connection logged or captured");
            goto storms;
        }
        sec = sat_doc_section(page, "tls", "TLS versions");
        if (tv && sat_rnode_first(tv))
            sat_doc_table(sec, "TLS connections (log)", NULL, tv,
                          "version,cipher,count=connections", 0, NULL, NULL);
        if (hv && sat_rnode_first(hv))
            sat_doc_table(sec, "TLS handshakes (wire)", NULL, hv, NULL, 0, NULL, NULL);
        /* what a log tells of resumption, or that it does not: never a 0 */
        const sat_rnode *hs = sat_dg_get(d, SAT_DG_HANDSHAKES, NULL);
        const sat_rnode *lg = sat_get_obj(hs, "logs");
        int logged = 0;
        if (sat_get_has(lg, "full")) { /* first requests of HTTP connections */
            sat_rnode *tlv = sat_doc_values(sec);
            sat_put_copy(tlv, "log_handshakes_full", lg, "full");
            sat_put_label(tlv, "full handshakes (access log)");
            sat_put_copy(tlv, "log_handshakes_resumed", lg, "resumed");
            sat_put_label(tlv, "resumed (access log)");
            sat_put_copy(tlv, "log_resumed_ratio", lg, "resumed_ratio");
            sat_put_label(tlv, "resumed ratio");
            logged = 1;
        } else if (sat_get_has(lg, "on_new_session")) { /* per request */
            sat_rnode *tlv = sat_doc_values(sec);
            sat_put_copy(tlv, "requests_on_new_session", lg, "on_new_session");
            sat_put_label(tlv, "requests on a new TLS session");
            sat_put_copy(tlv, "requests_on_resumed_session", lg, "on_resumed_session");
            sat_put_label(tlv, "requests on a resumed one");
            logged = 1;
        }
        if (tv && sat_rnode_first(tv) && !(hv && sat_rnode_first(hv)))
            sat_doc_para(sec, "Whether these TLS sessions were resumed is not logged by this "
                              "format (a capture of the same period gives it).");
        (void)logged;
    }
storms: {
        const sat_rnode *st = sat_dg_get(d, SAT_DG_STORMS, "storms");
        if (st && sat_rnode_first(st)) {
            sec = sat_doc_section(page, "storms", "Storms of client failures");
            sat_doc_table(sec, "Storms", NULL, st,
                          "storm,start_ts=from,end_ts=to,peak_ts=peak,events,trigger.signal_name="
                          "trigger,sustained",
                          0, NULL, NULL);
        } else {
            nothing_add(&nf, "no storm (client failures stayed at their baseline)");
        }
    }
    {
        const sat_rnode *cr = sat_dg_get(d, SAT_DG_CRASHES, "crashes");
        if (cr && sat_rnode_first(cr)) {
            sec = sat_doc_section(page, "crashes", "Crashes");
            sat_doc_table(sec, "Crashes", NULL, cr, "ts,signal_name=signal,executable,fingerprint",
                          0, NULL, NULL);
        } else {
            nothing_add(&nf, "no crash");
        }
    }
    if (!(http && !(nops0 > 0))) /* an access log names no directory entry */
        cache_section(page, d);
    if (nf.n) {
        sec = sat_doc_section(page, "checked", "Also checked");
        sat_doc_para(sec, "Nothing to report: %s.", nf.text);
    }
    (void)rep;
}

/* The entry cache's working set of the day against the cache the server has,
 * when its logs or --monitor data say. */
static void cache_section(sat_rnode *page, const sat_dg_day *d)
{
    sat_rnode *sec;
    sec = sat_doc_section(page, "cache", "Entry cache working set");
    {
        const sat_rnode *cs = sat_dg_get(d, SAT_DG_CACHESIZE, NULL);
        sat_rnode *cv = sat_doc_values(sec);
        sat_put_copy(cv, "references", cs, "references");
        sat_put_copy(cv, "distinct_entries", cs, "unique");
        sat_put_note(cv, "the day's working set");
        sat_put_copy(cv, "max_hit_ratio", cs, "max_hit_ratio");
        const sat_rnode *tg = sat_dg_get(d, SAT_DG_CACHESIZE, "targets");
        for (const sat_rnode *t = tg ? sat_rnode_first(tg) : NULL; t; t = sat_rnode_next(t)) {
            char key[64], mx[64], why[160];
            snprintf(key, sizeof key, "entries_for_%.0f%%", 100 * sat_get_num(t, "hit_ratio", NAN));
            if (sat_get_bool(t, "reachable", 1) == 0) { /* no size reaches it: said so */
                sat_fmt_fixed(mx, sizeof mx, 100 * sat_get_num(cs, "max_hit_ratio", NAN), 1);
                snprintf(why, sizeof why, "unreachable: no size reaches it (at most %s%%, the "
                                          "first reference to each entry a miss)", mx);
                sat_put_absent(cv, key, SAT_UNIT_COUNT);
                sat_put_note(cv, why);
            } else {
                sat_put_copy(cv, key, t, "entries");
            }
        }
        const sat_value *cur = sat_rnode_val(cs, "monitor.current_entries");
        const char *server = sat_get_text(cs, "recommend.server_kind", "");
        if (!strcmp(server, "openldap"))
            sat_doc_para(sec, "OpenLDAP back-mdb has no entry or DN cache: the working set is "
                              "what the filesystem cache must hold (the memory map, "
                              "olcDbMaxSize, must exceed the database's size).");
        else if (cur && !cur->absent)
            sat_put_value(cv, "cached_entries", cur);
        else
            sat_doc_para(sec, "The configured cache is not in the logs: give cachesize's "
                              "--monitor data to compare (satscope cachesize --help).");
    }
}

/* A finding of a page, again in the report's list: "server day: text". */
static void copy_finding(sat_rnode *to, const sat_rnode *f, const sat_dg_day *d)
{
    const sat_value *sev = sat_rnode_val(f, "severity"), *text = sat_rnode_val(f, "text");
    const sat_value *sec = sat_rnode_val(f, "section");
    sat_rnode *fig = sat_doc_finding(to, sev ? sev->v.s : "notice", sec ? sec->v.s : NULL,
                                     "%s %s: %s", d->server, d->date, text ? text->v.s : "");
    sat_put_text(fig, "server_name", d->server);
    sat_put_text(fig, "day", d->date);
    const sat_rnode *src = sat_rnode_get(f, "figures");
    for (const sat_rnode *c = src ? sat_rnode_first(src) : NULL; c; c = sat_rnode_next(c))
        if (sat_rnode_value(c))
            if (sat_rnode_value(c))
                sat_put_value(fig, sat_rnode_key(c), sat_rnode_value(c));
}

/* A server-day's line of the fleet table: its volumes, each common type's p90,
 * its errors, regressions, storms and crashes. */
static void fleet_row(sat_rnode *ft, const sat_dg_day *d, int any_http, const int *used,
                      char (*names)[32], unsigned regressions)
{
    sat_rnode *row = sat_table_row(ft);
    sat_put_text(row, "server_name", d->server);
    sat_put_text(row, "day", d->date);
    sat_put_copy(row, "operations", sat_dg_get(d, SAT_DG_ETIME, NULL), "operations");
    const char *hp = sat_dg_http_prefix(d, SAT_DG_ETIME);
    if (any_http) {
        char mp[64];
        snprintf(mp, sizeof mp, "%smethods", hp ? hp : "");
        const sat_rnode *all =
            hp ? sat_get_row(sat_dg_get(d, SAT_DG_ETIME, mp), "method", "all") : NULL;
        sat_put_count(row, "requests", all ? (uint64_t)sat_get_num(all, "count", NAN) : 0);
        sat_put_dur(row, "request_p90_s", all ? sat_get_num(all, "p90_s", NAN) : NAN, 9);
    }
    for (size_t k = 0; k < NOPS; k++) {
        if (!used[k])
            continue;
        const sat_rnode *r = sat_get_row(sat_dg_get(d, SAT_DG_ETIME, "ops"), "op", op_types[k]);
        sat_put_dur(row, names[k], r ? sat_get_num(r, "p90_s", NAN) : NAN, 9);
    }
    sat_put_count(row, "errors", fleet_errors(d));
    sat_put_count(row, "regressions", regressions);
    sat_put_count(row, "storm_count", count_rows(d, SAT_DG_STORMS, "storms"));
    sat_put_count(row, "crash_count", count_rows(d, SAT_DG_CRASHES, "crashes"));
}

int sat_digest_write(sat_report *rep, const sat_dg_day *days, size_t ndays,
                     const sat_dg_day *base, size_t nbase, const char *title,
                     uint64_t dropped_days, unsigned days_kept)
{
    sat_result *doc = sat_report_doc(rep);
    sat_rnode *root = sat_result_root(doc);
    /* the span and the servers */
    int64_t first = 0, last = 0;
    size_t nservers = 0;
    for (size_t i = 0; i < ndays; i++) {
        /* the timeline's span: every kind of row (a capture, a crash), else etime's */
        int m = sat_dg_get(&days[i], SAT_DG_TIMELINE, NULL) ? SAT_DG_TIMELINE : SAT_DG_ETIME;
        const sat_value *f = sat_rnode_val(sat_dg_get(&days[i], m, NULL), "first_ts");
        const sat_value *l = sat_rnode_val(sat_dg_get(&days[i], m, NULL), "last_ts");
        if (f && !f->absent && (!first || f->v.i < first))
            first = f->v.i;
        if (l && !l->absent && l->v.i > last)
            last = l->v.i;
        nservers += !i || strcmp(days[i].server, days[i - 1].server) != 0;
    }
    const char *lo = NULL, *hi = NULL; /* the dated days' range */
    for (size_t i = 0; i < ndays; i++) {
        if (!strcmp(days[i].date, "undated"))
            continue;
        lo = !lo || strcmp(days[i].date, lo) < 0 ? days[i].date : lo;
        hi = !hi || strcmp(days[i].date, hi) > 0 ? days[i].date : hi;
    }
    char t[512];
    if (title)
        snprintf(t, sizeof t, "%s", title);
    else if (ndays && nservers == 1 && ndays == 1)
        snprintf(t, sizeof t, "Nightly digest: %s, %s", days[0].server, days[0].date);
    else if (ndays)
        snprintf(t, sizeof t, "Nightly digest: %zu %s, %s%s%s", nservers,
                 sat_plural(nservers, "server", "servers"), lo ? lo : "undated",
                 lo && strcmp(lo, hi) ? " to " : "", lo && strcmp(lo, hi) ? hi : "");
    else
        snprintf(t, sizeof t, "Nightly digest: no dated input");
    sat_doc_head(rep, t, first, last, ndays ? days[0].utc_offset_s : 0);
    /* inputs: each source once (a source of several days is on each) */
    sat_doc_inputs(rep);
    for (size_t i = 0; i < ndays; i++) {
        const sat_rnode *src = sat_dg_get(&days[i], SAT_DG_TIMELINE, "sources");
        for (const sat_rnode *s = src ? sat_rnode_first(src) : NULL; s; s = sat_rnode_next(s)) {
            const char *path = sat_get_text(s, "path", NULL);
            if (!path || sat_get_row(sat_rnode_get(root, "inputs"), "path", path))
                continue;
            const sat_value *ft = sat_row_get(s, "first_ts"), *lt = sat_row_get(s, "last_ts");
            double by = sat_get_num(s, "bytes", NAN), li = sat_get_num(s, "lines", NAN),
                   rj = sat_get_num(s, "rejects", NAN);
            sat_doc_input(rep, path, sat_get_text(s, "kind", NULL), sat_get_text(s, "format", NULL),
                          isfinite(by) ? (uint64_t)by : 0, isfinite(li) ? (uint64_t)li : 0,
                          isfinite(rj) ? (uint64_t)rj : 0, ft && !ft->absent ? ft->v.i : 0,
                          lt && !lt->absent ? lt->v.i : 0);
        }
    }
    sat_rnode *findings = sat_doc_findings(rep, NULL);

    /* the fleet summary: its table filled as the days' pages are written */
    /* the p90 of the types that make at least 1% of the fleet's operations */
    int used[NOPS] = {0};
    double opn[NOPS] = {0}, alln = 0;
    for (size_t i = 0; i < ndays; i++)
        for (size_t k = 0; k < NOPS; k++) {
            const sat_rnode *r = sat_get_row(sat_dg_get(&days[i], SAT_DG_ETIME, "ops"), "op", op_types[k]);
            double n = r && isfinite(sat_get_num(r, "p90_s", NAN)) ? sat_get_num(r, "count", NAN) : 0;
            opn[k] += isfinite(n) ? n : 0;
            alln += isfinite(n) ? n : 0;
        }
    for (size_t k = 0; k < NOPS; k++)
        used[k] = alln > 0 && opn[k] >= 0.01 * alln;
    sat_col cols[10 + NOPS];
    char names[NOPS][32], titles[NOPS][32];
    size_t nc = 0;
    cols[nc++] = (sat_col){"server_name", SAT_UNIT_TEXT, 0, "server"};
    cols[nc++] = (sat_col){"day", SAT_UNIT_TEXT, 0, "day"};
    cols[nc++] = (sat_col){"operations", SAT_UNIT_COUNT, 0, "ops"};
    int any_http = 0;
    for (size_t i = 0; i < ndays; i++)
        any_http |= sat_dg_http_prefix(&days[i], SAT_DG_ETIME) != NULL;
    if (any_http) {
        cols[nc++] = (sat_col){"requests", SAT_UNIT_COUNT, 0, "requests"};
        cols[nc++] = (sat_col){"request_p90_s", SAT_UNIT_DURATION, 9, "HTTP p90"};
    }
    for (size_t k = 0; k < NOPS; k++) {
        if (!used[k])
            continue;
        snprintf(names[k], sizeof names[k], "%s.p90_s", op_types[k]);
        snprintf(titles[k], sizeof titles[k], "%s", op_types[k]);
        cols[nc++] = (sat_col){names[k], SAT_UNIT_DURATION, 9, titles[k]};
    }
    cols[nc++] = (sat_col){"errors", SAT_UNIT_COUNT, 0, "errors"};
    cols[nc++] = (sat_col){"regressions", SAT_UNIT_COUNT, 0, "regressions"};
    cols[nc++] = (sat_col){"storm_count", SAT_UNIT_COUNT, 0, "storms"};
    cols[nc++] = (sat_col){"crash_count", SAT_UNIT_COUNT, 0, "crashes"};
    sat_rnode *fleet = sat_doc_page(rep, "Fleet summary", NULL, -1);
    sat_rnode *fsec = sat_doc_section(fleet, "fleet", "Servers and days");
    sat_doc_para(fsec, "%zu %s, %zu %s of %s; baseline: %zu %s.", nservers,
                 sat_plural(nservers, "server", "servers"), ndays, sat_plural(ndays, "day", "days"),
                 nservers == 1 ? "it" : "them", nbase, sat_plural(nbase, "day", "days"));
    if (dropped_days)
        sat_doc_para(fsec, "%llu earlier %s left out (each server's last %u days are kept).",
                     (unsigned long long)dropped_days, sat_plural(dropped_days, "day", "days"),
                     days_kept);
    sat_rnode *ft = sat_doc_new_table(fsec, "Fleet",
                                      any_http ? "BIND, SRCH, ...: the etime p90 of the type (types "
                                                 "of 1% of the operations or more); HTTP p90: the "
                                                 "requests' response time p90; errors: results "
                                                 "other than 0, 5, 6, 14 and statuses >= 400; "
                                                 "regressions: findings of the regression rules"
                                               : "BIND, SRCH, ...: the etime p90 of the type (types "
                                                 "of 1% of the operations or more); "
                                                 "regressions: findings of the regression "
                                                 "rules",
                                      cols, nc);
    sat_doc_highlight(fsec, "regressions");
    sat_doc_wrap(fsec); /* a server named whole, over two lines if it must */
    size_t nquiet = 0;
    size_t nrules;
    const sat_digest_rule *rules = sat_digest_rules(&nrules);
    sat_rnode **pages = calloc(ndays ? ndays : 1, sizeof *pages);
    int *links = calloc(ndays ? ndays : 1, sizeof *links);
    if (!pages || !links) {
        free(pages);
        free(links);
        return SAT_E_NOMEM;
    }
    /* a quiet server-day (compared with a baseline, no finding: no
     * regression, nothing new, no storm, no crash) gets no page of its own
     * when there are several: its line of the fleet table is its summary. A
     * day with no baseline is not quiet, only not compared: it keeps its page */
    int npages = 1; /* the fleet summary */
    for (size_t i = 0; i < ndays; i++) {
        const sat_dg_day *d = &days[i];
        const sat_dg_day *b[64];
        size_t nb = baseline_of(d, base, nbase, b, 64);
        sat_dg_ctx c = {d, b, nb, NULL, 0};
        if (ndays > 1 && nb) { /* the rules tried on a scratch list first */
            sat_result *scratch = sat_result_new("digest");
            sat_rnode *trial = scratch ? sat_list(sat_result_root(scratch), "findings") : NULL;
            c.findings = trial;
            for (size_t k = 0; trial && k < nrules; k++)
                rules[k].check(&rules[k], &c);
            int quiet = trial && !sat_rnode_first(trial);
            sat_result_free(scratch);
            if (quiet) {
                nquiet++;
                fleet_row(ft, d, any_http, used, names, 0);
                continue;
            }
        }
        char pt[512], sub[128];
        snprintf(pt, sizeof pt, "%s, %s", d->server, d->date);
        int off = d->utc_offset_s;
        snprintf(sub, sizeof sub, "local day at UTC%c%02d:%02d", off < 0 ? '-' : '+',
                 abs(off) / 3600, abs(off) % 3600 / 60);
        sat_rnode *page = sat_doc_page(rep, pt, sub, d->set);
        sat_put_int(page, "utc_offset_s", off);
        pages[i] = page;
        c.findings = sat_doc_findings(rep, page);
        for (size_t k = 0; k < nrules; k++) {
            int n = rules[k].check(&rules[k], &c);
            if (rules[k].regression && n > 0)
                c.regressions += (unsigned)n;
        }
        day_page(rep, page, d, b, nb);
        fleet_row(ft, d, any_http, used, names, c.regressions);
        links[i] = ++npages;
    }
    sat_doc_link_rows(fsec, links, ndays);
    free(links);
    if (nquiet)
        sat_doc_footnote(fsec, "%zu quiet server-%s (against %s baseline, no finding: nothing "
                               "regressed or new, no storm, no crash) %s no page of %s own: %s line above %s %s "
                               "summary.",
                         nquiet, nquiet == 1 ? "day" : "days", nquiet == 1 ? "its" : "their",
                         nquiet == 1 ? "has" : "have",
                         nquiet == 1 ? "its" : "their", nquiet == 1 ? "its" : "their",
                         nquiet == 1 ? "is" : "are", nquiet == 1 ? "its" : "their");
    if (nbase) {
        static const sat_col bcols[] = {{"server_name", SAT_UNIT_TEXT, 0, "server"},
                                        {"day", SAT_UNIT_TEXT, 0, "day"},
                                        {"operations", SAT_UNIT_COUNT, 0, "ops"},
                                        {"errors", SAT_UNIT_COUNT, 0, "errors"},
                                        {"matched", SAT_UNIT_BOOL, 0, "matched"}};
        sat_rnode *bt = sat_doc_new_table(fsec, "Baseline days",
                                          "matched: a day of the inputs has its server's name",
                                          bcols, sizeof bcols / sizeof bcols[0]);
        for (size_t i = 0; i < nbase; i++) {
            sat_rnode *row = sat_table_row(bt);
            sat_put_text(row, "server_name", base[i].server);
            sat_put_text(row, "day", base[i].date);
            sat_put_copy(row, "operations", sat_dg_get(&base[i], SAT_DG_ETIME, NULL), "operations");
            sat_put_count(row, "errors", fleet_errors(&base[i]));
            int matched = 0;
            for (size_t k = 0; k < ndays && !matched; k++)
                matched = !strcmp(days[k].server, base[i].server);
            sat_put_bool(row, "matched", matched);
        }
    }
    /* the report's findings: every page's, most severe first */
    static const char *const sevs[] = {"critical", "warning", "notice"};
    for (size_t s = 0; s < 3; s++)
        for (size_t i = 0; i < ndays; i++) {
            const sat_rnode *pf = pages[i] ? sat_rnode_get(pages[i], "findings") : NULL;
            for (const sat_rnode *f = pf ? sat_rnode_first(pf) : NULL; f; f = sat_rnode_next(f)) {
                const sat_value *sv = sat_rnode_val(f, "severity");
                if (sv && !strcmp(sv->v.s, sevs[s]))
                    copy_finding(findings, f, &days[i]);
            }
        }
    free(pages);
    return sat_result_status(doc);
}
