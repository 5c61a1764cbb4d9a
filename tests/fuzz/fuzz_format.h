/*
 * fuzz_format.h - what the log-format fuzz targets share: arbitrary bytes are
 * split into lines, each in its own heap copy with no NUL after it (as
 * collect/ hands lines over, so a read past a line's end is caught by ASan),
 * fed through one format and a real joiner into a sink that touches every
 * byte of every borrowed string; sniff and first_ts see the whole input.
 */
#ifndef SAT_FUZZ_FORMAT_H
#define SAT_FUZZ_FORMAT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/parse.h"

/* read by nobody: keeps the string walks from being optimised away */
static volatile size_t fuzz_touched;

static void fuzz_touch(const sat_str *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            fuzz_touched += (unsigned char)s[i]->ptr[k];
}

static int fuzz_on_op(void *ctx, const sat_ldap_op *o)
{
    const sat_str *s[] = {&o->dn, &o->filter, &o->filter_shape, &o->attrs, &o->method,
                          &o->extra, &o->bind_dn, &o->client_ip, &o->text, &o->details,
                          &o->sid};
    fuzz_touch(s, sizeof s / sizeof s[0]);
    (void)ctx;
    return 0;
}

static int fuzz_on_conn(void *ctx, const sat_ldap_conn *c)
{
    const sat_str *s[] = {&c->client_ip, &c->server_addr, &c->tls_version, &c->tls_cipher,
                          &c->client_cert, &c->close_reason, &c->bind_dn};
    fuzz_touch(s, sizeof s / sizeof s[0]);
    (void)ctx;
    return 0;
}

static int fuzz_on_reject(void *ctx, const sat_reject *r)
{
    const sat_str *s[] = {&r->reason, &r->excerpt};
    fuzz_touch(s, 2);
    (void)ctx;
    return 0;
}

static inline int rows_reject_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_REJECT:
        return fuzz_on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return fuzz_on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return fuzz_on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

/* Runs fmt over data; `extra` (may be NULL) gets the parse context before the
 * joiner is finished, for a target's own entry points. */
static void fuzz_format(const sat_log_format *fmt, const uint8_t *data, size_t size,
                        size_t max_pending, int default_year,
                        void (*extra)(sat_parse_ctx *ctx, const uint8_t *data, size_t size))
{
    sat_event_sink sink = {NULL,
                           SAT_TABLE_BIT(SAT_TABLE_REJECT) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                               SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN),
                           rows_reject_op_conn};
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, max_pending);
    if (!j)
        return;
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = j;
    ctx.sink = &sink;
    ctx.source = &src;
    ctx.reject_sample_max = 4;
    ctx.default_year = default_year;

    sat_ts_ns ts;
    (void)fmt->sniff((const char *)data, size);
    (void)fmt->first_ts((const char *)data, size, &ts);

    void *st = fmt->create(&ctx);
    if (st) {
        const char *p = (const char *)data, *end = p + size;
        uint64_t line_no = 0;
        while (p < end) {
            const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            char *line = (char *)malloc(n ? n : 1);
            if (!line)
                break;
            memcpy(line, p, n);
            fmt->line(st, line, n, ++line_no);
            free(line);
            p = nl ? nl + 1 : end;
        }
        fmt->finish(st);
        fmt->destroy(st);
    }
    if (extra)
        extra(&ctx, data, size);
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
}

#endif
