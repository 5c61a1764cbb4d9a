/*
 * trace.h - the .sat columnar trace: a streaming writer and a reader with
 * table/column projection and time-range skipping. Byte layout: trace/FORMAT.md.
 *
 * Writer: rows are appended per table (structs of event.h); every N rows (or
 * when a block's buffers reach their bound) a table's block is encoded column
 * by column, compressed with zstd, checksummed and appended to a temporary
 * file beside PATH (PATH.XXXXXX.partial, created with O_EXCL|O_NOFOLLOW).
 * Blocks are self-delimiting, so a killed writer leaves a readable prefix.
 * sat_trace_writer_close writes the footer index and renames the temporary
 * file to PATH: the final name exists only for a complete trace.
 *
 * Reader: opens a trace (complete, or a partial one with a warning in the
 * diag), and replays rows into a sat_event_sink, reading only the blocks whose
 * time range meets the requested window and only the requested columns.
 * All input bytes are untrusted and read through sat_cursor.
 */
#ifndef SATSCOPE_TRACE_H
#define SATSCOPE_TRACE_H

#include "satscope/event.h"
#include "satscope/safe_out.h"

/* ---- schema ---------------------------------------------------------------------- */
enum sat_col_type {
    SAT_COL_TS = 1, /* int64 ns timestamp: delta-of-delta, zigzag varint */
    SAT_COL_I64,    /* int64: delta, zigzag varint */
    SAT_COL_I32,    /* int32: zigzag varint */
    SAT_COL_U16,    /* uint16 */
    SAT_COL_U8,     /* uint8 (enums, flags) */
    SAT_COL_STR     /* sat_str: per-block dictionary + varint codes; absent != "" */
};

typedef struct sat_column_def {
    const char *name;  /* "ts_ns", "conn", "dn", ... stable: part of the format */
    uint8_t type;      /* enum sat_col_type */
    uint16_t offset;   /* offsetof() in the row struct */
} sat_column_def;

typedef struct sat_table_def {
    const char *name;        /* "ldap_op" */
    uint16_t id;             /* enum sat_table */
    size_t row_size;         /* sizeof the row struct */
    const char *ts_column;   /* column indexed for time skipping, or NULL */
    const sat_column_def *columns;
    size_t ncolumns;
} sat_table_def;

/* Schema of every table known to this build (trace/schema.c). */
const sat_table_def *sat_table_get(int table_id); /* NULL if unknown */
const sat_table_def *sat_table_by_name(const char *name);
/* The string fields of table_id's row struct: the byte offsets (offsetof in
 * the struct of event.h) of its sat_str members, one per SAT_COL_STR column,
 * in column order; *n gets their number. NULL with *n = 0 for an unknown
 * table. The array is static: it lives as long as the program and may be
 * kept and read from any thread (it is made once, on the first call).
 * Code that copies rows beyond their callback (across threads, past a
 * parser's buffer) loops over it, so that a string field added to event.h
 * and schema.c is copied with no other edit. */
const uint16_t *sat_table_str_offsets(int table_id, size_t *n);
/* A row of table_id copied with its strings into one malloc'd block (the
 * caller frees it): sink rows are borrowed for the callback only (event.h),
 * this keeps one. NULL if the table is unknown or memory ran out. */
void *sat_table_row_copy(int table_id, const void *row);

/* ---- writer ---------------------------------------------------------------------- */
typedef struct sat_trace_writer sat_trace_writer;

typedef struct sat_trace_write_opts {
    uint32_t rows_per_block;  /* 0 -> default (see FORMAT.md) */
    int zstd_level;           /* 0 -> default */
    unsigned mode;            /* permission bits of the new trace, applied
                                 exactly (the caller applies its umask);
                                 0 -> 0600. Never looser than a regular file
                                 at PATH that it replaces; owner rw always. */
    const sat_file_id *inputs;       /* the run's input files (safe_out.h): a PATH
                                         that is one of them is refused */
    size_t ninputs;
    uint32_t flags;           /* SAT_TRACE_F_* bits of the file header */
} sat_trace_write_opts;

/* Flags of the file header (FORMAT.md "File header"). */
enum sat_trace_flags {
    SAT_TRACE_F_PSEUDONYMISED = 1u << 0 /* written through the pseudonymiser
                                           (collect --anonymize-key: docs/privacy.md) */
};

/* Creates the trace through the safe writer (safe_out.h): a temporary file
 * in PATH's directory (an unpredictable name, O_CREAT|O_EXCL|O_NOFOLLOW: a
 * planted file or symlink is never opened), renamed onto PATH by close.
 * NULL with SAT_E_USAGE when PATH exists and is not a regular file (device
 * node, FIFO, symlink, directory) or is an input: it is never replaced.
 * opts may be NULL. */
sat_trace_writer *sat_trace_writer_create(const char *path,
                                          const sat_trace_write_opts *opts,
                                          sat_diag *diag);
/* A writer that streams the trace to fd (standard output, a pipe): blocks,
 * then footer and trailer, in order; nothing is renamed or fsynced. fd is
 * borrowed (never closed); name is for messages. A reader needs the whole
 * stream in a regular file. */
sat_trace_writer *sat_trace_writer_create_fd(int fd, const char *name,
                                             const sat_trace_write_opts *opts,
                                             sat_diag *diag);
/* The temporary file being written (NULL when streaming); valid until close. */
const char *sat_trace_writer_partial_path(const sat_trace_writer *w);
/* The permission bits the file was created with (0 when streaming). */
unsigned sat_trace_writer_mode(const sat_trace_writer *w);
/* Appends one row of table_id (a pointer to the event.h struct). Strings are
 * copied. Returns SAT_OK or a negative status (I/O error: diag set). */
int sat_trace_writer_append(sat_trace_writer *w, int table_id, const void *row);
/* A sink whose callbacks append to w (w must outlive the sink's use). */
sat_event_sink sat_trace_writer_sink(sat_trace_writer *w);
/* Flushes, writes the footer, fsyncs, renames the temporary file -> PATH
 * (refused with SAT_E_USAGE if something not a regular file appeared at PATH
 * meanwhile: the complete trace stays in the temporary file, named in the
 * message), frees w. On another failure the temporary file is left for
 * inspection and w is freed. */
int sat_trace_writer_close(sat_trace_writer *w, sat_diag *diag);
/* Hands every filled block to the compression thread and waits until all are
 * written to PATH.partial (not fsynced): a writer killed after this leaves
 * every row appended so far readable. Not needed before close. */
int sat_trace_writer_flush(sat_trace_writer *w);
/* Frees w and removes its temporary file (an aborted collection). NULL is fine. */
void sat_trace_writer_abort(sat_trace_writer *w);

/* ---- reader ---------------------------------------------------------------------- */
typedef struct sat_trace_reader sat_trace_reader;

/* Does buf (first bytes of a file: 56 or more to see a trace whose file
 * header is damaged) start like a .sat trace? */
int sat_trace_sniff(const void *buf, size_t len);

/* Opens and indexes a trace. A trace without a valid footer (a partial one) is
 * indexed by scanning its blocks; the reader is returned with diag->code set
 * to SAT_E_TRUNCATED and a warning in diag->msg. A trace whose file header is
 * damaged but whose blocks or trailer hold (FORMAT.md "File header") is
 * indexed by its footer or by scanning, and returned with SAT_E_CORRUPT and a
 * warning. NULL (diag set) if nothing is usable. */
sat_trace_reader *sat_trace_reader_open(const char *path, sat_diag *diag);
void sat_trace_reader_close(sat_trace_reader *r); /* NULL is fine */
/* Same as sat_trace_reader_open on the bytes buf[0..len) (fuzzing, tests);
 * buf is borrowed and must outlive the reader. */
sat_trace_reader *sat_trace_reader_open_mem(const void *buf, size_t len,
                                            sat_diag *diag);
/* Blocks decoded by sat_trace_read on r so far (time-window tests, info). */
uint64_t sat_trace_reader_blocks_decoded(const sat_trace_reader *r);

typedef struct sat_trace_read_opts {
    uint32_t tables;      /* SAT_TABLE_BIT(table_id)s; 0 = every table (of those
                             the sink takes: its mask limits the read too) */
    /* Per table: NULL = every column, else a NULL-terminated list of column
     * names to decode; the other fields of the row are left absent. */
    const char *const *columns[SAT_TABLE__COUNT];
    sat_ts_ns from_ns, to_ns; /* [from, to); 0 = unbounded on that side */
} sat_trace_read_opts;

/* Replays rows in file order into sink (strings valid during the callback).
 * Blocks outside the window are skipped without being decompressed; rows of a
 * read block outside the window are filtered. A damaged block (a checksum or
 * its decoding fails) is skipped and every other block is still read
 * (FORMAT.md "Damaged blocks"): the call then returns SAT_E_CORRUPT with diag
 * naming the first one, and sat_trace_reader_damage lists them all. Returns
 * SAT_OK, the sink's status (reading stops there), SAT_E_CORRUPT, or another
 * negative status with diag set. */
int sat_trace_read(sat_trace_reader *r, const sat_trace_read_opts *opts,
                   const sat_event_sink *sink, sat_diag *diag);

/* A block whose rows could not be read. */
typedef struct sat_trace_damage {
    uint64_t block;            /* its number in file order ("block N") */
    int table_id;              /* -1: unknown (its header is unreadable and no
                                  footer names it) */
    uint64_t offset, length;   /* bytes of the file it spans */
    uint64_t rows;             /* rows lost; 0 = unknown */
    sat_ts_ns min_ts, max_ts;  /* time range of those rows; 0 = unknown or
                                  none (the table has no time column) */
    char reason[256];          /* "column ts_ns: checksum mismatch" */
} sat_trace_damage;

/* The damaged blocks skipped by the last sat_trace_read on r (only those of
 * the tables and time window it was asked for), in file order. *out is owned
 * by r and valid until the next read, stat or close. */
size_t sat_trace_reader_damage(const sat_trace_reader *r, const sat_trace_damage **out);
/* One line for d, the same wherever it is said: "ldap_op, 65536 rows from
 * 2025-06-09T13:30:00.003148780Z to ...Z lost (column ts_ns: checksum
 * mismatch)". Returns snprintf's count. */
int sat_trace_damage_describe(const sat_trace_damage *d, char *buf, size_t n);

/* ---- inspection (info / verify) ------------------------------------------------- */
typedef struct sat_column_stat {
    const char *name;
    uint8_t type;
    uint64_t encoded_bytes;    /* after column encoding, before zstd */
    uint64_t compressed_bytes; /* on disk */
} sat_column_stat;

typedef struct sat_table_stat {
    const char *name;
    int table_id;
    uint64_t rows, blocks;
    sat_ts_ns min_ts, max_ts; /* 0 if the table has no time column / no rows */
    uint64_t compressed_bytes;
    size_t ncolumns;
    const sat_column_stat *columns; /* owned by the reader */
} sat_table_stat;

typedef struct sat_trace_stat {
    uint32_t format_version;
    uint32_t flags;     /* the file header's SAT_TRACE_F_* bits */
    uint64_t file_bytes;
    int complete;       /* footer present and valid */
    size_t ntables;
    const sat_table_stat *tables; /* owned by the reader, valid until close */
    /* Every damaged block of the file (stat checks every checksum), in file
     * order. tables[] counts the intact blocks only: their rows are what a
     * read gives. Owned by the reader, valid until the next stat or close. */
    size_t ndamaged;
    const sat_trace_damage *damaged;
} sat_trace_stat;

int sat_trace_reader_stat(sat_trace_reader *r, sat_trace_stat *out, sat_diag *diag);

/* Verifies every checksum (blocks, footer). Calls report(ctx, where, msg) for
 * each problem found; returns SAT_OK only if the file is intact and complete. */
int sat_trace_verify(const char *path,
                     void (*report)(void *ctx, const char *where, const char *msg),
                     void *ctx, sat_diag *diag);
/* sat_trace_verify on the bytes buf[0..len). */
int sat_trace_verify_mem(const void *buf, size_t len,
                         void (*report)(void *ctx, const char *where, const char *msg),
                         void *ctx, sat_diag *diag);

#endif /* SATSCOPE_TRACE_H */
