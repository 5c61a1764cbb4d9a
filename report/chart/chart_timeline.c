/*
 * chart_timeline.c - the timeline chart: what happened over time, six
 * panels on one time axis (docs: REPORT.md "The timeline chart"), each from
 * one result section:
 *   1. operations per second by type     timeline windows ops.<TYPE>
 *   2. etime p50/p90/p99, wtime/optime   timeline windows (log scale)
 *   3. concurrency, open connections     timeline windows concurrency, conns.open
 *   4. client failures by kind           storms windows kinds.<kind>, grouped
 *   5. TLS handshakes, resumed share     handshakes windows
 *   6. connections opened, closes        timeline windows conns.opened, closes.<CODE>
 * and across every panel: the storms (storms `storms`) shaded and labelled,
 * each trigger's onset a labelled marker, each crash (crashes `crashes`) a
 * marker, and every input (timeline `sources`) a band with its name under
 * the axis. Local time at the inputs' UTC offset unless --utc. A panel
 * without data says why in its frame.
 * HTTP access logs (timeline `requests`) draw into the same panels: requests
 * by method (windows methods.<METHOD>) beside or instead of operations, their
 * response time as the etime, their HTTP failure kinds, and connections opened
 * from first requests (storms windows conn_opens) when no connection row was
 * read; the titles name what the inputs hold.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

#define TOP_TYPES 6 /* operation types drawn apart; the rest as "other" */

/* What the inputs hold: LDAP operations, HTTP requests, both (the words of
 * the titles, [0] [1] [2]). */
enum { HOLD_LDAP, HOLD_HTTP, HOLD_BOTH };
static int holds(sat_result *tl)
{
    int http = sat_get_num(sat_result_root(tl), "requests", NAN) > 0, ldap = sat_get_num(sat_result_root(tl), "operations", NAN) > 0;
    return !http ? HOLD_LDAP : ldap ? HOLD_BOTH : HOLD_HTTP;
}

/* Columns of a table whose names start with prefix, with their sums. */
typedef struct colsum {
    const char *name; /* the column's name (borrowed from the table) */
    double sum;
} colsum;

static size_t prefixed_cols(const sat_rnode *t, const char *prefix, colsum *out, size_t max)
{
    size_t ncols, n = 0, pl = strlen(prefix);
    const sat_col *cols = sat_table_cols(t, &ncols);
    for (size_t i = 0; i < ncols && n < max; i++)
        if (strncmp(cols[i].name, prefix, pl) == 0 && cols[i].name[pl])
            out[n++] = (colsum){cols[i].name, 0};
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r))
        for (size_t i = 0; i < n; i++) {
            double v = sat_get_num(r, out[i].name, NAN);
            if (isfinite(v))
                out[i].sum += v;
        }
    return n;
}

static int by_sum_desc(const void *a, const void *b)
{
    const colsum *x = a, *y = b;
    if (x->sum != y->sum)
        return x->sum < y->sum ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* A series of column `col` of every row: x the row's start, y the value
 * times scale. */
static void series_of(sat_chart_series *s, const sat_rnode *t, const char *col, double scale)
{
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        double x = ch_time(sat_get_time(r, "start_ts", 0)), y = sat_get_num(r, col, NAN);
        if (isfinite(x))
            sat_chart_point(s, x, isfinite(y) ? y * scale : NAN);
    }
}

static int any_value(const sat_rnode *t, const char *col)
{
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r))
        if (isfinite(sat_get_num(r, col, NAN)))
            return 1;
    return 0;
}

/* A column with a value other than zero (an access log's windows carry the
 * connection columns, all zero: no connection row was read). */
static int any_nonzero(const sat_rnode *t, const char *col)
{
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        double v = sat_get_num(r, col, NAN);
        if (isfinite(v) && v != 0)
            return 1;
    }
    return 0;
}

static void merge_by(sat_chart_series *s, ch_merge m)
{
    if (s)
        s->merge = m;
}

/* 1. operations per second by type, the most frequent apart */
static void panel_ops(sat_chart *c, const sat_rnode *win, double w, int hold)
{
    static const char *const title[] = {"Operations per second, by type",
                                        "Requests per second, by method",
                                        "Operations and requests per second, by type and method"};
    static const char *const unit[] = {"operations/s", "requests/s", "per second"};
    sat_chart_panel *p = sat_chart_panel_add(c, title[hold], 1.2);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, unit[hold], SAT_UNIT_RATE);
    colsum cols[64];
    size_t n = win ? prefixed_cols(win, "ops.", cols, 64) : 0;
    if (win && hold != HOLD_LDAP)
        n += prefixed_cols(win, "methods.", cols + n, 64 - n);
    qsort(cols, n, sizeof *cols, by_sum_desc);
    while (n && cols[n - 1].sum == 0)
        n--;
    if (!n || !(w > 0)) {
        sat_chart_panel_note(p, hold == HOLD_LDAP ? "no operation in the inputs"
                                                  : "no operation or request in the inputs");
        return;
    }
    size_t shown = n > TOP_TYPES + 1 ? TOP_TYPES : n;
    for (size_t i = 0; i < shown; i++) {
        /* "ops.SRCH" -> SRCH, "methods.GET" -> GET (HTTP GET beside operations) */
        char name[96];
        const char *dot = strchr(cols[i].name, '.') + 1;
        snprintf(name, sizeof name, "%s%s",
                 hold == HOLD_BOTH && !strncmp(cols[i].name, "methods.", 8) ? "HTTP " : "", dot);
        sat_chart_series *s = sat_chart_series_add(p, name, SAT_SERIES_STACKED, SAT_COLOR_AUTO);
        sat_chart_series_width(s, w);
        merge_by(s, CH_MERGE_TIME_MEAN); /* a rate */
        series_of(s, win, cols[i].name, 1 / w);
    }
    if (shown < n) {
        sat_chart_series *s = sat_chart_series_add(p, "other", SAT_SERIES_STACKED, SAT_COLOR_YELLOW);
        sat_chart_series_width(s, w);
        merge_by(s, CH_MERGE_TIME_MEAN);
        for (const sat_rnode *r = sat_rnode_first(win); r; r = sat_rnode_next(r)) {
            double sum = 0;
            for (size_t i = shown; i < n; i++) {
                double v = sat_get_num(r, cols[i].name, NAN);
                sum += isfinite(v) ? v : 0;
            }
            sat_chart_point(s, ch_time(sat_get_time(r, "start_ts", 0)), sum / w);
        }
    }
}

/* 2. etime percentiles, and where it went: queue wait against service */
static void panel_etime(sat_chart *c, const sat_rnode *win, double w, int hold)
{
    /* merged windows keep the largest of theirs (chart_rebin.c) */
    static const char *const title[] = {"Operation time (etime), the highest window's",
                                        "Response time, the highest window's",
                                        "Operation time (etime) and response time, the highest window's"};
    static const char *const unit[] = {"etime", "response time", "time"};
    static const char *const none[] = {"no operation with an etime in the inputs",
                                       "no request with a response time in the inputs",
                                       "no operation or request with a time in the inputs"};
    sat_chart_panel *p = sat_chart_panel_add(c, title[hold], 1.2);
    sat_chart_panel_y(p, SAT_AXIS_LOG, unit[hold], SAT_UNIT_DURATION);
    if (!win || !any_value(win, "p50_s")) {
        sat_chart_panel_note(p, none[hold]);
        return;
    }
    static const struct {
        const char *col, *name;
        int color, dashed;
    } lines[] = {{"p99_s", "p99", SAT_COLOR_VERMILLION, 0},
                 {"p90_s", "p90", SAT_COLOR_ORANGE, 0},
                 {"p50_s", "p50", SAT_COLOR_GREEN, 0},
                 {"wtime_mean_s", "wtime mean (queue)", SAT_COLOR_BLUE, 1},
                 {"optime_mean_s", "optime mean (work)", SAT_COLOR_PURPLE, 1}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (!any_value(win, lines[i].col))
            continue;
        sat_chart_series *s = sat_chart_series_add(p, lines[i].name, SAT_SERIES_STEP, lines[i].color);
        sat_chart_series_width(s, w);
        merge_by(s, CH_MERGE_MAX);
        if (lines[i].dashed)
            sat_chart_series_dashed(s);
        series_of(s, win, lines[i].col, 1);
    }
}

/* 3. operations in service (Little's law) and connections open */
static void panel_concurrency(sat_chart *c, const sat_rnode *win, double w, int hold)
{
    static const char *const what[] = {"operations in service (Little's law)",
                                       "requests in service (Little's law)",
                                       "operations and requests in service (Little's law)"};
    sat_chart_panel *p = sat_chart_panel_add(c, "Concurrency and open connections", 0.9);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "in service", SAT_UNIT_NUMBER);
    if (!win || !any_value(win, "concurrency")) {
        sat_chart_panel_note(p, hold == HOLD_LDAP ? "no operation with an etime in the inputs"
                                                  : "no operation or request with a time in the inputs");
        return;
    }
    sat_chart_series *s = sat_chart_series_add(p, what[hold], SAT_SERIES_STEP, SAT_COLOR_BLUE);
    sat_chart_series_width(s, w);
    merge_by(s, CH_MERGE_TIME_MEAN); /* a level */
    series_of(s, win, "concurrency", 1);
    if (hold == HOLD_LDAP ? any_value(win, "conns.open") : any_nonzero(win, "conns.open")) {
        sat_chart_panel_y2(p, SAT_AXIS_LINEAR, "open", SAT_UNIT_COUNT, 0, 0);
        sat_chart_series *o = sat_chart_series_right(p, "connections open", SAT_SERIES_STEP, SAT_COLOR_ORANGE);
        sat_chart_series_width(o, w);
        merge_by(o, CH_MERGE_TIME_MEAN);
        series_of(o, win, "conns.open", 1);
    }
}

/* 4. client failures, the storms' kinds in the few groups a reader knows:
 * the groups are the result's (storms' failures table, column kind_group), their
 * colours in the order they first come */
#define NFGROUPS 8
static const int fgroup_colors[NFGROUPS] = {SAT_COLOR_ORANGE, SAT_COLOR_VERMILLION,
                                            SAT_COLOR_PURPLE, SAT_COLOR_SKY_BLUE,
                                            SAT_COLOR_BLUE,   SAT_COLOR_GREEN,
                                            SAT_COLOR_YELLOW, SAT_COLOR_BLACK};

/* The group of kind ("kinds.<kind>" column) in the failures table: its index
 * in names[] (added when new, NFGROUPS when they are all taken or it has
 * none: "other"). */
static size_t fgroup_of(const sat_rnode *failures, const char *kind, const char **names,
                        size_t *n)
{
    const char *g = NULL;
    for (const sat_rnode *r = sat_rnode_first(failures); r && !g; r = sat_rnode_next(r))
        if (!strcmp(sat_get_text(r, "kind", ""), kind))
            g = sat_get_text(r, "kind_group", NULL);
    if (!g)
        return NFGROUPS;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(names[i], g))
            return i;
    if (*n == NFGROUPS)
        return NFGROUPS;
    names[*n] = g;
    return (*n)++;
}

static void panel_failures(sat_chart *c, sat_result *storms)
{
    const sat_rnode *win = sat_get_table(sat_result_root(storms), "windows");
    double w = ch_window_s(win);
    /* counts per window: the chart's window, said in its title */
    sat_chart_panel *p = sat_chart_panel_add(c, "Client failures by kind", 1);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "failures", SAT_UNIT_COUNT);
    colsum cols[64];
    size_t n = win ? prefixed_cols(win, "kinds.", cols, 64) : 0;
    const sat_rnode *failures = sat_get_table(sat_result_root(storms), "failures");
    const char *names[NFGROUPS];
    size_t ngroups = 0, group[64];
    double total[NFGROUPS + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        group[i] = fgroup_of(failures, cols[i].name + 6, names, &ngroups);
        total[group[i]] += cols[i].sum;
    }
    double all = 0;
    for (size_t g = 0; g <= NFGROUPS; g++)
        all += total[g];
    if (!win || !(w > 0) || all == 0) {
        sat_chart_panel_note(p, storms ? "no client failure in the inputs" : "no storms analysis");
        return;
    }
    for (size_t g = 0; g <= NFGROUPS; g++) {
        if (total[g] == 0)
            continue;
        sat_chart_series *s = sat_chart_series_add(p, g < ngroups ? names[g] : "other",
                                                   SAT_SERIES_STACKED,
                                                   g < NFGROUPS ? fgroup_colors[g] : SAT_COLOR_BLACK);
        sat_chart_series_width(s, w);
        for (const sat_rnode *r = sat_rnode_first(win); r; r = sat_rnode_next(r)) {
            double sum = 0;
            for (size_t i = 0; i < n; i++)
                if (group[i] == g) {
                    double v = sat_get_num(r, cols[i].name, NAN);
                    sum += isfinite(v) ? v : 0;
                }
            sat_chart_point(s, ch_time(sat_get_time(r, "start_ts", 0)), sum);
        }
    }
}

/* 5. TLS handshakes by outcome, and the share resumed */
static void panel_tls(sat_chart *c, sat_result *hs, int hold)
{
    /* a capture's handshakes, else those access logs tell by their first
     * requests' session flag (handshakes' logs.windows: full and resumed) */
    const sat_rnode *win = sat_get_table(sat_result_root(hs), "windows");
    int from_logs = 0;
    if ((!win || !sat_rnode_count(win)) && hold != HOLD_LDAP) {
        win = sat_get_table(sat_result_root(hs), "logs.windows");
        from_logs = 1;
    }
    double w = ch_window_s(win);
    sat_chart_panel *p = sat_chart_panel_add(c, "TLS handshakes", 0.9);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "handshakes", SAT_UNIT_COUNT);
    if (!win || !sat_rnode_count(win) || !(w > 0)) {
        sat_chart_panel_note(p, hold == HOLD_LDAP
                                    ? "no TLS handshake in the inputs (a packet capture shows them)"
                                    : "no TLS handshake in the inputs (a log of the session flag on "
                                      "first requests, or a packet capture, shows them)");
        return;
    }
    static const struct {
        const char *col, *name;
        int color;
    } parts[] = {{"full", "full", SAT_COLOR_BLUE},
                 {"resumed", "resumed", SAT_COLOR_GREEN},
                 {"failed", "failed", SAT_COLOR_VERMILLION},
                 {"incomplete", "incomplete", SAT_COLOR_ORANGE}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (from_logs && !any_value(win, parts[i].col))
            continue; /* a log tells no failed or incomplete handshake */
        sat_chart_series *s = sat_chart_series_add(p, parts[i].name, SAT_SERIES_STACKED, parts[i].color);
        sat_chart_series_width(s, w);
        series_of(s, win, parts[i].col, 1);
    }
    sat_chart_panel_y2(p, SAT_AXIS_LINEAR, "resumed", SAT_UNIT_RATIO, 0, 1);
    sat_chart_series *r = sat_chart_series_right(p, "resumed share", SAT_SERIES_POINTS, SAT_COLOR_BLACK);
    sat_chart_series_width(r, w);
    merge_by(r, CH_MERGE_MEAN);
    for (const sat_rnode *row = sat_rnode_first(win); row; row = sat_rnode_next(row))
        sat_chart_point(r, ch_time(sat_get_time(row, "start_ts", 0)) + w / 2, sat_get_num(row, "resumed_ratio", NAN));
}

/* 6. connections opened, and closed by the code the server logged */
static const struct {
    const char *code, *meaning;
} close_codes[] = {{"U1", "unbind"},        {"B1", "bad BER: client gone"}, {"A1", "client aborted"},
                   {"T1", "idle timeout"},  {"T2", "I/O timeout"},          {"T3", "paged timeout"},
                   {"B4", "write failed"},  {"B2", "BER too big"},          {"B3", "bad BER"},
                   {"P2", "closed, corrupt"}};

static void panel_conns(sat_chart *c, const sat_rnode *win, double w, sat_result *storms,
                        int hold)
{
    sat_chart_panel *p = sat_chart_panel_add(c, "Connections opened, and closed by code", 0.9);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "connections", SAT_UNIT_COUNT);
    colsum cols[64];
    size_t n = win ? prefixed_cols(win, "closes.", cols, 64) : 0;
    qsort(cols, n, sizeof *cols, by_sum_desc);
    while (n && cols[n - 1].sum == 0)
        n--;
    int opened = win && (hold == HOLD_LDAP ? any_value(win, "conns.opened")
                                           : any_nonzero(win, "conns.opened"));
    /* an access log opens no connection row: its first requests do (storms' windows) */
    const sat_rnode *sw = hold != HOLD_LDAP ? sat_get_table(sat_result_root(storms), "windows") : NULL;
    double sww = ch_window_s(sw);
    int first = !n && !opened && sw && any_value(sw, "conn_opens") && sww > 0;
    if (first) {
        sat_chart_series *s = sat_chart_series_add(p, "opened (first requests)", SAT_SERIES_STEP,
                                                   SAT_COLOR_BLACK);
        sat_chart_series_width(s, sww);
        series_of(s, sw, "conn_opens", 1);
        return;
    }
    if ((!n && !opened) || !(w > 0)) {
        sat_chart_panel_note(p, "no connection in the inputs");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *code = cols[i].name + 7;
        char name[64];
        snprintf(name, sizeof name, "closed %s", code);
        for (size_t k = 0; k < sizeof close_codes / sizeof close_codes[0]; k++)
            if (strcmp(close_codes[k].code, code) == 0)
                snprintf(name, sizeof name, "%s %s", code, close_codes[k].meaning);
        sat_chart_series *s = sat_chart_series_add(p, name, SAT_SERIES_STACKED, SAT_COLOR_AUTO);
        sat_chart_series_width(s, w);
        series_of(s, win, cols[i].name, 1);
    }
    if (opened) {
        sat_chart_series *s = sat_chart_series_add(p, "opened", SAT_SERIES_STEP, SAT_COLOR_BLACK);
        sat_chart_series_width(s, w);
        series_of(s, win, "conns.opened", 1);
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Storms, their triggers, crashes and the inputs, across every panel. */
static void annotations(sat_chart *c, sat_result *tl, sat_result *storms, sat_result *crashes)
{
    const sat_rnode *st = sat_get_table(sat_result_root(storms), "storms");
    for (const sat_rnode *r = st ? sat_rnode_first(st) : NULL; r; r = sat_rnode_next(r)) {
        double a = ch_time(sat_get_time(r, "start_ts", 0)), b = ch_time(sat_get_time(r, "end_ts", 0)), k = sat_get_num(r, "storm", NAN);
        char label[128];
        if (isfinite(a) && isfinite(b)) {
            snprintf(label, sizeof label, "storm %.0f", isfinite(k) ? k : 0);
            sat_chart_span(c, a, b, label);
        }
        const char *sig = sat_get_text(r, "trigger.signal_name", NULL);
        double on = ch_time(sat_get_time(r, "trigger.onset_ts", 0));
        if (sig && isfinite(on)) {
            snprintf(label, sizeof label, "onset: %s", sig);
            sat_chart_marker(c, on, label);
        }
    }
    const sat_rnode *cr = sat_get_table(sat_result_root(crashes), "crashes");
    for (const sat_rnode *r = cr ? sat_rnode_first(cr) : NULL; r; r = sat_rnode_next(r)) {
        double t = ch_time(sat_get_time(r, "ts", 0));
        const char *sig = sat_get_text(r, "signal_name", NULL);
        char label[128];
        snprintf(label, sizeof label, "crash %s", sig ? sig : "");
        if (isfinite(t))
            sat_chart_marker(c, t, label);
    }
    const sat_rnode *src = sat_get_table(sat_result_root(tl), "sources");
    for (const sat_rnode *r = src ? sat_rnode_first(src) : NULL; r; r = sat_rnode_next(r)) {
        double a = ch_time(sat_get_time(r, "first_ts", 0)), b = ch_time(sat_get_time(r, "last_ts", 0));
        const char *path = sat_get_text(r, "path", NULL), *kind = sat_get_text(r, "kind", NULL);
        char label[300];
        snprintf(label, sizeof label, "%s%s%s", kind && strcmp(kind, "log") != 0 ? kind : "",
                 kind && strcmp(kind, "log") != 0 ? ": " : "", path ? base_name(path) : "?");
        if (isfinite(a))
            sat_chart_band(c, a, isfinite(b) ? b : a, label);
    }
}

/* The most windows a panel draws: bars a reader tells apart on a page. */
#define CHART_WINDOWS_MAX 300

/* Annotations outside [from, to] left out, spans cut to it: a detail chart
 * marks only what it shows. */
static void annots_within(sat_chart *c, double from, double to)
{
    size_t n = 0;
    for (size_t k = 0; k < c->nannots; k++) {
        ch_annot a = c->annots[k];
        if (a.x1 < from || a.x0 > to) {
            free(a.label);
            continue;
        }
        a.x0 = fmax(a.x0, from);
        a.x1 = fmin(a.x1, to);
        c->annots[n++] = a;
    }
    c->nannots = n;
}

/* The timeline over [from, to] (NAN: the inputs' whole span), titled
 * `what` ("Timeline"), in windows of the one length chosen for the span. */
static sat_chart *timeline(const sat_result_set *set, const sat_chart_opts *o, double from, double to,
                           const char *what, sat_diag *diag)
{
    sat_result *tl = sat_result_set_get(set, "timeline"), *storms = sat_result_set_get(set, "storms"),
               *hs = sat_result_set_get(set, "handshakes"), *crashes = sat_result_set_get(set, "crashes");
    const sat_rnode *win = sat_get_table(sat_result_root(tl), "windows");
    const sat_rnode *hw = sat_get_table(sat_result_root(hs), "windows"), *cw = sat_get_table(sat_result_root(crashes), "crashes");
    if ((!win || !sat_rnode_count(win)) && (!hw || !sat_rnode_count(hw)) && (!cw || !sat_rnode_count(cw))) {
        sat_diag_set(diag, SAT_E_USAGE, NULL,
                     "the timeline has nothing to draw: no operation, request, TLS handshake or crash with a time in the inputs");
        return NULL;
    }
    double w = sat_get_num(sat_result_root(tl), "window_s", NAN);
    if (!(w > 0))
        w = ch_window_s(win);
    double off = sat_get_num(sat_result_root(tl), "utc_offset_s", NAN);
    int32_t tz = isfinite(off) && fabs(off) <= 86400 ? (int32_t)off : 0;
    char title[200], a[32], b[32], zone[32], wlen[32];
    double first = ch_time(sat_get_time(sat_result_root(tl), "first_ts", 0)), last = ch_time(sat_get_time(sat_result_root(tl), "last_ts", 0));
    if (isfinite(from) && isfinite(to))
        first = from, last = to;
    /* one window for every panel: a multiple of the longest the data drawn
     * comes in (the storms' windows when there is a failure to draw) */
    const sat_rnode *sw = sat_get_table(sat_result_root(storms), "windows");
    colsum kinds[64];
    size_t nk = sw ? prefixed_cols(sw, "kinds.", kinds, 64) : 0;
    double failures = 0;
    for (size_t i = 0; i < nk; i++)
        failures += kinds[i].sum;
    if (holds(tl) != HOLD_LDAP && sw && any_nonzero(sw, "conn_opens"))
        failures += 1; /* an access log's connections: from its first requests, in these windows */
    double src = fmax(w > 0 ? w : 0, fmax(failures > 0 ? ch_window_s(sw) : 0,
                                          hw && sat_rnode_count(hw) ? ch_window_s(hw) : 0));
    double chosen = ch_window_for(isfinite(first) && isfinite(last) ? last - first : NAN, src,
                                  CHART_WINDOWS_MAX);
    ch_zone_name(zone, sizeof zone, tz, o && o->utc);
    ch_tick_label(wlen, sizeof wlen, SAT_UNIT_DURATION, chosen);
    if (isfinite(first) && isfinite(last)) {
        ch_local_minute(a, sizeof a, first, o && o->utc ? 0 : tz);
        ch_local_minute(b, sizeof b, last, o && o->utc ? 0 : tz);
        /* the second date only when it differs */
        snprintf(title, sizeof title, "%s, %s to %s %s%s%s%s", what, a, strncmp(a, b, 10) == 0 ? b + 11 : b,
                 zone, chosen > 0 ? ", in " : "", chosen > 0 ? wlen : "", chosen > 0 ? " windows" : "");
    } else {
        snprintf(title, sizeof title, "%s", what);
    }
    sat_chart *c = sat_chart_new(title, o && o->width_pt > 0 ? o->width_pt : 760,
                                 o && o->height_pt > 0 ? o->height_pt : 1040);
    if (!c) {
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    sat_chart_share_x(c, SAT_AXIS_TIME, "time", SAT_UNIT_TIME);
    sat_chart_set_time_zone(c, tz, o && o->utc);
    int hold = holds(tl);
    panel_ops(c, win, w, hold);
    panel_etime(c, win, w, hold);
    panel_concurrency(c, win, w, hold);
    panel_failures(c, storms);
    panel_tls(c, hs, hold);
    panel_conns(c, win, w, storms, hold);
    annotations(c, tl, storms, crashes);
    double end = ch_time(sat_get_time(sat_result_root(tl), "last_ts", 0));
    if (isfinite(from) && isfinite(to)) {
        annots_within(c, from, to);
        sat_chart_set_x_range(c, from, to);
        end = isfinite(end) ? fmin(end, to) : to;
    }
    ch_rebin(c, chosen, from, end);
    if (sat_chart_status(c) != SAT_OK) {
        sat_chart_free(c);
        sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    return c;
}

static sat_chart *build(const sat_result_set *set, const sat_chart_opts *o, sat_diag *diag)
{
    return timeline(set, o, NAN, NAN, "Timeline", diag);
}

/* The storm in detail: the storm with the most events, from a few minutes
 * before it to a few after, in the finest windows the data has (within
 * CHART_WINDOWS_MAX). */
#define STORM_MARGIN_S 180.0

static sat_chart *build_storm(const sat_result_set *set, const sat_chart_opts *o, sat_diag *diag)
{
    const sat_rnode *st = sat_get_table(sat_result_root(sat_result_set_get(set, "storms")), "storms");
    const sat_rnode *pick = NULL;
    for (const sat_rnode *r = st ? sat_rnode_first(st) : NULL; r; r = sat_rnode_next(r))
        if (!pick || sat_get_num(r, "events", 0) > sat_get_num(pick, "events", 0))
            pick = r;
    double a = pick ? ch_time(sat_get_time(pick, "start_ts", 0)) : NAN,
           b = pick ? ch_time(sat_get_time(pick, "end_ts", 0)) : NAN;
    if (!isfinite(a) || !isfinite(b)) {
        sat_diag_set(diag, SAT_E_USAGE, NULL, "the storm chart has nothing to draw: no storm in the inputs");
        return NULL;
    }
    char what[64];
    snprintf(what, sizeof what, "Storm %.0f in detail", sat_get_num(pick, "storm", 0));
    /* whole minutes around it */
    double from = floor((a - STORM_MARGIN_S) / 60) * 60, to = ceil((b + STORM_MARGIN_S) / 60) * 60;
    return timeline(set, o, from, to, what, diag);
}

static const char *const analyzers[] = {"timeline", "storms", "handshakes", "crashes", NULL};

const sat_chart_kind ch_kind_timeline = {
    "timeline", "what happened over time: load, etime, concurrency, failures, TLS, connections",
    analyzers, build};

const sat_chart_kind ch_kind_storm = {
    "storm", "the largest storm in detail: the timeline from a few minutes before it to a few after",
    analyzers, build_storm};
