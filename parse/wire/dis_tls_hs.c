/*
 * dis_tls_hs.c - how the first handshake goes, for the TLS stream dissector
 * (dis_tls.c): the clear handshake stream reassembled across records (RFC
 * 5246 7.4, RFC 8446 4; only the hellos kept), each record's start (the
 * ChangeCipherSpec, the encrypted Finished, TLS 1.3's protected alerts told
 * by size), alerts, and SSLv2-format records (RFC 5246 E.2).
 */
#include "dis_tls_int.h"

/* RFC 8446 4.1.3: SHA-256("HelloRetryRequest"), the random of a HelloRetryRequest. */
static const uint8_t hrr_random[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

static inline uint32_t be24(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
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
                    sat_dt_parse_client_hello(s, body, len);
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
            sat_dt_parse_server_hello(s, body, len);
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

int sat_dt_ensure_buf(tls_dir *D, uint32_t need)
{
    return SAT_GROW(D->buf, D->buf_cap, need) == SAT_OK;
}

/* The clear handshake stream of direction d (bodies of handshake records). */
int sat_dt_hs_feed(tls_state *s, int d, sat_ts_ns ts, const uint8_t *p, size_t n)
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
            if (!sat_dt_ensure_buf(D, len))
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
void sat_dt_on_record_start(tls_state *s, int d, uint8_t type, sat_ts_ns ts)
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

void sat_dt_on_alert_bytes(tls_state *s, int d, const uint8_t *p, size_t n)
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
void sat_dt_on_ssl2_record(tls_state *s, int d, const uint8_t *b, uint32_t n, sat_ts_ns ts)
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
