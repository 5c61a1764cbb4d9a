/*
 * section_throughput.h - (internal to report/) the throughput around a
 * period (a storm): the timeline's windows (analyze/timeline_result.c)
 * before, during and after it, as per-window means of the operations asked
 * for (requests logged, `count`), answered (in the window of their answer,
 * `answered`), the errors and the connections opened. The section shows
 * them; a report's finding reads the same figures (sec_tput_periods), so
 * that the sentence and the table agree.
 */
#ifndef SAT_REPORT_SECTION_THROUGHPUT_H
#define SAT_REPORT_SECTION_THROUGHPUT_H

#include "sections.h"

/* The windows before the period (or before its trigger) and after it that
 * are compared with it: at most this many of each. */
#define SEC_TPUT_WINDOWS 30

enum { SEC_TPUT_BEFORE, SEC_TPUT_DURING, SEC_TPUT_AFTER, SEC_TPUT_N };

/* One part: the windows whose start lies in [from, to), and their means per
 * window (NAN with no window). */
typedef struct sec_tput {
    int64_t from, to; /* ns */
    size_t windows;
    double requested, answered, errors, opened;
} sec_tput;

/* The three parts around the period [start, end): before = the windows
 * before before_end (the period's start, or its trigger's onset when
 * earlier), during = [start, end), after = from end on; at most
 * SEC_TPUT_WINDOWS windows before and after, within the series. Returns the
 * series' window in seconds, 0 when the timeline has no series with
 * answers (then out is left empty). */
double sec_tput_periods(const sat_rnode *timeline, int64_t start, int64_t end, int64_t before_end,
                        sec_tput out[SEC_TPUT_N]);

/* The section id (title: "Throughput before, during and after <what>") of
 * parent with the three parts as a table; noun: what is asked for
 * ("operations", "requests", "operations and requests"). */
void sec_throughput(const sec_ctx *c, sat_rnode *parent, const char *id, const char *what,
                    const char *noun, const sat_rnode *timeline, int64_t start, int64_t end,
                    int64_t before_end);

#endif
