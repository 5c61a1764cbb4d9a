/*
 * partial.h - a host's day in a small file (`satscope partial`, .satp): the
 * mergeable state of the digest's analyzers (analyze.h "the digest's
 * analysis plan") per server and local day, so that a fleet's hosts each
 * summarise their own day and the centre merges and renders
 * (docs/fleet.md). Loading the partials of one server-day (two halves of
 * the day, two hosts behind one name) and merging them is merging the
 * analyzers in memory: the digest from partials is the digest of one pass.
 *
 * The file, in the trace format's manner (trace/FORMAT.md: our own CRC-32s,
 * zlib's polynomial; a version that a newer minor only extends), every
 * integer little-endian:
 *   header  "SATPARTL" | u16 major (1) | u16 minor (0) | u32 0 | CRC-32 of bytes 0..15
 *   a block per server-day:
 *           "SATD" | u32 meta_len | u64 state_len (uncompressed) | u64 stored_len
 *           | CRC-32 of the meta and stored bytes | CRC-32 of bytes 0..27
 *           | meta (uncompressed: the day's server, date, offset, rows)
 *           | stored (the day's analyzer set, analyze/state_io.h, one zstd frame)
 *   trailer "SATE" | u64 days | CRC-32 of bytes 0..11
 * A reader indexes the blocks by their meta without decompressing them, and
 * loads one day's state at a time: the centre's memory is one server-day's
 * analyzers, whatever the fleet. A damaged block costs that day only (said,
 * with its byte offset); a file cut short keeps the days before the cut.
 *
 * Ownership: a sat_partial_file owns its index and the strings of its days'
 * meta; the set a day is loaded into is the caller's.
 */
#ifndef SATSCOPE_PARTIAL_H
#define SATSCOPE_PARTIAL_H

#include <stdio.h>

#include "satscope/base.h"

struct sat_multi;

#define SAT_PARTIAL_MAJOR 1
#define SAT_PARTIAL_MINOR 0
#define SAT_PARTIAL_HEADER_LEN 20  /* bytes of the header */
#define SAT_PARTIAL_TRAILER_LEN 16 /* and of the trailer */

typedef struct sat_partial_day {
    const char *server;   /* the name the digest shows it by */
    int named;            /* the server's own name (--server, its log's host), not its path's */
    char date[16];        /* "2026-11-03", local, or "undated" */
    int64_t day;          /* local days since 1970-01-01 (SAT_SPLIT_UNDATED: undated) */
    int64_t start_ts;     /* its local midnight, UTC ns */
    int32_t utc_offset_s;
    uint64_t rows;        /* rows routed to it */
} sat_partial_day;

/* ---- writing (to a stream of the safe writer) --------------------------------- */
int sat_partial_write_header(FILE *f, sat_diag *d);
/* One server-day: its meta and its set's state (after the rows, before
 * finish: sat_split_assemble). *bytes (may be NULL) gets the block's size. */
int sat_partial_write_day(FILE *f, const sat_partial_day *meta, const struct sat_multi *set,
                          uint64_t *bytes, sat_diag *d);
int sat_partial_write_end(FILE *f, uint64_t ndays, sat_diag *d);

/* ---- reading ---------------------------------------------------------------------- */
typedef struct sat_partial_file sat_partial_file;
/* Opens and indexes path; NULL with d set when it is no partial, a newer
 * major version, or unreadable. Damage past the header is said through
 * warn (may be NULL) and costs only the days it touches. */
sat_partial_file *sat_partial_open(const char *path,
                                   void (*warn)(void *ctx, const char *where, const char *msg),
                                   void *ctx, sat_diag *d);
void sat_partial_close(sat_partial_file *p); /* NULL ok */
size_t sat_partial_ndays(const sat_partial_file *p);
const sat_partial_day *sat_partial_day_at(const sat_partial_file *p, size_t i);
/* Loads day i's state into set, a fresh set of the digest's plan
 * (sat_multi_create), checking every checksum and every byte.
 * SAT_OK, or SAT_E_CORRUPT / SAT_E_NOMEM / SAT_E_IO with d set. */
int sat_partial_load(sat_partial_file *p, size_t i, struct sat_multi *set, sat_diag *d);
/* Whether path starts like a partial (its magic): 1, 0, or < 0 unreadable. */
int sat_partial_sniff(const char *path);

/* ---- a partial's figures as plain columns (analyze/partial_columns.c) ----------
 * What `satscope export` gives a database of a partial: per server-day and
 * operation type, etime's counts and the sketch of its etimes as it is (its
 * exact values while it holds at most exact_max of them, else its non-empty
 * buckets and its count of values <= 0), never a database's own aggregate
 * state; docs/clickhouse.md's SQL merges the parts of a server-day and
 * answers p50/p90/p99 as satscope does, to the ns. Two tables, with ids
 * after the trace's (event.h) and the trace schema's row types:
 *   partial_op   a row per server-day and type: its counts, min and max;
 *   partial_key  a row per exact value or bucket: its key and count. */
#include "satscope/event.h"
#include "satscope/trace.h"

enum { SAT_PARTIAL_TABLE_OP = SAT_TABLE__COUNT, SAT_PARTIAL_TABLE_KEY, SAT_PARTIAL_TABLE__END };

typedef struct sat_partial_op_row {
    sat_str server;        /* the name the digest shows */
    sat_str day;           /* "2026-11-03" */
    sat_ts_ns day_ts;      /* its local midnight, UTC */
    int32_t utc_offset_s;
    sat_str op;            /* "SRCH" */
    int64_t operations, results, errors;
    int64_t timed;         /* operations with an etime: the sketch's n */
    int64_t vmin, vmax;    /* of those etimes (ns); 0 when none */
    int64_t exact_max;     /* the sketch's exact limit */
    uint8_t bucketed;      /* 0: partial_key holds its values, 1: its buckets */
} sat_partial_op_row;

enum { SAT_PARTIAL_KEY_VALUE = 0, SAT_PARTIAL_KEY_BUCKET = 1, SAT_PARTIAL_KEY_ZEROS = 2 };
typedef struct sat_partial_key_row {
    sat_str server, day;
    sat_ts_ns day_ts;
    sat_str op;
    uint8_t kind;          /* SAT_PARTIAL_KEY_*: an etime (ns), a bucket index i
                              (values v with ceil(ln v / ln gamma) = i), the values <= 0 */
    int64_t key, count;
    /* its sketch's min, max and exact limit, on each key of it: what the
     * quantile needs beside the keys, in the same rows (no join) */
    int64_t vmin, vmax, exact_max;
} sat_partial_key_row;

/* The table of id SAT_PARTIAL_TABLE_*, or of name; NULL if none. */
const sat_table_def *sat_partial_table(int id);
const sat_table_def *sat_partial_table_by_name(const char *name);
/* The rows of a day's set (loaded, unfinished or finished) to row(ctx,
 * table id, row) (strings borrowed for the call): partial_op rows of the
 * types with operations, and their partial_key rows. SAT_OK, the first
 * error row returned, or SAT_E_NOMEM. */
int sat_partial_columns(const struct sat_multi *set, const sat_partial_day *day,
                        int (*row)(void *ctx, int table, const void *row), void *ctx);

#endif /* SATSCOPE_PARTIAL_H */
