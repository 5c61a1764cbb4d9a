/*
 * acc.h - (internal to analyze/) the accumulators analyzers are built from,
 * each with add / merge / finish written once here, so that an analyzer's
 * merge is a walk over its accumulators and a new counter is one line in a
 * record description (DESIGN.md "Results").
 *
 * A record is a plain C struct of accumulator fields, described by a
 * sat_rec_desc: which field is a count, a sum, a max, ... Merging two
 * records merges field by field by kind; nothing else needs writing.
 * Exactness (a merge of the parts equals one pass over the whole, so merged
 * JSON is byte-identical):
 *   COUNT, SUM (integers: sums of ns, bytes), MIN, MAX, BITS, FIRST, LAST are
 *   exact; SKETCH merges exactly to the sketch of the union (sketch.h);
 *   DSUM (double sums) is exact only up to rounding: avoid it where a
 *   figure is shown, sum integer ns instead.
 *
 * A keyed table (sat_keyed) maps byte-string keys to records, with a cap on
 * distinct keys past which rows fold into one "(other)" record. Keys keep
 * their order of first arrival; merging `from` into `into` inserts from's
 * keys in from's order. Without the cap reached in any part, the merge
 * equals one pass exactly. With it, the merged table holds the same keys as
 * one pass (the first to arrive) and the same total of rows, but the rows of
 * a key that a part had to fold while the merged table keeps it stay in
 * "(other)": a capped table is a heavy-hitter summary, exact in its keys,
 * with its "(other)" an upper bound of what the kept keys lack.
 *
 * Windowed series (winseries.h) and the sketch (sketch.h) are the other
 * accumulators; a window payload may be a record (its sat_win_add_fn is one
 * call of sat_rec_merge).
 */
#ifndef SAT_ANALYZE_ACC_H
#define SAT_ANALYZE_ACC_H

#include <stddef.h>

#include "sketch.h"
#include "strtab.h"

typedef enum sat_acc_kind {
    SAT_ACC_COUNT, /* uint64_t, added */
    SAT_ACC_SUM,   /* int64_t, added (ns, bytes: exact) */
    SAT_ACC_DSUM,  /* double, added (not exact across merges: see above) */
    SAT_ACC_MAX,   /* int64_t, the larger; INT64_MIN = none (sat_rec_init) */
    SAT_ACC_MIN,   /* int64_t, the smaller; INT64_MAX = none */
    SAT_ACC_BITS,  /* uint64_t, OR-ed (note bits, flags seen) */
    /* int64_t time followed by `extra` bytes that go with it: the earliest
     * non-zero time wins, with its extra bytes (e.g. the first conn/op); a
     * tie keeps into's. 0 = none. */
    SAT_ACC_FIRST,
    SAT_ACC_LAST,  /* the same, latest wins; a tie takes from's */
    SAT_ACC_SKETCH /* sat_qsketch, merged (sat_rec_init gives exact_max = extra) */
} sat_acc_kind;

typedef struct sat_acc_field {
    uint8_t kind;   /* sat_acc_kind */
    uint16_t off;   /* offsetof the field in the record */
    uint16_t n;     /* consecutive fields of this kind (an array); 0 = 1 */
    uint16_t extra; /* FIRST/LAST: bytes after the time; SKETCH: exact_max (0: default) */
} sat_acc_field;

#define SAT_ACC(kind, type, member) {(kind), (uint16_t)offsetof(type, member), 1, 0}
/* n consecutive fields of one kind, e.g. uint64_t codes[16]:
 * SAT_ACC_N(SAT_ACC_COUNT, rec, codes, 16), or a run of uint64_t members. */
#define SAT_ACC_N(kind, type, member, n) {(kind), (uint16_t)offsetof(type, member), (n), 0}
#define SAT_ACC_X(kind, type, member, extra)                                             \
    {(kind), (uint16_t)offsetof(type, member), 1, (uint16_t)(extra)}

typedef struct sat_rec_desc {
    size_t size;                 /* sizeof the record */
    const sat_acc_field *fields; /* every accumulator field; other bytes are
                                    left alone by merge (keys, labels set once) */
    size_t nfields;
    /* optional: the few fields no kind above describes (merged after them);
     * return SAT_OK or SAT_E_NOMEM */
    int (*merge_extra)(void *into, const void *from);
} sat_rec_desc;

/* Zeroes rec and sets the sentinels (MIN, MAX) and sketches. */
void sat_rec_init(const sat_rec_desc *d, void *rec);
/* Merges from into into, field by field. SAT_OK or SAT_E_NOMEM. */
int sat_rec_merge(const sat_rec_desc *d, void *into, const void *from);
/* Frees what the record's sketches hold (the record itself is the caller's). */
void sat_rec_free(const sat_rec_desc *d, void *rec);
/* Adds a value to the SKETCH field at `off` / a MAX or MIN at off. */
static inline void sat_acc_max(int64_t *m, int64_t v)
{
    if (v > *m)
        *m = v;
}
static inline void sat_acc_min(int64_t *m, int64_t v)
{
    if (v < *m)
        *m = v;
}
/* FIRST / LAST fields: offer (ts, extra bytes) to the field at f. */
void sat_acc_first(void *field, int64_t ts, const void *extra, size_t n);
void sat_acc_last(void *field, int64_t ts, const void *extra, size_t n);
/* MAX/MIN values that were never set read as none. */
#define SAT_ACC_NONE_MAX INT64_MIN
#define SAT_ACC_NONE_MIN INT64_MAX

/* ---- keyed tables ------------------------------------------------------------ */

typedef struct sat_keyed {
    sat_strtab tab;          /* key -> record (payload of d->size bytes) */
    const sat_rec_desc *d;
    void *other;             /* "(other)": rows of keys past the cap */
    uint64_t folded_rows;    /* rows that went to other (sat_keyed_at calls that folded,
                                merged ones included) */
    int nomem;               /* a row was lost for want of memory */
} sat_keyed;

/* max_keys 0: unlimited. SAT_OK or SAT_E_NOMEM. */
int sat_keyed_init(sat_keyed *k, const sat_rec_desc *d, size_t max_keys);
void sat_keyed_free(sat_keyed *k); /* NULL ok, and after a failed init */
/* The record of key (new ones start as sat_rec_init makes them), or the
 * "(other)" record when the table is full (*folded = 1 then; may be NULL).
 * NULL only when memory ran out (k->nomem set). */
void *sat_keyed_at(sat_keyed *k, const void *key, size_t len, int *folded);
/* Merges every key of from (in its order) and its "(other)" into into. */
int sat_keyed_merge(sat_keyed *into, const sat_keyed *from);
static inline size_t sat_keyed_n(const sat_keyed *k) { return k->tab.n; }
static inline const char *sat_keyed_key(const sat_keyed *k, size_t i)
{
    return sat_strtab_key(&k->tab, i);
}
static inline size_t sat_keyed_len(const sat_keyed *k, size_t i)
{
    return sat_strtab_len(&k->tab, i);
}
#define SAT_KEYED_HDR 8 /* the key's row count, before its record */
static inline void *sat_keyed_rec(const sat_keyed *k, size_t i)
{
    return (unsigned char *)sat_strtab_val(&k->tab, i) + SAT_KEYED_HDR;
}
/* Rows given to key i (sat_keyed_at calls, merged ones included). */
uint64_t sat_keyed_rows(const sat_keyed *k, size_t i);
/* Whether "(other)" holds any row. */
static inline int sat_keyed_has_other(const sat_keyed *k) { return k->folded_rows != 0; }

/* Indices of the records in the order cmp gives (ties: by key bytes, so the
 * order never depends on arrival); *n set. Caller frees. NULL: no memory. */
size_t *sat_keyed_sorted(const sat_keyed *k,
                         int (*cmp)(const void *rec_a, const void *rec_b), size_t *n);

#endif
