/*
 * test_ldap_join.c - the shared joiner (parse/ldap_join.c) fed records
 * directly: pairing, DETAIL merges, unfinished and evicted requests, explicit
 * and detected restarts, idempotent finish, table growth and slot reuse,
 * and the concurrency counts on ldap_conn rows.
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

int main(void)
{
    test_concurrency_counts();
    test_pairing_and_detail();
    test_result_after_close();
    test_eviction_and_restart();
    test_churn();
    return CHECK_DONE();
}
