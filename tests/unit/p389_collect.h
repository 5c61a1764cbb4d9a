/* p389_collect.h - a collecting event sink for the 389/joiner unit tests: copies
 * every row and its strings (rows are borrowed for the callback only). */
#ifndef P389_COLLECT_H
#define P389_COLLECT_H
#include "satscope/parse.h"

typedef struct coll {
    sat_arena arena;
    sat_ldap_op *ops;
    size_t nops, capops;
    sat_ldap_conn *conns;
    size_t nconns, capconns;
    sat_reject rejects[64];
    size_t nrejects;
} coll;

static inline sat_str coll_dup(coll *c, sat_str s)
{
    if (!s.ptr)
        return s;
    char *p = sat_arena_strdup(&c->arena, s.ptr, s.len);
    return sat_str_make(p, s.len);
}

static inline int coll_op(void *ctx, const sat_ldap_op *o)
{
    coll *c = (coll *)ctx;
    if (c->nops == c->capops) {
        c->capops = c->capops ? c->capops * 2 : 64;
        c->ops = (sat_ldap_op *)realloc(c->ops, c->capops * sizeof *c->ops);
    }
    sat_ldap_op r = *o;
    r.dn = coll_dup(c, r.dn); r.filter = coll_dup(c, r.filter);
    r.filter_shape = coll_dup(c, r.filter_shape); r.attrs = coll_dup(c, r.attrs);
    r.method = coll_dup(c, r.method); r.extra = coll_dup(c, r.extra);
    r.bind_dn = coll_dup(c, r.bind_dn); r.client_ip = coll_dup(c, r.client_ip);
    r.text = coll_dup(c, r.text); r.details = coll_dup(c, r.details); r.sid = coll_dup(c, r.sid);
    c->ops[c->nops++] = r;
    return 0;
}

static inline int coll_conn(void *ctx, const sat_ldap_conn *o)
{
    coll *c = (coll *)ctx;
    if (c->nconns == c->capconns) {
        c->capconns = c->capconns ? c->capconns * 2 : 64;
        c->conns = (sat_ldap_conn *)realloc(c->conns, c->capconns * sizeof *c->conns);
    }
    sat_ldap_conn r = *o;
    r.client_ip = coll_dup(c, r.client_ip); r.server_addr = coll_dup(c, r.server_addr);
    r.tls_version = coll_dup(c, r.tls_version); r.tls_cipher = coll_dup(c, r.tls_cipher);
    r.client_cert = coll_dup(c, r.client_cert); r.close_reason = coll_dup(c, r.close_reason);
    r.bind_dn = coll_dup(c, r.bind_dn);
    c->conns[c->nconns++] = r;
    return 0;
}

static inline int coll_reject(void *ctx, const sat_reject *r)
{
    coll *c = (coll *)ctx;
    if (c->nrejects < 64) {
        sat_reject x = *r;
        x.reason = coll_dup(c, x.reason);
        x.excerpt = coll_dup(c, x.excerpt);
        c->rejects[c->nrejects++] = x;
    }
    return 0;
}

static inline int rows_reject_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_REJECT:
        return coll_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return coll_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return coll_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

static inline void coll_free(coll *c)
{
    sat_arena_free(&c->arena);
    free(c->ops);
    free(c->conns);
    memset(c, 0, sizeof *c);
}

static inline sat_event_sink coll_sink(coll *c)
{
    sat_event_sink s = {c, SAT_TABLE_BIT(SAT_TABLE_REJECT) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                           SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_reject_op_conn};
    return s;
}

/* Feed a text (lines separated by '\n') through one format + joiner. */
static inline void coll_run(coll *c, const sat_log_format *fmt, sat_source *src,
                     const char *text, size_t len, int finish)
{
    static sat_event_sink sink;
    sink = coll_sink(c);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = j;
    ctx.sink = &sink;
    ctx.source = src;
    ctx.reject_sample_max = 64;
    void *st = fmt->create(&ctx);
    const char *p = text, *end = text + len;
    uint64_t ln = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        fmt->line(st, p, (size_t)(e - p), ++ln);
        p = nl ? nl + 1 : end;
    }
    fmt->finish(st);
    /* header strings live as long as the parser state: keep copies */
    src->server_version = coll_dup(c, src->server_version);
    src->server_name = coll_dup(c, src->server_name);
    if (finish)
        sat_ldap_join_finish(j);
    fmt->destroy(st);
    sat_ldap_join_free(j);
}

#endif
