/*
 * test_dis_ldap_robust.c - the LDAP stream dissector (parse/wire/dis_ldap.c, RFC
 * 4511) on bytes it must survive, with messages encoded here (ldap_ber.h)
 * into a capturing rig (ldap_rig.h): bytes that are not LDAP, messages that
 * break their own lengths or nest a filter past the bound (never a crash in
 * the ASan build, never a row made from them); an entry bigger than the
 * reassembly bound, gaps inside and between messages; and the content sniff.
 */
#include "check.h"

#include "ldap_ber.h"
#include "ldap_rig.h"

#include <stdlib.h>
#include <string.h>

/* Bytes that are not LDAP, or LDAP that breaks its own lengths: never a
 * crash (ASan build), never a row made from them. */
static void test_malformed(void)
{
    static rig r;
    static bw w;
    static const uint8_t junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    rig_open(&r, 1);
    CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, junk, sizeof junk - 1), SAT_OK);
    w.n = 0;
    m_bind_simple(&w, 1, "cn=x", "y");
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + MS);
    CHECK_EQ_INT(r.c.nops, 0);
    CHECK_EQ_INT(r.c.nconns, 0);

    /* cases: a good bind, then one damaged message: the good one stays */
    static const uint8_t bad[][16] = {
        {0x30, 0x80, 0x02, 0x01, 0x02, 0x42, 0x00, 0x00, 0x00},      /* indefinite */
        {0x30, 0x07, 0x02, 0x09, 0x02, 0x42, 0x00, 0, 0, 0},          /* INTEGER too long */
        {0x30, 0x05, 0x02, 0x01, 0x02, 0x63, 0x00},                   /* empty search */
        {0x30, 0x06, 0x02, 0x01, 0x02, 0x60, 0x01, 0x03},             /* bind: inner len */
        {0x30, 0x85, 0, 0, 0, 0, 1, 2, 1, 2},                         /* 5 length octets */
        {0x30, 0x05, 0x04, 0x01, 0x02, 0x42, 0x00},                   /* id not INTEGER */
        {0x30, 0x05, 0x02, 0x01, 0x00, 0x42, 0x00},                   /* client id 0 */
        {0x30, 0x06, 0x02, 0x01, 0x02, 0x1f, 0x81, 0x00},             /* multi-byte tag */
        {0x30, 0x06, 0x02, 0x01, 0x02, 0x61, 0x01, 0x00},             /* response from client */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_open(&r, 1);
        w.n = 0;
        m_bind_simple(&w, 1, "cn=x", "y");
        sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
        CHECK_EQ_INT(sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, bad[i], sizeof bad[i]), SAT_OK);
        w.n = 0;
        m_result(&w, 1, 0x61, 0, "", "");
        m_result(&w, 2, 0x61, 0, "", "");
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, w.b, w.n);
        rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 2 * MS);
        /* the bind with its answer; no row for id 2, whose request was
         * unreadable (the client's side was given up) */
        CHECK_EQ_INT(r.c.nops, 1);
        const crow *b = find_op(&r.c, SAT_OP_BIND, 1);
        CHECK(b && b->err == 0);
    }

    /* a filter nested deeper than the bound: the request is dropped, no crash */
    rig_open(&r, 1);
    w.n = 0;
    msg_begin(&w, 1);
    bw_begin(&w, 0x63);
    bw_str(&w, 0x04, "");
    bw_int(&w, 0x0a, 0);
    bw_int(&w, 0x0a, 0);
    bw_int(&w, 0x02, 0);
    bw_int(&w, 0x02, 0);
    bw_byte(&w, 0x01);
    bw_byte(&w, 1);
    bw_byte(&w, 0);
    for (int i = 0; i < 40; i++)
        bw_begin(&w, 0xa2);
    bw_str(&w, 0x87, "cn");
    for (int i = 0; i < 40; i++)
        bw_end(&w);
    bw_begin(&w, 0x30);
    bw_end(&w);
    bw_end(&w);
    bw_end(&w);
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + MS);
    CHECK_EQ_INT(r.c.nops, 0);
}

static void test_big_and_gap(void)
{
    static rig r;
    static bw w;
    rig_open(&r, 1);
    w.n = 0;
    m_search(&w, 2, "o=x", 2, simple_filter, 0);
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0, w.b, w.n);
    /* an entry bigger than the reassembly bound, skipped by its length yet
     * counted, sent in 1000-byte pieces */
    size_t big = (1u << 20) + 100;
    uint8_t *e = (uint8_t *)malloc(big + 64);
    size_t n = 0;
    e[n++] = 0x30;
    size_t inner = 3 + 5 + big; /* id + op header + contents */
    e[n++] = 0x83;
    e[n++] = (uint8_t)(inner >> 16);
    e[n++] = (uint8_t)(inner >> 8);
    e[n++] = (uint8_t)inner;
    e[n++] = 0x02;
    e[n++] = 0x01;
    e[n++] = 0x02;
    e[n++] = 0x64;
    e[n++] = 0x83;
    e[n++] = (uint8_t)(big >> 16);
    e[n++] = (uint8_t)(big >> 8);
    e[n++] = (uint8_t)big;
    memset(e + n, 'x', big);
    n += big;
    for (size_t off = 0; off < n; off += 1000)
        sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, e + off, n - off < 1000 ? n - off : 1000);
    free(e);
    /* a normal entry, with a gap inside it (framing kept), then the done */
    w.n = 0;
    m_entry(&w, 2, "uid=a,o=x", 200);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, w.b, 50);
    sat_dissect_ldap.gap(r.st, SAT_DIR_S2C, T0 + MS, 100);
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + MS, w.b + 150, w.n - 150);
    w.n = 0;
    m_entry(&w, 2, "uid=b,o=x", 5);
    m_result(&w, 2, 0x65, 0, "", "");
    sat_dissect_ldap.data(r.st, SAT_DIR_S2C, T0 + 4 * MS, w.b, w.n);
    /* a gap at an unknown place: the next message is found again */
    sat_dissect_ldap.gap(r.st, SAT_DIR_C2S, T0 + 5 * MS, 10);
    w.n = 0;
    m_entry(&w, 99, "x", 3); /* the tail of something: bytes "...x" */
    m_del(&w, 3, "uid=c,o=x");
    sat_dissect_ldap.data(r.st, SAT_DIR_C2S, T0 + 5 * MS, w.b + 8, w.n - 8);
    rig_close(&r, SAT_TCP_END_FIN_CLIENT, T0 + 6 * MS);
    const crow *s = find_op(&r.c, SAT_OP_SRCH, 2), *d = find_op(&r.c, SAT_OP_DEL, 3);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(s->nentries, 2); /* the big one and b; a was lost in the gap */
        CHECK_EQ_INT(s->etime, 4 * MS);
    }
    CHECK(d != NULL);
}

static void test_sniff(void)
{
    static bw w;
    w.n = 0;
    m_bind_simple(&w, 1, "cn=x", "y");
    int full = sat_dissect_ldap.sniff(w.b, w.n, SAT_DIR_C2S, 10389);
    int port = sat_dissect_ldap.sniff(w.b, w.n, SAT_DIR_C2S, 389);
    int part = sat_dissect_ldap.sniff(w.b, 6, SAT_DIR_C2S, 10389);
    CHECK(full >= 60);
    CHECK(port > full);
    CHECK(part > 0 && part < full);
    static const uint8_t tls[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
    static const uint8_t http[] = "GET / HTTP/1.1\r\n";
    CHECK_EQ_INT(sat_dissect_ldap.sniff(tls, sizeof tls, SAT_DIR_C2S, 389), 0);
    CHECK_EQ_INT(sat_dissect_ldap.sniff(http, sizeof http - 1, SAT_DIR_C2S, 389), 0);
    CHECK_EQ_INT(sat_dissect_ldap.sniff(w.b, 0, SAT_DIR_C2S, 389), 0);
    /* a response in the client direction is not a client's first message */
    w.n = 0;
    m_result(&w, 1, 0x61, 0, "", "");
    CHECK_EQ_INT(sat_dissect_ldap.sniff(w.b, w.n, SAT_DIR_C2S, 389), 0);
    CHECK(sat_dissect_ldap.sniff(w.b, w.n, SAT_DIR_S2C, 389) > 0);
}

int main(void)
{
    test_malformed();
    test_big_and_gap();
    test_sniff();
    return CHECK_DONE();
}
