/*
 * fuzz_tcp_flow.c - libFuzzer target for the flow table: the input is a
 * sequence of synthetic packets (7-byte header: endpoint pair and direction,
 * flags, sequence and ack offsets, time step, payload length; then the
 * payload), fed to a table of 4 flows with a 1 s idle timeout through a
 * local dissector that claims every connection (after a "maybe" on a short
 * delivery starting with 1: the sniff wait), touches every delivered byte,
 * and asks for the TLS upgrade on a byte 'U'. Rows are checked for sane
 * fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/wire.h"

static volatile size_t fuzz_touched;

typedef struct fst { int dummy; } fst;
static int f_sniff(const uint8_t *b, size_t n, int dir, uint16_t port)
{
    (void)dir;
    (void)port;
    if (n && b[0] == 0)
        return 0;
    if (n && b[0] == 1 && n < 3)
        return 10; /* "maybe": the flow table keeps the bytes and asks again */
    return 50;
}
static void *f_create(const sat_flow_info *f, const sat_wire_ctx *c)
{
    (void)c;
    fuzz_touched += f->client_ip.len + f->server_ip.len;
    return calloc(1, sizeof(fst));
}
static int f_data(void *st, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    (void)st;
    (void)dir;
    (void)ts;
    for (size_t i = 0; i < n; i++)
        fuzz_touched += p[i];
    return n && p[0] == 'U' ? SAT_STREAM_UPGRADE_TLS : SAT_OK;
}
static int f_gap(void *st, int dir, sat_ts_ns ts, size_t n)
{
    (void)st;
    (void)dir;
    (void)ts;
    fuzz_touched += n;
    return SAT_OK;
}
static int f_end(void *st, int how, sat_ts_ns ts)
{
    (void)st;
    (void)ts;
    if (how < 0 || how >= SAT_TCP_END__COUNT)
        abort();
    return SAT_OK;
}
static void f_destroy(void *st) { free(st); }

static const sat_stream_dissector dis_any = {"any", f_sniff, f_create, f_data, f_gap, f_end,
                                             f_destroy};
static const sat_stream_dissector dis_tls = {"tls", f_sniff, f_create, f_data, f_gap, f_end,
                                             f_destroy};
static const sat_stream_dissector *const dis[] = {&dis_any, &dis_tls, NULL};

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    (void)ctx;
    if (c->end >= SAT_TCP_END__COUNT || !c->client_ip.ptr || !c->server_ip.ptr)
        abort();
    for (uint32_t i = 0; i < c->client_ip.len; i++)
        fuzz_touched += (unsigned char)c->client_ip.ptr[i];
    return SAT_OK;
}

static int rows_tcp(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    default:
        return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_event_sink sink = {NULL, SAT_TABLE_BIT(SAT_TABLE_TCP_CONN), rows_tcp};
    sat_wire_ctx ctx = {&sink, NULL, 0};
    sat_flow_opts o;
    memset(&o, 0, sizeof o);
    o.max_flows = 4;
    o.idle_timeout = 1000000000LL;
    o.dissectors = dis;
    sat_flow_table *t = sat_flow_table_create(&o, &ctx);
    if (!t)
        return 0;
    uint32_t seqs[8] = {0, 1u << 31, 0xfffffff0u, 100, 5, 1u << 20, 77, 0xffffffffu};
    sat_ts_ns ts = 1;
    size_t i = 0;
    while (i + 7 <= size) {
        const uint8_t *h = data + i;
        i += 7;
        size_t len = h[6] & 0x7f;
        if (len > size - i)
            len = size - i;
        sat_packet p;
        memset(&p, 0, sizeof p);
        int pair = h[0] & 3, dir = (h[0] >> 2) & 1;
        p.ip_version = (h[0] & 0x10) ? 6 : 4;
        p.src[0] = (uint8_t)(dir ? 2 : 1);
        p.dst[0] = (uint8_t)(dir ? 1 : 2);
        p.sport = (uint16_t)(dir ? 389 : 40000 + pair);
        p.dport = (uint16_t)(dir ? 40000 + pair : 389);
        p.tcp_flags = h[1];
        uint32_t *base = &seqs[(pair * 2 + dir) & 7];
        p.seq = *base + (uint32_t)(int8_t)h[2] * 16 + (h[3] & 15);
        p.ack = seqs[(pair * 2 + !dir) & 7] + h[4];
        ts += (sat_ts_ns)h[5] * 10000000LL; /* up to 2.5 s per step */
        p.ts = ts;
        p.payload = len ? data + i : NULL;
        p.payload_len = len;
        p.payload_wire_len = len + ((h[6] & 0x80) ? 3 : 0);
        if (h[3] & 0x80)
            *base += (uint32_t)len; /* in order next time */
        i += len;
        if (sat_flow_packet(t, &p) < 0)
            break;
    }
    sat_flow_finish(t, ts);
    sat_flow_stats st;
    sat_flow_get_stats(t, &st);
    sat_flow_table_free(t);
    return 0;
}
