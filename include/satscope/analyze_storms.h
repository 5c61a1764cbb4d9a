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
                              (sat_storm.heavy_client; a cause, like the load) */
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

typedef struct sat_storm_sig {
    int rose;                /* above max(2 x base, base + a floor) before/at the start */
    double base;             /* median of the 30 windows before the lead-up; NAN: none */
    double before;           /* the highest of the 3 windows before the start + the first */
    double during;           /* the highest during the storm; NAN if no value */
    sat_ts_ns onset_ts;      /* first window above the threshold (0 none) */
    sat_ts_ns back_ts;       /* first of 3 windows in a row back at or below it (0 never) */
} sat_storm_sig;

typedef struct sat_storm_client {
    const char *client;
    uint64_t events;         /* failures of this client during the storm */
} sat_storm_client;

typedef struct sat_storm {
    sat_ts_ns start_ts, end_ts, peak_ts; /* window starts; end_ts = end of the last */
    uint64_t events, peak_events;
    uint64_t clients;        /* distinct; estimated (4096-bit linear count) past 100,000
                                clients or 250,000 client-windows */
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    double expected;         /* baseline failures per window */
    const sat_storm_client *top; size_t ntop;
    sat_storm_sig sig[SAT_SIG__COUNT];
    int trigger;             /* the risen cause (UNINDEXED, OPS, FULL_HS_SHARE) with the
                                earliest onset, else the earliest risen effect; -1 none */
    int sustained;           /* failures stayed high >= 3 windows after the trigger's back_ts */
    double sustained_s;      /* how long they stayed high past it (0 if not) */
    uint64_t conn_opens;     /* during the storm: reconnect amplification */
    uint64_t hs_full, hs_total;
    uint64_t retries;        /* connections that retried an unanswered one (captures) */
    int ongoing;             /* still high in the last window of the input */
    const char *heavy_client;/* the busiest client of the lead-up (SAT_SIG_HEAVY_CLIENT),
                                NULL if none */
    sat_dur_ns window;       /* the step of its period */
    size_t period;           /* index into sat_storms_view.periods */
} sat_storm;

/* Why a period was analysed at its window (sat_storms_period.why). */
enum sat_storm_window_why {
    SAT_STORM_WIN_OPTION,   /* --window (sat_storms_opts.window) */
    SAT_STORM_WIN_LONGEST,  /* 10 s, the longest step: the period has >= 30 windows of it */
    SAT_STORM_WIN_SHORTER,  /* the longest step giving the period >= 30 windows (a
                               baseline: the detector's warm-up and each storm's look
                               back are 30 windows) */
    SAT_STORM_WIN_SHORTEST  /* 1 s: < 30 windows even so; clients give up after a second
                               or more, shorter windows would cut one wave of give-ups */
};
#define SAT_STORM_BASELINE_WINDOWS 30
#define SAT_STORM_PERIOD_GAP_NS (3600LL * 1000000000LL) /* a silence this long (no row of
                               any input) separates two periods, each analysed on its own */

/* One window of a period at the step it was analysed at. */
typedef struct sat_storms_window {
    uint64_t events;         /* client failures */
    uint64_t ops;            /* external LDAP operations (the load) */
    uint64_t conn_opens;     /* LDAP connections opened + TCP connections */
    uint64_t handshakes;     /* TLS handshakes, full or resumed */
    uint64_t kinds[SAT_STORM_KIND__COUNT]; /* the failures by kind */
    uint64_t http_requests;  /* HTTP requests (ops holds the LDAP operations only) */
} sat_storms_window;

typedef struct sat_storms_period {
    sat_ts_ns start_ts, end_ts; /* its first window's start, its last window's end (at
                                   the finest step counted) */
    sat_dur_ns window;       /* the step it was analysed at */
    sat_dur_ns chosen;       /* the step chosen (window is larger when that series was not
                                kept - a finer one past 4096 windows is dropped - or memory
                                widened it) */
    int why;                 /* enum sat_storm_window_why */
    size_t nwindows;
    int64_t windows_at_longest; /* windows it would have at 10 s (for the why) */
    uint64_t events;         /* failures in it */
    size_t first_storm, nstorms;
    uint64_t busiest_events; /* its window with the most failures */
    sat_ts_ns busiest_ts;
    const char *const *inputs; size_t ninputs; /* inputs whose time range meets it, in the
                                                 order read; paths as given */
    const sat_storms_window *windows; /* its nwindows windows, of `window` each, */
    sat_ts_ns windows_ts;             /* the first starting here */
} sat_storms_period;

typedef struct sat_storms_view {
    sat_dur_ns window;       /* step used (of the first period, when several) */
    sat_ts_ns first_ts, last_ts;
    size_t nwindows;
    uint64_t events;         /* all failures, deduplicated */
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    uint64_t deduped;        /* rows folded into a failure already counted */
    uint64_t retries;        /* connections that retried an unanswered one (captures) */
    uint64_t attempts_lost;  /* TCP connections (retry rule) and requests left at a close
                                past their tables' caps: not looked at */
    uint64_t ldap_ops, ldap_conns, tls_hs, tcp_conns; /* rows seen */
    uint64_t http_reqs;      /* http_req rows seen: when not 0, the HTTP kinds are listed */
    sat_dur_ns slow;         /* the slow threshold in effect (< 0: never) */
    uint64_t http_inputs;    /* HTTP logs read (their source rows); of them, those whose */
    uint64_t http_no_rt;     /* format logs no response time (no slow answers there) */
    uint64_t http_no_conn;   /* ... no request number on its connection (no connections
                                opened, no handshakes there) */
    const sat_storm *storms; size_t nstorms;
    uint64_t busiest_events; /* the window with the most failures, storm or not */
    sat_ts_ns busiest_ts;    /* its start (0 if no failure) */
    sat_dur_ns busiest_window; /* its step */
    int window_auto;         /* 1: no --window, each period's step was chosen */
    const sat_storms_period *periods; size_t nperiods; /* in time order; storms of period
                                                          p are [first_storm, +nstorms) */
} sat_storms_view;

typedef struct sat_storms sat_storms;
sat_storms *sat_storms_create(const sat_storms_opts *opts); /* NULL: out of memory */
sat_event_sink sat_storms_sink(sat_storms *s); /* ldap_op, ldap_conn, tls_hs, tcp_conn,
                                                  http_req */
int sat_storms_finish(sat_storms *s);          /* SAT_OK or SAT_E_NOMEM */
int sat_storms_merge(sat_storms *into, const sat_storms *from);
const sat_storms_view *sat_storms_get_view(const sat_storms *s); /* after finish */
void sat_storms_free(sat_storms *s); /* NULL ok */
/* The finished analyzer's sections (analyze/storms_result.c names them). */
int sat_storms_result(const sat_storms *s, sat_result *r);

#endif /* SATSCOPE_ANALYZE_STORMS_H */
