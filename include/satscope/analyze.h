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

#include "satscope/base.h"
#include "satscope/event.h"

/* A span of the inputs a report is about (a storm): its time [from, to),
 * a label the result repeats (the storm's number), and the inputs of its
 * server by path (npaths 0: every input). Borrowed by the callee. */
typedef struct sat_span {
    sat_ts_ns from, to;
    uint32_t label;
    const char *const *paths;
    size_t npaths;
} sat_span;

struct sat_sw; /* analyze/state_io.h */
struct sat_sr;

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
    /* Optional (NULL: none): the spans a report is about (the storms), given
     * after finish and before result, which then has figures for each
     * (spans and their paths are copied). SAT_OK or SAT_E_NOMEM. */
    int (*focus)(void *a, const sat_span *spans, size_t n);
    /* Optional (NULL: none): the analyzer whose finished instance this one
     * reads instead of running its own on the same rows (crashes reads the
     * storms found, which a report also shows). A set holding both hands
     * the lender's instance over with `borrow` before the first row, feeds
     * and merges it as its own member only, and finishes it first; without
     * one the analyzer runs its own. */
    const char *reads;
    void (*borrow)(void *a, void *lender);
    /* Its state after its rows and merges, before finish, as bytes
     * (analyze/state_io.h: what `satscope partial` keeps of a server-day),
     * and back: load reads it into a fresh instance made by create with the
     * same options, which then merges and finishes as the original would.
     * SAT_OK, SAT_E_NOMEM, or (load) SAT_E_CORRUPT with the reader's message.
     * NULL: the analyzer cannot be kept in a partial. */
    int (*save)(const void *a, struct sat_sw *w);
    int (*load)(void *a, struct sat_sr *r);
} sat_analyzer;

const sat_analyzer *sat_analyzer_find(const char *name); /* NULL if none */
/* The JSON document of a finished analyzer `a` (obj), built from its result
 * sections as the commands write it (tests and tools use it). */
int sat_analyzer_json(const sat_analyzer *a, const void *obj, FILE *out, sat_diag *diag);
const sat_analyzer *const *sat_analyzer_list(size_t *n);

/* ---- several analyzers in one pass (analyze/multi.c) ---------------------------
 * The report and chart commands feed every analyzer they read from one pass
 * over the inputs. The set is an analyzer itself (sat_multi_analyzer: its
 * opts are a sat_multi_opts), so it is collected, run in parallel parts and
 * merged like any one; it has no result of its own (`result` is NULL):
 * sat_multi_results builds one per member. Ownership: the set owns its
 * members' instances; the member table (analyzers and their opts) is
 * borrowed for the set's life. */
typedef struct sat_multi_member {
    const sat_analyzer *a;
    const void *opts; /* the analyzer's own options, borrowed (may be NULL) */
    const char *name; /* its result's name (a role: "etime_clients"); NULL: a->name */
} sat_multi_member;
typedef struct sat_multi_opts {
    const sat_multi_member *members;
    size_t n;
} sat_multi_opts;
typedef struct sat_multi sat_multi;
extern const sat_analyzer sat_multi_analyzer;
sat_multi *sat_multi_create(const sat_multi_opts *o); /* NULL: out of memory or no member */
void sat_multi_free(sat_multi *m);                    /* NULL ok */
/* The tables of every member; a row goes to each member that takes its table. */
sat_event_sink sat_multi_sink(sat_multi *m);
int sat_multi_finish(sat_multi *m);
/* The spans the report is about, to every member with a focus (after
 * finish, before sat_multi_results). SAT_OK or the first error. */
int sat_multi_focus(sat_multi *m, const sat_span *spans, size_t n);
/* Member by member; SAT_E_USAGE if the sets differ. */
int sat_multi_merge(sat_multi *into, const sat_multi *from);
/* Its members' states (the analyzer table's save and load, state_io.h):
 * SAT_E_UNSUPPORTED when a member has none. */
int sat_multi_save(const sat_multi *m, struct sat_sw *w);
int sat_multi_load(sat_multi *m, struct sat_sr *r);
size_t sat_multi_count(const sat_multi *m);
void *sat_multi_member_obj(const sat_multi *m, size_t i); /* the instance of member i */
/* The instance of the member of that result name (a role, else its
 * analyzer's name); NULL if none. */
void *sat_multi_member_named(const sat_multi *m, const char *name);
/* After finish: results[i] = a new result of member i (named after its
 * analyzer), for i < sat_multi_count; the caller frees each (NULL when out of
 * memory). SAT_OK or the first error. */
int sat_multi_results(const sat_multi *m, sat_result **results);

/* Rows split by server and day, a set each (analyze/split.c). */
#include "satscope/analyze_split.h"

/* ---- the digest's analysis plan (analyze/digest_plan.c) --------------------------
 * What the nightly digest analyses of each (server, local day) of its inputs:
 * the rows split by server and day (analyze_split.h), each day fed to one set
 * of analyzers, each with its options and the rows it takes, its result named
 * after its role in the digest: the report reads the day's results by these
 * names, never an analyzer:
 *   etime            volumes, latency by operation type, result codes, binds, TLS
 *   etime_unindexed  etime by filter shape, over unindexed searches (notes=A/U) only
 *   etime_clients    etime by client: every client's operations and time
 *   storms           at 10 s windows (one series per hour of the split)
 *   crashes          the crashes alone (no load of the minute before each)
 *   cachesize, handshakes, timeline
 * given(ctx, analyzer) gives the options the user set for an analyzer by its
 * registry name (the cache options), NULL for none: a role with options of
 * the plan's own keeps them. The plan is a value: it owns nothing, and its
 * split options (split) point into it, so it must not move once made. */
#define SAT_DIGEST_ROLES_MAX 8
typedef struct sat_digest_plan {
    sat_multi_member members[SAT_DIGEST_ROLES_MAX];
    sat_multi_opts set;
    sat_split_opts split; /* what to collect the inputs into: sat_split_analyzer */
    sat_etime_opts etime, by_filter, by_client;
    sat_storms_opts storms;
    sat_filtered_opts unindexed, crash_only;
} sat_digest_plan;
void sat_digest_plan_init(sat_digest_plan *p, const void *(*given)(void *ctx, const char *analyzer),
                          void *ctx);

#endif /* SATSCOPE_ANALYZE_H */
