/*
 * fuzz_389text.c - libFuzzer target for the 389 text access-log format and
 * the joiner behind it: arbitrary bytes are split into lines (no NUL
 * terminator, as collect/ hands them over), parsed, joined and counted.
 * A tiny max_pending makes the eviction path reachable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/parse.h"

extern const sat_log_format sat_fmt_389text;

static uint64_t n_rows;

static int count_op(void *ctx, const sat_ldap_op *o)
{
    (void)ctx;
    /* touch every string so a dangling view shows up under ASan */
    const sat_str *s[] = {&o->dn, &o->filter, &o->filter_shape, &o->attrs, &o->method,
                          &o->extra, &o->bind_dn, &o->client_ip, &o->text, &o->details,
                          &o->sid};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            n_rows += (unsigned char)s[i]->ptr[k] == 0xff;
    n_rows++;
    return 0;
}

static int count_conn(void *ctx, const sat_ldap_conn *c)
{
    (void)ctx;
    const sat_str *s[] = {&c->client_ip, &c->server_addr, &c->tls_version, &c->tls_cipher,
                          &c->client_cert, &c->close_reason, &c->bind_dn};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            n_rows += (unsigned char)s[i]->ptr[k] == 0xff;
    n_rows++;
    return 0;
}

static int count_reject(void *ctx, const sat_reject *r)
{
    (void)ctx;
    n_rows += r->excerpt.len != 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_event_sink sink = {NULL, NULL, count_reject, count_op, count_conn};
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 8);
    if (!j)
        return 0;
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = j;
    ctx.sink = &sink;
    ctx.source = &src;
    ctx.reject_sample_max = 4;
    void *st = sat_fmt_389text.create(&ctx);
    if (st) {
        /* each line in its own heap copy: reading past its end is caught */
        const char *p = (const char *)data, *end = p + size;
        uint64_t ln = 0;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            char *line = (char *)malloc(n ? n : 1);
            if (!line)
                break;
            memcpy(line, p, n);
            sat_fmt_389text.line(st, line, n, ++ln);
            free(line);
            p = nl ? nl + 1 : end;
        }
        sat_fmt_389text.finish(st);
    }
    sat_ldap_join_finish(j);
    sat_fmt_389text.sniff((const char *)data, size);
    sat_ts_ns ts;
    sat_fmt_389text.first_ts((const char *)data, size, &ts);
    char shape[64];
    sat_filter_shape((const char *)data, size, shape, sizeof shape);
    sat_fmt_389text.destroy(st);
    sat_ldap_join_free(j);
    return 0;
}
