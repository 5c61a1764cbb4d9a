/*
 * dis_tls.c - the TLS stream dissector: reads one TCP connection's bytes (in
 * order, per direction, from the flow table) and emits ONE sat_tls_hs row when
 * the connection ends, classifying its FIRST handshake as full, resumed,
 * failed or incomplete (event.h). Specs: RFC 6101 (SSLv3), RFC 5246 (TLS 1.2,
 * and its appendix E.2 for the SSLv2-format ClientHello), RFC 5077 (session
 * tickets), RFC 8446 (TLS 1.3, HelloRetryRequest, pre_shared_key), RFC 6066
 * (server_name), draft-ietf-tls-tls13-18..28 (draft versions 0x7fXX).
 *
 * DTLS (RFC 6347/9147) runs over UDP and is out of scope here: the flow table
 * only hands TCP streams to stream dissectors. SAT_TLSF_DTLS stays unset.
 *
 * What is parsed: the record layer (records split across data() calls, several
 * records per call), handshake messages reassembled across records, but only
 * the ClientHello and ServerHello bodies are kept (bounded: 64 KiB each);
 * every other message is classified by its 4-byte header and its body skipped,
 * so a 40 KiB certificate chain costs no copy. Once a direction is encrypted
 * (after its ChangeCipherSpec in SSLv3..TLS 1.2; after the ServerHello in 1.3)
 * only record headers are looked at, and once the handshake is classified for
 * good the bytes are just skipped.
 *
 * Classification (the first handshake only):
 *  - TLS 1.3, its drafts (0x7fXX) and the "TLS 1.3 experiment" (0x7e01/02):
 *    resumed (by PSK) only if the ServerHello carries pre_shared_key. The
 *    experiment's echo of the legacy session id is middlebox compatibility,
 *    not a resumption: without a PSK it is FULL (Zeek says resumed).
 *  - SSLv3..TLS 1.2: full as soon as the server sends Certificate /
 *    ServerKeyExchange / CertificateRequest / ServerHelloDone or the client a
 *    ClientKeyExchange; resumed when the server goes from ServerHello
 *    (optionally NewSessionTicket) straight to ChangeCipherSpec. resumed_by is
 *    TICKET when the client offered a non-empty ticket, whether or not the
 *    session id was echoed: RFC 5077 3.4 makes a server that accepts a ticket
 *    echo the client's session id anyway, and servers try the ticket before
 *    their session cache (OpenSSL does); otherwise SESSION_ID. Without a
 *    ClientHello (capture started late): TICKET if the ServerHello's session
 *    id is empty, else SESSION_ID. If the capture ends right after the
 *    ServerHello, an echo of the client's non-empty session id says resumed
 *    (RFC 5246 7.4.1.3: a full handshake gets a new id), anything else full.
 *  - SSLv2 SERVER-HELLO (answer to an SSLv2 ClientHello from a v2-only
 *    server): version 0x0002, resumed by session id if SESSION-ID-HIT is set.
 *  - failed: an alert in the clear (fatal, or close_notify) before the
 *    handshake is done; an encrypted alert before then fails it too, with
 *    alert = SAT_ABSENT since its description cannot be read. In TLS 1.3
 *    the client's alert after the ServerHello is protected like its Finished:
 *    told apart by its length (an unpadded alert record is 19 bytes, 11 with
 *    CCM_8; a Finished is at least 53). The server's refusal after the
 *    client's Finished (a client certificate required and not given) is the
 *    same: an alert-sized record as the server's first after the client's
 *    Finished, where its tickets or its answer would be (done_ts is then 0).
 *    A padded alert is not seen: such a handshake stays full; 2 bytes of
 *    application data (0-RTT from the client, an answer from the server) in
 *    that place would be taken for an alert (no protocol here answers so).
 *    server_hello_ts says whether the server had answered (and paid for a
 *    full handshake) before the alert.
 *  - incomplete: a ClientHello without a ServerHello when the connection ended.
 *  - A HelloRetryRequest (ServerHello with RFC 8446's special random, or the
 *    drafts' message type 6) sets SAT_TLSF_HRR; the client's second
 *    ClientHello is part of the same handshake.
 *  - Renegotiation (SAT_TLSF_RENEGOTIATED, no new row): a ClientHello,
 *    ServerHello or HelloRequest in the clear after the first ServerHello, or,
 *    in <= 1.2, any handshake record after a direction's encrypted Finished.
 *  - offered: SESSION_ID when the ClientHello's (legacy) session id is
 *    non-empty (1.3 clients in compatibility mode send one too: it is what
 *    the client sent, not a judgement), TICKET for a non-empty session_ticket
 *    extension, PSK for pre_shared_key.
 *
 * Timestamps: ts = the data() call that brought the ClientHello's first byte
 * (the ServerHello's when no ClientHello); done_ts = the server's Finished
 * record (<= 1.2, full or resumed) or the client's first application-data
 * record after the ServerHello (1.3: its encrypted Finished).
 *
 * Memory: one malloc per connection (the state) and, only when a ClientHello
 * or ServerHello spans two data() calls, one buffer for it.
 */
#include "dissectors.h"

#define TLS_HELLO_MAX 65536u           /* bound on a kept ClientHello/ServerHello body */
#define TLS_RECORD_MAX (16384u + 2048u) /* RFC 5246 6.2.3: TLSCiphertext bound */
#define TLS_SNI_MAX 255u

enum { CT_CCS = 20, CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APPDATA = 23, CT_HEARTBEAT = 24 };
enum {
    HS_HELLO_REQUEST = 0, HS_CLIENT_HELLO = 1, HS_SERVER_HELLO = 2, HS_NEW_SESSION_TICKET = 4,
    HS_HRR_DRAFT = 6, HS_CERTIFICATE = 11, HS_SERVER_KEY_EXCHANGE = 12,
    HS_CERTIFICATE_REQUEST = 13, HS_SERVER_HELLO_DONE = 14, HS_CLIENT_KEY_EXCHANGE = 16
};
enum { EXT_SERVER_NAME = 0, EXT_SESSION_TICKET = 35, EXT_PRE_SHARED_KEY = 41,
       EXT_SUPPORTED_VERSIONS = 43 };

/* RFC 8446 4.1.3: SHA-256("HelloRetryRequest"), the random of a HelloRetryRequest. */
static const uint8_t hrr_random[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

typedef struct tls_dir {
    /* record layer */
    uint8_t rh[5];        /* record header being collected */
    uint8_t rh_len;
    uint8_t rec_type;
    uint32_t rec_left;    /* body bytes of the current record still to come */
    /* handshake stream (clear handshake records only) */
    uint8_t hh[4];        /* handshake message header being collected */
    uint8_t hh_len;
    uint8_t hs_type;      /* type of the message being buffered */
    uint8_t buffering;    /* a ClientHello/ServerHello body is being collected */
    uint32_t hs_want, hs_have;
    uint32_t hs_skip;     /* body bytes of a skipped message still to come */
    sat_ts_ns hs_ts;      /* when the current message's first byte came */
    uint8_t *buf;
    uint32_t buf_cap;
    /* alert body (2 bytes) */
    uint8_t al[2];
    uint8_t al_len;
    /* state */
    uint8_t started;      /* first byte seen */
    uint8_t dead;         /* gave up on this direction (garbage, gap) */
    uint8_t encrypted;    /* after CCS (<= 1.2) / ServerHello (1.3, server) */
    uint8_t fin_seen;     /* <= 1.2: the encrypted Finished record went by */
    uint8_t v2_record;    /* the current record is SSLv2-format */
    uint64_t bytes;
    sat_ts_ns last_ts;
} tls_dir;

typedef struct tls_state {
    sat_flow_info flow;
    sat_wire_ctx ctx;
    tls_dir d[2];
    /* client hello */
    uint8_t ch_seen, sh_seen, hrr, ssl2;
    uint8_t client_gone; /* the client sent FIN before any ServerHello (tls_closed) */
    uint8_t offered;
    uint8_t ch_sid_len, sh_sid_len;
    uint8_t ch_sid[32], sh_sid[32];
    uint16_t offered_version;
    uint16_t version, cipher;
    uint8_t is13;          /* the ServerHello chose 1.3 or a draft/experiment */
    uint8_t sh_psk;
    uint8_t full_evidence; /* <= 1.2 full-handshake messages seen */
    uint8_t abbreviated;   /* <= 1.2 server CCS right after ServerHello */
    uint8_t v2_resumed;    /* SSLv2 SERVER-HELLO session-id-hit */
    uint8_t failed, done, finished, emitted, flags;
    uint8_t watch_server;  /* 1.3: the server's first record after the client's
                              Finished is still to come (a refusal?) */
    int32_t alert;
    uint64_t c2s_tail;     /* client bytes since the server's last, delivered after
                              the handshake was done (tls_awaiting) */
    sat_ts_ns ts, sh_ts, done_ts;
    uint16_t sni_len;
    uint8_t sni_present;
    char sni[TLS_SNI_MAX];
} tls_state;

static inline uint32_t be24(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static int is_grease(uint16_t v) { return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff); }

static int is_tls13ish(uint16_t v)
{
    return v == 0x0304 || (v >> 8) == 0x7f || v == 0x7e01 || v == 0x7e02;
}

/* Orders versions for "highest offered": drafts and the experiment sit
 * between 1.2 and 1.3. */
static uint32_t version_rank(uint16_t v)
{
    if (v <= 0x0304)
        return (uint32_t)v << 8;
    if ((v >> 8) == 0x7f)
        return (0x0303u << 8) + 0x80u + (v & 0x7fu);
    if ((v >> 8) == 0x7e)
        return (0x0303u << 8) + (v & 0x7fu);
    return 0;
}

/* ---- sniff --------------------------------------------------------------------- */
static int looks_ssl2_client_hello(const uint8_t *p, size_t n)
{
    if (n < 5 || !(p[0] & 0x80) || p[2] != 1)
        return 0;
    uint16_t len = (uint16_t)(((p[0] & 0x7f) << 8) | p[1]);
    uint16_t ver = (uint16_t)((p[3] << 8) | p[4]);
    if (len < 9 || !(ver == 0x0002 || (ver >= 0x0300 && ver <= 0x0304)))
        return 0;
    if (n >= 11) { /* cipher specs are 3 bytes each; challenge 16..32 bytes */
        uint16_t cs = (uint16_t)((p[5] << 8) | p[6]);
        uint16_t ch = (uint16_t)((p[9] << 8) | p[10]);
        if (cs == 0 || cs % 3 || ch < 16 || ch > 32)
            return 0;
    }
    return 1;
}

static int tls_sniff(const uint8_t *p, size_t n, int dir, uint16_t server_port)
{
    (void)dir;
    int tie = (server_port == 443 || server_port == 636 || server_port == 993 ||
               server_port == 995 || server_port == 465 || server_port == 853 ||
               server_port == 8443 || server_port == 3269) ? 5 : 0;
    if (n == 0)
        return 0;
    if (p[0] >= CT_CCS && p[0] <= CT_APPDATA) {
        if (n < 2)
            return 10 + tie;
        if (p[1] != 3)
            return 0;
        if (n < 3)
            return 20 + tie;
        if (p[2] > 4)
            return 0;
        if (n < 5)
            return 40 + tie;
        uint16_t len = (uint16_t)((p[3] << 8) | p[4]);
        if (len > TLS_RECORD_MAX || (len == 0 && p[0] != CT_APPDATA))
            return 0;
        if (p[0] == CT_HANDSHAKE) {
            if (n >= 6 && (p[5] == HS_CLIENT_HELLO || p[5] == HS_SERVER_HELLO))
                return 95 + tie;
            return 80 + tie;
        }
        return 60 + tie; /* mid-connection: alert, CCS, application data */
    }
    if (looks_ssl2_client_hello(p, n))
        return 80 + tie;
    return 0;
}

/* ---- create / destroy ------------------------------------------------------------ */
static void *tls_create(const sat_flow_info *flow, const sat_wire_ctx *ctx)
{
    tls_state *s = (tls_state *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (flow)
        s->flow = *flow;
    if (ctx)
        s->ctx = *ctx;
    s->alert = SAT_ABSENT;
    return s;
}

static void tls_destroy(void *st)
{
    tls_state *s = (tls_state *)st;
    if (!s)
        return;
    free(s->d[0].buf);
    free(s->d[1].buf);
    free(s);
}

/* ---- hello parsing ------------------------------------------------------------------ */
static void parse_client_hello(tls_state *s, const uint8_t *b, size_t n)
{
    sat_cursor c = sat_cursor_make(b, n);
    uint16_t legacy = sat_cursor_be16(&c);
    uint32_t best = version_rank(legacy);
    uint16_t best_v = legacy;
    sat_cursor_skip(&c, 32);
    uint8_t sid_len = sat_cursor_u8(&c);
    const uint8_t *sid = sat_cursor_bytes(&c, sid_len);
    if (c.err)
        goto out;
    s->ch_sid_len = sid_len <= 32 ? sid_len : 32;
    memcpy(s->ch_sid, sid, s->ch_sid_len);
    if (sid_len)
        s->offered |= SAT_TLS_RESUME_SESSION_ID;
    sat_cursor_skip(&c, sat_cursor_be16(&c)); /* cipher suites */
    sat_cursor_skip(&c, sat_cursor_u8(&c));   /* compression methods */
    if (c.err || sat_cursor_left(&c) < 2)
        goto out; /* no extensions (SSLv3, old TLS) */
    uint16_t ext_total = sat_cursor_be16(&c);
    sat_cursor ex = sat_cursor_make(c.p + c.pos,
                                    ext_total <= sat_cursor_left(&c) ? ext_total : sat_cursor_left(&c));
    while (sat_cursor_left(&ex) >= 4) {
        uint16_t type = sat_cursor_be16(&ex);
        uint16_t len = sat_cursor_be16(&ex);
        const uint8_t *e = sat_cursor_bytes(&ex, len);
        if (!e)
            break;
        sat_cursor ec = sat_cursor_make(e, len);
        switch (type) {
        case EXT_SERVER_NAME: {
            sat_cursor_be16(&ec); /* list length */
            while (sat_cursor_left(&ec) >= 3) {
                uint8_t nt = sat_cursor_u8(&ec);
                uint16_t nl = sat_cursor_be16(&ec);
                const uint8_t *name = sat_cursor_bytes(&ec, nl);
                if (!name)
                    break;
                if (nt == 0 && !s->sni_present) {
                    s->sni_present = 1;
                    s->sni_len = (uint16_t)(nl <= TLS_SNI_MAX ? nl : TLS_SNI_MAX);
                    memcpy(s->sni, name, s->sni_len);
                    break;
                }
            }
            break;
        }
        case EXT_SESSION_TICKET:
            if (len > 0)
                s->offered |= SAT_TLS_RESUME_TICKET;
            break;
        case EXT_PRE_SHARED_KEY:
            s->offered |= SAT_TLS_RESUME_PSK;
            break;
        case EXT_SUPPORTED_VERSIONS: {
            uint8_t l = sat_cursor_u8(&ec);
            for (unsigned i = 0; i + 1 < l && sat_cursor_left(&ec) >= 2; i += 2) {
                uint16_t v = sat_cursor_be16(&ec);
                if (is_grease(v))
                    continue;
                if (version_rank(v) > best) {
                    best = version_rank(v);
                    best_v = v;
                }
            }
            break;
        }
        default:
            break;
        }
    }
out:
    s->offered_version = best_v;
}

static void parse_server_hello(tls_state *s, const uint8_t *b, size_t n)
{
    sat_cursor c = sat_cursor_make(b, n);
    uint16_t legacy = sat_cursor_be16(&c);
    uint16_t selected = 0;
    sat_cursor_skip(&c, 32);
    if ((legacy >> 8) == 0x7f && (legacy & 0xff) < 22) {
        /* drafts before -22: version in place, no session id or compression */
        s->cipher = sat_cursor_be16(&c);
        s->sh_sid_len = 0;
    } else {
        uint8_t sid_len = sat_cursor_u8(&c);
        const uint8_t *sid = sat_cursor_bytes(&c, sid_len);
        if (sid) {
            s->sh_sid_len = sid_len <= 32 ? sid_len : 32;
            memcpy(s->sh_sid, sid, s->sh_sid_len);
        }
        s->cipher = sat_cursor_be16(&c);
        sat_cursor_u8(&c); /* compression */
    }
    s->version = legacy;
    if (!c.err && sat_cursor_left(&c) >= 2) {
        uint16_t ext_total = sat_cursor_be16(&c);
        size_t avail = sat_cursor_left(&c);
        sat_cursor ex = sat_cursor_make(c.p + c.pos, ext_total <= avail ? ext_total : avail);
        while (sat_cursor_left(&ex) >= 4) {
            uint16_t type = sat_cursor_be16(&ex);
            uint16_t len = sat_cursor_be16(&ex);
            const uint8_t *e = sat_cursor_bytes(&ex, len);
            if (!e)
                break;
            if (type == EXT_SUPPORTED_VERSIONS && len >= 2)
                selected = (uint16_t)((e[0] << 8) | e[1]);
            else if (type == EXT_PRE_SHARED_KEY)
                s->sh_psk = 1;
        }
    }
    if (selected)
        s->version = selected;
    s->is13 = (uint8_t)is_tls13ish(s->version);
}

/* ---- state transitions ---------------------------------------------------------------- */
static void set_done(tls_state *s, sat_ts_ns ts)
{
    if (!s->done) {
        s->done = 1;
        s->done_ts = ts;
        /* 1.3 has no visible renegotiation: nothing more to learn but the
         * server's next record (on_record_start) */
        if (s->is13)
            s->watch_server = 1;
    }
}

static void renegotiated(tls_state *s)
{
    s->flags |= SAT_TLSF_RENEGOTIATED;
    /* nothing left to learn: the first handshake is over and flagged */
    if (s->done || s->failed)
        s->finished = 1;
}

static void fail(tls_state *s, int32_t alert)
{
    if (s->done || s->failed)
        return;
    s->failed = 1;
    s->alert = alert;
    s->finished = 1;
}

/* One handshake message of direction d; body is NULL when it was not kept
 * (any type but the hellos, or a hello above TLS_HELLO_MAX). */
static void on_handshake(tls_state *s, int d, uint8_t type, const uint8_t *body, uint32_t len,
                         sat_ts_ns ts)
{
    if (d == SAT_DIR_C2S) {
        switch (type) {
        case HS_CLIENT_HELLO:
            if (!s->ch_seen && !s->sh_seen) {
                s->ch_seen = 1;
                s->ts = ts;
                if (body)
                    parse_client_hello(s, body, len);
            } else if (s->sh_seen) {
                renegotiated(s);
            } /* else: the second ClientHello after a HelloRetryRequest */
            break;
        case HS_CLIENT_KEY_EXCHANGE:
            if (s->sh_seen && !s->is13)
                s->full_evidence = 1;
            break;
        default:
            break;
        }
        return;
    }
    switch (type) {
    case HS_SERVER_HELLO:
        if (body && len >= 34 && memcmp(body + 2, hrr_random, 32) == 0) {
            s->flags |= SAT_TLSF_HRR;
            return;
        }
        if (s->sh_seen) {
            renegotiated(s);
            return;
        }
        s->sh_seen = 1;
        s->sh_ts = ts;
        if (!s->ch_seen) {
            s->flags |= SAT_TLSF_NO_CLIENT_HELLO;
            s->ts = ts;
        }
        if (body)
            parse_server_hello(s, body, len);
        if (s->is13)
            s->d[SAT_DIR_S2C].encrypted = 1;
        break;
    case HS_HRR_DRAFT:
        s->flags |= SAT_TLSF_HRR;
        break;
    case HS_CERTIFICATE:
    case HS_SERVER_KEY_EXCHANGE:
    case HS_CERTIFICATE_REQUEST:
    case HS_SERVER_HELLO_DONE:
        if (s->sh_seen && !s->is13 && !s->abbreviated)
            s->full_evidence = 1;
        break;
    case HS_HELLO_REQUEST:
        if (s->sh_seen)
            renegotiated(s);
        break;
    default:
        break;
    }
}

static int ensure_buf(tls_dir *D, uint32_t need)
{
    if (D->buf_cap >= need)
        return 1;
    uint32_t cap = D->buf_cap ? D->buf_cap : 512;
    while (cap < need)
        cap *= 2;
    uint8_t *nb = (uint8_t *)realloc(D->buf, cap);
    if (!nb)
        return 0;
    D->buf = nb;
    D->buf_cap = cap;
    return 1;
}

/* The clear handshake stream of direction d (bodies of handshake records). */
static int hs_feed(tls_state *s, int d, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    tls_dir *D = &s->d[d];
    while (n > 0 && !D->encrypted && !D->dead && !s->finished) {
        if (D->hs_skip) {
            size_t k = D->hs_skip < n ? D->hs_skip : n;
            D->hs_skip -= (uint32_t)k;
            p += k;
            n -= k;
            continue;
        }
        if (D->buffering) {
            size_t k = D->hs_want - D->hs_have;
            if (k > n)
                k = n;
            memcpy(D->buf + D->hs_have, p, k);
            D->hs_have += (uint32_t)k;
            p += k;
            n -= k;
            if (D->hs_have == D->hs_want) {
                D->buffering = 0;
                on_handshake(s, d, D->hs_type, D->buf, D->hs_want, D->hs_ts);
            }
            continue;
        }
        uint8_t type;
        uint32_t len;
        if (D->hh_len == 0 && n >= 4) {
            type = p[0];
            len = be24(p + 1);
            D->hs_ts = ts;
            p += 4;
            n -= 4;
        } else {
            if (D->hh_len == 0)
                D->hs_ts = ts;
            D->hh[D->hh_len++] = *p++;
            n--;
            if (D->hh_len < 4)
                continue;
            D->hh_len = 0;
            type = D->hh[0];
            len = be24(D->hh + 1);
        }
        if ((type == HS_CLIENT_HELLO || type == HS_SERVER_HELLO) && len <= TLS_HELLO_MAX) {
            if (len <= n) {
                on_handshake(s, d, type, p, len, D->hs_ts);
                p += len;
                n -= len;
                continue;
            }
            if (!ensure_buf(D, len))
                return SAT_E_NOMEM;
            D->buffering = 1;
            D->hs_type = type;
            D->hs_want = len;
            D->hs_have = 0;
            continue;
        }
        on_handshake(s, d, type, NULL, len, D->hs_ts);
        D->hs_skip = len;
    }
    return SAT_OK;
}

static void reset_hs(tls_dir *D)
{
    D->hh_len = 0;
    D->buffering = 0;
    D->hs_skip = 0;
}

/* A record of direction d starts (its header is complete). */
static void on_record_start(tls_state *s, int d, uint8_t type, sat_ts_ns ts)
{
    tls_dir *D = &s->d[d];
    switch (type) {
    case CT_CCS:
        /* 1.3 middlebox-compatibility CCS, or a client's CCS before any
         * ServerHello (1.3 compatibility after a HRR / with early data):
         * meaningless. */
        if (!s->sh_seen || s->is13)
            return;
        if (d == SAT_DIR_S2C && !s->full_evidence)
            s->abbreviated = 1;
        D->encrypted = 1;
        reset_hs(D);
        break;
    case CT_HANDSHAKE:
        if (!D->encrypted || s->is13)
            return;
        if (!D->fin_seen) {
            D->fin_seen = 1;
            if (d == SAT_DIR_S2C)
                set_done(s, ts);
        } else {
            renegotiated(s); /* more handshake after the Finished */
        }
        break;
    case CT_APPDATA:
        if (s->is13 && s->sh_seen && d == SAT_DIR_C2S) {
            /* The client's first protected record after the ServerHello is
             * its Finished (53 bytes and more), or an alert when it rejects
             * the server's flight (an unknown CA): 2 bytes, the inner content
             * type and the AEAD tag (16 bytes; 8 for TLS_AES_128_CCM_8_SHA256). */
            uint32_t tag = s->cipher == 0x1305 ? 8u : 16u;
            if (!s->done && D->rec_left == 2u + 1u + tag)
                fail(s, SAT_ABSENT);
            else
                set_done(s, ts);
        } else if (s->watch_server && d == SAT_DIR_S2C) {
            /* After the client's Finished a server sends its tickets or its
             * answer; an alert-sized record instead is its refusal (a client
             * certificate required and not given, or not accepted). */
            uint32_t tag = s->cipher == 0x1305 ? 8u : 16u;
            s->watch_server = 0;
            s->finished = 1;
            if (D->rec_left == 2u + 1u + tag) {
                s->done = 0;
                s->failed = 1;
                s->alert = SAT_ABSENT;
            }
        }
        break;
    case CT_ALERT:
        D->al_len = 0;
        if (D->encrypted && !s->is13)
            fail(s, SAT_ABSENT);
        break;
    default:
        break;
    }
}

static void on_alert_bytes(tls_state *s, int d, const uint8_t *p, size_t n)
{
    tls_dir *D = &s->d[d];
    if (D->encrypted && !s->is13)
        return;
    while (n > 0 && D->al_len < 2) {
        D->al[D->al_len++] = *p++;
        n--;
        if (D->al_len == 2) {
            /* fatal alerts and close_notify end a handshake; warnings such as
             * SSLv3's no_certificate or no_renegotiation do not */
            if (D->al[0] == 2 || D->al[1] == 0)
                fail(s, D->al[1]);
            D->al_len = 0;
        }
    }
}

/* SSLv2-format record: the client's CLIENT-HELLO or a v2 server's
 * SERVER-HELLO (RFC 5246 E.2; SSL 2.0 draft). Body is the whole record. */
static void on_ssl2_record(tls_state *s, int d, const uint8_t *b, uint32_t n, sat_ts_ns ts)
{
    sat_cursor c = sat_cursor_make(b, n);
    uint8_t type = sat_cursor_u8(&c);
    if (d == SAT_DIR_C2S) {
        if (type != 1 || s->ch_seen)
            return;
        uint16_t ver = sat_cursor_be16(&c);
        sat_cursor_be16(&c); /* cipher specs length */
        uint16_t sid_len = sat_cursor_be16(&c);
        if (c.err)
            return;
        s->ch_seen = 1;
        s->ssl2 = 1;
        s->flags |= SAT_TLSF_SSL2_HELLO;
        s->ts = ts;
        s->offered_version = ver;
        if (sid_len)
            s->offered |= SAT_TLS_RESUME_SESSION_ID;
        return;
    }
    if (type != 4 || s->sh_seen)
        return;
    uint8_t hit = sat_cursor_u8(&c);
    sat_cursor_u8(&c); /* certificate type */
    uint16_t ver = sat_cursor_be16(&c);
    if (c.err)
        return;
    s->sh_seen = 1;
    s->sh_ts = ts;
    s->version = ver ? ver : 0x0002;
    s->v2_resumed = hit ? 1 : 0;
    s->finished = 1; /* SSLv2's encrypted remainder is not followed */
}

/* ---- data / gap / end --------------------------------------------------------------------- */
static int tls_data(void *st, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    tls_state *s = (tls_state *)st;
    if (!s || (dir != SAT_DIR_C2S && dir != SAT_DIR_S2C))
        return SAT_OK;
    tls_dir *D = &s->d[dir];
    D->bytes += n;
    D->last_ts = ts;
    if (dir == SAT_DIR_S2C && n)
        s->c2s_tail = 0;
    else if (dir == SAT_DIR_C2S && s->done)
        s->c2s_tail += n; /* only bytes delivered after the handshake */
    if (s->client_gone && dir == SAT_DIR_S2C)
        return SAT_OK; /* answers to a client that has left (tls_closed) */
    if (n && !D->started) {
        D->started = 1;
        /* an SSLv2-format record can only open a direction: a v2 ClientHello,
         * or a v2-only server's SERVER-HELLO answering it */
        /* (a TLS record type never has the high bit set; the record's body
         * says whether it really is a v2 hello) */
        if ((p[0] & 0x80) && (dir == SAT_DIR_C2S || s->ssl2))
            D->v2_record = 1;
    }
    while (n > 0 && !D->dead && !s->finished) {
        if (D->rec_left == 0 && D->rh_len < (D->v2_record ? 2 : 5)) {
            size_t hlen = D->v2_record ? 2u : 5u;
            if (D->rh_len == 0 && n >= hlen) {
                memcpy(D->rh, p, hlen);
                D->rh_len = (uint8_t)hlen;
                p += hlen;
                n -= hlen;
            } else {
                D->rh[D->rh_len++] = *p++;
                n--;
                if (D->rh_len < hlen)
                    continue;
            }
            if (D->v2_record) {
                uint32_t len = ((uint32_t)(D->rh[0] & 0x7f) << 8) | D->rh[1];
                if (len == 0 || !ensure_buf(D, len)) {
                    D->dead = 1;
                    break;
                }
                D->rec_left = len;
                D->hs_have = 0;
                D->hs_ts = ts;
                continue;
            }
            uint8_t type = D->rh[0];
            uint32_t len = ((uint32_t)D->rh[3] << 8) | D->rh[4];
            if (type < CT_CCS || type > CT_HEARTBEAT || D->rh[1] != 3 || D->rh[2] > 4 ||
                len > TLS_RECORD_MAX) {
                D->dead = 1; /* not (or no longer) a TLS record stream */
                break;
            }
            D->rec_type = type;
            D->rec_left = len;
            on_record_start(s, dir, type, ts);
            if (len == 0)
                D->rh_len = 0;
            continue;
        }
        size_t k = D->rec_left < n ? D->rec_left : n;
        if (D->v2_record) {
            memcpy(D->buf + D->hs_have, p, k);
            D->hs_have += (uint32_t)k;
        } else if (D->rec_type == CT_HANDSHAKE) {
            if (!D->encrypted) {
                int rc = hs_feed(s, dir, ts, p, k);
                if (rc < 0)
                    return rc;
            }
        } else if (D->rec_type == CT_ALERT) {
            on_alert_bytes(s, dir, p, k);
        }
        p += k;
        n -= k;
        D->rec_left -= (uint32_t)k;
        if (D->rec_left == 0) {
            D->rh_len = 0;
            if (D->v2_record) {
                D->v2_record = 0;
                on_ssl2_record(s, dir, D->buf, D->hs_have, D->hs_ts);
                D->hs_have = 0;
            }
        }
    }
    return SAT_OK;
}

static int tls_gap(void *st, int dir, sat_ts_ns ts, size_t n)
{
    tls_state *s = (tls_state *)st;
    (void)ts;
    if (!s || (dir != SAT_DIR_C2S && dir != SAT_DIR_S2C) || n == 0)
        return SAT_OK;
    /* record boundaries are lost: a resync by guessing headers could invent
     * messages, so this direction is no longer parsed */
    s->d[dir].dead = 1;
    s->d[dir].bytes += n;
    return SAT_OK;
}

/* The client's FIN before any ServerHello: it gave up (a timeout). A
 * ServerHello that comes later answers nobody (a frozen server catching up,
 * the client's kernel answering with a RST): the handshake stays incomplete. */
static int tls_closed(void *st, int dir, sat_ts_ns ts)
{
    tls_state *s = (tls_state *)st;
    (void)ts;
    if (s && dir == SAT_DIR_C2S && !s->sh_seen)
        s->client_gone = 1;
    return SAT_OK;
}

/* The client is leaving: is a request of its unanswered? A handshake the
 * server began but did not finish is (an alert ended it: not). After the
 * handshake the records are encrypted, so the size of what the client sent
 * after the server's last bytes decides: more than the largest encrypted
 * close_notify alert (85 bytes: a TLS 1.2 CBC-SHA384 record; 24 in TLS 1.3,
 * 31 with 1.2 AES-GCM) is a request, anything smaller is a goodbye. Bytes of
 * the segment that finished the handshake are not looked at, so a request
 * sent with the client's TLS 1.3 Finished is missed. */
static int tls_awaiting(void *st)
{
    const tls_state *s = (const tls_state *)st;
    if (!s || (!s->ch_seen && !s->sh_seen))
        return -1;
    if (s->failed)
        return 0;
    if (!s->done)
        return 1;
    return s->c2s_tail > 85;
}

static int tls_end(void *st, int how, sat_ts_ns ts)
{
    tls_state *s = (tls_state *)st;
    (void)how;
    (void)ts;
    if (!s || s->emitted)
        return SAT_OK;
    s->emitted = 1;
    if (!s->ch_seen && !s->sh_seen)
        return SAT_OK; /* no handshake seen: nothing to say */

    sat_tls_hs h;
    memset(&h, 0, sizeof h);
    h.ts = s->ts;
    h.server_hello_ts = s->sh_seen ? s->sh_ts : 0;
    h.done_ts = s->done ? s->done_ts : 0;
    h.source = s->flow.source;
    h.flow = s->flow.flow;
    h.client_ip = s->flow.client_ip;
    h.server_ip = s->flow.server_ip;
    h.client_port = s->flow.client_port;
    h.server_port = s->flow.server_port;
    h.sni = s->sni_present ? sat_str_make(s->sni, s->sni_len) : SAT_STR_NONE;
    h.offered_version = s->offered_version;
    h.version = s->sh_seen ? s->version : 0;
    h.cipher = s->sh_seen ? s->cipher : 0;
    h.offered = s->offered;
    h.flags = s->flags;
    h.alert = s->failed ? s->alert : SAT_ABSENT;
    h.resumed_by = SAT_TLS_RESUME_NONE;

    if (s->failed) {
        h.outcome = SAT_TLS_FAILED;
    } else if (!s->sh_seen) {
        h.outcome = SAT_TLS_INCOMPLETE;
    } else if (s->version == 0x0002) {
        h.outcome = s->v2_resumed ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (s->v2_resumed)
            h.resumed_by = SAT_TLS_RESUME_SESSION_ID;
    } else if (s->is13) {
        h.outcome = s->sh_psk ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (s->sh_psk)
            h.resumed_by = SAT_TLS_RESUME_PSK;
    } else {
        int echo = s->ch_seen && s->ch_sid_len > 0 && s->ch_sid_len == s->sh_sid_len &&
                   memcmp(s->ch_sid, s->sh_sid, s->ch_sid_len) == 0;
        int resumed = s->full_evidence ? 0 : s->abbreviated ? 1 : echo;
        h.outcome = resumed ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (resumed) {
            if (!s->ch_seen)
                h.resumed_by = s->sh_sid_len ? SAT_TLS_RESUME_SESSION_ID : SAT_TLS_RESUME_TICKET;
            else if (s->offered & SAT_TLS_RESUME_TICKET)
                h.resumed_by = SAT_TLS_RESUME_TICKET;
            else
                h.resumed_by = SAT_TLS_RESUME_SESSION_ID;
        }
    }
    h.duration = (s->ch_seen && s->done && s->done_ts >= s->ts) ? s->done_ts - s->ts : SAT_ABSENT;
    if (!s->ctx.sink)
        return SAT_OK;
    return sat_sink_emit(s->ctx.sink, SAT_TABLE_TLS_HS, &h);
}

const sat_stream_dissector sat_dissect_tls = {
    "tls", tls_sniff, tls_create, tls_data, tls_gap, tls_end, tls_destroy, tls_closed,
    tls_awaiting,
};
