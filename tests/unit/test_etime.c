/*
 * test_etime.c - the etime analyzer (analyze/etime.c) fed handcrafted rows
 * through its sink, no parser: counts, quantiles and shares, SASL step and
 * AUTOBIND folding, every letter of notes=P,A, case-insensitive root DN,
 * result codes above 97, no division by zero without etimes, peak
 * concurrency (with missing open/close lines), caps with "(other)", a
 * merge of two halves equal to a single pass, and a 60-day span of 5 million
 * counted connections: exact peak, series coarsened, memory bounded.
 * Merging is checked whole: the rows of real collections (fixtures/incident,
 * 389ds-load, slapd-load, internal, 389ds, trace-v1.0) cut into parts at
 * several rows and merged give the same JSON and text, byte for byte, as one
 * pass, for every --by; and every byte of the counters record is one of its
 * descriptor's fields (a counter without its line would not merge).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyze/etime_int.h"
#include "check.h"
#include "satscope/parse.h"
#include "satscope/analyze.h"
#include "satscope/collect.h"
#include "satscope/report.h"
#include "satscope/trace.h"
#include "result_check.h"
#include "row_copies.h"

#define S 1000000000LL
#define T0 (1749366000LL * S) /* 2025-06-08T07:00:00Z */

static sat_ldap_op mkop(int type, int64_t conn, int64_t opn, sat_ts_ns ts, int err,
                        sat_dur_ns etime)
{
    /* start from "nothing known", as a parser would */
    sat_ldap_record blank;
    sat_ldap_record_clear(&blank);
    sat_ldap_op o = blank.op_fields;
    o.ts_ns = ts;
    o.result_ts_ns = err == SAT_ABSENT ? 0 : ts + (etime > 0 ? etime : 0);
    o.conn = conn;
    o.op = opn;
    o.type = (uint8_t)type;
    o.scope = SAT_SCOPE_NONE;
    o.err = err;
    o.etime = etime;
    o.client_ip = sat_str_cstr("10.0.0.1");
    o.bind_dn = sat_str_cstr("uid=app,ou=people,dc=example,dc=com");
    return o;
}

static sat_ldap_conn mkconn(int64_t conn, sat_ts_ns open, sat_ts_ns close, int listener,
                            int code)
{
    sat_ldap_conn c;
    memset(&c, 0, sizeof c);
    c.open_ts = open;
    c.close_ts = close;
    c.conn = conn;
    c.fd = (int32_t)(64 + conn);
    c.listener = (uint8_t)listener;
    c.close_code = (uint8_t)code;
    c.flags = close ? 0 : SAT_CONNF_UNCLOSED;
    if (!open)
        c.flags |= SAT_CONNF_NO_OPEN;
    c.client_ip = sat_str_cstr("10.0.0.1");
    return c;
}

static int build_etime(const void *e, sat_result *r)
{
    return sat_etime_result((const sat_etime *)e, r);
}

/* The finished analyzer's result; the caller frees it. */
static sat_result *res_of(const sat_etime *e) { return rc_result("etime", build_etime, e); }

/* The row of an operation type ("SRCH", "all") of the ops table. */
static const sat_rnode *op_row(const sat_rnode *root, const char *name)
{
    return sat_get_row(sat_get_table(root, "ops"), "op", name);
}

static uint64_t err_count(const sat_rnode *root, int code)
{
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "result_codes")); r;
         r = sat_rnode_next(r))
        if (sat_get_int(r, "result_code", -1) == code)
            return sat_get_count(r, "count", 0);
    return 0;
}

/* A count at path (UINT64_MAX when absent: never equal to an expected one). */
static uint64_t cnt(const sat_rnode *n, const char *path) { return sat_get_count(n, path, UINT64_MAX); }
static double num(const sat_rnode *n, const char *path) { return sat_get_num(n, path, NAN); }

static void test_counts_quantiles_shares(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    /* 100 searches with etime 1..100 ms, wtime 1 ms, optime etime-1ms */
    for (int i = 1; i <= 100; i++) {
        sat_ldap_op o = mkop(SAT_OP_SRCH, 1, i, T0 + i * S, 0, (sat_dur_ns)i * 1000000);
        o.wtime = 1000000;
        o.optime = o.etime - 1000000;
        o.dn = sat_str_cstr("dc=example,dc=com");
        o.filter = sat_str_cstr("(uid=u1)");
        o.filter_shape = sat_str_cstr("(uid=*)");
        o.attrs = sat_str_cstr("cn mail CN");
        o.nentries = 1;
        CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), 0);
    }
    /* 10 MODs of 505 ms each: same total as all the searches (5.05 s) */
    for (int i = 0; i < 10; i++) {
        sat_ldap_op o = mkop(SAT_OP_MOD, 2, i, T0 + 50 * S, 0, 505000000);
        o.dn = sat_str_cstr("uid=x,dc=example,dc=com");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    }
    /* an unbind and an abandon: counted, no timings */
    sat_ldap_op u = mkop(SAT_OP_UNBIND, 1, 101, T0 + 101 * S, SAT_ABSENT, SAT_ABSENT);
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &u);
    sat_ldap_op ab = mkop(SAT_OP_ABANDON, 2, 11, T0 + 60 * S, SAT_ABSENT, SAT_ABSENT);
    ab.target_op = 9;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &ab);
    /* an internal op is not counted in the tables */
    sat_ldap_op in = mkop(SAT_OP_SRCH, 2, 12, T0 + 60 * S, 0, 7 * S);
    in.internal_depth = 1;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &in);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_result_root(res);
    CHECK(v != NULL);
    CHECK_EQ_INT(cnt(v, "operations"), 112);
    CHECK_EQ_INT(cnt(v, "operation_stats.results"), 110);
    CHECK_EQ_INT(cnt(v, "operation_stats.internal"), 1);
    CHECK(fabs(sat_get_dur(v, "span_s", NAN) - 100.0) < 1e-9);
    const sat_rnode *s = op_row(v, "SRCH");
    CHECK(s != NULL);
    CHECK_EQ_INT(cnt(s, "count"), 100);
    CHECK(fabs(num(s, "p50_s") - 0.050) < 1e-12);
    CHECK(fabs(num(s, "p90_s") - 0.090) < 1e-12);
    CHECK(fabs(num(s, "p99_s") - 0.099) < 1e-12);
    CHECK(fabs(num(s, "p999_s") - 0.100) < 1e-12);
    CHECK(fabs(num(s, "max_s") - 0.100) < 1e-12);
    CHECK(fabs(num(s, "mean_s") - 0.0505) < 1e-12);
    CHECK(fabs(num(s, "total_s") - 5.05) < 1e-9);
    CHECK(fabs(num(s, "share") - 0.5) < 1e-9);
    CHECK(fabs(num(s, "rate_per_s") - 1.0) < 1e-9);
    CHECK(fabs(num(s, "wtime_mean_s") - 0.001) < 1e-12);
    CHECK(fabs(num(s, "optime_mean_s") - 0.0495) < 1e-12);
    const sat_rnode *m = op_row(v, "MOD");
    CHECK(m && fabs(num(m, "share") - 0.5) < 1e-9);
    CHECK(m && isnan(num(m, "wtime_mean_s")));
    const sat_rnode *un = op_row(v, "UNBIND");
    CHECK(un && cnt(un, "count") == 1 && isnan(num(un, "mean_s")) && isnan(num(un, "p99_s")) &&
          isnan(num(un, "share")));
    CHECK(op_row(v, "ABANDON") != NULL);
    CHECK_EQ_INT(cnt(op_row(v, "all"), "count"), 110);
    CHECK(fabs(num(op_row(v, "all"), "share") - 1.0) < 1e-12);
    CHECK_EQ_INT(cnt(v, "operation_stats.abandons"), 1);
    CHECK_EQ_INT(cnt(v, "operation_stats.unbinds"), 1);
    CHECK_EQ_INT(cnt(v, "operation_stats.entries_returned"), 100);
    CHECK_EQ_INT(err_count(v, 0), 110);
    /* minutes: 07:00 .. 07:01, dense */
    const sat_rnode *w = sat_get_table(v, "windows");
    CHECK_EQ_INT(sat_rnode_count(w), 2);
    CHECK_EQ_INT(cnt(rc_row(w, 0), "count") + cnt(rc_row(w, 1), "count"), 112);
    const sat_rnode *bases = sat_get_table(v, "top.bases");
    CHECK_EQ_INT(sat_rnode_count(bases), 1);
    CHECK_EQ_INT(cnt(rc_row(bases, 0), "count"), 100);
    const sat_rnode *attrs = sat_get_table(v, "top.attributes");
    CHECK_EQ_INT(sat_rnode_count(attrs), 2); /* attribute names fold case */
    CHECK_EQ_STR(sat_get_text(rc_row(attrs, 0), "attribute", ""), "cn");
    CHECK_EQ_INT(cnt(rc_row(attrs, 0), "count"), 200);
    const sat_rnode *ab1 = sat_get_table(v, "abandon_requests");
    CHECK_EQ_INT(sat_rnode_count(ab1), 1);
    CHECK_EQ_INT(sat_get_int(rc_row(ab1, 0), "target_op_id", -1), 9);
    CHECK_EQ_INT(sat_get_int(rc_row(ab1, 0), "conn_id", -1), 2);
    sat_result_free(res);
    sat_etime_free(e);
}

static void test_binds_notes_codes(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    /* SASL GSSAPI: two in-progress steps then success = one bind */
    for (int i = 0; i < 3; i++) {
        sat_ldap_op o = mkop(SAT_OP_BIND, 5, i, T0 + i, i < 2 ? 14 : 0, 1000);
        o.dn = sat_str_cstr("");
        o.method = sat_str_cstr("GSSAPI");
        if (i < 2)
            o.flags |= SAT_OPF_SASL_INPROGRESS;
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    }
    /* LDAPI: AUTOBIND then its SASL/EXTERNAL BIND = one bind, root DN */
    sat_ldap_op a = mkop(SAT_OP_AUTOBIND, 6, SAT_ABSENT, T0 + 10, SAT_ABSENT, SAT_ABSENT);
    a.dn = sat_str_cstr("cn=Directory Manager");
    a.client_ip = sat_str_cstr("local");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &a);
    sat_ldap_op b = mkop(SAT_OP_BIND, 6, 0, T0 + 11, 0, 1000);
    b.dn = sat_str_cstr("");
    b.method = sat_str_cstr("EXTERNAL");
    b.client_ip = sat_str_cstr("local");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &b);
    /* an AUTOBIND alone (no BIND follows) is a bind of its own */
    sat_ldap_op a2 = mkop(SAT_OP_AUTOBIND, 7, SAT_ABSENT, T0 + 12, SAT_ABSENT, SAT_ABSENT);
    a2.dn = sat_str_cstr("uid=svc,dc=example,dc=com");
    a2.client_ip = sat_str_cstr("local");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &a2);
    /* root DN in any case and spacing; anonymous; failed binds */
    sat_ldap_op r = mkop(SAT_OP_BIND, 8, 0, T0 + 13, 0, 1000);
    r.dn = sat_str_cstr("CN=Directory Manager");
    r.method = sat_str_cstr("SIMPLE");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &r);
    r.dn = sat_str_cstr("cn = directory manager ");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &r);
    sat_ldap_op an = mkop(SAT_OP_BIND, 9, 0, T0 + 14, 0, 1000);
    an.dn = sat_str_cstr("");
    an.method = sat_str_cstr("SIMPLE");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &an);
    for (int i = 0; i < 3; i++) {
        sat_ldap_op f = mkop(SAT_OP_BIND, 10, i, T0 + 15, 49, 1000);
        f.dn = sat_str_cstr(i ? "uid=Bob,dc=example,dc=com" : "uid=bob,dc=example,dc=com");
        f.method = sat_str_cstr("SIMPLE");
        f.client_ip = sat_str_cstr("192.0.2.9");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &f);
    }
    /* notes=P,A: one P and one A; notes=U; an unindexed search twice */
    for (int i = 0; i < 2; i++) {
        sat_ldap_op s = mkop(SAT_OP_SRCH, 11, i, T0 + 16, 0, (i + 1) * S);
        s.notes = SAT_NOTE_P | SAT_NOTE_A;
        s.dn = sat_str_cstr("dc=example,dc=com");
        s.filter = sat_str_cstr("(description=*x*)");
        s.nentries = 500;
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &s);
    }
    sat_ldap_op s2 = mkop(SAT_OP_SRCH, 11, 3, T0 + 17, 0, S / 10);
    s2.notes = SAT_NOTE_U;
    s2.dn = sat_str_cstr("dc=example,dc=com");
    s2.filter = sat_str_cstr("(&(objectclass=person)(cn=a*))");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &s2);
    /* result codes above 97 */
    sat_ldap_op x = mkop(SAT_OP_EXT, 12, 0, T0 + 18, 118, 100);
    x.method = sat_str_cstr("1.3.6.1.1.8");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &x);
    x.err = 4096;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &x);
    x.err = 123;
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &x);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(cnt(v, "binds.sasl_steps_folded"), 2);
    CHECK_EQ_INT(cnt(v, "binds.sasl"), 2); /* GSSAPI + EXTERNAL */
    CHECK_EQ_INT(cnt(v, "binds.autobind"), 2);
    /* GSSAPI 1 + (AUTOBIND+BIND) 1 + lone AUTOBIND 1 + 2 root + 1 anon + 3 failed */
    CHECK_EQ_INT(cnt(v, "binds.total"), 9);
    CHECK_EQ_INT(cnt(v, "binds.root_dn"), 3); /* the autobind's root + 2 simple */
    CHECK_EQ_INT(cnt(v, "binds.anonymous"), 1);
    CHECK_EQ_INT(cnt(v, "binds.simple"), 5);
    CHECK_EQ_INT(cnt(v, "binds.failed"), 3);
    const sat_rnode *fdn = sat_get_table(v, "binds.failed_by_dn");
    CHECK_EQ_INT(sat_rnode_count(fdn), 1); /* DNs compared case-insensitively */
    CHECK_EQ_INT(cnt(rc_row(fdn, 0), "count"), 3);
    CHECK_EQ_INT(cnt(rc_row(sat_get_table(v, "binds.failed_by_client"), 0), "count"), 3);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(v, "binds.sasl_mechs")), 2);
    const sat_rnode *notes = sat_get_table(v, "note_counts");
    CHECK_EQ_INT(cnt(sat_get_row(notes, "note", "A"), "count"), 2);
    CHECK_EQ_INT(cnt(sat_get_row(notes, "note", "U"), "count"), 1);
    CHECK_EQ_INT(cnt(sat_get_row(notes, "note", "P"), "count"), 2);
    CHECK_EQ_INT(cnt(v, "operation_stats.paged_searches"), 2);
    CHECK_EQ_INT(cnt(v, "unindexed.total"), 3);
    CHECK_EQ_INT(cnt(v, "unindexed.distinct"), 2);
    const sat_rnode *ui = sat_get_table(v, "unindexed.searches");
    CHECK(sat_rnode_count(ui) == 2);
    CHECK_EQ_INT(cnt(rc_row(ui, 0), "count"), 2);
    CHECK_EQ_STR(sat_get_text(rc_row(ui, 0), "filter", ""), "(description=*x*)");
    CHECK(fabs(num(rc_row(ui, 0), "max_s") - 2.0) < 1e-12);
    CHECK_EQ_INT(sat_get_int(rc_row(ui, 0), "nentries_max", -1), 500);
    CHECK_EQ_INT(err_count(v, 118), 1);
    CHECK_EQ_INT(err_count(v, 4096), 1);
    CHECK_EQ_INT(err_count(v, 123), 1);
    CHECK_EQ_INT(err_count(v, 49), 3);
    CHECK_EQ_INT(err_count(v, 14), 2);
    CHECK_EQ_INT(cnt(v, "operation_stats.extended"), 3);
    sat_result_free(res);
    sat_etime_free(e);
}

static void test_no_etime_no_division(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    /* one instant, results without etime (OpenLDAP 2.4 logs none) */
    for (int i = 0; i < 3; i++) {
        sat_ldap_op o = mkop(SAT_OP_SRCH, 1, i, T0, 0, SAT_ABSENT);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    }
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *all = op_row(sat_result_root(res), "all");
    CHECK_EQ_INT(cnt(all, "count"), 3);
    /* none timed: every time figure absent */
    CHECK(isnan(num(all, "mean_s")) && isnan(num(all, "p99_s")) && isnan(num(all, "share")) &&
          isnan(num(all, "total_s")) && isnan(num(all, "max_s")));
    CHECK(isnan(num(all, "rate_per_s"))); /* zero-length span */
    CHECK(sat_get_dur(sat_result_root(res), "span_s", NAN) == 0);
    sat_result_free(res);
    sat_etime_free(e);
    /* all etimes zero (whole-second logs): share undefined, not NaN-crashy */
    e = sat_etime_create(NULL);
    k = sat_etime_sink(e);
    sat_ldap_op o = mkop(SAT_OP_SRCH, 1, 0, T0, 0, 0);
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
    sat_etime_finish(e);
    res = res_of(e);
    all = op_row(sat_result_root(res), "all");
    CHECK(num(all, "mean_s") == 0 && isnan(num(all, "share")));
    sat_result_free(res);
    sat_etime_free(e);
    /* nothing at all */
    e = sat_etime_create(NULL);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    res = res_of(e);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(cnt(v, "operations"), 0);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(v, "windows")), 0);
    CHECK_EQ_INT(cnt(v, "connection_stats.peak_concurrent"), 0);
    sat_result_free(res);
    sat_etime_free(e);
}

static void test_peak_concurrency(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    sat_ldap_conn c;
    /* [0,10] [5,15] [10,20]: at 10 one closes as one opens -> peak 2 */
    c = mkconn(1, T0, T0 + 10 * S, SAT_LISTENER_LDAP, SAT_CLOSE_U1);
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    c = mkconn(2, T0 + 5 * S, T0 + 15 * S, SAT_LISTENER_LDAPS, SAT_CLOSE_T1);
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    c = mkconn(3, T0 + 10 * S, T0 + 20 * S, SAT_LISTENER_LDAPI, SAT_CLOSE_B1);
    c.close_reason = sat_str_cstr("error 32 (Broken pipe)");
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_get_obj(sat_result_root(res), "connection_stats");
    CHECK_EQ_INT(cnt(v, "total"), 3);
    CHECK_EQ_INT(cnt(v, "peak_concurrent"), 2);
    CHECK(sat_get_time(v, "peak_ts", 0) == T0 + 5 * S);
    CHECK_EQ_INT(cnt(v, "by_listener.LDAPS"), 1);
    CHECK_EQ_INT(cnt(sat_get_row(sat_get_table(sat_result_root(res), "close_codes"), "close_code",
                                 "T1"),
                     "count"),
                 1);
    CHECK_EQ_INT(cnt(v, "broken_pipe"), 1);
    CHECK_EQ_INT(cnt(v, "fds_taken"), 3);
    CHECK_EQ_INT(cnt(v, "fds_returned"), 3);
    CHECK_EQ_INT(sat_get_int(v, "highest_fd", -1), 67);
    sat_result_free(res);
    /* a connection without its open line (open since before the log) and
     * one never closed overlap everything: peak 4 */
    c = mkconn(4, 0, T0 + 12 * S, SAT_LISTENER_LDAP, SAT_CLOSE_U1);
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    c = mkconn(5, T0 + 6 * S, 0, SAT_LISTENER_LDAP, SAT_CLOSE_NONE);
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    res = res_of(e);
    v = sat_get_obj(sat_result_root(res), "connection_stats");
    CHECK_EQ_INT(cnt(v, "peak_concurrent"), 4);
    CHECK_EQ_INT(cnt(v, "no_open_line"), 1);
    CHECK_EQ_INT(cnt(v, "unclosed"), 1);
    sat_result_free(res);
    sat_etime_free(e);
}

/* 60 days, 5,000,000 connections as the joiner would count them (event.h:
 * concurrent / preopen_closed in log order): one opens every 1.0368 s and
 * lasts 10 of those steps (its close logged just before the 10th next
 * opens), so 10 are open at a time; halfway, 40 more open at the same
 * instant as connection B; 3 connections were open before the input began
 * (no open line): two close at step 5, one never closes. Peak: 10 + 40 + 1
 * at B's opening. Memory must not grow with either: no per-connection
 * state, and the series coarsened to hours (60 days of minutes = 86,400). */
static void test_long_span_bounded(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    const int64_t n = 5000000, dur = 10, B = 2500000, burst = 40;
    const sat_ts_ns dt = 1036800000LL; /* 60 days / 5,000,000 */
    uint32_t open_now = 0, pre_closed = 0;
    uint64_t ops = 0;
    for (int64_t i = 0; i < n; i++) {
        sat_ts_ns t = T0 + i * dt;
        if (i == 5) { /* the two connections without an open line close */
            for (int64_t p = 0; p < 2; p++) {
                sat_ldap_conn c = mkconn(900000000 + p, 0, t, SAT_LISTENER_LDAP, SAT_CLOSE_U1);
                c.flags |= SAT_CONNF_COUNTED;
                pre_closed++;
                sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
            }
        }
        if (i >= dur) /* connection i - dur closes, logged before i opens */
            open_now--;
        if (i >= dur && i - dur == B) /* and so do the burst's */
            open_now -= (uint32_t)burst;
        int extra = i == B ? (int)burst : 0;
        for (int x = 0; x <= extra; x++) {
            sat_ldap_conn c = mkconn(i * 64 + x, t, t + dur * dt, SAT_LISTENER_LDAP,
                                     SAT_CLOSE_U1);
            c.flags |= SAT_CONNF_COUNTED;
            c.concurrent = ++open_now;
            c.preopen_closed = pre_closed;
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
        }
        if (i % 100 == 0) { /* an operation every ~104 s fills the series */
            sat_ldap_op o = mkop(SAT_OP_SRCH, i * 64, 1, t, 0, 1000000 + i % 7);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
            ops++;
        }
    }
    sat_ldap_conn c = mkconn(900000002, 0, 0, SAT_LISTENER_LDAP, SAT_CLOSE_NONE);
    c.flags |= SAT_CONNF_COUNTED;
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);

    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(cnt(v, "connection_stats.total"), n + burst + 3);
    CHECK_EQ_INT(cnt(v, "connection_stats.no_open_line"), 3);
    CHECK_EQ_INT(cnt(v, "connection_stats.peak_concurrent"), dur + burst + 1);
    CHECK(sat_get_time(v, "connection_stats.peak_ts", 0) == T0 + B * dt);
    /* 86,400 minutes -> 17,280 of 5 -> 5,760 of 15 -> 1,440 hours */
    CHECK(sat_get_dur(v, "window_s", NAN) == 3600);
    const sat_rnode *w = sat_get_table(v, "windows");
    CHECK_EQ_INT(sat_rnode_count(w), 1440);
    CHECK(sat_get_time(rc_row(w, 1), "start_ts", 0) - sat_get_time(rc_row(w, 0), "start_ts", 0) ==
          3600 * S);
    uint64_t sum = 0;
    for (const sat_rnode *r = sat_rnode_first(w); r; r = sat_rnode_next(r))
        sum += cnt(r, "count");
    CHECK_EQ_INT(sum, ops);
    CHECK_EQ_INT(cnt(op_row(v, "all"), "count"), ops);
    /* 5 million connections kept 24 bytes each would be 120 MB (the peak of
     * the analyzer's heap, etime_int.h) */
    CHECK(e->mem_peak < 24u * 1024 * 1024);
    sat_result_free(res);
    sat_etime_free(e);
}

/* The counted rows give the figure the sweep gives over the same rows when
 * opens and closes do not share a timestamp. */
static void test_counted_equals_sweep(void)
{
    sat_etime *sw = sat_etime_create(NULL), *ct = sat_etime_create(NULL);
    sat_event_sink ks = sat_etime_sink(sw), kc = sat_etime_sink(ct);
    /* events in time order: opens of 1..6, closes, a no-open close */
    struct { int64_t conn; sat_ts_ns open, close; } cs[] = {
        {1, T0 + 1 * S, T0 + 4 * S}, {2, T0 + 2 * S, T0 + 9 * S},
        {3, T0 + 3 * S, T0 + 5 * S}, {4, T0 + 6 * S, T0 + 7 * S},
        {5, T0 + 8 * S, 0},          {6, T0 + 10 * S, T0 + 11 * S},
        {7, 0, T0 + 7 * S + S / 2},  {8, 0, 0}};
    size_t nc = sizeof cs / sizeof cs[0];
    /* the joiner's counts, replayed in time order */
    for (size_t i = 0; i < nc; i++) {
        sat_ldap_conn c = mkconn(cs[i].conn, cs[i].open, cs[i].close, SAT_LISTENER_LDAP,
                                 cs[i].close ? SAT_CLOSE_U1 : SAT_CLOSE_NONE);
        sat_sink_emit(&ks, SAT_TABLE_LDAP_CONN, &c);
        c.flags |= SAT_CONNF_COUNTED;
        if (cs[i].open) {
            uint32_t opened = 0, pre = 0;
            for (size_t j = 0; j < nc; j++) {
                if (cs[j].open && cs[j].open <= cs[i].open &&
                    (!cs[j].close || cs[j].close > cs[i].open))
                    opened++;
                if (!cs[j].open && cs[j].close && cs[j].close <= cs[i].open)
                    pre++;
            }
            c.concurrent = opened;
            c.preopen_closed = pre;
        }
        sat_sink_emit(&kc, SAT_TABLE_LDAP_CONN, &c);
    }
    CHECK_EQ_INT(sat_etime_finish(sw), 0);
    CHECK_EQ_INT(sat_etime_finish(ct), 0);
    sat_result *ra = res_of(sw), *rb = res_of(ct);
    const sat_rnode *a = sat_get_obj(sat_result_root(ra), "connection_stats"),
                    *b = sat_get_obj(sat_result_root(rb), "connection_stats");
    CHECK_EQ_INT(cnt(a, "peak_concurrent"), 5); /* 1, 2, 3 and the two without open line at 3 s */
    CHECK_EQ_INT(cnt(b, "peak_concurrent"), cnt(a, "peak_concurrent"));
    CHECK(sat_get_time(b, "peak_ts", 0) == sat_get_time(a, "peak_ts", 1));
    CHECK(sat_get_time(b, "peak_ts", 0) == T0 + 3 * S);
    sat_result_free(ra);
    sat_result_free(rb);
    sat_etime_free(sw);
    sat_etime_free(ct);
}

static void feed_mixed(sat_etime *e, int from, int to)
{
    sat_event_sink k = sat_etime_sink(e);
    for (int i = from; i < to; i++) {
        int type = (i % 7 == 0) ? SAT_OP_BIND : (i % 5 == 0) ? SAT_OP_MOD : SAT_OP_SRCH;
        sat_ldap_op o = mkop(type, i / 10, i % 10, T0 + (sat_ts_ns)i * (S / 10),
                             (i % 13 == 0) ? 32 : 0,
                             (sat_dur_ns)(1000 + (i * 7919) % 5000000));
        o.wtime = 500;
        o.optime = o.etime - 500;
        char cl[32], base[48];
        snprintf(cl, sizeof cl, "10.0.%d.%d", i % 3, i % 17);
        snprintf(base, sizeof base, "ou=g%d,dc=example,dc=com", i % 11);
        o.client_ip = sat_str_cstr(cl);
        o.dn = sat_str_cstr(base);
        o.filter = sat_str_cstr("(uid=x)");
        o.filter_shape = sat_str_cstr("(uid=*)");
        o.method = sat_str_cstr("SIMPLE");
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        if (i % 10 == 0) {
            sat_ldap_conn c = mkconn(i / 10, T0 + (sat_ts_ns)i * (S / 10),
                                     T0 + (sat_ts_ns)(i + 25) * (S / 10), SAT_LISTENER_LDAP,
                                     SAT_CLOSE_U1);
            sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
        }
    }
}

static void test_merge_equals_single_pass(void)
{
    for (int by = SAT_ETIME_BY_NONE; by <= SAT_ETIME_BY_MINUTE; by++) {
        sat_etime_opts o;
        memset(&o, 0, sizeof o);
        o.by = by;
        sat_etime *one = sat_etime_create(&o), *a = sat_etime_create(&o),
                  *b = sat_etime_create(&o);
        feed_mixed(one, 0, 6000);
        feed_mixed(a, 0, 2500);
        feed_mixed(b, 2500, 6000);
        CHECK_EQ_INT(sat_etime_finish(one), 0);
        CHECK_EQ_INT(sat_etime_merge(a, b), 0);
        CHECK_EQ_INT(sat_etime_finish(a), 0);
        /* every figure (the rows per type and "all", the groups, the peak, the
         * binds, the series, the clients, the codes): the same document */
        sat_result *r1 = res_of(one), *r2 = res_of(a);
        char *j1 = rc_render(r1, AS_JSON, NULL), *j2 = rc_render(r2, AS_JSON, NULL);
        CHECK(j1 && j2 && strcmp(j1, j2) == 0);
        const sat_rnode *v1 = sat_result_root(r1);
        CHECK_EQ_INT(err_count(v1, 32), err_count(sat_result_root(r2), 32));
        CHECK(err_count(v1, 32) > 0);
        if (by == SAT_ETIME_BY_CLIENT)
            CHECK_EQ_INT(sat_rnode_count(sat_get_table(v1, "groups")), 51);
        if (by == SAT_ETIME_BY_FILTER) /* (uid=*), [BIND], [MOD] */
            CHECK(sat_rnode_count(sat_get_table(v1, "groups")) == 3);
        free(j1);
        free(j2);
        sat_result_free(r1);
        sat_result_free(r2);
        sat_etime_free(one);
        sat_etime_free(a);
        sat_etime_free(b);
    }
}

static void test_key_cap(void)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_ETIME_BY_CLIENT;
    o.max_keys = 10;
    sat_etime *e = sat_etime_create(&o);
    sat_event_sink k = sat_etime_sink(e);
    for (int i = 0; i < 100; i++) {
        sat_ldap_op op = mkop(SAT_OP_SRCH, i, 1, T0 + i, 0, 1000);
        char cl[32];
        snprintf(cl, sizeof cl, "10.1.0.%d", i);
        op.client_ip = sat_str_cstr(cl);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &op);
    }
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_result_root(res), *g = sat_get_table(v, "groups");
    CHECK_EQ_INT(sat_rnode_count(g), 11);
    CHECK_EQ_STR(sat_get_text(rc_row(g, 10), "client", ""), "(other)");
    CHECK_EQ_INT(cnt(rc_row(g, 10), "count"), 90);
    CHECK(cnt(v, "groups_folded_keys") >= 88 && cnt(v, "groups_folded_keys") <= 92);
    sat_result_free(res);
    sat_etime_free(e);
}


/* Who used the server vs who waited: a batch of three costly searches
 * (30 s of work each) while 100 quick searches wait 2 s each for a worker.
 * By etime the waiters' shape is as big as the batch's; by work the batch
 * is 90 s of the 91 s, and the waiters top the wait. The literal filters
 * overflow the key cap (first keys kept) before the batch arrives: its
 * shape keeps its own row. Shares of a table sum to 1 with "(other)". */
static void feed_storm(sat_etime *e, int with_shapes, int with_wtime)
{
    sat_event_sink k = sat_etime_sink(e);
    char f[64], dn[96];
    for (int i = 0; i < 100; i++) {
        sat_ldap_op o = mkop(SAT_OP_SRCH, 1, i, T0 + i * S, 0, 2 * S);
        snprintf(f, sizeof f, "(uid=user.%d)", i);
        o.filter = sat_str_cstr(f);
        if (with_shapes)
            o.filter_shape = sat_str_cstr("(uid=*)");
        o.dn = sat_str_cstr("ou=people,dc=example,dc=com");
        /* the same DN as logged in two ways: one row */
        o.bind_dn = sat_str_cstr(i % 2 ? "UID=app, ou=people,dc=example,dc=com"
                                       : "uid=app,ou=people,dc=example,dc=com");
        if (with_wtime) {
            o.wtime = 2 * S - 10000000;
            o.optime = 10000000;
        }
        CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), 0);
    }
    for (int i = 0; i < 3; i++) {
        sat_ldap_op o = mkop(SAT_OP_SRCH, 2, i, T0 + (100 + i) * S, 0, 30 * S);
        snprintf(f, sizeof f, "(Description=*report%d*)", i);
        snprintf(dn, sizeof dn, "uid=batch%d,ou=services,dc=example,dc=com", 0);
        o.filter = sat_str_cstr(f);
        if (with_shapes)
            o.filter_shape = sat_str_cstr("(description=*)");
        o.dn = sat_str_cstr("dc=example,dc=com");
        o.client_ip = sat_str_cstr("10.0.0.9");
        o.bind_dn = sat_str_cstr(dn);
        if (with_wtime) {
            o.wtime = 0;
            o.optime = 30 * S;
        }
        CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), 0);
    }
}

static double share_sum(const sat_rnode *t, const char *col)
{
    double sum = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r))
        sum += sat_get_num(r, col, 0);
    return sum;
}

static void test_usage_work_and_wait(void)
{
    for (int v = 0; v < 3; v++) { /* shapes on the rows, from opts, none: literal */
        sat_etime_opts o;
        memset(&o, 0, sizeof o);
        o.max_keys = 50;
        o.top = 5;
        if (v == 1)
            o.filter_shape = sat_filter_shape;
        sat_etime *e = sat_etime_create(&o);
        feed_storm(e, v == 0, 1);
        CHECK_EQ_INT(sat_etime_finish(e), 0);
        sat_result *res = res_of(e);
        const sat_rnode *u = sat_get_obj(sat_result_root(res), "usage");
        CHECK_EQ_STR(sat_get_text(u, "work_measure", ""), "optime");
        const sat_rnode *fu = sat_get_table(u, "filter_shapes_used"),
                        *fw = sat_get_table(u, "filter_shapes_waited");
        if (v < 2) {
            /* by work: the batch first, rarely seen and past the literal cap */
            CHECK_EQ_STR(sat_get_text(rc_row(fu, 0), "filter_shape", ""), "(description=*)");
            CHECK(fabs(num(rc_row(fu, 0), "work_share") - 90.0 / 91.0) < 1e-6);
            CHECK_EQ_INT(cnt(rc_row(fu, 0), "count"), 3);
            CHECK_EQ_STR(sat_get_text(rc_row(fw, 0), "filter_shape", ""), "(uid=*)");
            CHECK(fabs(num(rc_row(fw, 0), "wait_share") - 1.0) < 1e-6);
            CHECK_EQ_INT(sat_rnode_count(fu), 2);
        } else {
            /* no shape known: the filters as logged, the cap (50) reached
             * before the batch: it is in "(other)", with 50 folded uids
             * and the 45 uids not shown */
            CHECK_EQ_INT(sat_rnode_count(fu), 6);
            CHECK_EQ_STR(sat_get_text(rc_row(fu, 5), "filter_shape", ""), "(other)");
            CHECK(fabs(num(rc_row(fu, 5), "work_share") - 90.95 / 91.0) < 1e-6);
        }
        CHECK(fabs(share_sum(fu, "work_share") - 1) < 1e-5);
        CHECK(fabs(share_sum(fw, "wait_share") - 1) < 1e-5);
        /* clients: all operations */
        const sat_rnode *cu = sat_get_table(u, "clients_used");
        CHECK_EQ_STR(sat_get_text(rc_row(cu, 0), "client", ""), "10.0.0.9");
        CHECK(fabs(num(u, "clients_work_s") - 91.0) < 1e-6);
        CHECK(fabs(num(u, "clients_wait_s") - 199.0) < 1e-6);
        CHECK_EQ_STR(sat_get_text(rc_row(sat_get_table(u, "clients_waited"), 0), "client", ""),
                     "10.0.0.1");
        /* bind DNs: case and blanks folded */
        const sat_rnode *bw = sat_get_table(u, "bind_dns_waited");
        CHECK_EQ_INT(sat_rnode_count(bw), 2);
        CHECK_EQ_STR(sat_get_text(rc_row(bw, 0), "binddn", ""),
                     "uid=app,ou=people,dc=example,dc=com");
        CHECK_EQ_INT(cnt(rc_row(bw, 0), "count"), 100);
        CHECK_EQ_STR(sat_get_text(rc_row(sat_get_table(u, "bases_used"), 0), "base", ""),
                     "dc=example,dc=com");
        sat_result_free(res);
        sat_etime_free(e);
    }
    /* without wtime or optime (OpenLDAP): the work is the etime, said so;
     * nothing to rank by wait */
    sat_etime *e = sat_etime_create(NULL);
    feed_storm(e, 1, 0);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = res_of(e);
    const sat_rnode *u = sat_get_obj(sat_result_root(res), "usage");
    CHECK_EQ_STR(sat_get_text(u, "work_measure", ""), "etime");
    CHECK_EQ_INT(cnt(u, "work_from_etime"), 103);
    CHECK(fabs(num(u, "clients_work_s") - 290.0) < 1e-6);
    CHECK(!sat_get_has(u, "clients_wait_s") || isnan(num(u, "clients_wait_s")));
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(u, "clients_waited")), 0);
    const sat_rnode *cu = sat_get_table(u, "clients_used");
    CHECK(fabs(num(rc_row(cu, 0), "work_share") - 200.0 / 290.0) < 1e-6);
    CHECK(fabs(share_sum(cu, "work_share") - 1) < 1e-5);
    sat_result_free(res);
    sat_etime_free(e);
}

/* Two results render the same JSON; both freed. */
static void check_same_json(sat_result *r1, sat_result *r2)
{
    char *j1 = rc_render(r1, AS_JSON, NULL), *j2 = rc_render(r2, AS_JSON, NULL);
    CHECK(j1 && j2 && strcmp(j1, j2) == 0);
    free(j1);
    free(j2);
    sat_result_free(r1);
    sat_result_free(r2);
}

/* Merged parts give the usage tables of one pass, shape caches and all. */
static void test_usage_merge(void)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.filter_shape = sat_filter_shape;
    sat_etime *one = sat_etime_create(&o), *a = sat_etime_create(&o), *b = sat_etime_create(&o);
    feed_storm(one, 0, 1);
    feed_storm(one, 0, 1);
    feed_storm(a, 0, 1);
    feed_storm(b, 0, 1);
    CHECK_EQ_INT(sat_etime_finish(one), 0);
    CHECK_EQ_INT(sat_etime_merge(a, b), 0);
    feed_storm(b, 0, 1); /* b's caches stay its own */
    CHECK_EQ_INT(sat_etime_finish(a), 0);
    sat_result *r1 = res_of(one), *r2 = res_of(a);
    check_same_json(r1, r2);
    sat_etime_free(one);
    sat_etime_free(a);
    sat_etime_free(b);
}

/* Who used the server during a span (etime_during.c): per 10 s summaries
 * of the 16 heaviest keys; a batch's 20 s searches (asked for 5 s apart, so
 * each works over 2-3 windows) among 20 clients a window (more keys than a
 * summary holds); another server's heavy client in the same time, left out
 * of a span given the first server's input. Each figure within its bounds,
 * the shares summing to 1, and a merge of the two servers' parts (one per
 * input) equal to one pass. */
static void feed_during(sat_etime *e, uint32_t server)
{
    sat_event_sink k = sat_etime_sink(e);
    sat_source src;
    memset(&src, 0, sizeof src);
    src.id = server;
    src.server = server;
    src.path = sat_str_cstr(server ? "b.log" : "a.log");
    src.kind = sat_str_cstr("389");
    CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_SOURCE, &src), 0);
    char ip[32];
    for (int t = 0; t < 2400; t++)
        for (int j = 0; j < 2; j++) {
            sat_ldap_op o = mkop(SAT_OP_SRCH, 1, 2 * t + j, T0 + t * S + j * (S / 2), 0, 10000000);
            snprintf(ip, sizeof ip, "10.1.%u.%d", server, (2 * t + j) % 40);
            o.client_ip = sat_str_cstr(ip);
            o.server = server;
            o.optime = 10000000;
            o.filter = sat_str_cstr("(uid=x)");
            o.filter_shape = sat_str_cstr("(uid=*)");
            o.dn = sat_str_cstr("ou=people,dc=example,dc=com");
            CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), 0);
        }
    for (int i = 0; i < 10; i++) { /* the storm's work: [1800 s, 2100 s) */
        sat_ldap_op o = mkop(SAT_OP_SRCH, 2, i, T0 + (1800 + 25 * i) * S, 0, 20 * S);
        o.optime = 20 * S;
        o.server = server;
        o.client_ip = sat_str_cstr(server ? "10.0.0.77" : "10.0.0.9");
        o.filter = sat_str_cstr("(description=*x*)");
        o.filter_shape = sat_str_cstr("(description=*)");
        o.dn = sat_str_cstr("dc=example,dc=com");
        CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), 0);
    }
}

static void test_usage_during(void)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.during = 1;
    sat_etime *one = sat_etime_create(&o), *a = sat_etime_create(&o), *b = sat_etime_create(&o);
    feed_during(one, 0);
    feed_during(one, 1);
    feed_during(a, 0);
    feed_during(b, 1);
    CHECK_EQ_INT(sat_etime_finish(one), 0);
    CHECK_EQ_INT(sat_etime_merge(a, b), 0);
    CHECK_EQ_INT(sat_etime_finish(a), 0);
    const char *paths[] = {"a.log"};
    sat_span sp = {T0 + 1800 * S, T0 + 2100 * S, 7, paths, 1};
    CHECK_EQ_INT(sat_etime_focus(one, &sp, 1), 0);
    CHECK_EQ_INT(sat_etime_focus(a, &sp, 1), 0);
    sat_result *r1 = res_of(one), *r2 = res_of(a);
    const sat_rnode *t = sat_get_table(sat_result_root(r1), "during.used");
    CHECK(sat_rnode_count(t) > 0);
    double sums[4] = {0, 0, 0, 0}, total = 0;
    const char *dims[4] = {"filter_shapes", "clients", "bind_dns", "bases"};
    int saw_batch = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        CHECK_EQ_INT(cnt(r, "storm"), 7);
        const char *key = sat_get_text(r, "key", "");
        CHECK(strcmp(key, "10.0.0.77") != 0); /* the other server's */
        for (int d = 0; d < 4; d++)
            if (!strcmp(sat_get_text(r, "dimension", ""), dims[d]))
                sums[d] += num(r, "work_share");
        CHECK(num(r, "work_s") <= num(r, "work_max_s") + 1e-9);
        if (!strcmp(key, "10.0.0.9")) {
            saw_batch = 1;
            /* 200 s of work, the first of the clients, within its bounds */
            CHECK(num(r, "work_s") <= 200.0 + 1e-6 && num(r, "work_max_s") >= 200.0 - 1e-6);
            CHECK(num(r, "work_s") > 199.0);
        }
        if (!strcmp(sat_get_text(r, "dimension", ""), "clients"))
            total += num(r, "work_s");
    }
    CHECK(saw_batch);
    for (int d = 0; d < 4; d++)
        CHECK(fabs(sums[d] - 1.0) < 1e-3);
    /* the span's every operation: 300 s x 2 x 10 ms + 200 s of the batch */
    CHECK(fabs(total - 206.0) < 1e-3);
    CHECK_EQ_STR(sat_get_text(rc_row(t, 0), "key", ""), "(description=*)");
    check_same_json(r1, r2);
    sat_etime_free(one);
    sat_etime_free(a);
    sat_etime_free(b);
}

static void test_by_parse(void)
{
    CHECK_EQ_INT(sat_etime_by_parse("op"), SAT_ETIME_BY_OP);
    CHECK_EQ_INT(sat_etime_by_parse("filter"), SAT_ETIME_BY_FILTER);
    CHECK_EQ_INT(sat_etime_by_parse("minute"), SAT_ETIME_BY_MINUTE);
    CHECK(sat_etime_by_parse("nope") < 0);
    CHECK(sat_etime_by_parse(NULL) < 0);
    CHECK(sat_analyzer_find("etime") != NULL);
    CHECK(sat_analyzer_find("nope") == NULL);
}

static void test_rejects_and_sources(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    for (int i = 0; i < 3; i++) {
        sat_reject r;
        memset(&r, 0, sizeof r);
        r.source = 0;
        r.line_no = (uint64_t)(10 + i);
        r.reason = sat_str_cstr("no timestamp");
        r.excerpt = sat_str_cstr("garbage");
        sat_sink_emit(&k, SAT_TABLE_REJECT, &r);
    }
    sat_source s;
    memset(&s, 0, sizeof s);
    s.id = 0;
    s.path = sat_str_cstr("access.log");
    s.format = sat_str_cstr("389-text");
    s.compression = sat_str_cstr("none");
    s.lines = 1000;
    s.rejects = 250; /* more than the sampled rows */
    sat_sink_emit(&k, SAT_TABLE_SOURCE, &s);
    sat_etime_finish(e);
    sat_result *res = res_of(e);
    const sat_rnode *v = sat_result_root(res);
    CHECK_EQ_INT(cnt(v, "rejects"), 250);
    const sat_rnode *rs = sat_get_table(v, "reject_samples");
    CHECK_EQ_INT(sat_rnode_count(rs), 3);
    CHECK_EQ_STR(sat_get_text(rc_row(rs, 0), "path", ""), "access.log");
    sat_result_free(res);
    sat_etime_free(e);
}

/* ---- merged parts of real collections = one pass, byte for byte ----------------- */

/* The document of a finished analyzer in format fmt, malloc'd, from its
 * result (the one JSON writer; the text report, fitted and --wide). */
static char *etime_doc(sat_etime *e, int fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    sat_diag d;
    memset(&d, 0, sizeof d);
    const sat_analyzer *a = sat_analyzer_find("etime");
    sat_result *res = sat_result_new("etime");
    int rc = res && a && a->result ? a->result(e, res) : SAT_E_NOMEM;
    if (rc >= 0 && fmt == SAT_REPORT_JSON) {
        rc = sat_result_json(res, f, &d);
    } else if (rc >= 0) {
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
    CHECK(len > 100); /* a document, not nothing compared with nothing */
    return buf;
}

typedef row_copies rec_rows;

static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

static void feed_rows(sat_etime *e, const rec_rows *rs, size_t from, size_t to)
{
    sat_event_sink k = sat_etime_sink(e);
    for (size_t i = from; i < to; i++)
        CHECK(sat_sink_emit(&k, rs->table[i], rs->row[i]) >= 0);
}

/* Parts [cuts[i], cuts[i+1]) merged in order into the first (finished
 * first when `finished`), against one pass; 1 when JSON and text agree. */
static int merged_equals_one_pass(const rec_rows *rs, int by, const size_t *cuts, size_t nparts,
                                  int finished, const char *ref_json, const char *ref_text)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.by = by;
    sat_etime *parts[8];
    for (size_t p = 0; p < nparts; p++) {
        parts[p] = sat_etime_create(&o);
        feed_rows(parts[p], rs, cuts[p], cuts[p + 1]);
        if (finished)
            CHECK_EQ_INT(sat_etime_finish(parts[p]), 0);
    }
    for (size_t p = 1; p < nparts; p++)
        CHECK_EQ_INT(sat_etime_merge(parts[0], parts[p]), 0);
    CHECK_EQ_INT(sat_etime_finish(parts[0]), 0);
    char *json = etime_doc(parts[0], SAT_REPORT_JSON), *text = etime_doc(parts[0], SAT_REPORT_TEXT);
    int same = strcmp(json, ref_json) == 0 && strcmp(text, ref_text) == 0;
    if (!same) {
        const char *a = ref_json, *b = json;
        if (strcmp(json, ref_json) == 0)
            a = ref_text, b = text;
        size_t i = 0, line = 1;
        for (; a[i] && a[i] == b[i]; i++)
            line += a[i] == '\n';
        printf("by %s, %zu parts (cut at %zu%s): line %zu differs:\n  one pass: %.120s\n"
               "  merged:   %.120s\n",
               sat_etime_by_name(by), nparts, cuts[1], finished ? ", parts finished" : "", line,
               a + i - (i > 40 ? 40 : i), b + i - (i > 40 ? 40 : i));
    }
    free(json);
    free(text);
    for (size_t p = 0; p < nparts; p++)
        sat_etime_free(parts[p]);
    return same;
}

static void test_merge_real_inputs(void)
{
    static const char *const sets[][3] = {
        {"fixtures/incident/access.20250609-133000.gz", "fixtures/incident/access", NULL},
        {"fixtures/389ds-load/access.zst", "fixtures/389ds-load/access-swapped.zst", NULL},
        {"fixtures/slapd-load/slapd-stats.log.zst", NULL, NULL},
        {"fixtures/internal/access.zst", NULL, NULL},
        {"fixtures/389ds/access-2.3.1.log", NULL, NULL},
        {"fixtures/trace-v1.0/access-2.3.1.sat", NULL, NULL},
    };
    const char *src = getenv("SAT_SRC");
    if (!src) {
        printf("note: SAT_SRC unset: merges of real inputs not checked\n");
        return;
    }
    for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
        char buf[3][1024];
        const char *paths[3];
        size_t np = 0;
        for (; np < 3 && sets[si][np]; np++) {
            snprintf(buf[np], sizeof buf[np], "%s/%s", src, sets[si][np]);
            paths[np] = buf[np];
        }
        if (access(paths[0], R_OK) != 0) {
            printf("note: %s not found\n", paths[0]);
            continue;
        }
        rec_rows rs;
        memset(&rs, 0, sizeof rs);
        sat_event_sink k = {&rs, sat_etime_sink(NULL).tables, row_copies_add};
        sat_collect_opts co;
        memset(&co, 0, sizeof co);
        co.warn = quiet;
        sat_collect_stats st;
        sat_diag d;
        memset(&d, 0, sizeof d);
        CHECK(sat_collect_run(paths, np, &co, &k, &st, &d) >= 0);
        CHECK(rs.n > 100);
        int ok = 1;
        uint64_t rng = 0x9e3779b97f4a7c15ULL * (si + 1);
        for (int by = SAT_ETIME_BY_NONE; by <= SAT_ETIME_BY_INTERNAL; by++) {
            sat_etime_opts o;
            memset(&o, 0, sizeof o);
            o.by = by;
            sat_etime *one = sat_etime_create(&o);
            feed_rows(one, &rs, 0, rs.n);
            CHECK_EQ_INT(sat_etime_finish(one), 0);
            char *ref_json = etime_doc(one, SAT_REPORT_JSON);
            char *ref_text = etime_doc(one, SAT_REPORT_TEXT);
            sat_etime_free(one);
            /* halves; thirds; and 2..5 parts at random rows (xorshift) */
            size_t halves[3] = {0, rs.n / 2, rs.n}, thirds[4] = {0, rs.n / 3, 2 * rs.n / 3, rs.n};
            ok &= merged_equals_one_pass(&rs, by, halves, 2, 0, ref_json, ref_text);
            ok &= merged_equals_one_pass(&rs, by, thirds, 3, by % 2, ref_json, ref_text);
            for (int round = 0; round < 2; round++) {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                size_t nparts = 2 + (size_t)(rng % 4), cuts[7];
                cuts[0] = 0;
                for (size_t c = 1; c < nparts; c++) {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    size_t lo = cuts[c - 1] + 1, left = nparts - c;
                    cuts[c] = lo + (size_t)(rng % (rs.n - lo - left + 1));
                }
                cuts[nparts] = rs.n;
                ok &= merged_equals_one_pass(&rs, by, cuts, nparts, round, ref_json, ref_text);
            }
            free(ref_json);
            free(ref_text);
        }
        printf("%s: %zu rows, merged parts %s one pass\n", sets[si][0], rs.n,
               ok ? "=" : "DIFFER FROM");
        CHECK(ok);
        row_copies_free(&rs);
    }
}

/* Every byte of a record is one of its descriptor's fields. */
static void check_covered(const sat_rec_desc *d, const char *name)
{
    unsigned char *seen = calloc(d->size, 1);
    for (size_t f = 0; f < d->nfields; f++) {
        if (d->fields[f].kind == SAT_ACC_DERIVED) /* no storage: made when written */
            continue;
        size_t el = d->fields[f].kind == SAT_ACC_SKETCH  ? sizeof(sat_qsketch)
                    : d->fields[f].kind == SAT_ACC_DSUM ? sizeof(double)
                                                        : 8;
        if (d->fields[f].kind == SAT_ACC_FIRST || d->fields[f].kind == SAT_ACC_LAST)
            el += d->fields[f].extra;
        size_t n = d->fields[f].n ? d->fields[f].n : 1;
        for (size_t b = d->fields[f].off; b < d->fields[f].off + n * el && b < d->size; b++)
            seen[b]++;
    }
    size_t missing = 0, twice = 0;
    for (size_t b = 0; b < d->size; b++) {
        missing += seen[b] == 0;
        twice += seen[b] > 1;
    }
    if (missing || twice)
        printf("%s: %zu bytes in no field, %zu in two\n", name, missing, twice);
    CHECK(missing == 0 && twice == 0);
    free(seen);
}

static void test_descriptors_cover_records(void)
{
    check_covered(&et_counts_desc, "et_counts");
    check_covered(&et_group_desc, "et_group");
    check_covered(&et_kv_desc, "et_kv");
    check_covered(&et_code_desc, "et_code");
    check_covered(&et_epoch_desc, "et_epoch");
}

int main(void)
{
    test_by_parse();
    test_counts_quantiles_shares();
    test_binds_notes_codes();
    test_no_etime_no_division();
    test_peak_concurrency();
    test_counted_equals_sweep();
    test_long_span_bounded();
    test_merge_equals_single_pass();
    test_key_cap();
    test_usage_work_and_wait();
    test_usage_merge();
    test_usage_during();
    test_rejects_and_sources();
    test_descriptors_cover_records();
    test_merge_real_inputs();
    return CHECK_DONE();
}
