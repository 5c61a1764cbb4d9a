/*
 * analyze_cachesize.h - the cachesize analyzer (analyze/cachesize*.c), part
 * of analyze.h: entry and database cache sizes from the access pattern.
 */
#ifndef SATSCOPE_ANALYZE_CACHESIZE_H
#define SATSCOPE_ANALYZE_CACHESIZE_H

#include "satscope/event.h"
#include "satscope/fields.h"
#include "satscope/result.h"

/* ---- the cachesize analyzer (analyze/cachesize.c) ----------------------
 * The entry reference stream of the logs (the DNs the operations name, see
 * cachesize.c for the exact definition), its LRU miss-ratio curve (exact
 * Mattson stack distances, or SHARDS sampling in bounded memory), the working
 * set per hour, and the entry / DN / DB cache sizes for target hit ratios,
 * compared with cn=monitor snapshots when given. */
#define SAT_CS_MAX_TARGETS 8

/* One cn=monitor snapshot of an ldbm backend ("ldapsearch -b cn=monitor,cn=NAME,
 * cn=ldbm database,cn=plugins,cn=config" LDIF). Numbers SAT_ABSENT when absent. */
typedef struct sat_cs_monitor {
    char backend[64];        /* NAME from the entry's dn, "" if not of that form */
    int64_t entry_hits, entry_tries, entry_cur_bytes, entry_max_bytes;
    int64_t entry_cur_count, entry_max_count;
    int64_t dn_hits, dn_tries, dn_cur_bytes, dn_max_bytes, dn_cur_count, dn_max_count;
} sat_cs_monitor;
/* Reads the entries of an LDIF buffer (folded lines, comments, base64 values
 * skipped); each entry carrying at least one of the counters above fills one
 * snapshot, up to cap. Returns the number filled (0: none found). Never
 * allocates; any bytes are safe. */
size_t sat_cs_monitor_parse(const char *buf, size_t len, sat_cs_monitor *out, size_t cap);

enum sat_cs_db { SAT_CS_DB_NONE, SAT_CS_DB_BDB, SAT_CS_DB_LMDB };
enum sat_cs_method { SAT_CS_EXACT, SAT_CS_SHARDS };

typedef struct sat_cs_opts {
    double targets[SAT_CS_MAX_TARGETS]; /* hit ratios in (0, 1); none -> 0.95, 0.99 */
    size_t ntargets;
    uint64_t max_refs;       /* references kept before spatial sampling starts;
                                0 -> 16 Mi (8 bytes each) */
    size_t shards_smax;      /* SHARDS sample set size; 0 -> 32768 */
    int force_shards;        /* SHARDS even when every reference was kept */
    double entry_bytes;      /* --entry-size; 0 unknown */
    uint64_t ldif_entries, ldif_bytes; /* --ldif: entries and their bytes; 0 none */
    const sat_cs_monitor *monitor; size_t nmonitor; /* copied at create (first two) */
    int db_kind;             /* enum sat_cs_db: --db-dir given and what it held */
    uint64_t db_index_bytes, db_id2entry_bytes; /* BDB: index .db files, id2entry.db */
    uint32_t db_files;
    /* BDB: each index file (name without ".db", bytes), borrowed until finish */
    const struct sat_cs_dbfile { const char *name; uint64_t bytes; } *db_list;
    size_t db_nlist;
} sat_cs_opts;

typedef struct sat_cs_point {
    uint64_t entries;
    double bytes;            /* NAN without an entry size */
    double hit_ratio;
} sat_cs_point;

typedef struct sat_cs_target {
    double target;
    int reachable;           /* 0: above the curve's maximum (cold misses) */
    uint64_t entries;        /* the least cache size reaching it (all entries if not) */
    double bytes;            /* NAN without an entry size */
} sat_cs_target;

typedef struct sat_cs_hour {
    sat_ts_ns start;         /* UTC hour */
    uint64_t refs;           /* references in the hour */
    double distinct;         /* entries touched (estimated from the sample when sampled) */
} sat_cs_hour;

typedef struct sat_cs_view {
    int method;              /* enum sat_cs_method */
    uint64_t references;     /* entry references read */
    uint64_t kept;           /* of them stored (all when not sampled) */
    double keep_rate;        /* spatial sampling rate of the stored stream (1 = all) */
    double shards_rate;      /* SHARDS: the final sampling rate (NAN when exact) */
    size_t shards_smax;
    double unique;           /* distinct entries (exact, or estimated under SHARDS) */
    double max_hit_ratio;    /* 1 - cold misses / references (NAN if no reference) */
    uint64_t refs_by_type[SAT_OP__COUNT]; /* references per operation type */
    uint64_t modrdn_new;     /* MODRDN new DNs among the references */
    uint64_t internal_refs;  /* references by internal operations */
    /* operations that touch entries the log does not name */
    uint64_t ops;            /* ldap_op rows read */
    uint64_t naming_ops;     /* of them, operations that named at least one entry */
    uint64_t unseen_ops;     /* one-level and subtree searches */
    uint64_t unseen_onelevel, unseen_subtree, unseen_unindexed; /* of them; notes A/U */
    uint64_t unseen_entries; /* entries those searches returned (nentries sum) */
    uint64_t entry_lines;    /* 389 ENTRY lines (access-log level 512) */
    uint64_t entry_refs;     /* references from their DNs: the entries one-level and
                                subtree searches returned, seen that way only */
    double unseen_share;     /* unseen_ops / (naming_ops + unseen_ops); NAN if none */
    uint64_t outside;        /* DNs outside any database backend (root DSE, cn=config,
                                cn=schema, cn=monitor, the root DN): not references */
    uint64_t no_dn;          /* BINDs without a DN (anonymous, SASL steps) */
    uint64_t missing;        /* operations answered "no such entry" (err=32, a BIND err=49
                                "No such entry"): their DNs are no cache entries */
    sat_fields_seen fields;  /* what the inputs can hold (fields.h); unseen_unindexed
                                needs SAT_FIELD_NOTES */
    uint32_t fields_known;   /* sat_fields_known(&fields), at finish */
    sat_ts_ns first_ts, last_ts;
    const sat_cs_point *mrc; size_t nmrc;
    const sat_cs_target *targets; size_t ntargets;
    const sat_cs_hour *hours; size_t nhours;
    double dn_mean_len;      /* normalized DN bytes, mean over distinct entries (NAN none) */
    /* from entries to bytes */
    double entry_bytes;      /* NAN when unknown */
    const char *entry_bytes_from; /* "--entry-size", "cn=monitor", "LDIF export", NULL */
    double dn_entry_bytes;   /* DN cache bytes per entry */
    const char *dn_bytes_from;    /* "cn=monitor" or "estimate" */
    /* the suggestion (0 when not computable: no entry size / no reference) */
    uint64_t cachememsize, dncachememsize, dbcachesize;
    const char *backend;     /* from cn=monitor, else "userRoot" */
    int db_kind;
    uint64_t db_index_bytes, db_id2entry_bytes;
    uint32_t db_files;
    /* the DB cache from the index reference rate: the index files the logged
     * filters use (and entryrdn, ancestorid for subtree searches), the part of
     * id2entry the working set reads */
    uint32_t db_indexes_used;     /* of db_nlist */
    uint64_t db_used_index_bytes, db_id2entry_part;
    char db_used_names[256];      /* "entryrdn cn uid" */
    /* cn=monitor comparison */
    size_t nmonitor;
    const sat_cs_monitor *monitor;
    int measured_interval;   /* 1: hit ratios from the difference of two snapshots */
    double measured_hit, measured_dn_hit; /* NAN when not given */
    double current_entries;  /* current cache capacity in entries (NAN unknown) */
    double predicted_hit;    /* the curve's hit ratio at current_entries (NAN) */
    /* how much of the server's entry reads the log names (cachesize.c) */
    double server_reads;     /* entry cache lookups between the two snapshots, else the
                                references + the reads of the unseen searches (estimate);
                                NAN when neither */
    const char *reads_from;  /* "cn=monitor" or "estimate" */
    double seen_reads_share; /* references / server_reads (NAN when unknown) */
    int most_reads_unseen;   /* seen_reads_share < 0.5: the curve is not the server's */
    uint64_t memory_bytes;
} sat_cs_view;

typedef struct sat_cs sat_cs;
sat_cs *sat_cs_create(const sat_cs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_cs_sink(sat_cs *c);           /* ldap_op rows */
/* One reference to the entry `dn` (normalized here) at ts (0: unknown hour);
 * what the sink does per DN, for tests and benches. SAT_OK or SAT_E_NOMEM. */
int sat_cs_add_ref(sat_cs *c, const char *dn, size_t len, sat_ts_ns ts);
int sat_cs_finish(sat_cs *c);                    /* SAT_OK or SAT_E_NOMEM */
/* Appends from's reference stream after into's (days in order, or servers),
 * sampled at the lower of the two rates: the result is the curve of the
 * concatenated stream. */
int sat_cs_merge(sat_cs *into, const sat_cs *from);
const sat_cs_view *sat_cs_get_view(const sat_cs *c); /* after finish */
/* The finished analyzer's sections (cachesize_result.c): SAT_OK or SAT_E_NOMEM. */
int sat_cs_result(const sat_cs *c, sat_result *r);
/* After finish: LRU hits (estimated under SHARDS) with a cache of `entries`,
 * and its hit ratio (NAN when no reference). */
double sat_cs_hits(const sat_cs *c, uint64_t entries);
double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries);
void sat_cs_free(sat_cs *c); /* NULL ok */

#endif /* SATSCOPE_ANALYZE_CACHESIZE_H */
