/*
 * fuzz_dis_ldap.c - libFuzzer target for the LDAP stream dissector
 * (parse/wire/dis_ldap.c, RFC 4511 BER) and the joiner behind it. The input is a
 * script of chunks: [ctl][len][len bytes], ctl bit 0 = direction (client /
 * server), bit 1 = a gap of len bytes instead of data, bits 2-7 = ms since the
 * previous chunk; each chunk is its own heap copy, so a read past it is caught
 * by ASan. sniff sees the whole input in both directions; the connection ends
 * the way the last byte says. The sink touches every byte of every string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/wire.h"

extern const sat_stream_dissector sat_dissect_ldap; /* parse/wire/dissectors.h */

static volatile size_t fuzz_touched;

static void touch(const sat_str *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; s[i]->ptr && k < s[i]->len; k++)
            fuzz_touched += (unsigned char)s[i]->ptr[k];
}

static int on_op(void *ctx, const sat_ldap_op *o)
{
    const sat_str *s[] = {&o->dn, &o->filter, &o->filter_shape, &o->attrs, &o->method,
                          &o->extra, &o->bind_dn, &o->client_ip, &o->text};
    (void)ctx;
    touch(s, sizeof s / sizeof s[0]);
    return 0;
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    const sat_str *s[] = {&c->client_ip, &c->server_addr, &c->close_reason, &c->bind_dn};
    (void)ctx;
    touch(s, sizeof s / sizeof s[0]);
    return 0;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_event_sink sink = {0};
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN);
    sink.on_row = rows_op_conn;
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 16);
    if (!j)
        return 0;
    sat_ldap_join_set_restart_detection(j, 0);
    sat_wire_ctx ctx = {&sink, j, 0};
    sat_flow_info fi;
    memset(&fi, 0, sizeof fi);
    fi.flow = 1;
    fi.client_ip = sat_str_cstr("192.0.2.1");
    fi.server_ip = sat_str_cstr("2001:db8::1");
    fi.client_port = 50000;
    fi.server_port = 389;
    fuzz_touched += (size_t)sat_dissect_ldap.sniff(data, size, SAT_DIR_C2S, 389);
    fuzz_touched += (size_t)sat_dissect_ldap.sniff(data, size, SAT_DIR_S2C, 10389);
    void *st = sat_dissect_ldap.create(&fi, &ctx);
    sat_ts_ns ts = 1700000000000000000LL;
    size_t i = 0;
    while (st && i + 2 <= size) {
        uint8_t ctl = data[i], len = data[i + 1];
        i += 2;
        size_t n = len <= size - i ? len : size - i;
        int dir = ctl & 1 ? SAT_DIR_S2C : SAT_DIR_C2S;
        ts += (sat_ts_ns)(ctl >> 2) * 1000000;
        if (ctl & 2) {
            sat_dissect_ldap.gap(st, dir, ts, len);
            continue;
        }
        uint8_t *copy = (uint8_t *)malloc(n ? n : 1);
        if (!copy)
            break;
        memcpy(copy, data + i, n);
        int rc = sat_dissect_ldap.data(st, dir, ts, copy, n);
        free(copy);
        i += n;
        if (rc == SAT_STREAM_UPGRADE_TLS)
            break;
    }
    if (st) {
        sat_dissect_ldap.end(st, size ? data[size - 1] % SAT_TCP_END__COUNT : 0, ts);
        sat_dissect_ldap.destroy(st);
    }
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    return 0;
}
