/*
 * trace_internal.h - what the writer and reader of the .sat trace share
 * beyond trace.h: format constants (FORMAT.md), CRC, varint helpers and the
 * absent value of every column (schema.c).
 */
#ifndef SAT_TRACE_INTERNAL_H
#define SAT_TRACE_INTERNAL_H

#include "satscope/trace.h"

#define SAT_FMT_MAJOR 1
#define SAT_FMT_MINOR 4 /* 1.3: the crash and frame tables; 1.4: new columns,
                           flag bits and close codes in existing tables (FORMAT.md) */
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

#endif
