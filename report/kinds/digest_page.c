/*
 * digest_page.c - one server-day's page of the nightly digest (digest.c
 * makes the days, the fleet summary and the report's findings; the rules of
 * digest_rules.c wrote this page's findings before it is built): what ran,
 * latency by type against the baseline days, result codes, unindexed
 * searches, top clients, failed binds (rows new against the baseline
 * highlighted), HTTP requests, TLS, storms, crashes, the entry cache; what it
 * looked for and did not find, in one closing line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest_int.h"
#include "satscope/report.h"

/* The errors of a day: results other than success (0), SASL bind in
 * progress (14) and compare false/true (5, 6), which are answers. */
uint64_t sat_dg_day_errors(const sat_dg_day *d)
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

void sat_dg_day_page(sat_report *rep, sat_rnode *page, const sat_dg_day *d,
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
        sat_put_count(v, "errors", sat_dg_day_errors(d));
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

