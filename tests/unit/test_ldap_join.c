/*
 * test_ldap_join.c - the shared joiner (parse/join/ldap_join.c) fed records
 * directly: pairing, DETAIL merges, unfinished and evicted requests, explicit
 * and detected restarts, idempotent finish, table growth and slot reuse,
 * and the concurrency counts on ldap_conn rows; open lines out of number
 * order and after their connection's own lines (several server threads
 * write them), which are disorder, not restarts.
 */
#include "check.h"
#include "p389_collect.h"

static sat_ldap_record R;

static sat_ldap_record *rec(int kind, int64_t ts_s, int64_t conn, int64_t op)
{
    sat_ldap_record_clear(&R);
    R.kind = kind;
    R.ts = ts_s * 1000000000LL;
    R.conn = conn;
    R.op = op;
    R.op_fields.op = op;
    return &R;
}

static const sat_ldap_op *find(coll *c, int64_t conn, int64_t op)
{
    for (size_t i = 0; i < c->nops; i++)
        if (c->ops[i].conn == conn && c->ops[i].op == op)
            return &c->ops[i];
    return NULL;
}

static void test_pairing_and_detail(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(3, &sink, 0);
    sat_ldap_record *r = rec(SAT_REC_CONNECT, 1, 1000, SAT_ABSENT);
    r->conn_fields.client_ip = sat_str_cstr("10.1.2.3");
    r->conn_fields.listener = SAT_LISTENER_LDAP;
    CHECK_EQ_INT(sat_ldap_join_record(j, r), 0);
    /* OpenLDAP style: BIND line, then a DETAIL with the mech */
    r = rec(SAT_REC_REQUEST, 2, 1000, 0);
    r->op_fields.type = SAT_OP_BIND;
    r->op_fields.dn = sat_str_cstr("cn=admin,dc=x");
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_DETAIL, 2, 1000, 0);
    r->op_fields.method = sat_str_cstr("SIMPLE");
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_REQUEST, 3, 1000, 1);
    r->op_fields.type = SAT_OP_SRCH;
    r->op_fields.filter = sat_str_cstr("(uid=Z)");
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_DETAIL, 3, 1000, 1);
    r->op_fields.attrs = sat_str_cstr("cn");
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_RESULT, 4, 1000, 0);
    r->op_fields.err = 0;
    r->op_fields.tag = 97;
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_RESULT, 5, 1000, 1);
    r->op_fields.err = 0;
    r->op_fields.nentries = 7;
    sat_ldap_join_record(j, r);
    CHECK_EQ_INT(c.nops, 2);
    const sat_ldap_op *o = find(&c, 1000, 0);
    CHECK(o && o->type == SAT_OP_BIND && o->server == 3 && o->ts_ns == 2000000000LL &&
          o->result_ts_ns == 4000000000LL);
    if (o) {
        CHECK_EQ_SSTR(o->method, "SIMPLE");
        CHECK_EQ_SSTR(o->bind_dn, "cn=admin,dc=x");
    }
    o = find(&c, 1000, 1);
    CHECK(o && o->nentries == 7);
    if (o) {
        CHECK_EQ_SSTR(o->attrs, "cn");
        CHECK_EQ_SSTR(o->filter_shape, "(uid=*)");
        CHECK_EQ_SSTR(o->bind_dn, "cn=admin,dc=x");
        CHECK_EQ_SSTR(o->client_ip, "10.1.2.3");
    }
    /* a RESULT whose tag names the type, request never seen */
    r = rec(SAT_REC_RESULT, 6, 1000, 9);
    r->op_fields.tag = 111;
    r->op_fields.err = 6;
    sat_ldap_join_record(j, r);
    o = find(&c, 1000, 9);
    CHECK(o && o->type == SAT_OP_CMP && (o->flags & SAT_OPF_NO_REQUEST));
    CHECK_EQ_INT(sat_ldap_join_finish(j), 0);
    CHECK_EQ_INT(sat_ldap_join_finish(j), 0); /* idempotent */
    CHECK_EQ_INT(c.nconns, 1);
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.ops, 3);
    CHECK_EQ_INT(st.conns, 1);
    CHECK_EQ_INT(st.results_without_request, 1);
    CHECK_EQ_INT(st.unfinished, 0);
    if (c.nconns)
        CHECK(c.conns[0].ops == 3 && (c.conns[0].flags & SAT_CONNF_UNCLOSED));
    sat_ldap_join_free(j);
    coll_free(&c);
}

static void test_eviction_and_restart(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 4);
    for (int i = 0; i < 10; i++) {
        sat_ldap_record *r = rec(SAT_REC_REQUEST, i, 1, i);
        r->op_fields.type = SAT_OP_SRCH;
        sat_ldap_join_record(j, r);
    }
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.evicted, 6);
    CHECK_EQ_INT(st.unfinished, 6);
    const sat_ldap_op *o = find(&c, 1, 0);
    CHECK(o && (o->flags & SAT_OPF_UNFINISHED));
    /* the newest are still pending and pair */
    sat_ldap_record *r = rec(SAT_REC_RESULT, 20, 1, 9);
    r->op_fields.err = 0;
    sat_ldap_join_record(j, r);
    o = find(&c, 1, 9);
    CHECK(o && !(o->flags & SAT_OPF_UNFINISHED) && o->err == 0);
    /* explicit restart: the rest end, the epoch moves on */
    sat_ldap_join_record(j, rec(SAT_REC_RESTART, 21, 0, SAT_ABSENT));
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 1);
    CHECK_EQ_INT(st.unfinished, 9);
    CHECK_EQ_INT(c.nconns, 1);
    if (c.nconns)
        CHECK(c.conns[0].flags & SAT_CONNF_RESTART);
    /* detected restart: connection numbers go back */
    sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 22, 50, SAT_ABSENT));
    sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 23, 51, SAT_ABSENT));
    sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 24, 51, SAT_ABSENT));
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 2);
    sat_ldap_join_finish(j);
    int epoch2 = 0;
    for (size_t i = 0; i < c.nconns; i++)
        if (c.conns[i].conn_epoch == 2 && c.conns[i].conn == 51)
            epoch2++;
    CHECK_EQ_INT(epoch2, 1);
    CHECK_EQ_INT(c.nconns, 4);
    sat_ldap_join_free(j);
    coll_free(&c);
}

/* Many connections opened and closed, many concurrent requests: tables grow,
 * slots are reused, nothing is lost. */
static void test_churn(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    const int N = 5000;
    for (int i = 1; i <= N; i++) {
        sat_ldap_record *r = rec(SAT_REC_CONNECT, i, i, SAT_ABSENT);
        r->conn_fields.client_ip = sat_str_cstr("192.0.2.1");
        sat_ldap_join_record(j, r);
        r = rec(SAT_REC_REQUEST, i, i, 0);
        r->op_fields.type = SAT_OP_SRCH;
        r->op_fields.filter = sat_str_cstr("(cn=abc)");
        sat_ldap_join_record(j, r);
    }
    for (int i = N; i >= 1; i--) {
        sat_ldap_record *r = rec(SAT_REC_RESULT, N + i, i, 0);
        r->op_fields.err = 0;
        sat_ldap_join_record(j, r);
        if (i % 2)
            sat_ldap_join_record(j, rec(SAT_REC_CLOSE, N + i, i, SAT_ABSENT));
    }
    sat_ldap_join_finish(j);
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.ops, N);
    CHECK_EQ_INT(st.unfinished, 0);
    CHECK_EQ_INT(st.conns, N);
    CHECK_EQ_INT(st.restarts, 0);
    size_t unclosed = 0;
    for (size_t i = 0; i < c.nconns; i++)
        unclosed += (c.conns[i].flags & SAT_CONNF_UNCLOSED) != 0;
    CHECK_EQ_INT(unclosed, N / 2);
    sat_ldap_join_free(j);
    coll_free(&c);
    sat_ldap_join_free(NULL);
}

/* 389 2.x logs some RESULTs after the connection's Disconnect line: the
 * RESULT must still meet its request and the connection's bind DN, without a
 * phantom connection; a request nobody answers within the grace period is
 * unfinished. */
static const sat_ldap_conn *find_conn(coll *c, int64_t conn)
{
    for (size_t i = 0; i < c->nconns; i++)
        if (c->conns[i].conn == conn)
            return &c->conns[i];
    return NULL;
}

/* concurrent / preopen_closed (event.h) in log order: conn 7 has no open
 * line and closes at 3; 10 opens and closes within second 2 (counted while
 * open), 11 opens after that close, 12 after 7's; 13 never closes. */
static void test_concurrency_counts(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_ldap_record *r = rec(SAT_REC_REQUEST, 1, 7, 1); /* 7: no open line */
    r->op_fields.type = SAT_OP_SRCH;
    sat_ldap_join_record(j, r);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 2, 10, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CLOSE, 2, 10, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 2, 11, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CLOSE, 3, 7, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 4, 12, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CONNECT, 5, 13, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_record(j, rec(SAT_REC_CLOSE, 6, 12, SAT_ABSENT)), 0);
    CHECK_EQ_INT(sat_ldap_join_finish(j), 0);
    const sat_ldap_conn *k;
    CHECK((k = find_conn(&c, 7)) && (k->flags & SAT_CONNF_COUNTED) && k->open_ts == 0);
    CHECK((k = find_conn(&c, 10)) && (k->flags & SAT_CONNF_COUNTED) && k->concurrent == 1 &&
          k->preopen_closed == 0);
    CHECK((k = find_conn(&c, 11)) && k->concurrent == 1 && k->preopen_closed == 0);
    CHECK((k = find_conn(&c, 12)) && k->concurrent == 2 && k->preopen_closed == 1);
    CHECK((k = find_conn(&c, 13)) && k->concurrent == 3 && k->preopen_closed == 1 &&
          (k->flags & SAT_CONNF_UNCLOSED));
    sat_ldap_join_free(j);
    coll_free(&c);
}

static void test_result_after_close(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_ldap_record *r = rec(SAT_REC_CONNECT, 1, 9, SAT_ABSENT);
    r->conn_fields.client_ip = sat_str_cstr("127.0.0.1");
    r->conn_fields.listener = SAT_LISTENER_LDAP;
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_REQUEST, 1, 9, 0);
    r->op_fields.type = SAT_OP_BIND;
    r->op_fields.dn = sat_str_cstr("uid=u6");
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_RESULT, 1, 9, 0);
    r->op_fields.err = 0;
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_REQUEST, 1, 9, 1);
    r->op_fields.type = SAT_OP_SRCH;
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_REQUEST, 1, 9, 2);
    r->op_fields.type = SAT_OP_MOD;
    sat_ldap_join_record(j, r);
    r = rec(SAT_REC_CLOSE, 2, 9, 3);
    r->conn_fields.close_code = SAT_CLOSE_U1;
    sat_ldap_join_record(j, r);
    CHECK_EQ_INT(c.nconns, 1);
    r = rec(SAT_REC_RESULT, 2, 9, 1); /* the late RESULT */
    r->op_fields.err = 0;
    sat_ldap_join_record(j, r);
    const sat_ldap_op *o = find(&c, 9, 1);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_INT(o->type, SAT_OP_SRCH);
        CHECK_EQ_INT(o->flags & (SAT_OPF_NO_REQUEST | SAT_OPF_UNFINISHED), 0);
        CHECK_EQ_SSTR(o->bind_dn, "uid=u6");
        CHECK_EQ_SSTR(o->client_ip, "127.0.0.1");
    }
    CHECK(find(&c, 9, 2) == NULL); /* still waiting */
    /* 61 s of log time later the MOD is given up */
    r = rec(SAT_REC_CONNECT, 63, 10, SAT_ABSENT);
    sat_ldap_join_record(j, r);
    o = find(&c, 9, 2);
    CHECK(o != NULL && (o->flags & SAT_OPF_UNFINISHED));
    sat_ldap_join_finish(j);
    CHECK_EQ_INT(c.nconns, 2); /* conn 9 once, conn 10 unclosed: no phantom */
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.results_without_request, 0);
    CHECK_EQ_INT(st.unfinished, 1);
    sat_ldap_join_free(j);
    coll_free(&c);
}

/* milliseconds, for the orders several threads write within one second */
static sat_ldap_record *recms(int kind, int64_t ts_ms, int64_t conn, int64_t op)
{
    sat_ldap_record *r = rec(kind, 0, conn, op);
    r->ts = 1700000000000000000LL + ts_ms * 1000000LL;
    return r;
}

static const sat_ldap_conn *conn_row(coll *c, int64_t conn, uint32_t epoch)
{
    const sat_ldap_conn *found = NULL;
    for (size_t i = 0; i < c->nconns; i++)
        if (c->conns[i].conn == conn && c->conns[i].conn_epoch == epoch) {
            if (found)
                return NULL; /* split in two rows */
            found = &c->conns[i];
        }
    return found;
}

static void connect_ip(sat_ldap_join *j, int64_t ts_ms, int64_t conn, const char *ip)
{
    sat_ldap_record *r = recms(SAT_REC_CONNECT, ts_ms, conn, SAT_ABSENT);
    r->conn_fields.client_ip = sat_str_cstr(ip);
    r->conn_fields.listener = SAT_LISTENER_LDAP;
    sat_ldap_join_record(j, r);
}

static void bind_pair(sat_ldap_join *j, int64_t ts_ms, int64_t conn, int accept_between)
{
    sat_ldap_record *r = recms(SAT_REC_REQUEST, ts_ms, conn, 0);
    r->op_fields.type = SAT_OP_BIND;
    r->op_fields.dn = sat_str_cstr("uid=a,dc=x");
    sat_ldap_join_record(j, r);
    if (accept_between)
        connect_ip(j, ts_ms, conn, "10.0.0.1");
    r = recms(SAT_REC_DETAIL, ts_ms, conn, 0);
    r->op_fields.method = sat_str_cstr("SIMPLE");
    sat_ldap_join_record(j, r);
    r = recms(SAT_REC_RESULT, ts_ms + 1, conn, 0);
    r->op_fields.err = 0;
    r->op_fields.tag = 97;
    sat_ldap_join_record(j, r);
}

static void close_conn(sat_ldap_join *j, int64_t ts_ms, int64_t conn)
{
    sat_ldap_record *r = recms(SAT_REC_CLOSE, ts_ms, conn, SAT_ABSENT);
    r->conn_fields.close_code = SAT_CLOSE_OTHER;
    r->conn_fields.close_reason = sat_str_cstr("closed");
    sat_ldap_join_record(j, r);
}

/* OpenLDAP 2.5 under load: ACCEPTs out of number order, one after its
 * connection's BIND RESULT, one between the two BIND lines, one after the
 * connection's close. One connection each, no restart, one op per BIND, and
 * the peak counts each connection from its ACCEPT to its close. */
static void test_open_lines_out_of_order(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    connect_ip(j, 0, 1000, "10.0.0.1");
    connect_ip(j, 1, 1002, "10.0.0.1");      /* 1001 comes later */
    bind_pair(j, 2, 1000, 0);
    connect_ip(j, 3, 1001, "10.0.0.1");      /* a hole: disorder */
    bind_pair(j, 4, 1003, 0);                /* before its ACCEPT */
    connect_ip(j, 6, 1003, "10.0.0.2");      /* after the BIND RESULT */
    bind_pair(j, 7, 1004, 1);                /* ACCEPT between the BIND lines */
    bind_pair(j, 9, 1005, 0);
    close_conn(j, 11, 1005);                 /* closed before its ACCEPT */
    connect_ip(j, 12, 1005, "10.0.0.3");
    for (int64_t n = 1000; n <= 1004; n++)
        close_conn(j, 20 + n - 1000, n);
    sat_ldap_join_finish(j);
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 0);
    CHECK_EQ_INT(st.conns, 6);
    CHECK_EQ_INT(st.ops, 4);
    CHECK_EQ_INT(st.unfinished, 0);
    CHECK_EQ_INT(st.results_without_request, 0);
    CHECK_EQ_INT(st.opens_out_of_order, 1);
    CHECK_EQ_INT(st.opens_after_lines, 3);
    CHECK_EQ_INT(c.nconns, 6);
    for (int64_t n = 1000; n <= 1005; n++) {
        const sat_ldap_conn *k = conn_row(&c, n, 0);
        CHECK(k != NULL);
        if (k) {
            CHECK(!(k->flags & (SAT_CONNF_NO_OPEN | SAT_CONNF_UNCLOSED | SAT_CONNF_RESTART)));
            CHECK(k->open_ts > 0 && k->close_ts >= k->open_ts);
        }
    }
    const sat_ldap_conn *k = conn_row(&c, 1003, 0);
    if (k) {
        CHECK_EQ_SSTR(k->client_ip, "10.0.0.2");
        CHECK_EQ_SSTR(k->bind_dn, "uid=a,dc=x"); /* the BIND before the ACCEPT holds */
        CHECK(k->open_ts == 1700000000000000000LL + 4 * 1000000LL); /* its first line */
        CHECK(k->ops == 1);
        /* 1000, 1001, 1002 open; 1003 counted at its ACCEPT */
        CHECK(k->concurrent == 4 && k->preopen_closed == 0);
    }
    k = conn_row(&c, 1005, 0);
    if (k) {
        CHECK_EQ_SSTR(k->close_reason, "closed");
        /* closed already at its ACCEPT: not counted as open */
        CHECK(k->concurrent == 5 && k->ops == 1);
    }
    const sat_ldap_op *o = find(&c, 1004, 0);
    CHECK(o && o->type == SAT_OP_BIND && o->err == 0 && !(o->flags & SAT_OPF_UNFINISHED));
    if (o)
        CHECK_EQ_SSTR(o->method, "SIMPLE");
    sat_ldap_join_free(j);
    coll_free(&c);
}

/* What is taken for a restart: the start line; a number opened again; a
 * number far below the window. Not: swapped pairs, a late ACCEPT just below
 * the input's first, disorder of thousands of numbers. */
static void test_restart_evidence(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    /* the input begins amid disorder: 501 first, then 500 */
    connect_ip(j, 0, 501, "10.0.0.1");
    connect_ip(j, 0, 500, "10.0.0.1");
    /* pairs written swapped (389 with several listener threads) */
    for (int64_t n = 502; n < 600; n += 2) {
        connect_ip(j, n, n + 1, "10.0.0.1");
        connect_ip(j, n, n, "10.0.0.1");
    }
    /* 3,000 numbers opened, then the 3,000 below them: disorder too */
    for (int64_t n = 3600; n < 6600; n++)
        connect_ip(j, 1000, n, "10.0.0.1");
    for (int64_t n = 600; n < 3600; n++)
        connect_ip(j, 1000, n, "10.0.0.1");
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 0);
    CHECK_EQ_INT(st.opens_out_of_order, 1 + 49 + 3000);
    /* a number opened again: the server started again */
    connect_ip(j, 2000, 500, "10.0.0.9");
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 1);
    CHECK_EQ_INT(st.restarts_by_number, 1);
    const sat_ldap_conn *k = conn_row(&c, 777, 0);
    CHECK(k && (k->flags & SAT_CONNF_RESTART));
    if (k)
        CHECK_EQ_SSTR(k->close_reason, "server restart: conn=500 opened again after conn=6599");
    /* numbers far above, then one below the window */
    connect_ip(j, 2001, 200000, "10.0.0.9");
    connect_ip(j, 2002, 100000, "10.0.0.9");
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 2);
    /* below the epoch's first number, later than disorder explains */
    connect_ip(j, 9000, 99999, "10.0.0.9");
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 3);
    /* the start line */
    sat_ldap_join_record(j, recms(SAT_REC_RESTART, 9001, 0, SAT_ABSENT));
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.restarts, 4);
    CHECK_EQ_INT(st.restarts_by_start_line, 1);
    CHECK_EQ_INT(st.restarts_by_number, 3);
    sat_ldap_join_finish(j);
    k = conn_row(&c, 99999, 3);
    CHECK(k && (k->flags & SAT_CONNF_RESTART));
    if (k)
        CHECK_EQ_SSTR(k->close_reason, "server restart: the server's start line");
    k = conn_row(&c, 500, 1);
    CHECK(k && (k->flags & SAT_CONNF_RESTART_OPEN)); /* the open taken for it */
    k = conn_row(&c, 501, 0);
    CHECK(k && !(k->flags & SAT_CONNF_RESTART_OPEN));
    sat_ldap_join_free(j);
    coll_free(&c);
}

/* A connection closed before any open line waits 2 s of log time for one;
 * none came: a row without an open line, counted as closed from the start. */
static void test_close_without_open_line(void)
{
    coll c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = coll_sink(&c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    connect_ip(j, 0, 100, "10.0.0.1");
    bind_pair(j, 1, 101, 0);
    close_conn(j, 2, 101);          /* its ACCEPT may still come */
    CHECK_EQ_INT(c.nconns, 0);
    connect_ip(j, 1000, 102, "10.0.0.1"); /* 1 s later: still waiting */
    CHECK_EQ_INT(c.nconns, 0);
    connect_ip(j, 2500, 103, "10.0.0.1"); /* past 2 s: no open line after all */
    CHECK_EQ_INT(c.nconns, 1);
    const sat_ldap_conn *k = conn_row(&c, 101, 0);
    CHECK(k && (k->flags & SAT_CONNF_NO_OPEN) && k->open_ts == 0 && k->close_ts > 0);
    if (k)
        CHECK_EQ_SSTR(k->close_reason, "closed");
    k = conn_row(&c, 103, 0);
    CHECK(k == NULL); /* still open */
    /* a number seen without an open line whose ACCEPT comes 3 s later: not
     * written late by another thread, another view of the number */
    bind_pair(j, 3000, 200, 0);
    connect_ip(j, 6000, 200, "10.0.0.5");
    sat_ldap_join_finish(j);
    k = conn_row(&c, 103, 0);
    /* 100, 102, 103 open; 101 closed without an open line before 103 opened */
    CHECK(k && k->concurrent == 3 && k->preopen_closed == 1);
    int views = 0;
    for (size_t i = 0; i < c.nconns; i++)
        if (c.conns[i].conn == 200)
            views++;
    CHECK_EQ_INT(views, 2);
    sat_join_stats st;
    sat_ldap_join_stats(j, &st);
    CHECK_EQ_INT(st.opens_after_lines, 0);
    CHECK_EQ_INT(st.restarts, 0);
    sat_ldap_join_free(j);
    coll_free(&c);
}

int main(void)
{
    test_concurrency_counts();
    test_pairing_and_detail();
    test_result_after_close();
    test_eviction_and_restart();
    test_churn();
    test_open_lines_out_of_order();
    test_restart_evidence();
    test_close_without_open_line();
    return CHECK_DONE();
}
