/*
 * fuzz_dis_tls.c - the TLS stream dissector (parse/wire/dis_tls.c) on hostile
 * streams. The input is a list of chunks, each `H L` then bytes:
 *   H bit 0      direction (0 client->server, 1 server->client)
 *   H bits 1-2   3: a gap of L bytes (no bytes follow); else data
 *   H bits 3-7   high bits of the length, L the low byte (at most 8191)
 * Each data chunk is copied to its own heap buffer of exactly its size (a
 * read past it is caught by ASan), sniffed, then fed; end() emits the row into
 * a sink that touches every byte of its strings and checks the row's sanity.
 * Seeds: tests/fuzz/corpus/fuzz_dis_tls (built handshakes: 1.2 full/resumed,
 * 1.3, HRR, SSLv2 hello, alert).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../parse/wire/dissectors.h" /* internal header: not under include/ */

static volatile size_t fuzz_touched;

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    (void)ctx;
    for (uint32_t i = 0; h->sni.ptr && i < h->sni.len; i++)
        fuzz_touched += (unsigned char)h->sni.ptr[i];
    for (uint32_t i = 0; i < h->client_ip.len; i++)
        fuzz_touched += (unsigned char)h->client_ip.ptr[i];
    if (h->outcome < SAT_TLS_FULL || h->outcome > SAT_TLS_INCOMPLETE ||
        (h->outcome == SAT_TLS_RESUMED && h->resumed_by == SAT_TLS_RESUME_NONE) ||
        (h->outcome != SAT_TLS_RESUMED && h->resumed_by != SAT_TLS_RESUME_NONE) ||
        (h->outcome == SAT_TLS_INCOMPLETE && h->server_hello_ts) || h->sni.len > 255 ||
        (h->duration != SAT_ABSENT && h->duration < 0))
        abort(); /* an impossible row */
    return 0;
}

static int rows_tls(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    default:
        return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char ip[] = "192.0.2.1";
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_wire_ctx ctx = {&sink, NULL, 1};
    sat_flow_info fi = {1, 1, sat_str_cstr(ip), sat_str_cstr(ip), 40000, 443};
    void *st = sat_dissect_tls.create(&fi, &ctx);
    if (!st)
        return 0;
    size_t off = 0;
    sat_ts_ns ts = 1000;
    while (off + 2 <= size) {
        uint8_t h = data[off];
        size_t len = ((size_t)(h >> 3) << 8) | data[off + 1];
        int dir = h & 1;
        off += 2;
        ts += 1000;
        if (((h >> 1) & 3) == 3) {
            sat_dissect_tls.gap(st, dir, ts, len);
            continue;
        }
        if (len > size - off)
            len = size - off;
        uint8_t *chunk = (uint8_t *)malloc(len ? len : 1);
        if (!chunk)
            break;
        memcpy(chunk, data + off, len);
        fuzz_touched += (size_t)sat_dissect_tls.sniff(chunk, len, dir, 443);
        sat_dissect_tls.data(st, dir, ts, chunk, len);
        free(chunk);
        off += len;
    }
    sat_dissect_tls.end(st, SAT_TCP_END_NONE, ts);
    sat_dissect_tls.destroy(st);
    return 0;
}
