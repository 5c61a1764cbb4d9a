/*
 * fuzz_openldap.c - libFuzzer target for the OpenLDAP stats format: the input
 * is fed line by line through sat_fmt_openldap (with a real joiner), and to
 * sniff and first_ts; the first byte picks the default year.
 */
#include "satscope/parse.h"


extern const sat_log_format sat_fmt_openldap;

/* read by nobody: keeps the string walks from being optimised away */
static volatile size_t touched;

static int on_op(void *ctx, const sat_ldap_op *op)
{
    /* touch every borrowed string so ASan sees a bad view */
    const sat_str *s[] = {&op->dn, &op->filter, &op->filter_shape, &op->attrs, &op->method,
                          &op->extra, &op->bind_dn, &op->client_ip, &op->text, &op->details,
                          &op->sid};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            touched += (unsigned char)s[i]->ptr[k];
    (void)ctx;
    return 0;
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    const sat_str *s[] = {&c->client_ip, &c->server_addr, &c->tls_version, &c->tls_cipher,
                          &c->client_cert, &c->close_reason, &c->bind_dn};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            touched += (unsigned char)s[i]->ptr[k];
    (void)ctx;
    return 0;
}

static int on_reject(void *ctx, const sat_reject *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    sat_event_sink sink = {NULL, NULL, on_reject, on_op, on_conn};
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 1000);
    if (!j)
        return 0;
    sat_parse_ctx ctx = {j, &sink, &src, 10, size ? 1990 + data[0] % 60 : 0};

    sat_ts_ns ts;
    (void)sat_fmt_openldap.sniff(buf, size);
    (void)sat_fmt_openldap.first_ts(buf, size, &ts);

    void *st = sat_fmt_openldap.create(&ctx);
    if (st) {
        const char *p = buf, *end = buf + size;
        uint64_t line_no = 0;
        while (p < end) {
            const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
            const char *e = nl ? nl : end;
            sat_fmt_openldap.line(st, p, (size_t)(e - p), ++line_no);
            p = nl ? nl + 1 : end;
        }
        sat_fmt_openldap.finish(st);
        sat_fmt_openldap.destroy(st);
    }
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    return 0;
}
