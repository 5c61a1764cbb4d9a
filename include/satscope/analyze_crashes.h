/*
 * analyze_crashes.h - the crashes analyzer (analyze/crashes*.c), part of
 * analyze.h: crashes, their stacks, groups and the load before them.
 */
#ifndef SATSCOPE_ANALYZE_CRASHES_H
#define SATSCOPE_ANALYZE_CRASHES_H

#include "satscope/analyze_storms.h"

/* ---- the crashes analyzer (analyze/crashes.c) --------------------------
 * Crash and frame rows joined on (source, crash); per crash its crashing
 * thread's frames, the other threads grouped by identical stacks, the
 * groups of crashes by fingerprint, and, when operations, connections or
 * handshakes of the same period were read too, the load and the storms in
 * the minute before each crash. */
typedef struct sat_crashes_opts {
    sat_dur_ns context;      /* looked at before each crash; 0 = 60 s */
    size_t max_frames;       /* frames kept per thread; 0 = 128 */
} sat_crashes_opts;

typedef struct sat_crash_stack {  /* threads whose stacks are identical */
    const int32_t *tids; size_t ntids;
    const sat_frame *frames; size_t nframes; /* of the first of them, innermost first */
    int crashing;                 /* holds the crashing thread (then listed first) */
} sat_crash_stack;

typedef struct sat_crash_context { /* [ts - context, ts]: up to the crash itself */
    int have;                /* the inputs' load rows cover that period (else nothing below) */
    sat_ts_ns from_ts, to_ts;/* ts - context, ts */
    uint64_t ops, errors, conn_opens, handshakes, hs_full;
    double usual_ops;        /* operations in the same length of time just before,
                                [ts - 2 context, from_ts), scaled up to that length from
                                usual_from_ts when the inputs start later; < 0 when they
                                hold too little of it (under a tenth, or 1 s) to say */
    sat_ts_ns usual_from_ts; /* ts - 2 context, or the inputs' first load row if later */
    int storm;               /* index into `storms` of a storm overlapping it, -1 none */
} sat_crash_context;

typedef struct sat_crash_info {
    sat_crash row;           /* strings owned by the analyzer */
    const sat_frame *frames; size_t nframes; /* crashing thread, innermost first */
    const sat_crash_stack *stacks; size_t nstacks; /* every thread, grouped */
    size_t threads_seen;     /* threads with frames */
    size_t group;            /* index into groups */
    sat_crash_context ctx;
} sat_crash_info;

typedef struct sat_crash_group {
    const char *fingerprint, *signature;
    uint64_t count;
    sat_ts_ns first_ts, last_ts;
    size_t first;            /* index into crashes of its first crash */
    uint64_t builds;         /* distinct exact-build keys */
    size_t unnamed_;         /* private: unnamed frames of the signature shown */
} sat_crash_group;

typedef struct sat_crashes_view {
    const sat_crash_info *crashes; size_t ncrashes;   /* in time order (ts 0 last) */
    const sat_crash_group *groups; size_t ngroups;    /* most crashes first */
    uint64_t origins[SAT_CRASH_ORIGIN__COUNT];
    uint64_t dropped;        /* crashes past the cap (counted, not detailed) */
    uint64_t orphan_frames;  /* frame rows of no crash row */
    uint64_t frames_cut;     /* frames past max_frames */
    int have_load;           /* operations or wire rows were read */
    sat_ts_ns load_first_ts, load_last_ts; /* the period those rows cover */
    uint64_t load_cut;       /* load rows past the analyzer's bound, not counted */
    uint64_t log_lines_matched; /* crash reports in logs (kernel / systemd-coredump
                                   lines, backtraces) merged into the core of the same
                                   crash, or a kernel line into the backtrace (not listed
                                   on their own) */
    sat_dur_ns context;      /* the length of "before it" (opts.context) */
    const sat_storms_view *storms; /* of the same inputs (NULL without load rows) */
} sat_crashes_view;

typedef struct sat_crashes sat_crashes;
sat_crashes *sat_crashes_create(const sat_crashes_opts *opts); /* NULL: out of memory */
sat_event_sink sat_crashes_sink(sat_crashes *c); /* crash, frame; ldap_op, ldap_conn,
                                                    tls_hs, tcp_conn for the context */
int sat_crashes_finish(sat_crashes *c);          /* SAT_OK or SAT_E_NOMEM */
int sat_crashes_merge(sat_crashes *into, const sat_crashes *from);
const sat_crashes_view *sat_crashes_get_view(const sat_crashes *c); /* after finish */
/* The finished analyzer's sections (crashes_result.c): SAT_OK or SAT_E_NOMEM. */
int sat_crashes_result(const sat_crashes *c, sat_result *r);
void sat_crashes_free(sat_crashes *c); /* NULL ok */

#endif /* SATSCOPE_ANALYZE_CRASHES_H */
