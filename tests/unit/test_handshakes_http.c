/*
 * test_handshakes_http.c - the handshakes HTTP access logs tell of
 * (analyze/handshakes_http.c), from handmade http_req rows: a connection's
 * first request counts its handshake, full or resumed as flagged (a TLS 1.3
 * resumption costed as a PSK one), later requests none; without the
 * request number, requests are counted per request and never as
 * handshakes; a format without the flag says "not logged" and points at a
 * capture; parts merged = one pass; captures' handshakes kept apart.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "result_check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

#define S 1000000000LL
#define T0 (1796143540LL * S)

static sat_http_req mkreq(sat_ts_ns ts, int64_t conn, int64_t nreq, int session)
{
    sat_http_req r;
    memset(&r, 0, sizeof r);
    r.ts = ts;
    r.status = 200;
    r.bytes = 10;
    r.response_time = 1000;
    r.upstream_time = SAT_ABSENT;
    r.conn = conn;
    r.conn_request = nreq;
    r.tls_session = (uint8_t)session;
    r.flags = session ? SAT_HTTPF_TLS : 0;
    r.tls_protocol = session ? sat_str_cstr("TLSv1.2") : SAT_STR_NONE;
    r.client_ip = sat_str_cstr("127.0.0.1");
    r.method = sat_str_cstr("GET");
    r.path = r.path_template = sat_str_cstr("/");
    return r;
}

static sat_source mksrc(const char *format, uint32_t fields)
{
    sat_source s;
    memset(&s, 0, sizeof s);
    s.path = sat_str_cstr("access.log");
    s.kind = sat_str_cstr("log");
    s.format = sat_str_cstr(format);
    s.compression = sat_str_cstr("none");
    s.fields = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE | fields;
    return s;
}

#define F(x) SAT_FIELD_BIT(SAT_FIELD_##x)

static void feed(sat_hs *h, int table, const void *row)
{
    sat_event_sink s = sat_hs_sink(h);
    CHECK(sat_sink_wants(&s, table));
    CHECK_EQ_INT(s.on_row(s.ctx, table, row), SAT_OK);
}

/* Three connections over two windows of 10 s. */
static void feed_rows(sat_hs *h, size_t from, size_t to)
{
    sat_http_req r[6];
    r[0] = mkreq(T0, 5, 1, SAT_HTTP_SESSION_NEW);
    r[1] = mkreq(T0 + S, 5, 2, SAT_HTTP_SESSION_NEW);
    r[2] = mkreq(T0 + 2 * S, 6, 1, SAT_HTTP_SESSION_RESUMED);
    r[3] = mkreq(T0 + 12 * S, 7, 1, SAT_HTTP_SESSION_RESUMED);
    r[3].tls_protocol = sat_str_cstr("TLSv1.3");
    r[4] = mkreq(T0 + 13 * S, 7, 2, SAT_HTTP_SESSION_RESUMED);
    r[5] = mkreq(T0 + 14 * S, 8, 1, SAT_HTTP_SESSION_UNKNOWN); /* plain HTTP */
    for (size_t i = from; i < to; i++)
        feed(h, SAT_TABLE_HTTP_REQ, &r[i]);
}

static char *doc(sat_hs *h, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_result *res = sat_result_new("handshakes");
    int rc = res ? sat_hs_result(h, res) : SAT_E_NOMEM;
    if (rc >= 0 && json) {
        rc = sat_result_json(res, f, &d);
    } else if (rc >= 0) {
        /* the command's text: its sections */
        sat_report *doc = sat_report_sections(res);
        sat_report_render_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.table_rows = SIZE_MAX;
        rc = doc ? sat_report_renderer_for("-")->render(doc, &ro, f, &d) : SAT_E_NOMEM;
        sat_report_free(doc);
    }
    CHECK(rc >= 0);
    sat_result_free(res);
    fclose(f);
    return buf;
}

static int build_result(const void *a, sat_result *r) { return sat_hs_result((const sat_hs *)a, r); }

static void test_first_requests(void)
{
    sat_hs *h = sat_hs_create(NULL);
    sat_source src = mksrc("nginx-custom", F(ETIME) | F(TLS_SESSION) | F(CONN_REQUEST));
    feed(h, SAT_TABLE_SOURCE, &src);
    feed_rows(h, 0, 6);
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *v = sat_result_root(res), *l = sat_get_obj(v, "logs");
    CHECK_EQ_INT(sat_get_count(v, "connections", 99), 0); /* no capture */
    CHECK_EQ_INT(sat_get_count(l, "requests", 0), 6);
    CHECK_EQ_INT(sat_get_count(l, "first_requests", 0), 4);
    CHECK_EQ_INT(sat_get_count(l, "full", 0), 1);
    CHECK_EQ_INT(sat_get_count(l, "resumed", 0), 2);
    CHECK_EQ_INT(sat_get_count(l, "session_not_logged", 0), 1);
    CHECK_EQ_INT(sat_get_count(l, "later_requests", 0), 2);
    CHECK_EQ_INT(sat_get_count(l, "requests_without_number", 99), 0);
    /* full 330 us + resumed 3 us + PSK 60 us (one of the resumed is TLS 1.3's) */
    double cpu = sat_get_dur(l, "cpu_s", NAN);
    CHECK(cpu > 392.9e-6 && cpu < 393.1e-6);
    const sat_rnode *w = sat_get_table(l, "windows");
    CHECK_EQ_INT(sat_rnode_count(w), 2);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 0), "connections", 0), 2);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 1), "resumed", 0), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 1), "connections", 0), 2);
    CHECK_EQ_INT(sat_get_time(rc_row(w, 0), "start_ts", 0), T0 / (10 * S) * 10 * S);
    sat_result_free(res);
    char *j = doc(h, 1);
    CHECK(strstr(j, "\"logs\": {") != NULL);
    CHECK(strstr(j, "\"first_requests\": 4") && strstr(j, "\"full\": 1") &&
          strstr(j, "\"resumed\": 2"));
    CHECK(strstr(j, "\"resumed_ratio\": 0.6667") != NULL);
    free(j);
    char *t = doc(h, 0);
    CHECK(strstr(t, "From the HTTP access logs: 6 requests") != NULL);
    CHECK(strstr(t, "no capture among the inputs") != NULL);
    CHECK(strstr(t, "Counted from each connection's first request") != NULL);
    free(t);
    sat_hs_free(h);
}

/* Tomcat's valve logs no resumption flag: not logged, and why. */
static void test_no_flag(void)
{
    sat_hs *h = sat_hs_create(NULL);
    sat_source src = mksrc("tomcat-custom", F(ETIME));
    feed(h, SAT_TABLE_SOURCE, &src);
    for (int i = 0; i < 3; i++) {
        sat_http_req r = mkreq(T0 + i * S, SAT_ABSENT, SAT_ABSENT, SAT_HTTP_SESSION_UNKNOWN);
        feed(h, SAT_TABLE_HTTP_REQ, &r);
    }
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *l = sat_get_obj(sat_result_root(res), "logs");
    CHECK_EQ_INT(sat_get_count(l, "requests", 0), 3);
    CHECK_EQ_INT(sat_get_count(l, "requests_without_number", 0), 3);
    const sat_rnode *nl = sat_get_row(sat_get_table(l, "not_logged"), "field", "tls_session");
    CHECK(sat_get_bool(nl, "partial", -1) == 0 && sat_get_count(nl, "inputs_without", 0) == 1);
    sat_result_free(res);
    char *j = doc(h, 1);
    CHECK(strstr(j, "\"full\": null") && strstr(j, "\"resumed\": null"));
    CHECK(strstr(j, "\"first_requests\": null") != NULL);
    CHECK(strstr(j, "\"field\": \"tls_session\"") && strstr(j, "\"field\": \"conn_request\""));
    free(j);
    char *t = doc(h, 0);
    CHECK(strstr(t, "does not say whether a TLS session was resumed") != NULL);
    CHECK(strstr(t, "a capture of") != NULL);
    CHECK(strstr(t, "tls_session not logged") != NULL);
    free(t);
    sat_hs_free(h);
}

/* The flag without the request number: requests, not handshakes. */
static void test_per_request(void)
{
    sat_hs *h = sat_hs_create(NULL);
    sat_source src = mksrc("nginx-custom", F(ETIME) | F(TLS_SESSION));
    feed(h, SAT_TABLE_SOURCE, &src);
    for (int i = 0; i < 4; i++) {
        sat_http_req r = mkreq(T0 + i * S, SAT_ABSENT, SAT_ABSENT,
                               i ? SAT_HTTP_SESSION_RESUMED : SAT_HTTP_SESSION_NEW);
        feed(h, SAT_TABLE_HTTP_REQ, &r);
    }
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *l = sat_get_obj(sat_result_root(res), "logs");
    CHECK(sat_get_count(l, "first_requests", 0) == 0);
    CHECK_EQ_INT(sat_get_count(l, "on_new_session", 0), 1);
    CHECK_EQ_INT(sat_get_count(l, "on_resumed_session", 0), 3);
    sat_result_free(res);
    char *j = doc(h, 1);
    CHECK(strstr(j, "\"full\": null") && strstr(j, "\"on_resumed_session\": 3"));
    CHECK(strstr(j, "\"counted\": \"Counted per request") != NULL);
    free(j);
    sat_hs_free(h);
}

static void test_merge(void)
{
    for (size_t cut = 0; cut <= 6; cut++) {
        sat_hs *one = sat_hs_create(NULL), *a = sat_hs_create(NULL), *b = sat_hs_create(NULL);
        feed_rows(one, 0, 6);
        feed_rows(a, 0, cut);
        feed_rows(b, cut, 6);
        CHECK_EQ_INT(sat_hs_merge(a, b), SAT_OK);
        CHECK_EQ_INT(sat_hs_finish(one), SAT_OK);
        CHECK_EQ_INT(sat_hs_finish(a), SAT_OK);
        char *x = doc(one, 1), *y = doc(a, 1);
        CHECK(x && y && !strcmp(x, y));
        free(x);
        free(y);
        sat_hs_free(one);
        sat_hs_free(a);
        sat_hs_free(b);
    }
}

/* A capture's handshake and a log's: each in its own place. */
static void test_beside_capture(void)
{
    sat_hs *h = sat_hs_create(NULL);
    sat_tls_hs hs;
    memset(&hs, 0, sizeof hs);
    hs.ts = T0;
    hs.outcome = SAT_TLS_FULL;
    hs.version = 0x0303;
    hs.duration = SAT_ABSENT;
    hs.client_ip = sat_str_cstr("127.0.0.1");
    hs.server_ip = sat_str_cstr("127.0.0.1");
    feed(h, SAT_TABLE_TLS_HS, &hs);
    feed_rows(h, 0, 6);
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "connections", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "full", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "logs.full", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "logs.resumed", 0), 2);
    sat_result_free(res);
    char *t = doc(h, 0);
    CHECK(strstr(t, "satscope handshakes: 1 TLS connection") &&
          strstr(t, "From the HTTP access logs"));
    free(t);
    sat_hs_free(h);
}

int main(void)
{
    test_first_requests();
    test_no_flag();
    test_per_request();
    test_merge();
    test_beside_capture();
    return CHECK_DONE();
}
