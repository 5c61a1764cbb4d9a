/*
 * analyze.h - analyzers: streaming consumers of event rows that derive
 * results, mergeable across files and hosts (DESIGN.md "analyze/"). One
 * header per analyzer (analyze_etime.h, analyze_handshakes.h,
 * analyze_saturation.h, analyze_storms.h, analyze_cachesize.h,
 * analyze_crashes.h, analyze_timeline.h), and here the registry that drives them alike.
 *
 * Usage of every analyzer: create, feed rows through the sink, optionally
 * merge other partial results into it, finish, then read the view or build
 * its result sections (satscope/result.h) for report.h. Ownership: an
 * analyzer owns everything it returns; views live until the next
 * merge/finish or free. No function prints, exits or aborts.
 */
#ifndef SATSCOPE_ANALYZE_H
#define SATSCOPE_ANALYZE_H

#include "satscope/analyze_etime.h"
#include "satscope/analyze_handshakes.h"
#include "satscope/analyze_saturation.h"
#include "satscope/analyze_storms.h"
#include "satscope/analyze_cachesize.h"
#include "satscope/analyze_crashes.h"
#include "satscope/analyze_timeline.h"

/* ---- analyzer registry (analyze/registry.c) -----------------------------------
 * Every analyzer as a table, so the CLI and the report assembler can drive
 * them alike. `opts` is the analyzer's own options struct (may be NULL). */
typedef struct sat_analyzer {
    const char *name;    /* "etime" */
    const char *summary; /* one line for --help */
    void *(*create)(const void *opts);
    sat_event_sink (*sink)(void *a);
    int (*finish)(void *a);
    int (*merge)(void *into, const void *from);
    void (*free)(void *a);
    /* Puts the finished analyzer's sections into r's root (satscope/result.h),
     * which every form renders from (report.h: one JSON writer, one CSV
     * writer, the analyzer's text layout); SAT_OK or SAT_E_NOMEM. */
    int (*result)(const void *a, sat_result *r);
} sat_analyzer;

const sat_analyzer *sat_analyzer_find(const char *name); /* NULL if none */
const sat_analyzer *const *sat_analyzer_list(size_t *n);

#endif /* SATSCOPE_ANALYZE_H */
