/*
 * test_dis_ldap_ops.c - the LDAP stream dissector (parse/wire/dis_ldap.c, RFC
 * 4511) on the operations, with messages encoded here (ldap_ber.h) through a
 * real joiner into a capturing sink (ldap_rig.h): the canonical exchange
 * whole, byte by byte and split at every byte; abandon, extended, delete,
 * compare, paged and persistent searches; StartTLS (accepted: the stream is
 * handed to TLS; refused); SASL binds in progress; two flows out of order;
 * and `satscope etime`'s analyzer fed by the rows.
 */
#include "check.h"

#include "ldap_ber.h"
#include "ldap_rig.h"
#include "satscope/analyze.h"
#include "result_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_exchange(const cap *c, const char *label)
{
    (void)label;
    CHECK_EQ_INT(c->nops, 3);
    const crow *b = find_op(c, SAT_OP_BIND, 1), *s = find_op(c, SAT_OP_SRCH, 2),
               *u = find_op(c, SAT_OP_UNBIND, 3);
    CHECK(b && s && u);
    if (!b || !s || !u)
        return;
    CHECK_EQ_INT(b->err, 0);
    CHECK_EQ_STR(b->method, "SIMPLE");
    CHECK_EQ_STR(b->dn, "cn=admin,dc=example,dc=com");
    CHECK(b->flags & SAT_OPF_BIND_V3);
    CHECK_EQ_INT(b->etime, 3 * MS);
    CHECK_EQ_STR(b->client, "10.0.0.7");
    CHECK_EQ_STR(s->dn, "dc=example,dc=com");
    CHECK_EQ_INT(s->scope, SAT_SCOPE_SUB);
    CHECK_EQ_STR(s->filter, BIG_FILTER);
    CHECK_EQ_STR(s->attrs, "cn mail");
    CHECK_EQ_INT(s->err, 0);
    CHECK_EQ_INT(s->nentries, 2);
    CHECK_EQ_INT(s->etime, 7 * MS);
    CHECK_EQ_STR(s->bind_dn, "cn=admin,dc=example,dc=com");
    CHECK_EQ_INT(c->nconns, 1);
    CHECK_EQ_STR(c->conns[0].client, "10.0.0.7");
    CHECK_EQ_INT(c->conns[0].port, 40001);
    CHECK_EQ_INT(c->conns[0].listener, SAT_LISTENER_LDAP);
    CHECK_EQ_STR(c->conns[0].reason, "client closed (FIN)");
    CHECK_EQ_STR(c->conns[0].saddr, "10.0.0.1:389");
    CHECK_EQ_INT(c->conns[0].ops, 3);
}

/* Feeds the exchange with c2s split at cs and s2c split at ss (0: whole). */
static void run_split(cap *out, size_t cs, size_t ss, int bytewise)
{
    static bw c2s, s2c;
    exchange(&c2s, &s2c);
    static rig r;
    rig_open(&r, 1);
    size_t m1 = first_msg_len(&c2s), r1 = first_msg_len(&s2c);
    /* bind at T0, its response at +3 ms; the search (rest of c2s) at +4 ms,
     * the rest of s2c at +11 ms: the split point moves bytes between them,
     * the ts of a message is the ts of the segment that completes it */
    const uint8_t *p = c2s.b;
    if (bytewise) {
        for (size_t i = 0; i < m1; i++)
            sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, p + i, 1);
        for (size_t i = 0; i < r1; i++)
            sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 3 * MS, s2c.b + i, 1);
        for (size_t i = m1; i < c2s.n; i++)
            sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 4 * MS, p + i, 1);
        for (size_t i = r1; i < s2c.n; i++)
            sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 11 * MS, s2c.b + i, 1);
    } else {
        size_t a = cs ? cs : m1;
        if (a > m1)
            a = m1;
        sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, p, a);
        sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, p + a, m1 - a);
        size_t b = ss ? ss : r1;
        if (b > r1)
            b = r1;
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 3 * MS, s2c.b, b);
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 3 * MS, s2c.b + b, r1 - b);
        size_t rest = c2s.n - m1, k = cs > m1 ? cs - m1 : rest / 2;
        if (k > rest)
            k = rest;
        sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 4 * MS, p + m1, k);
        sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 4 * MS, p + m1 + k, rest - k);
        rest = s2c.n - r1;
        k = ss > r1 ? ss - r1 : rest / 2;
        if (k > rest)
            k = rest;
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 11 * MS, s2c.b + r1, k);
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 11 * MS, s2c.b + r1 + k, rest - k);
    }
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 20 * MS);
    *out = r.c;
}

static void test_whole_and_splits(void)
{
    static cap c;
    run_split(&c, 0, 0, 0);
    check_exchange(&c, "whole");
    run_split(&c, 0, 0, 1);
    check_exchange(&c, "bytewise");
    static bw c2s, s2c;
    exchange(&c2s, &s2c);
    int bad = 0;
    for (size_t cs = 1; cs < c2s.n; cs++) {
        run_split(&c, cs, 0, 0);
        const crow *s = find_op(&c, SAT_OP_SRCH, 2);
        if (c.nops != 3 || !s || strcmp(s->filter, BIG_FILTER) != 0 || s->nentries != 2)
            bad++;
    }
    for (size_t ss = 1; ss < s2c.n; ss++) {
        run_split(&c, 0, ss, 0);
        const crow *s = find_op(&c, SAT_OP_SRCH, 2);
        if (c.nops != 3 || !s || s->nentries != 2 || s->err != 0 || s->etime != 7 * MS)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_abandon_ext_del_compare(void)
{
    static rig r;
    static bw w, v;
    rig_open(&r, 7);
    w.n = v.n = 0;
    m_search(&w, 5, "o=big", 1, simple_filter, 1);
    m_abandon(&w, 6, 5);
    m_del(&w, 7, "uid=x,o=big");
    msg_begin(&w, 8); /* compare */
    bw_begin(&w, 0x6e);
    bw_str(&w, 0x04, "uid=y,o=big");
    ava(&w, 0x30, "sn", "z");
    bw_end(&w);
    bw_end(&w);
    m_search(&w, 9, "o=big", 2, simple_filter, 2);
    m_ext(&w, 10, "1.3.6.1.4.1.4203.1.11.3");
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n), SAT_OK);
    m_result(&v, 7, 0x6b, 32, "o=big", "no such entry");
    m_result(&v, 8, 0x6f, 6, "", "");
    m_entry(&v, 9, "uid=p,o=big", 1);
    m_result(&v, 10, 0x78, 0, "", "");
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, v.b, v.n), SAT_OK);
    rig_close(&r, SAT_TCP_END_RST_SERVER, T0 + 2 * MS);
    const crow *a = find_op(&r.c, SAT_OP_ABANDON, 6), *d = find_op(&r.c, SAT_OP_DEL, 7),
               *cm = find_op(&r.c, SAT_OP_CMP, 8), *s = find_op(&r.c, SAT_OP_SRCH, 5),
               *ps = find_op(&r.c, SAT_OP_SRCH, 9), *x = find_op(&r.c, SAT_OP_EXT, 10);
    CHECK(a && d && cm && s && ps && x);
    if (!(a && d && cm && s && ps && x))
        return;
    CHECK_EQ_INT(a->target_op, 5);
    CHECK_EQ_STR(d->dn, "uid=x,o=big");
    CHECK_EQ_INT(d->err, 32);
    CHECK_EQ_STR(d->text, "no such entry (matched DN: o=big)");
    CHECK_EQ_INT(d->etime, MS);
    CHECK_EQ_STR(cm->extra, "sn");
    CHECK_EQ_INT(cm->err, 6);
    CHECK(s->flags & SAT_OPF_PAGED);
    CHECK(s->flags & SAT_OPF_UNFINISHED); /* abandoned: never answered */
    CHECK_EQ_INT(s->scope, SAT_SCOPE_ONE);
    CHECK_EQ_STR(s->filter, "(objectClass=person)");
    CHECK(ps->flags & SAT_OPF_PERSISTENT);
    CHECK_EQ_STR(x->method, "1.3.6.1.4.1.4203.1.11.3");
    CHECK_EQ_STR(x->extra, "WHOAMI");
    CHECK_EQ_INT(r.c.nconns, 1);
    CHECK_EQ_STR(r.c.conns[0].reason, "server reset (RST)");
}

static void test_starttls(void)
{
    static rig r;
    static bw w, v;
    rig_open(&r, 3);
    w.n = v.n = 0;
    m_ext(&w, 1, "1.3.6.1.4.1.1466.20037");
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n), SAT_OK);
    msg_begin(&v, 1);
    bw_begin(&v, 0x78);
    bw_int(&v, 0x0a, 0);
    bw_str(&v, 0x04, "");
    bw_str(&v, 0x04, "");
    bw_str(&v, 0x8a, "1.3.6.1.4.1.1466.20037");
    bw_end(&v);
    bw_end(&v);
    static const uint8_t hello[] = {0x16, 0x03, 0x01, 0x00, 0x05, 1, 0, 0, 1, 0};
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 2 * MS, v.b, v.n),
                 SAT_STREAM_UPGRADE_TLS);
    /* TLS bytes after the upgrade (if the flow table still sent them) are ignored */
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 3 * MS, hello, sizeof hello),
                 SAT_OK);
    rig_close(&r, SAT_TCP_END_FIN_SERVER, T0 + 5 * MS);
    CHECK_EQ_INT(r.c.nops, 1);
    CHECK_EQ_INT(r.c.ops[0].type, SAT_OP_EXT);
    CHECK_EQ_INT(r.c.ops[0].err, 0);
    CHECK_EQ_INT(r.c.ops[0].etime, 2 * MS);
    CHECK_EQ_STR(r.c.ops[0].extra, "STARTTLS");
    CHECK_EQ_INT(r.c.nconns, 1);
    CHECK_EQ_INT(r.c.conns[0].listener, SAT_LISTENER_STARTTLS);
    CHECK(r.c.conns[0].flags & SAT_CONNF_TLS);

    /* refused StartTLS: no upgrade */
    rig_open(&r, 4);
    v.n = 0;
    m_result(&v, 1, 0x78, 2, "", "unsupported extended operation");
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, v.b, v.n), SAT_OK);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 5 * MS);
    CHECK_EQ_INT(r.c.nops, 1);
    CHECK_EQ_INT(r.c.ops[0].err, 2);
    CHECK_EQ_STR(r.c.ops[0].text, "unsupported extended operation");
    CHECK_EQ_INT(r.c.conns[0].listener, SAT_LISTENER_LDAP);
}

static void test_sasl(void)
{
    static rig r;
    static bw w;
    rig_open(&r, 2);
    w.n = 0;
    m_bind_sasl(&w, 1, "DIGEST-MD5", NULL);
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
    w.n = 0;
    msg_begin(&w, 1); /* challenge: resultCode 14 + serverSaslCreds */
    bw_begin(&w, 0x61);
    bw_int(&w, 0x0a, 14);
    bw_str(&w, 0x04, "");
    bw_str(&w, 0x04, "SASL bind in progress");
    bw_str(&w, 0x87, "nonce=\"abc\"");
    bw_end(&w);
    bw_end(&w);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, w.b, w.n);
    w.n = 0;
    m_bind_sasl(&w, 2, "DIGEST-MD5", "response=xyz");
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 2 * MS, w.b, w.n);
    w.n = 0;
    m_result(&w, 2, 0x61, 0, "", "");
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 5 * MS, w.b, w.n);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 6 * MS);
    const crow *b1 = find_op(&r.c, SAT_OP_BIND, 1), *b2 = find_op(&r.c, SAT_OP_BIND, 2);
    CHECK(b1 && b2);
    if (!b1 || !b2)
        return;
    CHECK_EQ_STR(b1->method, "DIGEST-MD5");
    CHECK_EQ_INT(b1->err, 14);
    CHECK(b1->flags & SAT_OPF_SASL_INPROGRESS);
    CHECK_EQ_INT(b2->err, 0);
    CHECK_EQ_INT(b2->etime, 3 * MS);
    CHECK(!(b2->flags & SAT_OPF_SASL_INPROGRESS));
}

/* Two connections whose first messages arrive out of flow order: the
 * joiner (restart detection off, as for captures) keeps both. */
static void test_two_flows(void)
{
    static rig r;
    static bw w;
    rig_open(&r, 1);
    sat_flow_info fi2 = r.fi;
    fi2.flow = 2;
    fi2.client_port = 40002;
    void *st2 = sat_dissect_ldap.create(&fi2, &r.ctx);
    w.n = 0;
    m_bind_simple(&w, 1, "cn=two", "p");
    sat_dissect_ldap.data(st2, SAT_DIR_C2S, T0, w.b, w.n);
    w.n = 0;
    m_bind_simple(&w, 1, "cn=one", "p");
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + MS, w.b, w.n);
    w.n = 0;
    m_result(&w, 1, 0x61, 0, "", "");
    sat_dissect_ldap.data(st2, SAT_DIR_S2C, T0 + 2 * MS, w.b, w.n);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 4 * MS, w.b, w.n);
    sat_dissect_ldap.end(st2, SAT_TCP_END_NONE, T0 + 5 * MS);
    sat_dissect_ldap.destroy(st2);
    rig_close(&r, SAT_TCP_END_NONE, T0 + 5 * MS);
    CHECK_EQ_INT(r.c.nops, 2);
    int one = 0, two = 0;
    for (int i = 0; i < r.c.nops; i++) {
        if (r.c.ops[i].conn == 1 && strcmp(r.c.ops[i].bind_dn, "cn=one") == 0 &&
            r.c.ops[i].etime == 3 * MS)
            one++;
        if (r.c.ops[i].conn == 2 && strcmp(r.c.ops[i].bind_dn, "cn=two") == 0 &&
            r.c.ops[i].etime == 2 * MS)
            two++;
    }
    CHECK_EQ_INT(one, 1);
    CHECK_EQ_INT(two, 1);
    CHECK_EQ_INT(r.c.nconns, 2);
    for (int i = 0; i < r.c.nconns; i++)
        CHECK(r.c.conns[i].flags & SAT_CONNF_UNCLOSED);
}

/* The rows feed `satscope etime`'s analyzer as a log's would. */
static int build_etime(const void *e, sat_result *r)
{
    return sat_etime_result((const sat_etime *)e, r);
}

static void test_etime_analyzer(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink ek = sat_etime_sink(e);
    static rig r;
    static bw c2s, s2c;
    exchange(&c2s, &s2c);
    rig_open(&r, 1);
    r.c.tee = &ek;
    size_t m1 = first_msg_len(&c2s), r1 = first_msg_len(&s2c);
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, c2s.b, m1);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 3 * MS, s2c.b, r1);
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 4 * MS, c2s.b + m1, c2s.n - m1);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 11 * MS, s2c.b + r1, s2c.n - r1);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 20 * MS);
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *v = sat_result_root(res), *all = sat_get_row(sat_get_table(v, "ops"), "op", "all");
    CHECK_EQ_INT(sat_get_count(v, "operations", 0), 3);
    CHECK_EQ_INT(sat_get_count(v, "operation_stats.results", 0), 2);
    CHECK_EQ_INT(sat_get_count(v, "operation_stats.unbinds", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "operation_stats.entries_returned", 0), 2);
    CHECK_EQ_INT(sat_get_count(v, "connection_stats.total", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "binds.total", 0), 1);
    CHECK_EQ_INT(sat_get_count(v, "connection_stats.by_listener.LDAP", 0), 1);
    /* both results timed: the total is twice the mean */
    CHECK(fabs(sat_get_dur(all, "total_s", NAN) / sat_get_dur(all, "mean_s", NAN) - 2) < 1e-9);
    double mx = sat_get_dur(all, "max_s", NAN);
    CHECK(mx > 0.0069 && mx < 0.0071);
    sat_result_free(res);
    sat_etime_free(e);
}

int main(void)
{
    test_whole_and_splits();
    test_abandon_ext_del_compare();
    test_starttls();
    test_sasl();
    test_two_flows();
    test_etime_analyzer();
    return CHECK_DONE();
}
