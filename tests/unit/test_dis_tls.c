/*
 * test_dis_tls.c - the TLS stream dissector (parse/dis_tls.c) driven directly:
 * handshakes built byte by byte here (RFC 5246 / RFC 8446 record and handshake
 * layouts), fed through create/data/end into a capturing sink, whole and one
 * byte at a time; truncated and garbage streams never crash and never come
 * out "resumed".
 */
#include "check.h"
#include "parse/dissectors.h"

/* ---- byte builder ---------------------------------------------------------------- */
typedef struct bb {
    uint8_t b[8192];
    size_t n;
} bb;

static void put8(bb *o, unsigned v) { o->b[o->n++] = (uint8_t)v; }
static void put16(bb *o, unsigned v) { put8(o, v >> 8); put8(o, v); }
static void put24(bb *o, unsigned v) { put8(o, v >> 16); put16(o, v & 0xffff); }
static void putn(bb *o, const void *p, size_t n) { memcpy(o->b + o->n, p, n); o->n += n; }
static void putfill(bb *o, unsigned v, size_t n) { memset(o->b + o->n, (int)v, n); o->n += n; }

/* record of content type `type` around body */
static void rec(bb *o, unsigned type, const bb *body)
{
    put8(o, type);
    put16(o, 0x0303);
    put16(o, (unsigned)body->n);
    putn(o, body->b, body->n);
}
static void rec_raw(bb *o, unsigned type, const void *p, size_t n)
{
    put8(o, type);
    put16(o, 0x0303);
    put16(o, (unsigned)n);
    putn(o, p, n);
}
/* handshake message */
static void hs(bb *o, unsigned type, const bb *body)
{
    put8(o, type);
    put24(o, (unsigned)body->n);
    putn(o, body->b, body->n);
}
static void hs_empty(bb *o, unsigned type, size_t fill)
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

static void extensions(bb *o, const hello_opts *h, int client)
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

static void client_hello(bb *o, const hello_opts *h)
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

static void server_hello(bb *o, const hello_opts *h)
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

static bb *step(convo *c, int dir)
{
    c->dir[c->nsteps] = dir;
    c->data[c->nsteps].n = 0;
    return &c->data[c->nsteps++];
}

/* ---- capture sink ------------------------------------------------------------------- */
typedef struct cap_row {
    sat_tls_hs h;
    char sni[256];
    char cip[64];
} cap_row;
typedef struct capture {
    int n;
    cap_row rows[4];
} capture;

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    capture *c = (capture *)ctx;
    if (c->n < 4) {
        cap_row *r = &c->rows[c->n];
        r->h = *h;
        snprintf(r->sni, sizeof r->sni, "%.*s", h->sni.ptr ? (int)h->sni.len : 0,
                 h->sni.ptr ? h->sni.ptr : "");
        snprintf(r->cip, sizeof r->cip, "%.*s", (int)h->client_ip.len, h->client_ip.ptr);
        r->h.sni = h->sni.ptr ? sat_str_cstr(r->sni) : SAT_STR_NONE;
        r->h.client_ip = r->h.server_ip = SAT_STR_NONE;
    }
    c->n++;
    return SAT_OK;
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

#define T0 1700000000000000000LL
#define STEP_NS 1000000LL

/* Feeds the first `limit` bytes of the conversation (SIZE_MAX: all), in
 * chunks of `chunk` bytes (0: each step whole); step i has ts T0 + i ms. */
static int run(const convo *c, size_t chunk, size_t limit, capture *out)
{
    static const char cip[] = "192.0.2.1", sip[] = "198.51.100.7";
    sat_flow_info fi;
    memset(&fi, 0, sizeof fi);
    fi.source = 3;
    fi.flow = 42;
    fi.client_ip = sat_str_cstr(cip);
    fi.server_ip = sat_str_cstr(sip);
    fi.client_port = 50000;
    fi.server_port = 443;
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = out;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_wire_ctx ctx = {&sink, NULL, 3};
    memset(out, 0, sizeof *out);
    void *st = sat_dissect_tls.create(&fi, &ctx);
    if (!st)
        return -1;
    size_t fed = 0;
    for (int i = 0; i < c->nsteps && fed < limit; i++) {
        const bb *d = &c->data[i];
        size_t n = d->n;
        if (n > limit - fed)
            n = limit - fed;
        size_t ck = chunk ? chunk : (n ? n : 1);
        for (size_t off = 0; off < n; off += ck) {
            size_t k = n - off < ck ? n - off : ck;
            int rc = sat_dissect_tls.data(st, c->dir[i], T0 + i * STEP_NS, d->b + off, k);
            if (rc < 0) {
                sat_dissect_tls.destroy(st);
                return rc;
            }
        }
        fed += n;
    }
    int rc = sat_dissect_tls.end(st, SAT_TCP_END_FIN_CLIENT, T0 + 100 * STEP_NS);
    int rc2 = sat_dissect_tls.end(st, SAT_TCP_END_FIN_CLIENT, T0 + 100 * STEP_NS); /* idempotent */
    sat_dissect_tls.destroy(st);
    return rc < 0 ? rc : rc2;
}

static int same_row(const sat_tls_hs *a, const sat_tls_hs *b)
{
    return a->ts == b->ts && a->server_hello_ts == b->server_hello_ts &&
           a->done_ts == b->done_ts && a->offered_version == b->offered_version &&
           a->version == b->version && a->cipher == b->cipher && a->outcome == b->outcome &&
           a->resumed_by == b->resumed_by && a->offered == b->offered && a->flags == b->flags &&
           a->alert == b->alert && a->duration == b->duration && sat_str_eq(a->sni, b->sni);
}

/* Runs c whole, then byte by byte and in 7-byte chunks (same row), then every
 * truncation (never resumed unless the whole is). Returns the whole run's row. */
static sat_tls_hs check_convo(const char *name, const convo *c, capture *whole)
{
    CHECK_EQ_INT(run(c, 0, SIZE_MAX, whole), 0);
    CHECK_EQ_INT(whole->n, 1);
    capture one, seven;
    CHECK_EQ_INT(run(c, 1, SIZE_MAX, &one), 0);
    CHECK_EQ_INT(run(c, 7, SIZE_MAX, &seven), 0);
    int ok1 = one.n == 1 && same_row(&one.rows[0].h, &whole->rows[0].h);
    int ok7 = seven.n == 1 && same_row(&seven.rows[0].h, &whole->rows[0].h);
    if (!ok1 || !ok7)
        fprintf(stderr, "%s: split feeding changed the row\n", name);
    CHECK(ok1);
    CHECK(ok7);
    size_t total = 0;
    for (int i = 0; i < c->nsteps; i++)
        total += c->data[i].n;
    int wrong = 0;
    for (size_t lim = 0; lim < total; lim++) {
        capture t;
        if (run(c, 0, lim, &t) != 0 || t.n > 1)
            wrong++;
        else if (t.n == 1 && t.rows[0].h.outcome == SAT_TLS_RESUMED &&
                 whole->rows[0].h.outcome != SAT_TLS_RESUMED)
            wrong++;
    }
    if (wrong)
        fprintf(stderr, "%s: %d truncations went wrong\n", name, wrong);
    CHECK_EQ_INT(wrong, 0);
    return whole->rows[0].h;
}

/* ---- pieces of conversations ---------------------------------------------------------- */
static const uint8_t SID_A[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t SID_B[32] = {0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
                                  0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6,
                                  0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0};
static const uint8_t ONE = 1;
static const uint8_t ENC[40] = {0x99};

static void ch_record(bb *o, const hello_opts *h)
{
    bb m = {{0}, 0};
    client_hello(&m, h);
    rec(o, 22, &m);
}

/* TLS 1.2 server's full flight: ServerHello, Certificate (big, split over two
 * records), ServerKeyExchange, ServerHelloDone */
static void server_full_flight(bb *o, const hello_opts *sh)
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

static void client_finish_12(convo *c)
{
    bb *s = step(c, SAT_DIR_C2S);
    bb m = {{0}, 0};
    hs_empty(&m, 16, 66);
    rec(s, 22, &m);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 22, ENC, sizeof ENC);
}

static void server_finish_12(convo *c, int with_ticket)
{
    bb *s = step(c, SAT_DIR_S2C);
    if (with_ticket) {
        bb m = {{0}, 0};
        hs_empty(&m, 4, 180);
        rec(s, 22, &m);
    }
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 22, ENC, sizeof ENC);
}

static void appdata(convo *c, int dir)
{
    rec_raw(step(c, dir), 23, ENC, sizeof ENC);
}

/* ---- cases -------------------------------------------------------------------------------- */
static void test_tls12_full(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "www.example.com", .empty_ticket = 1};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02f};
    ch_record(step(&c, SAT_DIR_C2S), &ch);  /* step 0 */
    server_full_flight(step(&c, SAT_DIR_S2C), &sh); /* 1 */
    client_finish_12(&c);                   /* 2 */
    server_finish_12(&c, 1);                /* 3 */
    appdata(&c, SAT_DIR_C2S);
    appdata(&c, SAT_DIR_S2C);
    capture w;
    sat_tls_hs h = check_convo("tls12_full", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);
    CHECK_EQ_INT(h.offered, 0);
    CHECK_EQ_INT(h.version, 0x0303);
    CHECK_EQ_INT(h.offered_version, 0x0303);
    CHECK_EQ_INT(h.cipher, 0xc02f);
    CHECK_EQ_SSTR(h.sni, "www.example.com");
    CHECK_EQ_STR(w.rows[0].cip, "192.0.2.1");
    CHECK_EQ_INT(h.source, 3);
    CHECK_EQ_INT(h.flow, 42);
    CHECK_EQ_INT(h.server_port, 443);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
    CHECK_EQ_INT(h.duration, 3 * STEP_NS);
    CHECK_EQ_INT(h.alert, SAT_ABSENT);
    CHECK_EQ_INT(h.flags, 0);

    /* renegotiation: the client's encrypted handshake record after its Finished */
    bb m = {{0}, 0};
    rec_raw(&m, 22, ENC, sizeof ENC);
    *step(&c, SAT_DIR_C2S) = m;
    h = check_convo("tls12_reneg", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_RENEGOTIATED);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
}

static void test_tls12_resumed_sid(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x002f};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    bb m = {{0}, 0};
    bb *s = step(&c, SAT_DIR_S2C);
    server_hello(&m, &sh);
    rec(s, 22, &m);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 22, ENC, sizeof ENC);
    bb *cl = step(&c, SAT_DIR_C2S);
    rec_raw(cl, 20, &ONE, 1);
    rec_raw(cl, 22, ENC, sizeof ENC);
    appdata(&c, SAT_DIR_C2S);
    capture w;
    sat_tls_hs h = check_convo("tls12_resumed_sid", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.done_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.duration, STEP_NS);
    CHECK(!h.sni.ptr);
}

static void test_tls12_resumed_ticket(void)
{
    for (int echo = 0; echo < 2; echo++) {
        convo c = {0};
        hello_opts ch = {.sid = SID_A, .sid_len = echo ? 32 : 0, .ticket_len = 160};
        hello_opts sh = {.sid = SID_A, .sid_len = echo ? 32 : 0, .cipher = 0xc030,
                         .empty_ticket = 1};
        ch_record(step(&c, SAT_DIR_C2S), &ch);
        bb m = {{0}, 0};
        bb *s = step(&c, SAT_DIR_S2C);
        server_hello(&m, &sh);
        hs_empty(&m, 4, 170); /* a fresh NewSessionTicket before the CCS */
        rec(s, 22, &m);
        rec_raw(s, 20, &ONE, 1);
        rec_raw(s, 22, ENC, sizeof ENC);
        bb *cl = step(&c, SAT_DIR_C2S);
        rec_raw(cl, 20, &ONE, 1);
        rec_raw(cl, 22, ENC, sizeof ENC);
        capture w;
        sat_tls_hs h = check_convo("tls12_resumed_ticket", &c, &w);
        CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
        CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_TICKET);
        CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_TICKET | (echo ? SAT_TLS_RESUME_SESSION_ID : 0));
        CHECK_EQ_INT(h.cipher, 0xc030);
    }
}

/* TLS 1.3: ServerHello then CCS + encrypted flight; the client's CCS +
 * Finished (application-data record) ends it. */
static void tls13_convo(convo *c, const hello_opts *ch, const hello_opts *sh, int hrr)
{
    ch_record(step(c, SAT_DIR_C2S), ch); /* 0 */
    if (hrr) {
        hello_opts r = *sh;
        r.hrr = 1;
        r.psk = 0;
        bb m = {{0}, 0};
        bb *s = step(c, SAT_DIR_S2C); /* 1 */
        server_hello(&m, &r);
        rec(s, 22, &m);
        rec_raw(s, 20, &ONE, 1);
        bb *cl = step(c, SAT_DIR_C2S); /* 2 */
        rec_raw(cl, 20, &ONE, 1);
        ch_record(cl, ch);
    }
    bb m = {{0}, 0};
    bb *s = step(c, SAT_DIR_S2C);
    server_hello(&m, sh);
    rec(s, 22, &m);
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

static void test_tls13_full(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .sni = "a.test", .versions = V13,
                     .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_full", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.version, 0x0304);
    CHECK_EQ_INT(h.offered_version, 0x0304);
    CHECK_EQ_INT(h.cipher, 0x1301);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);
    CHECK_EQ_INT(h.duration, 2 * STEP_NS);
    CHECK_EQ_SSTR(h.sni, "a.test");
}

static void test_tls13_psk(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2, .psk = 1};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1302, .versions = V13,
                     .nversions = 1, .psk = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_psk", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_PSK);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID | SAT_TLS_RESUME_PSK);

    /* offered a PSK, the server declined it: full */
    convo d = {0};
    sh.psk = 0;
    tls13_convo(&d, &ch, &sh, 0);
    h = check_convo("tls13_psk_declined", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);
}

static void test_tls13_hrr(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 1);
    capture w;
    sat_tls_hs h = check_convo("tls13_hrr", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_HRR);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.server_hello_ts, T0 + 3 * STEP_NS); /* the real ServerHello */
    CHECK_EQ_INT(h.done_ts, T0 + 4 * STEP_NS);
}

/* "TLS 1.3 experiment": echoes the legacy session id, no PSK -> full */
static void test_tls13_experiment(void)
{
    static const unsigned VX[] = {0x7e01, 0x0303};
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = VX, .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = VX,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_experiment", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.version, 0x7e01);
    CHECK_EQ_INT(h.offered_version, 0x7e01);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);

    /* a draft (0x7f1c) with a PSK: resumed */
    static const unsigned VD[] = {0x7f1c};
    convo d = {0};
    hello_opts ch2 = {.versions = VD, .nversions = 1, .psk = 1};
    hello_opts sh2 = {.cipher = 0x1301, .versions = VD, .nversions = 1, .psk = 1};
    tls13_convo(&d, &ch2, &sh2, 0);
    h = check_convo("tls13_draft28_psk", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.version, 0x7f1c);
}

static void test_alert(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "x.test"};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    static const uint8_t al[2] = {2, 40};
    rec_raw(step(&c, SAT_DIR_S2C), 21, al, 2);
    capture w;
    sat_tls_hs h = check_convo("alert", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, 40);
    CHECK_EQ_INT(h.version, 0);
    CHECK_EQ_INT(h.server_hello_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);

    /* a warning (no_renegotiation) is not the end */
    convo d = {0};
    ch_record(step(&d, SAT_DIR_C2S), &ch);
    static const uint8_t warn[2] = {1, 100};
    rec_raw(step(&d, SAT_DIR_S2C), 21, warn, 2);
    h = check_convo("alert_warning", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_INCOMPLETE);
}

/* An alert after the ServerHello: failed, with the ServerHello's time kept
 * (the server had answered: analyzers charge it as a full handshake). */
static void test_alert_after_server_hello(void)
{
    /* TLS 1.2: the client rejects the certificate, its alert in the clear */
    convo c = {0};
    hello_opts ch = {.sni = "x.test"};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02b};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    static const uint8_t unknown_ca[2] = {2, 48};
    rec_raw(step(&c, SAT_DIR_C2S), 21, unknown_ca, 2);
    capture w;
    sat_tls_hs h = check_convo("alert_after_sh_12", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, 48);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.version, 0x0303);

    /* TLS 1.3: the client's alert is protected (19 bytes: 2 + content type +
     * a 16-byte tag) where its Finished would be */
    static const uint8_t alert13[19] = {0x42};
    hello_opts ch13 = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2};
    hello_opts sh13 = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                       .nversions = 1};
    convo d = {0};
    ch_record(step(&d, SAT_DIR_C2S), &ch13);
    bb m = {{0}, 0};
    bb *s = step(&d, SAT_DIR_S2C);
    server_hello(&m, &sh13);
    rec(s, 22, &m);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 23, ENC, sizeof ENC);
    bb *cl = step(&d, SAT_DIR_C2S);
    rec_raw(cl, 20, &ONE, 1);
    rec_raw(cl, 23, alert13, sizeof alert13);
    h = check_convo("alert_after_sh_13", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, SAT_ABSENT);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.version, 0x0304);

    /* with TLS_AES_128_CCM_8_SHA256 the tag is 8 bytes: an 11-byte alert,
     * and a 19-byte record is not one */
    convo e = {0};
    sh13.cipher = 0x1305;
    ch_record(step(&e, SAT_DIR_C2S), &ch13);
    m.n = 0;
    s = step(&e, SAT_DIR_S2C);
    server_hello(&m, &sh13);
    rec(s, 22, &m);
    rec_raw(s, 23, ENC, sizeof ENC);
    rec_raw(step(&e, SAT_DIR_C2S), 23, alert13, 11);
    h = check_convo("alert_after_sh_13_ccm8", &e, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    e.data[2].n = 0;
    rec_raw(&e.data[2], 23, alert13, sizeof alert13);
    h = check_convo("finished_13_ccm8", &e, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);

    /* TLS 1.3, a client certificate required and not given: the client's
     * (empty) Certificate and Finished, then the server's protected alert
     * where its tickets would be */
    convo r = {0};
    sh13.cipher = 0x1302;
    ch_record(step(&r, SAT_DIR_C2S), &ch13);
    m.n = 0;
    s = step(&r, SAT_DIR_S2C);
    server_hello(&m, &sh13);
    rec(s, 22, &m);
    rec_raw(s, 23, ENC, sizeof ENC);
    cl = step(&r, SAT_DIR_C2S);
    rec_raw(cl, 23, ENC, 25);
    rec_raw(cl, 23, ENC, sizeof ENC);
    rec_raw(step(&r, SAT_DIR_S2C), 23, alert13, sizeof alert13);
    h = check_convo("refused_after_finished_13", &r, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    /* the same with a ticket (a bigger record) first: full */
    r.data[3].n = 0;
    rec_raw(&r.data[3], 23, ENC, sizeof ENC);
    rec_raw(&r.data[3], 23, alert13, sizeof alert13); /* a later close_notify */
    h = check_convo("ticket_after_finished_13", &r, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);
}

static void test_incomplete(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "slow.test", .versions = V13, .nversions = 2};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    capture w;
    sat_tls_hs h = check_convo("incomplete", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_INCOMPLETE);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.server_hello_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    CHECK_EQ_INT(h.offered_version, 0x0304);
    CHECK_EQ_SSTR(h.sni, "slow.test");
}

static void test_ssl2_hello(void)
{
    convo c = {0};
    bb *s = step(&c, SAT_DIR_C2S);
    /* SSLv2-format ClientHello (RFC 5246 E.2) offering SSLv3 */
    put8(s, 0x80);
    put8(s, 9 + 9 + 16);
    put8(s, 1);
    put16(s, 0x0300);
    put16(s, 9);
    put16(s, 0);
    put16(s, 16);
    static const uint8_t specs[9] = {0, 0, 4, 0, 0, 5, 0, 0, 0x0a};
    putn(s, specs, 9);
    putfill(s, 0xcc, 16);
    hello_opts sh = {.legacy = 0x0300, .sid = SID_B, .sid_len = 32, .cipher = 4};
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    client_finish_12(&c);
    server_finish_12(&c, 0);
    capture w;
    sat_tls_hs h = check_convo("ssl2_hello", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_SSL2_HELLO);
    CHECK_EQ_INT(h.offered_version, 0x0300);
    CHECK_EQ_INT(h.version, 0x0300);
    CHECK_EQ_INT(h.cipher, 4);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
}

static void test_server_hello_first(void)
{
    convo c = {0};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02f};
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    client_finish_12(&c);
    server_finish_12(&c, 0);
    capture w;
    sat_tls_hs h = check_convo("server_hello_first", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_NO_CLIENT_HELLO);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.offered_version, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);

    /* late capture of an abbreviated handshake with an empty session id: ticket */
    convo d = {0};
    hello_opts sh2 = {.cipher = 0xc02f};
    bb m = {{0}, 0};
    bb *s = step(&d, SAT_DIR_S2C);
    server_hello(&m, &sh2);
    rec(s, 22, &m);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 22, ENC, sizeof ENC);
    h = check_convo("server_hello_first_abbrev", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_TICKET);
}

/* not TLS, or TLS whose start is missing: no row, no crash */
static void test_garbage(void)
{
    uint32_t x = 12345;
    int resumed = 0, rows = 0;
    for (int round = 0; round < 300; round++) {
        convo c = {0};
        for (int k = 0; k < 6; k++) {
            bb *s = step(&c, k & 1);
            size_t n = 1 + (x >> 7) % 600;
            for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                s->b[s->n++] = (uint8_t)(x >> 16);
            }
            if (round & 1) { /* plausible record headers with garbage inside */
                s->b[0] = (uint8_t)(20 + round % 4);
                s->b[1] = 3;
                s->b[2] = (uint8_t)(round % 5);
            }
        }
        for (size_t chunk = 0; chunk < 3; chunk++) {
            capture w;
            CHECK_EQ_INT(run(&c, chunk * 5, SIZE_MAX, &w), 0);
            rows += w.n;
            for (int i = 0; i < w.n && i < 4; i++)
                resumed += w.rows[i].h.outcome == SAT_TLS_RESUMED;
        }
    }
    CHECK_EQ_INT(resumed, 0);
    (void)rows;

    /* gap in the middle of the server flight: no resumed, no crash */
    sat_event_sink sink;
    capture w;
    memset(&sink, 0, sizeof sink);
    memset(&w, 0, sizeof w);
    sink.ctx = &w;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_wire_ctx ctx = {&sink, NULL, 0};
    sat_flow_info fi;
    memset(&fi, 0, sizeof fi);
    void *st = sat_dissect_tls.create(&fi, &ctx);
    CHECK(st != NULL);
    bb a = {{0}, 0};
    hello_opts ch = {0};
    ch_record(&a, &ch);
    CHECK_EQ_INT(sat_dissect_tls.data(st, 0, T0, a.b, a.n), 0);
    CHECK_EQ_INT(sat_dissect_tls.gap(st, 1, T0, 100), 0);
    bb b = {{0}, 0};
    rec_raw(&b, 20, &ONE, 1);
    CHECK_EQ_INT(sat_dissect_tls.data(st, 1, T0, b.b, b.n), 0);
    CHECK_EQ_INT(sat_dissect_tls.end(st, 0, T0), 0);
    sat_dissect_tls.destroy(st);
    sat_dissect_tls.destroy(NULL);
    CHECK_EQ_INT(w.n, 1);
    CHECK_EQ_INT(w.rows[0].h.outcome, SAT_TLS_INCOMPLETE);
}

static void test_sniff(void)
{
    bb a = {{0}, 0};
    hello_opts ch = {0};
    ch_record(&a, &ch);
    int full = sat_dissect_tls.sniff(a.b, a.n, 0, 8080);
    CHECK(full >= 90);
    CHECK(sat_dissect_tls.sniff(a.b, 3, 0, 8080) > 0);
    CHECK(sat_dissect_tls.sniff(a.b, a.n, 0, 443) >= full);
    static const uint8_t http[] = "GET / HTTP/1.1\r\n";
    CHECK_EQ_INT(sat_dissect_tls.sniff(http, sizeof http - 1, 0, 443), 0);
    static const uint8_t ldap[] = {0x30, 0x0c, 0x02, 0x01, 0x01, 0x60, 0x07};
    CHECK_EQ_INT(sat_dissect_tls.sniff(ldap, sizeof ldap, 0, 389), 0);
    static const uint8_t badver[] = {22, 2, 0, 0, 10, 1};
    CHECK_EQ_INT(sat_dissect_tls.sniff(badver, sizeof badver, 0, 443), 0);
    static const uint8_t v2[] = {0x80, 0x22, 1, 3, 0, 0, 9, 0, 0, 0, 16};
    CHECK(sat_dissect_tls.sniff(v2, sizeof v2, 0, 443) >= 80);
    CHECK_EQ_STR(sat_dissect_tls.name, "tls");
}

/* ---- through the flow table: content detection on a split ClientHello --------------- */
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
    test_sniff();
    test_tls12_full();
    test_tls12_resumed_sid();
    test_tls12_resumed_ticket();
    test_tls13_full();
    test_tls13_psk();
    test_tls13_hrr();
    test_tls13_experiment();
    test_alert();
    test_alert_after_server_hello();
    test_incomplete();
    test_ssl2_hello();
    test_server_hello_first();
    test_garbage();
    test_split_client_hello();
    return CHECK_DONE();
}
