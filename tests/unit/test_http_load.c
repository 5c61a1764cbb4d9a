/*
 * test_http_load.c - the load analyzers on HTTP requests (http_req rows, fed
 * synthetic here; the fixtures' logs are golden cases): storms (statuses 408
 * 499 502 503 504 and slow answers as client failures, the load, connections
 * opened from first requests and their handshakes, the slow threshold, a
 * merge of parts equal to one pass, LDAP documents without the HTTP columns),
 * saturation (Little's law and the USL fit on requests) and timeline
 * (requests by method and status class, errors, response-time percentiles,
 * concurrency).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/fields.h"
#include "satscope/report.h"
#include "result_check.h"

#define S ((sat_ts_ns)1000000000)
#define MS ((sat_ts_ns)1000000)
static const sat_ts_ns T0 = 1796143500 * S;

static sat_http_req req_row(sat_ts_ns ts, int status, sat_dur_ns rt, const char *client)
{
    sat_http_req r;
    memset(&r, 0, sizeof r);
    r.ts = ts;
    r.status = status;
    r.bytes = 100;
    r.response_time = rt;
    r.upstream_time = SAT_ABSENT;
    r.conn = SAT_ABSENT;
    r.conn_request = SAT_ABSENT;
    r.client_ip = sat_str_cstr(client);
    r.method = sat_str_cstr("GET");
    r.path = r.path_template = sat_str_cstr("/x");
    r.protocol = sat_str_cstr("HTTP/1.1");
    return r;
}

/* The result's JSON, or its text as the command prints it (result_check.h). */
static char *render(const sat_analyzer *an, const void *obj, int text)
{
    sat_result *r = sat_result_new(an->name);
    char *buf = r && an->result(obj, r) == SAT_OK ? rc_render(r, text ? AS_TEXT : AS_JSON, NULL)
                                                 : NULL;
    sat_result_free(r);
    return buf;
}

/* ---- storms ------------------------------------------------------------------------ */

static int storms_build(const void *s, sat_result *r)
{
    return sat_storms_result((const sat_storms *)s, r);
}

/* Failures of a kind in a storms result (0: none seen). */
static uint64_t storms_kind(const sat_rnode *root, const char *kind)
{
    return sat_get_count(sat_get_row(sat_get_table(root, "failures"), "kind", kind), "events", 0);
}

/* 10 minutes at 10 requests a second from 5 clients, 20 ms each; a new
 * connection every 5th request (resumed), from 300 s to 360 s 25 a second: a
 * rate limit turning 4 a second away (503), 1 a second answered in 1.5 s (slow), and
 * from 330 s every new connection a full handshake; scattered 404s (not
 * failures) and a few 499s and 504s in the storm. Rows go to `k` when their
 * index modulo `parts` is `part` (parts of one pass, for the merge). */
static void feed_http_storm(sat_event_sink *k, int part, int parts)
{
    static const char *const clients[] = {"10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4",
                                          "10.1.0.5"};
    size_t i = 0;
    int64_t conn = 1;
    for (int t = 0; t < 600; t++) {
        int storm = t >= 300 && t < 360;
        for (int j = 0; j < 10 + (storm ? 15 : 0); j++, i++) {
            int status = j == 3 && t % 20 == 0 ? 404 : 200;
            sat_dur_ns rt = 20 * MS;
            if (storm && j >= 10 && j < 14)
                status = 503, rt = 0;
            if (storm && j == 14)
                rt = 1500 * MS;
            if (storm && j == 0 && t % 15 == 0)
                status = t % 30 ? 499 : 504, rt = 2 * S;
            sat_http_req r = req_row(T0 + t * S + j * (S / 16), status, rt, clients[j % 5]);
            if (j % 5 == 0) {
                r.conn = conn++;
                r.conn_request = 1;
                r.tls_session = t >= 330 && t < 360 ? SAT_HTTP_SESSION_NEW
                                                    : SAT_HTTP_SESSION_RESUMED;
                r.flags |= SAT_HTTPF_TLS;
            } else {
                r.conn_request = 2;
            }
            if ((int)(i % (size_t)parts) == part)
                sat_sink_emit(k, SAT_TABLE_HTTP_REQ, &r);
        }
    }
}

static void test_storms_http(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    CHECK(sat_sink_wants(&k, SAT_TABLE_HTTP_REQ));
    feed_http_storm(&k, 0, 1);
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *res = rc_result("storms", storms_build, s);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "rows_read.http_req", 0), 600 * 10 + 60 * 15);
    CHECK_EQ_INT(storms_kind(v, "http_503"), 60 * 4);
    CHECK_EQ_INT(storms_kind(v, "http_499"), 2); /* t = 315, 345 */
    CHECK_EQ_INT(storms_kind(v, "http_504"), 2); /* t = 300, 330 */
    CHECK_EQ_INT(storms_kind(v, "slow"), 60);    /* 1.5 s >= 1 s */
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 240 + 4 + 60);
    CHECK(sat_get_dur(v, "slow_s", NAN) == (double)SAT_STORMS_SLOW_DEFAULT / 1e9);
    const sat_rnode *storms = sat_get_table(v, "storms");
    CHECK_EQ_INT(sat_rnode_count(storms), 1);
    if (sat_rnode_count(storms) == 1) {
        const sat_rnode *st = sat_rnode_first(storms);
        /* failures dated at the answer's end: the storm starts at 300 s */
        CHECK_EQ_INT(sat_get_time(st, "start_ts", 0), T0 + 300 * S);
        CHECK(sat_get_time(st, "end_ts", 0) >= T0 + 360 * S &&
              sat_get_time(st, "end_ts", 0) <= T0 + 370 * S);
        CHECK_EQ_INT(sat_get_count(st, "events", 0), 304);
        CHECK_EQ_INT(sat_get_count(st, "client_count", 0), 5);
        /* 25 a second against 10 */
        CHECK_EQ_INT(sat_get_bool(sat_get_row(sat_get_table(v, "signals"), "signal_name", "ops"),
                                  "rose", 0),
                     1);
        const char *trig = sat_get_text(st, "trigger.signal_name", "");
        CHECK_EQ_STR(trig, "ops");
        CHECK(sat_get_count(st, "handshakes", 0) > 0 &&
              sat_get_count(st, "full_handshakes", 0) > 0);
        /* connections opened: 5 a second during it (every 5th request) */
        uint64_t co = sat_get_count(st, "conn_opens", 0);
        CHECK(co >= 5 * 60 && co <= 5 * 60 + 2 * 10);
    }
    uint64_t reqs = 0, opens = 0;
    for (const sat_rnode *w = sat_rnode_first(sat_get_table(v, "windows")); w;
         w = sat_rnode_next(w)) {
        reqs += sat_get_count(w, "http_requests", 0);
        opens += sat_get_count(w, "conn_opens", 0);
        CHECK_EQ_INT(sat_get_count(w, "ldap_ops", 1), 0); /* no LDAP operation */
    }
    CHECK_EQ_INT(reqs, sat_get_count(v, "rows_read.http_req", 0));
    CHECK_EQ_INT(opens, 600 * 2 + 60 * 3);
    sat_result_free(res);

    const sat_analyzer *an = sat_analyzer_find("storms");
    char *j = render(an, s, 0), *t = render(an, s, 1);
    CHECK(j && strstr(j, "\"http_503\": 240, \"http_504\": 2, \"slow\": 60}"));
    CHECK(j && strstr(j, "\"http_req\": 6900"));
    CHECK(j && strstr(j, "\"slow_s\": 1,"));
    CHECK(j && strstr(j, "\"http_requests\": "));
    /* the failures by kind, most first: the storm's, then every one's with their meaning */
    CHECK(t && strstr(t, "\n  kinds       240 service unavailable answers (HTTP 503), 60 slow answers "));
    const char *tot = t ? strstr(t, "\nClient failures: 304\n") : NULL;
    const char *k503 = tot ? strstr(tot, "\n  http_503       240") : NULL;
    const char *kslow = k503 ? strstr(k503, "\n  slow            60") : NULL;
    const char *k499 = kslow ? strstr(kslow, "\n  http_499         2") : NULL;
    CHECK(k499 && strstr(k499, "\n  http_504         2  0.658%  gateway timeouts (HTTP 504)\n"));
    CHECK(t && strstr(t, "HTTP: 6900 requests read; failures: statuses 408, 499, 502, 503, "));
    CHECK(t && !strstr(t, "Rows read:")); /* no LDAP, TLS or TCP row: not said */
    CHECK(t && strstr(t, "\n  trigger     requests: the first cause to rise;"));
    if (t && !strstr(t, "\n  trigger     requests: the first cause to rise;"))
        fprintf(stderr, "%s", t);

    /* merged parts (rows dealt round-robin: every window cut) = one pass */
    sat_storms *a = sat_storms_create(NULL), *b = sat_storms_create(NULL),
               *c = sat_storms_create(NULL);
    sat_event_sink ka = sat_storms_sink(a), kb = sat_storms_sink(b), kc = sat_storms_sink(c);
    feed_http_storm(&ka, 0, 3);
    feed_http_storm(&kb, 1, 3);
    feed_http_storm(&kc, 2, 3);
    CHECK_EQ_INT(sat_storms_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_storms_merge(a, c), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(a), SAT_OK);
    char *jm = render(an, a, 0);
    CHECK(j && jm && strlen(j) > 1000);
    if (j && jm)
        CHECK_EQ_STR(jm, j);
    free(jm);
    sat_storms_free(a);
    sat_storms_free(b);
    sat_storms_free(c);
    free(j);
    free(t);
    sat_storms_free(s);
}

/* The slow threshold: a longer one takes fewer, "never" none; analyzers with
 * different thresholds do not merge. */
static void test_storms_slow_option(void)
{
    static const sat_dur_ns th[] = {0, 500 * MS, 2 * S, -1};
    static const uint64_t slow[] = {60, 60, 0, 0};
    static const uint64_t n504[] = {2, 2, 2, 2};
    for (size_t i = 0; i < 4; i++) {
        sat_storms_opts o;
        memset(&o, 0, sizeof o);
        o.slow = th[i];
        sat_storms *s = sat_storms_create(&o);
        sat_event_sink k = sat_storms_sink(s);
        feed_http_storm(&k, 0, 1);
        /* answered in 600 ms: slow only past a 500 ms threshold */
        sat_http_req r = req_row(T0 + 100 * S, 200, 600 * MS, "10.1.0.9");
        sat_sink_emit(&k, SAT_TABLE_HTTP_REQ, &r);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *res = rc_result("storms", storms_build, s);
        const sat_rnode *v = sat_result_root(res);
        CHECK_EQ_INT(storms_kind(v, "slow"), slow[i] + (i == 1));
        CHECK_EQ_INT(storms_kind(v, "http_504"), n504[i]); /* a status wins over slow */
        sat_result_free(res);
        sat_storms_free(s);
    }
    sat_storms_opts o1, o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    o2.slow = 5 * S;
    sat_storms *a = sat_storms_create(&o1), *b = sat_storms_create(&o2);
    CHECK_EQ_INT(sat_storms_merge(a, b), SAT_E_USAGE);
    sat_storms_free(a);
    sat_storms_free(b);
}

/* A document of LDAP rows only has none of the HTTP columns and values. */
static void test_storms_ldap_unchanged(void)
{
    sat_storms *s = sat_storms_create(NULL);
    sat_event_sink k = sat_storms_sink(s);
    for (int t = 0; t < 100; t++) {
        sat_ldap_op o;
        memset(&o, 0, sizeof o);
        o.ts_ns = o.result_ts_ns = T0 + t * S;
        o.conn = t;
        o.type = SAT_OP_SRCH;
        o.err = t % 10 ? 0 : 51;
        o.etime = MS;
        o.wtime = o.optime = SAT_ABSENT;
        o.client_ip = sat_str_cstr("10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    }
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = sat_result_new("storms");
    CHECK_EQ_INT(sat_storms_result(s, r), SAT_OK);
    size_t nc = 0, kinds = 0;
    const sat_col *cols = sat_table_cols(sat_rnode_get(sat_result_root(r), "storms"), &nc);
    for (size_t i = 0; i < nc; i++) {
        kinds += !strncmp(cols[i].name, "kinds.", 6);
        CHECK(!strstr(cols[i].name, "http") && !strstr(cols[i].name, "slow"));
    }
    CHECK_EQ_INT(kinds, SAT_STORM_KIND_HTTP_FIRST);
    cols = sat_table_cols(sat_rnode_get(sat_result_root(r), "windows"), &nc);
    for (size_t i = 0; i < nc; i++)
        CHECK(!strstr(cols[i].name, "http"));
    CHECK(!sat_rnode_get(sat_result_root(r), "slow_s"));
    CHECK(!sat_rnode_get(sat_result_root(r), "rows_read.http_req"));
    sat_result_free(r);
    char *j = render(sat_analyzer_find("storms"), s, 0);
    CHECK(j && strstr(j, "{\"kind\": \"busy\", \"events\": 10,"));
    CHECK(j && !strstr(j, "http") && !strstr(j, "slow"));
    free(j);
    sat_storms_free(s);
}

/* ---- saturation ---------------------------------------------------------------------- */

/* A closed system: level n (1..8, two minutes each) has n clients sending
 * requests back to back, each answered in R(n) = (1 + sigma (n-1) + kappa n
 * (n-1)) / lambda: the throughput of the law, X(n) = n / R(n). Rows to `k`
 * when their index modulo parts is part. */
static void feed_usl(sat_event_sink *k, int part, int parts, size_t *rows)
{
    const double lambda = 20.0, sigma = 0.05, kappa = 0.02;
    size_t i = 0;
    for (int n = 1; n <= 8; n++) {
        sat_ts_ns lo = T0 + (sat_ts_ns)(n - 1) * 120 * S, hi = lo + 120 * S;
        sat_dur_ns rt = (sat_dur_ns)llround(
            (1.0 + sigma * (n - 1) + kappa * n * (n - 1)) / lambda * 1e9);
        for (int c = 0; c < n; c++) {
            char ip[32];
            snprintf(ip, sizeof ip, "10.2.0.%d", c);
            for (sat_ts_ns ts = lo + c * MS; ts + rt <= hi; ts += rt, i++) {
                sat_http_req r = req_row(ts, i % 50 ? 200 : 503, rt, ip);
                if ((int)(i % (size_t)parts) == part)
                    sat_sink_emit(k, SAT_TABLE_HTTP_REQ, &r);
            }
        }
    }
    if (rows)
        *rows = i;
}

static void test_saturation_http(void)
{
    sat_saturation *s = sat_saturation_create(NULL);
    sat_event_sink k = sat_saturation_sink(s);
    CHECK(sat_sink_wants(&k, SAT_TABLE_HTTP_REQ));
    size_t rows = 0;
    feed_usl(&k, 0, 1, &rows);
    CHECK_EQ_INT(sat_saturation_finish(s), SAT_OK);
    sat_result *res = rc_result("saturation", sat_analyzer_find("saturation")->result, s);
    const sat_rnode *root = sat_result_root(res), *pts = sat_get_table(root, "points");
    CHECK_EQ_INT(sat_get_count(root, "answered", 0), rows);
    CHECK_EQ_INT(sat_get_count(root, "http_requests", 0), rows);
    CHECK_EQ_INT(sat_get_count(root, "timed", 0), rows);
    CHECK_EQ_INT(sat_rnode_count(pts), 16);
    /* every window of level n: N = n within a request's share of the edges */
    size_t p = 0;
    for (const sat_rnode *row = sat_rnode_first(pts); row; row = sat_rnode_next(row), p++) {
        double n = (double)(p / 2 + 1);
        CHECK(fabs(sat_get_num(row, "concurrency", NAN) - n) < 0.05 * n);
    }
    CHECK_EQ_INT(sat_get_bool(root, "usl.ok", -1), 1);
    CHECK(fabs(sat_get_num(root, "usl.sigma", NAN) - 0.05) < 0.01);
    CHECK(fabs(sat_get_num(root, "usl.kappa", NAN) - 0.02) < 0.004);
    CHECK(fabs(sat_get_num(root, "usl.lambda", NAN) - 20.0) < 1.0);
    CHECK(!sat_get_has(root, "wtime_mean_s")); /* HTTP logs have no queue wait */
    sat_result_free(res);

    const sat_analyzer *an = sat_analyzer_find("saturation");
    char *j = render(an, s, 0), *t = render(an, s, 1);
    char want[128];
    snprintf(want, sizeof want, "\"answered\": %zu,\n  \"http_requests\": %zu,", rows, rows);
    CHECK(j && strstr(j, want));
    snprintf(want, sizeof want, "satscope saturation: %zu answered requests, ", rows);
    CHECK(t && strstr(t, want));
    CHECK(t && strstr(t, "  X = HTTP requests answered per second (every status"));
    CHECK(t && strstr(t, " req/s ") && !strstr(t, "ops/s") && !strstr(t, "wtime"));
    if (getenv("DUMP"))
        fprintf(stderr, "%s", t);

    sat_saturation *a = sat_saturation_create(NULL), *b = sat_saturation_create(NULL);
    sat_event_sink ka = sat_saturation_sink(a), kb = sat_saturation_sink(b);
    feed_usl(&ka, 0, 2, NULL);
    feed_usl(&kb, 1, 2, NULL);
    CHECK_EQ_INT(sat_saturation_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_saturation_finish(a), SAT_OK);
    char *jm = render(an, a, 0);
    CHECK(j && jm);
    if (j && jm)
        CHECK_EQ_STR(jm, j);
    free(jm);
    free(j);
    free(t);
    sat_saturation_free(a);
    sat_saturation_free(b);
    sat_saturation_free(s);
}

/* A log whose format has no response time nor connection numbers (nginx
 * combined): said, and its requests count in X only. */
static void test_format_without_times(void)
{
    sat_storms *st = sat_storms_create(NULL);
    sat_saturation *sa = sat_saturation_create(NULL);
    sat_event_sink ks = sat_storms_sink(st), ka = sat_saturation_sink(sa);
    for (int t = 0; t < 600; t++) {
        sat_http_req r = req_row(T0 + t * S, t % 7 ? 200 : 503, SAT_ABSENT, "10.4.0.1");
        sat_sink_emit(&ks, SAT_TABLE_HTTP_REQ, &r);
        sat_sink_emit(&ka, SAT_TABLE_HTTP_REQ, &r);
    }
    sat_source src;
    memset(&src, 0, sizeof src);
    src.path = sat_str_cstr("access.log");
    src.kind = sat_str_cstr("log");
    src.format = sat_str_cstr("nginx-combined");
    src.fields = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE;
    src.first_ts = T0;
    src.last_ts = T0 + 599 * S;
    sat_sink_emit(&ks, SAT_TABLE_SOURCE, &src);
    sat_sink_emit(&ka, SAT_TABLE_SOURCE, &src);
    CHECK_EQ_INT(sat_storms_finish(st), SAT_OK);
    CHECK_EQ_INT(sat_saturation_finish(sa), SAT_OK);
    sat_result *res = rc_result("storms", storms_build, st);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "http_inputs.count", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "http_inputs.without_response_time", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "http_inputs.without_connection_requests", 0), 1);
    CHECK_EQ_INT(storms_kind(v, "http_503"), 86);
    sat_result_free(res);
    char *t = render(sat_analyzer_find("storms"), st, 1);
    CHECK(t && strstr(t, "  1 of 1 HTTP input logs no response time (as nginx combined, "));
    CHECK(t && strstr(t, "  1 of 1 HTTP input logs no request number on the connection "));
    free(t);
    res = rc_result("saturation", sat_analyzer_find("saturation")->result, sa);
    CHECK_EQ_INT(sat_get_count(sat_result_root(res), "answered", 0), 600);
    CHECK_EQ_INT(sat_get_count(sat_result_root(res), "timed", 0), 0);
    CHECK_EQ_INT(sat_get_count(sat_result_root(res), "http_inputs.without_response_time", 0), 1);
    sat_result_free(res);
    t = render(sat_analyzer_find("saturation"), sa, 1);
    CHECK(t && strstr(t, "  600 requests had no response time logged: counted in X, not in N."));
    CHECK(t && strstr(t, "  1 of 1 HTTP input logs no response time (as nginx combined, "));
    if (getenv("DUMP"))
        fprintf(stderr, "%s", t);
    free(t);
    sat_storms_free(st);
    sat_saturation_free(sa);
}

/* ---- timeline ------------------------------------------------------------------------ */

/* 300 s, 4 requests a second: GET, GET, POST and a HEAD every 4th second
 * (else DELETE); statuses 200, 200, 201, and 503 during 100 .. 109 s (else
 * 404); response time 10 ms, 100 ms during 100 .. 109 s; one request with no
 * request line (a 400) and one with no time. */
static void feed_timeline(sat_event_sink *k, int part, int parts)
{
    size_t i = 0;
    for (int t = 0; t < 300; t++)
        for (int j = 0; j < 4; j++, i++) {
            int hot = t >= 100 && t < 110;
            int status = j < 2 ? 200 : j == 2 ? 201 : hot ? 503 : 404;
            sat_http_req r = req_row(T0 + t * S + j * (S / 4), status, hot ? 100 * MS : 10 * MS,
                                     "10.3.0.1");
            r.method = sat_str_cstr(j < 2 ? "GET" : j == 2 ? "POST" : t % 4 ? "DELETE" : "HEAD");
            if ((int)(i % (size_t)parts) == part)
                sat_sink_emit(k, SAT_TABLE_HTTP_REQ, &r);
        }
    sat_http_req r = req_row(T0 + 50 * S, 400, 0, "10.3.0.2");
    r.method = r.path = r.path_template = r.protocol = SAT_STR_NONE;
    r.flags = SAT_HTTPF_NO_REQUEST_LINE;
    if ((int)(i++ % (size_t)parts) == part)
        sat_sink_emit(k, SAT_TABLE_HTTP_REQ, &r);
    r = req_row(0, SAT_ABSENT, SAT_ABSENT, "10.3.0.2");
    if ((int)(i++ % (size_t)parts) == part)
        sat_sink_emit(k, SAT_TABLE_HTTP_REQ, &r);
}

static const sat_rnode *row_at(const sat_rnode *tab, sat_ts_ns ts)
{
    for (const sat_rnode *r = sat_rnode_first(tab); r; r = sat_rnode_next(r))
        if (sat_row_get(r, "start_ts")->v.i == ts)
            return r;
    return NULL;
}

static uint64_t u(const sat_rnode *o, const char *key)
{
    const sat_value *v = o ? (sat_rnode_get(o, key) ? sat_rnode_val(o, key) : sat_row_get(o, key))
                           : NULL;
    return v && !v->absent ? v->v.u : UINT64_MAX;
}

static void test_timeline_http(void)
{
    sat_timeline *tl = sat_timeline_create(NULL);
    sat_event_sink k = sat_timeline_sink(tl);
    CHECK(sat_sink_wants(&k, SAT_TABLE_HTTP_REQ));
    feed_timeline(&k, 0, 1);
    CHECK_EQ_INT(sat_timeline_finish(tl), SAT_OK);
    sat_result *r = sat_result_new("timeline");
    CHECK_EQ_INT(sat_timeline_result(tl, r), SAT_OK);
    const sat_rnode *root = sat_result_root(r);
    CHECK_EQ_INT(u(root, "operations"), 0);
    CHECK_EQ_INT(u(root, "requests"), 1202);
    CHECK_EQ_INT(u(root, "request_errors"), 300 + 1); /* 404 and 503, the 400 */
    CHECK_EQ_INT(u(root, "requests_timed"), 1201);
    CHECK_EQ_INT(u(root, "requests_undated"), 1);
    CHECK_EQ_INT(u(root, "requests_by_method.GET"), 601); /* with the one without time */
    CHECK_EQ_INT(u(root, "requests_by_method.POST"), 300);
    CHECK_EQ_INT(u(root, "requests_by_method.HEAD"), 75);
    CHECK_EQ_INT(u(root, "requests_by_method.DELETE"), 225);
    CHECK_EQ_INT(u(root, "requests_by_method.none"), 1); /* the 400 */
    CHECK_EQ_INT(u(root, "status_classes.2xx"), 900);
    CHECK_EQ_INT(u(root, "status_classes.4xx"), 291);
    CHECK_EQ_INT(u(root, "status_classes.5xx"), 10);
    CHECK_EQ_INT(u(root, "status_classes.other"), 1);
    const sat_rnode *win = sat_rnode_get(root, "windows");
    CHECK_EQ_INT(sat_table_window(win), 1 * S);
    const sat_rnode *w = row_at(win, T0 + 105 * S), *q = row_at(win, T0 + 200 * S);
    CHECK(w && q);
    CHECK_EQ_INT(u(w, "count"), 4);
    CHECK_EQ_INT(u(w, "requests"), 4);
    CHECK_EQ_INT(u(w, "errors"), 1);
    CHECK_EQ_INT(u(w, "status.5xx"), 1);
    CHECK_EQ_INT(u(w, "methods.DELETE"), 1);
    CHECK_EQ_INT(u(q, "status.4xx"), 1);
    CHECK_EQ_INT(u(q, "methods.HEAD"), 1);
    /* Little's law: 4 x 100 ms in one second; 4 x 10 ms */
    CHECK(w && fabs(sat_row_get(w, "concurrency")->v.d - 0.4) < 1e-9);
    CHECK(q && fabs(sat_row_get(q, "concurrency")->v.d - 0.04) < 1e-9);
    CHECK(w && fabs(sat_row_get(w, "p50_s")->v.d - 0.1) < 1e-9); /* all equal: exact */
    sat_result_free(r);

    const sat_analyzer *an = sat_analyzer_find("timeline");
    char *j = render(an, tl, 0), *t = render(an, tl, 1);
    CHECK(t && strstr(t, "satscope timeline: 1202 HTTP requests, 2026-12-01T16:45:00Z .. "));
    CHECK(t && strstr(t, "  by method: GET 601, HEAD 75, POST 300, DELETE 225, none 1\n"));
    CHECK(t && strstr(t, "  by status: other 1, 2xx 900, 4xx 291, 5xx 10\n"));
    CHECK(t && strstr(t, "Busiest 1.00 s windows (most requests first)"));
    CHECK(j && strstr(j, "{\"op\": \"HTTP\", "));
    if (getenv("DUMP"))
        fprintf(stderr, "%s", t);
    for (int parts = 2; parts <= 3; parts++) {
        sat_timeline *p[3];
        for (int i = 0; i < parts; i++) {
            p[i] = sat_timeline_create(NULL);
            sat_event_sink kp = sat_timeline_sink(p[i]);
            feed_timeline(&kp, i, parts);
        }
        for (int i = 1; i < parts; i++)
            CHECK_EQ_INT(sat_timeline_merge(p[0], p[i]), SAT_OK);
        CHECK_EQ_INT(sat_timeline_finish(p[0]), SAT_OK);
        char *jm = render(an, p[0], 0);
        CHECK(j && jm);
        if (j && jm)
            CHECK_EQ_STR(jm, j);
        free(jm);
        for (int i = 0; i < parts; i++)
            sat_timeline_free(p[i]);
    }
    free(j);
    free(t);
    sat_timeline_free(tl);
}

int main(void)
{
    test_storms_http();
    test_storms_slow_option();
    test_storms_ldap_unchanged();
    test_saturation_http();
    test_format_without_times();
    test_timeline_http();
    return CHECK_DONE();
}
