/*
 * crashes_internal.h - (internal to analyze/crashes*.c) the state of the
 * crashes analyzer. Its accumulators, each merged once:
 *  - the crash and frame rows, kept in detail and joined on (source, crash):
 *    merging is adding from's rows again (the join's own add);
 *  - the counters and the period of the load rows, a record described by
 *    cr_tally_desc (crashes.c): merged by sat_rec_merge;
 *  - the load stream, (time, kind) delta-coded (crashes_load.c): merged by
 *    appending from's rows;
 *  - the storms analyzer run on the same rows: merged by sat_storms_merge.
 * What finish finds from them (cr_found: the crashes listed, with their
 * stacks and the load before them, and their groups) is what the result is
 * written from.
 * Files: crashes.c (rows, lifecycle, merge), crashes_load.c (the load
 * stream and the minute before each crash), crashes_stacks.c (threads
 * grouped by identical stacks), crashes_finish.c (log lines matched to
 * cores, the crashes listed, groups), crashes_result.c (the result sections).
 */
#ifndef SAT_ANALYZE_CRASHES_INTERNAL_H
#define SAT_ANALYZE_CRASHES_INTERNAL_H

#include "acc.h"
#include "satscope/analyze.h"
#include "storms_found.h" /* the storms found on the same rows */
#include "strtab.h"

#define CR_MAX 10000
#define CR_FRAMES_MAX 100000 /* frames of one crash, all threads */
#define CR_LOAD_BYTES ((size_t)64 << 20)

/* kinds of load rows in the stream (3 bits) */
enum { LK_OP, LK_OP_ERR, LK_OPEN, LK_HS, LK_HS_FULL };

typedef struct cr_tally {
    uint64_t dropped;    /* crashes past CR_MAX (counted, not detailed) */
    uint64_t frames_cut; /* frames past max_frames */
    uint64_t load_cut;   /* load rows left out past CR_LOAD_BYTES */
    uint64_t have_load;  /* 1: operations or wire rows were read */
    int64_t load_first;  /* the period of the load rows (ns; 0 none) */
    int64_t load_last;
    int64_t capture_first; /* the span of the captures read (their source rows; 0 none):
                              handshakes outside it are not known, not 0 */
    int64_t capture_last;
} cr_tally;
extern const sat_rec_desc cr_tally_desc;

typedef struct cr_load {
    uint8_t *b;
    size_t len, cap;
    int64_t prev_us;     /* the previous row's time, the base of the next delta */
} cr_load;

typedef struct cr_entry {
    uint32_t key[2];     /* {source, crash}: its key in the index */
    sat_crash row;       /* strings in the arena */
    int have_row;
    int matched;         /* a log line about a core's crash, merged into it */
    int time_by_kernel;  /* its time is a kernel line's */
    sat_frame *frames;   /* every thread, as they came */
    size_t nframes, cap;
} cr_entry;

/* Threads whose stacks are identical. */
typedef struct cr_stack {
    const int32_t *tids;
    size_t ntids;
    const sat_frame *frames; /* of the first of them, innermost first */
    size_t nframes;
    int crashing;            /* holds the crashing thread (then listed first) */
} cr_stack;

/* The load of [ts - context, ts]: up to the crash itself. */
typedef struct cr_context {
    int have;                /* the inputs' load rows cover that period (else nothing below) */
    sat_ts_ns from_ts, to_ts;/* ts - context, ts */
    uint64_t ops, errors, conn_opens, handshakes, hs_full;
    double usual_ops;        /* operations in the same length of time just before,
                                [ts - 2 context, from_ts), scaled up to that length from
                                usual_from_ts when the inputs start later; < 0 when they
                                hold too little of it (under a tenth, or 1 s) to say */
    sat_ts_ns usual_from_ts; /* ts - 2 context, or the inputs' first load row if later */
    int storm;               /* index into the storms of a storm overlapping it, -1 none */
} cr_context;

/* A crash listed: its row, its stacks, its group, the load before it. */
typedef struct cr_info {
    sat_crash row;           /* strings in the arena */
    const sat_frame *frames; /* the crashing thread's, innermost first */
    size_t nframes;
    const cr_stack *stacks;  /* every thread, grouped */
    size_t nstacks;
    size_t group;            /* index into cr_found.groups */
    cr_context ctx;
} cr_info;

/* Crashes of one bug: the same fingerprint, or the same exact build key. */
typedef struct cr_group {
    const char *fingerprint, *signature;
    uint64_t count;
    sat_ts_ns first_ts, last_ts;
    size_t first;            /* index into crashes of its first crash */
    uint64_t builds;         /* distinct exact-build keys */
    size_t unnamed;          /* unnamed frames of the signature shown */
} cr_group;

/* What finish found (crashes_finish.c); in the arena. */
typedef struct cr_found {
    cr_info *crashes;        /* in time order (ts 0 last) */
    size_t ncrashes;
    cr_group *groups;        /* most crashes first */
    size_t ngroups;
    const sat_storms_view *storms; /* of the same inputs (NULL without load rows) */
    int have_load;           /* operations or wire rows were read */
    uint64_t log_lines_matched; /* crash reports in logs (kernel / systemd-coredump
                                   lines, backtraces) merged into the core of the same
                                   crash, or a kernel line into the backtrace (not listed
                                   on their own) */
} cr_found;

struct sat_crashes {
    sat_crashes_opts opts;
    sat_arena arena;     /* row strings, what finish found */
    sat_strtab index;    /* {source, crash} -> uint32 entry index */
    cr_entry *entries;   /* grown by SAT_GROW, as every array here */
    size_t nentries, cap;
    cr_tally t;
    cr_load load;
    sat_storms *storms;
    int storms_borrowed; /* storms is a set's storms member's (sat_crashes_borrow_storms) */
    int nomem;
    cr_found found;
};

/* crashes.c: an entry of another instance added again (merge, and an
 * entry read from a partial): key {source, crash}, its row (NULL: none yet)
 * and its frames, copied as rows are. */
void cr_add_entry(sat_crashes *c, const uint32_t key[2], const sat_crash *row,
                  const sat_frame *frames, size_t n);

/* crashes_load.c: one load row at ts of kind into the stream; a row that
 * does not fit is counted in t->load_cut, a kept one widens t's period. */
void cr_load_put(cr_load *l, cr_tally *t, sat_ts_ns ts, unsigned kind);
/* The next row from *pos: its time in microseconds (running from *us) and
 * its kind; 0 at the end. */
int cr_load_next(const cr_load *l, size_t *pos, int64_t *us, unsigned *kind);
/* The load of [ts - context, ts] and of the same length before it, for
 * every crash with a time, in one pass over the stream. */
int cr_contexts(sat_crashes *c, cr_info *ci, size_t n, const sat_storms_view *sv);

/* crashes_stacks.c: the threads of one crash grouped by identical stacks. */
int cr_build_stacks(sat_crashes *c, cr_info *ci, cr_entry *e);

#endif
