/*
 * test_dis_ldap.c - the LDAP stream dissector (parse/dis_ldap.c, RFC 4511)
 * driven directly with messages encoded here by a tiny BER writer, through a
 * real joiner into a capturing sink; then `satscope etime`'s analyzer on the
 * rows; then a real slapd exchange (fixtures/ldapwire/ldap.pcap, read by a
 * minimal classic-pcap reader that lives only in this test) compared with
 * slapd's own log of the same run (fixtures/ldapwire/slapd-stats.log).
 */
#include "check.h"

#include "parse/dissectors.h"
#include "satscope/analyze.h"
#include "satscope/parse.h"
#include "satscope/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MS 1000000LL
#define T0 1700000000000000000LL

/* ---- tiny BER writer ------------------------------------------------------------ */
typedef struct bw {
    uint8_t b[1 << 16];
    size_t n;
    size_t stack[64];
    int depth;
} bw;

static void bw_byte(bw *w, uint8_t c) { w->b[w->n++] = c; }
static void bw_raw(bw *w, const void *p, size_t n)
{
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void bw_begin(bw *w, uint8_t tag)
{
    bw_byte(w, tag);
    w->stack[w->depth++] = w->n;
    bw_byte(w, 0); /* length patched by bw_end */
}
/* Minimal definite length: short form, else 0x81..0x83 (moves the contents). */
static void bw_end(bw *w)
{
    size_t at = w->stack[--w->depth];
    size_t len = w->n - at - 1;
    if (len < 0x80) {
        w->b[at] = (uint8_t)len;
        return;
    }
    int k = len < 0x100 ? 1 : len < 0x10000 ? 2 : 3;
    memmove(w->b + at + 1 + k, w->b + at + 1, len);
    w->b[at] = (uint8_t)(0x80 | k);
    for (int i = 0; i < k; i++)
        w->b[at + 1 + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
    w->n += (size_t)k;
}
static void bw_str(bw *w, uint8_t tag, const char *s)
{
    bw_begin(w, tag);
    bw_raw(w, s, strlen(s));
    bw_end(w);
}
static void bw_int(bw *w, uint8_t tag, long v)
{
    uint8_t tmp[8];
    int k = 0;
    do {
        tmp[k++] = (uint8_t)(v & 0xff);
        v >>= 8;
    } while (v != 0 && v != -1);
    if ((tmp[k - 1] & 0x80) && v == 0)
        tmp[k++] = 0;
    bw_byte(w, tag);
    bw_byte(w, (uint8_t)k);
    while (k)
        bw_byte(w, tmp[--k]);
}
static void msg_begin(bw *w, long id)
{
    bw_begin(w, 0x30);
    bw_int(w, 0x02, id);
}

static void m_bind_simple(bw *w, long id, const char *dn, const char *pw)
{
    msg_begin(w, id);
    bw_begin(w, 0x60);
    bw_int(w, 0x02, 3);
    bw_str(w, 0x04, dn);
    bw_str(w, 0x80, pw);
    bw_end(w);
    bw_end(w);
}
static void m_bind_sasl(bw *w, long id, const char *mech, const char *creds)
{
    msg_begin(w, id);
    bw_begin(w, 0x60);
    bw_int(w, 0x02, 3);
    bw_str(w, 0x04, "");
    bw_begin(w, 0xa3);
    bw_str(w, 0x04, mech);
    if (creds)
        bw_str(w, 0x04, creds);
    bw_end(w);
    bw_end(w);
    bw_end(w);
}
static void ava(bw *w, uint8_t tag, const char *a, const char *v)
{
    bw_begin(w, tag);
    bw_str(w, 0x04, a);
    bw_str(w, 0x04, v);
    bw_end(w);
}
/* (&(uid=jdoe)(|(cn=J*)(sn=*x*y*z))(!(mail=*))(age>=3)(age<=9)(cn~=jon)
 *   (cn:dn:2.5.13.5:=v*)(o=a\(b\)) */
static void big_filter(bw *w)
{
    bw_begin(w, 0xa0);
    ava(w, 0xa3, "uid", "jdoe");
    bw_begin(w, 0xa1);
    bw_begin(w, 0xa4);
    bw_str(w, 0x04, "cn");
    bw_begin(w, 0x30);
    bw_str(w, 0x80, "J");
    bw_end(w);
    bw_end(w);
    bw_begin(w, 0xa4);
    bw_str(w, 0x04, "sn");
    bw_begin(w, 0x30);
    bw_str(w, 0x81, "x");
    bw_str(w, 0x81, "y");
    bw_str(w, 0x82, "z");
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_begin(w, 0xa2);
    bw_str(w, 0x87, "mail");
    bw_end(w);
    ava(w, 0xa5, "age", "3");
    ava(w, 0xa6, "age", "9");
    ava(w, 0xa8, "cn", "jon");
    bw_begin(w, 0xa9);
    bw_str(w, 0x81, "2.5.13.5");
    bw_str(w, 0x82, "cn");
    bw_str(w, 0x83, "v*");
    bw_byte(w, 0x84);
    bw_byte(w, 1);
    bw_byte(w, 0xff);
    bw_end(w);
    ava(w, 0xa3, "o", "a(b)");
    bw_end(w);
}
#define BIG_FILTER "(&(uid=jdoe)(|(cn=J*)(sn=*x*y*z))(!(mail=*))(age>=3)(age<=9)(cn~=jon)" \
                   "(cn:dn:2.5.13.5:=v\\2a)(o=a\\28b\\29))"

static void simple_filter(bw *w) { ava(w, 0xa3, "objectClass", "person"); }

/* controls: 0 none, 1 paged, 2 persistent search */
static void m_search(bw *w, long id, const char *base, int scope, void (*filter)(bw *),
                     int controls)
{
    msg_begin(w, id);
    bw_begin(w, 0x63);
    bw_str(w, 0x04, base);
    bw_int(w, 0x0a, scope);
    bw_int(w, 0x0a, 0);
    bw_int(w, 0x02, 0);
    bw_int(w, 0x02, 0);
    bw_byte(w, 0x01);
    bw_byte(w, 1);
    bw_byte(w, 0);
    filter(w);
    bw_begin(w, 0x30);
    bw_str(w, 0x04, "cn");
    bw_str(w, 0x04, "mail");
    bw_end(w);
    bw_end(w);
    if (controls) {
        bw_begin(w, 0xa0);
        bw_begin(w, 0x30);
        bw_str(w, 0x04, controls == 1 ? "1.2.840.113556.1.4.319" : "2.16.840.1.113730.3.4.3");
        bw_str(w, 0x04, "\x30\x05\x02\x01\x02\x04");
        bw_end(w);
        bw_end(w);
    }
    bw_end(w);
}
static void m_entry(bw *w, long id, const char *dn, size_t pad)
{
    msg_begin(w, id);
    bw_begin(w, 0x64);
    bw_str(w, 0x04, dn);
    bw_begin(w, 0x30);
    bw_begin(w, 0x30);
    bw_str(w, 0x04, "description");
    bw_begin(w, 0x31);
    bw_begin(w, 0x04);
    for (size_t i = 0; i < pad; i++)
        bw_byte(w, 'x');
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
}
static void m_result(bw *w, long id, uint8_t tag, int code, const char *matched,
                     const char *diag)
{
    msg_begin(w, id);
    bw_begin(w, tag);
    bw_int(w, 0x0a, code);
    bw_str(w, 0x04, matched);
    bw_str(w, 0x04, diag);
    bw_end(w);
    bw_end(w);
}
static void m_ext(bw *w, long id, const char *oid)
{
    msg_begin(w, id);
    bw_begin(w, 0x77);
    bw_str(w, 0x80, oid);
    bw_end(w);
    bw_end(w);
}
static void m_abandon(bw *w, long id, long target)
{
    msg_begin(w, id);
    bw_int(w, 0x50, target);
    bw_end(w);
}
static void m_unbind(bw *w, long id)
{
    msg_begin(w, id);
    bw_byte(w, 0x42);
    bw_byte(w, 0);
    bw_end(w);
}
static void m_del(bw *w, long id, const char *dn)
{
    msg_begin(w, id);
    bw_str(w, 0x4a, dn);
    bw_end(w);
}

/* ---- capturing sink ---------------------------------------------------------------- */
typedef struct crow {
    int type, err;
    int64_t conn, op, nentries, target_op;
    sat_dur_ns etime;
    uint16_t flags;
    char dn[128], filter[256], attrs[64], method[64], extra[64], text[128], bind_dn[128],
        client[64];
    uint8_t scope;
} crow;
typedef struct ccon {
    int64_t conn;
    uint8_t listener, flags;
    uint16_t port;
    uint32_t ops;
    char client[64], reason[96], saddr[64];
    sat_ts_ns open_ts, close_ts;
} ccon;
typedef struct cap {
    crow ops[256];
    int nops;
    ccon conns[64];
    int nconns;
    const sat_event_sink *tee; /* also hand the rows on (the etime analyzer) */
} cap;

static void cp(char *dst, size_t cap_, sat_str s)
{
    size_t n = s.ptr ? (s.len < cap_ - 1 ? s.len : cap_ - 1) : 0;
    if (s.ptr)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
    if (!s.ptr && cap_ > 1)
        strcpy(dst, "-");
}
static int on_op(void *ctx, const sat_ldap_op *o)
{
    cap *c = (cap *)ctx;
    if (c->nops < 256) {
        crow *r = &c->ops[c->nops++];
        memset(r, 0, sizeof *r);
        r->type = o->type;
        r->err = o->err;
        r->conn = o->conn;
        r->op = o->op;
        r->nentries = o->nentries;
        r->target_op = o->target_op;
        r->etime = o->etime;
        r->flags = o->flags;
        r->scope = o->scope;
        cp(r->dn, sizeof r->dn, o->dn);
        cp(r->filter, sizeof r->filter, o->filter);
        cp(r->attrs, sizeof r->attrs, o->attrs);
        cp(r->method, sizeof r->method, o->method);
        cp(r->extra, sizeof r->extra, o->extra);
        cp(r->text, sizeof r->text, o->text);
        cp(r->bind_dn, sizeof r->bind_dn, o->bind_dn);
        cp(r->client, sizeof r->client, o->client_ip);
    }
    return c->tee ? sat_sink_emit(c->tee, SAT_TABLE_LDAP_OP, o) : 0;
}
static int on_conn(void *ctx, const sat_ldap_conn *k)
{
    cap *c = (cap *)ctx;
    if (c->nconns < 64) {
        ccon *r = &c->conns[c->nconns++];
        r->conn = k->conn;
        r->listener = k->listener;
        r->flags = k->flags;
        r->port = k->client_port;
        r->ops = k->ops;
        r->open_ts = k->open_ts;
        r->close_ts = k->close_ts;
        cp(r->client, sizeof r->client, k->client_ip);
        cp(r->reason, sizeof r->reason, k->close_reason);
        cp(r->saddr, sizeof r->saddr, k->server_addr);
    }
    return c->tee ? sat_sink_emit(c->tee, SAT_TABLE_LDAP_CONN, k) : 0;
}

static int rows_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

/* One dissector on one flow, a joiner behind it. */
typedef struct rig {
    cap c;
    sat_event_sink sink;
    sat_ldap_join *j;
    sat_wire_ctx ctx;
    sat_flow_info fi;
    void *st;
} rig;

static void rig_open(rig *r, uint32_t flow)
{
    memset(r, 0, sizeof *r);
    r->sink.ctx = &r->c;
    r->sink.tables = SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN);
    r->sink.on_row = rows_op_conn;
    r->j = sat_ldap_join_create(0, &r->sink, 0);
    sat_ldap_join_set_restart_detection(r->j, 0);
    r->ctx.sink = &r->sink;
    r->ctx.join = r->j;
    r->fi.flow = flow;
    r->fi.client_ip = sat_str_cstr("10.0.0.7");
    r->fi.server_ip = sat_str_cstr("10.0.0.1");
    r->fi.client_port = 40001;
    r->fi.server_port = 389;
    r->st = sat_dissect_ldap.create(&r->fi, &r->ctx);
}
static void rig_close(rig *r, int how, sat_ts_ns ts)
{
    sat_dissect_ldap.end(r->st, how, ts);
    sat_dissect_ldap.destroy(r->st);
    sat_ldap_join_finish(r->j);
    sat_ldap_join_free(r->j);
}
static const crow *find_op(const cap *c, int type, int64_t op)
{
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].type == type && (op < 0 || c->ops[i].op == op))
            return &c->ops[i];
    return NULL;
}

/* the canonical exchange: bind, search with 2 entries, done */
static void exchange(bw *c2s, bw *s2c)
{
    c2s->n = s2c->n = 0;
    m_bind_simple(c2s, 1, "cn=admin,dc=example,dc=com", "secret");
    m_search(c2s, 2, "dc=example,dc=com", 2, big_filter, 0);
    m_unbind(c2s, 3);
    m_result(s2c, 1, 0x61, 0, "", "");
    m_entry(s2c, 2, "uid=jdoe,dc=example,dc=com", 10);
    m_entry(s2c, 2, "uid=jane,dc=example,dc=com", 300); /* long-form lengths */
    m_result(s2c, 2, 0x65, 0, "", "");
}

static size_t first_msg_len(const bw *w)
{
    return w->b[1] < 0x80 ? 2u + w->b[1] : 0; /* short-form first messages only */
}

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
    const sat_etime_view *v = sat_etime_get_view(e);
    CHECK_EQ_INT(v->ops, 3);
    CHECK_EQ_INT(v->results, 2);
    CHECK_EQ_INT(v->unbinds, 1);
    CHECK_EQ_INT(v->entries, 2);
    CHECK_EQ_INT(v->conns, 1);
    CHECK_EQ_INT(v->binds, 1);
    CHECK_EQ_INT(v->by_listener[SAT_LISTENER_LDAP], 1);
    CHECK_EQ_INT(v->all.timed, 2);
    CHECK(v->all.max_s > 0.0069 && v->all.max_s < 0.0071);
    sat_etime_free(e);
}

/* ---- a real slapd exchange ------------------------------------------------------------
 * Minimal classic-pcap reader (this test only): Ethernet / Linux cooked v1,
 * IPv4 / IPv6 without extension headers, TCP; reassembly is naive (in-order
 * segments appended, anything else dropped), enough for loopback captures. */
#define MAXF 64
typedef struct pflow {
    uint8_t used;
    uint16_t cport, sport;
    uint32_t next[2];
    uint8_t have[2];
    void *st;
    sat_flow_info fi;
    char cip[48], sip[48];
} pflow;

static uint32_t rd32(const uint8_t *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static int read_pcap(const char *path, rig *r, uint16_t server_port, int *nflows)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t gh[24];
    if (fread(gh, 1, 24, f) != 24) {
        fclose(f);
        return -1;
    }
    uint32_t magic;
    memcpy(&magic, gh, 4);
    int swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    int nano = magic == 0xa1b23c4d || magic == 0x4d3cb2a1;
    uint32_t link = rd32(gh + 20, swap);
    static pflow fl[MAXF];
    memset(fl, 0, sizeof fl);
    uint8_t ph[16];
    static uint8_t pkt[262144];
    uint32_t flow_no = 0;
    while (fread(ph, 1, 16, f) == 16) {
        uint32_t caplen = rd32(ph + 8, swap);
        if (caplen > sizeof pkt || fread(pkt, 1, caplen, f) != caplen)
            break;
        sat_ts_ns ts = (sat_ts_ns)rd32(ph, swap) * 1000000000LL +
                       (sat_ts_ns)rd32(ph + 4, swap) * (nano ? 1 : 1000);
        size_t off;
        uint16_t et;
        if (link == 1) {
            off = 14;
            et = (uint16_t)(pkt[12] << 8 | pkt[13]);
        } else if (link == 113) {
            off = 16;
            et = (uint16_t)(pkt[14] << 8 | pkt[15]);
        } else {
            continue;
        }
        const uint8_t *ip = pkt + off, *tcp;
        size_t iplen;
        char src[48], dst[48];
        if (et == 0x0800 && caplen >= off + 20 && ip[9] == 6) {
            size_t ihl = (size_t)(ip[0] & 15) * 4;
            iplen = (size_t)(ip[2] << 8 | ip[3]);
            snprintf(src, sizeof src, "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
            snprintf(dst, sizeof dst, "%u.%u.%u.%u", ip[16], ip[17], ip[18], ip[19]);
            tcp = ip + ihl;
            iplen -= ihl;
        } else if (et == 0x86dd && caplen >= off + 40 && ip[6] == 6) {
            iplen = (size_t)(ip[4] << 8 | ip[5]);
            snprintf(src, sizeof src, "v6");
            snprintf(dst, sizeof dst, "v6");
            tcp = ip + 40;
        } else {
            continue;
        }
        if ((size_t)(tcp - pkt) + 20 > caplen || (size_t)(tcp - pkt) + iplen > caplen)
            continue;
        uint16_t sp = (uint16_t)(tcp[0] << 8 | tcp[1]), dp = (uint16_t)(tcp[2] << 8 | tcp[3]);
        uint32_t seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | (uint32_t)tcp[6] << 8 | tcp[7];
        size_t thl = (size_t)(tcp[12] >> 4) * 4;
        uint8_t flags = tcp[13];
        if (thl > iplen)
            continue;
        const uint8_t *pl = tcp + thl;
        size_t plen = iplen - thl;
        int dir = dp == server_port ? SAT_DIR_C2S : sp == server_port ? SAT_DIR_S2C : -1;
        if (dir < 0)
            continue;
        uint16_t cport = dir == SAT_DIR_C2S ? sp : dp;
        pflow *p = NULL;
        for (int i = 0; i < MAXF; i++)
            if (fl[i].used && fl[i].cport == cport)
                p = &fl[i];
        if (!p && (flags & 0x02) && dir == SAT_DIR_C2S) {
            for (int i = 0; i < MAXF && !p; i++)
                if (!fl[i].used)
                    p = &fl[i];
            if (!p)
                continue;
            memset(p, 0, sizeof *p);
            p->used = 1;
            p->cport = cport;
            snprintf(p->cip, sizeof p->cip, "%s", src);
            snprintf(p->sip, sizeof p->sip, "%s", dst);
            p->fi.flow = ++flow_no;
            p->fi.client_ip = sat_str_cstr(p->cip);
            p->fi.server_ip = sat_str_cstr(p->sip);
            p->fi.client_port = cport;
            p->fi.server_port = server_port;
        }
        if (!p)
            continue;
        if (flags & 0x02) {
            p->next[dir] = seq + 1;
            p->have[dir] = 1;
            continue;
        }
        if (plen && p->have[dir] && seq == p->next[dir]) {
            if (!p->st)
                p->st = sat_dissect_ldap.create(&p->fi, &r->ctx);
            if (p->st)
                sat_dissect_ldap.data(p->st, dir, ts, pl, plen);
            p->next[dir] += (uint32_t)plen;
        }
        if (flags & 0x05) { /* FIN or RST: the first one ends it */
            if (p->st) {
                int how = (flags & 0x04) ? (dir == SAT_DIR_C2S ? SAT_TCP_END_RST_CLIENT
                                                               : SAT_TCP_END_RST_SERVER)
                                         : (dir == SAT_DIR_C2S ? SAT_TCP_END_FIN_CLIENT
                                                               : SAT_TCP_END_FIN_SERVER);
                sat_dissect_ldap.end(p->st, how, ts);
                sat_dissect_ldap.destroy(p->st);
            }
            p->used = 0;
            p->st = NULL;
        }
    }
    for (int i = 0; i < MAXF; i++)
        if (fl[i].used && fl[i].st) {
            sat_dissect_ldap.end(fl[i].st, SAT_TCP_END_NONE, 0);
            sat_dissect_ldap.destroy(fl[i].st);
        }
    fclose(f);
    *nflows = (int)flow_no;
    return 0;
}

/* slapd's own log of the same run, through the OpenLDAP format and a joiner */
extern const sat_log_format sat_fmt_openldap;

static int read_log(const char *path, cap *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    sat_event_sink sink = {0};
    sink.ctx = out;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN);
    sink.on_row = rows_op_conn;
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = j;
    ctx.sink = &sink;
    ctx.source = &src;
    void *st = sat_fmt_openldap.create(&ctx);
    char line[4096];
    uint64_t no = 0;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        sat_fmt_openldap.line(st, line, n, ++no);
    }
    sat_fmt_openldap.finish(st);
    sat_fmt_openldap.destroy(st);
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    fclose(f);
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const crow *x = (const crow *)a, *y = (const crow *)b;
    if (x->conn != y->conn)
        return x->conn < y->conn ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static void test_slapd_capture(void)
{
    const char *srcdir = getenv("SAT_SRC");
    char pcap[1024], log[1024];
    snprintf(pcap, sizeof pcap, "%s/fixtures/ldapwire/ldap.pcap", srcdir ? srcdir : ".");
    snprintf(log, sizeof log, "%s/fixtures/ldapwire/slapd-stats.log", srcdir ? srcdir : ".");
    static rig r;
    rig_open(&r, 0);
    sat_dissect_ldap.destroy(r.st);
    int nflows = 0;
    CHECK_EQ_INT(read_pcap(pcap, &r, 38913, &nflows), 0);
    sat_ldap_join_finish(r.j);
    sat_ldap_join_free(r.j);
    static cap lg;
    memset(&lg, 0, sizeof lg);
    CHECK_EQ_INT(read_log(log, &lg), 0);
    /* one connection per client call on both sides, all closed by the client */
    CHECK_EQ_INT(nflows, 15);
    CHECK_EQ_INT(r.c.nconns, lg.nconns);
    for (int i = 0; i < r.c.nconns; i++) {
        CHECK_EQ_STR(r.c.conns[i].reason, "client closed (FIN)");
        CHECK_EQ_STR(r.c.conns[i].client, "127.0.0.1");
        CHECK_EQ_INT(r.c.conns[i].ops, lg.conns[i].ops);
    }
    /* the same operations in the same order per connection: type, result
     * code, entries (the log numbers ops from 0 per connection, the wire by
     * messageID; conns are 1000.. in the log, flows 1.. on the wire) */
    CHECK_EQ_INT(r.c.nops, lg.nops);
    qsort(r.c.ops, (size_t)r.c.nops, sizeof r.c.ops[0], cmp_row);
    qsort(lg.ops, (size_t)lg.nops, sizeof lg.ops[0], cmp_row);
    int n = r.c.nops < lg.nops ? r.c.nops : lg.nops, diffs = 0, timed = 0, srch = 0;
    for (int i = 0; i < n; i++) {
        const crow *w = &r.c.ops[i], *l = &lg.ops[i];
        if (w->conn != l->conn - 999 || w->type != l->type || w->err != l->err ||
            w->nentries != l->nentries || strcmp(w->dn, l->dn) != 0) {
            fprintf(stderr, "wire conn %lld op %lld %s err %d n %lld dn %s | log conn %lld op %lld %s err %d n %lld dn %s\n",
                    (long long)w->conn, (long long)w->op, sat_optype_name(w->type), w->err,
                    (long long)w->nentries, w->dn, (long long)l->conn, (long long)l->op,
                    sat_optype_name(l->type), l->err, (long long)l->nentries, l->dn);
            diffs++;
        }
        /* filters as slapd logs them, but for (cn>=c): slapd marks an
         * undefined ordering match as "(?cn>=c)", the wire has "(cn>=c)";
         * and slapd writes attribute names as the schema spells them
         * (ldapsearch sends "(objectclass=*)", slapd logs objectClass) */
        if (w->type == SAT_OP_SRCH) {
            srch++;
            if (strcasecmp(w->filter, l->filter) != 0 &&
                !(strcmp(l->filter, "(?cn>=c)") == 0 && strcmp(w->filter, "(cn>=c)") == 0)) {
                fprintf(stderr, "filter %s | %s\n", w->filter, l->filter);
                diffs++;
            }
        }
        if (w->type != SAT_OP_UNBIND) {
            /* wire latency seen by the client side of loopback: at least
             * the server's own etime minus its clock granularity */
            if (w->etime > 0 && l->etime > 0 && w->etime + 50000 >= l->etime)
                timed++;
        }
    }
    CHECK_EQ_INT(diffs, 0);
    CHECK_EQ_INT(srch, 10);
    int answered = 0;
    for (int i = 0; i < n; i++)
        if (lg.ops[i].type != SAT_OP_UNBIND)
            answered++;
    CHECK_EQ_INT(timed, answered);
    const crow *paged = NULL;
    for (int i = 0; i < r.c.nops; i++)
        if ((r.c.ops[i].flags & SAT_OPF_PAGED) && !paged)
            paged = &r.c.ops[i];
    CHECK(paged != NULL);
}

int main(void)
{
    test_whole_and_splits();
    test_abandon_ext_del_compare();
    test_starttls();
    test_sasl();
    test_malformed();
    test_big_and_gap();
    test_sniff();
    test_two_flows();
    test_etime_analyzer();
    test_slapd_capture();
    return CHECK_DONE();
}
