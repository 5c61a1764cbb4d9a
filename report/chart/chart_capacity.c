/*
 * chart_capacity.c - the capacity chart: how big a cache and how much load.
 *   1. the miss ratio curve turned into hits (cachesize `mrc`: the hit ratio
 *      an LRU entry cache of each size would have had on the inputs'
 *      references), against entries, or bytes when the entry size is known;
 *      the cache's current size (cn=monitor) and the sizes the hit-ratio
 *      targets need marked, and the most any size can hit;
 *   2. throughput against concurrency (saturation `points`, the windows
 *      fitted and those left out), with the Universal Scalability Law
 *      fitted to them, X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)),
 *      its peak N* and X_max marked, or the ceiling when no knee shows.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart_int.h"
#include "satscope/report.h"

static int mrc_has_bytes(const sat_rnode *mrc)
{
    size_t k = 0;
    for (const sat_rnode *r = sat_rnode_first(mrc); r; r = sat_rnode_next(r))
        if (isfinite(sat_get_num(r, "bytes", NAN)) && sat_get_num(r, "bytes", NAN) > 0)
            k++;
    return k > 1;
}

static void panel_mrc(sat_chart *c, sat_result *cs)
{
    sat_chart_panel *p = sat_chart_panel_add(c, "Entry cache: the hit ratio each size would have had", 1);
    const sat_rnode *mrc = sat_get_table(sat_result_root(cs), "mrc");
    int bytes = mrc && mrc_has_bytes(mrc);
    sat_chart_panel_x(p, SAT_AXIS_LINEAR, bytes ? "entry cache size" : "entry cache size (entries)",
                      bytes ? SAT_UNIT_BYTES : SAT_UNIT_COUNT);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "hit ratio", SAT_UNIT_RATIO);
    sat_chart_panel_y_range(p, 0, 1);
    if (!mrc || sat_rnode_count(mrc) < 2) {
        sat_chart_panel_note(p, "no entry references in the inputs (cachesize reads 389 and OpenLDAP access logs)");
        return;
    }
    const char *xcol = bytes ? "bytes" : "entries";
    sat_chart_series *s = sat_chart_series_add(p, "hit ratio (LRU, replayed)", SAT_SERIES_LINE, SAT_COLOR_BLUE);
    for (const sat_rnode *r = sat_rnode_first(mrc); r; r = sat_rnode_next(r))
        sat_chart_point(s, sat_get_num(r, xcol, NAN), sat_get_num(r, "hit_ratio", NAN));
    char label[128], v[64];
    double max_hit = sat_get_num(sat_result_root(cs), "max_hit_ratio", NAN);
    if (isfinite(max_hit)) {
        ch_tick_label(v, sizeof v, SAT_UNIT_RATIO, round(max_hit * 1000) / 1000);
        snprintf(label, sizeof label, "the most any size hits: %s", v);
        sat_chart_panel_hline(p, max_hit, label);
    }
    /* today's cache, in the axis's unit */
    double cur = bytes ? sat_get_num(sat_result_root(cs), "monitor.max_entry_cache_bytes", NAN) : sat_get_num(sat_result_root(cs), "monitor.current_entries", NAN);
    if (isfinite(cur) && cur > 0) {
        if (bytes)
            sat_fmt_bytes(v, sizeof v, (uint64_t)fmin(cur, 1.8e19));
        else
            snprintf(v, sizeof v, "%.0f entries", cur);
        snprintf(label, sizeof label, "current: %s", v);
        sat_chart_panel_vline(p, cur, label);
    }
    const sat_rnode *tg = sat_get_table(sat_result_root(cs), "targets");
    for (const sat_rnode *r = tg ? sat_rnode_first(tg) : NULL; r; r = sat_rnode_next(r)) {
        double x = sat_get_num(r, xcol, NAN), hr = sat_get_num(r, "hit_ratio", NAN), ok = sat_get_num(r, "reachable", NAN);
        if (!isfinite(x) || !isfinite(hr) || ok != 1)
            continue;
        char h[32];
        ch_tick_label(h, sizeof h, SAT_UNIT_RATIO, hr);
        if (bytes)
            sat_fmt_bytes(v, sizeof v, (uint64_t)fmin(x, 1.8e19));
        else
            snprintf(v, sizeof v, "%.0f entries", x);
        snprintf(label, sizeof label, "%s hits: %s", h, v);
        sat_chart_panel_label(p, x, hr, label);
    }
    double rec = sat_get_num(sat_result_root(cs), "recommend.cachememsize_bytes", NAN);
    if (bytes && isfinite(rec) && rec > 0) {
        sat_fmt_bytes(v, sizeof v, (uint64_t)fmin(rec, 1.8e19));
        snprintf(label, sizeof label, "recommended: %s", v);
        sat_chart_panel_vline(p, rec, label);
    }
}

static double usl(double n, double lambda, double sigma, double kappa)
{
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

/* Points with both a concurrency and a throughput. */
static size_t measured(const sat_rnode *pts)
{
    size_t n = 0;
    for (const sat_rnode *r = pts ? sat_rnode_first(pts) : NULL; r; r = sat_rnode_next(r))
        n += isfinite(sat_get_num(r, "concurrency", NAN)) && isfinite(sat_get_num(r, "throughput", NAN));
    return n;
}

static void panel_usl(sat_chart *c, sat_result *sat)
{
    sat_chart_panel *p = sat_chart_panel_add(c, "Throughput against concurrency, and the USL fit", 1);
    sat_chart_panel_x(p, SAT_AXIS_LINEAR, "concurrency N (operations in service)", SAT_UNIT_NUMBER);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "operations/s", SAT_UNIT_RATE);
    const sat_rnode *pts = sat_get_table(sat_result_root(sat), "points");
    if (!measured(pts)) {
        sat_chart_panel_note(p, "no throughput measured in the inputs (saturation needs timed operations)");
        return;
    }
    sat_chart_series *used = sat_chart_series_add(p, "measured (fitted)", SAT_SERIES_POINTS, SAT_COLOR_BLUE);
    sat_chart_series *left = sat_chart_series_add(p, "measured (too few operations: not fitted)",
                                                  SAT_SERIES_POINTS, SAT_COLOR_SKY_BLUE);
    double nmax = 0;
    for (const sat_rnode *r = sat_rnode_first(pts); r; r = sat_rnode_next(r)) {
        double n = sat_get_num(r, "concurrency", NAN), x = sat_get_num(r, "throughput", NAN);
        sat_chart_point(sat_get_num(r, "used", NAN) == 1 ? used : left, n, x);
        if (isfinite(n) && n > nmax)
            nmax = n;
    }
    double lambda = sat_get_num(sat_result_root(sat), "usl.lambda", NAN), sigma = sat_get_num(sat_result_root(sat), "usl.sigma", NAN), kappa = sat_get_num(sat_result_root(sat), "usl.kappa", NAN);
    double nstar = sat_get_num(sat_result_root(sat), "usl.n_star", NAN), xmax = sat_get_num(sat_result_root(sat), "usl.x_max", NAN), ceil_x = sat_get_num(sat_result_root(sat), "usl.x_ceiling", NAN);
    int ok = sat_get_num(sat_result_root(sat), "usl.ok", NAN) == 1;
    if (!ok || !isfinite(lambda) || !isfinite(sigma) || !isfinite(kappa)) {
        const sat_value *why = sat_rnode_val(sat_result_root(sat), "usl.why");
        char note[300];
        snprintf(note, sizeof note, "no USL fit: %s",
                 why && !why->absent && why->unit == SAT_UNIT_TEXT ? why->v.s : "not enough points");
        sat_chart_panel_note(p, note);
        return;
    }
    double end = fmax(nmax, isfinite(nstar) ? nstar : 0) * 1.15;
    sat_chart_series *fit = sat_chart_series_add(p, "USL fit", SAT_SERIES_LINE, SAT_COLOR_VERMILLION);
    for (int i = 0; i <= 120; i++) { /* denser near 0, where the curve bends most */
        double n = end * (i / 120.0) * (i / 120.0);
        sat_chart_point(fit, n, usl(n, lambda, sigma, kappa));
    }
    char label[128], a[64], b[64];
    if (isfinite(nstar) && isfinite(xmax)) {
        sat_fmt_sig3(a, sizeof a, nstar);
        sat_fmt_sig3(b, sizeof b, xmax);
        snprintf(label, sizeof label, "N* = %s", a);
        sat_chart_panel_vline(p, nstar, label);
        snprintf(label, sizeof label, "X_max = %s/s", b);
        sat_chart_panel_hline(p, xmax, label);
    } else if (isfinite(ceil_x)) {
        sat_fmt_sig3(b, sizeof b, ceil_x);
        snprintf(label, sizeof label, "ceiling %s/s (no knee in the data)", b);
        sat_chart_panel_hline(p, ceil_x, label);
    }
}

static sat_chart *build(const sat_result_set *set, const sat_chart_opts *o, sat_diag *diag)
{
    sat_result *cs = sat_result_set_get(set, "cachesize"), *sat = sat_result_set_get(set, "saturation");
    const sat_rnode *mrc = sat_get_table(sat_result_root(cs), "mrc"), *pts = sat_get_table(sat_result_root(sat), "points");
    if ((!mrc || sat_rnode_count(mrc) < 2) && !measured(pts)) {
        sat_diag_set(diag, SAT_E_USAGE, NULL,
                     "the capacity chart has nothing to draw: no entry reference and no timed operation in the inputs");
        return NULL;
    }
    sat_chart *c = sat_chart_new("Capacity: cache size and load", o && o->width_pt > 0 ? o->width_pt : 640,
                                 o && o->height_pt > 0 ? o->height_pt : 0 /* as tall as its panels need */);
    if (!c) {
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    panel_mrc(c, cs);
    panel_usl(c, sat);
    if (sat_chart_status(c) != SAT_OK) {
        sat_chart_free(c);
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    return c;
}

static const char *const analyzers[] = {"cachesize", "saturation", NULL};

const sat_chart_kind ch_kind_capacity = {"capacity", "how big a cache (the MRC) and how much load (the USL fit)",
                                         analyzers, build};
