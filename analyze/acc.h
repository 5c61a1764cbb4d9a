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
 *
 * Counters named once: a field's descriptor also says how the result writes
 * it (sat_acc_out: its key, unit, text heading and note), so one list gives
 * a record's struct fields (an X-macro list, SAT_COUNTER_FIELD), its merge
 * and its result columns and values (sat_rec_cols, sat_rec_put). A figure
 * made from the record's fields at output (a ratio, an estimate) is a
 * DERIVED field of the same list: no storage, its derive function. Adding a
 * counter is one line in its list and the line that counts it.
 *
 * Sums cannot wrap: SUM fields merge, and every sum of durations or bytes an
 * analyzer keeps adds, with sat_sum_add (below), which saturates.
 */
#ifndef SAT_ANALYZE_ACC_H
#define SAT_ANALYZE_ACC_H

#include <math.h>
#include <stddef.h>

#include "satscope/result.h"
#include "sketch.h"
#include "strtab.h"

/* ---- sums that saturate ------------------------------------------------------
 * A row's duration is at most a week (event.h SAT_DUR_PLAUSIBLE_MAX_NS), but
 * some 15,000 of them in one group or window pass what an int64 of ns holds
 * (292 years): a sum that would pass it stays at SAT_SUM_SATURATED instead of
 * wrapping to a negative number, and stays there. Such a sum is no longer a
 * measurement: read through sat_sum_d it is NAN, so the sum and every figure
 * made from it (a total, a mean, a share, a concurrency) are absent in every
 * form (docs/output.md), never a wrapped or a pinned number. Added values are
 * not negative, so saturating stays associative: a merge of parts still equals
 * one pass. */
#define SAT_SUM_SATURATED INT64_MAX
static inline void sat_sum_add(int64_t *sum, int64_t v)
{
    int64_t r;
    if (*sum == SAT_SUM_SATURATED)
        return;
    if (__builtin_add_overflow(*sum, v, &r))
        r = SAT_SUM_SATURATED;
    *sum = r;
}
/* A sum as a double (ns, bytes as they are): NAN once saturated. */
static inline double sat_sum_d(int64_t sum)
{
    return sum == SAT_SUM_SATURATED ? NAN : (double)sum;
}

typedef enum sat_acc_kind {
    SAT_ACC_COUNT, /* uint64_t, added */
    SAT_ACC_SUM,   /* int64_t, added (ns, bytes: exact), saturating (sat_sum_add) */
    SAT_ACC_DSUM,  /* double, added (not exact across merges: see above) */
    SAT_ACC_MAX,   /* int64_t, the larger; INT64_MIN = none (sat_rec_init) */
    SAT_ACC_MIN,   /* int64_t, the smaller; INT64_MAX = none */
    SAT_ACC_BITS,  /* uint64_t, OR-ed (note bits, flags seen) */
    /* int64_t time followed by `extra` bytes that go with it: the earliest
     * non-zero time wins, with its extra bytes (e.g. the first conn/op); a
     * tie keeps into's. 0 = none. */
    SAT_ACC_FIRST,
    SAT_ACC_LAST,  /* the same, latest wins; a tie takes from's */
    SAT_ACC_SKETCH, /* sat_qsketch, merged (sat_rec_init gives exact_max = extra) */
    SAT_ACC_DERIVED /* no storage, nothing merged: out.derive(rec, ctx) when written */
} sat_acc_kind;

/* How a field is written in a result; key NULL: never written (counted and
 * merged only). COUNT and BITS write counts; SUM, MAX and MIN an INT, or a
 * DURATION in seconds or BYTES when unit says so (the field holds ns or
 * bytes); FIRST and LAST a TIME; DERIVED a double in its unit (RATIO,
 * DURATION, RATE, NUMBER), absent when NAN. SKETCH fields are not written
 * (their quantiles are derived). */
typedef struct sat_acc_out {
    const char *key;   /* the JSON key and CSV column */
    uint8_t unit;      /* sat_unit of the written value; 0: the kind's */
    uint8_t decimals;  /* doubles: JSON/CSV digits */
    const char *title; /* a column's text heading (NULL: the key as words) */
    const char *note;  /* a summary value's note (NULL: none) */
    double (*derive)(const void *rec, const void *ctx); /* DERIVED only */
} sat_acc_out;

typedef struct sat_acc_field {
    uint8_t kind;   /* sat_acc_kind */
    uint16_t off;   /* offsetof the field in the record */
    uint16_t n;     /* consecutive fields of this kind (an array); 0 = 1 */
    uint16_t extra; /* FIRST/LAST: bytes after the time; SKETCH: exact_max (0: default) */
    sat_acc_out out; /* how it is written (n must be 1 when key is set) */
} sat_acc_field;

#define SAT_ACC(kind, type, member) {(kind), (uint16_t)offsetof(type, member), 1, 0}
/* n consecutive fields of one kind, e.g. uint64_t codes[16]:
 * SAT_ACC_N(SAT_ACC_COUNT, rec, codes, 16), or a run of uint64_t members. */
#define SAT_ACC_N(kind, type, member, n) {(kind), (uint16_t)offsetof(type, member), (n), 0}
#define SAT_ACC_X(kind, type, member, extra)                                             \
    {(kind), (uint16_t)offsetof(type, member), 1, (uint16_t)(extra)}
/* A run of 8-byte fields of one kind whose length is the member's size: an
 * array (uint64_t codes[16]) or a record of counters (an X-macro list), so
 * that no run is counted by hand. */
#define SAT_ACC_RUN(kind, type, member)                                                  \
    {(kind), (uint16_t)offsetof(type, member), (uint16_t)(sizeof(((type *)0)->member) / 8), 0}
/* A field written in the result as key (unit 0: the kind's). */
#define SAT_ACC_OUT(kind, type, member, key, unit, title, note)                          \
    {(kind), (uint16_t)offsetof(type, member), 1, 0, {(key), (unit), 0, (title), (note), NULL}}
/* A figure made from the record when written. */
#define SAT_ACC_DERIVE(key, unit, decimals, title, note, fn)                              \
    {SAT_ACC_DERIVED, 0, 1, 0, {(key), (unit), (decimals), (title), (note), (fn)}}
/* X-macro lists of counters, X(field, key, title, note) (key NULL: not
 * written): SAT_COUNTER_FIELD makes the record's uint64_t fields from the
 * list; its descriptor entries are SAT_COUNTER(type, ...) of the same list. */
#define SAT_COUNTER_FIELD(field, key, title, note) uint64_t field;
#define SAT_COUNTER(type, field, key, title, note)                                        \
    SAT_ACC_OUT(SAT_ACC_COUNT, type, field, key, SAT_UNIT_COUNT, title, note)

typedef struct sat_rec_desc {
    size_t size;                 /* sizeof the record */
    const sat_acc_field *fields; /* every accumulator field; other bytes are
                                    left alone by merge (keys, labels set once) */
    size_t nfields;
    /* optional: the few fields no kind above describes (merged after them);
     * return SAT_OK or SAT_E_NOMEM */
    int (*merge_extra)(void *into, const void *from);
    /* optional: after a record is read back from a partial (state_io.h),
     * clears what in it is not state (a pointer into another table, a
     * cache); NULL: nothing to clear */
    void (*loaded)(void *rec);
} sat_rec_desc;

/* Puts each written field of rec (out.key set) into o, in the descriptor's
 * order: a summary object (with the fields' notes, labelled by their titles)
 * or, with sat_rec_row, a table row of sat_rec_cols' columns. ctx goes to
 * the DERIVED fields. */
void sat_rec_put(const sat_rec_desc *d, sat_rnode *o, const void *rec, const void *ctx);
void sat_rec_row(const sat_rec_desc *d, sat_rnode *row, const void *rec, const void *ctx);
/* The columns of d's written fields into cols (at most max); their count. */
size_t sat_rec_cols(const sat_rec_desc *d, sat_col *cols, size_t max);

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
/* The same with the key's sat_strtab_hash() computed by the caller, who may
 * have prefetched its slot (strtab.h): for tables looked up on every row,
 * hence inline (below) for a key already there. */
static inline void *sat_keyed_at_h(sat_keyed *k, const void *key, size_t len, uint64_t h,
                                   int *folded);
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
/* sat_keyed_at_h for a key not in the table yet (or p == NULL: not
 * inserted, capped says why): its record initialised, or "(other)". */
void *sat_keyed_new_(sat_keyed *k, unsigned char *p, int capped, int *folded);
static inline void *sat_keyed_at_h(sat_keyed *k, const void *key, size_t len, uint64_t h,
                                   int *folded)
{
    int is_new, capped;
    unsigned char *p = (unsigned char *)sat_strtab_upsert_h(&k->tab, key, len, h, &is_new, &capped);
    if (!p || is_new)
        return sat_keyed_new_(k, p, capped, folded);
    uint64_t n;
    memcpy(&n, p, sizeof n);
    n++;
    memcpy(p, &n, sizeof n);
    if (folded)
        *folded = 0;
    return p + SAT_KEYED_HDR;
}

/* One more row for rec, a key's own record (not "(other)") that an earlier
 * sat_keyed_at returned: what sat_keyed_at would count, for a caller that
 * remembers where a key's record is and skips the lookup. */
static inline void sat_keyed_again(void *rec)
{
    unsigned char *p = (unsigned char *)rec - SAT_KEYED_HDR;
    uint64_t n;
    memcpy(&n, p, sizeof n);
    n++;
    memcpy(p, &n, sizeof n);
}
/* The key of the record the last sat_keyed_at returned, when that was the
 * key's own record (not "(other)"): stable as long as the table. */
static inline const char *sat_keyed_last_key(const sat_keyed *k)
{
    return sat_strtab_last_key(&k->tab);
}

/* Rows given to key i (sat_keyed_at calls, merged ones included). */
uint64_t sat_keyed_rows(const sat_keyed *k, size_t i);
/* Whether "(other)" holds any row. */
static inline int sat_keyed_has_other(const sat_keyed *k) { return k->folded_rows != 0; }

/* Indices of the records in the order cmp gives (ties: by key bytes, so the
 * order never depends on arrival); *n set. Caller frees. NULL: no memory. */
size_t *sat_keyed_sorted(const sat_keyed *k,
                         int (*cmp)(const void *rec_a, const void *rec_b), size_t *n);

/* The UTC offset an analyzer shows local times at (local hours and days):
 * that of the first input, by source id, stating one other than 0. Folded
 * over the sources: start from SAT_OFFSET_PICK_INIT, add each, read .off. */
typedef struct sat_offset_pick {
    int32_t off;
    uint32_t id;
} sat_offset_pick;
#define SAT_OFFSET_PICK_INIT {0, UINT32_MAX}
static inline void sat_offset_pick_add(sat_offset_pick *p, uint32_t id, int32_t utc_offset_s)
{
    if (utc_offset_s != 0 && id < p->id) {
        p->id = id;
        p->off = utc_offset_s;
    }
}

#endif
