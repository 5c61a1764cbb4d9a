/*
 * sim_pcap.c - the capture the lab's server would have seen on port 636: for
 * every LDAPS connection the TCP handshake, the TLS 1.2 ClientHello (with the
 * session id the client offers, or none), the server's answer once a worker
 * has done the handshake (full: ServerHello with a new session id,
 * Certificate, ServerHelloDone, then the client's ClientKeyExchange; resumed:
 * ServerHello echoing the offered id, then ChangeCipherSpec and Finished at
 * once), and the FINs; a connection refused is a SYN answered by a RST, and a
 * handshake the client gave up on ends with the client's FIN and the server's
 * RST, its ServerHello never sent. The pcap format is written by hand
 * (microsecond timestamps, Ethernet); plain-LDAP connections are not captured.
 */
#include <string.h>

#include "sim.h"

#define SRV_IP ((10u << 24) | 5u)
enum { F_FIN = 1, F_SYN = 2, F_RST = 4, F_PSH = 8, F_ACK = 16 };

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); put16(p + 1, v); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }
static void le32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

int wpcap_open(const char *path)
{
    S.fpcap = fopen(path, "wb");
    if (!S.fpcap)
        return -1;
    le32(S.fpcap, 0xa1b2c3d4u);
    uint8_t v[4] = {2, 0, 4, 0}; /* version 2.4, little-endian halves */
    fwrite(v, 1, 4, S.fpcap);
    le32(S.fpcap, 0);
    le32(S.fpcap, 0);
    le32(S.fpcap, 65535);
    le32(S.fpcap, 1); /* Ethernet */
    return 0;
}

/* One TCP segment; from_client picks the direction. Sequence numbers move on. */
static void segment(uint32_t cip, uint16_t cport, uint32_t *seq_c, uint32_t *seq_s,
                    int from_client, int flags, const uint8_t *data, uint32_t len)
{
    uint8_t h[54];
    memset(h, 0, sizeof h);
    static const uint8_t mac_c[6] = {2, 0, 0, 0, 0, 1}, mac_s[6] = {2, 0, 0, 0, 0, 2};
    memcpy(h, from_client ? mac_s : mac_c, 6);
    memcpy(h + 6, from_client ? mac_c : mac_s, 6);
    h[12] = 0x08;
    uint8_t *ip = h + 14, *tcp = h + 34;
    ip[0] = 0x45;
    put16(ip + 2, 40 + len);
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 6;
    put32(ip + 12, from_client ? cip : SRV_IP);
    put32(ip + 16, from_client ? SRV_IP : cip);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(ip + 10, ~sum & 0xffff);
    put16(tcp, from_client ? cport : 636);
    put16(tcp + 2, from_client ? 636 : cport);
    uint32_t *mine = from_client ? seq_c : seq_s, *theirs = from_client ? seq_s : seq_c;
    put32(tcp + 4, *mine);
    put32(tcp + 8, (flags & F_ACK) ? *theirs : 0);
    tcp[12] = 0x50;
    tcp[13] = (uint8_t)(((flags & F_FIN) ? 0x01 : 0) | ((flags & F_SYN) ? 0x02 : 0) |
                        ((flags & F_RST) ? 0x04 : 0) | ((flags & F_PSH) ? 0x08 : 0) |
                        ((flags & F_ACK) ? 0x10 : 0));
    put16(tcp + 14, 65535);
    *mine += len + ((flags & (F_SYN | F_FIN)) ? 1 : 0);
    uint64_t t = (uint64_t)LAB_T0_UNIX * NS + S.now;
    le32(S.fpcap, (uint32_t)(t / NS));
    le32(S.fpcap, (uint32_t)(t % NS / 1000));
    le32(S.fpcap, 54 + len);
    le32(S.fpcap, 54 + len);
    fwrite(h, 1, sizeof h, S.fpcap);
    if (len)
        fwrite(data, 1, len, S.fpcap);
}

static void seg(uint32_t ci, int from_client, int flags, const uint8_t *d, uint32_t n)
{
    conn *c = &S.conns[ci];
    segment(S.hosts[S.sessions[c->sess].host].ip, c->port, &c->tcp_c, &c->tcp_s, from_client,
            flags, d, n);
}

static void fill_id(uint8_t *p, uint32_t gen, uint32_t salt)
{
    uint64_t x = ((uint64_t)gen << 32) ^ salt ^ 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 32; i++) {
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        p[i] = (uint8_t)(x >> 56);
    }
}

/* handshake message (type, body) into a record buffer; returns its length */
static uint32_t hs_msg(uint8_t *p, uint8_t type, const uint8_t *body, uint32_t n)
{
    p[0] = type;
    put24(p + 1, n);
    if (n)
        memcpy(p + 4, body, n);
    return n + 4;
}

static uint32_t record(uint8_t *p, uint8_t ctype, uint16_t ver, const uint8_t *frag, uint32_t n)
{
    p[0] = ctype;
    put16(p + 1, ver);
    put16(p + 3, n);
    memmove(p + 5, frag, n);
    return n + 5;
}

void wpcap_connect(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (!S.fpcap || !c->ldaps)
        return;
    c->tcp_c = 0x10000000u + c->id * 1000u;
    c->tcp_s = 0x70000000u + c->id * 3000u;
    seg(ci, 1, F_SYN, NULL, 0);
    seg(ci, 0, F_SYN | F_ACK, NULL, 0);
    seg(ci, 1, F_ACK, NULL, 0);
    uint8_t body[128], msg[160], rec[200];
    uint32_t n = 0;
    put16(body, 0x0303);
    fill_id(body + 2, c->id, 0x52414e44u); /* client random */
    n = 34;
    if (c->offered) {
        body[n++] = 32;
        fill_id(body + n, c->sid_offered, S.sessions[c->sess].host);
        n += 32;
    } else {
        body[n++] = 0;
    }
    put16(body + n, 4);
    put16(body + n + 2, 0xc030);
    put16(body + n + 4, 0xc02f);
    n += 6;
    body[n++] = 1;
    body[n++] = 0;
    put16(body + n, 0);
    n += 2;
    uint32_t m = hs_msg(msg, 1, body, n);
    uint32_t r = record(rec, 22, 0x0301, msg, m);
    seg(ci, 1, F_PSH | F_ACK, rec, r);
}

void wpcap_refused(uint32_t si)
{
    const sess *s = &S.sessions[si];
    if (!S.fpcap || !S.hosts[s->host].ldaps || s->role != ROLE_USER)
        return;
    uint32_t sc = 0x20000000u + (uint32_t)si * 977u, ss = 0;
    uint16_t port = (uint16_t)(32768 + (si * 104729u + s->attempts * 31u) % 28000u);
    uint32_t ip = S.hosts[s->host].ip;
    segment(ip, port, &sc, &ss, 1, F_SYN, NULL, 0);
    segment(ip, port, &sc, &ss, 0, F_RST | F_ACK, NULL, 0);
}

void wpcap_hs_done(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (!S.fpcap || !c->ldaps)
        return;
    const host *h = &S.hosts[S.sessions[c->sess].host];
    uint8_t body[96], msgs[900], rec[1000], fin[40];
    uint32_t n = 0, m = 0, r;
    put16(body, 0x0303);
    fill_id(body + 2, c->id, 0x53525652u); /* server random */
    n = 34;
    body[n++] = 32;
    /* resumed: the offered id echoed; full: the new session's id */
    fill_id(body + n, c->full ? h->sess_gen : c->sid_offered, S.sessions[c->sess].host);
    n += 32;
    put16(body + n, 0xc030);
    n += 2;
    body[n++] = 0;
    put16(body + n, 0);
    n += 2;
    m += hs_msg(msgs + m, 2, body, n);
    memset(fin, 0xa5, sizeof fin);
    if (c->full) {
        uint8_t cert[400];
        memset(cert, 0x30, sizeof cert);
        put24(cert, 394);
        put24(cert + 3, 391);
        m += hs_msg(msgs + m, 11, cert, 397);
        m += hs_msg(msgs + m, 14, NULL, 0);
        r = record(rec, 22, 0x0303, msgs, m);
        seg(ci, 0, F_PSH | F_ACK, rec, r);
        uint8_t cke[33];
        memset(cke, 0x04, sizeof cke);
        cke[0] = 32;
        m = hs_msg(msgs, 16, cke, 33);
        r = record(rec, 22, 0x0303, msgs, m);
        r += record(rec + r, 20, 0x0303, (const uint8_t *)"\x01", 1);
        r += record(rec + r, 22, 0x0303, fin, 40);
        seg(ci, 1, F_PSH | F_ACK, rec, r);
        r = record(rec, 20, 0x0303, (const uint8_t *)"\x01", 1);
        r += record(rec + r, 22, 0x0303, fin, 40);
        seg(ci, 0, F_PSH | F_ACK, rec, r);
    } else {
        r = record(rec, 22, 0x0303, msgs, m);
        r += record(rec + r, 20, 0x0303, (const uint8_t *)"\x01", 1);
        r += record(rec + r, 22, 0x0303, fin, 40);
        seg(ci, 0, F_PSH | F_ACK, rec, r);
        r = record(rec, 20, 0x0303, (const uint8_t *)"\x01", 1);
        r += record(rec + r, 22, 0x0303, fin, 40);
        seg(ci, 1, F_PSH | F_ACK, rec, r);
    }
}

/* by_client: the client leaves (FIN); else the server closes its side: a
 * FIN, or a RST when the handshake never finished. */
void wpcap_closed(uint32_t ci, int by_client)
{
    conn *c = &S.conns[ci];
    if (!S.fpcap || !c->ldaps)
        return;
    if (by_client) {
        if (!c->fin_c) {
            c->fin_c = 1;
            seg(ci, 1, F_FIN | F_ACK, NULL, 0);
        }
        return;
    }
    if (c->fin_s)
        return;
    c->fin_s = 1;
    if (!c->hs_done) {
        seg(ci, 0, F_RST | F_ACK, NULL, 0);
        return;
    }
    seg(ci, 0, F_FIN | F_ACK, NULL, 0);
    if (c->fin_c)
        seg(ci, 1, F_ACK, NULL, 0);
}
