/*
 * state_io.h - (internal to analyze/) an analyzer's state as bytes and back:
 * what a partial (include/satscope/partial.h, `satscope partial`) holds of
 * each analyzer of a server-day, so that loading partials and merging them
 * is merging the analyzers in memory (acc.h says why that is exact).
 *
 * Encoding: little-endian fixed-width integers, doubles as their IEEE-754
 * bits, strings as a u32 length and the bytes (UINT32_MAX: NULL). The
 * accumulators of acc.h are written once here, for every analyzer:
 *   - a record (sat_rec_desc): its bytes as they are in memory, with the
 *     sketches' pointers cleared, then each SKETCH field's contents. Records
 *     are plain structs zeroed at init, so their padding is zero. A record
 *     that holds a pointer of its own (a cache into another table) clears it
 *     in its descriptor's `loaded` hook (acc.h);
 *   - a keyed table: its keys in their order of arrival with each key's row
 *     count and record, its "(other)" record and folded rows;
 *   - a hash table (strtab.h) of plain payloads or of records;
 *   - a sketch (sketch.h): its exact values or its buckets, as they are.
 * Every table and record written says its layout (sat_state_layout: the
 * record's size and fields), so a partial of a build whose layout differs
 * is refused with a message rather than misread.
 *
 * Reading is only through the bounded reader: every count is checked
 * against the bytes left; the first problem is kept (sticky) with what was
 * being read, and later reads return zeros. Nothing crashes, nothing aborts.
 *
 * An analyzer's part (sat_analyzer.save / .load, analyze.h): save writes its
 * state after its rows and merges, before finish; load reads it into a
 * fresh instance created with the same options (as if that instance had
 * been fed the same rows), so that merge and finish then act as on the
 * original. Caches an analyzer keeps to skip lookups (memos, last-hit
 * pointers) are not state: load leaves them empty.
 *
 * Ownership: a writer's buffer is its own until sat_sw_free; a reader
 * borrows its bytes; strings sat_sr_str returns are the caller's (free).
 */
#ifndef SAT_ANALYZE_STATE_IO_H
#define SAT_ANALYZE_STATE_IO_H

#include "acc.h"
#include "sketch.h"
#include "strtab.h"

/* ---- writing ------------------------------------------------------------------ */

typedef struct sat_sw {
    unsigned char *p;
    size_t n, cap;
    int nomem; /* a write failed for want of memory: the bytes are incomplete */
} sat_sw;

void sat_sw_free(sat_sw *w); /* the buffer; w may be reused after */
void sat_sw_raw(sat_sw *w, const void *p, size_t n);
void sat_sw_u8(sat_sw *w, uint8_t v);
void sat_sw_u32(sat_sw *w, uint32_t v);
void sat_sw_u64(sat_sw *w, uint64_t v);
void sat_sw_i64(sat_sw *w, int64_t v);
void sat_sw_f64(sat_sw *w, double v);
/* A string (NULL allowed) / n bytes with their length. */
void sat_sw_str(sat_sw *w, const char *s);
void sat_sw_blob(sat_sw *w, const void *p, size_t n);
/* A tag naming what follows (a member, a part of an analyzer): read back by
 * sat_sr_tag, which refuses another. */
void sat_sw_tag(sat_sw *w, const char *tag);
void sat_sw_sketch(sat_sw *w, const sat_qsketch *s);
/* n records of d, consecutive in memory from recs. */
void sat_sw_recs(sat_sw *w, const sat_rec_desc *d, const void *recs, size_t n);
void sat_sw_keyed(sat_sw *w, const sat_keyed *k);
/* A hash table whose payloads are records of d (d NULL: plain bytes of the
 * table's val_size, no pointer in them). */
void sat_sw_strtab(sat_sw *w, const sat_strtab *t, const sat_rec_desc *d);
/* An array of n plain structs of size bytes each (no pointer in them). */
void sat_sw_array(sat_sw *w, const void *p, size_t n, size_t size);
static inline int sat_sw_ok(const sat_sw *w) { return !w->nomem; }

/* ---- reading ------------------------------------------------------------------- */

typedef struct sat_sr {
    sat_cursor c;
    const char *what; /* the part being read, for the message (a tag) */
    int err;          /* 0, SAT_E_CORRUPT (also a layout that differs), SAT_E_NOMEM; sticky */
    char msg[200];    /* the first problem */
} sat_sr;

void sat_sr_init(sat_sr *r, const void *p, size_t n);
/* Records the first problem (printf-style) and returns r->err. */
int sat_sr_fail(sat_sr *r, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline int sat_sr_ok(const sat_sr *r) { return r->err == 0 && r->c.err == 0; }
/* r->err, or SAT_E_CORRUPT ("... ends early") when the cursor ran out. */
int sat_sr_status(sat_sr *r);
void sat_sr_raw(sat_sr *r, void *p, size_t n);
uint8_t sat_sr_u8(sat_sr *r);
uint32_t sat_sr_u32(sat_sr *r);
uint64_t sat_sr_u64(sat_sr *r);
int64_t sat_sr_i64(sat_sr *r);
double sat_sr_f64(sat_sr *r);
/* A count of things of at least `each` bytes that must fit in what is
 * left (a corrupt count cannot ask for terabytes). */
uint64_t sat_sr_count(sat_sr *r, size_t each);
/* A string as malloc'd NUL-terminated bytes (caller frees), NULL for a NULL
 * string or on failure (then !sat_sr_ok). */
char *sat_sr_str(sat_sr *r);
/* A blob's bytes, borrowed from the reader's buffer; *n set. */
const void *sat_sr_blob(sat_sr *r, size_t *n);
/* Checks the next tag is `tag`; SAT_OK or a failure naming both. */
int sat_sr_tag(sat_sr *r, const char *tag);
/* Into a sketch made by sat_qsketch_init (its contents replaced). */
int sat_sr_sketch(sat_sr *r, sat_qsketch *s);
/* Into n records made by sat_rec_init (their contents replaced). */
int sat_sr_recs(sat_sr *r, const sat_rec_desc *d, void *recs, size_t n);
/* Into an empty keyed table made by sat_keyed_init with the same d (and
 * a cap that holds the keys). */
int sat_sr_keyed(sat_sr *r, sat_keyed *k);
/* Into an empty hash table made with the same val_size (d as written). */
int sat_sr_strtab(sat_sr *r, sat_strtab *t, const sat_rec_desc *d);
/* An array written by sat_sw_array: *p malloc'd (NULL when n is 0), *n set;
 * size must be the same as written. */
int sat_sr_array(sat_sr *r, void **p, size_t *n, size_t size);

/* The layout of a record (its size and fields): what makes a partial of
 * another build unreadable by this one. */
uint32_t sat_state_layout(const sat_rec_desc *d);

#endif
