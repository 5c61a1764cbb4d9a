/*
 * saturation_result.c - the saturation analyzer's result (satscope/result.h,
 * docs/output.md), made from its accumulators (saturation_int.h): the
 * totals, the `points` (a window's concurrency by Little's law and its
 * throughput, or a measured point), the Universal Scalability Law fit `usl`
 * over the points fitted (usl.c), where the server runs `now`, the
 * `whatif`s, and the TLS capacity of captures (`tls_capacity`, with its
 * per-second series `tls_capacity.windows`: the seconds' counts are one
 * list, saturation_int.h SAT_SEC_COUNTS, for the totals and the columns).
 * JSON, CSV and text are all made from these. `http_requests` (of the
 * answered, HTTP requests) is there only when the inputs had some.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saturation_int.h"

#define SAT_SEC_COLS 16

/* A point: a window's (w set), or a measured one (start_ts 0, w NULL). */
typedef struct sat_point {
    sat_ts_ns start_ts;
    double n, x;       /* concurrency, throughput (ops/s) */
    double length_s;   /* the window's part inside the operations' span, over
                          which X and N are rates */
    double wtime_mean_s, optime_mean_s; /* NAN when not logged */
    const sat_win *w;
    int used;          /* in the fit (not: windows less than half inside the
                          span, or with fewer than min_ops operations) */
} sat_point;

/* What the points say: the fit over those used, and where the server ran
 * (the windows' N only, not measured points). */
typedef struct sat_fitted {
    sat_usl_fit usl;
    double n_now, x_now; /* the last window fitted (NAN if none) */
    double n_p95;        /* 95th percentile of the windows' N (NAN if none) */
} sat_fitted;

static double mean_s(int64_t sum_ns, uint64_t n)
{
    return n ? sat_sum_d(sum_ns) / 1e9 / (double)n : NAN;
}

/* The windows in time order (only those with answered operations or
 * handshakes exist in the table), then the measured points; *pts is the
 * caller's to free. SAT_OK or SAT_E_NOMEM. */
static int make_points(const sat_saturation *s, sat_point **pts, size_t *nwin)
{
    size_t nw = s->windows.n, np = nw + s->nadded;
    sat_point *pt = (sat_point *)calloc(np ? np : 1, sizeof *pt);
    if (!pt)
        return SAT_E_NOMEM;
    double ws = (double)s->window / 1e9;
    const sat_totals *t = &s->t;
    for (size_t i = 0; i < nw; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->windows, i), sizeof k);
        const sat_win *w = (const sat_win *)sat_strtab_val(&s->windows, i);
        sat_point *p = &pt[i];
        p->w = w;
        p->start_ts = k * s->window;
        /* the first and last windows are partly outside the input: their
         * rates are taken over the part inside (a full-window divisor would
         * read them low), and they are fitted only if that is at least half */
        sat_ts_ns lo = p->start_ts > t->first_ts ? p->start_ts : t->first_ts;
        sat_ts_ns hi = p->start_ts + s->window < t->last_ts ? p->start_ts + s->window
                                                           : t->last_ts;
        p->length_s = hi - lo >= s->window / 2 ? (double)(hi - lo) / 1e9 : ws;
        p->used = hi - lo >= s->window / 2;
        p->x = (double)w->n.ops / p->length_s;
        /* operations without a latency are taken at the window's mean one */
        p->n = w->n.timed ? sat_sum_d(w->etime_ns) / 1e9 * ((double)w->n.ops / (double)w->n.timed) /
                                p->length_s
                          : NAN;
        p->wtime_mean_s = mean_s(w->wtime_ns, w->n.wt_n);
        p->optime_mean_s = mean_s(w->optime_ns, w->n.ot_n);
    }
    /* by start (the table is in first-seen order) */
    for (size_t i = 1; i < nw; i++) {
        sat_point cur = pt[i];
        size_t j = i;
        while (j > 0 && pt[j - 1].start_ts > cur.start_ts) {
            pt[j] = pt[j - 1];
            j--;
        }
        pt[j] = cur;
    }
    for (size_t i = 0; i < nw; i++)
        pt[i].used = pt[i].used && pt[i].w->n.ops >= s->opts.min_ops && isfinite(pt[i].n) &&
                     pt[i].n > 0;
    for (size_t i = 0; i < s->nadded; i++) {
        sat_point *p = &pt[nw + i];
        p->n = s->added[i].n;
        p->x = s->added[i].x;
        p->wtime_mean_s = p->optime_mean_s = NAN;
        p->used = 1;
    }
    *pts = pt;
    *nwin = nw;
    return SAT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The fit over the used points, where the server ran. SAT_OK or SAT_E_NOMEM. */
static int fit_points(const sat_point *pt, size_t nw, size_t np, sat_fitted *f)
{
    f->n_now = f->x_now = f->n_p95 = NAN;
    for (size_t i = nw; i-- > 0;)
        if (pt[i].used) {
            f->n_now = pt[i].n;
            f->x_now = pt[i].x;
            break;
        }
    /* their n (first half) and x (second half) in one scratch array */
    double *nx = (double *)malloc((np ? np : 1) * 2 * sizeof *nx);
    if (!nx)
        return SAT_E_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < np; i++)
        if (pt[i].used) {
            nx[m] = pt[i].n;
            nx[np + m] = pt[i].x;
            m++;
        }
    sat_usl_fit_points(nx, nx + np, m, &f->usl);
    size_t mw = 0;
    for (size_t i = 0; i < nw; i++)
        if (pt[i].used)
            nx[mw++] = pt[i].n;
    if (mw) {
        qsort(nx, mw, sizeof *nx, cmp_double);
        size_t r = (size_t)ceil(0.95 * (double)mw);
        f->n_p95 = nx[(r ? r : 1) - 1];
    }
    free(nx);
    return SAT_OK;
}

static const char *knee_name(int k)
{
    switch (k) {
    case SAT_USL_KNEE_OBSERVED: return "observed";
    case SAT_USL_KNEE_EXTRAPOLATED: return "extrapolated";
    case SAT_USL_KNEE_TOO_FAR: return "too_far";
    default: return "none";
    }
}

/* Small coefficients (kappa is often 1e-5) keep four significant digits. */
static void put_coef(sat_rnode *o, const char *key, double v)
{
    if (isfinite(v) && v != 0 && fabs(v) < 1e-3) {
        char b[32];
        snprintf(b, sizeof b, "%.4e", v);
        sat_put_num(o, key, strtod(b, NULL), 12);
    } else {
        sat_put_num(o, key, v, 6);
    }
}

/* No capacity figure (a ceiling, a knee, the throughput there) unless the
 * points reached a concurrency where the fit says something about one:
 * N = throughput x response time (Little's law) is the work in service on
 * average, and a server with less than one operation in service was idle
 * most of the time, so its throughput is the load the clients offered, not
 * what it can take; a ceiling lambda / sigma (kappa ~ 0) is read only when
 * the throughput observed reached half of it, at N = (1 - sigma) / sigma.
 * When the points fall short, the figures are taken out of *u (NAN) and the
 * why and the concurrency they would need returned. */
#define SAT_CAPACITY_MIN_N 1.0
static const char *capacity_unread(sat_usl_fit *u, double *needed)
{
    *needed = NAN;
    if (!u->ok)
        return NULL;
    const char *why = NULL;
    if (!(u->n_max >= SAT_CAPACITY_MIN_N)) {
        *needed = SAT_CAPACITY_MIN_N;
        why = "the observed concurrency (N = throughput x response time, Little's law) never "
              "reached one operation in service on average: the server was idle most of the "
              "time, so the throughput is the load the clients offered, not a capacity";
    } else if (u->knee == SAT_USL_KNEE_NONE && u->sigma < 1.0 - 1e-9 && isfinite(u->x_ceiling) &&
               u->sigma > 0) {
        double half = (1.0 - u->sigma) / u->sigma;
        if (u->n_max < half) {
            *needed = half;
            why = "the observed concurrency stayed below where the fit bends (the throughput "
                  "would reach half its ceiling only there): no ceiling can be read from these "
                  "points";
        }
    }
    if (why)
        u->n_star = u->x_max = u->x_ceiling = NAN;
    return why;
}

static void put_usl(sat_rnode *root, const sat_usl_fit *u, int http, const char *unread,
                    double needed)
{
    sat_rnode *o = sat_obj(root, "usl");
    sat_put_num(o, "sigma", u->ok ? u->sigma : NAN, 6);
    sat_put_note(o, "contention, the serialised share");
    put_coef(o, "kappa", u->ok ? u->kappa : NAN);
    sat_put_note(o, "coherency, crosstalk");
    sat_put_num(o, "lambda", u->ok ? u->lambda : NAN, 4);
    sat_put_note(o, http ? "req/s with one in flight" : "ops/s with one in flight");
    sat_put_num(o, "n_star", u->n_star, 3);
    sat_put_num(o, "x_max", u->x_max, 3);
    sat_put_num(o, "r2", u->ok ? u->r2 : NAN, 4);
    sat_put_bool(o, "ok", u->ok);
    sat_put_text(o, "why", u->why);
    sat_put_text(o, "knee", u->ok ? knee_name(u->knee) : NULL);
    /* how far past the highest concurrency observed a knee is still reported */
    sat_put_num(o, "extrapolate_max", SAT_USL_EXTRAPOLATE_MAX, 1);
    sat_put_note(o, "times the highest concurrency observed: a knee further out is not reported");
    sat_put_num(o, "n_star_fitted", u->n_star_raw, 3);
    sat_put_num(o, "x_ceiling", u->x_ceiling, 3);
    sat_put_count(o, "fitted_points", u->npoints);
    sat_put_num(o, "concurrency_min", u->n_min, 4);
    sat_put_num(o, "concurrency_max", u->n_max, 4);
    sat_put_text(o, "capacity_unread", unread);
    sat_put_note(o, "why no capacity figure is given (null: the points reach one)");
    sat_put_num(o, "concurrency_needed", needed, 4);
    sat_put_note(o, "the concurrency the points would have to reach");
}

/* What-if: K times the CPUs. The usual assumption: lambda (the rate of one
 * operation in flight) scales with the CPUs while sigma and kappa stay, so
 * N* stays and X_max scales by K: optimistic, since contention and
 * coherency costs tend to grow with the cores.
 * What-if: another handshake mix. Each answered operation carries hs_per_op
 * handshakes costing full/resumed CPU; changing the resumed share changes
 * the service time of one operation, 1/lambda, by the difference (first
 * order: handshake CPU serialised with the operation's own work), and X_max
 * by the same ratio as lambda. A handshake that failed after the
 * ServerHello costs a full one and is among hs_per_op, but not in the
 * share: whatever the share, it stays a full one (a client that rejects the
 * certificate does not come back resumed). NAN when not asked or not
 * computable. */
static void put_whatif(sat_rnode *root, const sat_saturation *s, const sat_usl_fit *u)
{
    const struct sat_total_counts *t = &s->t.n;
    const sat_saturation_opts *o = &s->opts;
    double xm = isfinite(u->x_max) ? u->x_max : u->x_ceiling;
    double cpus = NAN, cpus_lambda = NAN, cpus_x_max = NAN;
    if (o->cpus > 0 && u->ok) {
        cpus = o->cpus;
        cpus_lambda = u->lambda * o->cpus;
        cpus_x_max = isfinite(xm) ? xm * o->cpus : NAN;
    }
    double hs_per_op = NAN, share = NAN, whatif_share = NAN, whatif_lambda = NAN,
           whatif_x_max = NAN;
    uint64_t hs = t->hs_full + t->hs_resumed;
    if (hs) {
        share = (double)t->hs_resumed / (double)hs;
        whatif_share = o->resumed_share;
    }
    if (hs && t->ops && u->ok) {
        hs_per_op = (double)(hs + t->hs_failed_sh) / (double)t->ops;
        double done_per_op = (double)hs / (double)t->ops;
        double failed_per_op = (double)t->hs_failed_sh / (double)t->ops;
        double cf = o->full_cost_us / 1e6, cr = o->resumed_cost_us / 1e6;
        double now = done_per_op * ((1 - share) * cf + share * cr) + failed_per_op * cf;
        double then =
            done_per_op * ((1 - whatif_share) * cf + whatif_share * cr) + failed_per_op * cf;
        double service = 1.0 / u->lambda + then - now;
        if (service > 0) {
            whatif_lambda = 1.0 / service;
            whatif_x_max = isfinite(xm) ? xm * whatif_lambda / u->lambda : NAN;
        }
    }
    sat_rnode *w = sat_obj(root, "whatif");
    sat_put_num(w, "cpus", cpus, 3);
    sat_put_num(w, "cpus_lambda", cpus_lambda, 4);
    sat_put_num(w, "cpus_x_max", cpus_x_max, 3);
    sat_put_count(w, "hs_full", t->hs_full);
    sat_put_count(w, "hs_resumed", t->hs_resumed);
    sat_put_count(w, "hs_failed_after_server_hello", t->hs_failed_sh);
    sat_put_num(w, "hs_per_op", hs_per_op, 4);
    sat_put_ratio(w, "resumed_share", share, 4);
    sat_put_ratio(w, "whatif_resumed_share", whatif_share, 4);
    sat_put_num(w, "whatif_lambda", whatif_lambda, 4);
    sat_put_num(w, "whatif_x_max", whatif_x_max, 3);
}

typedef struct cap_rows {
    const sat_saturation *s;
    sat_rnode *tab;
    sat_hs_sec none;
} cap_rows;

static void capacity_row(void *ctx, int64_t k, const void *payload)
{
    const cap_rows *x = (const cap_rows *)ctx;
    const sat_hs_sec *w = payload ? (const sat_hs_sec *)payload : &x->none;
    sat_rnode *row = sat_table_row(x->tab);
    sat_put_time(row, "start_ts", k * x->s->hs_step);
    sat_rec_row(&sat_sec_desc, row, w, NULL);
    sat_put_bool(row, "saturated", w->gave_up || w->hello_unanswered);
}

/* The TLS capacity of a capture (saturation.c's opening comment): the
 * totals of its seconds, the busiest, those that turned attempts away and
 * the rates then, then every second from the first to the last (gaps read
 * as zeros). SAT_OK or SAT_E_NOMEM. */
static int put_capacity(sat_rnode *root, const sat_saturation *s)
{
    const sat_strtab *secs = &s->hs_secs;
    sat_hs_sec all;
    sat_rec_init(&sat_sec_desc, &all);
    /* full counts the failures after a ServerHello: they cost what a full one does */
    uint64_t sat_off = 0, sat_full = 0, sat_res = 0, peak = 0;
    size_t nsat = 0;
    sat_ts_ns peak_ts = 0, sat_first = 0, sat_end = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < secs->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(secs, i), sizeof k);
        const sat_hs_sec *w = (const sat_hs_sec *)sat_strtab_val(secs, i);
        sat_ts_ns t = k * s->hs_step;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
        (void)sat_rec_merge(&sat_sec_desc, &all, w); /* counters only: cannot fail */
        uint64_t answered = w->full + w->resumed + w->failed_sh;
        if (answered > peak || (answered == peak && peak && t < peak_ts)) {
            peak = answered;
            peak_ts = t;
        }
        if (!w->gave_up && !w->hello_unanswered)
            continue;
        nsat++;
        sat_off += w->offered;
        sat_full += w->full + w->failed_sh;
        sat_res += w->resumed;
        if (!sat_first || t < sat_first)
            sat_first = t;
        if (t + s->hs_step > sat_end)
            sat_end = t + s->hs_step;
    }
    double step_s = (double)s->hs_step / 1e9, len = (double)nsat * step_s;
    double offered = NAN, sustained = NAN, sustained_full = NAN, cpu = NAN, bound = NAN;
    if (nsat) {
        offered = (double)sat_off / len;
        sustained = (double)(sat_full + sat_res) / len;
        sustained_full = (double)sat_full / len;
        /* CPU seconds a second by the cost model, and the bound the rate
         * itself sets: a server that could answer no more spent 1/rate on each */
        cpu = ((double)sat_full * s->opts.full_cost_us +
               (double)sat_res * s->opts.resumed_cost_us) / 1e6 / len;
        if (sat_full + sat_res)
            bound = 1.0 / sustained;
    }
    sat_rnode *o = sat_obj(root, "tls_capacity");
    sat_put_dur(o, "step_s", step_s, 3);
    sat_rec_put(&sat_sec_desc, o, &all, NULL);
    sat_put_rate(o, "peak_per_s", peak ? (double)peak / step_s : NAN, 3);
    sat_put_time(o, "peak_ts", peak ? peak_ts : 0);
    sat_put_count(o, "saturated_windows", nsat);
    sat_put_time(o, "saturated_first_ts", nsat ? sat_first : 0);
    sat_put_time(o, "saturated_end_ts", nsat ? sat_end : 0);
    sat_put_rate(o, "offered_per_s", offered, 3);
    sat_put_rate(o, "sustained_per_s", sustained, 3);
    sat_put_rate(o, "sustained_full_per_s", sustained_full, 3);
    sat_put_num(o, "cpu_s_per_s_model", cpu, 6);
    sat_put_dur(o, "cost_per_handshake_s_measured", bound, 6);

    sat_col cols[SAT_SEC_COLS];
    size_t nc = 0;
    cols[nc++] = (sat_col){"start_ts", SAT_UNIT_TIME, 0, "start"};
    nc += sat_rec_cols(&sat_sec_desc, cols + nc, SAT_SEC_COLS - 2);
    cols[nc++] = (sat_col){"saturated", SAT_UNIT_BOOL, 0, NULL};
    sat_rnode *tab = sat_table(o, "windows", cols, nc);
    sat_table_set_window(tab, s->hs_step);
    /* each second from the first to the last (gaps as zeros), or only those
     * with handshakes when they are far apart (winseries.h) */
    cap_rows x = {s, tab, {0}};
    sat_rec_init(&sat_sec_desc, &x.none);
    return sat_win_walk(secs, 4u * SAT_WINDOWS_MAX, capacity_row, &x);
}

/* A window's point has its start, its operations and handshakes; a measured
 * one (from a load test's CSV) only its concurrency and throughput. */
static void put_points(sat_result *r, sat_rnode *root, const sat_point *pt, size_t np, int http)
{
    sat_col cols[] = {
        {"start_ts", SAT_UNIT_TIME, 0, "start"},
        {"concurrency", SAT_UNIT_NUMBER, 4, "N"},
        {"throughput", SAT_UNIT_RATE, 4, "X ops/s"},
        {"answered", SAT_UNIT_COUNT, 0, "ops"},
        {"length_s", SAT_UNIT_DURATION, 3, "length"},
        {"wtime_mean_s", SAT_UNIT_DURATION, 6, "wtime"},
        {"optime_mean_s", SAT_UNIT_DURATION, 6, "optime"},
        {"hs_full", SAT_UNIT_COUNT, 0, "full hs"},
        {"hs_resumed", SAT_UNIT_COUNT, 0, "resumed hs"},
        {"used", SAT_UNIT_BOOL, 0, "fit"},
    };
    if (http) { /* the text's titles: HTTP requests */
        cols[2].title = "X req/s";
        cols[3].title = "requests";
    }
    sat_rnode *t = sat_table(root, "points", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < np; i++) {
        const sat_point *p = &pt[i];
        sat_rnode *row = sat_table_row(t);
        sat_put_time(row, "start_ts", p->start_ts);
        sat_put_num(row, "concurrency", p->n, 4);
        sat_put_rate(row, "throughput", p->x, 4);
        if (p->w) {
            sat_put_count(row, "answered", p->w->n.ops);
            sat_put_dur(row, "length_s", p->length_s, 3);
        } else {
            sat_put_absent(row, "answered", SAT_UNIT_COUNT);
            sat_put_absent(row, "length_s", SAT_UNIT_DURATION);
        }
        sat_put_dur(row, "wtime_mean_s", p->wtime_mean_s, 6);
        sat_put_dur(row, "optime_mean_s", p->optime_mean_s, 6);
        if (p->w) {
            sat_put_count(row, "hs_full", p->w->n.hs_full);
            sat_put_count(row, "hs_resumed", p->w->n.hs_resumed);
        } else {
            sat_put_absent(row, "hs_full", SAT_UNIT_COUNT);
            sat_put_absent(row, "hs_resumed", SAT_UNIT_COUNT);
        }
        sat_put_bool(row, "used", p->used);
    }
    sat_result_set_main(r, t);
}

int sat_saturation_result(const sat_saturation *s, sat_result *r)
{
    sat_rnode *root = sat_result_root(r);
    if (!s || !root)
        return SAT_E_NOMEM;
    sat_point *pt = NULL;
    size_t nw = 0, np = s->windows.n + s->nadded;
    sat_fitted f;
    if (make_points(s, &pt, &nw) < 0)
        return SAT_E_NOMEM;
    if (fit_points(pt, nw, np, &f) < 0) {
        free(pt);
        return SAT_E_NOMEM;
    }
    const sat_totals *t = &s->t;
    int http = t->n.http_reqs && t->n.http_reqs == t->n.ops;
    sat_put_count(root, "answered", t->n.ops); /* operations answered ("ops" is a table in etime) */
    if (t->n.http_reqs) { /* only then: LDAP documents stay as they were */
        sat_put_count(root, "http_requests", t->n.http_reqs);
        sat_put_note(root, "of the answered, HTTP requests (every status)");
        sat_rnode *in = sat_obj(root, "http_inputs");
        sat_set_compact(in);
        sat_put_count(in, "count", t->n.http_inputs);
        sat_put_count(in, "without_response_time", t->n.http_no_rt);
    }
    sat_put_count(root, "timed", t->n.timed);
    sat_put_count(root, "skipped", t->n.skipped);
    sat_put_count(root, "measured_points", s->nadded);
    sat_put_time(root, "first_ts", t->first_ts);
    sat_put_time(root, "last_ts", t->first_ts ? t->last_ts : 0);
    sat_put_dur(root, "window_s", nw ? (double)s->window / 1e9 : NAN, 3);
    sat_put_count(root, "min_ops", s->opts.min_ops);
    sat_put_dur(root, "wtime_mean_s", mean_s(t->wtime_ns, t->n.wt_n), 6);
    sat_put_dur(root, "optime_mean_s", mean_s(t->optime_ns, t->n.ot_n), 6);
    sat_rnode *cost = sat_obj(root, "cost_per_handshake");
    sat_set_compact(cost);
    sat_put_dur(cost, "full_s", s->opts.full_cost_us / 1e6, 9);
    sat_put_dur(cost, "resumed_s", s->opts.resumed_cost_us / 1e6, 9);
    double needed;
    const char *unread = capacity_unread(&f.usl, &needed);
    put_usl(root, &f.usl, http, unread, needed);
    sat_rnode *now = sat_obj(root, "now");
    sat_put_num(now, "concurrency", f.n_now, 4);
    sat_put_rate(now, "throughput", f.x_now, 4);
    sat_put_num(now, "concurrency_p95", f.n_p95, 4);
    put_whatif(root, s, &f.usl);
    int rc = t->n.tcp_conns ? put_capacity(root, s) : SAT_OK; /* captures only */
    put_points(r, root, pt, np, http);
    free(pt);
    return rc < 0 ? rc : sat_result_status(r);
}
