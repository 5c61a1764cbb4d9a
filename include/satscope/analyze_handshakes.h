/*
 * analyze_handshakes.h - the handshakes analyzer (analyze/handshakes*.c),
 * part of analyze.h: TLS handshakes on the wire, what they cost.
 */
#ifndef SATSCOPE_ANALYZE_HANDSHAKES_H
#define SATSCOPE_ANALYZE_HANDSHAKES_H

#include "satscope/event.h"
#include "satscope/fields.h"
#include "satscope/result.h"

/* ---- the handshakes analyzer (analyze/handshakes.c) --------------------
 * TLS handshakes seen on the wire (tls_hs rows): full / resumed / failed /
 * incomplete, the resumed ratio, when (fixed windows), from whom (--by), how
 * long they took, what they cost the server, and how often a client that
 * failed or gave up came back within retry_window (a retry). */
enum sat_hs_by { SAT_HS_BY_NONE, SAT_HS_BY_CLIENT, SAT_HS_BY_SERVER, SAT_HS_BY_SNI };
int sat_hs_by_parse(const char *s); /* "client", "server", "sni" (also "none"); < 0 if unknown */

/* Server CPU per handshake, defaults measured on this project's machine with
 * `openssl speed` (bench/RESULTS.md): a full handshake = an RSA-2048 signature
 * (268 us) + an X25519 exchange (2 x 28 us); a TLS <= 1.2 resumption = the PRF
 * and record keys only; a TLS 1.3 PSK resumption = psk_dhe_ke (OpenSSL's
 * default): one X25519 exchange. */
#define SAT_HS_FULL_COST_US_DEFAULT 330.0
#define SAT_HS_RESUMED_COST_US_DEFAULT 3.0
#define SAT_HS_PSK_COST_US_DEFAULT 60.0

typedef struct sat_hs_opts {
    sat_dur_ns window;        /* time series step; 0 = 10 s */
    sat_dur_ns retry_window;  /* a retry = the same client to the same server
                                 within this after a failed/incomplete one; 0 = 10 s */
    int by;                   /* enum sat_hs_by */
    size_t top;               /* rows in the --by table; 0 = 20 */
    double full_cost_us, resumed_cost_us, psk_cost_us; /* 0 = the defaults */
} sat_hs_opts;

typedef struct sat_hs sat_hs;
sat_hs *sat_hs_create(const sat_hs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_hs_sink(sat_hs *h); /* takes tls_hs, tcp_conn, http_req, ldap_conn
                                          and source rows */
int sat_hs_finish(sat_hs *h);                   /* SAT_OK or SAT_E_NOMEM */
int sat_hs_merge(sat_hs *into, const sat_hs *from);
void sat_hs_free(sat_hs *h); /* NULL ok */
/* The finished analyzer's sections (analyze/handshakes_result.c): totals,
 * cost, versions, resumption, durations, retries, tcp, the --by table, the
 * windows, what HTTP access logs tell ("logs") and the TLS connections of
 * directory-server logs ("dirlogs"); docs/output.md lists the keys. SAT_OK or SAT_E_NOMEM. */
int sat_hs_result(const sat_hs *h, sat_result *r);
/* Its state before finish as bytes and back, into a fresh instance made with
 * the same options (analyze/handshakes_state.c, analyze/state_io.h). SAT_OK,
 * SAT_E_NOMEM, or (load) SAT_E_CORRUPT with the reader's message. */
struct sat_sw;
struct sat_sr;
int sat_hs_save(const sat_hs *h, struct sat_sw *w);
int sat_hs_load(sat_hs *h, struct sat_sr *r);

#endif /* SATSCOPE_ANALYZE_HANDSHAKES_H */
