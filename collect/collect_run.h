/*
 * collect_run.h - what the files of one collection (sat_collect_run) share:
 * the inputs as named and found (items), the rotated sets of logs (groups),
 * the run's state, and each job's entry point:
 *
 *   collect.c           the run: expand, look, group, then read in order
 *   collect_progress.c  warnings, the first problem, the progress line
 *   collect_inputs.c    expanding the paths named, the first look at each
 *   collect_sets.c      rotated sets: grouping, order, years of syslog lines
 *   collect_log.c       one set of logs through one joiner, file by file
 *   collect_window.c    --from/--to on the rows of logs and captures
 *   collect_media.c     one capture (or the live interface), one core file
 *   collect_trace.c     one trace replayed, its numbers moved past the used ones
 *
 * Internal to collect/.
 */
#ifndef SAT_COLLECT_RUN_H
#define SAT_COLLECT_RUN_H

#include <sys/types.h>
#include <time.h>

#include "collect_internal.h"
#include "satscope/parse.h"

enum item_kind { ITEM_LOG = 0, ITEM_TRACE, ITEM_BAD, ITEM_SKIP /* a duplicate */,
                 ITEM_CAPTURE /* pcap / pcapng, plain or compressed */,
                 ITEM_CORE /* ELF core file, plain or compressed */ };

typedef struct item {
    char *path;                 /* owned */
    size_t order;               /* position after expansion */
    int kind;                   /* enum item_kind */
    size_t group;               /* index into the server groups (logs) */
    const sat_log_format *fmt;  /* NULL: empty or not recognised */
    int empty;                  /* no bytes at all */
    char first_bytes[48];       /* sanitised, for the "not recognised" warning */
    int has_ts;
    sat_ts_ns first_ts;
    sat_input *kept;            /* standard input stays open between passes */
    uint64_t raw_size;
    int size_known;             /* a regular file (not a pipe or stdin) */
    dev_t dev;                  /* identity of a regular file, to read it once */
    ino_t ino;
    int year;                   /* year of year-less timestamps (syslog): the
                                   first line's by sat_year_for the mtime */
    int yearless;               /* its first timestamp had no year */
    const char *year_why;       /* where year came from, for the note */
    int expanded;               /* found by expanding a directory or a pattern */
    const char *companion;      /* why it is a companion of a log, not a log to read
                                   (sat_collect_companion; static), or NULL */
    sat_ts_ns mtime;            /* modification time (a core's crash time), 0 unknown */
} item;

typedef struct group {
    char *key;        /* owned: directory + base name without rotation suffixes */
    size_t *items;    /* indexes into the item array, in reading order */
    size_t nitems, cap;
    size_t first_order;
} group;

typedef struct run {
    const sat_collect_opts *opts;
    const sat_event_sink *sink;
    sat_collect_stats *stats;
    sat_diag first_problem; /* the first unreadable/truncated input, for the caller */
    int nomem;              /* an input failed for want of memory (sat_run_problem) */

    item *items;
    size_t nitems, cap;
    group *groups;
    size_t ngroups, gcap;

    uint32_t next_source;   /* sat_source.id of the next source row */
    uint32_t next_server;   /* first server index not yet used */

    /* progress */
    int progress_shown;
    uint64_t total_raw, done_raw;
    int total_unknown;
    struct timespec t0, last;
    uint64_t lines_at_t0;
} run;

/* ---- collect_progress.c ----------------------------------------------------------- */
/* A warning about `where`, to opts->warn or stderr, the progress line cleared first. */
void sat_run_warn(run *r, const char *where, const char *fmt, ...) SAT_PRINTF(3, 4);
/* Keeps the first input problem for the caller's diag. */
void sat_run_problem(run *r, int code, const char *where, const char *msg);
/* The progress line (at most every 0.25 s) while `path` is read, and its removal. */
void sat_run_progress(run *r, const char *path, sat_input *in, uint64_t lines_now);
void sat_run_progress_clear(run *r);

/* ---- collect_inputs.c ------------------------------------------------------------- */
/* One path as named: "-", a file, a directory's regular files, a glob pattern. */
int sat_run_add_path(run *r, const char *path);
/* 1 (and item i marked ITEM_SKIP, warned) if it is a file already named before. */
int sat_run_same_file_before(run *r, size_t i);
/* The first look: kind, size, format, first timestamp, year of year-less lines. */
void sat_run_look(run *r, item *it);

/* ---- collect_sets.c --------------------------------------------------------------- */
/* Dec 30 of year y, 00:00 UTC: sat_year_for against it gives y for any date. */
sat_ts_ns sat_run_year_end(int y);
/* The logs into rotated sets (one server each), in the order first named. */
int sat_run_group_items(run *r);
/* A set's files in reading order (by content time), their years settled. */
void sat_run_order_set(run *r, group *g);

/* ---- collect_window.c ------------------------------------------------------------- */
typedef struct window {
    const sat_event_sink *inner;
    sat_ts_ns from, to; /* 0 = unbounded */
} window;
/* A sink's on_row (ctx: a window): the rows kept by the window go to inner. */
int sat_run_window_row(void *ctx, int table, const void *row);

/* ---- the jobs: each returns SAT_OK (input problems warned and counted) or a
 * sink's (or an allocation's) negative status ----------------------------------- */
int sat_run_log_set(run *r, group *g);    /* collect_log.c */
int sat_run_capture(run *r, item *it);    /* collect_media.c; it NULL: live capture */
int sat_run_core(run *r, item *it);       /* collect_media.c */
int sat_run_trace(run *r, item *it);      /* collect_trace.c */

#endif /* SAT_COLLECT_RUN_H */
