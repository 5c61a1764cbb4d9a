/*
 * trace_internal.h - what the files of the .sat trace share beyond trace.h:
 * format constants (FORMAT.md), CRC, varint helpers and the absent value of
 * every column (schema.c); the reader's state, shared by trace_reader.c,
 * trace_scan.c and trace_decode.c; the writer's state, shared by
 * trace_writer.c, trace_encode.c and trace_output.c.
 */
#ifndef SAT_TRACE_INTERNAL_H
#define SAT_TRACE_INTERNAL_H

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "satscope/trace.h"

#define SAT_FMT_MAJOR 1
#define SAT_FMT_MINOR 5 /* 1.3: the crash and frame tables; 1.4: new columns,
                           flag bits and close codes in existing tables; 1.5: the
                           http_req table (FORMAT.md) */
#define SAT_FILE_HDR_LEN 20
#define SAT_BLOCK_HDR_LEN 36
#define SAT_TRAILER_LEN 24
#define SAT_FOOTER_ENTRY_LEN 40
#define SAT_MAX_COLS 1024
#define SAT_MAX_ROWS (1u << 20)
#define SAT_MAX_COLS_TABLE 64 /* columns of one table in this build (schema.c) */
#define SAT_MAX_DIR (1u << 20)
#define SAT_MAX_COL_BYTES (256u << 20)
#define SAT_MAX_STR (1u << 20)          /* longer strings are cut by the writer */
#define SAT_MAX_STR_COL (32u << 20)     /* dictionary bytes of one STR column */
#define SAT_MAX_NAME 64
#define SAT_DEFAULT_ROWS 65536
#define SAT_DEFAULT_LEVEL 1 /* FORMAT.md "Measurements" */
#define SAT_BLOCK_STR_BYTES (16u << 20)

enum sat_enc { SAT_ENC_CONST = 0, SAT_ENC_PLAIN, SAT_ENC_DELTA, SAT_ENC_DOD,
               SAT_ENC_RLE, SAT_ENC_BITPACK, SAT_ENC_REF, SAT_ENC__COUNT };
#define SAT_ENC_SPLIT 0x80 /* flag on PLAIN/DELTA/DOD/REF: numbers in byte planes */

uint32_t sat_trace_crc32(const void *p, size_t n);

/* Block and column checksums compare through this, so that a fuzzing build
 * (clang's FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION convention) can reach
 * the decoders behind them. Never defined in a normal build. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define SAT_CRC_MATCH(a, b) ((void)(a), (void)(b), 1)
#else
#define SAT_CRC_MATCH(a, b) ((a) == (b))
#endif

/* Absent value of column col of table t (FORMAT.md "Schema"). */
int64_t sat_col_absent(int table_id, size_t col);
/* Columns (schema indexes, at most 2) that column col may be REF-encoded
 * against: result_ts_ns - ts_ns, etime - (wtime + optime), close_ts -
 * open_ts, last_ts - first_ts. Returns how many (0 = none). */
int sat_col_refs(int table_id, size_t col, int refs[2]);
/* Index of the named column in t, or -1. */
int sat_col_index(const sat_table_def *t, const char *name, size_t len);

static inline void sat_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void sat_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void sat_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline size_t sat_uvarint_len(uint64_t v)
{
    return v ? (size_t)(64 - __builtin_clzll(v) + 6) / 7 : 1;
}
static inline uint8_t *sat_put_uvarint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* ---- reader (trace_reader.c, trace_scan.c, trace_decode.c) ---------------- */
typedef struct rblock {
    uint16_t table;
    uint32_t nrows;
    uint64_t off, len;
    int64_t min_ts, max_ts;
    uint64_t no; /* number in file order, damaged blocks included ("block N") */
} rblock;

/* Damaged blocks (FORMAT.md "Damaged blocks"). */
typedef struct dlist {
    sat_trace_damage *v;
    size_t n, cap;
} dlist;

static inline int dlist_add(dlist *l, const sat_trace_damage *d)
{
    if (SAT_GROW(l->v, l->cap, l->n + 1) != SAT_OK)
        return SAT_E_NOMEM;
    l->v[l->n++] = *d;
    return SAT_OK;
}

typedef struct rbuf {
    uint8_t *p;
    size_t cap;
} rbuf;

static inline int rbuf_need(rbuf *b, size_t n)
{
    if (b->cap >= n && b->p)
        return 0;
    size_t nc = n < 4096 ? 4096 : n;
    uint8_t *np = (uint8_t *)realloc(b->p, nc);
    if (!np)
        return SAT_E_NOMEM;
    b->p = np;
    b->cap = nc;
    return 0;
}

/* One column of the directory of the block being read. */
typedef struct dcol {
    const uint8_t *name;
    uint8_t namelen, type, storage;
    uint64_t elen, slen, doff;
    uint32_t crc;
    int sidx; /* schema column index or -1 */
} dcol;

/* Integer stream decoder (FORMAT.md "Encoded integer stream"). */
typedef struct idec {
    sat_cursor c;
    uint8_t enc, width, split, nref;
    int64_t cur, d;
    uint64_t run;
    uint32_t i, n, lead;
    unsigned ref[2];
    const uint8_t *bits; /* BITPACK bytes, or SPLIT planes */
    uint64_t leadv[2];   /* SPLIT: the numbers stored before the planes */
} idec;

typedef struct coldec {
    int loaded;
    idec ints;
    sat_str *dict; /* STR: entries */
    uint64_t ndict;
} coldec;

struct sat_trace_reader {
    char *path;
    int fd;
    const uint8_t *mem;
    uint64_t size;
    uint16_t major, minor;
    uint32_t flags; /* the file header's */
    int complete;
    int hdr_damaged;      /* the file header failed its magic or checksum, the
                             blocks (or the trailer) say it is a trace: read as
                             SAT_FMT_MAJOR.SAT_FMT_MINOR (FORMAT.md "File header") */
    char hdr_why[64];     /* what failed: "no SATSCOPE magic", "checksum mismatch" */
    rblock *blocks;
    size_t nblocks;
    ZSTD_DCtx *dctx;
    rbuf hdr, stored;
    rbuf *colbuf;  /* SAT_MAX_COLS, lazily */
    coldec *dec;   /* SAT_MAX_COLS */
    dcol *dir;     /* SAT_MAX_COLS */
    int64_t *vals; /* SAT_MAX_COLS */
    sat_str **dicts;
    uint64_t *dictcap;
    /* stat storage */
    sat_table_stat *tstats;
    size_t ntstats;
    sat_column_stat **cstats;
    char **names;
    size_t nnames;
    uint64_t blocks_decoded; /* for tests: blocks actually read */
    dlist scan_dmg;  /* damage found while indexing by scanning */
    dlist read_dmg;  /* damage the last sat_trace_read skipped */
    dlist stat_dmg;  /* every damaged block, found by stat */
};

static inline int where_block(char *buf, size_t n, const sat_trace_reader *r,
                       size_t bi, uint64_t off)
{
    return snprintf(buf, n, "%s: block %zu (offset %" PRIu64 ")",
                    r->path ? r->path : "<memory>", bi, off);
}

#define BLOCK_ERR(code, ...)                                                 \
    do {                                                                     \
        char where_[512];                                                    \
        where_block(where_, sizeof where_, r, bi, off);                      \
        return sat_diag_set(diag, (code), where_, __VA_ARGS__);              \
    } while (0)

typedef struct bhdr {
    uint16_t table, ncols;
    uint32_t nrows, dir_len, data_len;
    int64_t min_ts, max_ts;
    uint64_t data_off; /* absolute offset of column data */
    uint64_t total;
} bhdr;


/* trace_scan.c: finding and validating blocks, damage recovery. */
/* Bytes [off, off+len) of the file, or NULL if they are not all there. */
const uint8_t *sat_trace_src_get(sat_trace_reader *r, uint64_t off, uint64_t len,
                                 rbuf *scratch);
/* Reads and checks the header and directory of the block at off; fills
 * r->dir[0..ncols). Column data is not read. */
int sat_trace_load_block_dir(sat_trace_reader *r, size_t bi, uint64_t off,
                             bhdr *h, sat_diag *diag);
/* Checks every column checksum of the block at off (header already loaded). */
int sat_trace_check_block_data(sat_trace_reader *r, size_t bi, uint64_t off,
                               const bhdr *h, sat_diag *diag);
/* Checks the file header; sets r->major and r->minor. */
int sat_trace_check_header(sat_trace_reader *r, sat_diag *diag);
/* Reads trailer + footer into r->blocks, or fails with the reason. */
int sat_trace_read_footer(sat_trace_reader *r, sat_diag *diag, uint64_t *footer_off);
/* Indexes by walking the blocks from the header; damage into r->scan_dmg. */
int sat_trace_scan_blocks(sat_trace_reader *r, uint64_t *stop, sat_diag *stopdiag);

/* trace_decode.c: emits the rows of block ix (of r->blocks) into sink. */
int sat_trace_read_block(sat_trace_reader *r, size_t ix, const sat_trace_read_opts *o,
                         const unsigned char *proj, const sat_event_sink *sink,
                         uint32_t *done, int *by_sink, sat_diag *diag);

/* ---- writer (trace_writer.c, trace_encode.c, trace_output.c) -------------- */
/* ---- per-block string dictionary ---------------------------------------- */
typedef struct strent {
    const char *p;
    uint32_t len;
    uint32_t hash;
} strent;

typedef struct strdict {
    uint32_t *slots; /* entry index + 1, 0 = empty */
    strent *ents;
    size_t ecap;
    uint32_t cap; /* slots, a power of two */
    uint32_t n;
    uint32_t last; /* code of the previous row's value (fast path), 0 none */
} strdict;

typedef struct wblock {
    int table;
    const sat_table_def *def;
    uint32_t nrows, cap_rows;
    uint8_t *rows; /* cap_rows row structs, copied as appended; each sat_str
                    * field holds its dictionary code (uint32) instead. Row-
                    * major staging keeps append() to one sequential copy; the
                    * worker transposes to columns in cache-sized tiles. */
    strdict *dicts;
    sat_arena arena;
    size_t str_bytes;
    int64_t min_ts, max_ts;
    struct wblock *next;
} wblock;

typedef struct footer_ent {
    uint16_t table;
    uint32_t nrows;
    uint64_t off, len;
    int64_t min_ts, max_ts;
} footer_ent;

/* Growable byte buffer used by the compression thread. */
typedef struct bbuf {
    uint8_t *p;
    size_t len, cap;
} bbuf;

/* Per table: which columns are strings (append() interns only those). */
typedef struct wtable {
    uint16_t str[SAT_MAX_COLS_TABLE];
    size_t nstr;
} wtable;

struct sat_trace_writer {
    wtable tab[SAT_TABLE__COUNT];
    char *path;
    sat_out *out;         /* the file (safe_out.h); NULL: streaming to a borrowed fd */
    const char *partial;  /* its temporary file's name (the out's), NULL when streaming */
    int fd;
    unsigned mode;        /* permission bits the file was created with */
    uint32_t rows_per_block;
    int level;
    int ts_col[SAT_TABLE__COUNT];    /* index of the time column or -1 */
    int close_col;                   /* ldap_conn close_ts index */
    wblock *cur[SAT_TABLE__COUNT];
    wblock *free_[SAT_TABLE__COUNT];

    /* worker state, guarded by mu */
    pthread_t thr;
    int thr_started;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_space;
    wblock *q_head, *q_tail;
    int q_len; /* queued + being processed */
    int stop;
    int err;
    sat_diag diag;

    /* worker-owned */
    uint64_t off;
    footer_ent *foot;
    size_t nfoot, capfoot;
    ZSTD_CCtx *cctx;
    bbuf enc, enc2, dir, data, cbuf, cbuf2, nums;
    int64_t *wide[SAT_MAX_COLS_TABLE]; /* worker: one int64 array per column */
    uint32_t wide_rows;
};


/* trace_encode.c: encodes, compresses and appends one block (worker thread). */
int sat_trace_write_block(sat_trace_writer *w, wblock *b);

/* trace_output.c: the output file. */
/* Writes all n bytes to fd (retrying on EINTR); -1 with errno on failure. */
int sat_trace_write_all(int fd, const uint8_t *p, size_t n);

#endif
