/*
 * ldap_rig.h - the LDAP dissector (parse/wire/dis_ldap.c) on one flow with a real
 * joiner behind it, for the tests test_dis_ldap_*.c: a capturing sink that
 * keeps a copy of every ldap_op / ldap_conn row (strings copied, as rows are
 * borrowed; optionally handing the rows on), the rig that wires dissector,
 * joiner and sink, and a lookup of a captured operation.
 */
#ifndef SAT_TEST_LDAP_RIG_H
#define SAT_TEST_LDAP_RIG_H

#include "parse/wire/dissectors.h"
#include "satscope/parse.h"
#include "satscope/wire.h"

#include <string.h>

#define MS 1000000LL
#define T0 1700000000000000000LL

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

static inline void cp(char *dst, size_t cap_, sat_str s)
{
    size_t n = s.ptr ? (s.len < cap_ - 1 ? s.len : cap_ - 1) : 0;
    if (s.ptr)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
    if (!s.ptr && cap_ > 1)
        strcpy(dst, "-");
}
static inline int on_op(void *ctx, const sat_ldap_op *o)
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
static inline int on_conn(void *ctx, const sat_ldap_conn *k)
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

static inline int rows_op_conn(void *ctx, int table, const void *row)
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

static inline void rig_open(rig *r, uint32_t flow)
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
static inline void rig_close(rig *r, int how, sat_ts_ns ts)
{
    sat_dissect_ldap.end(r->st, how, ts);
    sat_dissect_ldap.destroy(r->st);
    sat_ldap_join_finish(r->j);
    sat_ldap_join_free(r->j);
}
static inline const crow *find_op(const cap *c, int type, int64_t op)
{
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].type == type && (op < 0 || c->ops[i].op == op))
            return &c->ops[i];
    return NULL;
}

#endif
