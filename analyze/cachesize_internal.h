/*
 * cachesize_internal.h - (internal to analyze/cachesize*.c) the state of the
 * cachesize analyzer, built from three accumulators whose merges are written
 * once each (acc.h):
 *  - the counters of the reference stream, fields of the view described by
 *    cs_view_desc (cachesize.c): merged by sat_rec_merge;
 *  - keyed tables: references per hour, the filter attributes the searches
 *    test (the indexes they read): merged by sat_keyed_merge;
 *  - the miss-ratio curve (cs_mrc, cachesize_mrc.c): the stored reference
 *    stream, spatially sampled to a bound, whose merge is concatenation at
 *    the lower of the two rates and whose finish is the LRU curve (exact
 *    Mattson stack distances, or SHARDS).
 * Files: cachesize.c (operations -> references, lifecycle, merge),
 * cachesize_mrc.c (the curve), cachesize_finish.c (sizes, targets, working
 * set, cn=monitor comparison), cachesize_monitor.c (cn=monitor LDIF),
 * cachesize_result.c (the result sections).
 */
#ifndef SAT_ANALYZE_CACHESIZE_INTERNAL_H
#define SAT_ANALYZE_CACHESIZE_INTERNAL_H

#include "acc.h"
#include "satscope/analyze.h"

#define CS_MAX_DN 4096

/* ---- the miss-ratio curve accumulator ------------------------------------------- */
typedef struct cs_run {
    uint64_t at;   /* index in refs where the hour begins */
    int64_t hour;  /* hours since the epoch; INT64_MIN: unknown */
} cs_run;

typedef struct cs_mrc {
    uint64_t max_refs;   /* references stored before spatial sampling starts */
    size_t smax;         /* SHARDS sample set size */
    int force_shards;
    uint64_t references; /* every reference offered, stored or not */
    uint64_t *refs;      /* (hash48 << 16) | min(len, 65535), in order */
    size_t nrefs, cap;
    uint64_t keep_max;   /* a reference is stored when spatial(key) <= keep_max */
    cs_run *runs;        /* the hours of refs, as runs */
    size_t nruns, runcap;
    /* the curve, after cs_mrc_finish */
    int method;          /* enum sat_cs_method */
    uint64_t *cum;       /* exact: cum[d] = hits with a cache of d entries, d <= maxd */
    size_t maxd;
    double *bcum, *bw;   /* SHARDS: cumulative weight per bucket, weight per bucket */
    double adj;          /* SHARDS_adj */
    double unique;       /* distinct keys (estimated under SHARDS) */
    double dn_mean_len;  /* mean DN bytes over them (NAN none) */
    double shards_rate;  /* NAN when exact */
} cs_mrc;

void cs_mrc_init(cs_mrc *m, uint64_t max_refs, size_t smax, int force_shards);
void cs_mrc_free(cs_mrc *m);
/* One reference to the entry of 48-bit key, its DN `len` bytes long, in
 * `hour` (INT64_MIN unknown). SAT_OK or SAT_E_NOMEM. */
int cs_mrc_add(cs_mrc *m, uint64_t key, size_t len, int64_t hour);
/* from's stream after into's, both at the lower of their rates. */
int cs_mrc_merge(cs_mrc *into, const cs_mrc *from);
/* The curve of the stream (again after a merge). SAT_OK or SAT_E_NOMEM. */
int cs_mrc_finish(cs_mrc *m);
/* After finish: hits of an LRU cache of `entries` (estimated under SHARDS). */
double cs_mrc_hits(const cs_mrc *m, uint64_t entries);
/* The largest size at which the curve still rises. */
uint64_t cs_mrc_top(const cs_mrc *m);
/* The rate the stored stream was sampled at (1 = every reference). */
double cs_mrc_keep_rate(const cs_mrc *m);
/* The spatial hash deciding which keys are sampled. */
uint64_t cs_spatial(uint64_t key);

/* ---- the analyzer ----------------------------------------------------------------- */
typedef struct cs_count {
    uint64_t n;
} cs_count;
extern const sat_rec_desc cs_count_desc; /* one COUNT: rows of a keyed table */

struct sat_cs {
    sat_cs_opts o;
    sat_cs_monitor mon[2];
    sat_cs_view v;     /* counters (cs_view_desc), then, after finish, the results */
    cs_mrc mrc;
    sat_keyed hours;   /* int64 hour -> cs_count references */
    sat_keyed attrs;   /* lowercased attribute a filter tests -> cs_count uses */
    int nomem;
    int finished;
    sat_cs_point *points;
    sat_cs_target tg[SAT_CS_MAX_TARGETS];
    sat_cs_hour *hv;
};

/* cachesize.c: DN normalization (ASCII lower case, blanks around commas
 * and at the ends removed, at most CS_MAX_DN bytes), shared with the
 * cn=monitor reader. */
size_t cs_normalize_dn(const char *s, size_t n, char *out);

/* cachesize_finish.c */
void cs_free_results(sat_cs *c);

#endif
