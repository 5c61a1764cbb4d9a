/*
 * cachesize_internal.h - (internal to analyze/cachesize*.c) the state of the
 * cachesize analyzer, built from three accumulators whose merges are written
 * once each (acc.h):
 *  - the counters of the reference stream (cs_stream), named once in X-macro
 *    lists that give their fields, their merge (cs_stream_desc, cachesize.c)
 *    and the values of the result's `stream`: merged by sat_rec_merge;
 *  - keyed tables: references per hour, the filter attributes the searches
 *    test (the indexes they read): merged by sat_keyed_merge;
 *  - the miss-ratio curve (cs_mrc, cachesize_mrc.c): the stored reference
 *    stream, spatially sampled to a bound, whose merge is concatenation at
 *    the lower of the two rates and whose finish is the LRU curve (exact
 *    Mattson stack distances, or SHARDS).
 * Files: cachesize.c (operations -> references, lifecycle, merge),
 * cachesize_mrc.c (the curve), cachesize_sizes.c (from the finished curve:
 * sizes, targets, working set, cn=monitor comparison), cachesize_monitor.c
 * (cn=monitor LDIF), cachesize_result.c (the result, written from the
 * state with cachesize_sizes.c's figures).
 */
#ifndef SAT_ANALYZE_CACHESIZE_INTERNAL_H
#define SAT_ANALYZE_CACHESIZE_INTERNAL_H

#include "acc.h"
#include "satscope/analyze.h"

#define CS_MAX_DN 4096

enum cs_method { CS_EXACT, CS_SHARDS };

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
    int method;          /* enum cs_method */
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
/* The counts of the reference stream, X(field, key, title, note), in the
 * order the result's `stream` writes them: three runs, around what is
 * written otherwise (the references by operation type after CS_OPS; the
 * unindexed searches, absent where no input logs them, after CS_UNSEEN). */
#define CS_OPS(X)                                                                             \
    X(ops, "operations", NULL, NULL) /* ldap_op rows read */                                  \
    X(naming_ops, "naming_operations", NULL, NULL) /* of them, naming at least one entry */
#define CS_REFS_OF(X) /* of the references */                                                \
    X(modrdn_new, "modrdn_new_dns", NULL, NULL) /* MODRDN new DNs */                          \
    X(internal_refs, "internal_references", NULL, NULL) /* by internal operations */
#define CS_UNSEEN(X) /* operations that read entries the log does not name */                \
    X(unseen_ops, "unseen_operations", NULL, NULL) /* one-level and subtree searches */       \
    X(unseen_onelevel, "unseen_onelevel", NULL, NULL)                                         \
    X(unseen_subtree, "unseen_subtree", NULL, NULL) /* or scope not logged */
#define CS_UNSEEN_READS(X)                                                                    \
    X(unseen_entries, "unseen_entries_returned", NULL, NULL) /* their nentries, summed */     \
    X(entry_lines, "entry_lines", NULL, NULL) /* 389 ENTRY lines (access-log level 512) */    \
    /* references from their DNs: entries one-level and subtree searches returned */          \
    X(entry_refs, "entry_refs", NULL, NULL)
#define CS_NOT_REFS(X) /* DNs that are no cache entries */                                   \
    /* outside any database backend: root DSE, cn=config, cn=schema, cn=monitor, root DN */  \
    X(outside, "outside_backends", NULL, NULL)                                                \
    X(no_dn, "binds_without_dn", NULL, NULL) /* anonymous, SASL steps */                      \
    /* answered "no such entry" (err=32, a BIND err=49 "No such entry") */                   \
    X(missing, "missing_entries", NULL, NULL)
typedef struct cs_counts {
    uint64_t references;                  /* entry references read */
    uint64_t refs_by_type[SAT_OP__COUNT]; /* of them, per operation type */
    CS_OPS(SAT_COUNTER_FIELD)
    CS_REFS_OF(SAT_COUNTER_FIELD)
    CS_UNSEEN(SAT_COUNTER_FIELD)
    uint64_t unseen_unindexed; /* of them, notes A/U (needs SAT_FIELD_NOTES) */
    CS_UNSEEN_READS(SAT_COUNTER_FIELD)
    CS_NOT_REFS(SAT_COUNTER_FIELD)
} cs_counts;
typedef struct cs_stream {
    cs_counts n;           /* every one a COUNT: one run */
    sat_ts_ns first_ts, last_ts;
    sat_fields_seen fields; /* what the inputs can hold (fields.h) */
    uint64_t servers;       /* CS_SERVER_* bits: the kinds of server whose logs were read */
} cs_stream;
extern const sat_rec_desc cs_stream_desc;
/* The kinds of server a log comes from: their caches differ (389 DS: entry,
 * DN and DB caches; OpenLDAP back-mdb: none, a memory map). */
#define CS_SERVER_389 1u
#define CS_SERVER_OPENLDAP 2u

typedef struct cs_count {
    uint64_t n;
} cs_count;
extern const sat_rec_desc cs_count_desc; /* one COUNT: rows of a keyed table */

struct sat_cs {
    sat_cs_opts o;
    sat_cs_monitor mon[2];
    cs_stream s;       /* the stream's counters (cs_stream_desc) */
    cs_mrc mrc;
    sat_keyed hours;   /* int64 hour -> cs_count references */
    sat_keyed attrs;   /* lowercased attribute a filter tests -> cs_count uses */
    int nomem;
    int finished;      /* the curve is built (sat_cs_finish) */
};

/* ---- the figures of the finished curve (cachesize_sizes.c) ------------------------ */
typedef struct cs_point {
    uint64_t entries;
    double bytes;            /* NAN without an entry size */
    double hit_ratio;
} cs_point;

typedef struct cs_target {
    double target;
    int reachable;           /* 0: above the curve's maximum (cold misses) */
    uint64_t entries;        /* the least cache size reaching it (all entries if not) */
    double bytes;            /* NAN without an entry size */
} cs_target;

typedef struct cs_hour {
    sat_ts_ns start;         /* UTC hour */
    uint64_t refs;           /* references in the hour */
    double distinct;         /* entries touched (estimated from the sample when sampled) */
} cs_hour;

#define CS_MAX_POINTS 64

/* What the result says beyond the counters, computed from the finished
 * analyzer when the result is written (cs_sizes_of). */
typedef struct cs_sizes {
    double unique;           /* distinct entries (exact, or estimated under SHARDS) */
    double max_hit_ratio;    /* 1 - cold misses / references (NAN if no reference) */
    double unseen_share;     /* unseen_ops / (naming_ops + unseen_ops); NAN if none */
    cs_point mrc[CS_MAX_POINTS];
    size_t nmrc;
    cs_target targets[SAT_CS_MAX_TARGETS];
    size_t ntargets;
    /* from entries to bytes */
    double entry_bytes;      /* NAN when unknown */
    const char *entry_bytes_from; /* "--entry-size", "cn=monitor", "LDIF export", NULL */
    double dn_entry_bytes;   /* DN cache bytes per entry */
    const char *dn_bytes_from;    /* "cn=monitor" or "estimate" */
    /* the suggestion (0 when not computable: no entry size / no reference) */
    uint64_t cachememsize, dncachememsize, dbcachesize;
    const char *backend;     /* from cn=monitor, else "userRoot" */
    /* the DB cache from the index reference rate: the index files the logged
     * filters use (and entryrdn, ancestorid for subtree searches), the part of
     * id2entry the working set reads */
    uint32_t db_indexes_used;     /* of o.db_nlist */
    uint64_t db_used_index_bytes, db_id2entry_part;
    char db_used_names[256];      /* "entryrdn cn uid" */
    /* cn=monitor comparison */
    int measured_interval;   /* 1: hit ratios from the difference of two snapshots */
    double measured_hit, measured_dn_hit; /* NAN when not given */
    double current_entries;  /* current cache capacity in entries (NAN unknown) */
    double predicted_hit;    /* the curve's hit ratio at current_entries (NAN) */
    /* how much of the server's entry reads the log names */
    double server_reads;     /* entry cache lookups between the two snapshots, else the
                                references + the reads of the unseen searches (estimate) */
    const char *reads_from;  /* "cn=monitor" or "estimate" */
    double seen_reads_share; /* references / server_reads (NAN when unknown) */
    int most_reads_unseen;   /* seen_reads_share < 0.5: the curve is not the server's */
} cs_sizes;

/* The figures of a finished analyzer (its curve built). */
void cs_sizes_of(const sat_cs *c, cs_sizes *z);
/* The working set per hour, in time order: *hours (the caller frees it) and
 * *n. SAT_OK or SAT_E_NOMEM. */
int cs_working_set(const sat_cs *c, cs_hour **hours, size_t *n);

/* cachesize.c: DN normalization (ASCII lower case, blanks around commas
 * and at the ends removed, at most CS_MAX_DN bytes), shared with the
 * cn=monitor reader. */
size_t cs_normalize_dn(const char *s, size_t n, char *out);

#endif
