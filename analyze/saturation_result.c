/*
 * saturation_result.c - the sections of the saturation analyzer's result
 * (satscope/result.h, docs/output.md), from its finished view: the totals,
 * the Universal Scalability Law fit `usl`, where the server runs `now`, the
 * `whatif`s, the TLS capacity of captures (`tls_capacity`, with its
 * per-second series `tls_capacity.windows`) and the `points` (a window's
 * concurrency and throughput, or a measured point). JSON, CSV and text are
 * all made from these. `http_requests` (of the answered, HTTP requests) is
 * there only when the inputs had some.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "satscope/analyze.h"

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

static void put_usl(sat_rnode *root, const sat_usl_fit *u, int http)
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
}

static void put_whatif(sat_rnode *root, const sat_saturation_view *v)
{
    sat_rnode *o = sat_obj(root, "whatif");
    sat_put_num(o, "cpus", v->cpus, 3);
    sat_put_num(o, "cpus_lambda", v->cpus_lambda, 4);
    sat_put_num(o, "cpus_x_max", v->cpus_x_max, 3);
    sat_put_count(o, "hs_full", v->hs_full);
    sat_put_count(o, "hs_resumed", v->hs_resumed);
    sat_put_count(o, "hs_failed_after_server_hello", v->hs_failed_after_server_hello);
    sat_put_num(o, "hs_per_op", v->hs_per_op, 4);
    sat_put_ratio(o, "resumed_share", v->resumed_share, 4);
    sat_put_ratio(o, "whatif_resumed_share", v->whatif_share, 4);
    sat_put_num(o, "whatif_lambda", v->whatif_lambda, 4);
    sat_put_num(o, "whatif_x_max", v->whatif_x_max, 3);
}

static void put_capacity(sat_rnode *root, const sat_hs_capacity *c)
{
    sat_rnode *o = sat_obj(root, "tls_capacity");
    sat_put_dur(o, "step_s", (double)c->step / 1e9, 3);
    sat_put_count(o, "offered", c->offered);
    sat_put_count(o, "gave_up_unanswered", c->gave_up);
    sat_put_count(o, "client_hellos_unanswered", c->hello_unanswered);
    sat_put_count(o, "full", c->full);
    sat_put_count(o, "resumed", c->resumed);
    sat_put_count(o, "failed_after_server_hello", c->failed_after_server_hello);
    sat_put_rate(o, "peak_per_s", c->peak_rate, 3);
    sat_put_time(o, "peak_ts", isfinite(c->peak_rate) ? c->peak_ts : 0);
    sat_put_count(o, "saturated_windows", c->saturated);
    sat_put_time(o, "saturated_first_ts", c->saturated ? c->saturated_first_ts : 0);
    sat_put_time(o, "saturated_end_ts", c->saturated ? c->saturated_end_ts : 0);
    sat_put_rate(o, "offered_per_s", c->offered_rate, 3);
    sat_put_rate(o, "sustained_per_s", c->sustained_rate, 3);
    sat_put_rate(o, "sustained_full_per_s", c->sustained_full_rate, 3);
    sat_put_num(o, "cpu_s_per_s_model", c->cpu_model, 6);
    sat_put_dur(o, "cost_per_handshake_s_measured", c->cost_bound_s, 6);
    static const sat_col cols[] = {
        {"start_ts", SAT_UNIT_TIME, 0, "start"},
        {"offered", SAT_UNIT_COUNT, 0, NULL},
        {"gave_up_unanswered", SAT_UNIT_COUNT, 0, "gave up"},
        {"client_hellos_unanswered", SAT_UNIT_COUNT, 0, "hello unanswered"},
        {"full", SAT_UNIT_COUNT, 0, NULL},
        {"resumed", SAT_UNIT_COUNT, 0, NULL},
        {"failed_after_server_hello", SAT_UNIT_COUNT, 0, "failed after SH"},
        {"saturated", SAT_UNIT_BOOL, 0, NULL},
    };
    sat_rnode *t = sat_table(o, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, c->step);
    for (size_t i = 0; i < c->nseconds; i++) {
        const sat_hs_second *w = &c->seconds[i];
        sat_rnode *row = sat_table_row(t);
        sat_put_time(row, "start_ts", w->start_ts);
        sat_put_count(row, "offered", w->offered);
        sat_put_count(row, "gave_up_unanswered", w->gave_up);
        sat_put_count(row, "client_hellos_unanswered", w->hello_unanswered);
        sat_put_count(row, "full", w->full);
        sat_put_count(row, "resumed", w->resumed);
        sat_put_count(row, "failed_after_server_hello", w->failed_after_server_hello);
        sat_put_bool(row, "saturated", w->saturated);
    }
}

/* A window's point has its start, its operations and handshakes; a measured
 * one (from a load test's CSV) only its concurrency and throughput. */
static void put_points(sat_result *r, sat_rnode *root, const sat_saturation_view *v)
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
    if (v->http_reqs && v->http_reqs == v->ops) { /* the text's titles: HTTP requests */
        cols[2].title = "X req/s";
        cols[3].title = "requests";
    }
    sat_rnode *t = sat_table(root, "points", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < v->npoints; i++) {
        const sat_saturation_point *p = &v->points[i];
        sat_rnode *row = sat_table_row(t);
        sat_put_time(row, "start_ts", p->start_ts);
        sat_put_num(row, "concurrency", p->n, 4);
        sat_put_rate(row, "throughput", p->x, 4);
        if (p->start_ts) {
            sat_put_count(row, "answered", p->ops);
            sat_put_dur(row, "length_s", p->length_s, 3);
        } else {
            sat_put_absent(row, "answered", SAT_UNIT_COUNT);
            sat_put_absent(row, "length_s", SAT_UNIT_DURATION);
        }
        sat_put_dur(row, "wtime_mean_s", p->wtime_mean_s, 6);
        sat_put_dur(row, "optime_mean_s", p->optime_mean_s, 6);
        if (p->start_ts) {
            sat_put_count(row, "hs_full", p->hs_full);
            sat_put_count(row, "hs_resumed", p->hs_resumed);
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
    const sat_saturation_view *v = sat_saturation_get_view(s);
    sat_rnode *root = sat_result_root(r);
    if (!v || !root)
        return SAT_E_NOMEM;
    sat_put_count(root, "answered", v->ops); /* operations answered ("ops" is a table in etime) */
    if (v->http_reqs) { /* only then: LDAP documents stay as they were */
        sat_put_count(root, "http_requests", v->http_reqs);
        sat_put_note(root, "of the answered, HTTP requests (every status)");
        sat_rnode *in = sat_obj(root, "http_inputs");
        sat_set_compact(in);
        sat_put_count(in, "count", v->http_inputs);
        sat_put_count(in, "without_response_time", v->http_no_rt);
    }
    sat_put_count(root, "timed", v->timed);
    sat_put_count(root, "skipped", v->skipped);
    sat_put_count(root, "measured_points", v->added);
    sat_put_time(root, "first_ts", v->first_ts);
    sat_put_time(root, "last_ts", v->first_ts ? v->last_ts : 0);
    sat_put_dur(root, "window_s", v->window ? (double)v->window / 1e9 : NAN, 3);
    sat_put_count(root, "min_ops", v->min_ops);
    sat_put_dur(root, "wtime_mean_s", v->wtime_mean_s, 6);
    sat_put_dur(root, "optime_mean_s", v->optime_mean_s, 6);
    sat_rnode *cost = sat_obj(root, "cost_per_handshake");
    sat_set_compact(cost);
    sat_put_dur(cost, "full_s", v->full_cost_us / 1e6, 9);
    sat_put_dur(cost, "resumed_s", v->resumed_cost_us / 1e6, 9);
    put_usl(root, &v->usl, v->http_reqs && v->http_reqs == v->ops);
    sat_rnode *now = sat_obj(root, "now");
    sat_put_num(now, "concurrency", v->n_now, 4);
    sat_put_rate(now, "throughput", v->x_now, 4);
    sat_put_num(now, "concurrency_p95", v->n_p95, 4);
    put_whatif(root, v);
    if (v->capacity.tcp_conns) /* captures only */
        put_capacity(root, &v->capacity);
    put_points(r, root, v);
    return sat_result_status(r);
}
