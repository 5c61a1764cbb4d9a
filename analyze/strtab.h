/*
 * strtab.h - the analyzers' hash table: byte-string keys (DNs, filters, IPs,
 * or packed binary ids) mapped to a fixed-size zeroed payload.
 *
 * Keys arrive borrowed (valid only during one sink callback, event.h), so a
 * key is copied into the table's arena only when it is inserted; lookups of
 * known keys copy nothing. Open addressing with linear probing over a
 * power-of-two slot array holding (hash, index); payloads live in one array
 * indexed by insertion order, so iteration is by index and deterministic.
 *
 * Bounded: `max_keys` caps the number of distinct keys; past it, upsert
 * returns NULL with *capped set and the caller folds the row into an
 * "(other)" bucket. Private to analyze/ (and its unit tests).
 */
#ifndef SAT_ANALYZE_STRTAB_H
#define SAT_ANALYZE_STRTAB_H

#include "satscope/base.h"

typedef struct sat_strtab {
    uint64_t *hashes;  /* per slot: hash | 1 (0 = empty) */
    uint32_t *slots;   /* per slot: index of the key */
    size_t cap;        /* slots, power of two */
    size_t n;          /* keys */
    size_t max_keys;   /* 0 -> unlimited */
    const char **keys; /* per index: interned key, NUL-terminated */
    uint32_t *lens;
    unsigned char *vals; /* per index: val_size bytes */
    size_t val_size;
    size_t vcap;         /* allocated entries in keys/lens/vals */
    uint32_t last;       /* index of the last hit, a one-entry cache */
    sat_arena arena;
} sat_strtab;

void sat_strtab_init(sat_strtab *t, size_t val_size, size_t max_keys);
void sat_strtab_free(sat_strtab *t);

/* Payload for key, inserted zeroed if new. NULL when the key is new and the
 * table is full (*capped = 1) or memory ran out (*capped = 0). *is_new (may be
 * NULL) says whether it was inserted. The pointer is valid until the next
 * insertion. */
void *sat_strtab_upsert(sat_strtab *t, const void *key, size_t len,
                        int *is_new, int *capped);
/* Payload for key or NULL; never inserts. */
void *sat_strtab_find(const sat_strtab *t, const void *key, size_t len);

static inline void *sat_strtab_val(const sat_strtab *t, size_t i)
{
    return t->vals + i * t->val_size;
}

/* Approximate heap bytes held (for the analyzers' memory bound). */
size_t sat_strtab_bytes(const sat_strtab *t);

/* Word-at-a-time hash of a byte string (faster than byte-wise FNV on DNs). */
uint64_t sat_strtab_hash(const void *p, size_t n);

#endif
