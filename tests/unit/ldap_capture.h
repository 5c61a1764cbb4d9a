/*
 * ldap_capture.h - a capturing event sink for the LDAP log-format tests
 * (test_389json.c, test_openldap.c, test_corpus_json_openldap.c): keeps a
 * copy of every ldap_op / ldap_conn / reject row (strings copied, since rows
 * are borrowed) and runs a whole buffer through a format + joiner.
 */
#ifndef SAT_TEST_LDAP_CAPTURE_H
#define SAT_TEST_LDAP_CAPTURE_H

#include "satscope/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP_MAX 4096
#define CAP_STR 200

typedef struct cap_op {
    sat_ldap_op row;
    char dn[CAP_STR], filter[CAP_STR], shape[CAP_STR], attrs[CAP_STR], method[CAP_STR],
        extra[CAP_STR], bind_dn[CAP_STR], client_ip[CAP_STR], text[CAP_STR],
        details[CAP_STR], sid[CAP_STR];
} cap_op;

typedef struct cap_conn {
    sat_ldap_conn row;
    char client_ip[CAP_STR], server_addr[CAP_STR], tls_version[CAP_STR],
        tls_cipher[CAP_STR], close_reason[CAP_STR], bind_dn[CAP_STR], cert[CAP_STR];
} cap_conn;

typedef struct capture {
    cap_op *ops;
    size_t nops;
    cap_conn *conns;
    size_t nconns;
    size_t nrejects;
    char server_name[CAP_STR], server_version[CAP_STR]; /* copied before destroy */
    uint64_t reject_lines[64];
    char reject_reason[64][80];
} capture;

static inline void cap_copy(char *dst, sat_str s)
{
    if (!s.ptr) {
        snprintf(dst, CAP_STR, "(none)");
        return;
    }
    size_t n = s.len < CAP_STR - 1 ? s.len : CAP_STR - 1;
    memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static inline int cap_on_op(void *ctx, const sat_ldap_op *op)
{
    capture *c = (capture *)ctx;
    if (c->nops >= CAP_MAX)
        return 0;
    cap_op *o = &c->ops[c->nops++];
    o->row = *op;
    cap_copy(o->dn, op->dn);
    cap_copy(o->filter, op->filter);
    cap_copy(o->shape, op->filter_shape);
    cap_copy(o->attrs, op->attrs);
    cap_copy(o->method, op->method);
    cap_copy(o->extra, op->extra);
    cap_copy(o->bind_dn, op->bind_dn);
    cap_copy(o->client_ip, op->client_ip);
    cap_copy(o->text, op->text);
    cap_copy(o->details, op->details);
    cap_copy(o->sid, op->sid);
    return 0;
}

static inline int cap_on_conn(void *ctx, const sat_ldap_conn *cn)
{
    capture *c = (capture *)ctx;
    if (c->nconns >= CAP_MAX)
        return 0;
    cap_conn *o = &c->conns[c->nconns++];
    o->row = *cn;
    cap_copy(o->client_ip, cn->client_ip);
    cap_copy(o->server_addr, cn->server_addr);
    cap_copy(o->tls_version, cn->tls_version);
    cap_copy(o->tls_cipher, cn->tls_cipher);
    cap_copy(o->close_reason, cn->close_reason);
    cap_copy(o->bind_dn, cn->bind_dn);
    cap_copy(o->cert, cn->client_cert);
    return 0;
}

static inline int cap_on_reject(void *ctx, const sat_reject *r)
{
    capture *c = (capture *)ctx;
    if (c->nrejects < 64) {
        c->reject_lines[c->nrejects] = r->line_no;
        snprintf(c->reject_reason[c->nrejects], 80, "%.*s", (int)r->reason.len, r->reason.ptr);
    }
    c->nrejects++;
    return 0;
}

static inline int rows_reject_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_REJECT:
        return cap_on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return cap_on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return cap_on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

static inline void cap_init(capture *c)
{
    memset(c, 0, sizeof *c);
    c->ops = (cap_op *)calloc(CAP_MAX, sizeof *c->ops);
    c->conns = (cap_conn *)calloc(CAP_MAX, sizeof *c->conns);
}

static inline void cap_free(capture *c)
{
    free(c->ops);
    free(c->conns);
}

/* Runs buf (lines split on '\n') through fmt with a fresh joiner; fills src. */
static inline int cap_run(capture *c, const sat_log_format *fmt, const char *buf, size_t len,
                   sat_source *src, int default_year)
{
    sat_event_sink sink = {c, SAT_TABLE_BIT(SAT_TABLE_REJECT) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                              SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_reject_op_conn};
    memset(src, 0, sizeof *src);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    if (!j)
        return -1;
    sat_parse_ctx ctx = {j, &sink, src, 1000, default_year};
    void *st = fmt->create(&ctx);
    int rc = 0;
    uint64_t line_no = 0;
    const char *p = buf, *end = buf + len;
    while (p < end && rc == 0) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        rc = fmt->line(st, p, (size_t)(e - p), ++line_no);
        p = nl ? nl + 1 : end;
    }
    if (rc == 0)
        rc = fmt->finish(st);
    /* like collect/, read the source row before the state (which may own
     * its header strings) is destroyed */
    cap_copy(c->server_name, src->server_name);
    cap_copy(c->server_version, src->server_version);
    src->server_name = src->server_version = SAT_STR_NONE;
    fmt->destroy(st);
    if (rc == 0)
        rc = sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    return rc;
}

static inline int cap_run_str(capture *c, const sat_log_format *fmt, const char *s, sat_source *src)
{
    return cap_run(c, fmt, s, strlen(s), src, 2024);
}

static inline char *cap_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = (char *)malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            b = (char *)realloc(b, cap);
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}

/* Rows of a given type (and, when err >= -1, that err). */
static inline size_t cap_count(const capture *c, int type, int err)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nops; i++)
        if (c->ops[i].row.type == type && (err < -1 || c->ops[i].row.err == err))
            n++;
    return n;
}

static inline const cap_op *cap_find(const capture *c, int64_t conn, int64_t op)
{
    for (size_t i = 0; i < c->nops; i++)
        if (c->ops[i].row.conn == conn && c->ops[i].row.op == op)
            return &c->ops[i];
    return NULL;
}

#endif
