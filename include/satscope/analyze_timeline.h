/*
 * analyze_timeline.h - the timeline analyzer (analyze/timeline*.c), part of
 * analyze.h: the one-pass series every timeline chart panel and the text
 * report's per-hour lines draw from, over LDAP operation and connection rows
 * (and the inputs' source rows, to put every input on the one time axis).
 *
 * Per window: operations (dated by their request time, ts_ns; the RESULT's
 * when no request was seen), errors (etime's rule: a RESULT whose code is not
 * 0, compareFalse 5, compareTrue 6 or saslBindInProgress 14), operations by
 * type, etime percentiles, mean wtime and optime (389 2.x; absent when not
 * logged), concurrency by Little's law, connections open at the window's end,
 * opened and closed, and closes by close code. Per hour of local time the same
 * counts and percentiles; per operation type a histogram of etimes; the inputs
 * with their time ranges.
 *
 * Concurrency is the etimes of the window's operations summed over the
 * window's whole length (an operation counts in the window it started in,
 * all its time there: fine for windows much longer than an etime; the first
 * and last windows, partly outside the span, read low). Connections open at
 * a window's end: opened before it ends (open line) and not closed by then (a
 * close line or a restart); one whose open line was not seen was opened
 * before the input began and counts as open from its first window; one
 * still open at the end of the input never closes.
 *
 * Only external operations count (an internal one runs inside its parent's
 * etime); ABANDON, UNBIND and AUTOBIND are counted, never timed (as etime).
 *
 * HTTP requests (http_req rows) count with the operations, by their start,
 * their response time as the etime, statuses of 400 or more as errors; per
 * window also by method and status class (analyze/timeline_result.c says
 * which sections then carry them).
 *
 * The window: from the ladder 1 s, 10 s, 60 s, 600 s, 3600 s, 86400 s (each
 * divides the next, all aligned on the epoch), the finest with at most
 * SAT_TL_WINDOWS_MAX windows from the first to the last dated row. Rows are
 * counted at the finest step the span seen so far allows and widened as it
 * grows, so memory is bounded (about 2000 windows) whatever the input; the
 * step is chosen at finish from the whole span, so parts merged give the
 * windows of one pass.
 *
 * Percentiles come from a fixed histogram of etimes (SAT_TL_BINS bins: one
 * below 1 us, 10 per decade from 1 us to 1000 s, one at and above 1000 s):
 * the value reported is the geometric middle of the bin the rank falls in,
 * clamped to the window's smallest and largest etime, so it is within 12.2%
 * of the exact percentile (a bin spans a factor 10^0.1 = 1.259), exact when
 * every etime of the window is equal (coarse whole-second etimes: 0 s), and
 * merges exactly (bin counts add).
 */
#ifndef SATSCOPE_ANALYZE_TIMELINE_H
#define SATSCOPE_ANALYZE_TIMELINE_H

#include "satscope/event.h"
#include "satscope/result.h"

#define SAT_TL_WINDOWS_MAX 2000
#define SAT_TL_BINS_PER_DECADE 10
#define SAT_TL_DECADES 9 /* 1 us .. 1000 s */
#define SAT_TL_BINS (SAT_TL_BINS_PER_DECADE * SAT_TL_DECADES + 2)

/* The bin of an etime in ns (0: below 1 us; SAT_TL_BINS-1: 1000 s and above),
 * and a bin's edges in seconds (lo of bin 0 is 0, hi of the last is +inf). */
int sat_tl_bin(int64_t etime_ns);
double sat_tl_bin_lo_s(int bin);
double sat_tl_bin_hi_s(int bin);

typedef struct sat_timeline_opts {
    /* at most this many windows over the span (0: SAT_TL_WINDOWS_MAX); the
     * charts ask for fewer, wider windows, as many as a page shows */
    size_t max_windows;
} sat_timeline_opts;

typedef struct sat_timeline sat_timeline;
sat_timeline *sat_timeline_create(const sat_timeline_opts *opts); /* NULL: no memory */
/* ldap_op, ldap_conn, http_req, crash and source rows. */
sat_event_sink sat_timeline_sink(sat_timeline *t);
/* Chooses the window from the span and widens the series to it. SAT_OK or
 * SAT_E_NOMEM. Merging after finish is allowed (finish again). */
int sat_timeline_finish(sat_timeline *t);
int sat_timeline_merge(sat_timeline *into, const sat_timeline *from);
void sat_timeline_free(sat_timeline *t); /* NULL ok */
/* The finished analyzer's sections (analyze/timeline_result.c): the summary
 * (first_ts, last_ts, window_s, utc_offset_s, operations, ...), windows,
 * hours, etime_histogram and sources. SAT_OK or SAT_E_NOMEM. */
int sat_timeline_result(const sat_timeline *t, sat_result *r);
/* Its state before finish as bytes and back, into a fresh instance made with
 * the same options (analyze/timeline_state.c, analyze/state_io.h). SAT_OK,
 * SAT_E_NOMEM, or (load) SAT_E_CORRUPT with the reader's message. */
struct sat_sw;
struct sat_sr;
int sat_timeline_save(const sat_timeline *t, struct sat_sw *w);
int sat_timeline_load(sat_timeline *t, struct sat_sr *r);

#endif /* SATSCOPE_ANALYZE_TIMELINE_H */
