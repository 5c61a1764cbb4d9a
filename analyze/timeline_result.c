/*
 * timeline_result.c - the timeline analyzer's results as sections
 * (satscope/result.h, docs/output.md), which the charts and every form
 * (JSON, CSV, text) read:
 *
 *   (summary)        first_ts, last_ts, span_s, window_s, window_count,
 *                    hours_window_s, utc_offset_s, operations, undated, timed,
 *                    errors, connections, p50_s, p90_s, p99_s
 *   windows          the series (the main table), one row per window from the
 *                    first to the last, empty ones included: start_ts, count,
 *                    errors, ops.<TYPE>..., timed, answered (in the window of
 *                    their answer: the throughput), p50_s, p90_s, p99_s, mean_s,
 *                    max_s, wtime_mean_s, optime_mean_s, concurrency, conns.open,
 *                    conns.opened, conns.closed, closes.<CODE>...
 *   busiest          the windows with the most operations (at most 10)
 *   hours            per hour of local time (utc_offset_s): start_ts, count,
 *                    errors, p50_s, p90_s, p99_s, ops.<TYPE>...
 *   minutes          the same per minute, when the span is under three hours
 *                    (SAT_TL_MINUTES_SPAN; a report's sparklines then show
 *                    minutes: a half-hour incident is more than one hour's mark)
 *   etime_histogram  per operation type, the bins from its first to its last
 *                    nonzero one: op, lo_s, hi_s, count
 *   sources          every input: path, kind, format, first_ts, last_ts, span_s, lines,
 *                    bytes, rejects, utc_offset_s, truncated, time_source (cores:
 *                    their time is their crashes' when it came from the core's
 *                    name, a log line or --crash-time, absent when only the
 *                    file's mtime gave one; time_source says which)
 *
 * With HTTP requests in the input (http_req rows), count, errors, timed, the
 * percentiles, mean, max and concurrency of a window are of its LDAP
 * operations and HTTP requests together (a request's response time is its
 * etime; errors: statuses of 400 or more), and the windows table ends with
 * requests, methods.<METHOD> and status.<CLASS> (1xx .. 5xx, other: none
 * logged), the summary with requests, request_errors, requests_timed,
 * requests_undated, methods {} and status_classes {}, the histogram with op
 * "HTTP": only then, so that a document of LDAP rows is as it was.
 *
 * The ops.<TYPE> columns are the operation types seen anywhere in the input,
 * in the order of event.h (BIND, SRCH, ...), the closes.<CODE> columns the
 * close codes seen, in the order of event.h (A1, B1, ...): the same columns
 * whichever way the input was cut.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "timeline_int.h"

#define NS 1e9
#define BUSIEST_MAX 10

static const tl_win *win_find(const sat_strtab *tab, int64_t k)
{
    return (const tl_win *)sat_strtab_find(tab, &k, sizeof k);
}

static void put_pcts(sat_rnode *row, const uint64_t *hist, uint64_t n, int64_t mx, int64_t mn_inv)
{
    sat_put_dur(row, "p50_s", tl_percentile(hist, n, mx, mn_inv, 0.50), 6);
    sat_put_dur(row, "p90_s", tl_percentile(hist, n, mx, mn_inv, 0.90), 6);
    sat_put_dur(row, "p99_s", tl_percentile(hist, n, mx, mn_inv, 0.99), 6);
}

static double mean_s(int64_t sum_ns, uint64_t n) { return n ? sat_sum_d(sum_ns) / (double)n / NS : NAN; }

/* Column names made at run time ("ops.BIND"), kept until the table has copied them. */
typedef struct colset {
    sat_col cols[64];
    char names[64][32];
    size_t n;
} colset;

static void col(colset *c, const char *name, sat_unit unit, int decimals, const char *title)
{
    if (c->n >= sizeof c->cols / sizeof c->cols[0])
        return;
    snprintf(c->names[c->n], sizeof c->names[c->n], "%s", name);
    sat_col k = {c->names[c->n], (uint8_t)unit, (uint8_t)decimals, title};
    c->cols[c->n++] = k;
}

static void col_types(colset *c, const sat_timeline *t)
{
    for (int k = 0; k < SAT_OP__COUNT; k++)
        if (t->t.by_type[k]) {
            char name[32];
            snprintf(name, sizeof name, "ops.%s", sat_optype_name(k));
            col(c, name, SAT_UNIT_COUNT, 0, sat_optype_name(k));
        }
}

static void put_types(sat_rnode *row, const sat_timeline *t, const tl_win *w)
{
    for (int k = 0; k < SAT_OP__COUNT; k++)
        if (t->t.by_type[k]) {
            char name[32];
            snprintf(name, sizeof name, "ops.%s", sat_optype_name(k));
            sat_put_count(row, name, w ? w->ops[k] : 0);
        }
}

static const tl_win zero_win; /* an empty window */

/* The HTTP columns (see the top), of the methods and classes seen. */
static void col_http(colset *c, const sat_timeline *t)
{
    if (!t->t.req.count)
        return;
    col(c, "requests", SAT_UNIT_COUNT, 0, "http");
    for (int k = 0; k < TL_METHODS; k++)
        if (t->t.methods[k]) {
            char name[32];
            snprintf(name, sizeof name, "methods.%s", tl_method_names[k]);
            col(c, name, SAT_UNIT_COUNT, 0, tl_method_names[k]);
        }
    for (int k = 0; k < TL_CLASSES; k++)
        if (t->t.classes[k]) {
            char name[32];
            snprintf(name, sizeof name, "status.%s", tl_class_names[k]);
            col(c, name, SAT_UNIT_COUNT, 0, tl_class_names[k]);
        }
}

static void put_http(sat_rnode *row, const sat_timeline *t, const tl_win *w)
{
    if (!t->t.req.count)
        return;
    sat_put_count(row, "requests", w->reqs);
    for (int k = 0; k < TL_METHODS; k++)
        if (t->t.methods[k]) {
            char name[32];
            snprintf(name, sizeof name, "methods.%s", tl_method_names[k]);
            sat_put_count(row, name, w->methods[k]);
        }
    for (int k = 0; k < TL_CLASSES; k++)
        if (t->t.classes[k]) {
            char name[32];
            snprintf(name, sizeof name, "status.%s", tl_class_names[k]);
            sat_put_count(row, name, w->classes[k]);
        }
}

/* The title of a window's count: requests when there are no LDAP operations. */
static const char *count_title(const sat_timeline *t)
{
    return t->t.req.count && !t->t.ops ? "requests" : "ops";
}

static void put_windows(sat_rnode *root, const sat_timeline *t, sat_rnode **main)
{
    colset c;
    c.n = 0;
    col(&c, "start_ts", SAT_UNIT_TIME, 0, "start");
    col(&c, "count", SAT_UNIT_COUNT, 0, count_title(t));
    col(&c, "errors", SAT_UNIT_COUNT, 0, NULL);
    col_types(&c, t);
    col(&c, "timed", SAT_UNIT_COUNT, 0, NULL);
    col(&c, "answered", SAT_UNIT_COUNT, 0, NULL);
    col(&c, "p50_s", SAT_UNIT_DURATION, 6, "p50");
    col(&c, "p90_s", SAT_UNIT_DURATION, 6, "p90");
    col(&c, "p99_s", SAT_UNIT_DURATION, 6, "p99");
    col(&c, "mean_s", SAT_UNIT_DURATION, 6, "mean");
    col(&c, "max_s", SAT_UNIT_DURATION, 6, "max");
    col(&c, "wtime_mean_s", SAT_UNIT_DURATION, 6, "wtime");
    col(&c, "optime_mean_s", SAT_UNIT_DURATION, 6, "optime");
    col(&c, "concurrency", SAT_UNIT_NUMBER, 3, "conc");
    col(&c, "conns.open", SAT_UNIT_COUNT, 0, "open");
    col(&c, "conns.opened", SAT_UNIT_COUNT, 0, "opened");
    col(&c, "conns.closed", SAT_UNIT_COUNT, 0, "closed");
    for (int k = 1; k < SAT_CLOSE__COUNT; k++)
        if (t->t.closes[k]) {
            char name[32];
            snprintf(name, sizeof name, "closes.%s", sat_close_code_name(k));
            col(&c, name, SAT_UNIT_COUNT, 0, sat_close_code_name(k));
        }
    col_http(&c, t);
    sat_rnode *tab = sat_table(root, "windows", c.cols, c.n);
    sat_table_set_window(tab, t->step);
    *main = tab;
    int64_t n = tl_nwin(t->t.first_ts, t->t.last_ts, t->step);
    if (n <= 0)
        return;
    int64_t k0 = sat_win_index(t->t.first_ts, t->step);
    int64_t open = (int64_t)t->t.conns_no_open; /* open from before the input */
    for (int64_t i = 0; i < n; i++) {
        const tl_win *w = win_find(&t->win, k0 + i);
        if (!w)
            w = &zero_win;
        open += (int64_t)w->opened - (int64_t)w->closed;
        sat_rnode *row = sat_table_row(tab);
        sat_put_time(row, "start_ts", (k0 + i) * t->step);
        sat_put_count(row, "count", w->count);
        sat_put_count(row, "errors", w->errors);
        put_types(row, t, w);
        sat_put_count(row, "timed", w->timed);
        sat_put_count(row, "answered", w->answered);
        put_pcts(row, w->hist, w->timed, w->et_max, w->et_min_inv);
        sat_put_dur(row, "mean_s", mean_s(w->etime_ns, w->timed), 6);
        sat_put_dur(row, "max_s", w->timed ? (double)w->et_max / NS : NAN, 6);
        sat_put_dur(row, "wtime_mean_s", mean_s(w->wtime_ns, w->wt_n), 6);
        sat_put_dur(row, "optime_mean_s", mean_s(w->optime_ns, w->ot_n), 6);
        /* Little's law: the time spent in operations over the window's length */
        sat_put_num(row, "concurrency", sat_sum_d(w->etime_ns) / (double)t->step, 3);
        sat_put_count(row, "conns.open", open > 0 ? (uint64_t)open : 0);
        sat_put_count(row, "conns.opened", w->opened);
        sat_put_count(row, "conns.closed", w->closed);
        for (int k = 1; k < SAT_CLOSE__COUNT; k++)
            if (t->t.closes[k]) {
                char name[32];
                snprintf(name, sizeof name, "closes.%s", sat_close_code_name(k));
                sat_put_count(row, name, w->closes[k]);
            }
        put_http(row, t, w);
    }
}

/* The busiest windows: most operations first, the earlier of a tie. */
static void put_busiest(sat_rnode *root, const sat_timeline *t)
{
    sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "start"},
                      {"count", SAT_UNIT_COUNT, 0, "ops"},
                      {"errors", SAT_UNIT_COUNT, 0, NULL},
                      {"p50_s", SAT_UNIT_DURATION, 6, "p50"},
                      {"p99_s", SAT_UNIT_DURATION, 6, "p99"},
                      {"concurrency", SAT_UNIT_NUMBER, 3, NULL}};
    cols[1].title = count_title(t);
    sat_rnode *tab = sat_table(root, "busiest", cols, sizeof cols / sizeof cols[0]);
    int64_t best[BUSIEST_MAX];
    uint64_t bc[BUSIEST_MAX];
    size_t nb = 0;
    for (size_t i = 0; i < t->win.n; i++) {
        const tl_win *w = (const tl_win *)sat_strtab_val(&t->win, i);
        int64_t k;
        memcpy(&k, sat_strtab_key(&t->win, i), sizeof k);
        if (!w->count)
            continue;
        size_t p = nb; /* insertion point */
        while (p > 0 && (w->count > bc[p - 1] || (w->count == bc[p - 1] && k < best[p - 1])))
            p--;
        if (p >= BUSIEST_MAX)
            continue;
        size_t last = nb < BUSIEST_MAX ? nb : BUSIEST_MAX - 1;
        for (size_t j = last; j > p; j--) {
            best[j] = best[j - 1];
            bc[j] = bc[j - 1];
        }
        best[p] = k;
        bc[p] = w->count;
        if (nb < BUSIEST_MAX)
            nb++;
    }
    for (size_t i = 0; i < nb; i++) {
        const tl_win *w = win_find(&t->win, best[i]);
        sat_rnode *row = sat_table_row(tab);
        sat_put_time(row, "start_ts", best[i] * t->step);
        sat_put_count(row, "count", w->count);
        sat_put_count(row, "errors", w->errors);
        sat_put_dur(row, "p50_s", tl_percentile(w->hist, w->timed, w->et_max, w->et_min_inv, 0.5),
                    6);
        sat_put_dur(row, "p99_s",
                    tl_percentile(w->hist, w->timed, w->et_max, w->et_min_inv, 0.99), 6);
        sat_put_num(row, "concurrency", sat_sum_d(w->etime_ns) / (double)t->step, 3);
    }
}

/* A series of buckets `width` wide (shifted by `off`: local hours) from the
 * records of src, each `step` wide and aligned on the epoch: a record whose
 * start is in a bucket is in it, merged exactly (counts, histograms), so a
 * bucket's percentiles are those of every operation it holds, whatever the
 * series it was read from. */
static int put_series(sat_rnode *root, const sat_timeline *t, const char *name,
                      const sat_strtab *src, int64_t step, int64_t width, int64_t off)
{
    colset c;
    c.n = 0;
    col(&c, "start_ts", SAT_UNIT_TIME, 0, "start");
    col(&c, "count", SAT_UNIT_COUNT, 0, count_title(t));
    col(&c, "errors", SAT_UNIT_COUNT, 0, NULL);
    col(&c, "p50_s", SAT_UNIT_DURATION, 6, "p50");
    col(&c, "p90_s", SAT_UNIT_DURATION, 6, "p90");
    col(&c, "p99_s", SAT_UNIT_DURATION, 6, "p99");
    col_types(&c, t);
    sat_rnode *tab = sat_table(root, name, c.cols, c.n);
    sat_table_set_window(tab, width);
    if (t->t.first_ts <= 0 || t->t.last_ts < t->t.first_ts)
        return SAT_OK;
    int64_t g0 = sat_win_index(t->t.first_ts + off, width);
    int64_t g1 = sat_win_index(t->t.last_ts + off, width);
    size_t n = (size_t)(g1 - g0 + 1);
    tl_win *g = (tl_win *)calloc(n, sizeof *g);
    if (!g)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < src->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(src, i), sizeof k);
        int64_t gi = sat_win_index(k * step + off, width) - g0;
        if (gi < 0)
            gi = 0;
        if (gi >= (int64_t)n)
            gi = (int64_t)n - 1;
        (void)sat_rec_merge(&tl_win_desc, &g[gi], sat_strtab_val(src, i));
    }
    for (size_t i = 0; i < n; i++) {
        const tl_win *w = &g[i];
        sat_rnode *row = sat_table_row(tab);
        sat_put_time(row, "start_ts", (g0 + (int64_t)i) * width - off);
        sat_put_count(row, "count", w->count);
        sat_put_count(row, "errors", w->errors);
        put_pcts(row, w->hist, w->timed, w->et_max, w->et_min_inv);
        put_types(row, t, w);
    }
    free(g);
    return SAT_OK;
}

/* The hour series: quarter hours grouped into hours of local time (exact
 * for every offset that is a whole number of quarter hours); past
 * SAT_TL_HOUR_BUCKETS_MAX quarter hours the series is kept in UTC hours,
 * then days, and the table's window says so. */
static int put_hours(sat_rnode *root, const sat_timeline *t, int32_t off_s)
{
    int64_t width = t->hstep < 3600 * (int64_t)NS ? 3600 * (int64_t)NS : t->hstep;
    int64_t off = t->hstep < 3600 * (int64_t)NS ? (int64_t)off_s * (int64_t)NS : 0;
    return put_series(root, t, "hours", &t->hrs, t->hstep, width, off);
}

/* The minute series of a short span (under SAT_TL_MINUTES_SPAN: an incident
 * of half an hour is thirty minutes, not one hour), the windows grouped into
 * minutes; absent for a longer span, or windows wider than a minute. */
static int put_minutes(sat_rnode *root, const sat_timeline *t)
{
    const int64_t minute = 60 * (int64_t)NS;
    if (t->t.first_ts <= 0 || t->t.last_ts - t->t.first_ts >= SAT_TL_MINUTES_SPAN ||
        t->step > minute || minute % t->step)
        return SAT_OK;
    return put_series(root, t, "minutes", &t->win, t->step, minute, 0);
}

static void put_histogram(sat_rnode *root, const sat_timeline *t)
{
    static const sat_col cols[] = {{"op", SAT_UNIT_TEXT, 0, NULL},
                                   {"lo_s", SAT_UNIT_DURATION, 6, "from"},
                                   {"hi_s", SAT_UNIT_DURATION, 6, "to"},
                                   {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *tab = sat_table(root, "etime_histogram", cols, 4);
    for (int k = 0; k < SAT_OP__COUNT; k++) {
        const uint64_t *h = t->t.hist[k];
        int lo = -1, hi = -1;
        for (int b = 0; b < SAT_TL_BINS; b++)
            if (h[b]) {
                if (lo < 0)
                    lo = b;
                hi = b;
            }
        for (int b = lo; lo >= 0 && b <= hi; b++) {
            sat_rnode *row = sat_table_row(tab);
            sat_put_text(row, "op", sat_optype_name(k));
            sat_put_dur(row, "lo_s", sat_tl_bin_lo_s(b), 6);
            sat_put_dur(row, "hi_s", sat_tl_bin_hi_s(b), 6);
            sat_put_count(row, "count", h[b]);
        }
    }
    int lo = -1, hi = -1; /* HTTP requests' response times */
    for (int b = 0; b < SAT_TL_BINS; b++)
        if (t->t.req_hist[b]) {
            if (lo < 0)
                lo = b;
            hi = b;
        }
    for (int b = lo; lo >= 0 && b <= hi; b++) {
        sat_rnode *row = sat_table_row(tab);
        sat_put_text(row, "op", "HTTP");
        sat_put_dur(row, "lo_s", sat_tl_bin_lo_s(b), 6);
        sat_put_dur(row, "hi_s", sat_tl_bin_hi_s(b), 6);
        sat_put_count(row, "count", t->t.req_hist[b]);
    }
}

/* The inputs by source id (a stable order: the collection's). */
static int put_sources(sat_rnode *root, const sat_timeline *t)
{
    static const sat_col cols[] = {{"path", SAT_UNIT_TEXT, 0, NULL},
                                   {"kind", SAT_UNIT_TEXT, 0, NULL},
                                   {"format", SAT_UNIT_TEXT, 0, NULL},
                                   {"first_ts", SAT_UNIT_TIME, 0, "first"},
                                   {"last_ts", SAT_UNIT_TIME, 0, "last"},
                                   {"span_s", SAT_UNIT_DURATION, 3, "span"},
                                   {"lines", SAT_UNIT_COUNT, 0, NULL},
                                   {"bytes", SAT_UNIT_BYTES, 0, NULL},
                                   {"rejects", SAT_UNIT_COUNT, 0, NULL},
                                   {"utc_offset_s", SAT_UNIT_DURATION, 0, "UTC offset"},
                                   {"truncated", SAT_UNIT_BOOL, 0, NULL},
                                   {"time_source", SAT_UNIT_TEXT, 0, "time from"}};
    /* where a core's time came from (event.h sat_crash_time_source) */
    static const char *const time_key[SAT_CRASH_TIME__COUNT] = {NULL, "file_mtime", "core_name",
                                                                "log", "option"};
    sat_rnode *tab = sat_table(root, "sources", cols, sizeof cols / sizeof cols[0]);
    size_t *ord = (size_t *)malloc((t->nsrc ? t->nsrc : 1) * sizeof *ord);
    if (!ord)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < t->nsrc; i++) { /* insertion sort: stable, few inputs */
        size_t j = i;
        while (j > 0 && t->src[ord[j - 1]].id > t->src[i].id) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    for (size_t i = 0; i < t->nsrc; i++) {
        const tl_src *s = &t->src[ord[i]];
        sat_ts_ns first = s->first_ts, last = s->last_ts;
        const char *from = NULL;
        const tl_core *core = (const tl_core *)sat_strtab_find(&t->cores, &s->id, sizeof s->id);
        if (core || (s->kind && !strcmp(s->kind, "core"))) {
            /* a core has no clock: its crashes' time when it came from its name,
             * a log line or --crash-time, else none (a file's mtime is no time) */
            first = core ? core->first_ts : 0;
            last = core ? core->last_ts : 0;
            for (int b = SAT_CRASH_TIME__COUNT - 1; core && b > 0 && !from; b--)
                if (core->time_sources & (1ull << b))
                    from = time_key[b];
        }
        sat_rnode *row = sat_table_row(tab);
        sat_put_text(row, "path", s->path);
        sat_put_text(row, "kind", s->kind);
        sat_put_text(row, "format", s->format);
        sat_put_time(row, "first_ts", first);
        sat_put_time(row, "last_ts", last);
        sat_put_dur(row, "span_s", first > 0 && last >= first ? (double)(last - first) / NS : NAN,
                    3);
        sat_put_count(row, "lines", s->lines);
        sat_put_bytes(row, "bytes", s->bytes);
        sat_put_count(row, "rejects", s->rejects);
        sat_put_dur(row, "utc_offset_s", s->utc_offset_s, 0);
        sat_put_bool(row, "truncated", s->truncated);
        sat_put_text(row, "time_source", from);
    }
    free(ord);
    return SAT_OK;
}

/* The offset its local hours are at (acc.h sat_offset_pick). */
static int32_t utc_offset(const sat_timeline *t)
{
    sat_offset_pick p = SAT_OFFSET_PICK_INIT;
    for (size_t i = 0; i < t->nsrc; i++)
        sat_offset_pick_add(&p, t->src[i].id, t->src[i].utc_offset_s);
    return p.off;
}

int sat_timeline_result(const sat_timeline *t, sat_result *r)
{
    if (!t || !r)
        return SAT_E_USAGE;
    sat_rnode *root = sat_result_root(r);
    int32_t off = utc_offset(t);
    int dated = t->t.first_ts > 0;
    sat_put_time(root, "first_ts", t->t.first_ts);
    sat_put_time(root, "last_ts", t->t.last_ts);
    sat_put_dur(root, "span_s", dated ? (double)(t->t.last_ts - t->t.first_ts) / NS : NAN, 3);
    sat_put_dur(root, "window_s", (double)t->step / NS, 0);
    sat_put_count(root, "window_count", (uint64_t)tl_nwin(t->t.first_ts, t->t.last_ts, t->step));
    sat_put_dur(root, "hours_window_s",
                (double)(t->hstep < 3600 * (int64_t)NS ? 3600 * (int64_t)NS : t->hstep) / NS, 0);
    sat_put_dur(root, "utc_offset_s", off, 0);
    sat_rec_put(&tl_tot_desc, root, &t->t, NULL); /* operations .. connections */
    if (t->t.req.count) {
        sat_rec_put(&tl_req_tot_desc, root, &t->t.req, NULL); /* requests .. requests_undated */
        sat_rnode *m = sat_obj(root, "requests_by_method");
        sat_set_compact(m);
        for (int k = 0; k < TL_METHODS; k++)
            if (t->t.methods[k])
                sat_put_count(m, tl_method_names[k], t->t.methods[k]);
        sat_rnode *c = sat_obj(root, "status_classes");
        sat_set_compact(c);
        for (int k = 0; k < TL_CLASSES; k++)
            if (t->t.classes[k])
                sat_put_count(c, tl_class_names[k], t->t.classes[k]);
    }
    /* every timed operation's and request's percentiles, from the histograms */
    uint64_t h[SAT_TL_BINS];
    memcpy(h, t->t.req_hist, sizeof h);
    int64_t mx = t->t.req_et_max, mn_inv = t->t.req_et_min_inv;
    for (int k = 0; k < SAT_OP__COUNT; k++) {
        for (int b = 0; b < SAT_TL_BINS; b++)
            h[b] += t->t.hist[k][b];
        sat_acc_max(&mx, t->t.et_max[k]);
        sat_acc_max(&mn_inv, t->t.et_min_inv[k]);
    }
    put_pcts(root, h, t->t.timed + t->t.req.timed, mx, mn_inv);

    sat_rnode *main = NULL;
    put_windows(root, t, &main);
    put_busiest(root, t);
    int rc = put_hours(root, t, off);
    if (rc == SAT_OK)
        rc = put_minutes(root, t);
    put_histogram(root, t);
    if (rc == SAT_OK)
        rc = put_sources(root, t);
    sat_result_set_main(r, main);
    if (rc == SAT_OK)
        rc = sat_result_status(r);
    return rc;
}
