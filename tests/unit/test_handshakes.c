/*
 * test_handshakes.c - the TLS handshake analyzer (analyze/handshakes.c) on
 * made-up tls_hs rows: counts by outcome, the resumed ratio, the CPU model
 * (full / TLS 1.2 resumption / TLS 1.3 PSK), windows dense and widened past
 * their bound, retries after failed or incomplete handshakes, resumption
 * offered (a TLS 1.3 hello's legacy session id), --by tables,
 * merging two parts (the merged result's JSON byte-identical to one pass), and
 * the result's JSON, CSV (the --by key column named after its dimension) and
 * text (fitted to 100 columns, right plurals, human units).
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

#define S ((sat_ts_ns)1000000000)
static const sat_ts_ns T0 = 1749400000 * S;

static sat_tls_hs row(sat_ts_ns ts, int outcome, const char *client, uint16_t version)
{
    sat_tls_hs h;
    memset(&h, 0, sizeof h);
    h.ts = ts;
    h.server_hello_ts = outcome == SAT_TLS_INCOMPLETE ? 0 : ts + S / 1000;
    h.done_ts = outcome <= SAT_TLS_RESUMED ? ts + 2 * S / 1000 : 0;
    h.duration = h.done_ts ? h.done_ts - h.ts : SAT_ABSENT;
    h.client_ip = sat_str_cstr(client);
    h.server_ip = sat_str_cstr("10.0.0.1");
    h.server_port = 636;
    h.client_port = 40000;
    h.version = outcome == SAT_TLS_INCOMPLETE ? 0 : version;
    h.cipher = 0x1301;
    h.outcome = (uint8_t)outcome;
    h.resumed_by = outcome == SAT_TLS_RESUMED
                       ? (version == 0x0304 ? SAT_TLS_RESUME_PSK : SAT_TLS_RESUME_SESSION_ID)
                       : 0;
    h.alert = outcome == SAT_TLS_FAILED ? 40 : SAT_ABSENT;
    return h;
}


/* The tables the text report names for --csv NAME are the result's. */
static int build_result(const void *a, sat_result *r) { return sat_hs_result((const sat_hs *)a, r); }

static void check_csv_tables(const void *a, int (*build)(const void *, sat_result *))
{
    sat_result *r = sat_result_new("handshakes");
    CHECK(r && build(a, r) == SAT_OK);
    rc_check_tables(r);
    sat_result_free(r);
}

/* The finished analyzer's result as JSON, CSV (table, NULL: main) or text. */
static char *render(const sat_hs *a, int as, const char *table)
{
    return rc_render_built("handshakes", build_result, a, as, table);
}

static void feed(sat_hs *h, const sat_tls_hs *r)
{
    sat_event_sink s = sat_hs_sink(h);
    CHECK_EQ_INT(sat_sink_emit(&s, SAT_TABLE_TLS_HS, r), SAT_OK);
}

/* A handshake with its TCP connection (flow), which the client left
 * `left_s` seconds after the handshake began: the retry rule's input. */
static void feed_tcp(sat_hs *h, const sat_tls_hs *r, double left_s)
{
    sat_tcp_conn c;
    memset(&c, 0, sizeof c);
    c.syn_ts = r->ts;
    c.end_ts = c.client_left_ts = r->ts + (sat_ts_ns)(left_s * 1e9);
    c.flow = r->flow;
    c.client_ip = r->client_ip;
    c.server_ip = r->server_ip;
    c.client_port = r->client_port;
    c.server_port = r->server_port;
    c.end = SAT_TCP_END_FIN_CLIENT;
    c.flags = SAT_TCPF_SYNACK | SAT_TCPF_TLS;
    c.rtt = SAT_ABSENT;
    c.last_c2s_to_end = SAT_ABSENT;
    sat_event_sink s = sat_hs_sink(h);
    CHECK_EQ_INT(sat_sink_emit(&s, SAT_TABLE_TCP_CONN, &c), SAT_OK);
}

static void feed_conn(sat_hs *h, sat_tls_hs *r, uint32_t flow, double left_s)
{
    r->flow = flow;
    feed(h, r);
    feed_tcp(h, r, left_s);
}

static void test_counts_and_cost(void)
{
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_HS_BY_CLIENT;
    sat_hs *h = sat_hs_create(&o);
    CHECK(h != NULL);
    if (!h)
        return;
    sat_tls_hs r;
    for (int i = 0; i < 6; i++) { /* 6 full TLS 1.2 from .5 */
        r = row(T0 + i * S, SAT_TLS_FULL, "10.0.0.5", 0x0303);
        feed(h, &r);
    }
    for (int i = 0; i < 3; i++) { /* 3 resumed 1.2 (session id) */
        r = row(T0 + 12 * S + i * S, SAT_TLS_RESUMED, "10.0.0.6", 0x0303);
        feed(h, &r);
    }
    r = row(T0 + 25 * S, SAT_TLS_RESUMED, "10.0.0.6", 0x0304); /* 1 PSK */
    feed(h, &r);
    r = row(T0 + 40 * S, SAT_TLS_INCOMPLETE, "10.0.0.7", 0); /* gave up 2 s later ... */
    feed_conn(h, &r, 1, 2.0);
    r = row(T0 + 41 * S, SAT_TLS_FULL, "10.0.0.7", 0x0304); /* (opened before: no retry; */
    r.flow = 2;                                              /*  its TCP connection only) */
    feed_tcp(h, &r, 0.5);
    r = row(T0 + 45 * S, SAT_TLS_FULL, "10.0.0.7", 0x0304); /* ... retried 3 s after that */
    feed_conn(h, &r, 3, 0.5);
    r = row(T0 + 50 * S, SAT_TLS_FAILED, "10.0.0.8", 0x0303); /* alert after SH */
    feed_conn(h, &r, 4, 0.1);
    r = row(T0 + 90 * S, SAT_TLS_FULL, "10.0.0.8", 0x0303); /* 40 s later: not a retry */
    feed_conn(h, &r, 5, 0.1);
    r = row(T0 + 91 * S, SAT_TLS_FAILED, "10.0.0.9", 0x0303); /* alert before any SH */
    r.server_hello_ts = 0;
    r.version = 0;
    feed(h, &r);
    /* and an access log's request: its handshakes are kept apart (the
     * result's "logs": every table the CSV list names is then there) */
    sat_http_req q;
    memset(&q, 0, sizeof q);
    q.ts = T0;
    q.status = 200;
    q.conn_request = 1;
    q.tls_session = SAT_HTTP_SESSION_NEW;
    q.response_time = q.upstream_time = q.bytes = q.conn = SAT_ABSENT;
    sat_event_sink hs = sat_hs_sink(h);
    CHECK_EQ_INT(sat_sink_emit(&hs, SAT_TABLE_HTTP_REQ, &q), SAT_OK);
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "connections", 0), 15);
    CHECK_EQ_INT(sat_get_count(v, "logs.full", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "full", 0), 8);
    CHECK_EQ_INT(sat_get_count(v, "resumed", 0), 4);
    CHECK_EQ_INT(sat_get_count(v, "failed", 0), 2);
    CHECK_EQ_INT(sat_get_count(v, "failed_after_server_hello", 0), 1); /* the one answered */
    CHECK_EQ_INT(sat_get_count(v, "incomplete", 0), 1);
    double ratio = sat_get_num(v, "resumed_ratio", NAN);
    CHECK(ratio > 0.333 && ratio < 0.334); /* 4 / 12 */
    /* 8 full + 1 failed after a ServerHello at 330 us, 3 x 3 us, 1 x 60 us;
     * the failure before any ServerHello costs nothing */
    double want = (9 * 330.0 + 3 * 3.0 + 60.0) / 1e6, cpu = sat_get_dur(v, "cpu_s", NAN);
    CHECK(cpu > want - 1e-9 && cpu < want + 1e-9);
    CHECK_EQ_INT(sat_get_count(v, "retries", 0), 1);
    double gap = sat_get_dur(v, "retry_gap_mean_s", NAN);
    CHECK(gap > 2.999 && gap < 3.001);
    const sat_rnode *res_t = sat_get_table(v, "resumption");
    CHECK_EQ_INT(sat_get_count(sat_get_row(res_t, "mechanism", "session_id"), "resumed", 0), 3);
    CHECK_EQ_INT(sat_get_count(sat_get_row(res_t, "mechanism", "psk"), "resumed", 0), 1);
    /* windows of 10 s, dense from T0 to T0+90 s */
    const sat_rnode *w = sat_get_table(v, "windows");
    CHECK_EQ_INT(sat_rnode_count(w), 10);
    CHECK_EQ_INT(sat_get_time(rc_row(w, 0), "start_ts", 0), T0);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 0), "connections", 99), 6);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 6), "connections", 99), 0);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 5), "failed_after_server_hello", 99), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 5), "failed", 99), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 9), "failed", 99), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(w, 9), "failed_after_server_hello", 99), 0);
    double wcpu = sat_get_dur(rc_row(w, 5), "cpu_s", NAN);
    CHECK(wcpu > 329e-6 && wcpu < 331e-6);
    double peak = sat_get_num(v, "peak_rate_per_s", NAN);
    CHECK(peak > 0.599 && peak < 0.601);
    /* by client: the most full handshakes first */
    const sat_rnode *g = sat_get_table(v, "groups");
    CHECK(sat_rnode_count(g) >= 4);
    CHECK_EQ_STR(sat_get_text(rc_row(g, 0), "client", ""), "10.0.0.5");
    CHECK_EQ_INT(sat_get_count(rc_row(g, 0), "full", 0), 6);
    /* durations: 2 ms for every full one */
    double p50 = sat_get_dur(sat_get_row(sat_get_table(v, "durations"), "outcome", "full"), "p50_s", NAN);
    CHECK(p50 > 0.0019 && p50 < 0.0021);
    sat_result_free(res);

    check_csv_tables(h, build_result);
    char *buf = render(h, AS_JSON, NULL);
    static const char *const keys[] = {
        "\"schema\": \"satscope/2\",\n  \"command\": \"handshakes\"",
        "\"connections\": 15", "\"full\": 8", "\"resumed\": 4", "\"failed\": 2",
        "\"incomplete\": 1", "\"failed_after_server_hello\": 1", "\"resumed_ratio\": 0.3333",
        "\"cpu_s\": 0.003039", "\"first_ts\": \"2025-06-08T16:26:40Z\"",
        "\"last_ts\": \"2025-06-08T16:28:11Z\"", "\"peak_ts\": \"2025-06-08T16:26:40Z\"",
        "\"cost_per_handshake\": {\"full_s\": 0.00033, \"resumed_s\": 0.000003, \"psk_s\": 0.00006}",
        "{\"version\": \"TLS1.2\", \"count\": 11}",
        "{\"mechanism\": \"session_id\", \"offered\": 0, \"resumed\": 3}",
        "{\"outcome\": \"full\", \"count\": 8, \"p50_s\": 0.002, \"p99_s\": 0.002}",
        "\"retries\": 1", "\"retry_gap_mean_s\": 3,", "\"by\": \"client\"",
        "{\"client\": \"10.0.0.5\", \"connections\": 6, \"full\": 6,", "\"window_s\": 10",
        "\"windows\": [", "{\"start_ts\": \"2025-06-08T16:26:40Z\", \"connections\": 6,"};
    for (size_t i = 0; buf && i < sizeof keys / sizeof keys[0]; i++) {
        if (!strstr(buf, keys[i]))
            printf("missing %s in:\n%s\n", keys[i], buf);
        CHECK(strstr(buf, keys[i]) != NULL);
    }
    free(buf);
    /* --csv alone: the --by table, its key column named after the dimension */
    buf = render(h, AS_CSV, NULL);
    static const char csv_head[] = "client,connections,full,resumed,failed,"
                               "failed_after_server_hello,incomplete,no_sni,resumed_ratio,cpu_s\n"
                               "10.0.0.5,6,6,0,0,0,0,6,0,0.00198\n";
    CHECK(buf && !strncmp(buf, csv_head, sizeof csv_head - 1));
    free(buf);
    buf = render(h, AS_CSV, "versions");
    CHECK_EQ_STR(buf, "version,count\nTLS1.3,2\nTLS1.2,11\n(no ServerHello),2\n");
    free(buf);
    /* text: human units, 100 columns */
    buf = render(h, AS_TEXT, NULL);
    CHECK(buf && strstr(buf, "satscope handshakes: 15 TLS connections, 2025-06-08T16:26:40Z"));
    CHECK(buf && strstr(buf, "Server CPU for these handshakes (estimate): 3.04 ms\n"));
    CHECK(buf && strstr(buf, "  1 failed or incomplete handshake was retried: the same client's next"));
    CHECK(buf && strstr(buf, "(3.00 s later on average)"));
    for (const char *p = buf; p && *p;) {
        size_t n = strcspn(p, "\n");
        CHECK(n <= 100);
        p += n + (p[n] == '\n');
    }
    free(buf);
    sat_hs_free(h);
}

/* failed after the ServerHello: counted in totals, windows and groups, and
 * merged like every count */
static void test_failed_after_server_hello_merge(void)
{
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_HS_BY_SNI;
    sat_hs *a = sat_hs_create(&o), *b = sat_hs_create(&o);
    CHECK(a && b);
    if (!a || !b) {
        sat_hs_free(a);
        sat_hs_free(b);
        return;
    }
    sat_tls_hs r = row(T0, SAT_TLS_FAILED, "10.0.0.1", 0x0304);
    feed(a, &r);
    r = row(T0 + S, SAT_TLS_FAILED, "10.0.0.2", 0x0303);
    feed(b, &r);
    r = row(T0 + 2 * S, SAT_TLS_FULL, "10.0.0.2", 0x0303);
    feed(b, &r);
    CHECK_EQ_INT(sat_hs_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_hs_finish(a), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, a);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "failed", 0), 2);
    CHECK_EQ_INT(sat_get_count(v, "failed_after_server_hello", 0), 2);
    double cpu = sat_get_dur(v, "cpu_s", NAN);
    CHECK(cpu > 3 * 330e-6 - 1e-9 && cpu < 3 * 330e-6 + 1e-9);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(v, "groups")), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(sat_get_table(v, "groups"), 0), "failed_after_server_hello", 0), 2);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(v, "windows")), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(sat_get_table(v, "windows"), 0), "failed_after_server_hello", 0), 2);
    sat_result_free(res);
    char *buf = render(a, AS_CSV, "groups");
    CHECK(buf && strstr(buf, "sni,connections,full,resumed,failed,failed_after_server_hello,"));
    CHECK(buf && strstr(buf, "(no SNI),3,1,0,2,2,0,3,0,0.00099\n"));
    free(buf);
    sat_hs_free(a);
    sat_hs_free(b);
}

/* ClientHellos that name no server (no SNI): counted in the totals, the
 * windows and the groups, and merged like every count. */
static void test_no_sni(void)
{
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_HS_BY_SNI;
    sat_hs *a = sat_hs_create(&o), *b = sat_hs_create(&o);
    CHECK(a && b);
    if (!a || !b) {
        sat_hs_free(a);
        sat_hs_free(b);
        return;
    }
    for (int i = 0; i < 6; i++) {
        sat_tls_hs r = row(T0 + i * S, SAT_TLS_FULL, "10.0.0.9", 0x0303);
        if (i % 3 == 0)
            r.sni = sat_str_cstr("ldap.example.com");
        feed(i < 3 ? a : b, &r);
    }
    CHECK_EQ_INT(sat_hs_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_hs_finish(a), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, a);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "no_sni", 0), 4);
    CHECK_EQ_INT(sat_get_count(rc_row(sat_get_table(v, "windows"), 0), "no_sni", 0), 4);
    const sat_rnode *g = sat_get_table(v, "groups");
    CHECK_EQ_INT(sat_get_count(sat_get_row(g, "sni", "(no SNI)"), "no_sni", 0), 4);
    CHECK_EQ_INT(sat_get_count(sat_get_row(g, "sni", "ldap.example.com"), "no_sni", 9), 0);
    sat_result_free(res);
    char *t = render(a, AS_TEXT, NULL);
    if (t && !strstr(t, "without SNI"))
        fprintf(stderr, "%s\n", t);
    CHECK(t && strstr(t, "without SNI") && strstr(t, "4  ClientHellos naming no server"));
    free(t);
    sat_hs_free(a);
    sat_hs_free(b);
}

static void test_long_span_and_merge(void)
{
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    o.window = S; /* 1 s steps over 3 hours: widened past 4096 windows */
    sat_hs *a = sat_hs_create(&o), *b = sat_hs_create(&o);
    CHECK(a && b);
    if (!a || !b)
        return;
    for (int i = 0; i < 3 * 3600; i++) {
        sat_tls_hs r = row(T0 + i * S, i % 4 ? SAT_TLS_RESUMED : SAT_TLS_FULL, "10.1.1.1",
                           0x0303);
        feed(i < 3600 ? a : b, &r);
    }
    CHECK_EQ_INT(sat_hs_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_hs_finish(a), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, a);
    const sat_rnode *v = sat_result_root(res), *w = sat_get_table(v, "windows");
    CHECK_EQ_INT(sat_get_count(v, "connections", 0), 3 * 3600);
    CHECK_EQ_INT(sat_get_count(v, "full", 0), 3 * 3600 / 4);
    CHECK(sat_rnode_count(w) <= 4096);
    CHECK_EQ_INT(sat_table_window(w), 4 * S); /* 10,800 one-second windows -> 2,700 of 4 s */
    uint64_t sum = 0;
    for (const sat_rnode *r = sat_rnode_first(w); r; r = sat_rnode_next(r))
        sum += sat_get_count(r, "connections", 0);
    CHECK_EQ_INT(sum, 3 * 3600);
    sat_result_free(res);
    sat_hs_free(a);
    sat_hs_free(b);
}

static void test_empty(void)
{
    sat_hs *h = sat_hs_create(NULL);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    sat_result *res = rc_result("handshakes", build_result, h);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(sat_get_count(v, "connections", 99), 0);
    CHECK(!sat_get_has(v, "resumed_ratio"));
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(v, "windows")), 0);
    sat_result_free(res);
    sat_hs_free(h);
    CHECK_EQ_INT(sat_hs_by_parse("sni"), SAT_HS_BY_SNI);
    CHECK(sat_hs_by_parse("port") < 0);
}

/* Merging parts gives the result of one pass, byte for byte, at every
 * split point of a mixed input (retries across the split included). */
static void test_merge_equals_one_pass(void)
{
    enum { N = 40 };
    sat_tls_hs rows[N];
    static const char *const clients[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3"};
    for (int i = 0; i < N; i++) {
        int outcome = 1 + (i * 7) % 4;
        rows[i] = row(T0 + i * S / 3, outcome, clients[i % 3], i % 5 ? 0x0303 : 0x0304);
        rows[i].offered = (uint8_t)(i % 8);
    }
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_HS_BY_CLIENT;
    o.window = 2 * S;
    sat_hs *one = sat_hs_create(&o);
    CHECK(one != NULL);
    if (!one)
        return;
    for (int i = 0; i < N; i++)
        feed(one, &rows[i]);
    CHECK_EQ_INT(sat_hs_finish(one), SAT_OK);
    char *want = render(one, AS_JSON, NULL);
    sat_hs_free(one);
    for (int cut = 0; cut <= N; cut += 7) {
        sat_hs *a = sat_hs_create(&o), *b = sat_hs_create(&o);
        CHECK(a && b);
        if (!a || !b) {
            sat_hs_free(a);
            sat_hs_free(b);
            break;
        }
        for (int i = 0; i < N; i++)
            feed(i < cut ? a : b, &rows[i]);
        CHECK_EQ_INT(sat_hs_merge(a, b), SAT_OK);
        CHECK_EQ_INT(sat_hs_finish(a), SAT_OK);
        char *got = render(a, AS_JSON, NULL);
        /* retries too: a failure in one part retried in the next counts */
        CHECK_EQ_STR(got, want);
        free(got);
        sat_hs_free(a);
        sat_hs_free(b);
    }
    free(want);
}

/* Resumption offered: a hello that offers TLS 1.3 offers resumption by PSK;
 * its legacy session id is middlebox compatibility (RFC 8446 4.1.2, D.4)
 * unless a TLS <= 1.2 server resumed by it (then it was a cached id); a
 * hello without 1.3 offers its session id. */
static void test_offered_session_id(void)
{
    sat_hs_opts o;
    memset(&o, 0, sizeof o);
    sat_hs *h = sat_hs_create(&o);
    CHECK(h != NULL);
    if (!h)
        return;
    sat_tls_hs r[7];
    r[0] = row(T0, SAT_TLS_FULL, "10.0.0.1", 0x0303); /* 1.2 only: an id offer */
    r[0].offered_version = 0x0303;
    r[0].offered = SAT_TLS_RESUME_SESSION_ID;
    r[1] = row(T0 + S, SAT_TLS_FULL, "10.0.0.2", 0x0304); /* 1.3, compatibility id */
    r[1].offered_version = 0x0304;
    r[1].offered = SAT_TLS_RESUME_SESSION_ID;
    r[2] = row(T0 + 2 * S, SAT_TLS_RESUMED, "10.0.0.3", 0x0304); /* 1.3 PSK + id */
    r[2].offered_version = 0x0304;
    r[2].offered = SAT_TLS_RESUME_SESSION_ID | SAT_TLS_RESUME_PSK;
    r[3] = row(T0 + 3 * S, SAT_TLS_RESUMED, "10.0.0.4", 0x0303); /* 1.3-capable, 1.2 */
    r[3].offered_version = 0x0304;                                /* server resumed by */
    r[3].offered = SAT_TLS_RESUME_SESSION_ID;                     /* the id: offered */
    r[4] = row(T0 + 4 * S, SAT_TLS_FULL, "10.0.0.5", 0x0303); /* 1.3-capable, 1.2 */
    r[4].offered_version = 0x0304;                            /* full: no telling */
    r[4].offered = SAT_TLS_RESUME_SESSION_ID;
    r[5] = row(T0 + 5 * S, SAT_TLS_FULL, "10.0.0.6", 0x7f17); /* a draft of 1.3 */
    r[5].offered_version = 0x7f17;
    r[5].offered = SAT_TLS_RESUME_SESSION_ID;
    r[6] = row(T0 + 6 * S, SAT_TLS_RESUMED, "10.0.0.7", 0x0303); /* 1.3-capable with */
    r[6].offered_version = 0x0304;                               /* a 1.2 ticket */
    r[6].offered = SAT_TLS_RESUME_SESSION_ID | SAT_TLS_RESUME_TICKET;
    r[6].resumed_by = SAT_TLS_RESUME_TICKET;
    for (int i = 0; i < 7; i++)
        feed(h, &r[i]);
    CHECK_EQ_INT(sat_hs_finish(h), SAT_OK);
    char *buf = render(h, AS_JSON, NULL);
    static const char *const keys[] = {
        "{\"mechanism\": \"session_id\", \"offered\": 2, \"resumed\": 1}",
        "{\"mechanism\": \"ticket\", \"offered\": 1, \"resumed\": 1}",
        "{\"mechanism\": \"psk\", \"offered\": 1, \"resumed\": 1}"};
    for (size_t i = 0; buf && i < sizeof keys / sizeof keys[0]; i++) {
        if (!strstr(buf, keys[i]))
            printf("missing %s in:\n%s\n", keys[i], buf);
        CHECK(strstr(buf, keys[i]) != NULL);
    }
    free(buf);
    sat_hs_free(h);
}

int main(void)
{
    test_merge_equals_one_pass();
    test_failed_after_server_hello_merge();
    test_counts_and_cost();
    test_no_sni();
    test_long_span_and_merge();
    test_empty();
    test_offered_session_id();
    return CHECK_DONE();
}
