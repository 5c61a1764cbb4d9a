/*
 * chart_dist.c - the distributions chart: how long operations took and
 * where the time went.
 *   1. the etime distribution of each operation type (timeline
 *      `etime_histogram`: op, lo_s, hi_s, count), as the share of the type's
 *      operations in each bin, on a log time axis: one line per type, joined
 *      at the bins' geometric centres, down to zero over empty bins;
 *   2-5. who used the server: horizontal bars of the share of the work
 *      (etime `usage.<dim>_used`, work_share: of the searches' work for
 *      filter shapes and search bases, of every operation's for clients and
 *      bind DNs), the top keys by work; a result without them: the share of
 *      all operation time (etime `ops` "all" total_s) by total_s of
 *      `top.filters|bases|clients|bind_dns`.
 * HTTP access logs (etime's requests: its root alone, its "http" object
 * beside a directory's logs): the response times of the requests in panel 1
 * (the histogram's op "HTTP"), and the share of all response time by path
 * template, method and client; beside operations, by path template after
 * the operations' panels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

#define HIST_TYPES 6
#define TOP_BARS 8 /* rows of bars a panel draws, the last "(other)" when more */

typedef struct opcount {
    const char *op;
    double count;
} opcount;

static int by_count_desc(const void *a, const void *b)
{
    const opcount *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->op, y->op);
}

static void panel_hist(sat_chart *c, sat_result *tl, int http_only)
{
    sat_chart_panel *p = sat_chart_panel_add(
        c, http_only ? "Response time of the HTTP requests (share of the requests)"
                     : "etime by operation type (share of the type's operations)",
        1.8);
    sat_chart_panel_x(p, SAT_AXIS_LOG, http_only ? "response time" : "etime", SAT_UNIT_DURATION);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, NULL, SAT_UNIT_RATIO);
    const sat_rnode *h = sat_get_table(sat_result_root(tl), "etime_histogram");
    opcount ops[64];
    size_t n = 0;
    for (const sat_rnode *r = h ? sat_rnode_first(h) : NULL; r; r = sat_rnode_next(r)) {
        const char *op = sat_get_text(r, "op", NULL);
        double k = sat_get_num(r, "count", NAN);
        if (!op || !isfinite(k))
            continue;
        size_t i = 0;
        while (i < n && strcmp(ops[i].op, op) != 0)
            i++;
        if (i == n) {
            if (n == 64)
                continue;
            ops[n++] = (opcount){op, 0};
        }
        ops[i].count += k;
    }
    qsort(ops, n, sizeof *ops, by_count_desc);
    while (n && ops[n - 1].count == 0)
        n--;
    if (!n) {
        sat_chart_panel_note(p, http_only ? "no request with a response time in the inputs"
                                          : "no operation with an etime in the inputs");
        return;
    }
    if (n > HIST_TYPES)
        n = HIST_TYPES;
    for (size_t i = 0; i < n; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s (%.0f)", ops[i].op, ops[i].count);
        sat_chart_series *s = sat_chart_series_add(p, name, SAT_SERIES_LINE, SAT_COLOR_AUTO);
        double prev_hi = NAN, ratio = NAN;
        for (const sat_rnode *r = sat_rnode_first(h); r; r = sat_rnode_next(r)) {
            const char *op = sat_get_text(r, "op", NULL);
            if (!op || strcmp(op, ops[i].op) != 0)
                continue;
            double lo = sat_get_num(r, "lo_s", NAN), hi = sat_get_num(r, "hi_s", NAN), k = sat_get_num(r, "count", NAN);
            if (!(lo > 0) || !(hi > lo) || !isfinite(k))
                continue;
            ratio = hi / lo;
            if (!isfinite(prev_hi)) {
                sat_chart_point(s, lo / sqrt(ratio), 0); /* from zero, a bin before */
            } else if (lo > prev_hi * 1.0001) {
                /* empty bins between: down to zero after the last, up from zero before this */
                sat_chart_point(s, prev_hi * sqrt(ratio), 0);
                if (lo / sqrt(ratio) > prev_hi * sqrt(ratio) * 1.0001)
                    sat_chart_point(s, lo / sqrt(ratio), 0);
            }
            sat_chart_point(s, sqrt(lo * hi), k / ops[i].count);
            prev_hi = hi;
        }
        if (isfinite(prev_hi))
            sat_chart_point(s, prev_hi * sqrt(ratio), 0);
    }
}

typedef struct bar {
    const char *name;
    double total;
} bar;

static int by_total_desc(const void *a, const void *b)
{
    const bar *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* share_col: the rows' own share of the whole (usage tables: "(other)"
 * left out), else total_s / all. */
static void panel_top_of(sat_chart *c, sat_result *et, const char *path, const char *col,
                         const char *what, const char *of, double all, int http,
                         const char *share_col)
{
    char title[128];
    if (share_col)
        snprintf(title, sizeof title, "Who used the server: %sby %s", of, what);
    else
        snprintf(title, sizeof title, "Where the time went: %sby %s", of, what);
    sat_chart_panel *p = sat_chart_panel_add(c, title, 1);
    sat_chart_panel_x(p, SAT_AXIS_LINEAR,
                      share_col ? (*of ? "share of the searches' work (optime)"
                                       : "share of all operations' work (optime)")
                      : http    ? "share of all response time"
                                : "share of all operation time",
                      SAT_UNIT_RATIO);
    sat_chart_panel_y(p, SAT_AXIS_CATEGORY, NULL, SAT_UNIT_TEXT);
    const sat_rnode *t = sat_get_table(sat_result_root(et), path);
    bar bars[512];
    size_t n = 0;
    double rest = 0; /* what the table itself sums up as "(other)", and rows past 512 */
    for (const sat_rnode *r = t ? sat_rnode_first(t) : NULL; r; r = sat_rnode_next(r)) {
        const char *name = sat_get_text(r, col, NULL);
        double v = sat_get_num(r, share_col ? share_col : "total_s", NAN);
        if (!name || !isfinite(v) || !(v > 0) || (http && !strcmp(name, "all"))) /* "all": every request */
            continue;
        if ((share_col && !strcmp(name, "(other)")) || n == 512)
            rest += v; /* the rest, not a key */
        else
            bars[n++] = (bar){name, v};
    }
    if (!n || !(share_col || all > 0)) {
        char note[128];
        snprintf(note, sizeof note, "no %s with %s in the inputs", what,
                 http ? "a response time" : "an etime");
        sat_chart_panel_note(p, note);
        return;
    }
    qsort(bars, n, sizeof *bars, by_total_desc);
    sat_chart_series *s = sat_chart_series_add(p, NULL, SAT_SERIES_HBARS, SAT_COLOR_BLUE);
    /* a few bars tall enough to read, every one labelled; the rest folded
     * into one "(other)" bar, so the shares still add up */
    size_t shown = n + (rest > 0) > TOP_BARS ? TOP_BARS - 1 : n;
    for (size_t i = shown; i < n; i++)
        rest += bars[i].total;
    for (size_t i = 0; i < shown; i++)
        sat_chart_bar(s, bars[i].name, share_col ? bars[i].total : bars[i].total / all);
    if (rest > 0)
        sat_chart_bar(s, "(other)", share_col ? rest : rest / all);
    /* a share over half: the axis ends at 100%, not at a tick past it */
    double top = shown ? (share_col ? bars[0].total : bars[0].total / all) : 0;
    if (top > 0.5 && top <= 1) {
        p->x.fixed = 1;
        p->x.flo = 0;
        p->x.fhi = 1;
    }
}

/* Who used the server by dim (usage.<dim>_used), else the top list `path`
 * by its total etime over all's. */
static void panel_top(sat_chart *c, sat_result *et, const char *dim, const char *ucol,
                      const char *path, const char *col, const char *what, const char *of,
                      double all)
{
    char up[96];
    snprintf(up, sizeof up, "usage.%s_used", dim);
    if (sat_get_table(sat_result_root(et), up))
        panel_top_of(c, et, up, ucol, what, of, all, 0, "work_share");
    else
        panel_top_of(c, et, path, col, what, of, all, 0, NULL);
}

/* Where etime keeps HTTP requests: "" (HTTP logs alone), "http." (beside a
 * directory's), NULL without. */
static const char *http_prefix(sat_result *et)
{
    if (sat_get_table(sat_result_root(et), "http.methods"))
        return "http.";
    if (sat_get_table(sat_result_root(et), "methods") && sat_get_num(sat_result_root(et), "requests", NAN) > 0)
        return "";
    return NULL;
}

/* The requests' whole response time: the methods' "all" row. */
static double http_all(sat_result *et, const char *pre)
{
    char path[64];
    snprintf(path, sizeof path, "%smethods", pre);
    const sat_rnode *t = sat_get_table(sat_result_root(et), path);
    for (const sat_rnode *r = t ? sat_rnode_first(t) : NULL; r; r = sat_rnode_next(r)) {
        const char *m = sat_get_text(r, "method", NULL);
        if (m && !strcmp(m, "all"))
            return sat_get_num(r, "total_s", NAN);
    }
    return NAN;
}

/* Which panels a part draws (sat_chart_opts.part): 0 every one; 1 the
 * histogram; 2, 3, ... two panels of bars each, so that each part is a
 * chart of a size a page region holds. part -1 only counts the panels. */
typedef struct pick {
    int part, next;
} pick;

static int take(pick *k)
{
    int i = k->next++;
    return k->part == 0 || k->part == (i == 0 ? 1 : 2 + (i - 1) / 2);
}

/* Adds the panels (c NULL: counts them in k, the builders do nothing). */
static void panels(sat_chart *c, const sat_result_set *set, pick *k)
{
    sat_result *tl = sat_result_set_get(set, "timeline"), *et = sat_result_set_get(set, "etime");
    const sat_rnode *ops = sat_get_table(sat_result_root(et), "ops");
    double all = sat_get_num(sat_get_row(ops, "op", "all"), "total_s", NAN);
    if (!isfinite(all))
        all = 0;
    const char *hp = http_prefix(et);
    int http_only = hp && !(ops && sat_rnode_first(ops));
    if (take(k))
        panel_hist(c, tl, http_only);
    char path[64];
    if (http_only) {
        double hall = http_all(et, hp);
        snprintf(path, sizeof path, "%sgroups", hp);
        if (take(k))
            panel_top_of(c, et, path, "path", "path template", "requests ", hall, 1, NULL);
        snprintf(path, sizeof path, "%smethods", hp);
        if (take(k))
            panel_top_of(c, et, path, "method", "method", "requests ", hall, 1, NULL);
        snprintf(path, sizeof path, "%stop.clients", hp);
        if (take(k))
            panel_top_of(c, et, path, "client", "client", "requests ", hall, 1, NULL);
        return;
    }
    if (take(k))
        panel_top(c, et, "filter_shapes", "filter_shape", "top.filters", "filter", "filter shape",
                  "searches ", all);
    if (take(k))
        panel_top(c, et, "bases", "base", "top.bases", "base", "search base", "searches ", all);
    if (take(k))
        panel_top(c, et, "clients", "client", "top.clients", "client", "client", "", all);
    /* usage: every operation under the DN it ran as; the top list: a
     * bind DN's own binds */
    if (take(k))
        panel_top(c, et, "bind_dns", "binddn", "top.bind_dns", "binddn", "bind DN", "", all);
    if (hp && take(k)) {
        snprintf(path, sizeof path, "%sgroups", hp);
        panel_top_of(c, et, path, "path", "path template", "HTTP requests ", http_all(et, hp), 1,
                     NULL);
    }
}

static size_t parts(const sat_result_set *set)
{
    pick k = {-1, 0};
    panels(NULL, set, &k);
    return k.next > 1 ? 1 + (size_t)(k.next - 1 + 1) / 2 : 1;
}

static sat_chart *build(const sat_result_set *set, const sat_chart_opts *o, sat_diag *diag)
{
    sat_result *tl = sat_result_set_get(set, "timeline"), *et = sat_result_set_get(set, "etime");
    const sat_rnode *ops = sat_get_table(sat_result_root(et), "ops"), *h = sat_get_table(sat_result_root(tl), "etime_histogram");
    /* the whole: the "all" row (every operation with a RESULT), never the
     * sum of the rows, which holds every operation twice */
    double all = sat_get_num(sat_get_row(ops, "op", "all"), "total_s", NAN);
    if (!(all > 0) && (!h || !sat_rnode_count(h))) {
        sat_diag_set(diag, SAT_E_USAGE, NULL,
                     "the distributions have nothing to draw: no operation with an etime in the inputs");
        return NULL;
    }
    int part = o ? o->part : 0;
    size_t np = parts(set);
    const char *hp = http_prefix(et);
    int http_only = hp && !(ops && sat_rnode_first(ops));
    char title[128];
    if (part == 0)
        snprintf(title, sizeof title, "Distributions: how long %s took, and where the time went",
                 http_only ? "requests" : "operations");
    else if (part == 1)
        snprintf(title, sizeof title, "How long %s took", http_only ? "requests" : "operations");
    else
        snprintf(title, sizeof title, "Where the time went (%d of %zu)", part - 1, np - 1);
    /* as tall as its panels need: rows of bars a reader can tell apart */
    sat_chart *c = sat_chart_new(title, o && o->width_pt > 0 ? o->width_pt : 760,
                                 o && o->height_pt > 0 ? o->height_pt : 0);
    if (!c) {
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    pick k = {part, 0};
    panels(c, set, &k);
    if (sat_chart_status(c) != SAT_OK) {
        sat_chart_free(c);
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    return c;
}

static const char *const analyzers[] = {"timeline", "etime", NULL};

const sat_chart_kind ch_kind_distributions = {
    "distributions", "how long operations took (etime per type) and where the time went", analyzers, build,
    parts};
