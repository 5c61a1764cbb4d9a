/*
 * analyze_crashes.h - the crashes analyzer (analyze/crashes*.c), part of
 * analyze.h: crashes, their stacks, groups and the load before them.
 */
#ifndef SATSCOPE_ANALYZE_CRASHES_H
#define SATSCOPE_ANALYZE_CRASHES_H

#include "satscope/event.h"
#include "satscope/analyze_storms.h"
#include "satscope/result.h"

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

typedef struct sat_crashes sat_crashes;
sat_crashes *sat_crashes_create(const sat_crashes_opts *opts); /* NULL: out of memory */
sat_event_sink sat_crashes_sink(sat_crashes *c); /* crash, frame; ldap_op, ldap_conn,
                                                    tls_hs, tcp_conn for the context */
int sat_crashes_finish(sat_crashes *c);          /* SAT_OK or SAT_E_NOMEM */
/* Reads s (a storms analyzer fed the same rows, finished before c, living
 * as long as c) instead of running its own: called before the first row.
 * c then neither feeds, merges, finishes nor frees it. */
void sat_crashes_borrow_storms(sat_crashes *c, sat_storms *s);
int sat_crashes_merge(sat_crashes *into, const sat_crashes *from);
/* The finished analyzer's sections (crashes_result.c): a summary, the table
 * of crashes (each with its crashing thread's frames, its threads grouped by
 * identical stacks and the load before it) and the table of groups. SAT_OK
 * or SAT_E_NOMEM. */
int sat_crashes_result(const sat_crashes *c, sat_result *r);
void sat_crashes_free(sat_crashes *c); /* NULL ok */
/* Its state before finish as bytes and back, into a fresh instance made with
 * the same options (and borrowing storms as the saved one did):
 * analyze/crashes_state.c, analyze/state_io.h. SAT_OK, SAT_E_NOMEM, or
 * (load) SAT_E_CORRUPT with the reader's message. */
struct sat_sw;
struct sat_sr;
int sat_crashes_save(const sat_crashes *c, struct sat_sw *w);
int sat_crashes_load(sat_crashes *c, struct sat_sr *r);

#endif /* SATSCOPE_ANALYZE_CRASHES_H */
