/*
 * test_storms.c - the storm analyzer (analyze/storms.c): the detector's false
 * alarms on steady Poisson series (fixed seeds) and its delay on a doubling
 * and on a dozen failures against a baseline of zero; the deduplication rules
 * of issue 4 (ABANDON + A1 close of the same connection, incomplete handshake
 * + the client's RST of the same flow are one failure each, in either order;
 * a client's FIN with its request unanswered; the retry rule, also across a
 * merge); a frozen TLS server named as the trigger by its handshake answer
 * time, with and without failures that outlive it;
 * a storm found from rows with its clients, kinds and trigger; the window
 * chosen for the input (a 6 s capture, an hour of log), inputs from different
 * periods analysed each on its own (also across a merge), and connection
 * attempts never answered.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"
#include "analyze/storms_internal.h"

#define S ((sat_ts_ns)1000000000)
static const sat_ts_ns T0 = 1749400000 * S;

/* xorshift64* and Knuth's product method (fine for means up to a few hundred) */
static uint64_t rng = 88172645463325252ull;
static double unif(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}
static uint64_t poisson(double lam)
{
    uint64_t k = 0;
    double l = exp(-lam), p = 1.0;
    for (;;) {
        p *= unif();
        if (p <= l)
            return k;
        k++;
    }
}

static void test_false_alarms(void)
{
    static const double rates[] = {0.0, 0.2, 0.5, 1.0, 2.0, 5.0, 20.0, 200.0};
    static uint64_t x[5000];
    static sat_storm_span sp[100];
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        rng = 88172645463325252ull + r;
        for (size_t t = 0; t < 5000; t++)
            x[t] = poisson(rates[r]);
        size_t n = sat_storms_detect(x, 5000, 0, sp, 100);
        fprintf(stderr, "steady Poisson mean %g: %zu false alarms in 5000 windows\n", rates[r],
                n);
        CHECK(n < 10);
    }
    /* short windows (1 s: a floor of 0.05) of a rare trickle of failures */
    static const double rare[] = {0.01, 0.05, 0.1, 0.3};
    for (size_t r = 0; r < sizeof rare / sizeof rare[0]; r++) {
        rng = 1234567 + r;
        for (size_t t = 0; t < 5000; t++)
            x[t] = poisson(rare[r]);
        size_t n = sat_storms_detect(x, 5000, 0.05, sp, 100);
        fprintf(stderr, "steady Poisson mean %g, floor 0.05: %zu false alarms in 5000 windows\n",
                rare[r], n);
        CHECK(n < 10);
    }
}

static void test_doubling(void)
{
    static uint64_t x[400];
    static sat_storm_span sp[10];
    int worst = 0;
    for (int trial = 0; trial < 20; trial++) {
        rng = 12345u + (uint64_t)trial;
        for (size_t t = 0; t < 400; t++)
            x[t] = poisson(t < 300 ? 20.0 : 40.0);
        size_t n = sat_storms_detect(x, 400, 0, sp, 10);
        size_t j = 0;
        while (j < n && j < 10 && sp[j].end < 300)
            j++; /* a false alarm before the change, if any */
        CHECK(j < n && j < 10);
        if (j >= n || j >= 10)
            continue;
        /* the alarm fired by the third window: the storm begins there or before */
        int delay = (int)sp[j].start - 300;
        CHECK(sp[j].start <= 302);
        worst = delay > worst ? delay : worst;
    }
    fprintf(stderr, "doubling of 20: found at most %d windows after the change\n", worst);
}

static void test_dozen_against_zero(void)
{
    uint64_t x[60];
    sat_storm_span sp[4];
    memset(x, 0, sizeof x);
    x[40] = 12; /* 12 failures in 3 s: one 10 s window */
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0, sp, 4), 1);
    CHECK_EQ_INT(sp[0].start, 40);
    CHECK_EQ_INT(sp[0].end, 40);
    x[40] = 7; /* ... or split over two */
    x[41] = 5;
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0, sp, 4), 1);
    CHECK_EQ_INT(sp[0].start, 40);
    CHECK_EQ_INT(sp[0].end, 41);
    for (size_t t = 0; t < 60; t++) /* a dip on a busy server is no storm */
        x[t] = 1000000;
    x[30] = 5;
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0, sp, 4), 0);
    memset(x, 0, sizeof x); /* two or three failures are not a storm */
    x[30] = 2;
    x[50] = 3;
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0, sp, 4), 0);
    /* nine in three short windows (2 s: a floor of 0.1) against none: one */
    memset(x, 0, sizeof x);
    x[40] = x[41] = x[42] = 3;
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0.1, sp, 4), 1);
    CHECK_EQ_INT(sp[0].start, 40);
    CHECK_EQ_INT(sp[0].end, 42);
    x[41] = x[42] = 0; /* three alone: none */
    CHECK_EQ_INT(sat_storms_detect(x, 60, 0.1, sp, 4), 0);
}

/* ---- the result (sat_storms_result), read as any reader does --------------------------- */
static int build(const void *s, sat_result *r)
{
    return sat_storms_result((const sat_storms *)s, r);
}

/* The result of a finished analyzer (the caller frees it). */
static sat_result *result_of(const sat_storms *s)
{
    return rc_result("storms", build, s);
}

/* Failures of a kind over every input (0: none seen). */
static uint64_t kind_n(const sat_rnode *root, const char *kind)
{
    return sat_get_count(sat_get_row(sat_get_table(root, "failures"), "kind", kind), "events", 0);
}

static size_t rows_n(const sat_rnode *root, const char *table)
{
    return sat_rnode_count(sat_get_table(root, table));
}

/* Row i of a table of the result. */
static const sat_rnode *row_of(const sat_rnode *root, const char *table, size_t i)
{
    return rc_row(sat_get_table(root, table), i);
}

/* A duration of the result in ns (-1: absent). */
static sat_dur_ns dur_ns(const sat_rnode *n, const char *path)
{
    double d = sat_get_dur(n, path, -1);
    return d < 0 ? -1 : (sat_dur_ns)llround(d * 1e9);
}

/* The signals row of storm `storm` (1: the first) for the signal `name`. */
static const sat_rnode *signal_row(const sat_rnode *root, uint64_t storm, const char *name)
{
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "signals")); r;
         r = sat_rnode_next(r))
        if (sat_get_count(r, "storm", 0) == storm &&
            !strcmp(sat_get_text(r, "signal_name", ""), name))
            return r;
    return NULL;
}

static int is_text(const sat_rnode *n, const char *path, const char *want)
{
    const char *t = sat_get_text(n, path, NULL);
    return t && !strcmp(t, want);
}

/* The clients listed for storm `storm`. */
static size_t top_n(const sat_rnode *root, uint64_t storm)
{
    size_t n = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "top_clients")); r;
         r = sat_rnode_next(r))
        n += sat_get_count(r, "storm", 0) == storm;
    return n;
}

/* ---- rows ---------------------------------------------------------------------------- */
static sat_ldap_op op_row(sat_ts_ns ts, int64_t conn, int type, int err, const char *client)
{
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = ts;
    o.result_ts_ns = type == SAT_OP_ABANDON ? 0 : ts + S / 100;
    o.conn = conn;
    o.op = 1;
    o.internal_op = SAT_ABSENT;
    o.type = (uint8_t)type;
    o.err = type == SAT_OP_ABANDON ? SAT_ABSENT : err;
    o.etime = o.wtime = o.optime = SAT_ABSENT;
    o.nentries = o.tag = o.target_op = SAT_ABSENT;
    o.client_ip = sat_str_cstr(client);
    return o;
}

static sat_ldap_conn conn_row(sat_ts_ns close_ts, int64_t conn, int code, const char *client)
{
    sat_ldap_conn c;
    memset(&c, 0, sizeof c);
    c.open_ts = close_ts - S;
    c.close_ts = close_ts;
    c.conn = conn;
    c.close_code = (uint8_t)code;
    c.client_ip = sat_str_cstr(client);
    return c;
}

static void test_dedup_ldap(void)
{
    for (int order = 0; order < 2; order++) {
        sat_storms *s = sat_storms_create(NULL);
        CHECK(s != NULL);
        if (!s)
            return;
        sat_event_sink k = sat_storms_sink(s);
        sat_ldap_op ab = op_row(T0, 7, SAT_OP_ABANDON, 0, "10.0.0.1");
        sat_ldap_conn a1 = conn_row(T0 + S, 7, SAT_CLOSE_A1, "10.0.0.1");
        sat_ldap_conn other = conn_row(T0 + S, 8, SAT_CLOSE_A1, "10.0.0.2"); /* alone: counts */
        if (order == 0) {
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &a1);
        } else {
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &a1);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
        }
        sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &other);
        sat_ldap_op busy = op_row(T0 + 2 * S, 7, SAT_OP_BIND, 51, "10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &busy);
        sat_ldap_op ok = op_row(T0 + 2 * S, 7, SAT_OP_SRCH, 0, "10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ok);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(sat_get_count(v, "events", 0), 3);
        CHECK_EQ_INT(kind_n(v, "abandon"), 1);
        CHECK_EQ_INT(kind_n(v, "close_A1"), 1);
        CHECK_EQ_INT(kind_n(v, "busy"), 1);
        CHECK_EQ_INT(sat_get_count(v, "deduplicated", 0), 1);
        sat_result_free(r);
        sat_storms_free(s);
    }
}

/* A busy answer and the client's leaving its connection after it (B1) are
 * one failure, whichever row comes first and when the two rows are in two
 * parts merged; the server's own close (T2) of such a connection counts. */
static void test_dedup_answer_then_close(void)
{
    for (int order = 0; order < 3; order++) {
        sat_storms *s = sat_storms_create(NULL), *p2 = sat_storms_create(NULL);
        CHECK(s != NULL && p2 != NULL);
        if (!s || !p2) {
            sat_storms_free(s);
            sat_storms_free(p2);
            return;
        }
        sat_event_sink k = sat_storms_sink(s), k2 = sat_storms_sink(p2);
        sat_ldap_op busy = op_row(T0, 7, SAT_OP_SRCH, 51, "10.0.0.1");
        sat_ldap_conn b1 = conn_row(T0 + S, 7, SAT_CLOSE_B1, "10.0.0.1");
        sat_ldap_op limit = op_row(T0, 9, SAT_OP_SRCH, 3, "10.0.0.3");
        sat_ldap_conn t2 = conn_row(T0 + S, 9, SAT_CLOSE_T2, "10.0.0.3");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &limit);
        sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &t2);
        if (order == 0) {
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &busy);
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &b1);
        } else if (order == 1) {
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &b1);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &busy);
        } else { /* the close in one part, the answer in the other */
            sat_sink_emit(&k2, SAT_TABLE_LDAP_CONN, &b1);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &busy);
            CHECK_EQ_INT(sat_storms_merge(s, p2), SAT_OK);
        }
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(sat_get_count(v, "events", 0), 3);
        CHECK_EQ_INT(kind_n(v, "busy"), 1);
        CHECK_EQ_INT(kind_n(v, "close_B1"), 0);
        CHECK_EQ_INT(kind_n(v, "time_limit"), 1);
        CHECK_EQ_INT(kind_n(v, "close_T2"), 1);
        sat_result_free(r);
        sat_storms_free(s);
        sat_storms_free(p2);
    }
}

/* A log's connection closed with a request unanswered: one failure, unless
 * its close (B1) or an ABANDON already is one; at the end of the input (no
 * close logged) none. */
static void test_closed_waiting(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    for (int64_t conn = 1; conn <= 4; conn++) {
        sat_ldap_op o = op_row(T0 + conn * S, conn, SAT_OP_BIND, SAT_ABSENT, "10.0.0.5");
        o.flags = SAT_OPF_UNFINISHED | (conn != 4 ? SAT_OPF_CONN_CLOSED : 0);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    }
    sat_ldap_conn b1 = conn_row(T0 + 3 * S, 2, SAT_CLOSE_B1, "10.0.0.5"); /* conn 2: B1 */
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &b1);
    sat_ldap_op ab = op_row(T0 + 3 * S, 3, SAT_OP_ABANDON, 0, "10.0.0.5"); /* conn 3 */
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(kind_n(v, "closed_waiting"), 1); /* conn 1 */
    CHECK_EQ_INT(kind_n(v, "close_B1"), 1);
    CHECK_EQ_INT(kind_n(v, "abandon"), 1);
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 3);
    CHECK_EQ_INT(sat_get_count(v, "deduplicated", 0), 2);
    sat_result_free(r);
    sat_storms_free(s);
}

static void test_dedup_wire(void)
{
    for (int order = 0; order < 2; order++) {
        sat_storms *s = sat_storms_create(NULL);
        CHECK(s != NULL);
        if (!s)
            return;
        sat_event_sink k = sat_storms_sink(s);
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = T0;
        h.source = 0;
        h.flow = 3;
        h.outcome = SAT_TLS_INCOMPLETE;
        h.client_ip = sat_str_cstr("10.0.0.9");
        sat_tcp_conn c;
        memset(&c, 0, sizeof c);
        c.syn_ts = T0 - S / 1000;
        c.end_ts = T0 + 2 * S;
        c.source = 0;
        c.flow = 3;
        c.end = SAT_TCP_END_RST_CLIENT;
        c.flags = SAT_TCPF_SYNACK | SAT_TCPF_TLS | SAT_TCPF_CLIENT_LEFT_WAITING;
        c.client_ip = sat_str_cstr("10.0.0.9");
        if (order == 0) {
            sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
            sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
        } else {
            sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
            sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
        }
        c.flow = 4; /* another connection's RST: a failure of its own */
        sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
        c.flow = 5; /* a RST of a connection the client was done with: none */
        c.flags = SAT_TCPF_SYNACK | SAT_TCPF_TLS;
        sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(sat_get_count(v, "events", 0), 2);
        CHECK_EQ_INT(kind_n(v, "tls_incomplete"), 1);
        CHECK_EQ_INT(kind_n(v, "rst_client"), 1);
        CHECK_EQ_INT(sat_get_count(v, "deduplicated", 0), 1);
        sat_result_free(r);
        sat_storms_free(s);
    }
}

static sat_tcp_conn tcp_row(sat_ts_ns syn, sat_ts_ns end, uint32_t flow, const char *client,
                            int how, uint64_t c2s, uint64_t s2c)
{
    sat_tcp_conn c;
    memset(&c, 0, sizeof c);
    c.syn_ts = syn;
    c.end_ts = end;
    c.flow = flow;
    c.client_ip = sat_str_cstr(client);
    c.server_ip = sat_str_cstr("10.9.9.9");
    c.server_port = 636;
    c.end = (uint8_t)how;
    c.flags = SAT_TCPF_SYNACK;
    c.bytes_c2s = c2s;
    c.bytes_s2c = s2c;
    return c;
}

/* A client that closes with its request unanswered is one failure; with
 * the TLS handshake it gave up on, still one (the more specific kind). */
static void test_fin_waiting(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    sat_tcp_conn c = tcp_row(T0, T0 + 2 * S, 1, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 50, 0);
    c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c.flow = 2; /* the same, with the handshake row after it */
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    sat_tls_hs h;
    memset(&h, 0, sizeof h);
    h.ts = T0;
    h.flow = 2;
    h.outcome = SAT_TLS_INCOMPLETE;
    h.client_ip = sat_str_cstr("10.0.0.1");
    h.server_ip = c.server_ip; /* the same connection: the same server */
    h.server_port = c.server_port;
    sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
    c.flow = 3; /* a plain close: no failure */
    c.flags = SAT_TCPF_SYNACK;
    c.bytes_s2c = 10;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 2);
    CHECK_EQ_INT(kind_n(v, "fin_waiting"), 1);
    CHECK_EQ_INT(kind_n(v, "tls_incomplete"), 1);
    CHECK_EQ_INT(sat_get_count(v, "deduplicated", 0), 1);
    sat_result_free(r);
    sat_storms_free(s);
}

/* The whole JSON document of a finished analyzer (caller frees). */
static char *json_of(const sat_storms *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_result *r = sat_result_new("storms");
    if (f && r && sat_storms_result(s, r) == SAT_OK)
        sat_result_json(r, f, NULL);
    sat_result_free(r);
    if (f)
        fclose(f);
    return buf;
}

/* A merge of the parts gives the document of one pass, byte for byte. */
static void check_same_json(const sat_storms *whole, const sat_storms *merged)
{
    char *a = json_of(whole), *b = json_of(merged);
    CHECK(a && b && strlen(a) > 100);
    CHECK_EQ_STR(a, b);
    free(a);
    free(b);
}

/* The retry rule, in one analyzer and split across two that merge. */
static void feed_retries(sat_storms *a, sat_storms *b)
{
    sat_event_sink ka = sat_storms_sink(a), kb = sat_storms_sink(b);
    /* A: unanswered (bytes out, none back), retried 0.5 s after it ended */
    sat_tcp_conn c = tcp_row(T0, T0 + 2 * S, 1, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 80, 0);
    sat_sink_emit(&ka, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 2 * S + S / 2, T0 + 3 * S, 2, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&kb, SAT_TABLE_TCP_CONN, &c);
    /* A again: answered, then a new connection at once: not a retry */
    c = tcp_row(T0 + 10 * S, T0 + 11 * S, 3, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&ka, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 11 * S, T0 + 12 * S, 4, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&kb, SAT_TABLE_TCP_CONN, &c);
    /* B: unanswered, next connection 19 s after it ended: too late to be its
     * retry (the default window is 10 s) */
    c = tcp_row(T0, T0 + S, 5, "10.0.0.2", SAT_TCP_END_FIN_CLIENT, 80, 0);
    sat_sink_emit(&ka, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 20 * S, T0 + 21 * S, 6, "10.0.0.2", SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&kb, SAT_TABLE_TCP_CONN, &c);
    /* C: a handshake given up (a failure already), retried: counted as a
     * retry, not as a second failure */
    c = tcp_row(T0, T0 + 2 * S, 7, "10.0.0.3", SAT_TCP_END_RST_CLIENT, 250, 0);
    c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
    sat_sink_emit(&ka, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 2 * S, T0 + 3 * S, 8, "10.0.0.3", SAT_TCP_END_FIN_CLIENT, 250, 900);
    sat_sink_emit(&kb, SAT_TABLE_TCP_CONN, &c);
    /* D: a probe that connects and leaves without a byte: not unanswered */
    c = tcp_row(T0, T0 + S / 10, 9, "10.0.0.4", SAT_TCP_END_FIN_CLIENT, 0, 0);
    sat_sink_emit(&ka, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + S, T0 + S + S / 10, 10, "10.0.0.4", SAT_TCP_END_FIN_CLIENT, 0, 0);
    sat_sink_emit(&kb, SAT_TABLE_TCP_CONN, &c);
}

static void check_retries(const sat_storms *s)
{
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(v, "retries", 0), 2);
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 2);
    CHECK_EQ_INT(kind_n(v, "retried"), 1);
    CHECK_EQ_INT(kind_n(v, "rst_client"), 1);
    sat_result_free(r);
}

/* Clients behind one address: a connection opened while a failed one was
 * still open is not its retry, and one connection retries one failure at
 * most (failures given up one after the other, then one connection: one
 * retry). Failures given up by the client's RST (client_left_ts), the
 * server's late answer ending the connection much later. */
static void test_retries_behind_one_address(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    const char *ip = "10.0.0.9";
    /* F1: given up at +1 s (RST, its request unanswered), ended by the
     * server's late answer at +8 s */
    sat_tcp_conn c = tcp_row(T0, T0 + 8 * S, 1, ip, SAT_TCP_END_RST_CLIENT, 80, 0);
    c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
    c.client_left_ts = T0 + S;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    /* P: another client's, opened while F1 was open: not its retry */
    c = tcp_row(T0 + S / 2, T0 + S / 2 + S / 10, 2, ip, SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    /* R: after F1 was given up: its retry */
    c = tcp_row(T0 + S + S / 5, T0 + S + S / 2, 3, ip, SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    /* F2, F3 given up at +3 s and +3.2 s; N at +4 s retries one of them */
    c = tcp_row(T0 + 2 * S, T0 + 8 * S, 4, ip, SAT_TCP_END_RST_CLIENT, 80, 0);
    c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
    c.client_left_ts = T0 + 3 * S;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 2 * S + S / 2, T0 + 8 * S, 5, ip, SAT_TCP_END_RST_CLIENT, 80, 0);
    c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
    c.client_left_ts = T0 + 3 * S + S / 5;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0 + 4 * S, T0 + 4 * S + S / 2, 6, ip, SAT_TCP_END_FIN_CLIENT, 80, 900);
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(v, "retries", 0), 2);
    CHECK_EQ_INT(kind_n(v, "rst_client"), 3);
    CHECK_EQ_INT(kind_n(v, "retried"), 0);
    sat_result_free(r);
    sat_storms_free(s);
}

static void test_retries(void)
{
    sat_storms *s = sat_storms_create(NULL);
    sat_storms *a = sat_storms_create(NULL), *b = sat_storms_create(NULL);
    CHECK(s && a && b);
    if (s && a && b) {
        feed_retries(s, s);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        check_retries(s);
        feed_retries(a, b);
        CHECK_EQ_INT(sat_storms_merge(a, b), SAT_OK);
        CHECK_EQ_INT(sat_storms_finish(a), SAT_OK);
        check_retries(a);
        check_same_json(s, a);
        CHECK_EQ_INT(sat_storms_finish(a), SAT_OK); /* a second finish counts nothing twice */
        check_retries(a);
    }
    sat_storms_free(s);
    sat_storms_free(a);
    sat_storms_free(b);
}

/* A TLS server that stops answering for 60 s: its handshake answer time
 * rises, an effect: no trigger (nothing in these inputs caused it), with or
 * without clients that keep failing 2 minutes after it answers again. */
static void feed_frozen(sat_storms *s, int keep_failing)
{
    sat_event_sink k = sat_storms_sink(s);
    uint32_t flow = 1;
    for (int t = 0; t < 600; t++) { /* 10 min, a handshake a second */
        int frozen = t >= 300 && t < 360;
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = T0 + t * S;
        h.flow = flow++;
        h.client_ip = sat_str_cstr(t % 2 ? "10.0.0.1" : "10.0.0.2");
        h.server_ip = sat_str_cstr("10.9.9.9"); /* the server of tcp_row's */
        h.server_port = 636;
        h.outcome = frozen ? SAT_TLS_INCOMPLETE : t % 4 ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        h.server_hello_ts = frozen ? 0 : h.ts + S / 1000;
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
        if (keep_failing && t >= 360 && t < 480) { /* clients resetting: not the server */
            sat_tcp_conn c = tcp_row(T0 + t * S, T0 + t * S + S / 2, flow++, "10.0.0.3",
                                     SAT_TCP_END_RST_CLIENT, 200, 100);
            c.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
            sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
        }
    }
}

static void test_frozen_server_trigger(void)
{
    for (int keep = 0; keep < 2; keep++) {
        sat_storms *s = sat_storms_create(NULL);
        CHECK(s != NULL);
        if (!s)
            return;
        feed_frozen(s, keep);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(rows_n(v, "storms"), 1);
        if (rows_n(v, "storms") == 1) {
            const sat_rnode *st = row_of(v, "storms", 0);
            CHECK_EQ_INT(sat_get_time(st, "start_ts", 0), T0 + 300 * S);
            CHECK_EQ_INT(sat_get_time(st, "end_ts", 0), T0 + (keep ? 480 : 360) * S);
            /* the answer time rose, but it is an effect: no cause rose, so
             * no trigger, and nothing is said of outliving one */
            CHECK(!sat_get_has(st, "trigger.signal_name"));
            /* the p90 before it past every answer: no value, said never answered */
            const sat_rnode *sg = signal_row(v, 1, "hs_answer_p90_s");
            CHECK(!sat_get_has(sg, "lead_up") && sat_get_bool(sg, "never_answered", 0) == 1);
            CHECK_EQ_INT(sat_get_bool(sg, "rose", -1), 1);
            CHECK_EQ_INT(sat_get_bool(sg, "cause", -1), 0);
            CHECK_EQ_INT(sat_get_time(sg, "onset_ts", 0), T0 + 300 * S);
            CHECK(!sat_get_has(st, "sustained")); /* untold: no trigger to outlive */
            CHECK_EQ_INT(sat_get_bool(st, "ongoing", -1), 0);
        }
        sat_result_free(r);
        sat_storms_free(s);
    }
}

/* A quiet server, then unindexed searches and slow answers, then abandons. */
static void test_storm_from_rows(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    int64_t conn = 1;
    for (int t = 0; t < 600; t++) { /* 10 min, 2 ops/s */
        for (int j = 0; j < 2; j++) {
            sat_ldap_op o = op_row(T0 + t * S + j * S / 2, conn++, SAT_OP_SRCH, 0, "10.0.0.1");
            int storm = t >= 300 && t < 360;
            o.etime = storm ? 4 * S : S / 500;
            o.wtime = storm ? 3 * S : S / 10000;
            if (storm && j == 0)
                o.notes = SAT_NOTE_A;
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        }
        if (t >= 302 && t < 350) { /* an abandon a second from 3 clients */
            char ip[32];
            snprintf(ip, sizeof ip, "10.0.1.%d", t % 3);
            sat_ldap_op ab = op_row(T0 + t * S, 100000 + t, SAT_OP_ABANDON, 0, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
        }
    }
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(rows_n(v, "storms"), 1);
    if (rows_n(v, "storms") == 1) {
        const sat_rnode *st = row_of(v, "storms", 0);
        CHECK_EQ_INT(sat_get_time(st, "start_ts", 0), T0 + 300 * S);
        CHECK_EQ_INT(sat_get_time(st, "end_ts", 0), T0 + 350 * S);
        CHECK_EQ_INT(sat_get_count(st, "events", 0), 48);
        CHECK_EQ_INT(sat_get_count(st, "client_count", 0), 3);
        CHECK_EQ_INT(sat_get_count(st, "kinds.abandon", 0), 48);
        CHECK_EQ_INT(sat_get_bool(signal_row(v, 1, "unindexed"), "rose", 0), 1);
        CHECK_EQ_INT(sat_get_bool(signal_row(v, 1, "etime_p90_s"), "rose", 0), 1);
        CHECK_EQ_INT(sat_get_bool(signal_row(v, 1, "wtime_mean_s"), "rose", 0), 1);
        CHECK(is_text(st, "trigger.signal_name", "unindexed"));
        CHECK_EQ_INT(sat_get_bool(st, "sustained", -1), 0);
        CHECK_EQ_INT(top_n(v, 1), 3);
    }
    sat_result_free(r);
    sat_storms_free(s);
}

/* A new client floods the server with 40 ops a second for a minute; the
 * others then time out: the trigger is that client. */
static void test_heavy_client(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    int64_t conn = 1;
    for (int t = 0; t < 600; t++) {
        for (int j = 0; j < 4; j++) { /* 4 ops/s from 4 regular clients */
            char ip[32];
            snprintf(ip, sizeof ip, "10.0.0.%d", j + 1);
            sat_ldap_op o = op_row(T0 + t * S + j * (S / 4), conn++, SAT_OP_SRCH, 0, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        }
        if (t >= 290 && t < 350)
            for (int j = 0; j < 40; j++) {
                sat_ldap_op o = op_row(T0 + t * S + j * (S / 40), conn++, SAT_OP_SRCH, 0,
                                       "10.9.9.9");
                sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
            }
        if (t >= 302 && t < 350) {
            sat_ldap_op o = op_row(T0 + t * S, conn++, SAT_OP_SRCH, 3, "10.0.0.2");
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o); /* timeLimitExceeded */
        }
    }
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(rows_n(v, "storms"), 1);
    if (rows_n(v, "storms") == 1) {
        const sat_rnode *st = row_of(v, "storms", 0);
        CHECK(is_text(st, "trigger.signal_name", "heavy_client_ops"));
        CHECK(is_text(st, "heavy_client", "10.9.9.9"));
        const sat_rnode *sg = signal_row(v, 1, "heavy_client_ops");
        CHECK_EQ_INT(sat_get_time(sg, "onset_ts", 0), T0 + 290 * S);
        CHECK(is_text(sg, "client", "10.9.9.9")); /* the signal names whose operations */
        CHECK_EQ_INT(sat_get_bool(sg, "cause", 0), 1);
    }
    sat_result_free(r);
    sat_storms_free(s);
}

/* The trigger (unindexed searches) stops after 30 s, the abandons go on for
 * two more minutes, their clients retrying on new connections: metastable,
 * kept going by the retries. Rows of the first and second half fed to two
 * analyzers and merged give the same storm as one analyzer. */
static void feed_metastable(sat_storms *s, int half)
{
    sat_event_sink k = sat_storms_sink(s);
    for (int t = 0; t < 600; t++) {
        if ((t < 300) != (half == 0) && half >= 0)
            continue;
        sat_ldap_op o = op_row(T0 + t * S, 1 + t, SAT_OP_SRCH, 0, "10.0.0.1");
        int trig = t >= 300 && t < 330;
        o.etime = trig ? 8 * S : S / 500;
        o.wtime = S / 10000;
        if (trig)
            o.notes = SAT_NOTE_A;
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        if (trig) {
            o.ts_ns += S / 2;
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
            o.ts_ns += S / 4;
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        }
        if (t >= 305 && t < 450) {
            char ip[32];
            snprintf(ip, sizeof ip, "10.0.2.%d", t % 7);
            sat_ldap_op ab = op_row(T0 + t * S, 200000 + t, SAT_OP_ABANDON, 0, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
            /* the client hangs up and comes back 7 s later on a new
             * connection: a retry of the one it gave up on */
            sat_ldap_conn c = conn_row(T0 + t * S + S, 200000 + t, SAT_CLOSE_A1, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
        }
    }
}

/* The command's text reads the result: the storm first with its trigger, its
 * chain and SUSTAINED, every line within 100 columns; the CSV tables it names
 * are the result's, the main one first. */
static void check_text_and_tables(sat_result *r)
{
    rc_check_tables(r);
    const char *const *csv = sat_csv_tables("storms");
    CHECK(csv && !strcmp(csv[0], "storms"));
    CHECK(sat_result_main(r) == sat_rnode_get(sat_result_root(r), "storms"));
    char *buf = rc_render(r, AS_TEXT, NULL);
    if (!buf)
        return;
    const char *storm = strstr(buf, "\nSTORM 1 ");
    const char *sus = strstr(buf, "\n  SUSTAINED   the failures");
    const char *chain = strstr(buf, "\n  chain       unindexed searches, operations, connections "
                                    "opened -> etime p90 -> 145 client failures\n");
    const char *totals = strstr(buf, "\nClient failures: ");
    CHECK(storm && sus && chain && totals && storm < chain && chain < totals && sus < totals);
    CHECK(sus && strstr(sus, "a self-sustaining failure,\n"
                             "              kept going by clients retrying what failed (0 per "
                             "window usually, 7.6 while the\n"));
    if (!(storm && sus && chain && totals))
        fprintf(stderr, "%s", buf);
    CHECK(rc_widest(buf) <= SAT_TEXT_WIDTH);
    free(buf);
}

static void test_metastable_and_merge(void)
{
    sat_storms *whole = sat_storms_create(NULL), *a = sat_storms_create(NULL),
               *b = sat_storms_create(NULL);
    CHECK(whole && a && b);
    if (!whole || !a || !b)
        return;
    feed_metastable(whole, -1);
    feed_metastable(a, 0);
    feed_metastable(b, 1);
    CHECK_EQ_INT(sat_storms_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(whole), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(a), SAT_OK);
    check_same_json(whole, a);
    sat_result *rw = result_of(whole), *rm = result_of(a);
    const sat_rnode *v = sat_result_root(rw), *m = sat_result_root(rm);
    CHECK_EQ_INT(rows_n(v, "storms"), 1);
    CHECK_EQ_INT(rows_n(m, "storms"), 1);
    if (rows_n(v, "storms") == 1 && rows_n(m, "storms") == 1) {
        const sat_rnode *st = row_of(v, "storms", 0), *mt = row_of(m, "storms", 0);
        CHECK(is_text(st, "trigger.signal_name", "unindexed"));
        /* back when its 3-window mean is back within the usual range */
        CHECK_EQ_INT(sat_get_time(signal_row(v, 1, "unindexed"), "back_ts", 0), T0 + 350 * S);
        CHECK_EQ_INT(sat_get_bool(st, "sustained", -1), 1);
        CHECK(sat_get_dur(st, "sustained_s", NAN) >= 100.0);
        CHECK(is_text(st, "mechanism", "retries"));
        CHECK(is_text(st, "sustained_by", "clients retrying what failed"));
        CHECK(sat_get_num(st, "mechanism_usual", NAN) == 0.0);
        CHECK(sat_get_num(st, "mechanism_after", NAN) >= 9.0);
        CHECK_EQ_INT(sat_get_count(st, "client_count", 0), 7);
        CHECK_EQ_INT(sat_get_time(mt, "start_ts", 0), sat_get_time(st, "start_ts", 0));
        CHECK_EQ_INT(sat_get_time(mt, "end_ts", 0), sat_get_time(st, "end_ts", 0));
        CHECK_EQ_INT(sat_get_count(mt, "events", 0), sat_get_count(st, "events", 0));
        CHECK_EQ_INT(sat_get_count(mt, "client_count", 0), sat_get_count(st, "client_count", 0));
        CHECK_EQ_INT(sat_get_bool(mt, "sustained", -1), 1);
        CHECK_EQ_INT(top_n(m, 1), top_n(v, 1));
        const sat_rnode *tv = row_of(v, "top_clients", 0), *tm = row_of(m, "top_clients", 0);
        if (tv && tm) {
            CHECK_EQ_STR(sat_get_text(tm, "client", ""), sat_get_text(tv, "client", ""));
            CHECK_EQ_INT(sat_get_count(tm, "events", 0), sat_get_count(tv, "events", 0));
        }
    }
    sat_result_free(rw);
    sat_result_free(rm);
    /* the report: the JSON keys of issue 4 */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (f) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        sat_result *r = sat_result_new("storms");
        CHECK_EQ_INT(sat_storms_result(whole, r), SAT_OK);
        CHECK_EQ_INT(sat_result_json(r, f, &d), SAT_OK);
        check_text_and_tables(r);
        sat_result_free(r);
        fclose(f);
        static const char *const keys[] = {"\"storms\"", "\"start_ts\"", "\"end_ts\"",
                                           "\"peak_ts\"", "\"events\"", "\"client_count\"",
                                           "\"kinds\"", "\"trigger\": {\"signal_name\": \"unindexed\"",
                                           "\"sustained\": true"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            CHECK(buf && strstr(buf, keys[i]) != NULL);
        free(buf);
    }
    sat_storms_free(whole);
    sat_storms_free(a);
    sat_storms_free(b);
}

/* A year of one failure an hour, and a burst: the windows widen, memory stays bounded. */
static void test_widening(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    for (int h = 0; h < 24 * 365; h++) {
        sat_ldap_conn c = conn_row(T0 + (sat_ts_ns)h * 3600 * S, h, SAT_CLOSE_B1, "10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    }
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 24 * 365);
    CHECK(sat_get_count(v, "window_count", 0) <= 4 * 4096);
    CHECK(dur_ns(v, "window_s") > 10 * S);
    sat_result_free(r);
    sat_storms_free(s);
}

/* A short capture: a TLS server frozen while 4 clients give up 3 times each
 * (12 handshakes abandoned, 6 completed) in 6 s. The default follows the
 * input (1 s here) and finds one storm of 12, though the storm fills half
 * the windows (too short for a baseline of its own: measured against the
 * floor); an explicit --window is obeyed. */
static void feed_short_capture(sat_storms *s)
{
    sat_event_sink k = sat_storms_sink(s);
    sat_ts_ns t0 = T0 + S / 10;
    uint32_t flow = 1;
    static const double ok_at[6] = {0.1, 0.4, 0.8, 4.6, 5.2, 5.9};
    for (int i = 0; i < 6; i++) {
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = t0 + (sat_ts_ns)(ok_at[i] * 1e9);
        h.server_hello_ts = h.ts + S / 100;
        h.flow = flow++;
        h.outcome = SAT_TLS_FULL;
        h.client_ip = sat_str_cstr("10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
    }
    static const char *const clients[4] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};
    for (int c = 0; c < 4; c++)
        for (int n = 0; n < 3; n++) {
            sat_tls_hs h;
            memset(&h, 0, sizeof h);
            h.ts = t0 + S + (sat_ts_ns)c * S / 4 + (sat_ts_ns)n * S;
            h.flow = flow++;
            h.outcome = SAT_TLS_INCOMPLETE;
            h.client_ip = sat_str_cstr(clients[c]);
            sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
        }
}

static void test_short_mostly_storm(void)
{
    /* 7 windows of 1 s, 4 of them the storm: the lower median (1) would be
     * the storm's own level; a series this short is measured against the floor */
    static const uint64_t x[7] = {0, 3, 4, 4, 1, 0, 0};
    sat_storm_span sp[4];
    CHECK_EQ_INT(sat_storms_detect(x, 7, 0.05, sp, 4), 1);
    CHECK_EQ_INT(sp[0].start, 1);
    CHECK(sp[0].end >= 3 && sp[0].end <= 4);
}

static void test_window_follows_input(void)
{
    static const sat_dur_ns windows[3] = {0, 10 * S, S};
    for (int i = 0; i < 3; i++) {
        sat_storms_opts o;
        memset(&o, 0, sizeof o);
        o.window = windows[i];
        sat_storms *s = sat_storms_create(&o);
        CHECK(s != NULL);
        if (!s)
            return;
        feed_short_capture(s);
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(sat_get_count(v, "events", 0), 12);
        CHECK_EQ_INT(rows_n(v, "periods"), 1);
        CHECK(is_text(v, "window_chosen", i == 0 ? "auto" : "option"));
        CHECK_EQ_INT(dur_ns(v, "window_s"), i == 1 ? 10 * S : S);
        CHECK(is_text(row_of(v, "periods", 0), "window_why", i == 0 ? "shortest" : "option"));
        CHECK_EQ_INT(rows_n(v, "storms"), 1);
        if (rows_n(v, "storms")) {
            const sat_rnode *st = row_of(v, "storms", 0);
            CHECK_EQ_INT(sat_get_count(st, "events", 0), 12);
            CHECK_EQ_INT(sat_get_count(st, "client_count", 0), 4);
            CHECK_EQ_INT(dur_ns(st, "window_s"), dur_ns(v, "window_s"));
        }
        sat_result_free(r);
        sat_storms_free(s);
    }
}

/* The step each length of input gets: the longest of 10, 5, 2, 1 s giving
 * 30 windows, else 1 s. */
static void test_choose_step(void)
{
    static const struct {
        int span_s;
        sat_dur_ns want;
        const char *why;
    } cases[] = {{3600, 10 * S, "longest"}, {300, 10 * S, "longest"}, {180, 5 * S, "shorter"},
                 {68, 2 * S, "shorter"},    {40, S, "shorter"},       {6, S, "shortest"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sat_storms *s = sat_storms_create(NULL);
        CHECK(s != NULL);
        if (!s)
            return;
        sat_event_sink k = sat_storms_sink(s);
        /* a connection opened each second, a clean close: rows, no failure */
        for (int t = 0; t < cases[c].span_s; t++) {
            sat_ldap_conn r = conn_row(T0 + (sat_ts_ns)(t + 1) * S, t, SAT_CLOSE_U1, "10.0.0.1");
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &r);
        }
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r), *p = row_of(v, "periods", 0);
        CHECK_EQ_INT(rows_n(v, "periods"), 1);
        CHECK_EQ_INT(dur_ns(v, "window_s"), cases[c].want);
        CHECK(is_text(p, "window_why", cases[c].why));
        CHECK_EQ_INT(sat_get_count(v, "baseline_windows", 0), 30);
        CHECK(!strcmp(cases[c].why, "shortest") ||
              sat_get_count(p, "window_count", 0) >= sat_get_count(v, "baseline_windows", 0));
        sat_result_free(r);
        sat_storms_free(s);
    }
}

/* Last month's log with its incident and a capture taken today, read
 * together (and split over two analyzers that merge): two periods, each at
 * its own step with its own storm, each named with its inputs. One 10 s
 * series over both would have 5,000 s windows and no storm. */
static void feed_month_old_log(sat_storms *s, sat_ts_ns t0)
{
    sat_event_sink k = sat_storms_sink(s);
    sat_source src;
    memset(&src, 0, sizeof src);
    src.path = sat_str_cstr("old/access");
    src.kind = sat_str_cstr("log");
    src.first_ts = t0 + S;
    src.last_ts = t0 + 3600 * S;
    int64_t conn = 1;
    for (int t = 1; t <= 3600; t++) {
        sat_ldap_conn r = conn_row(t0 + (sat_ts_ns)t * S, conn++, SAT_CLOSE_U1, "10.0.0.1");
        sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &r);
        if (t >= 1200 && t < 1260 && t % 3 == 0) { /* the incident: 20 abrupt closes */
            r = conn_row(t0 + (sat_ts_ns)t * S + S / 2, conn++, SAT_CLOSE_B1, "10.0.0.2");
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &r);
        }
    }
    sat_sink_emit(&k, SAT_TABLE_SOURCE, &src);
}

static void feed_todays_capture(sat_storms *s, sat_ts_ns t0)
{
    sat_event_sink k = sat_storms_sink(s);
    sat_source src;
    memset(&src, 0, sizeof src);
    src.path = sat_str_cstr("today.pcap");
    src.kind = sat_str_cstr("pcap");
    src.first_ts = t0;
    src.last_ts = t0 + 40 * S;
    for (int i = 0; i < 400; i++) { /* 10 connections a second; 20 s in, 100 never answered */
        sat_tcp_conn c = tcp_row(t0 + (sat_ts_ns)i * S / 10, t0 + (sat_ts_ns)i * S / 10 + S / 5,
                                 (uint32_t)i + 1, "10.1.0.1", SAT_TCP_END_FIN_CLIENT, 100, 100);
        if (i >= 200 && i < 300) {
            c.flags = SAT_TCPF_SYN_GAVE_UP;
            c.end = SAT_TCP_END_NONE;
            c.end_ts = c.syn_ts;
            c.bytes_c2s = c.bytes_s2c = 0;
        }
        sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    }
    sat_sink_emit(&k, SAT_TABLE_SOURCE, &src);
}

static void check_two_periods(const sat_storms *s, sat_ts_ns today)
{
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    const sat_rnode *p0 = row_of(v, "periods", 0), *p1 = row_of(v, "periods", 1);
    CHECK_EQ_INT(rows_n(v, "periods"), 2);
    if (rows_n(v, "periods") != 2) {
        sat_result_free(r);
        return;
    }
    CHECK_EQ_INT(dur_ns(p0, "window_s"), 10 * S);
    CHECK(is_text(p0, "window_why", "longest"));
    CHECK_EQ_INT(dur_ns(p1, "window_s"), S);
    CHECK(sat_get_time(p1, "start_ts", 0) >= today - S &&
          sat_get_time(p1, "end_ts", 0) <= today + 42 * S);
    const sat_rnode *in0 = sat_get_list(p0, "inputs"), *in1 = sat_get_list(p1, "inputs");
    CHECK_EQ_INT(sat_rnode_count(in0), 1);
    CHECK_EQ_INT(sat_rnode_count(in1), 1);
    if (sat_rnode_count(in0) == 1 && sat_rnode_count(in1) == 1) {
        CHECK_EQ_STR(sat_get_text(sat_rnode_first(in0), NULL, ""), "old/access");
        CHECK_EQ_STR(sat_get_text(sat_rnode_first(in1), NULL, ""), "today.pcap");
    }
    CHECK_EQ_INT(rows_n(v, "storms"), 2);
    if (rows_n(v, "storms") == 2) {
        const sat_rnode *s0 = row_of(v, "storms", 0), *s1 = row_of(v, "storms", 1);
        CHECK_EQ_INT(sat_get_count(s0, "period", 0), 1);
        CHECK_EQ_INT(sat_get_count(s0, "kinds.close_B1", 0), 20);
        CHECK_EQ_INT(sat_get_count(s1, "period", 0), 2);
        CHECK_EQ_INT(sat_get_count(s1, "kinds.syn_unanswered", 0), 100);
        CHECK_EQ_INT(dur_ns(s1, "window_s"), S);
    }
    sat_result_free(r);
}

static void test_periods(void)
{
    sat_ts_ns month_ago = T0, today = T0 + 30LL * 86400 * S;
    sat_storms *whole = sat_storms_create(NULL), *a = sat_storms_create(NULL),
               *b = sat_storms_create(NULL);
    CHECK(whole && a && b);
    if (!whole || !a || !b)
        return;
    feed_month_old_log(whole, month_ago);
    feed_todays_capture(whole, today);
    CHECK_EQ_INT(sat_storms_finish(whole), SAT_OK);
    check_two_periods(whole, today);
    feed_month_old_log(a, month_ago);
    feed_todays_capture(b, today);
    CHECK_EQ_INT(sat_storms_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(a), SAT_OK);
    check_two_periods(a, today);
    check_same_json(whole, a);
    sat_storms_free(whole);
    sat_storms_free(a);
    sat_storms_free(b);
}

/* Two hours of log (7,200 one-second windows: the 1 s series is no longer
 * counted past 4,096) and a 20 s capture a day later: the capture gets the
 * finest step still counted, 2 s, and says it wanted 1 s; the same in
 * either order of the rows. */
static void test_dropped_series(void)
{
    for (int order = 0; order < 2; order++) {
        sat_storms *s = sat_storms_create(NULL);
        CHECK(s != NULL);
        if (!s)
            return;
        sat_event_sink k = sat_storms_sink(s);
        for (int i = 0; i < 7200 + 20; i++) {
            int t = order ? 7200 + 20 - 1 - i : i;
            sat_ts_ns ts = t < 7200 ? T0 + (sat_ts_ns)t * S : T0 + 86400 * S + (sat_ts_ns)(t - 7200) * S;
            sat_ldap_conn r = conn_row(ts, t, SAT_CLOSE_U1, "10.0.0.1");
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &r);
        }
        CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
        sat_result *r = result_of(s);
        const sat_rnode *v = sat_result_root(r);
        CHECK_EQ_INT(rows_n(v, "periods"), 2);
        if (rows_n(v, "periods") == 2) {
            CHECK_EQ_INT(dur_ns(row_of(v, "periods", 0), "window_s"), 10 * S);
            CHECK_EQ_INT(dur_ns(row_of(v, "periods", 1), "window_chosen_s"), S);
            CHECK_EQ_INT(dur_ns(row_of(v, "periods", 1), "window_s"), 2 * S);
        }
        sat_result_free(r);
        sat_storms_free(s);
    }
}

/* A connection attempt never answered is one failure, dated when the client
 * gave up (its RST, else its last SYN + 1 s), and takes the place of the
 * SYN retry the same connection shows; a SYN answered after a retry is a
 * syn_retry when the client then sent nothing on it. */
static void test_syn_unanswered(void)
{
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    sat_tcp_conn c = tcp_row(T0, T0 + S, 1, "10.0.0.1", SAT_TCP_END_NONE, 0, 0);
    c.flags = SAT_TCPF_SYN_GAVE_UP;
    c.syn_retrans = 1;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c.flow = 2; /* reset by the client when the late SYN/ACK came */
    c.flags = SAT_TCPF_SYN_GAVE_UP | SAT_TCPF_SYNACK;
    c.syn_retrans = 0;
    c.end = SAT_TCP_END_RST_CLIENT;
    c.client_left_ts = T0 + 5 * S;
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0, T0 + 3 * S, 3, "10.0.0.1", SAT_TCP_END_FIN_SERVER, 10, 10);
    c.syn_retrans = 1; /* answered after a retry, then served: slow, not failed */
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0, T0 + 3 * S, 5, "10.0.0.1", SAT_TCP_END_FIN_CLIENT, 0, 0);
    c.syn_retrans = 1; /* answered after a retry, too late: the client left at once */
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    c = tcp_row(T0, T0 + 3 * S, 4, "10.0.0.1", SAT_TCP_END_NONE, 0, 0);
    c.flags = 0; /* unanswered, but the capture ended before its timeout: nothing */
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, &c);
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(kind_n(v, "syn_unanswered"), 2);
    CHECK_EQ_INT(kind_n(v, "syn_retry"), 1);
    CHECK_EQ_INT(sat_get_count(v, "events", 0), 3);
    /* the reset one dated at its RST (T0 + 5 s): the input's last window */
    CHECK_EQ_INT(rows_n(v, "periods"), 1);
    if (rows_n(v, "periods"))
        CHECK_EQ_INT(sat_get_time(row_of(v, "periods", 0), "end_ts", 0), T0 + 6 * S);
    sat_result_free(r);
    CHECK_EQ_STR(sat_storm_kind_name(SAT_STORM_SYN_UNANSWERED), "syn_unanswered");
    sat_storms_free(s);
}

/* A batch whose unindexed searches go on to the end of the input at a low,
 * bursty rate (4, 4, 2, 3, 2, 1, 1, 4, 3, 2, 1 per 10 s window) while clients
 * keep failing and never retry: the trigger never went back to usual (its
 * 3-window mean stays above the baseline's range), so the failures did not
 * outlive it; read against the onset's level, "back" came early and named a
 * self-sustaining storm that was not. */
static void test_batch_to_the_end(void)
{
    static const int per_window[] = {4, 4, 2, 3, 2, 1, 1, 4, 3, 2, 1};
    sat_storms *s = sat_storms_create(NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    sat_event_sink k = sat_storms_sink(s);
    for (int t = 0; t < 900; t++) {
        sat_ldap_op o = op_row(T0 + t * S, 1 + t, SAT_OP_SRCH, 0, "10.0.0.1");
        o.etime = S / 500;
        o.wtime = S / 10000;
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        if (t >= 300 && t % 10 == 0) { /* this window's unindexed searches */
            int n = t < 330 ? 6 : per_window[(t / 10 - 33) % 11];
            for (int i = 0; i < n; i++) {
                sat_ldap_op u = op_row(T0 + t * S + i * (S / 10), 50000 + t * 10 + i, SAT_OP_SRCH,
                                       0, "10.9.0.1");
                u.etime = 8 * S;
                u.wtime = S / 10000;
                u.notes = SAT_NOTE_A;
                sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &u);
            }
        }
        if (t >= 305 && t < 880) { /* clients giving up, never coming back */
            char ip[32];
            snprintf(ip, sizeof ip, "10.0.2.%d", t % 7);
            sat_ldap_op ab = op_row(T0 + t * S, 200000 + t, SAT_OP_ABANDON, 0, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
        }
    }
    CHECK_EQ_INT(sat_storms_finish(s), SAT_OK);
    sat_result *r = result_of(s);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(rows_n(v, "storms"), 1);
    if (rows_n(v, "storms") == 1) {
        const sat_rnode *st = row_of(v, "storms", 0);
        CHECK(is_text(st, "trigger.signal_name", "unindexed"));
        CHECK(!sat_get_has(st, "trigger.back_ts")); /* never back to usual */
        CHECK_EQ_INT(sat_get_bool(st, "sustained", -1), 0);
        CHECK(!sat_get_has(st, "sustained_by"));
        CHECK(!sat_get_has(st, "mechanism")); /* no retry, no reconnect rose */
    }
    sat_result_free(r);
    sat_storms_free(s);
}

/* ---- servers told apart ---------------------------------------------------------------- */
/* An input's source row (they come after its rows). */
static void emit_source(sat_event_sink *k, uint32_t id, uint32_t server, const char *path,
                        const char *kind, sat_ts_ns first, sat_ts_ns last)
{
    sat_source src;
    memset(&src, 0, sizeof src);
    src.id = id;
    src.server = server;
    src.path = sat_str_cstr(path);
    src.kind = sat_str_cstr(kind);
    src.first_ts = first;
    src.last_ts = last;
    sat_sink_emit(k, SAT_TABLE_SOURCE, &src);
}

/* The log of 10.0.0.5:636 (server 0: a storm from T0 + 310 s, its trigger
 * an unindexed batch from T0 + 300 s), and, when capture_ip is set, a
 * capture (server 1) of capture_ip:port whose four handshakes given up
 * fall in the window before the log's storm. */
static void feed_two_servers(sat_storms *s, const char *capture_ip, uint16_t port)
{
    sat_event_sink k = sat_storms_sink(s);
    /* as feed_metastable, the failures from 12 s after the batch began */
    for (int t = 0; t < 600; t++) {
        sat_ldap_op o = op_row(T0 + t * S, 1 + t, SAT_OP_SRCH, 0, "10.0.0.1");
        int trig = t >= 300 && t < 330;
        o.etime = trig ? 8 * S : S / 500;
        o.wtime = S / 10000;
        if (trig)
            o.notes = SAT_NOTE_A;
        for (int n = 0; n < (trig ? 3 : 1); n++, o.ts_ns += S / 4)
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        if (t >= 312 && t < 450) {
            char ip[32];
            snprintf(ip, sizeof ip, "10.0.2.%d", t % 7);
            sat_ldap_op ab = op_row(T0 + t * S, 200000 + t, SAT_OP_ABANDON, 0, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
            sat_ldap_conn c = conn_row(T0 + t * S + S, 200000 + t, SAT_CLOSE_A1, ip);
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
        }
    }
    sat_ldap_conn c = conn_row(T0 + 10 * S, 1, SAT_CLOSE_NONE, "10.0.0.1");
    c.server_addr = sat_str_cstr("10.0.0.5:636"); /* OpenLDAP: ACCEPT ... (IP=10.0.0.5:636) */
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    emit_source(&k, 0, 0, "slapd.log", "log", T0, T0 + 600 * S);
    if (!capture_ip)
        return;
    for (int i = 0; i < 4; i++) {
        sat_tls_hs h;
        memset(&h, 0, sizeof h);
        h.ts = T0 + 302 * S + i * S;
        h.source = 1;
        h.flow = 1 + (uint32_t)i;
        h.outcome = SAT_TLS_INCOMPLETE;
        h.client_ip = sat_str_cstr("127.0.0.1");
        h.server_ip = sat_str_cstr(capture_ip);
        h.server_port = port;
        sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
    }
    emit_source(&k, 1, 1, "other.pcap", "pcap", T0 + 302 * S, T0 + 306 * S);
}

/* Each storm belongs to one server: a capture of another server (its
 * address and port are not the log's) whose failures fall just before the
 * log's storm leaves the storm, its window, its trigger and its verdict as
 * the log alone gives them; the capture's failures are its server's. A
 * capture of the log's own server is the same server: its failures count
 * in the log's windows (and here start the storm a window earlier). */
static void test_servers_apart(void)
{
    sat_storms *alone = sat_storms_create(NULL), *two = sat_storms_create(NULL),
               *same = sat_storms_create(NULL);
    CHECK(alone && two && same);
    if (!alone || !two || !same)
        return;
    feed_two_servers(alone, NULL, 0);
    feed_two_servers(two, "127.0.0.1", 44104);
    feed_two_servers(same, "10.0.0.5", 636);
    CHECK_EQ_INT(sat_storms_finish(alone), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(two), SAT_OK);
    CHECK_EQ_INT(sat_storms_finish(same), SAT_OK);
    sat_result *ra = result_of(alone), *rt = result_of(two), *rs = result_of(same);
    const sat_rnode *a = sat_result_root(ra), *t = sat_result_root(rt), *m = sat_result_root(rs);
    /* the log's storm: the biggest */
    const sat_rnode *sa = row_of(a, "storms", 0), *st = NULL;
    for (size_t i = 0; i < rows_n(t, "storms"); i++)
        if (!st || sat_get_count(row_of(t, "storms", i), "events", 0) >
                       sat_get_count(st, "events", 0))
            st = row_of(t, "storms", i);
    CHECK(sa && st);
    CHECK(is_text(sa, "server_addr", "10.0.0.5:636"));
    CHECK(is_text(st, "server_addr", "10.0.0.5:636"));
    CHECK(is_text(sa, "trigger.signal_name", "unindexed"));
    if (sa && st) {
        CHECK_EQ_INT(sat_get_time(st, "start_ts", 0), sat_get_time(sa, "start_ts", 0));
        CHECK_EQ_INT(sat_get_time(st, "end_ts", 0), sat_get_time(sa, "end_ts", 0));
        CHECK_EQ_INT(sat_get_count(st, "events", 0), sat_get_count(sa, "events", 0));
        CHECK(is_text(st, "trigger.signal_name", "unindexed"));
        CHECK_EQ_INT(sat_get_time(st, "trigger.onset_ts", 0),
                     sat_get_time(sa, "trigger.onset_ts", 0));
        /* the onset before the storm's start, as in the log alone */
        CHECK(sat_get_time(st, "trigger.onset_ts", 0) < sat_get_time(st, "start_ts", 0));
        CHECK_EQ_INT(sat_get_bool(st, "sustained", -1), sat_get_bool(sa, "sustained", -2));
        CHECK(is_text(st, "mechanism", sat_get_text(sa, "mechanism", "?")));
    }
    /* the capture's failures: its own server, never in the log's storm */
    CHECK_EQ_INT(rows_n(t, "servers"), 2);
    const sat_rnode *sv = sat_get_table(t, "servers");
    const sat_rnode *cap = sat_get_row(sv, "server_addr", "127.0.0.1:44104");
    CHECK(cap != NULL);
    CHECK_EQ_INT(sat_get_count(cap, "events", 0), 4);
    CHECK_EQ_STR(sat_get_text(rc_row(sat_get_list(cap, "inputs"), 0), NULL, ""), "other.pcap");
    const sat_rnode *logsv = sat_get_row(sv, "server_addr", "10.0.0.5:636");
    CHECK_EQ_STR(sat_get_text(rc_row(sat_get_list(logsv, "inputs"), 0), NULL, ""), "slapd.log");
    for (size_t i = 0; i < rows_n(t, "storms"); i++)
        CHECK(!is_text(row_of(t, "storms", i), "server_addr", "10.0.0.5:636") ||
              sat_get_count(row_of(t, "storms", i), "kinds.tls_incomplete", 0) == 0);
    /* the same handshakes captured on the log's server: one server, its
     * failures in the log's windows (the storm starts a window earlier) */
    CHECK_EQ_INT(rows_n(m, "servers"), 1);
    const sat_rnode *sm = row_of(m, "storms", 0);
    CHECK(is_text(sm, "server_addr", "10.0.0.5:636"));
    CHECK_EQ_INT(sat_get_count(sm, "kinds.tls_incomplete", 0), 4);
    CHECK(sat_get_time(sm, "start_ts", 0) < sat_get_time(sa, "start_ts", 0));
    sat_result_free(ra);
    sat_result_free(rt);
    sat_result_free(rs);
    sat_storms_free(alone);
    sat_storms_free(two);
    sat_storms_free(same);
}

/* The histogram's buckets by table are the log rule's, to the nanosecond:
 * every threshold and its neighbours, and a sweep of durations. */
static int bucket_by_log(int64_t d)
{
    double us = (double)d / 1e3;
    int b = us <= 10.0 ? 0 : 1 + (int)(log(us / 10.0) / log(1.25));
    return b < 0 ? 0 : b >= ST_HIST ? ST_HIST - 1 : b;
}

static void test_hist_bucket(void)
{
    int bad = 0;
    for (int64_t d = -5; d < 200000 && bad < 5; d += 7)
        bad += st_hist_bucket(d) != bucket_by_log(d);
    for (double x = 1e4; x < 1e15 && bad < 5; x *= 1.0137)
        for (int k = -2; k <= 2; k++)
            bad += st_hist_bucket((int64_t)x + k) != bucket_by_log((int64_t)x + k);
    for (double t = 10000.0; t < 5e14 && bad < 5; t *= 1.25)
        for (int k = -3; k <= 3; k++)
            bad += st_hist_bucket((int64_t)t + k) != bucket_by_log((int64_t)t + k);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(st_hist_bucket(INT64_MAX), ST_HIST - 1);
    CHECK_EQ_INT(st_hist_bucket(INT64_MIN), 0);
}

int main(void)
{
    test_hist_bucket();
    test_false_alarms();
    test_doubling();
    test_dozen_against_zero();
    test_dedup_ldap();
    test_dedup_answer_then_close();
    test_dedup_wire();
    test_closed_waiting();
    test_fin_waiting();
    test_retries();
    test_retries_behind_one_address();
    test_frozen_server_trigger();
    test_storm_from_rows();
    test_heavy_client();
    test_metastable_and_merge();
    test_servers_apart();
    test_batch_to_the_end();
    test_widening();
    test_short_mostly_storm();
    test_window_follows_input();
    test_choose_step();
    test_periods();
    test_syn_unanswered();
    test_dropped_series();
    return CHECK_DONE();
}
