/*
 * test_etime_http.c - the etime analyzer on HTTP requests (analyze/etime_http.c)
 * fed handmade http_req rows through its sink, no parser: every request
 * counted (all.count), path templates as the default groups (/item/1234?x=1
 * and /item/99 one group), errors = statuses >= 400, every status by code,
 * response-time percentiles, upstream time only where logged, --by status /
 * client / method / minute, "not logged" when the format has no response
 * time (fields.h), capped groups with "(other)", a long span's series
 * bounded, halves merged = one pass (JSON and text), and requests kept
 * apart from a directory's operations in one input set.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

#define S 1000000000LL
#define MS 1000000LL
#define T0 (1796143544LL * S) /* 2026-12-01T16:45:44Z */

static sat_http_req mkreq(sat_ts_ns ts, const char *method, const char *path,
                          const char *tmpl, int32_t status, sat_dur_ns rt)
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
    r.client_ip = sat_str_cstr("127.0.0.1");
    r.method = method ? sat_str_cstr(method) : SAT_STR_NONE;
    r.path = path ? sat_str_cstr(path) : SAT_STR_NONE;
    r.path_template = tmpl ? sat_str_cstr(tmpl) : SAT_STR_NONE;
    r.protocol = method ? sat_str_cstr("HTTP/1.1") : SAT_STR_NONE;
    if (!method)
        r.flags |= SAT_HTTPF_NO_REQUEST_LINE;
    return r;
}

static sat_source mksrc(uint32_t id, const char *format, uint32_t fields)
{
    sat_source s;
    memset(&s, 0, sizeof s);
    s.id = id;
    s.path = sat_str_cstr(id ? "access-2.log" : "access.log");
    s.kind = sat_str_cstr("log");
    s.format = sat_str_cstr(format);
    s.compression = sat_str_cstr("none");
    s.lines = 10;
    s.fields = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE | fields;
    return s;
}

#define F(x) SAT_FIELD_BIT(SAT_FIELD_##x)

static void feed(sat_etime *e, int table, const void *row)
{
    sat_event_sink s = sat_etime_sink(e);
    CHECK(sat_sink_wants(&s, table));
    CHECK_EQ_INT(s.on_row(s.ctx, table, row), SAT_OK);
}

/* The six requests of the first test, in log order. */
static void feed_six(sat_etime *e, size_t from, size_t to)
{
    sat_http_req r[6];
    r[0] = mkreq(T0, "GET", "/item/1234?x=1", "/item/{n}", 200, 10 * MS);
    r[0].conn = 2;
    r[0].conn_request = 1;
    r[0].tls_session = SAT_HTTP_SESSION_NEW;
    r[0].flags |= SAT_HTTPF_TLS;
    r[1] = mkreq(T0 + 1 * S, "GET", "/item/99", "/item/{n}", 404, 2 * MS);
    r[1].conn = 2;
    r[1].conn_request = 2;
    r[1].flags |= SAT_HTTPF_TLS;
    r[2] = mkreq(T0 + 2 * S, "POST", "/login", "/login", 200, 100 * MS);
    r[2].client_ip = sat_str_cstr("10.0.0.2");
    r[2].conn_request = 1;
    r[3] = mkreq(T0 + 61 * S, "GET", "/busy", "/busy", 503, 1 * MS);
    r[3].conn_request = 1;
    r[4] = mkreq(T0 + 62 * S, NULL, NULL, NULL, 400, 0);
    r[5] = mkreq(T0 + 63 * S, "GET", "/odd", "/odd", 1500, SAT_ABSENT);
    for (size_t i = from; i < to; i++)
        feed(e, SAT_TABLE_HTTP_REQ, &r[i]);
}

static char *doc(sat_etime *e, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_result *res = sat_result_new("etime");
    int rc = res ? sat_etime_result(e, res) : SAT_E_NOMEM;
    if (rc >= 0 && json) {
        rc = sat_result_json(res, f, &d);
    } else if (rc >= 0) {
        /* the command's text, fitted and --wide */
        for (int wide = 0; wide <= 1; wide++) {
            char *t = rc_render(res, wide ? AS_TEXT_WIDE : AS_TEXT, NULL);
            if (!t)
                rc = SAT_E_NOMEM;
            else
                fputs(t, f);
            free(t);
        }
    }
    CHECK(rc >= 0);
    sat_result_free(res);
    fclose(f);
    return buf;
}

static int build_etime(const void *e, sat_result *r)
{
    return sat_etime_result((const sat_etime *)e, r);
}

/* The row of a table whose column col is key. */
static const sat_rnode *row_of(const sat_rnode *table, const char *col, const char *key)
{
    return sat_get_row(table, col, key);
}

/* Requests of a status (-1: those past 999, an absent status). */
static uint64_t status_count(const sat_rnode *root, int code)
{
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "statuses")); r;
         r = sat_rnode_next(r))
        if (sat_get_int(r, "status", -1) == code)
            return sat_get_count(r, "count", 0);
    return 0;
}

static double num(const sat_rnode *n, const char *path) { return sat_get_num(n, path, NAN); }
static uint64_t cnt(const sat_rnode *n, const char *path) { return sat_get_count(n, path, UINT64_MAX); }

static void test_counts(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_source src = mksrc(0, "nginx-custom", F(ETIME) | F(CONN_REQUEST) | F(TLS_SESSION));
    feed(e, SAT_TABLE_SOURCE, &src);
    feed_six(e, 0, 6);
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *h = sat_result_root(res), *st = sat_get_obj(h, "request_stats");
    CHECK(!sat_get_has(h, "operations")); /* requests are not operations */
    CHECK_EQ_INT(cnt(h, "requests"), 6);
    const sat_rnode *all = row_of(sat_get_table(h, "methods"), "method", "all");
    CHECK_EQ_INT(cnt(all, "count"), 6);  /* every request */
    CHECK_EQ_INT(cnt(all, "errors"), 4); /* 404, 503, 400, 1500 */
    /* 5 timed (the 400 took 0 s; 1500 has none): their total is 5 means */
    CHECK(fabs(num(all, "total_s") / num(all, "mean_s") - 5) < 1e-9);
    CHECK_EQ_INT(cnt(st, "with_status"), 6);
    CHECK_EQ_INT(cnt(st, "no_request_line"), 1);
    CHECK_EQ_INT(cnt(st, "over_tls"), 2);
    /* (known only from the 4 requests whose number on their connection was
     * logged: absent without them) */
    CHECK_EQ_INT(cnt(st, "first_requests"), 3);
    CHECK_EQ_INT(cnt(st, "response_bytes"), 600);
    CHECK_EQ_STR(sat_get_text(h, "by", ""), "path");
    /* /item/1234?x=1 and /item/99: one template */
    const sat_rnode *g = sat_get_table(h, "groups");
    const sat_rnode *it = row_of(g, "path", "/item/{n}");
    CHECK(it && cnt(it, "count") == 2 && cnt(it, "errors") == 1);
    CHECK(it && fabs(num(it, "total_s") / num(it, "mean_s") - 2) < 1e-9); /* both timed */
    CHECK(it && fabs(num(it, "mean_s") - 0.006) < 1e-12 && fabs(num(it, "max_s") - 0.010) < 1e-12);
    CHECK(it && fabs(num(it, "p50_s") - 0.002) < 1e-12); /* nearest rank of {2, 10} ms */
    CHECK(it && isnan(num(it, "upstream_mean_s")));      /* none logged */
    CHECK(row_of(g, "path", "(no request line)") != NULL);
    /* groups: total response time desc */
    CHECK(sat_rnode_count(g) == 5 && !strcmp(sat_get_text(rc_row(g, 0), "path", ""), "/login"));
    CHECK(fabs(num(rc_row(g, 0), "share") - 100.0 / 113.0) < 1e-9);
    const sat_rnode *m = sat_get_table(h, "methods");
    const sat_rnode *get = row_of(m, "method", "GET");
    CHECK(get && cnt(get, "count") == 4 && cnt(get, "errors") == 3);
    CHECK(row_of(m, "method", "POST") && row_of(m, "method", "(no request line)"));
    CHECK_EQ_INT(status_count(h, 200), 2);
    CHECK_EQ_INT(status_count(h, 404), 1);
    CHECK_EQ_INT(status_count(h, 503), 1);
    CHECK_EQ_INT(status_count(h, 400), 1);
    CHECK_EQ_INT(status_count(h, -1), 1); /* past 999 */
    const sat_rnode *sts = sat_get_table(h, "statuses");
    CHECK(sat_rnode_count(sts) == 5 && sat_get_int(rc_row(sts, 0), "status", -1) == 200 &&
          !sat_get_has(rc_row(sts, 4), "status"));
    const sat_rnode *cl = sat_get_table(h, "top.clients");
    CHECK(sat_rnode_count(cl) == 2 &&
          !strcmp(sat_get_text(rc_row(cl, 0), "client", ""), "127.0.0.1") &&
          cnt(rc_row(cl, 0), "count") == 5);
    /* the series: two minutes (16:45 and 16:46) */
    CHECK(sat_get_dur(h, "window_s", NAN) == 60);
    const sat_rnode *w = sat_get_table(h, "windows");
    CHECK(sat_rnode_count(w) == 2 && cnt(rc_row(w, 0), "count") == 3 &&
          cnt(rc_row(w, 1), "count") == 3 && cnt(rc_row(w, 1), "errors") == 3);
    const sat_rnode *up = row_of(sat_get_table(h, "not_logged"), "field", "upstream");
    CHECK(up && cnt(up, "of_inputs") == 1 && sat_get_bool(up, "partial", -1) == 0 &&
          cnt(up, "inputs_without") == 1);
    sat_result_free(res);

    char *j = doc(e, 1);
    CHECK(strstr(j, "\"requests\": 6") != NULL);
    CHECK(strstr(j, "\"operation_stats\"") == NULL); /* no directory sections */
    CHECK(strstr(j, "\"path\": \"/item/{n}\", \"count\": 2, \"errors\": 1") != NULL);
    CHECK(strstr(j, "\"method\": \"all\", \"count\": 6, \"errors\": 4") != NULL);
    CHECK(strstr(j, "\"status\": 404, \"count\": 1") != NULL);
    CHECK(strstr(j, "\"meaning\": \"Not Found\"") != NULL);
    CHECK(strstr(j, "\"field\": \"upstream\", \"partial\": false") != NULL);
    CHECK(strstr(j, "\"first_requests\": 3") != NULL);
    free(j);
    char *t = doc(e, 0);
    CHECK(strstr(t, "satscope etime: 6 requests in 1 input") != NULL);
    CHECK(strstr(t, "Where the time went, by path template") != NULL);
    CHECK(strstr(t, "/item/{n}") != NULL);
    CHECK(strstr(t, "Connections opened ") && strstr(t, "(first requests)"));
    CHECK(strstr(t, "Average upstream time ") && strstr(t, "upstream_response_time"));
    CHECK(strstr(t, "Operations\n") == NULL);
    free(t);
    sat_etime_free(e);
}

/* A format without a response time (Apache common): "not logged", not 0. */
static void test_not_logged(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_source src = mksrc(0, "apache-common", 0);
    feed(e, SAT_TABLE_SOURCE, &src);
    for (int i = 0; i < 3; i++) {
        sat_http_req r = mkreq(T0 + i * S, "GET", "/", "/", 200, SAT_ABSENT);
        feed(e, SAT_TABLE_HTTP_REQ, &r);
    }
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *et = row_of(sat_get_table(sat_result_root(res), "not_logged"), "field", "etime");
    CHECK(et && cnt(et, "of_inputs") == 1 && sat_get_bool(et, "partial", -1) == 0);
    CHECK_EQ_INT(cnt(et, "inputs_without"), 1);
    CHECK(sat_get_text(et, "why", NULL) && strstr(sat_get_text(et, "why", ""), "$request_time"));
    sat_result_free(res);
    char *j = doc(e, 1);
    CHECK(strstr(j, "\"response_time_mean_s\": null") != NULL);
    CHECK(strstr(j, "\"first_requests\": null") != NULL);
    CHECK(strstr(j, "\"field\": \"etime\", \"partial\": false") != NULL);
    free(j);
    char *t = doc(e, 0);
    CHECK(strstr(t, "Response times are not logged") != NULL);
    CHECK(strstr(t, "Average response time ") && strstr(t, "not logged"));
    free(t);
    sat_etime_free(e);
}

static void test_by(void)
{
    static const struct {
        int by;
        const char *json;
    } cases[] = {
        {SAT_ETIME_BY_STATUS, "\"status\": 200, \"count\": 2"},
        {SAT_ETIME_BY_CLIENT, "\"client\": \"127.0.0.1\", \"count\": 5"},
        {SAT_ETIME_BY_METHOD, "\"method\": \"GET\", \"count\": 4"},
        {SAT_ETIME_BY_OP, "\"by\": \"method\""},
        {SAT_ETIME_BY_MINUTE, "\"start_ts\": \"2026-12-01T16:46:00Z\", \"count\": 3"},
        {SAT_ETIME_BY_FILTER, "\"by\": \"path\""}, /* a directory's key: the default */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sat_etime_opts o;
        memset(&o, 0, sizeof o);
        o.by = cases[i].by;
        sat_etime *e = sat_etime_create(&o);
        feed_six(e, 0, 6);
        CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
        char *j = doc(e, 1);
        const char *g = strstr(j, "\"groups\"");
        if (!(g && strstr(j, cases[i].json)))
            fprintf(stderr, "--by %s: no %s in\n%s\n", sat_etime_by_name(cases[i].by),
                    cases[i].json, j);
        CHECK(g && strstr(j, cases[i].json));
        free(j);
        sat_etime_free(e);
    }
    CHECK_EQ_INT(sat_etime_by_parse("path"), SAT_ETIME_BY_PATH);
    CHECK_EQ_INT(sat_etime_by_parse("status"), SAT_ETIME_BY_STATUS);
    CHECK_EQ_INT(sat_etime_by_parse("method"), SAT_ETIME_BY_METHOD);
    CHECK_EQ_STR(sat_etime_by_name(SAT_ETIME_BY_METHOD), "method");
}

/* Parts merged in order give the one pass's documents, byte for byte. */
static void test_merge(void)
{
    for (size_t cut = 0; cut <= 6; cut++) {
        sat_etime *one = sat_etime_create(NULL), *a = sat_etime_create(NULL),
                  *b = sat_etime_create(NULL);
        sat_source src = mksrc(0, "nginx-custom", F(ETIME) | F(CONN_REQUEST));
        feed(one, SAT_TABLE_SOURCE, &src);
        feed(a, SAT_TABLE_SOURCE, &src);
        feed_six(one, 0, 6);
        feed_six(a, 0, cut);
        feed_six(b, cut, 6);
        CHECK_EQ_INT(sat_etime_merge(a, b), SAT_OK);
        CHECK_EQ_INT(sat_etime_finish(one), SAT_OK);
        CHECK_EQ_INT(sat_etime_finish(a), SAT_OK);
        for (int json = 0; json <= 1; json++) {
            char *x = doc(one, json), *y = doc(a, json);
            CHECK(x && y && strcmp(x, y) == 0);
            free(x);
            free(y);
        }
        sat_etime_free(one);
        sat_etime_free(a);
        sat_etime_free(b);
    }
}

/* Many path templates: a capped table with "(other)"; a long span: the
 * series widens and stays bounded. */
static void test_bounds(void)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.max_keys = 3;
    sat_etime *e = sat_etime_create(&o);
    char p[32];
    for (int i = 0; i < 10; i++) {
        snprintf(p, sizeof p, "/p%c", 'a' + i);
        sat_http_req r = mkreq(T0 + i * S, "GET", p, p, 200, MS);
        feed(e, SAT_TABLE_HTTP_REQ, &r);
    }
    /* 100 days, one request every 30 minutes */
    for (int i = 0; i < 4800; i++) {
        sat_http_req r = mkreq(T0 + (sat_ts_ns)i * 1800 * S, "GET", "/pa", "/pa", 200, MS);
        feed(e, SAT_TABLE_HTTP_REQ, &r);
    }
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *h = sat_result_root(res), *g = sat_get_table(h, "groups");
    CHECK_EQ_INT(sat_rnode_count(g), 4);
    CHECK(row_of(g, "path", "(other)") && cnt(row_of(g, "path", "(other)"), "count") == 7);
    CHECK(cnt(h, "groups_folded_keys") >= 6 && cnt(h, "groups_folded_keys") <= 8);
    CHECK_EQ_INT(cnt(h, "requests"), 4810);
    const sat_rnode *w = sat_get_table(h, "windows");
    CHECK(sat_get_dur(h, "window_s", NAN) > 60 && sat_rnode_count(w) <= 2048);
    uint64_t sum = 0;
    for (const sat_rnode *r = sat_rnode_first(w); r; r = sat_rnode_next(r))
        sum += cnt(r, "count");
    CHECK_EQ_INT(sum, 4810);
    sat_result_free(res);
    sat_etime_free(e);
}

/* A directory's log and a web front's together: both kept, apart. */
static void test_beside_ldap(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_ldap_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = T0;
    op.result_ts_ns = T0 + MS;
    op.conn = 1;
    op.op = 1;
    op.internal_op = SAT_ABSENT;
    op.type = SAT_OP_SRCH;
    op.scope = SAT_SCOPE_SUB;
    op.err = 0;
    op.tag = SAT_ABSENT;
    op.nentries = 1;
    op.etime = MS;
    op.wtime = op.optime = SAT_ABSENT;
    op.target_op = SAT_ABSENT;
    feed(e, SAT_TABLE_LDAP_OP, &op);
    feed_six(e, 0, 6);
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(cnt(v, "operations"), 1);
    CHECK_EQ_INT(cnt(row_of(sat_get_table(v, "ops"), "op", "all"), "count"), 1);
    CHECK_EQ_INT(cnt(row_of(sat_get_table(v, "http.methods"), "method", "all"), "count"), 6);
    sat_result_free(res);
    char *j = doc(e, 1);
    CHECK(strstr(j, "\"operation_stats\"") && strstr(j, "\"http\": {"));
    free(j);
    char *t = doc(e, 0);
    CHECK(strstr(t, "satscope etime: 1 operation") && strstr(t, "HTTP requests: 6"));
    free(t);
    sat_etime_free(e);
}

int main(void)
{
    test_counts();
    test_not_logged();
    test_by();
    test_merge();
    test_bounds();
    test_beside_ldap();
    return CHECK_DONE();
}
