/*
 * test_saturation.c - the saturation analyzer (analyze/saturation.c): the
 * Universal Scalability Law fit recovers known parameters from noisy points
 * (fixed seed), refuses too few points or an unvarying concurrency, reads a
 * flat series as a ceiling; Little's law and the windows on made-up ldap_op
 * rows; the knee's extrapolation limits; the what-ifs; the TLS capacity of a
 * capture (handshakes answered against connections offered).
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

#define S ((sat_ts_ns)1000000000)
static const sat_ts_ns T0 = 1749400000 * S;

/* xorshift64*: fixed seed, the same points on every machine */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}
/* Box-Muller */
static double gauss(void)
{
    double u = uniform(), v = uniform();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int within(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

static int build_result(const void *a, sat_result *r)
{
    return sat_saturation_result((const sat_saturation *)a, r);
}

/* The finished analyzer's result; the caller frees it. */
static sat_result *result_of(const sat_saturation *s)
{
    return rc_result("saturation", build_result, s);
}

static void test_fit_recovers(void)
{
    const double sigma = 0.05, kappa = 0.001, lambda = 100;
    double n[48], x[48];
    for (int i = 0; i < 48; i++) {
        n[i] = 1 + i * 1.25; /* 1 .. 59.75: past N* = 30.8 */
        x[i] = sat_usl_x(sigma, kappa, lambda, n[i]) * (1 + 0.05 * gauss());
    }
    sat_usl_fit f;
    sat_usl_fit_points(n, x, 48, &f);
    CHECK(f.ok);
    CHECK(within(f.sigma, sigma, 0.15));
    CHECK(within(f.kappa, kappa, 0.15));
    CHECK(within(f.lambda, lambda, 0.15));
    CHECK(f.knee == SAT_USL_KNEE_OBSERVED);
    CHECK(within(f.n_star, sqrt((1 - sigma) / kappa), 0.15));
    CHECK(within(f.x_max, sat_usl_x(sigma, kappa, lambda, sqrt((1 - sigma) / kappa)), 0.1));
    CHECK(f.r2 > 0.8 && f.r2 <= 1);
    fprintf(stderr, "fit: sigma %.4f kappa %.6f lambda %.2f N* %.2f Xmax %.2f r2 %.4f (%u it)\n",
            f.sigma, f.kappa, f.lambda, f.n_star, f.x_max, f.r2, f.iterations);
}

static void test_fit_extrapolation(void)
{
    /* the same law seen only up to N = 12: the knee (30.8) is 2.6x beyond */
    const double sigma = 0.05, kappa = 0.001, lambda = 100;
    double n[12], x[12];
    for (int i = 0; i < 12; i++) {
        n[i] = 1 + i;
        x[i] = sat_usl_x(sigma, kappa, lambda, n[i]);
    }
    sat_usl_fit f;
    sat_usl_fit_points(n, x, 12, &f);
    CHECK(f.ok);
    CHECK(f.knee == SAT_USL_KNEE_EXTRAPOLATED);
    CHECK(within(f.n_star, 30.82, 0.05));
    /* ... and up to N = 5 only: 6x beyond, refused */
    sat_usl_fit_points(n, x, 5, &f);
    CHECK(f.ok);
    CHECK(f.knee == SAT_USL_KNEE_TOO_FAR || f.knee == SAT_USL_KNEE_NONE);
    CHECK(isnan(f.n_star) && isnan(f.x_max));
}

static void test_fit_refuses(void)
{
    double n[4] = {1, 2, 3, 4}, x[4] = {10, 19, 27, 34};
    sat_usl_fit f;
    sat_usl_fit_points(n, x, 4, &f);
    CHECK(!f.ok);
    CHECK(f.why != NULL);
    double n2[6] = {5, 5, 5.1, 5, 5.05, 5}, x2[6] = {50, 51, 49, 50, 52, 48};
    sat_usl_fit_points(n2, x2, 6, &f);
    CHECK(!f.ok);
    CHECK(f.why != NULL);
    sat_usl_fit_points(n, x, 0, &f);
    CHECK(!f.ok);
}

static void test_fit_flat(void)
{
    /* throughput already at its ceiling: it does not grow with N */
    double n[8], x[8];
    for (int i = 0; i < 8; i++) {
        n[i] = 2 + 3 * i;
        x[i] = 500;
    }
    sat_usl_fit f;
    sat_usl_fit_points(n, x, 8, &f);
    CHECK(f.ok);
    CHECK(isnan(f.r2)); /* no variance to explain */
    CHECK(f.knee == SAT_USL_KNEE_NONE || f.knee == SAT_USL_KNEE_OBSERVED);
    CHECK(f.sigma > 0.9);
    double top = isfinite(f.x_max) ? f.x_max : f.x_ceiling;
    CHECK(within(top, 500, 0.05));
    fprintf(stderr, "flat: sigma %.4f kappa %.3g lambda %.2f knee %d ceiling %.2f\n", f.sigma,
            f.kappa, f.lambda, f.knee, top);
}

static sat_ldap_op op_row(sat_ts_ns ts, sat_dur_ns etime)
{
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = ts;
    o.result_ts_ns = ts + etime;
    o.conn = 1;
    o.op = 1;
    o.internal_op = SAT_ABSENT;
    o.type = SAT_OP_SRCH;
    o.err = 0;
    o.tag = 101;
    o.nentries = 1;
    o.etime = etime;
    o.wtime = etime / 4;
    o.optime = etime - etime / 4;
    o.wbusy = o.wbusy_max = o.wqdepth = SAT_ABSENT;
    o.target_op = SAT_ABSENT;
    return o;
}

static void test_little(void)
{
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    o.window = 10 * S;
    sat_saturation *s = sat_saturation_create(&o);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_saturation_sink(s);
    /* 5 windows of 10 s; window w answers 20 (w + 1) operations of 0.5 s:
     * X = 2 (w + 1) /s, N = 20 (w + 1) * 0.5 / 10 = (w + 1) */
    for (int w = 0; w < 5; w++)
        for (int i = 0; i < 20 * (w + 1); i++) {
            sat_ldap_op r = op_row(T0 + w * 10 * S + i * (S / 100), S / 2);
            r.ts_ns -= S / 2; /* answered at T0 + ..., asked half a second before */
            r.result_ts_ns -= S / 2;
            CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &r), SAT_OK);
        }
    /* not load: an internal op and a persistent search */
    sat_ldap_op in = op_row(T0 + S, 100 * S);
    in.internal_depth = 1;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &in);
    sat_ldap_op ps = op_row(T0 + S, 100 * S);
    ps.flags = SAT_OPF_PERSISTENT;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ps);
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *root = sat_result_root(r), *pts = sat_get_table(root, "points");
    CHECK_EQ_INT(sat_rnode_count(pts), 5);
    CHECK_EQ_INT(sat_get_count(root, "answered", 0), 300);
    CHECK_EQ_INT(sat_get_count(root, "skipped", 0), 2);
    for (size_t i = 0; i < 5; i++) {
        const sat_rnode *p = rc_row(pts, i);
        CHECK(within(sat_get_num(p, "concurrency", NAN), (double)(i + 1), 1e-9));
        CHECK(within(sat_get_num(p, "throughput", NAN), 2.0 * (double)(i + 1), 1e-9));
        CHECK(within(sat_get_dur(p, "wtime_mean_s", NAN), 0.125, 1e-9));
        CHECK(within(sat_get_dur(p, "optime_mean_s", NAN), 0.375, 1e-9));
        CHECK_EQ_INT(sat_get_bool(p, "used", -1), i < 4); /* the last: 1 s of 10 inside the span */
    }
    CHECK_EQ_INT(sat_get_bool(root, "usl.ok", -1), 0); /* 4 points */
    CHECK(within(sat_get_num(root, "now.concurrency", NAN), 4, 1e-9));
    sat_result_free(r);

    /* measured points added to it make the fit */
    for (int i = 1; i <= 8; i++)
        CHECK_EQ_INT(sat_saturation_add_point(s, i, sat_usl_x(0.1, 0.01, 2, i)), SAT_OK);
    CHECK_EQ_INT(sat_saturation_add_point(s, -1, 3), SAT_E_USAGE);
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    r = result_of(s);
    root = sat_result_root(r);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(root, "points")), 13);
    CHECK_EQ_INT(sat_get_bool(root, "usl.ok", -1), 1);
    sat_result_free(r);
    sat_saturation_free(s);
}

/* test_whatif's mix plus one handshake per operation that failed after the
 * ServerHello: among the handshakes per operation at full cost, not in the
 * resumed share, the same in both mixes (so the change is test_whatif's) */
static void test_whatif_failed_after_sh(void)
{
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    o.cpus = 2;
    o.resumed_share = 0;
    sat_saturation *s = sat_saturation_create(&o);
    if (!s)
        return;
    for (int i = 1; i <= 20; i++)
        sat_saturation_add_point(s, i, sat_usl_x(0.05, 0.002, 1000, i));
    sat_event_sink k = sat_saturation_sink(s);
    for (int i = 0; i < 100; i++) {
        sat_ldap_op r = op_row(T0 + i * S / 10, S / 1000);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &r);
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = T0 + i * S / 10;
        h.outcome = i % 10 ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
        h.outcome = SAT_TLS_FAILED;
        h.server_hello_ts = h.ts + S / 1000;
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
        h.server_hello_ts = 0; /* failed before any ServerHello: no cost, not counted */
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
    }
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *w = sat_get_obj(sat_result_root(r), "whatif");
    CHECK_EQ_INT(sat_get_count(w, "hs_failed_after_server_hello", 0), 100);
    CHECK_EQ_INT(sat_get_count(w, "hs_full", 0), 10);
    CHECK(within(sat_get_num(w, "resumed_share", NAN), 0.9, 1e-9));
    CHECK(within(sat_get_num(w, "hs_per_op", NAN), 2, 1e-9));
    CHECK(within(sat_get_num(w, "whatif_lambda", NAN), 1.0 / (1e-3 + 294.3e-6), 1e-3));
    sat_result_free(r);
    sat_saturation_free(s);
}

static void test_whatif(void)
{
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    o.cpus = 2;
    o.resumed_share = 0;
    sat_saturation *s = sat_saturation_create(&o);
    if (!s)
        return;
    for (int i = 1; i <= 20; i++)
        sat_saturation_add_point(s, i, sat_usl_x(0.05, 0.002, 1000, i));
    /* one handshake per operation, 90% resumed now (over fewer ops than
     * points: the what-if uses the rows' ratio only) */
    sat_event_sink k = sat_saturation_sink(s);
    for (int i = 0; i < 100; i++) {
        sat_ldap_op r = op_row(T0 + i * S / 10, S / 1000);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &r);
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = T0 + i * S / 10;
        h.outcome = i % 10 ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
    }
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *u = sat_get_obj(sat_result_root(r), "usl"),
                    *w = sat_get_obj(sat_result_root(r), "whatif");
    double x_max = sat_get_num(u, "x_max", NAN);
    CHECK_EQ_INT(sat_get_bool(u, "ok", -1), 1);
    CHECK(within(sat_get_num(w, "cpus_x_max", NAN), 2 * x_max, 1e-9));
    CHECK(within(sat_get_num(w, "resumed_share", NAN), 0.9, 1e-9));
    CHECK(within(sat_get_num(w, "hs_per_op", NAN), 1, 1e-9));
    /* 1/lambda = 1 ms; all full adds 0.9 * (330 - 3) us = 294.3 us */
    CHECK(within(sat_get_num(w, "whatif_lambda", NAN), 1.0 / (1e-3 + 294.3e-6), 1e-3));
    CHECK(sat_get_num(w, "whatif_x_max", NAN) < x_max);
    sat_result_free(r);
    sat_saturation_free(s);
}

/* A capture's TLS capacity: 10 s calm (5 connections and handshakes a
 * second, none turned away), then 4 s offered 100 a second of which the
 * server answers 20 a second (full: 16 complete, 4 that the client then
 * failed, a certificate it rejected) and 80 a second are never answered.
 * Sustained: 20 a second against 100 offered, over the 4 saturated seconds:
 * a handshake that failed after the ServerHello was answered at full cost. */
static void test_tls_capacity(void)
{
    sat_saturation *s = sat_saturation_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_saturation_sink(s);
    uint32_t flow = 1;
    for (int sec = 0; sec < 14; sec++) {
        int burst = sec >= 10, n = burst ? 100 : 5, answered = burst ? 20 : 5;
        for (int i = 0; i < n; i++) {
            sat_ts_ns t = T0 + (sat_ts_ns)sec * S + (sat_ts_ns)i * (S / n);
            sat_tcp_conn c;
            memset(&c, 0, sizeof c);
            c.syn_ts = t;
            c.flow = flow;
            c.flags = i < answered ? SAT_TCPF_SYNACK | SAT_TCPF_TLS : SAT_TCPF_SYN_GAVE_UP;
            sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
            if (i < answered) {
                sat_tls_hs h;
                memset(&h, 0, sizeof h);
                h.ts = t + S / 1000;
                h.server_hello_ts = t + S / 500;
                h.flow = flow;
                h.outcome = burst || i % 5 == 0 ? SAT_TLS_FULL : SAT_TLS_RESUMED;
                if (burst && i % 5 == 4)
                    h.outcome = SAT_TLS_FAILED;
                sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
            }
            flow++;
        }
    }
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *c = sat_get_obj(sat_result_root(r), "tls_capacity");
    CHECK_EQ_INT(sat_get_count(c, "offered", 0), 450);
    CHECK_EQ_INT(sat_get_count(c, "gave_up_unanswered", 0), 320);
    CHECK_EQ_INT(sat_get_count(c, "full", 0) + sat_get_count(c, "resumed", 0) +
                     sat_get_count(c, "failed_after_server_hello", 0),
                 130);
    CHECK_EQ_INT(sat_get_count(c, "failed_after_server_hello", 0), 16);
    CHECK_EQ_INT(sat_get_count(c, "resumed", 0), 40);
    CHECK_EQ_INT(sat_get_count(c, "saturated_windows", 0), 4);
    CHECK_EQ_INT(sat_get_time(c, "saturated_first_ts", 0), T0 + 10 * S);
    CHECK_EQ_INT(sat_get_time(c, "saturated_end_ts", 0), T0 + 14 * S);
    CHECK(fabs(sat_get_num(c, "offered_per_s", NAN) - 100.0) < 1e-9);
    CHECK(fabs(sat_get_num(c, "sustained_per_s", NAN) - 20.0) < 1e-9);
    CHECK(fabs(sat_get_num(c, "sustained_full_per_s", NAN) - 20.0) < 1e-9);
    CHECK(fabs(sat_get_dur(c, "cost_per_handshake_s_measured", NAN) - 0.05) < 1e-12);
    CHECK(fabs(sat_get_num(c, "cpu_s_per_s_model", NAN) - 20.0 * SAT_HS_FULL_COST_US_DEFAULT / 1e6) <
          1e-12);
    CHECK(fabs(sat_get_num(c, "peak_per_s", NAN) - 20.0) < 1e-9);
    /* the series: every second of the 14, the last 4 saturated */
    const sat_rnode *win = sat_get_table(c, "windows");
    CHECK_EQ_INT(sat_rnode_count(win), 14);
    CHECK_EQ_INT(sat_get_bool(rc_row(win, 9), "saturated", -1), 0);
    CHECK_EQ_INT(sat_get_bool(rc_row(win, 10), "saturated", -1), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(win, 10), "gave_up_unanswered", 0), 80);
    sat_result_free(r);
    sat_saturation_free(s);
    /* no capture, no capacity */
    s = sat_saturation_create(NULL);
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    r = result_of(s);
    CHECK(sat_get_obj(sat_result_root(r), "tls_capacity") == NULL);
    sat_result_free(r);
    sat_saturation_free(s);
}


/* The tables the text report names for --csv NAME are the result's. */

static void check_csv_tables(const void *a, int (*build)(const void *, sat_result *))
{
    sat_result *r = sat_result_new("saturation");
    CHECK(r && build(a, r) == SAT_OK);
    rc_check_tables(r);
    sat_result_free(r);
}

/* The finished analyzer's result as JSON, CSV (table, NULL: main) or text. */
static char *render(const sat_saturation *a, int as, const char *table)
{
    return rc_render_built("saturation", build_result, a, as, table);
}

/* One row of a made-up mix: operations of growing load over 8 windows of
 * 10 s, and a capture's connections and handshakes in the last ones. */
typedef struct mixrow {
    int kind; /* 0 op, 1 tcp, 2 tls */
    sat_ldap_op op;
    sat_tcp_conn c;
    sat_tls_hs h;
} mixrow;

static size_t make_mix(mixrow *rows, size_t cap)
{
    size_t n = 0;
    for (int w = 0; w < 8; w++)
        for (int i = 0; i < 15 * (w + 1) && n < cap; i++) {
            sat_ts_ns t = T0 + w * 10 * S + i * (S / 20);
            rows[n].kind = 0;
            rows[n].op = op_row(t, (S / 7) * (w + 1) + i * 1000);
            n++;
            if (w >= 6 && i % 3 == 0 && n + 2 <= cap) {
                memset(&rows[n], 0, sizeof rows[n]);
                rows[n].kind = 1;
                rows[n].c.syn_ts = t;
                rows[n].c.flow = (uint32_t)n;
                rows[n].c.flags = i % 2 ? SAT_TCPF_SYN_GAVE_UP : SAT_TCPF_SYNACK | SAT_TCPF_TLS;
                n++;
                memset(&rows[n], 0, sizeof rows[n]);
                rows[n].kind = 2;
                rows[n].h.ts = t + S / 1000;
                rows[n].h.server_hello_ts = t + S / 500;
                rows[n].h.outcome = i % 4 ? SAT_TLS_FULL : SAT_TLS_RESUMED;
                n++;
            }
        }
    return n;
}

static void feed_mix(sat_saturation *s, const mixrow *rows, size_t from, size_t to)
{
    sat_event_sink k = sat_saturation_sink(s);
    for (size_t i = from; i < to; i++) {
        if (rows[i].kind == 0)
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &rows[i].op);
        else if (rows[i].kind == 1)
            sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &rows[i].c);
        else
            sat_sink_emit(&k, SAT_TABLE_TLS_HS, &rows[i].h);
    }
}

/* The result: the conventions' key names, every table as CSV, text within
 * 100 columns. */
static void test_result(void)
{
    static mixrow rows[1200];
    size_t n = make_mix(rows, 1200);
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    o.window = 10 * S;
    o.cpus = 2;
    sat_saturation *s = sat_saturation_create(&o);
    CHECK(s != NULL);
    if (!s)
        return;
    feed_mix(s, rows, 0, n);
    CHECK_EQ_INT(sat_saturation_add_point(s, 3.0, 40.0), SAT_OK);
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    check_csv_tables(s, build_result);
    char *j = render(s, AS_JSON, NULL);
    static const char *const keys[] = {
        "\"schema\": \"satscope/2\",\n  \"command\": \"saturation\"",
        "\"first_ts\": \"2025-06-08T16:26:40.142857142Z\"", "\"window_s\": 10", "\"min_ops\": 10",
        "\"cost_per_handshake\": {\"full_s\": 0.00033, \"resumed_s\": 0.000003}",
        "\"fitted_points\": 9", "\"concurrency_min\": ", "\"now\": {\n    \"concurrency\": ",
        "\"tls_capacity\": {\n    \"step_s\": 1,", "\"peak_ts\": \"2025-06-08T16:27:4",
        "\"windows\": [\n      {\"start_ts\": \"2025-06-08T16:27:40Z\", \"offered\": 7, "
        "\"gave_up_unanswered\": 3, \"client_hellos_unanswered\": 0, \"full\": 5, \"resumed\": 2, "
        "\"failed_after_server_hello\": 0, \"saturated\": true},",
        "{\"start_ts\": \"2025-06-08T16:26:40Z\", \"concurrency\": 0.",
        "{\"start_ts\": null, \"concurrency\": 3, \"throughput\": 40, \"answered\": null, "
        "\"length_s\": null, \"wtime_mean_s\": null, \"optime_mean_s\": null, \"hs_full\": null, "
        "\"hs_resumed\": null, \"used\": true}"};
    for (size_t i = 0; j && i < sizeof keys / sizeof keys[0]; i++) {
        if (!strstr(j, keys[i]))
            printf("missing %s in:\n%s\n", keys[i], j);
        CHECK(strstr(j, keys[i]) != NULL);
    }
    free(j);
    char *c = render(s, AS_CSV, NULL);
    CHECK(c && !strncmp(c, "start_ts,concurrency,throughput,answered,length_s,wtime_mean_s,"
                           "optime_mean_s,hs_full,hs_resumed,used\n2025-06-08T16:26:40Z,", 117));
    CHECK(c && strstr(c, "\n,3,40,,,,,,,true\n"));
    free(c);
    c = render(s, AS_CSV, "tls_capacity.windows");
    CHECK(c && !strncmp(c, "start_ts,offered,gave_up_unanswered,client_hellos_unanswered,full,"
                           "resumed,failed_after_server_hello,saturated\n"
                           "2025-06-08T16:27:40Z,7,3,0,5,2,0,true\n", 148));
    free(c);
    char *t = render(s, AS_TEXT, NULL);
    CHECK(t && strstr(t, "satscope saturation: 540 answered operations, "));
    CHECK(t && strstr(t, ", plus 1 measured point\n"));
    CHECK(t && strstr(t, "What if 2x the CPUs"));
    CHECK(t && !strstr(t, "e-0"));
    for (const char *p = t; p && *p;) {
        size_t len = strcspn(p, "\n");
        CHECK(len <= 100);
        p += len + (p[len] == '\n');
    }
    free(t);
    sat_saturation_free(s);
}

/* Merging the parts of a split input gives one pass's result, byte for byte. */
static void test_merge_equals_one_pass(void)
{
    static mixrow rows[1200];
    size_t n = make_mix(rows, 1200);
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    o.window = 10 * S;
    o.resumed_share = 0.5;
    sat_saturation *one = sat_saturation_create(&o);
    CHECK(one != NULL);
    if (!one)
        return;
    feed_mix(one, rows, 0, n);
    sat_saturation_add_point(one, 2.0, 30.0);
    CHECK_EQ_INT(sat_saturation_finish(one), SAT_OK);
    char *want = render(one, AS_JSON, NULL);
    sat_saturation_free(one);
    for (size_t cut = 0; cut <= n; cut += n / 7) {
        sat_saturation *a = sat_saturation_create(&o), *b = sat_saturation_create(&o);
        CHECK(a && b);
        if (a && b) {
            feed_mix(a, rows, 0, cut);
            feed_mix(b, rows, cut, n);
            sat_saturation_add_point(b, 2.0, 30.0);
            CHECK_EQ_INT(sat_saturation_merge(a, b), SAT_OK);
            CHECK_EQ_INT(sat_saturation_finish(a), SAT_OK);
            char *got = render(a, AS_JSON, NULL);
            CHECK_EQ_STR(got, want);
            free(got);
        }
        sat_saturation_free(a);
        sat_saturation_free(b);
    }
    free(want);
}

int main(void)
{
    test_result();
    test_merge_equals_one_pass();
    test_fit_recovers();
    test_fit_extrapolation();
    test_fit_refuses();
    test_fit_flat();
    test_little();
    test_whatif_failed_after_sh();
    test_whatif();
    test_tls_capacity();
    return CHECK_DONE();
}
