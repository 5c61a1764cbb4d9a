/*
 * cli_export.h - what `satscope export` (cmd_export.c) shares with its
 * ClickHouse loader (cli_export_ch.c): a row in RowBinary, the columns an
 * INSERT names, the CREATE TABLEs, and the loader itself.
 */
#ifndef SAT_CLI_EXPORT_H
#define SAT_CLI_EXPORT_H

#include <stdio.h>

#include "cli.h"
#include "cli_clickhouse.h"
#include "satscope/partial.h"
#include "satscope/trace.h"

/* The column that says which export a row came from (cli_export_ch.c: the
 * fingerprint of its inputs); DEFAULT 0, so inserts that do not name it work. */
#define SAT_EXPORT_FP_COLUMN "export_fp"

/* One row of table d in ClickHouse's RowBinary, the columns of
 * sat_export_columns in order. */
void sat_export_row_rowbinary(FILE *f, const sat_table_def *d, const unsigned char *row);
/* The columns a row carries, comma separated (no DEFAULT column). */
void sat_export_columns(FILE *f, const sat_table_def *d);
/* CREATE TABLE IF NOT EXISTS db.<table>: MergeTree, or with cluster a
 * Distributed table over that cluster's tables of the same name in
 * shard_db ("" or NULL: each replica's default database). No trailing ';'. */
void sat_export_print_ddl(FILE *f, const sat_table_def *d, const char *db, const char *cluster,
                          const char *shard_db);
/* The same of db.exports, the record of finished exports (cli_export_ch.c). */
void sat_export_print_ddl_exports(FILE *f, const char *db, const char *cluster,
                                  const char *shard_db);

/* The tables export writes: the trace's (event.h ids) and, after them, a
 * partial's plain columns (partial.h SAT_PARTIAL_TABLE_*): by id below
 * SAT_EXPORT_TABLES, or by name; NULL if none (cli_export_partials.c). */
#define SAT_EXPORT_TABLES SAT_PARTIAL_TABLE__END
const sat_table_def *sat_export_table(int id);
const sat_table_def *sat_export_table_by_name(const char *name);
/* The inputs' rows to sink: the collection's, or the partials' plain
 * columns (each server-day's partials merged first). The exit code;
 * *read_none set when nothing could be read. */
int sat_export_source_run(sat_cli_collect *c, char *const *paths, size_t npaths,
                          const sat_event_sink *sink, int *read_none);

/* A LEB128 length (RowBinary's strings and arrays). */
void sat_export_put_len(FILE *f, uint64_t n);
void sat_export_put_le(FILE *f, uint64_t v, int bytes);

/* The loader: the inputs' rows of the tables asked for (SAT_TABLE_BIT mask)
 * into ClickHouse's db over HTTP, once per source (cli_export_ch.c,
 * docs/clickhouse.md). Returns the exit code. */
typedef struct sat_export_ch {
    sat_ch_opts http;
    const char *db;          /* "satscope" */
    uint32_t tables;
    uint64_t chunk_rows;     /* rows per POST (0: the default) */
    struct sat_anon *anon;   /* the pseudonymiser in front (--anonymize-key), or NULL */
} sat_export_ch;
int sat_cli_export_clickhouse(sat_cli_collect *c, char *const *paths, size_t npaths,
                              const sat_export_ch *x);

#endif
