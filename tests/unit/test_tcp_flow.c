/*
 * test_tcp_flow.c - the flow table (parse/wire/tcp_flow.c) on synthetic packets:
 * handshake + data + FIN, RST by the server, SYN retransmissions, segments out
 * of order and retransmitted (delivered once, in order, to a recording test
 * dissector), a capture started mid-connection, idle expiry, eviction at
 * capacity, sequence wraparound, a hole the receiver acknowledged past,
 * snaplen-cut payload, the StartTLS upgrade to "tls", and SYNs never answered
 * (when the client gave up), and a client port reused after one.
 * The test dissectors live here only: the library registers the real ones.
 */
#include <stdlib.h>

#include "check.h"
#include "satscope/wire.h"

#define S(x) ((sat_ts_ns)(x) * 1000000000LL)
#define MS(x) ((sat_ts_ns)(x) * 1000000LL)

/* ---- a recording dissector ---------------------------------------------------------- */
typedef struct rec {
    char buf[2][4096];
    size_t len[2];
    size_t gaps[2];
    int ended, end_how, created, tracked;
    const char *name;
} rec;
static rec *last_rec[8];
static int nrec;

static int rec_sniff(const uint8_t *b, size_t n, int dir, uint16_t port)
{
    (void)dir;
    (void)port;
    if (n < 4)
        return memcmp(b, "REC:", n) == 0 ? 10 : 0; /* a prefix: "maybe" */
    return memcmp(b, "REC:", 4) == 0 ? 90 : 0;
}
/* "slow": a run of '~' may be it (however long), '~'... then '!' is it */
static int slow_sniff(const uint8_t *b, size_t n, int dir, uint16_t port)
{
    (void)dir;
    (void)port;
    size_t i = 0;
    while (i < n && b[i] == '~')
        i++;
    if (i == n)
        return 5;
    return b[i] == '!' ? 90 : 0;
}
static int tls_sniff(const uint8_t *b, size_t n, int dir, uint16_t port)
{
    (void)dir;
    (void)port;
    return n >= 1 && b[0] == 0x16 ? 80 : 0;
}
static void *rec_create_named(const char *name)
{
    rec *r = calloc(1, sizeof *r);
    r->name = name;
    r->created = 1;
    if (nrec < 8) {
        last_rec[nrec++] = r;
        r->tracked = 1;
    }
    return r;
}
static void *rec_create(const sat_flow_info *f, const sat_wire_ctx *c)
{
    (void)f;
    (void)c;
    return rec_create_named("rec");
}
static void *slow_create(const sat_flow_info *f, const sat_wire_ctx *c)
{
    (void)f;
    (void)c;
    return rec_create_named("slow");
}
static void *tls_create(const sat_flow_info *f, const sat_wire_ctx *c)
{
    (void)f;
    (void)c;
    return rec_create_named("tls");
}
static int rec_data(void *st, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    rec *r = st;
    (void)ts;
    if (r->len[dir] + n <= sizeof r->buf[dir]) {
        memcpy(r->buf[dir] + r->len[dir], p, n);
        r->len[dir] += n;
    }
    if (strcmp(r->name, "rec") == 0 && n >= 8 && memcmp(p, "STARTTLS", 8) == 0)
        return SAT_STREAM_UPGRADE_TLS;
    return SAT_OK;
}
static int rec_gap(void *st, int dir, sat_ts_ns ts, size_t n)
{
    rec *r = st;
    (void)ts;
    r->gaps[dir] += n;
    if (r->len[dir] < sizeof r->buf[dir])
        r->buf[dir][r->len[dir]++] = '#'; /* a mark where the hole was */
    return SAT_OK;
}
static int rec_end(void *st, int how, sat_ts_ns ts)
{
    rec *r = st;
    (void)ts;
    r->ended++;
    r->end_how = how;
    return SAT_OK;
}
static void rec_destroy(void *st)
{
    rec *r = st;
    if (!r->tracked)
        free(r); /* the tracked ones are kept for the checks, freed by reset */
}

static const sat_stream_dissector dis_rec = {"rec", rec_sniff, rec_create, rec_data,
                                             rec_gap, rec_end, rec_destroy};
static const sat_stream_dissector dis_tls = {"tls", tls_sniff, tls_create, rec_data,
                                             rec_gap, rec_end, rec_destroy};
static const sat_stream_dissector dis_slow = {"slow", slow_sniff, slow_create, rec_data,
                                              rec_gap, rec_end, rec_destroy};
static const sat_stream_dissector *const test_dis[] = {&dis_rec, &dis_tls, &dis_slow, NULL};

static void reset_recs(void)
{
    for (int i = 0; i < nrec; i++)
        free(last_rec[i]);
    nrec = 0;
}

/* ---- a sink keeping the tcp_conn rows --------------------------------------------- */
static sat_tcp_conn rows[64];
static char ips[64][2][48];
static int nrows;
static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    (void)ctx;
    if (nrows < 64) {
        rows[nrows] = *c;
        snprintf(ips[nrows][0], 48, "%.*s", (int)c->client_ip.len, c->client_ip.ptr);
        snprintf(ips[nrows][1], 48, "%.*s", (int)c->server_ip.len, c->server_ip.ptr);
        nrows++;
    }
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

static sat_event_sink sink = {NULL, SAT_TABLE_BIT(SAT_TABLE_TCP_CONN), rows_tcp};
static sat_wire_ctx wctx = {&sink, NULL, 7};

static sat_flow_table *table(size_t max, sat_dur_ns idle)
{
    sat_flow_opts o;
    memset(&o, 0, sizeof o);
    o.max_flows = max;
    o.idle_timeout = idle;
    o.dissectors = test_dis;
    nrows = 0;
    reset_recs();
    return sat_flow_table_create(&o, &wctx);
}

/* client 10.0.0.1:port <-> server 10.0.0.2:636 */
static int pkt(sat_flow_table *t, sat_ts_ns ts, int c2s, uint16_t cport, uint32_t seq,
               uint32_t ack, uint8_t flags, const char *data)
{
    sat_packet p;
    memset(&p, 0, sizeof p);
    p.ts = ts;
    p.ip_version = 4;
    uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    memcpy(p.src, c2s ? a : b, 4);
    memcpy(p.dst, c2s ? b : a, 4);
    p.sport = c2s ? cport : 636;
    p.dport = c2s ? 636 : cport;
    p.seq = seq;
    p.ack = ack;
    p.tcp_flags = flags;
    p.payload = (const uint8_t *)data;
    p.payload_len = p.payload_wire_len = data ? strlen(data) : 0;
    return sat_flow_packet(t, &p);
}

enum { SYN = SAT_TCP_SYN, ACK = SAT_TCP_ACK, FIN = SAT_TCP_FIN, RST = SAT_TCP_RST,
       PA = SAT_TCP_PSH | SAT_TCP_ACK };

static void test_handshake_fin(void)
{
    sat_flow_table *t = table(0, 0);
    uint32_t c = 1000, s = 5000;
    pkt(t, MS(0), 1, 40000, c, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40000, s, c + 1, SYN | ACK, NULL);
    pkt(t, MS(3), 1, 40000, c + 1, s + 1, ACK, NULL);
    pkt(t, MS(4), 1, 40000, c + 1, s + 1, PA, "REC:hello");
    pkt(t, MS(5), 0, 40000, s + 1, c + 10, PA, "world");
    pkt(t, MS(6), 1, 40000, c + 10, s + 6, FIN | ACK, NULL);
    pkt(t, MS(7), 0, 40000, s + 6, c + 11, FIN | ACK, NULL);
    CHECK_EQ_INT(nrows, 1);
    pkt(t, MS(8), 1, 40000, c + 11, s + 7, ACK, NULL); /* the last ACK: absorbed */
    CHECK_EQ_INT(sat_flow_finish(t, MS(9)), SAT_OK);
    CHECK_EQ_INT(nrows, 1);
    sat_tcp_conn *r = &rows[0];
    CHECK_EQ_INT(r->end, SAT_TCP_END_FIN_CLIENT);
    CHECK_EQ_INT(r->syn_ts, MS(0));
    CHECK_EQ_INT(r->end_ts, MS(7));
    CHECK_EQ_INT(r->rtt, MS(3));
    CHECK_EQ_INT(r->bytes_c2s, 9);
    CHECK_EQ_INT(r->bytes_s2c, 5);
    CHECK_EQ_INT(r->pkts_c2s, 4);
    CHECK_EQ_INT(r->pkts_s2c, 3);
    CHECK_EQ_INT(r->source, 7);
    CHECK_EQ_INT(r->flow, 1);
    CHECK_EQ_INT(r->client_port, 40000);
    CHECK_EQ_INT(r->server_port, 636);
    CHECK_EQ_STR(ips[0][0], "10.0.0.1");
    CHECK_EQ_STR(ips[0][1], "10.0.0.2");
    CHECK(r->flags & SAT_TCPF_SYNACK);
    CHECK(!(r->flags & SAT_TCPF_NO_SYN));
    CHECK_EQ_INT(r->retrans, 0);
    CHECK_EQ_INT(r->last_c2s_to_end, MS(3));
    CHECK(!(r->flags & SAT_TCPF_CLIENT_LEFT_WAITING)); /* answered before the FIN */
    CHECK_EQ_INT(nrec, 1);
    CHECK_EQ_INT(last_rec[0]->len[0], 9);
    CHECK(memcmp(last_rec[0]->buf[0], "REC:hello", 9) == 0);
    CHECK(memcmp(last_rec[0]->buf[1], "world", 5) == 0);
    CHECK_EQ_INT(last_rec[0]->ended, 1);
    CHECK_EQ_INT(last_rec[0]->end_how, SAT_TCP_END_FIN_CLIENT);
    sat_flow_stats st;
    sat_flow_get_stats(t, &st);
    CHECK_EQ_INT(st.flows, 1);
    CHECK_EQ_INT(st.packets, 8);
    sat_flow_table_free(t);
}

static void test_rst_and_syn_retrans(void)
{
    sat_flow_table *t = table(0, 0);
    /* refused: SYN, SYN again after 1 s, then RST from the server */
    pkt(t, S(0), 1, 40001, 100, 0, SYN, NULL);
    pkt(t, S(1), 1, 40001, 100, 0, SYN, NULL);
    pkt(t, S(3), 1, 40001, 100, 0, SYN, NULL);
    pkt(t, S(3) + 10, 0, 40001, 0, 101, RST | ACK, NULL);
    pkt(t, S(3) + 20, 0, 40001, 0, 101, RST | ACK, NULL); /* a second RST: absorbed */
    /* the port reused by a new connection after the RST */
    pkt(t, S(4), 1, 40001, 900, 0, SYN, NULL);
    pkt(t, S(4) + MS(1), 0, 40001, 7000, 901, SYN | ACK, NULL);
    pkt(t, S(4) + MS(2), 1, 40001, 901, 7001, ACK, NULL);
    pkt(t, S(5), 0, 40001, 7001, 901, RST, NULL);
    sat_flow_finish(t, S(6));
    CHECK_EQ_INT(nrows, 2);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_RST_SERVER);
    CHECK_EQ_INT(rows[0].syn_retrans, 2);
    CHECK_EQ_INT(rows[0].rtt, SAT_ABSENT);
    CHECK(!(rows[0].flags & SAT_TCPF_SYNACK));
    CHECK_EQ_INT(rows[0].end_ts, S(3) + 10);
    CHECK_EQ_INT(rows[1].end, SAT_TCP_END_RST_SERVER);
    CHECK_EQ_INT(rows[1].syn_retrans, 0);
    CHECK_EQ_INT(rows[1].rtt, MS(2));
    CHECK_EQ_INT(rows[1].flow, 2);
    CHECK_EQ_INT(rows[1].last_c2s_to_end, SAT_ABSENT);
    /* a RST by the client, and a lone RST that starts nothing */
    nrows = 0;
    pkt(t, S(10), 1, 40002, 1, 0, SYN, NULL);
    pkt(t, S(10) + 1, 0, 40002, 50, 2, SYN | ACK, NULL);
    pkt(t, S(10) + 2, 1, 40002, 2, 51, RST, NULL);
    pkt(t, S(11), 1, 40003, 1, 0, RST, NULL);
    sat_flow_finish(t, S(12));
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_RST_CLIENT);
    sat_flow_table_free(t);
}

/* The client closes or resets while its request is unanswered (the byte rule:
 * the recording dissector has no opinion); a late answer changes nothing;
 * a server that closes first is not a client leaving. */
static void test_client_left_waiting(void)
{
    sat_flow_table *t = table(0, 0);
    uint32_t c = 1000, s = 5000;
    pkt(t, MS(0), 1, 40010, c, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40010, s, c + 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40010, c + 1, s + 1, ACK, NULL);
    pkt(t, MS(3), 1, 40010, c + 1, s + 1, PA, "REC:request");
    pkt(t, S(2), 1, 40010, c + 12, s + 1, FIN | ACK, NULL); /* gave up after 2 s */
    pkt(t, S(3), 0, 40010, s + 1, c + 13, PA, "late");      /* the answer, too late */
    pkt(t, S(3) + 1, 1, 40010, c + 13, 0, RST, NULL);
    /* answered, then a second request and a RST without waiting for it */
    pkt(t, S(4), 1, 40011, c, 0, SYN, NULL);
    pkt(t, S(4) + 1, 0, 40011, s, c + 1, SYN | ACK, NULL);
    pkt(t, S(4) + 2, 1, 40011, c + 1, s + 1, PA, "REC:a");
    pkt(t, S(4) + 3, 0, 40011, s + 1, c + 6, PA, "b");
    pkt(t, S(4) + 4, 1, 40011, c + 6, s + 2, PA, "c");
    pkt(t, S(4) + 5, 1, 40011, c + 7, s + 2, RST, NULL);
    /* the server closes first: not the client leaving */
    pkt(t, S(5), 1, 40012, c, 0, SYN, NULL);
    pkt(t, S(5) + 1, 0, 40012, s, c + 1, SYN | ACK, NULL);
    pkt(t, S(5) + 2, 1, 40012, c + 1, s + 1, PA, "REC:x");
    pkt(t, S(5) + 3, 0, 40012, s + 1, c + 6, FIN | ACK, NULL);
    pkt(t, S(5) + 4, 1, 40012, c + 6, s + 2, FIN | ACK, NULL);
    sat_flow_finish(t, S(6));
    CHECK_EQ_INT(nrows, 3);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_RST_CLIENT); /* its kernel's RST to "late" */
    CHECK(rows[0].flags & SAT_TCPF_CLIENT_LEFT_WAITING);
    CHECK_EQ_INT(rows[0].client_left_ts, S(2)); /* its FIN, not the RST after */
    CHECK_EQ_INT(rows[1].client_left_ts, S(4) + 5);
    CHECK_EQ_INT(rows[2].client_left_ts, 0); /* the server closed first */
    CHECK_EQ_INT(rows[1].end, SAT_TCP_END_RST_CLIENT);
    CHECK(rows[1].flags & SAT_TCPF_CLIENT_LEFT_WAITING);
    CHECK_EQ_INT(rows[2].end, SAT_TCP_END_FIN_SERVER);
    CHECK(!(rows[2].flags & SAT_TCPF_CLIENT_LEFT_WAITING));
    sat_flow_table_free(t);
}

static void test_out_of_order(void)
{
    sat_flow_table *t = table(0, 0);
    uint32_t c = 0, s = 0;
    pkt(t, MS(0), 1, 40010, c, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40010, s, c + 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40010, c + 1, s + 1, ACK, NULL);
    pkt(t, MS(3), 1, 40010, c + 1, s + 1, PA, "REC:");     /* 1..4 */
    pkt(t, MS(4), 1, 40010, c + 9, s + 1, PA, "EFGH");     /* 9..12 ahead */
    pkt(t, MS(5), 1, 40010, c + 13, s + 1, PA, "IJ");      /* 13..14 ahead */
    pkt(t, MS(6), 1, 40010, c + 9, s + 1, PA, "EFGH");     /* dup of a stored one */
    pkt(t, MS(7), 1, 40010, c + 5, s + 1, PA, "ABCD");     /* fills the hole */
    pkt(t, MS(8), 1, 40010, c + 1, s + 1, PA, "REC:ABCD"); /* old: retransmission */
    pkt(t, MS(9), 1, 40010, c + 11, s + 1, PA, "GHIJKL");  /* partly old */
    pkt(t, MS(10), 1, 40010, c + 17, s + 1, FIN | ACK, NULL);
    pkt(t, MS(11), 0, 40010, s + 1, c + 18, FIN | ACK, NULL);
    sat_flow_finish(t, MS(12));
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(nrec, 1);
    CHECK_EQ_INT(last_rec[0]->len[0], 16);
    CHECK(memcmp(last_rec[0]->buf[0], "REC:ABCDEFGHIJKL", 16) == 0);
    CHECK_EQ_INT(rows[0].bytes_c2s, 16);
    CHECK_EQ_INT(rows[0].out_of_order, 2);
    CHECK_EQ_INT(rows[0].retrans, 3);
    CHECK_EQ_INT(last_rec[0]->gaps[0], 0);
    CHECK(!(rows[0].flags & SAT_TCPF_TRUNCATED));
    sat_flow_table_free(t);
}

static void test_holes(void)
{
    sat_flow_table *t = table(0, 0);
    /* a hole the server acknowledges past: the capture lost it */
    pkt(t, MS(0), 1, 40020, 0, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40020, 0, 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40020, 1, 1, PA, "REC:");
    pkt(t, MS(3), 1, 40020, 9, 1, PA, "late");          /* 9..12, 5..8 never seen */
    pkt(t, MS(4), 0, 40020, 1, 13, ACK, NULL);          /* server got all 12 */
    CHECK_EQ_INT(nrec, 1);
    CHECK_EQ_INT(last_rec[0]->len[0], 9);
    CHECK(memcmp(last_rec[0]->buf[0], "REC:#late", 9) == 0);
    CHECK_EQ_INT(last_rec[0]->gaps[0], 4);
    /* a hole never filled, the list overflowing: gap then in order */
    for (int i = 0; i < 20; i++)
        pkt(t, MS(10 + i), 1, 40020, 20 + 2 * (uint32_t)i, 1, PA, "x"); /* every other byte */
    CHECK(last_rec[0]->gaps[0] > 4);
    sat_flow_finish(t, MS(50));
    CHECK_EQ_INT(nrows, 1);
    CHECK(rows[0].flags & SAT_TCPF_TRUNCATED);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_NONE);
    /* everything delivered at the end, in order: 20 x's with gaps between */
    size_t xs = 0;
    for (size_t i = 0; i < last_rec[0]->len[0]; i++)
        xs += last_rec[0]->buf[0][i] == 'x';
    CHECK_EQ_INT(xs, 20);
    sat_flow_stats st;
    sat_flow_get_stats(t, &st);
    CHECK_EQ_INT(st.gaps_bytes, 4 + 7 + 19);
    sat_flow_table_free(t);

    /* snaplen: 10 bytes on the wire, 6 captured */
    t = table(0, 0);
    sat_packet p;
    memset(&p, 0, sizeof p);
    p.ip_version = 4;
    p.src[0] = 1;
    p.dst[0] = 2;
    p.sport = 50000;
    p.dport = 443;
    p.seq = 77;
    p.tcp_flags = PA;
    p.payload = (const uint8_t *)"REC:ab";
    p.payload_len = 6;
    p.payload_wire_len = 10;
    sat_flow_packet(t, &p);
    sat_flow_finish(t, 0);
    CHECK_EQ_INT(nrows, 1);
    CHECK(rows[0].flags & SAT_TCPF_TRUNCATED);
    CHECK(rows[0].flags & SAT_TCPF_NO_SYN);
    CHECK_EQ_INT(rows[0].bytes_c2s, 10);
    CHECK_EQ_INT(last_rec[0]->gaps[0], 4);
    sat_flow_table_free(t);
}

static void test_mid_stream_and_wrap(void)
{
    sat_flow_table *t = table(0, 0);
    /* no SYN: the server (port 636) talks first; the higher port is the client */
    uint32_t s = 0xfffffff0u, c = 0xfffffffeu;
    pkt(t, MS(0), 0, 50000, s, c, PA, "REC:0123456789ab");  /* 16 bytes: wraps to 0 */
    pkt(t, MS(1), 0, 50000, 4, c, PA, "WXYZ");             /* ahead after the wrap */
    pkt(t, MS(2), 0, 50000, 0, c, PA, "wxyz");             /* fills 0..3 */
    pkt(t, MS(3), 1, 50000, c, 8, PA, "up");               /* client bytes across 2^32 */
    pkt(t, MS(4), 1, 50000, 0, 8, PA, "ward");
    sat_flow_finish(t, MS(5));
    CHECK_EQ_INT(nrows, 1);
    CHECK(rows[0].flags & SAT_TCPF_NO_SYN);
    CHECK_EQ_INT(rows[0].client_port, 50000);
    CHECK_EQ_INT(rows[0].server_port, 636);
    CHECK_EQ_STR(ips[0][0], "10.0.0.1");
    CHECK_EQ_INT(rows[0].bytes_s2c, 24);
    CHECK_EQ_INT(rows[0].bytes_c2s, 6);
    CHECK_EQ_INT(rows[0].rtt, SAT_ABSENT);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_NONE);
    CHECK_EQ_INT(last_rec[0]->len[1], 24);
    CHECK(memcmp(last_rec[0]->buf[1], "REC:0123456789abwxyzWXYZ", 24) == 0);
    CHECK(memcmp(last_rec[0]->buf[0], "upward", 6) == 0);
    sat_flow_table_free(t);
}

static void test_idle_and_eviction(void)
{
    sat_flow_table *t = table(3, S(60));
    for (uint16_t i = 0; i < 3; i++)
        pkt(t, S(i), 1, (uint16_t)(41000 + i), 1, 0, SYN, NULL);
    pkt(t, S(10), 1, 41000, 1, 0, SYN, NULL); /* flow 1 active again (a retransmission) */
    pkt(t, S(11), 1, 41003, 1, 0, SYN, NULL); /* capacity: flow 2 (41001) is evicted */
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(rows[0].client_port, 41001);
    CHECK_EQ_INT(rows[0].end, SAT_TCP_END_EVICTED);
    CHECK_EQ_INT(rows[0].end_ts, S(1));
    /* 200 s later every one has been idle for over 60 s */
    pkt(t, S(200), 1, 41100, 1, 0, SYN, NULL);
    CHECK_EQ_INT(nrows, 4);
    CHECK_EQ_INT(rows[1].end, SAT_TCP_END_IDLE);
    CHECK_EQ_INT(rows[1].client_port, 41002); /* least recently active first */
    CHECK_EQ_INT(rows[2].client_port, 41000);
    CHECK_EQ_INT(rows[3].client_port, 41003);
    sat_flow_stats st;
    sat_flow_get_stats(t, &st);
    CHECK_EQ_INT(st.evicted, 1);
    CHECK_EQ_INT(st.expired, 3);
    CHECK_EQ_INT(st.flows, 5);
    sat_flow_finish(t, S(201));
    CHECK_EQ_INT(nrows, 5);
    CHECK_EQ_INT(rows[4].end, SAT_TCP_END_NONE);
    sat_flow_table_free(t);

    /* many flows through a small table: memory stays bounded, rows all come */
    t = table(16, S(60));
    for (uint32_t i = 0; i < 5000; i++) {
        uint16_t port = (uint16_t)(10000 + i);
        pkt(t, MS(i), 1, port, 1, 0, SYN, NULL);
        pkt(t, MS(i), 1, port, 2, 0, PA, "REC:x");
        if (i % 2)
            pkt(t, MS(i), 0, port, 9, 3, FIN | ACK, NULL);
    }
    sat_flow_finish(t, S(10));
    sat_flow_get_stats(t, &st);
    CHECK_EQ_INT(st.flows, 5000);
    CHECK_EQ_INT(nrows, 64); /* the sink keeps 64; the count is in stats */
    sat_flow_table_free(t);
    reset_recs();
}

static void test_upgrade(void)
{
    sat_flow_table *t = table(0, 0);
    pkt(t, MS(0), 1, 40030, 0, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40030, 0, 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40030, 1, 1, PA, "REC:starttls?");
    pkt(t, MS(3), 0, 40030, 1, 14, PA, "STARTTLS");
    pkt(t, MS(4), 1, 40030, 14, 9, PA, "\x16hello");
    pkt(t, MS(5), 0, 40030, 9, 20, PA, "\x16server");
    pkt(t, MS(6), 1, 40030, 20, 16, RST, NULL);
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(nrec, 2);
    CHECK_EQ_STR(last_rec[0]->name, "rec");
    CHECK_EQ_INT(last_rec[0]->ended, 1);
    CHECK_EQ_STR(last_rec[1]->name, "tls");
    CHECK_EQ_INT(last_rec[1]->len[0], 6);
    CHECK_EQ_INT(last_rec[1]->len[1], 7);
    CHECK_EQ_INT(last_rec[1]->ended, 1);
    CHECK_EQ_INT(last_rec[1]->end_how, SAT_TCP_END_RST_CLIENT);
    CHECK(rows[0].flags & SAT_TCPF_TLS);
    sat_flow_table_free(t);
    /* no dissector claims the bytes: the row still comes */
    t = table(0, 0);
    pkt(t, MS(0), 1, 40031, 0, 0, SYN, NULL);
    pkt(t, MS(1), 1, 40031, 1, 0, PA, "GET / HTTP/1.1");
    sat_flow_finish(t, MS(2));
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(nrec, 0);
    CHECK_EQ_INT(rows[0].bytes_c2s, 14);
    sat_flow_table_free(t);
    reset_recs();
}

/* Content detection waits while a sniff says "maybe" (1..29): the kept bytes
 * go to the dissector first, both directions' in arrival order; a "no", the
 * bound (16 bytes) or a hole ends the wait. */
static void test_sniff_wait(void)
{
    sat_flow_table *t = table(0, 0);
    pkt(t, MS(0), 1, 40040, 0, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40040, 0, 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40040, 1, 1, PA, "R");
    pkt(t, MS(3), 1, 40040, 2, 1, PA, "E");
    pkt(t, MS(4), 0, 40040, 1, 3, PA, "R");   /* the server's side waits too */
    CHECK_EQ_INT(nrec, 0);                    /* not decided yet */
    pkt(t, MS(5), 1, 40040, 3, 2, PA, "C:hi"); /* "REC:hi": claimed */
    pkt(t, MS(6), 0, 40040, 2, 7, PA, "EC:ok");
    CHECK_EQ_INT(nrec, 1);
    if (nrec == 1) {
        CHECK_EQ_STR(last_rec[0]->name, "rec");
        CHECK_EQ_INT(last_rec[0]->len[0], 6);
        CHECK(memcmp(last_rec[0]->buf[0], "REC:hi", 6) == 0);
        CHECK_EQ_INT(last_rec[0]->len[1], 6);
        CHECK(memcmp(last_rec[0]->buf[1], "REC:ok", 6) == 0);
    }
    sat_flow_finish(t, MS(7));
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_INT(rows[0].bytes_c2s, 6);
    sat_flow_table_free(t);

    /* a maybe then a no: the kept byte is dropped, the delivery sniffed alone */
    t = table(0, 0);
    pkt(t, MS(0), 1, 40041, 0, 0, SYN, NULL);
    pkt(t, MS(1), 1, 40041, 1, 0, PA, "R");
    pkt(t, MS(2), 1, 40041, 2, 0, PA, "\x16hello");
    CHECK_EQ_INT(nrec, 1);
    if (nrec == 1) {
        CHECK_EQ_STR(last_rec[0]->name, "tls");
        CHECK_EQ_INT(last_rec[0]->len[0], 6);
    }
    sat_flow_finish(t, MS(3));
    sat_flow_table_free(t);

    /* the bound: 10 '~' kept, then 9 more bytes make it 19 (> 16): the wait
     * ends undecided, the delivery is sniffed alone and claimed; with fewer
     * kept, the claim takes them along */
    t = table(0, 0);
    pkt(t, MS(0), 1, 40042, 0, 0, SYN, NULL);
    for (uint32_t i = 0; i < 10; i++)
        pkt(t, MS(1 + i), 1, 40042, 1 + i, 0, PA, "~");
    pkt(t, MS(20), 1, 40042, 11, 0, PA, "~~~~~~~~!");
    pkt(t, MS(21), 1, 40043, 0, 0, SYN, NULL);
    for (uint32_t i = 0; i < 5; i++)
        pkt(t, MS(22 + i), 1, 40043, 1 + i, 0, PA, "~");
    pkt(t, MS(30), 1, 40043, 6, 0, PA, "!");
    CHECK_EQ_INT(nrec, 2);
    if (nrec == 2) {
        CHECK_EQ_STR(last_rec[0]->name, "slow");
        CHECK_EQ_INT(last_rec[0]->len[0], 9);
        CHECK(memcmp(last_rec[0]->buf[0], "~~~~~~~~!", 9) == 0);
        CHECK_EQ_INT(last_rec[1]->len[0], 6);
        CHECK(memcmp(last_rec[1]->buf[0], "~~~~~!", 6) == 0);
    }
    sat_flow_finish(t, MS(31));
    sat_flow_table_free(t);

    /* a hole after the kept byte: what follows does not continue it */
    t = table(0, 0);
    pkt(t, MS(0), 1, 40044, 0, 0, SYN, NULL);
    pkt(t, MS(1), 0, 40044, 0, 1, SYN | ACK, NULL);
    pkt(t, MS(2), 1, 40044, 1, 1, PA, "R");
    pkt(t, MS(3), 1, 40044, 3, 1, PA, "C:x");  /* byte 2 never seen */
    pkt(t, MS(4), 0, 40044, 1, 6, ACK, NULL);   /* acknowledged: a gap */
    CHECK_EQ_INT(nrec, 0);
    /* a lone maybe at the end: decided then, nothing claimed */
    pkt(t, MS(5), 1, 40045, 0, 0, SYN, NULL);
    pkt(t, MS(6), 1, 40045, 1, 0, PA, "RE");
    sat_flow_finish(t, MS(7));
    CHECK_EQ_INT(nrec, 0);
    CHECK_EQ_INT(nrows, 2);
    sat_flow_table_free(t);
    reset_recs();
}

static void test_ipv6(void)
{
    sat_flow_table *t = table(0, 0);
    sat_packet p;
    memset(&p, 0, sizeof p);
    p.ip_version = 6;
    p.src[0] = 0x20; p.src[1] = 0x01; p.src[2] = 0x0d; p.src[3] = 0xb8; p.src[15] = 1;
    p.dst[0] = 0x20; p.dst[1] = 0x01; p.dst[2] = 0x0d; p.dst[3] = 0xb8; p.dst[15] = 2;
    p.sport = 40000;
    p.dport = 443;
    p.tcp_flags = SYN;
    sat_flow_packet(t, &p);
    sat_flow_finish(t, 0);
    CHECK_EQ_INT(nrows, 1);
    CHECK_EQ_STR(ips[0][0], "2001:db8::1");
    CHECK_EQ_STR(ips[0][1], "2001:db8::2");
    CHECK(rows[0].flags & SAT_TCPF_IPV6);
    sat_flow_table_free(t);
}

static const sat_tcp_conn *row_of(uint16_t cport)
{
    for (int i = 0; i < nrows; i++)
        if (rows[i].client_port == cport)
            return &rows[i];
    return NULL;
}

/* A SYN never answered: the client gave up once the capture went on past
 * its next retransmission timeout (1 s, then 2 s, ...) without a SYN, or
 * once it reset; not while that timeout may still be running at the end,
 * nor when the server answered (even refusing); a SYN/ACK the client
 * answers with a RST, having gone, was no answer either. */
static void test_syn_gave_up(void)
{
    sat_flow_table *t = table(0, 0);
    pkt(t, S(0), 1, 41001, 100, 0, SYN, NULL);            /* never again: gave up */
    pkt(t, S(0), 1, 41002, 200, 0, SYN, NULL);            /* retried at 1 s and 3 s */
    pkt(t, S(1), 1, 41002, 200, 0, SYN, NULL);
    pkt(t, S(3), 1, 41002, 200, 0, SYN, NULL);
    pkt(t, S(9), 1, 41003, 300, 0, SYN, NULL);            /* 0.5 s before the end */
    pkt(t, S(7), 1, 41004, 400, 0, SYN, NULL);            /* retried at 8 s: its next */
    pkt(t, S(8), 1, 41004, 400, 0, SYN, NULL);            /* timeout (2 s) not over */
    pkt(t, S(2), 1, 41005, 500, 0, SYN, NULL);            /* answered late, after the */
    pkt(t, S(3), 0, 41005, 9000, 501, SYN | ACK, NULL);   /* client had gone: its */
    pkt(t, S(3) + 10, 1, 41005, 501, 0, RST, NULL);       /* kernel resets */
    pkt(t, S(2), 1, 41006, 600, 0, SYN, NULL);            /* refused: an answer */
    pkt(t, S(2) + 10, 0, 41006, 0, 601, RST | ACK, NULL);
    pkt(t, S(2), 1, 41007, 700, 0, SYN, NULL);            /* connected: not this */
    pkt(t, S(2) + 10, 0, 41007, 7000, 701, SYN | ACK, NULL);
    pkt(t, S(2) + 20, 1, 41007, 701, 7001, ACK, NULL);
    pkt(t, S(2) + 30, 1, 41007, 701, 7001, RST, NULL);
    sat_flow_finish(t, S(9) + MS(500));
    CHECK_EQ_INT(nrows, 7);
    const sat_tcp_conn *r;
    CHECK((r = row_of(41001)) && (r->flags & SAT_TCPF_SYN_GAVE_UP) && r->end_ts == S(0));
    CHECK((r = row_of(41002)) && (r->flags & SAT_TCPF_SYN_GAVE_UP) && r->syn_retrans == 2 &&
          r->end_ts == S(3));
    CHECK((r = row_of(41003)) && !(r->flags & SAT_TCPF_SYN_GAVE_UP));
    CHECK((r = row_of(41004)) && !(r->flags & SAT_TCPF_SYN_GAVE_UP));
    CHECK((r = row_of(41005)) && (r->flags & SAT_TCPF_SYN_GAVE_UP) &&
          (r->flags & SAT_TCPF_SYNACK) && r->client_left_ts == S(3) + 10);
    CHECK((r = row_of(41006)) && !(r->flags & SAT_TCPF_SYN_GAVE_UP));
    CHECK((r = row_of(41007)) && !(r->flags & SAT_TCPF_SYN_GAVE_UP));
    sat_flow_table_free(t);
    /* idle expiry at 300 s: long past any timeout */
    t = table(0, S(300));
    pkt(t, S(0), 1, 41011, 100, 0, SYN, NULL);
    pkt(t, S(400), 1, 41012, 100, 0, SYN, NULL);
    CHECK_EQ_INT(nrows, 1);
    CHECK((r = row_of(41011)) && r->end == SAT_TCP_END_IDLE &&
          (r->flags & SAT_TCPF_SYN_GAVE_UP));
    sat_flow_finish(t, S(400));
    CHECK((r = row_of(41012)) && !(r->flags & SAT_TCPF_SYN_GAVE_UP));
    sat_flow_table_free(t);
}

/* A client port reused after an unanswered SYN: a SYN with another initial
 * sequence number on a 4-tuple whose SYN was never answered is a new
 * connection attempt (the old one ends, given up); the same ISN again is a
 * retransmission. The new attempt's rtt runs from its own SYN. */
static void test_port_reused_after_unanswered_syn(void)
{
    sat_flow_table *t = table(0, 0);
    pkt(t, S(0), 1, 42001, 100, 0, SYN, NULL);              /* attempt 1: retried */
    pkt(t, S(1), 1, 42001, 100, 0, SYN, NULL);              /* once (same ISN) */
    pkt(t, S(12), 1, 42001, 5000, 0, SYN, NULL);            /* attempt 2: new ISN */
    pkt(t, S(12) + MS(1), 0, 42001, 9000, 5001, SYN | ACK, NULL);
    pkt(t, S(12) + MS(2), 1, 42001, 5001, 9001, ACK, NULL);
    pkt(t, S(12) + MS(3), 1, 42001, 5001, 9001, FIN | ACK, NULL);
    pkt(t, S(12) + MS(4), 0, 42001, 9001, 5002, FIN | ACK, NULL);
    pkt(t, S(20), 1, 42002, 100, 0, SYN, NULL);             /* three attempts, none */
    pkt(t, S(30), 1, 42002, 200, 0, SYN, NULL);             /* answered */
    pkt(t, S(31), 1, 42002, 200, 0, SYN, NULL);
    pkt(t, S(40), 1, 42002, 300, 0, SYN, NULL);
    sat_flow_finish(t, S(40) + MS(500));
    CHECK_EQ_INT(nrows, 5);
    const sat_tcp_conn *r = &rows[0];
    CHECK(r->client_port == 42001 && r->syn_ts == S(0) && r->syn_retrans == 1 &&
          (r->flags & SAT_TCPF_SYN_GAVE_UP) && !(r->flags & SAT_TCPF_SYNACK) &&
          r->rtt == SAT_ABSENT && r->end_ts == S(1) && r->end == SAT_TCP_END_IDLE);
    r = &rows[1];
    CHECK(r->client_port == 42001 && r->syn_ts == S(12) && r->syn_retrans == 0 &&
          !(r->flags & SAT_TCPF_SYN_GAVE_UP) && (r->flags & SAT_TCPF_SYNACK) &&
          r->rtt == MS(2) && r->end == SAT_TCP_END_FIN_CLIENT && r->flow == 2);
    CHECK(rows[2].client_port == 42002 && rows[2].syn_ts == S(20) &&
          rows[2].syn_retrans == 0 && (rows[2].flags & SAT_TCPF_SYN_GAVE_UP));
    CHECK(rows[3].client_port == 42002 && rows[3].syn_ts == S(30) &&
          rows[3].syn_retrans == 1 && (rows[3].flags & SAT_TCPF_SYN_GAVE_UP) &&
          rows[3].end_ts == S(31));
    /* the last one is still within its first timeout at the end: not given up */
    CHECK(rows[4].client_port == 42002 && rows[4].syn_ts == S(40) &&
          !(rows[4].flags & SAT_TCPF_SYN_GAVE_UP) && rows[4].end == SAT_TCP_END_NONE);
    sat_flow_stats st;
    sat_flow_get_stats(t, &st);
    CHECK_EQ_INT(st.flows, 5);
    sat_flow_table_free(t);
}

int main(void)
{
    test_handshake_fin();
    test_rst_and_syn_retrans();
    test_client_left_waiting();
    test_out_of_order();
    test_holes();
    test_mid_stream_and_wrap();
    test_idle_and_eviction();
    test_upgrade();
    test_sniff_wait();
    test_ipv6();
    test_syn_gave_up();
    test_port_reused_after_unanswered_syn();
    reset_recs();
    return CHECK_DONE();
}
