/*
 * digest.c - the nightly digest (report_digest.h): the inputs and the
 * --baseline inputs each split by server and local day, every (server, day)
 * analysed by the digest's plan (analyze.h), its results read by role; the
 * rules of digest_rules.c write each day's findings, digest_page.c its page;
 * a fleet summary page first (a quiet server-day, compared and with no
 * finding, is its line there and has no page), and every finding again in
 * the report's own list, most severe first.
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
        d[i].quiet = in[i].quiet;
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

static int digest_settle(sat_report *rep, sat_report_day *days, size_t n, sat_report_day *base,
                         size_t nb, size_t ndays_total);

const sat_report_kind sat_report_kind_digest = {
    "digest", "one page per server per day, against --baseline: what ran, what was slow, "
              "what failed, what is new",
    NULL, 1, digest_build, digest_settle};

static const char *const op_types[] = {"BIND", "SRCH", "ADD", "MOD", "DEL", "MODRDN", "CMP", "EXT"};
#define NOPS (sizeof op_types / sizeof op_types[0])

static size_t count_rows(const sat_dg_day *d, int m, const char *path)
{
    const sat_rnode *t = sat_dg_get(d, m, path);
    return t ? sat_rnode_count(t) : 0;
}

/* The errors of the fleet's tables: the LDAP ones and the HTTP requests
 * answered with a status >= 400. */
static uint64_t fleet_errors(const sat_dg_day *d)
{
    uint64_t errs = sat_dg_day_errors(d);
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
static sat_rnode *fleet_row(sat_rnode *ft, const sat_dg_day *d, int any_http, const int *used,
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
    return row;
}

/* A server-day's figures for monitoring (the .prom form), read from its
 * line of the fleet table: the same figures, said once. */
static void fleet_metrics(sat_report *rep, const sat_rnode *row, const int *used,
                          char (*names)[32])
{
    static const struct {
        const char *col, *metric, *help;
    } figs[] = {
        {"operations", "satscope_digest_operations", "LDAP operations of the server-day."},
        {"requests", "satscope_digest_requests", "HTTP requests of the server-day."},
        {"errors", "satscope_digest_errors",
         "Results other than 0, 5, 6, 14 and HTTP statuses >= 400 of the server-day."},
        {"regressions", "satscope_digest_regressions",
         "Findings of the regression rules against the baseline days."},
        {"storm_count", "satscope_digest_storms", "Storms of client failures of the server-day."},
        {"crash_count", "satscope_digest_crashes", "Crashes of the server-day."},
    };
    const char *server = sat_get_text(row, "server_name", ""), *day = sat_get_text(row, "day", "");
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        if (sat_get_has(row, figs[i].col))
            sat_doc_metric(rep, figs[i].metric, figs[i].help, sat_get_num(row, figs[i].col, NAN),
                           "server_name", server, "day", day, NULL);
    for (size_t k = 0; k < NOPS; k++)
        if (used[k] && sat_get_has(row, names[k]))
            sat_doc_metric(rep, "satscope_digest_etime_p90_seconds",
                           "The etime p90 of the operation type over the server-day.",
                           sat_get_num(row, names[k], NAN), "server_name", server, "day", day, "op",
                           op_types[k], NULL);
}

/* Whether a server-day is quiet: compared with at least one baseline day of
 * its server, and no rule finds anything (the rules tried on a scratch list).
 * A day with no baseline is not quiet, only not compared: it keeps its page. */
static int day_quiet(const sat_dg_day *d, const sat_dg_day *const *b, size_t nb)
{
    if (!nb)
        return 0;
    size_t nrules;
    const sat_digest_rule *rules = sat_digest_rules(&nrules);
    sat_result *scratch = sat_result_new("digest");
    sat_rnode *trial = scratch ? sat_list(sat_result_root(scratch), "findings") : NULL;
    sat_dg_ctx c = {d, b, nb, trial, 0};
    for (size_t k = 0; trial && k < nrules; k++)
        rules[k].check(&rules[k], &c);
    int quiet = trial && !sat_rnode_first(trial);
    sat_result_free(scratch);
    return quiet;
}

/* What a server-day without a page keeps of its results (by role: the
 * root's values, and these sections; a dotted path keeps that part of an
 * object): what its line of the fleet table, the report's span and inputs,
 * and the baseline table read. */
static const struct {
    int member;
    const char *paths[5];
} kept_of_quiet[] = {
    {SAT_DG_ETIME, {"ops", "result_codes", "request_stats", "methods", NULL}},
    {SAT_DG_ETIME, {"http.request_stats", "http.methods", NULL}},
    {SAT_DG_TIMELINE, {"sources", NULL}},
    {SAT_DG_STORMS, {"storms", NULL}},
    {SAT_DG_CRASHES, {"crashes", NULL}},
};

/* Whether `key` (under prefix `pre`, "" at the root) is kept whole, or
 * holds a kept part (*inside set). */
static int kept(int m, const char *pre, const char *key, int *inside)
{
    char full[128];
    snprintf(full, sizeof full, "%s%s", pre, key);
    size_t fl = strlen(full);
    *inside = 0;
    for (size_t i = 0; i < sizeof kept_of_quiet / sizeof kept_of_quiet[0]; i++)
        for (size_t k = 0; kept_of_quiet[i].member == m && kept_of_quiet[i].paths[k]; k++) {
            const char *p = kept_of_quiet[i].paths[k];
            if (!strcmp(p, full))
                return 1;
            if (!strncmp(p, full, fl) && p[fl] == '.')
                *inside = 1;
        }
    return 0;
}

static void copy_kept(int m, const char *pre, sat_rnode *to, const sat_rnode *from)
{
    for (const sat_rnode *c = sat_rnode_first(from); c; c = sat_rnode_next(c)) {
        int inside;
        const char *key = sat_rnode_key(c);
        if (sat_rnode_kind_of(c) == SAT_RN_VALUE || kept(m, pre, key, &inside)) {
            sat_rnode_copy(to, key, c);
        } else if (inside && sat_rnode_kind_of(c) == SAT_RN_OBJECT) {
            char sub[128];
            snprintf(sub, sizeof sub, "%s%s.", pre, key);
            copy_kept(m, sub, sat_obj(to, key), c);
        }
    }
}

/* Set `set` made of what a day without a page keeps of it. */
static int compact_set(sat_report *rep, int set)
{
    const sat_result_set *rs = sat_report_set(rep, (size_t)set);
    if (!rs || !rs->n)
        return SAT_OK;
    sat_result *small[SAT_DG__N];
    size_t n = 0;
    int rc = SAT_OK;
    for (size_t i = 0; i < rs->n && n < SAT_DG__N; i++) {
        const char *role = sat_result_command(rs->results[i]);
        int m = SAT_DG__N;
        for (int k = 0; k < SAT_DG__N; k++)
            if (!strcmp(roles[k], role))
                m = k;
        if (!(small[n] = sat_result_new(role)))
            rc = SAT_E_NOMEM;
        else
            copy_kept(m, "", sat_result_root(small[n]), sat_result_root(rs->results[i]));
        if (small[n] && sat_result_status(small[n]) != SAT_OK)
            rc = SAT_E_NOMEM;
        n += small[n] != NULL;
    }
    int prc = sat_report_put_set(rep, (size_t)set, small, n); /* takes them */
    return rc < 0 ? rc : prc;
}

/* One server's days and baseline days, once their results are in: which
 * days get no page (quiet, the rule of sat_digest_write), and what of them
 * and of the baseline days no page will read is let go. */
static int digest_settle(sat_report *rep, sat_report_day *days, size_t n, sat_report_day *base,
                         size_t nb, size_t ndays_total)
{
    sat_dg_day *cur = days_of(rep, days, n), *b = days_of(rep, base, nb);
    const sat_dg_day **bp = calloc(nb ? nb : 1, sizeof *bp);
    int rc = cur && b && bp ? SAT_OK : SAT_E_NOMEM;
    size_t paged = 0;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        /* days_of sorts: find this day's own entry by its set */
        const sat_dg_day *d = NULL;
        for (size_t k = 0; k < n && !d; k++)
            d = cur[k].set == days[i].set ? &cur[k] : NULL;
        size_t nbd = d ? baseline_of(d, b, nb, bp, nb) : 0;
        days[i].quiet = ndays_total > 1 && d && day_quiet(d, bp, nbd);
        paged += !days[i].quiet;
    }
    free(cur);
    free(b);
    free(bp);
    for (size_t i = 0; i < n && rc >= 0; i++)
        if (days[i].quiet)
            rc = compact_set(rep, days[i].set);
    for (size_t i = 0; i < nb && rc >= 0 && !paged; i++)
        rc = compact_set(rep, base[i].set);
    return rc;
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
        if (d->quiet > 0 || (d->quiet < 0 && ndays > 1 && day_quiet(d, b, nb))) {
            nquiet++;
            fleet_metrics(rep, fleet_row(ft, d, any_http, used, names, 0), used, names);
            continue;
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
        sat_dg_day_page(rep, page, d, b, nb);
        fleet_metrics(rep, fleet_row(ft, d, any_http, used, names, c.regressions), used, names);
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
