/*
 * collect_internal.h - what the files of collect/ share and nobody else needs:
 * the rotated-set naming rules (rotation.c) used to group inputs into servers.
 */
#ifndef SAT_COLLECT_INTERNAL_H
#define SAT_COLLECT_INTERNAL_H

#include "satscope/collect.h"

/* sat_collect_group_key (collect.h): the rotated set of a path. */

/* The N of a rotated file "name.N" (compression suffixes aside): 1 for
 * "slapd.log.1.gz", 0 for the live file or any other name. A higher N is
 * an older file. */
int sat_collect_rotation_index(const char *path);

/* Why the file at path is a companion of a server's access log, not a log to
 * analyse (389's access.rotationinfo, errors, audit and their rotations:
 * "389's rotation bookkeeping, not a log"), or NULL. Such an input, however
 * it was named, is skipped with that said (collect_log.c), not an error; a
 * crash report written in it as text is still found. */
const char *sat_collect_companion(const char *path);

/* A warning about one input: to warn(ctx, path, msg) when set, else to
 * stderr as "satscope: PATH: MSG" (collect_progress.c). */
typedef void (*sat_collect_warn_fn)(void *ctx, const char *where, const char *msg);
void sat_collect_warnf(sat_collect_warn_fn warn, void *ctx, const char *path, const char *fmt,
                       ...) SAT_PRINTF(4, 5);

/* ---- captures (capture.c) ------------------------------------------------------- */
/* 1 pcap, 2 pcapng, 0 neither: by the first bytes (magic numbers a1b2c3d4 and
 * a1b23c4d in both byte orders, pcapng's section header 0a0d0d0a). */
int sat_capture_sniff(const void *head, size_t n);

typedef struct sat_capture_job {
    const char *path;            /* the capture file (for messages and the source row) */
    sat_input *in;               /* opened input, or NULL to open path; NULL path with
                                    opts->live_iface: the live capture */
    const sat_collect_opts *opts;
    const sat_event_sink *sink;  /* source rows */
    const sat_event_sink *rows;  /* tcp_conn, tls_hs, ldap rows, rejects (windowed) */
    uint32_t source_id, server;
    sat_collect_stats *stats;
    void (*warn)(void *ctx, const char *where, const char *msg);
    void *warn_ctx;
    /* out: the capture could not be read at all (unreadable) or ended early */
    int unreadable, truncated;
    sat_diag problem;
} sat_capture_job;

/* Reads one capture into the sinks. Returns SAT_OK (input problems are in
 * job->unreadable/truncated/problem, already warned) or a sink's status. */
int sat_capture_collect(sat_capture_job *job);

/* ---- crash reports written as text (crash_scan.c) ------------------------------ */
/* 1 when the first bytes of an input look like text (no NUL, not ELF). */
int sat_collect_is_text(const char *peek, size_t n);

typedef struct sat_crash_scan_job {
    sat_input *in;               /* opened; read to its end here */
    const sat_event_sink *sink;  /* crash and frame rows */
    sat_source *src;             /* its id goes on the rows; first/last ts widened */
    int year;                    /* of syslog timestamps; 0: by sat_year_for against
                                    year_ref */
    sat_ts_ns year_ref;          /* the input's mtime, 0 = now */
    sat_ts_ns from_ns, to_ns;    /* crashes outside are left out (unknown times kept) */
    /* out */
    uint64_t crashes, lines;
    uint64_t outside;            /* crashes found but outside from/to */
    int input_rc;                /* < 0: the input ended early (diag says why) */
    sat_diag diag;
} sat_crash_scan_job;

/* Reads job->in through the crash-text scanner. Returns SAT_OK or the sink's
 * (or an allocation's) negative status; input trouble is in input_rc. */
int sat_collect_crash_scan(sat_crash_scan_job *job);

/* ---- core files (core_collect.c, core_unwind.c) --------------------------------- */
typedef struct sat_core_job {
    const char *path;            /* the core file (for messages and the source row) */
    sat_input *in;               /* opened input (standard input), or NULL to open path */
    const sat_collect_opts *opts;/* exe, debuginfo_path, sysroot, the time window */
    const sat_event_sink *sink;  /* the source row */
    const sat_event_sink *rows;  /* frame rows, then the crash row */
    uint32_t source_id, server;
    sat_ts_ns mtime;             /* the file's modification time (the crash's ts), 0 */
    sat_collect_stats *stats;
    void (*warn)(void *ctx, const char *where, const char *msg);
    void *warn_ctx;
    /* out: not readable as a core at all (unreadable) or cut short */
    int unreadable, truncated;
    sat_diag problem;
} sat_core_job;

/* Reads one core into the sinks. Returns SAT_OK (input problems are in
 * job->unreadable/truncated/problem, already warned), SAT_E_NOMEM or a
 * sink's status. A core whose mtime is outside opts' window gives its
 * source row only. */
int sat_core_collect(sat_core_job *job);

#endif
