/*
 * analyze_storms.h - the storms analyzer (analyze/storms*.c), part of
 * analyze.h: client failures above their baseline and their cause.
 */
#ifndef SATSCOPE_ANALYZE_STORMS_H
#define SATSCOPE_ANALYZE_STORMS_H

#include "satscope/analyze_handshakes.h"

/* ---- the storms analyzer (analyze/storms.c) ----------------------------
 * Client failures (abandons, timeouts, busy answers, abrupt closes, abandoned
 * TLS handshakes, client resets, SYN retries; HTTP 408 499 502 503 504 and slow
 * answers) counted per window, a Poisson
 * CUSUM against the series' own robust baseline (the detector is documented
 * in analyze/storms.c), adjacent alarmed windows merged into storms, and per
 * storm what rose before it and whether it outlived its trigger. */
enum sat_storm_kind {
    SAT_STORM_ABANDON,        /* ldap_op ABANDON */
    SAT_STORM_ERR_TIMELIMIT,  /* result err=3 */
    SAT_STORM_ERR_ADMINLIMIT, /* err=11 */
    SAT_STORM_ERR_BUSY,       /* err=51 */
    SAT_STORM_ERR_UNAVAILABLE,/* err=52 */
    SAT_STORM_ERR_OTHER,      /* err=80 */
    SAT_STORM_CLOSE_A1, SAT_STORM_CLOSE_B1, SAT_STORM_CLOSE_B4,
    SAT_STORM_CLOSE_T1, SAT_STORM_CLOSE_T2, SAT_STORM_CLOSE_T3,
    SAT_STORM_TLS_INCOMPLETE, /* ClientHello never answered before the client left */
    SAT_STORM_TLS_FAILED,     /* an alert ended the handshake */
    SAT_STORM_RST_CLIENT,     /* the client reset the connection */
    SAT_STORM_SYN_RETRY,      /* the client had to send its SYN again, and sent nothing on
                                 the connection (answered too late, it gave up at once) */
    SAT_STORM_FIN_WAITING,    /* the client closed (FIN) with a request unanswered */
    SAT_STORM_RETRIED,        /* the client gave up on a connection the server had not
                                 answered and connected again within opts.retry_window
                                 (counted on the connection given up) */
    SAT_STORM_CLOSED_WAITING, /* a log's connection closed while a request of it had no
                                 RESULT (OpenLDAP's "closed (connection lost)" after a
                                 BIND the frozen server never answered) */
    SAT_STORM_SYN_UNANSWERED, /* a connection attempt the server never answered (no
                                 SYN/ACK: a full listen queue drops SYNs) before the
                                 client gave up (tcp_conn SAT_TCPF_SYN_GAVE_UP) */
    /* HTTP requests (http_req rows, analyze/storms_http.c): one failure per request */
    SAT_STORM_HTTP_408,       /* Request Timeout: the server gave up on a client that sent
                                 its request too slowly, or none */
    SAT_STORM_HTTP_499,       /* nginx's: the client closed before the response began */
    SAT_STORM_HTTP_502,       /* Bad Gateway: the upstream failed */
    SAT_STORM_HTTP_503,       /* Service Unavailable: overload, rate limits (limit_req) */
    SAT_STORM_HTTP_504,       /* Gateway Timeout: the upstream did not answer in time */
    SAT_STORM_SLOW,           /* answered, but in sat_storms_opts.slow or more: the client
                                 had given up (another status: the statuses above win) */
    SAT_STORM_KIND__COUNT
};
const char *sat_storm_kind_name(int k); /* "abandon", "time_limit", ... "http_503", "slow" */
#define SAT_STORM_KIND_HTTP_FIRST SAT_STORM_HTTP_408 /* the kinds of HTTP requests: from here */
#define SAT_STORMS_SLOW_DEFAULT ((sat_dur_ns)1000000000) /* 1 s (sat_storms_opts.slow) */

/* Signals looked at before each storm (the chain a storm report shows). */
enum sat_storm_signal {
    SAT_SIG_UNINDEXED,     /* unindexed searches (notes A or U) per window */
    SAT_SIG_OPS,           /* external operations + HTTP requests per window (the load) */
    SAT_SIG_FULL_HS_SHARE, /* full / (full + resumed) TLS handshakes */
    SAT_SIG_ETIME_P90,     /* seconds, nearest rank over a log histogram (+-12%) */
    SAT_SIG_WTIME_MEAN,    /* seconds (queue wait) */
    SAT_SIG_CONN_OPENS,    /* LDAP connections opened + TCP connections per window */
    SAT_SIG_HS_ANSWER_P90, /* seconds from ClientHello to ServerHello, p90 (log histogram,
                              +-12%); a ClientHello never answered counts as the longest */
    SAT_SIG_HEAVY_CLIENT,  /* operations per window of the busiest client of the lead-up
                              (the storm's heavy_client; a cause, like the load) */
    SAT_SIG_SERVICE_TIME,  /* seconds: mean optime (the work, without the queue wait) of
                              the indexed searches under a second: slow storage, a lock */
    SAT_SIG_LONG_SEARCHES, /* searches whose work took a second or more, not marked
                              unindexed, per window: a batch where the log cannot mark
                              unindexed searches (OpenLDAP) */
    SAT_SIG__COUNT
};
const char *sat_storm_signal_name(int s); /* "unindexed", "ops", ... */

typedef struct sat_storms_opts {
    sat_dur_ns window;   /* 0 = chosen per period of the input (1, 2, 5 or 10 s:
                            sat_storms_period.why); widened (doubling) past 4096 windows */
    size_t top_clients;  /* clients listed per storm, 0 = 5 */
    sat_dur_ns retry_window; /* a new connection this soon after an unanswered one
                                from the same client to the same server is its retry;
                                0 = 10 s (as sat_hs_opts) */
    sat_dur_ns slow;         /* an HTTP request answered in this long or more is a failure
                                (kind slow: its client had most likely given up); 0 =
                                SAT_STORMS_SLOW_DEFAULT, < 0 = never */
} sat_storms_opts;

/* The detector on a bare series of counts (one per window): fills up to
 * `cap` spans, returns how many storms it found (may exceed cap). */
typedef struct sat_storm_span {
    size_t start, end, peak; /* window indexes, end inclusive */
    double expected;         /* the baseline per window when it began */
} sat_storm_span;
/* floor: the least baseline a window is measured against (<= 0: 0.5) */
size_t sat_storms_detect(const uint64_t *counts, size_t n, double floor, sat_storm_span *spans,
                         size_t cap);

/* The storms a finished analyzer found: private to analyze/ (storms_found.h),
 * named here only while the crashes analyzer's public view (analyze_crashes.h)
 * holds a pointer to them. Every other reader reads the result. */
typedef struct sat_storms_view sat_storms_view;

typedef struct sat_storms sat_storms;
sat_storms *sat_storms_create(const sat_storms_opts *opts); /* NULL: out of memory */
sat_event_sink sat_storms_sink(sat_storms *s); /* ldap_op, ldap_conn, tls_hs, tcp_conn,
                                                  http_req */
int sat_storms_finish(sat_storms *s);          /* SAT_OK or SAT_E_NOMEM */
int sat_storms_merge(sat_storms *into, const sat_storms *from);
/* Its state after rows and merges, before finish, as bytes and back into a
 * fresh analyzer made with the same options (analyze/storms_state.c,
 * analyze/state_io.h). SAT_OK, SAT_E_NOMEM, or (load) SAT_E_CORRUPT. */
struct sat_sw;
struct sat_sr;
int sat_storms_save(const sat_storms *s, struct sat_sw *w);
int sat_storms_load(sat_storms *s, struct sat_sr *r);
void sat_storms_free(sat_storms *s); /* NULL ok */
/* The finished analyzer's sections (analyze/storms_result.c names them). */
int sat_storms_result(const sat_storms *s, sat_result *r);

#endif /* SATSCOPE_ANALYZE_STORMS_H */
