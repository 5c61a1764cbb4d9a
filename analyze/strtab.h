/*
 * strtab.h - the analyzers' hash table: byte-string keys (DNs, filters, IPs,
 * or packed binary ids) mapped to a fixed-size zeroed payload.
 *
 * Keys arrive borrowed (valid only during one sink callback, event.h), so a
 * key is copied into the table's arena only when it is inserted; lookups of
 * known keys copy nothing. Each entry is one arena block [length | key bytes
 * | payload], and each slot holds (hash, entry pointer), so a lookup touches
 * the slot and then one entry (two cache misses at worst, which is what
 * bounds the analyzers' throughput on high-cardinality keys). Payloads never
 * move. Open addressing with linear probing over a power-of-two slot array;
 * `entries` lists entries in insertion order, so iteration is deterministic.
 *
 * Bounded: `max_keys` caps the number of distinct keys; past it, upsert
 * returns NULL with *capped set and the caller folds the row into an
 * "(other)" bucket. Private to analyze/ (and its unit tests).
 */
#ifndef SAT_ANALYZE_STRTAB_H
#define SAT_ANALYZE_STRTAB_H

#include "satscope/base.h"

typedef struct sat_strtab_slot {
    uint64_t hash;  /* hash | 1; 0 = empty */
    unsigned char *entry;
} sat_strtab_slot;

typedef struct sat_strtab {
    sat_strtab_slot *slots;
    size_t cap;            /* slots, power of two */
    size_t n;              /* keys */
    size_t max_keys;       /* 0 -> unlimited */
    unsigned char **entries; /* per index, insertion order */
    size_t ecap;
    size_t val_size;       /* payload bytes, rounded up to 8 */
    unsigned char *last;   /* the last entry hit, a one-entry cache */
    sat_arena arena;
} sat_strtab;

void sat_strtab_init(sat_strtab *t, size_t val_size, size_t max_keys);
void sat_strtab_free(sat_strtab *t);

/* Payload for key, inserted zeroed if new. NULL when the key is new and the
 * table is full (*capped = 1) or memory ran out (*capped = 0). *is_new (may be
 * NULL) says whether it was inserted. Payloads are stable until free. */
void *sat_strtab_upsert(sat_strtab *t, const void *key, size_t len,
                        int *is_new, int *capped);
/* The same with the key's sat_strtab_hash() computed by the caller, who may
 * have prefetched its slot and entry (below) while doing other work: the
 * analyzers look up 3-4 high-cardinality keys per row, and overlapping their
 * cache misses is what keeps them off the critical path. */
void *sat_strtab_upsert_h(sat_strtab *t, const void *key, size_t len, uint64_t h,
                          int *is_new, int *capped);
static inline void sat_strtab_prefetch(const sat_strtab *t, uint64_t h)
{
#if defined(__GNUC__)
    if (t->cap)
        __builtin_prefetch(&t->slots[(size_t)(h >> 11) & (t->cap - 1)]);
#else
    (void)t;
    (void)h;
#endif
}
/* Second stage: once the slot is (likely) cached, fetch its entry. */
static inline void sat_strtab_prefetch_entry(const sat_strtab *t, uint64_t h)
{
#if defined(__GNUC__)
    if (t->cap) {
        const sat_strtab_slot *sl = &t->slots[(size_t)(h >> 11) & (t->cap - 1)];
        if (sl->hash == h)
            __builtin_prefetch(sl->entry);
    }
#else
    (void)t;
    (void)h;
#endif
}
/* Payload for key or NULL; never inserts. */
void *sat_strtab_find(const sat_strtab *t, const void *key, size_t len);

/* entry layout: uint32 len, uint32 payload offset, key bytes + NUL, payload */
static inline uint32_t sat_strtab_len(const sat_strtab *t, size_t i)
{
    uint32_t l;
    memcpy(&l, t->entries[i], sizeof l);
    return l;
}
static inline const char *sat_strtab_key(const sat_strtab *t, size_t i)
{
    return (const char *)t->entries[i] + 8;
}
static inline void *sat_strtab_val(const sat_strtab *t, size_t i)
{
    uint32_t off;
    memcpy(&off, t->entries[i] + 4, sizeof off);
    return t->entries[i] + off;
}

/* The key of the entry the last upsert hit or inserted (NULL before any):
 * stable until free, like the payloads. */
static inline const char *sat_strtab_last_key(const sat_strtab *t)
{
    return t->last ? (const char *)t->last + 8 : NULL;
}
/* Approximate heap bytes held (for the analyzers' memory bound). */
size_t sat_strtab_bytes(const sat_strtab *t);

/* Word-at-a-time hash of a byte string (faster than byte-wise FNV on DNs). */
uint64_t sat_strtab_hash(const void *p, size_t n);

#endif
