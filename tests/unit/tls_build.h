/*
 * tls_build.h - TLS handshakes built byte by byte (RFC 5246 / RFC 8446 record
 * and handshake layouts) for the TLS dissector tests (test_dis_tls_*.c): a
 * byte builder, records and handshake messages, ClientHello / ServerHello
 * with the extensions that matter (SNI, session ticket, supported versions,
 * pre-shared key; GREASE to be ignored), a conversation as steps of one
 * direction's bytes, and the usual pieces of TLS 1.2 and 1.3 conversations.
 */
#ifndef SAT_TEST_TLS_BUILD_H
#define SAT_TEST_TLS_BUILD_H

#include <stdint.h>
#include <string.h>

#include "satscope/wire.h"

/* ---- byte builder ---------------------------------------------------------------- */
typedef struct bb {
    uint8_t b[8192];
    size_t n;
} bb;

static inline void put8(bb *o, unsigned v) { o->b[o->n++] = (uint8_t)v; }
static inline void put16(bb *o, unsigned v) { put8(o, v >> 8); put8(o, v); }
static inline void put24(bb *o, unsigned v) { put8(o, v >> 16); put16(o, v & 0xffff); }
static inline void putn(bb *o, const void *p, size_t n) { memcpy(o->b + o->n, p, n); o->n += n; }
static inline void putfill(bb *o, unsigned v, size_t n) { memset(o->b + o->n, (int)v, n); o->n += n; }

/* record of content type `type` around body */
static inline void rec(bb *o, unsigned type, const bb *body)
{
    put8(o, type);
    put16(o, 0x0303);
    put16(o, (unsigned)body->n);
    putn(o, body->b, body->n);
}
static inline void rec_raw(bb *o, unsigned type, const void *p, size_t n)
{
    put8(o, type);
    put16(o, 0x0303);
    put16(o, (unsigned)n);
    putn(o, p, n);
}
/* handshake message */
static inline void hs(bb *o, unsigned type, const bb *body)
{
    put8(o, type);
    put24(o, (unsigned)body->n);
    putn(o, body->b, body->n);
}
static inline void hs_empty(bb *o, unsigned type, size_t fill)
{
    put8(o, type);
    put24(o, (unsigned)fill);
    putfill(o, 0x5a, fill);
}

typedef struct hello_opts {
    unsigned legacy;
    const uint8_t *sid;
    unsigned sid_len;
    const char *sni;
    unsigned ticket_len; /* >0: session_ticket extension with that many bytes */
    int empty_ticket;    /* session_ticket extension, empty */
    int psk;
    const unsigned *versions; /* supported_versions (client list / server one) */
    unsigned nversions;
    unsigned cipher;
    int hrr;             /* server: HelloRetryRequest random */
} hello_opts;

static const uint8_t HRR_RANDOM[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

static inline void extensions(bb *o, const hello_opts *h, int client)
{
    bb e = {{0}, 0};
    if (client && h->sni) {
        size_t l = strlen(h->sni);
        put16(&e, 0);
        put16(&e, (unsigned)(l + 5));
        put16(&e, (unsigned)(l + 3));
        put8(&e, 0);
        put16(&e, (unsigned)l);
        putn(&e, h->sni, l);
    }
    if (client) { /* a few unrelated ones: supported_groups, GREASE */
        put16(&e, 0x0a0a);
        put16(&e, 0);
        put16(&e, 10);
        put16(&e, 4);
        put16(&e, 2);
        put16(&e, 29);
    }
    if (h->ticket_len || h->empty_ticket) {
        put16(&e, 35);
        put16(&e, h->ticket_len);
        putfill(&e, 0x77, h->ticket_len);
    }
    if (h->nversions) {
        put16(&e, 43);
        if (client) {
            put16(&e, 1 + 2 * (h->nversions + 1));
            put8(&e, 2 * (h->nversions + 1));
            put16(&e, 0x3a3a); /* GREASE first: must be ignored */
            for (unsigned i = 0; i < h->nversions; i++)
                put16(&e, h->versions[i]);
        } else {
            put16(&e, 2);
            put16(&e, h->versions[0]);
        }
    }
    if (h->psk) { /* last, as RFC 8446 requires in the ClientHello */
        put16(&e, 41);
        if (client) {
            put16(&e, 2 + 2 + 8 + 4 + 2 + 1 + 32);
            put16(&e, 2 + 8 + 4);
            put16(&e, 8);
            putfill(&e, 0x11, 8);
            put16(&e, 0);
            put16(&e, 0);
            put16(&e, 33);
            put8(&e, 32);
            putfill(&e, 0x22, 32);
        } else {
            put16(&e, 2);
            put16(&e, 0);
        }
    }
    if (e.n) {
        put16(o, (unsigned)e.n);
        putn(o, e.b, e.n);
    }
}

static inline void client_hello(bb *o, const hello_opts *h)
{
    bb body = {{0}, 0};
    put16(&body, h->legacy ? h->legacy : 0x0303);
    putfill(&body, 0xc1, 32);
    put8(&body, h->sid_len);
    if (h->sid_len)
        putn(&body, h->sid, h->sid_len);
    put16(&body, 6);
    put16(&body, 0x1301);
    put16(&body, 0xc02f);
    put16(&body, 0x002f);
    put8(&body, 1);
    put8(&body, 0);
    extensions(&body, h, 1);
    hs(o, 1, &body);
}

static inline void server_hello(bb *o, const hello_opts *h)
{
    bb body = {{0}, 0};
    put16(&body, h->legacy ? h->legacy : 0x0303);
    if (h->hrr)
        putn(&body, HRR_RANDOM, 32);
    else
        putfill(&body, 0x5e, 32);
    put8(&body, h->sid_len);
    if (h->sid_len)
        putn(&body, h->sid, h->sid_len);
    put16(&body, h->cipher);
    put8(&body, 0);
    extensions(&body, h, 0);
    hs(o, 2, &body);
}

/* ---- a conversation: steps of one direction's bytes --------------------------------- */
#define MAX_STEPS 16
typedef struct convo {
    int nsteps;
    int dir[MAX_STEPS];
    bb data[MAX_STEPS];
} convo;

static inline bb *step(convo *c, int dir)
{
    c->dir[c->nsteps] = dir;
    c->data[c->nsteps].n = 0;
    return &c->data[c->nsteps++];
}

/* ---- pieces of conversations ---------------------------------------------------------- */
static const uint8_t SID_A[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t SID_B[32] = {0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
                                  0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6,
                                  0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0};
static const uint8_t ONE = 1;
static const uint8_t ENC[40] = {0x99};

static inline void ch_record(bb *o, const hello_opts *h)
{
    bb m = {{0}, 0};
    client_hello(&m, h);
    rec(o, 22, &m);
}

static inline void sh_record(bb *o, const hello_opts *h)
{
    bb m = {{0}, 0};
    server_hello(&m, h);
    rec(o, 22, &m);
}

/* TLS 1.2's ChangeCipherSpec, then the encrypted Finished (a handshake record) */
static inline void ccs_finished_12(bb *o)
{
    rec_raw(o, 20, &ONE, 1);
    rec_raw(o, 22, ENC, sizeof ENC);
}

/* TLS 1.2 server's full flight: ServerHello, Certificate (big, split over two
 * records), ServerKeyExchange, ServerHelloDone */
static inline void server_full_flight(bb *o, const hello_opts *sh)
{
    bb m = {{0}, 0};
    server_hello(&m, sh);
    hs_empty(&m, 11, 3000);
    hs_empty(&m, 12, 300);
    hs_empty(&m, 14, 0);
    /* split the handshake stream over records at 1000 bytes */
    for (size_t off = 0; off < m.n; off += 1000)
        rec_raw(o, 22, m.b + off, m.n - off < 1000 ? m.n - off : 1000);
}

static inline void client_finish_12(convo *c)
{
    bb *s = step(c, SAT_DIR_C2S);
    bb m = {{0}, 0};
    hs_empty(&m, 16, 66);
    rec(s, 22, &m);
    ccs_finished_12(s);
}

static inline void server_finish_12(convo *c, int with_ticket)
{
    bb *s = step(c, SAT_DIR_S2C);
    if (with_ticket) {
        bb m = {{0}, 0};
        hs_empty(&m, 4, 180);
        rec(s, 22, &m);
    }
    ccs_finished_12(s);
}

static inline void appdata(convo *c, int dir)
{
    rec_raw(step(c, dir), 23, ENC, sizeof ENC);
}

/* TLS 1.3: ServerHello then CCS + encrypted flight; the client's CCS +
 * Finished (application-data record) ends it. */
static inline void tls13_convo(convo *c, const hello_opts *ch, const hello_opts *sh, int hrr)
{
    ch_record(step(c, SAT_DIR_C2S), ch); /* 0 */
    if (hrr) {
        hello_opts r = *sh;
        r.hrr = 1;
        r.psk = 0;
        bb *s = step(c, SAT_DIR_S2C); /* 1 */
        sh_record(s, &r);
        rec_raw(s, 20, &ONE, 1);
        bb *cl = step(c, SAT_DIR_C2S); /* 2 */
        rec_raw(cl, 20, &ONE, 1);
        ch_record(cl, ch);
    }
    bb *s = step(c, SAT_DIR_S2C);
    sh_record(s, sh);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 23, ENC, sizeof ENC);
    rec_raw(s, 23, ENC, sizeof ENC);
    bb *cl = step(c, SAT_DIR_C2S);
    if (!hrr)
        rec_raw(cl, 20, &ONE, 1);
    rec_raw(cl, 23, ENC, sizeof ENC);
    appdata(c, SAT_DIR_S2C);
    appdata(c, SAT_DIR_C2S);
}

static const unsigned V13[] = {0x0304, 0x0303};

#endif
