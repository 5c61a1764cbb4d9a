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

typedef struct sat_cs sat_cs;
sat_cs *sat_cs_create(const sat_cs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_cs_sink(sat_cs *c);           /* ldap_op rows */
/* One reference to the entry `dn` (normalized here) at ts (0: unknown hour);
 * what the sink does per DN, for tests and benches. SAT_OK or SAT_E_NOMEM. */
int sat_cs_add_ref(sat_cs *c, const char *dn, size_t len, sat_ts_ns ts);
int sat_cs_finish(sat_cs *c);                    /* builds the curve: SAT_OK or SAT_E_NOMEM */
/* Appends from's reference stream after into's (days in order, or servers),
 * sampled at the lower of the two rates: the result is the curve of the
 * concatenated stream. */
int sat_cs_merge(sat_cs *into, const sat_cs *from);
/* The finished analyzer's sections (cachesize_result.c), written from its
 * state: the targets, the suggested settings and their LDIF, the reads the
 * log names, cn=monitor, the stream, the working set and the curve.
 * SAT_OK, SAT_E_NOMEM, or SAT_E_USAGE before finish. */
int sat_cs_result(const sat_cs *c, sat_result *r);
/* After finish: LRU hits (estimated under SHARDS) with a cache of `entries`,
 * and its hit ratio (NAN when no reference). */
double sat_cs_hits(const sat_cs *c, uint64_t entries);
double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries);
void sat_cs_free(sat_cs *c); /* NULL ok */
/* Its state before finish as bytes and back, into a fresh instance made with
 * the same options (analyze/cachesize_state.c, analyze/state_io.h). SAT_OK,
 * SAT_E_NOMEM, or (load) SAT_E_CORRUPT with the reader's message. */
struct sat_sw;
struct sat_sr;
int sat_cs_save(const sat_cs *c, struct sat_sw *w);
int sat_cs_load(sat_cs *c, struct sat_sr *r);

#endif /* SATSCOPE_ANALYZE_CACHESIZE_H */
