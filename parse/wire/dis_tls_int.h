/*
 * dis_tls_int.h - (private to the TLS stream dissector, parse/wire/dis_tls*.c) the
 * state its files share: a connection's per-direction record and handshake
 * state, what the hellos said, the content and handshake types it knows, and
 * the functions one file calls in another.
 *   dis_tls.c        the record layer (data, gap, the client's FIN, whether
 *                    it awaits an answer), sniffing, the dissector table;
 *   dis_tls_hello.c  the ClientHello and ServerHello bodies;
 *   dis_tls_hs.c     the handshake stream, record starts, alerts, SSLv2
 *                    records: how the first handshake goes;
 *   dis_tls_row.c    its classification, written as one sat_tls_hs row.
 * The specs and the classification rules are in dis_tls.c's opening comment.
 *
 * Ownership: one malloc'd tls_state per connection (and a hello buffer);
 * the row handed to the sink borrows the flow table's addresses.
 */
#ifndef SAT_PARSE_DIS_TLS_INT_H
#define SAT_PARSE_DIS_TLS_INT_H

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
    size_t buf_cap;
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

/* ---- dis_tls_hello.c: the ClientHello and ServerHello bodies ------------------- */
void sat_dt_parse_client_hello(tls_state *s, const uint8_t *b, size_t n);
void sat_dt_parse_server_hello(tls_state *s, const uint8_t *b, size_t n);

/* ---- dis_tls_hs.c: the handshake's course, record by record --------------------- */
int sat_dt_ensure_buf(tls_dir *D, uint32_t need);
int sat_dt_hs_feed(tls_state *s, int d, sat_ts_ns ts, const uint8_t *p, size_t n);
void sat_dt_on_record_start(tls_state *s, int d, uint8_t type, sat_ts_ns ts);
void sat_dt_on_alert_bytes(tls_state *s, int d, const uint8_t *p, size_t n);
void sat_dt_on_ssl2_record(tls_state *s, int d, const uint8_t *b, uint32_t n, sat_ts_ns ts);

/* ---- dis_tls_row.c: the classification, the sat_tls_hs row ---------------------- */
int sat_dt_tls_end(void *st, int how, sat_ts_ns ts);

#endif
