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

enum { SAT_HS_NOUT = SAT_TLS_OUTCOME__COUNT }; /* counts[] index = enum sat_tls_outcome */

/* Counts only (merged exactly); cpu_s is made from them by sat_hs_finish. */
typedef struct sat_hs_counts {
    uint64_t n[SAT_HS_NOUT]; /* [SAT_TLS_FULL] ... [SAT_TLS_INCOMPLETE]; [0] unused */
    uint64_t connections;    /* rows */
    uint64_t failed_after_server_hello; /* of n[SAT_TLS_FAILED]: the server had
                                           answered (certificate, key exchange) before
                                           the alert; charged as full handshakes */
    uint64_t resumed_psk;    /* of n[SAT_TLS_RESUMED]: by a TLS 1.3 PSK (its cost) */
    double cpu_s;            /* estimated server CPU (in the view) */
} sat_hs_counts;

typedef struct sat_hs_window {
    sat_ts_ns start_ts;
    sat_hs_counts c;
} sat_hs_window;

typedef struct sat_hs_group {
    const char *key;
    sat_hs_counts c;
} sat_hs_group;

typedef struct sat_hs_version {
    uint16_t version;        /* as the ServerHello chose; 0 = no ServerHello */
    uint64_t count;
} sat_hs_version;

/* Handshakes an HTTP access log tells of (analyze/handshakes_http.c): a
 * connection's first request (conn_request == 1: nginx $connection_requests,
 * Apache %k + 1) carries its handshake, full or resumed as the log's flag
 * says ($ssl_session_reused, %{SSL_SESSION_RESUMED}x), the rest of its
 * requests repeat it. Requests whose number on their connection is not
 * logged cannot be told apart: they are counted per request, not as
 * handshakes. Kept apart from the captures' (the same period's capture and
 * log tell of the same handshakes). */
typedef struct sat_hs_log_view {
    uint64_t requests;        /* http_req rows */
    sat_hs_counts c;          /* the first requests: connections, n[SAT_TLS_FULL],
                                 n[SAT_TLS_RESUMED], resumed_psk (TLS 1.3), cpu_s */
    uint64_t session_unknown; /* of the first requests: no flag (not logged, no TLS) */
    uint64_t later_requests;  /* conn_request > 1 */
    uint64_t no_conn_request; /* requests without their number on the connection */
    uint64_t on_new, on_resumed; /* of those: their session's flag */
    sat_ts_ns first_ts, last_ts; /* of every request */
    const sat_hs_window *windows; /* the first requests per window, first to last */
    size_t nwindows;
    sat_dur_ns window;
    /* which fields the HTTP inputs can carry (fields.h) */
    uint32_t fields_known, fields_inputs;
    uint32_t fields_without[SAT_FIELD__COUNT];
    const char *fields_why[SAT_FIELD__COUNT];
} sat_hs_log_view;

typedef struct sat_hs_view {
    sat_hs_counts all;
    double resumed_ratio;    /* resumed / (full + resumed); -1 if neither */
    sat_ts_ns first_ts, last_ts;
    double span_s;
    double rate_per_s;       /* handshakes per second over the span */
    double peak_rate_per_s;  /* the busiest window's */
    sat_ts_ns peak_ts;
    uint64_t resumed_by[3];  /* session id, ticket, PSK */
    uint64_t offered[3];     /* clients offering session id, ticket, PSK */
    uint64_t hrr, renegotiated, ssl2_hello, late_start; /* flags */
    uint64_t retries;        /* failed/incomplete followed by a retry */
    double retry_gap_mean_s;
    /* handshake durations (ClientHello -> done), seconds; -1 if none */
    double full_p50_s, full_p99_s, resumed_p50_s, resumed_p99_s;
    const sat_hs_version *versions; size_t nversions;
    const sat_hs_window *windows; size_t nwindows;
    sat_dur_ns window;       /* the step actually used (widened for long spans) */
    const sat_hs_group *groups; size_t ngroups, groups_total;
    int by;
    uint64_t tcp_conns;      /* tcp_conn rows seen (0 from a trace without them) */
    uint64_t tcp_no_tls;     /* of them, connections without any TLS */
    uint64_t tcp_by_end[SAT_TCP_END__COUNT]; /* how they ended (event.h sat_tcp_end) */
    uint64_t tcp_syn_retrans; /* SYNs the clients had to send again */
    uint64_t tcp_no_synack;  /* connection attempts the server never answered */
    double tcp_rtt_p50_s, tcp_rtt_p99_s; /* SYN -> the client's ACK; -1 if none */
    double full_cost_us, resumed_cost_us, psk_cost_us;
    uint64_t full_measured, resumed_measured; /* handshakes with a duration */
    sat_hs_log_view logs;    /* from HTTP access logs; logs.requests == 0 if none */
} sat_hs_view;

typedef struct sat_hs sat_hs;
sat_hs *sat_hs_create(const sat_hs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_hs_sink(sat_hs *h); /* takes tls_hs, tcp_conn, http_req and source rows */
int sat_hs_finish(sat_hs *h);                   /* SAT_OK or SAT_E_NOMEM */
int sat_hs_merge(sat_hs *into, const sat_hs *from);
const sat_hs_view *sat_hs_get_view(const sat_hs *h); /* after finish; lives until free */
void sat_hs_free(sat_hs *h); /* NULL ok */
/* The finished analyzer's sections (analyze/handshakes_result.c): totals,
 * cost, versions, resumption, durations, retries, tcp, the --by table and
 * the windows. SAT_OK or SAT_E_NOMEM. */
int sat_hs_result(const sat_hs *h, sat_result *r);

#endif /* SATSCOPE_ANALYZE_HANDSHAKES_H */
