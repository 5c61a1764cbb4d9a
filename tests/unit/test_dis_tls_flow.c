/*
 * test_dis_tls_flow.c - the TLS dissector behind the flow table and the real
 * dissector registry: content detection on a port that says nothing, with
 * the ClientHello split over TCP segments (one byte each, the 0x16 alone)
 * and over records; a lone 0x16, bytes that only start like TLS; a
 * cleartext dialogue before the ClientHello (STARTTLS-style); an LDAP bind
 * cut byte by byte.
 */
#include "check.h"
#include "tls_run.h"

typedef struct flow_capture {
    capture tls;
    int tcp_rows;
    uint32_t tcp_flags;
} flow_capture;

static int on_tcp_row(void *ctx, const sat_tcp_conn *c)
{
    flow_capture *fc = (flow_capture *)ctx;
    fc->tcp_rows++;
    fc->tcp_flags = c->flags;
    return SAT_OK;
}
static int on_tls_row(void *ctx, const sat_tls_hs *h)
{
    return on_tls(&((flow_capture *)ctx)->tls, h);
}

static int rows_tcp_tls(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TCP_CONN:
        return on_tcp_row(ctx, (const sat_tcp_conn *)row);
    case SAT_TABLE_TLS_HS:
        return on_tls_row(ctx, (const sat_tls_hs *)row);
    default:
        return 0;
    }
}

/* The conversation as TCP segments through the flow table and the real
 * dissector registry (client 192.0.2.1:50000, server 198.51.100.7:port):
 * handshake, each client step from step `from` on cut in segments of c2s_seg
 * bytes (0: whole), other steps whole, every segment of step i at T0 + i ms,
 * then FINs. */
static void run_flow(const convo *c, size_t c2s_seg, int from, uint16_t port,
                     flow_capture *out)
{
    memset(out, 0, sizeof *out);
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = out;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) | SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tcp_tls;
    sat_wire_ctx ctx = {&sink, NULL, 3};
    sat_flow_table *t = sat_flow_table_create(NULL, &ctx);
    if (!t) {
        CHECK(t != NULL);
        return;
    }
    uint32_t seq[2] = {1000, 9000};
    sat_packet p;
    memset(&p, 0, sizeof p);
    p.ip_version = 4;
    const uint8_t cip[4] = {192, 0, 2, 1}, sip[4] = {198, 51, 100, 7};
#define SEND(dir_, flags_, data_, n_)                                         \
    do {                                                                      \
        memcpy(p.src, (dir_) == SAT_DIR_C2S ? cip : sip, 4);                  \
        memcpy(p.dst, (dir_) == SAT_DIR_C2S ? sip : cip, 4);                  \
        p.sport = (dir_) == SAT_DIR_C2S ? 50000 : port;                       \
        p.dport = (dir_) == SAT_DIR_C2S ? port : 50000;                       \
        p.seq = seq[dir_];                                                    \
        p.ack = seq[!(dir_)];                                                 \
        p.tcp_flags = (uint8_t)(flags_);                                      \
        p.payload = (data_);                                                  \
        p.payload_len = p.payload_wire_len = (n_);                            \
        CHECK_EQ_INT(sat_flow_packet(t, &p), 0);                              \
        seq[dir_] += (uint32_t)(n_) + (((flags_) & (SAT_TCP_SYN | SAT_TCP_FIN)) ? 1 : 0); \
    } while (0)
    p.ts = T0 - 2;
    SEND(SAT_DIR_C2S, SAT_TCP_SYN, NULL, 0);
    p.ts = T0 - 1;
    SEND(SAT_DIR_S2C, SAT_TCP_SYN | SAT_TCP_ACK, NULL, 0);
    SEND(SAT_DIR_C2S, SAT_TCP_ACK, NULL, 0);
    for (int i = 0; i < c->nsteps; i++) {
        const bb *d = &c->data[i];
        size_t seg = c->dir[i] == SAT_DIR_C2S && c2s_seg && i >= from ? c2s_seg : d->n;
        p.ts = T0 + i * STEP_NS;
        for (size_t off = 0; off < d->n; off += seg)
            SEND(c->dir[i], SAT_TCP_ACK | SAT_TCP_PSH, d->b + off,
                 d->n - off < seg ? d->n - off : seg);
    }
    p.ts = T0 + 100 * STEP_NS;
    SEND(SAT_DIR_C2S, SAT_TCP_FIN | SAT_TCP_ACK, NULL, 0);
    SEND(SAT_DIR_S2C, SAT_TCP_FIN | SAT_TCP_ACK, NULL, 0);
#undef SEND
    CHECK_EQ_INT(sat_flow_finish(t, p.ts), 0);
    sat_flow_table_free(t);
}

static void test_split_client_hello(void)
{
    /* TLS 1.2 full handshake on a port that says nothing (content decides) */
    convo c = {0};
    hello_opts ch = {.sni = "split.example", .sid = SID_A, .sid_len = 32};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02f};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    client_finish_12(&c);
    server_finish_12(&c, 0);
    appdata(&c, SAT_DIR_C2S);
    capture direct;
    CHECK_EQ_INT(run(&c, 0, SIZE_MAX, &direct), 0);
    CHECK_EQ_INT(direct.n, 1);
    /* whole segments, then the ClientHello one byte per segment, then the
     * first segment holding the 0x16 alone and the rest in 2-byte segments */
    static const size_t segs[] = {0, 1, 2};
    for (size_t k = 0; k < sizeof segs / sizeof *segs; k++) {
        convo d = c;
        if (segs[k] == 2) { /* 0x16 | rest of the record in 2-byte pieces */
            d.nsteps = 0;
            bb *s0 = step(&d, SAT_DIR_C2S);
            put8(s0, c.data[0].b[0]);
            for (int i = 0; i < c.nsteps; i++)
                d.data[d.nsteps] = c.data[i], d.dir[d.nsteps++] = c.dir[i];
            memmove(d.data[1].b, d.data[1].b + 1, --d.data[1].n);
        }
        flow_capture fc;
        run_flow(&d, segs[k], 0, 4433, &fc);
        CHECK_EQ_INT(fc.tcp_rows, 1);
        CHECK(fc.tcp_flags & SAT_TCPF_TLS);
        CHECK_EQ_INT(fc.tls.n, 1);
        if (fc.tls.n != 1)
            continue;
        const sat_tls_hs *h = &fc.tls.rows[0].h;
        CHECK_EQ_INT(h->outcome, SAT_TLS_FULL);
        CHECK_EQ_INT(h->flags & SAT_TLSF_NO_CLIENT_HELLO, 0); /* the ClientHello was read */
        CHECK_EQ_SSTR(h->sni, "split.example");
        CHECK_EQ_INT(h->offered, SAT_TLS_RESUME_SESSION_ID);
        CHECK_EQ_INT(h->cipher, 0xc02f);
        if (segs[k] != 2)
            CHECK(same_row(h, &direct.rows[0].h));
    }

    /* the ClientHello message cut into records of one byte each, every record
     * cut into one-byte segments (handshake reassembly over records and TCP) */
    {
        convo r = c;
        bb m = {{0}, 0};
        client_hello(&m, &ch);
        r.data[0].n = 0;
        for (size_t i = 0; i < m.n; i++)
            rec_raw(&r.data[0], 22, m.b + i, 1);
        flow_capture fr;
        run_flow(&r, 1, 0, 4433, &fr);
        CHECK_EQ_INT(fr.tls.n, 1);
        if (fr.tls.n == 1) {
            CHECK_EQ_INT(fr.tls.rows[0].h.outcome, SAT_TLS_FULL);
            CHECK_EQ_STR(fr.tls.rows[0].sni, "split.example");
            CHECK_EQ_INT(fr.tls.rows[0].h.offered, SAT_TLS_RESUME_SESSION_ID);
        }
    }

    /* a lone 0x16 and then the client leaves: decided at the end, nothing claimed */
    convo e = {0};
    put8(step(&e, SAT_DIR_C2S), 0x16);
    flow_capture fc;
    run_flow(&e, 1, 0, 4433, &fc);
    CHECK_EQ_INT(fc.tcp_rows, 1);
    CHECK_EQ_INT(fc.tcp_flags & SAT_TCPF_TLS, 0);
    CHECK_EQ_INT(fc.tls.n, 0);

    /* 0x16 then bytes that no record header starts with: not TLS */
    convo g = {0};
    bb *s = step(&g, SAT_DIR_C2S);
    putn(s, "\x16HELO example", 13);
    run_flow(&g, 1, 0, 4433, &fc);
    CHECK_EQ_INT(fc.tcp_flags & SAT_TCPF_TLS, 0);
    CHECK_EQ_INT(fc.tls.n, 0);

    /* a cleartext dialogue first, then the ClientHello one byte per segment
     * (the deliveries after a "no" are still offered): STARTTLS-style
     * upgrades keep being found */
    convo u = {0};
    putn(step(&u, SAT_DIR_S2C), "220 mail ESMTP\r\n", 16);
    putn(step(&u, SAT_DIR_C2S), "STARTTLS\r\n", 10);
    putn(step(&u, SAT_DIR_S2C), "220 go ahead\r\n", 14);
    for (int i = 0; i < c.nsteps; i++)
        u.data[u.nsteps] = c.data[i], u.dir[u.nsteps++] = c.dir[i];
    run_flow(&u, 1, 3, 25, &fc);
    CHECK(fc.tcp_flags & SAT_TCPF_TLS);
    CHECK_EQ_INT(fc.tls.n, 1);
    if (fc.tls.n == 1)
        CHECK_EQ_STR(fc.tls.rows[0].sni, "split.example");

    /* an LDAP bind request one byte per segment (its 0x30 alone first) */
    convo l = {0};
    static const uint8_t bind[] = {0x30, 0x0c, 0x02, 0x01, 0x01, 0x60, 0x07, 0x02,
                                   0x01, 0x03, 0x04, 0x00, 0x80, 0x00};
    putn(step(&l, SAT_DIR_C2S), bind, sizeof bind);
    run_flow(&l, 1, 0, 3389, &fc);
    CHECK(fc.tcp_flags & SAT_TCPF_LDAP);
}

int main(void)
{
    test_split_client_hello();
    return CHECK_DONE();
}
