/*
 * timeline_int.h - (internal to analyze/timeline*.c) the timeline analyzer's
 * state, shared by timeline.c (rows, merge, finish) and timeline_result.c
 * (its sections). Every accumulator is a record described once (acc.h), so
 * that a merge is a walk: counts and integer ns sums, exact. The counters of
 * a record are named once, in an X-macro list, X(field, key, title, note)
 * (key NULL: counted and merged, not written), that gives its fields, its
 * merge and, for the totals, the summary values.
 */
#ifndef SAT_ANALYZE_TIMELINE_INT_H
#define SAT_ANALYZE_TIMELINE_INT_H

#include "satscope/analyze.h"

#include "acc.h"
#include "winseries.h"

/* One window (of the series or of the hour series). Payloads of a strtab
 * start zeroed, so the etime extremes are MAX fields whose 0 means none:
 * et_max itself (etimes are >= 0) and et_min_inv = INT64_MAX - the least
 * etime. */
/* HTTP requests by method (TL_M_OTHER: any other, TL_M_NONE: no request line)
 * and by status class (index 1..5 for 1xx..5xx, 0: none logged or another). */
enum { TL_M_GET, TL_M_HEAD, TL_M_POST, TL_M_PUT, TL_M_DELETE, TL_M_PATCH, TL_M_OPTIONS,
       TL_M_OTHER, TL_M_NONE, TL_METHODS };
#define TL_CLASSES 6
extern const char *const tl_method_names[TL_METHODS];
extern const char *const tl_class_names[TL_CLASSES];

/* A window: count, errors, timed, the etimes and concurrency are of LDAP
 * operations and HTTP requests together (what the server did); reqs and
 * their methods and classes are the HTTP requests'. Its columns are written
 * one by one with the computed ones (timeline_result.c), hence no keys. */
#define TL_WIN_COUNTS(X)                                                                     \
    X(count, NULL, NULL, NULL)                                                               \
    X(errors, NULL, NULL, NULL)                                                              \
    X(timed, NULL, NULL, NULL)  /* with an etime (or a response time) */                     \
    X(answered, NULL, NULL, NULL) /* answered in the window (by the time of the answer) */   \
    X(wt_n, NULL, NULL, NULL)   /* with a wtime */                                           \
    X(ot_n, NULL, NULL, NULL)   /* with an optime */                                         \
    X(opened, NULL, NULL, NULL) /* connections */                                            \
    X(closed, NULL, NULL, NULL)                                                              \
    X(reqs, NULL, NULL, NULL)
typedef struct tl_win {
    TL_WIN_COUNTS(SAT_COUNTER_FIELD)
    uint64_t ops[SAT_OP__COUNT];
    uint64_t closes[SAT_CLOSE__COUNT];
    uint64_t hist[SAT_TL_BINS];
    uint64_t methods[TL_METHODS], classes[TL_CLASSES];
    int64_t etime_ns, wtime_ns, optime_ns;
    int64_t et_max, et_min_inv;
} tl_win;
extern const sat_rec_desc tl_win_desc;

/* The totals over every row: of the LDAP operations and connections, in the
 * order the summary writes them (sat_rec_put); of the HTTP requests (errors:
 * status 400 or more, as etime counts them), written only when there are
 * some. */
#define TL_TOT_COUNTS(X)                                                                     \
    X(ops, "operations", NULL, NULL)                                                         \
    X(undated, "undated", NULL, NULL)                                                        \
    X(timed, "timed", NULL, NULL)                                                            \
    X(errors, "errors", NULL, NULL)                                                          \
    X(conns, "connections", NULL, NULL)                                                      \
    X(wt_n, NULL, NULL, NULL)                                                                \
    X(ot_n, NULL, NULL, NULL)                                                                \
    X(conns_no_open, NULL, NULL, NULL) /* opened before the input began */                  \
    X(opened, NULL, NULL, NULL)                                                              \
    X(closed, NULL, NULL, NULL)
#define TL_REQ_COUNTS(X)                                                                     \
    X(count, "requests", NULL, NULL)                                                         \
    X(errors, "request_errors", NULL, NULL)                                                  \
    X(timed, "requests_timed", NULL, NULL)                                                   \
    X(undated, "requests_undated", NULL, NULL)
typedef struct tl_req_tot {
    TL_REQ_COUNTS(SAT_COUNTER_FIELD)
} tl_req_tot;
extern const sat_rec_desc tl_req_tot_desc;

typedef struct tl_tot {
    TL_TOT_COUNTS(SAT_COUNTER_FIELD)
    uint64_t by_type[SAT_OP__COUNT];
    uint64_t closes[SAT_CLOSE__COUNT];
    uint64_t hist[SAT_OP__COUNT][SAT_TL_BINS]; /* etimes by operation type */
    int64_t et_max[SAT_OP__COUNT], et_min_inv[SAT_OP__COUNT];
    sat_ts_ns first_ts, last_ts; /* of the dated operations and connection events */
    tl_req_tot req;
    uint64_t methods[TL_METHODS], classes[TL_CLASSES];
    uint64_t req_hist[SAT_TL_BINS];
    int64_t req_et_max, req_et_min_inv;
} tl_tot;
extern const sat_rec_desc tl_tot_desc;

/* An input as its source row gave it (strings copied). */
typedef struct tl_src {
    uint32_t id;
    char *path, *kind, *format;
    sat_ts_ns first_ts, last_ts;
    uint64_t lines, bytes, rejects;
    int32_t utc_offset_s;
    uint8_t truncated;
} tl_src;

/* The time of the crashes of one core (by source id): a core holds no clock,
 * so its place on the axis is its crashes' time when that came from
 * something other than the file's modification time (event.h
 * sat_crash_time_source), which a copy resets. */
typedef struct tl_core {
    sat_ts_ns first_ts, last_ts; /* of its crashes dated by name, log or option; 0 none */
    uint64_t time_sources;       /* bit per sat_crash_time_source seen */
} tl_core;
extern const sat_rec_desc tl_core_desc;

struct sat_timeline {
    tl_tot t;
    sat_strtab win;   /* int64 index at `step` -> tl_win */
    int64_t step;     /* ns, a rung of the ladder (timeline.c) */
    size_t max_windows; /* the most windows `step` may give over the span */
    sat_strtab hrs;   /* int64 index at `hstep` -> tl_win: the hour series */
    int64_t hstep;    /* 900 s (quarter hours, so that any local hour is whole), wider
                         past SAT_TL_HOUR_BUCKETS_MAX */
    sat_strtab cores; /* uint32 source id -> tl_core */
    tl_src *src;
    size_t nsrc, capsrc; /* grown by SAT_GROW */
    int nomem;
};

#define SAT_TL_HOUR_BUCKETS_MAX 8000
/* The longest span with a minute series (timeline_result.c put_minutes). */
#define SAT_TL_MINUTES_SPAN (3 * 3600 * 1000000000LL)

/* Whether step is a rung of the series' ladder (hour: the hour series'). */
int tl_step_valid(int64_t step, int hour);
/* The windows [first, last] spans at step (both indices inclusive). */
int64_t tl_nwin(sat_ts_ns first, sat_ts_ns last, int64_t step);
/* The percentile q (0..1) of a histogram with its extremes, in seconds;
 * NAN when n is 0. */
double tl_percentile(const uint64_t *hist, uint64_t n, int64_t et_max, int64_t et_min_inv,
                     double q);

#endif
