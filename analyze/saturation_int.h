/*
 * saturation_int.h - (private to analyze/saturation*.c) the saturation
 * analyzer's state: its records, whose counters are named once in X-macro
 * lists that give their fields and their merge (acc.h) and, for a capture's
 * seconds, the result's columns too.
 *   saturation.c         create/free, the rows, merge;
 *   saturation_result.c  the result from the state: the points, the USL fit
 *                        (usl.c), where the server runs now, the what-ifs
 *                        and the TLS capacity.
 */
#ifndef SAT_ANALYZE_SATURATION_INT_H
#define SAT_ANALYZE_SATURATION_INT_H

#include "satscope/analyze.h"

#include "acc.h"
#include "winseries.h"

#define SAT_WINDOWS_MAX 4096
#define SAT_ADDED_MAX 100000

/* What a window of operations counts, X(field, key, title, note) (the
 * points are made from them, not written field by field: no keys). */
#define SAT_WIN_COUNTS(X)                                                                     \
    X(ops, NULL, NULL, NULL)        /* answered */                                            \
    X(timed, NULL, NULL, NULL)      /* of them, with a latency (their etime is summed) */     \
    X(wt_n, NULL, NULL, NULL)       /* with a wtime */                                        \
    X(ot_n, NULL, NULL, NULL)       /* with an optime */                                      \
    X(hs_full, NULL, NULL, NULL)    /* TLS handshakes, full */                                \
    X(hs_resumed, NULL, NULL, NULL) /* and resumed */
/* A window; latencies summed in integer ns, so that merged parts give
 * exactly one pass's figures. */
typedef struct sat_win {
    struct sat_win_counts {
        SAT_WIN_COUNTS(SAT_COUNTER_FIELD)
    } n;
    int64_t etime_ns, wtime_ns, optime_ns;
} sat_win;

/* What a second (or wider, past SAT_WINDOWS_MAX) of a capture counts, in the
 * order of the columns of tls_capacity.windows and of the values of
 * tls_capacity (their totals). */
#define SAT_SEC_COUNTS(X)                                                                     \
    X(offered, "offered", NULL, NULL) /* new connections (first SYNs) */                      \
    X(gave_up, "gave_up_unanswered", "gave up", NULL)                                         \
    X(hello_unanswered, "client_hellos_unanswered", "hello unanswered", NULL)                 \
    X(full, "full", NULL, NULL)                                                               \
    X(resumed, "resumed", NULL, NULL)                                                         \
    /* failed after the server's ServerHello: answered at full cost */                        \
    X(failed_sh, "failed_after_server_hello", "failed after SH", NULL)
typedef struct sat_hs_sec {
    SAT_SEC_COUNTS(SAT_COUNTER_FIELD)
} sat_hs_sec;
extern const sat_rec_desc sat_sec_desc;

/* The totals over every row, X(field, key, title, note) (written by hand
 * among the result's other figures: no keys). */
#define SAT_TOTAL_COUNTS(X)                                                                   \
    X(tcp_conns, NULL, NULL, NULL)    /* tcp_conn rows: a capture was read */                 \
    X(ops, NULL, NULL, NULL)          /* answered operations */                               \
    X(timed, NULL, NULL, NULL)        /* of them, with a latency */                           \
    X(skipped, NULL, NULL, NULL)      /* not counted (internal, persistent, no RESULT) */     \
    X(wt_n, NULL, NULL, NULL)                                                                 \
    X(ot_n, NULL, NULL, NULL)                                                                 \
    X(hs_full, NULL, NULL, NULL)                                                              \
    X(hs_resumed, NULL, NULL, NULL)                                                           \
    X(hs_failed_sh, NULL, NULL, NULL) /* failed after the ServerHello: full cost, no share */ \
    X(http_reqs, NULL, NULL, NULL)    /* of ops, HTTP requests */                             \
    X(http_inputs, NULL, NULL, NULL)  /* HTTP logs read */                                    \
    X(http_no_rt, NULL, NULL, NULL)   /* of them, those that log no response time */
typedef struct sat_totals {
    struct sat_total_counts {
        SAT_TOTAL_COUNTS(SAT_COUNTER_FIELD)
    } n;
    int64_t wtime_ns, optime_ns;
    sat_ts_ns first_ts, last_ts; /* of the operations */
} sat_totals;

/* A measured point (from a load test's CSV). */
typedef struct sat_nx {
    double n, x;
} sat_nx;

struct sat_saturation {
    sat_saturation_opts opts;
    sat_dur_ns window;
    sat_strtab windows; /* int64 window index -> sat_win */
    sat_dur_ns hs_step;
    sat_strtab hs_secs; /* int64 index at hs_step -> sat_hs_sec */
    sat_totals t;
    sat_nx *added;      /* in the order added */
    size_t nadded, cap_added;
    int nomem;
};

#endif
