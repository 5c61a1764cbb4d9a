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
 *    extension, PSK for pre_shared_key (analyze/handshakes.c counts a TLS
 *    1.3 hello's session id as an offer only when a 1.2 server resumed by it).
 *
 * Timestamps: ts = the data() call that brought the ClientHello's first byte
 * (the ServerHello's when no ClientHello); done_ts = the server's Finished
 * record (<= 1.2, full or resumed) or the client's first application-data
 * record after the ServerHello (1.3: its encrypted Finished).
 *
 * Memory: one malloc per connection (the state) and, only when a ClientHello
 * or ServerHello spans two data() calls, one buffer for it.
 */
#include "dis_tls_int.h"

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
                if (len == 0 || !sat_dt_ensure_buf(D, len)) {
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
            sat_dt_on_record_start(s, dir, type, ts);
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
                int rc = sat_dt_hs_feed(s, dir, ts, p, k);
                if (rc < 0)
                    return rc;
            }
        } else if (D->rec_type == CT_ALERT) {
            sat_dt_on_alert_bytes(s, dir, p, k);
        }
        p += k;
        n -= k;
        D->rec_left -= (uint32_t)k;
        if (D->rec_left == 0) {
            D->rh_len = 0;
            if (D->v2_record) {
                D->v2_record = 0;
                sat_dt_on_ssl2_record(s, dir, D->buf, D->hs_have, D->hs_ts);
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

const sat_stream_dissector sat_dissect_tls = {
    "tls", tls_sniff, tls_create, tls_data, tls_gap, sat_dt_tls_end, tls_destroy, tls_closed,
    tls_awaiting,
};
