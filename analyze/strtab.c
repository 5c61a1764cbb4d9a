/*
 * strtab.c - byte-string keyed hash table with interned keys and zeroed
 * fixed-size payloads (see strtab.h for the contract, layout and why).
 */
#include "strtab.h"

void sat_strtab_init(sat_strtab *t, size_t val_size, size_t max_keys)
{
    memset(t, 0, sizeof *t);
    t->val_size = ((val_size ? val_size : 1) + 7) / 8 * 8;
    t->max_keys = max_keys;
    t->arena.chunk_size = 256 * 1024;
}

void sat_strtab_free(sat_strtab *t)
{
    if (!t)
        return;
    free(t->slots);
    free(t->entries);
    sat_arena_free(&t->arena);
    memset(t, 0, sizeof *t);
}

uint64_t sat_strtab_hash(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ (w * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
        h = (h << 31) | (h >> 33);
        b += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)b[i] << (8 * i);
    h ^= w * 0x87c37b91114253d5ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h | 1;
}

/* The stored hash has its low bit forced to 1 (0 marks an empty slot), so
 * the slot comes from higher bits. */
static inline size_t slot_of(uint64_t h, size_t cap)
{
    return (size_t)(h >> 11) & (cap - 1);
}

static int grow_slots(sat_strtab *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    sat_strtab_slot *ns = (sat_strtab_slot *)calloc(ncap, sizeof *ns);
    if (!ns)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].hash)
            continue;
        size_t j = slot_of(t->slots[i].hash, ncap);
        while (ns[j].hash)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return SAT_OK;
}

static inline int entry_eq(const unsigned char *e, const void *key, size_t len)
{
    uint32_t l;
    memcpy(&l, e, sizeof l);
    return l == len && (len == 0 || memcmp(e + 8, key, len) == 0);
}

static inline void *entry_val(unsigned char *e)
{
    uint32_t off;
    memcpy(&off, e + 4, sizeof off);
    return e + off;
}

void *sat_strtab_find(const sat_strtab *t, const void *key, size_t len)
{
    if (!t->cap)
        return NULL;
    if (t->last && entry_eq(t->last, key, len))
        return entry_val(t->last);
    uint64_t h = sat_strtab_hash(key, len);
    size_t j = slot_of(h, t->cap);
    while (t->slots[j].hash) {
        if (t->slots[j].hash == h && entry_eq(t->slots[j].entry, key, len))
            return entry_val(t->slots[j].entry);
        j = (j + 1) & (t->cap - 1);
    }
    return NULL;
}

void *sat_strtab_upsert(sat_strtab *t, const void *key, size_t len,
                        int *is_new, int *capped)
{
    if (len > UINT32_MAX / 2)
        len = UINT32_MAX / 2;
    if (t->last && entry_eq(t->last, key, len)) {
        if (is_new)
            *is_new = 0;
        if (capped)
            *capped = 0;
        return entry_val(t->last);
    }
    return sat_strtab_upsert_h(t, key, len, sat_strtab_hash(key, len), is_new, capped);
}

void *sat_strtab_upsert_h(sat_strtab *t, const void *key, size_t len, uint64_t h,
                          int *is_new, int *capped)
{
    if (is_new)
        *is_new = 0;
    if (capped)
        *capped = 0;
    if (len > UINT32_MAX / 2)
        return NULL; /* callers hash at most this much; never reached */
    if (t->last && entry_eq(t->last, key, len))
        return entry_val(t->last);
    if ((t->n + 1) * 4 > t->cap * 3 && grow_slots(t) < 0)
        return NULL;
    size_t j = slot_of(h, t->cap);
    while (t->slots[j].hash) {
        if (t->slots[j].hash == h && entry_eq(t->slots[j].entry, key, len)) {
            t->last = t->slots[j].entry;
            return entry_val(t->last);
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (t->max_keys && t->n >= t->max_keys) {
        if (capped)
            *capped = 1;
        return NULL;
    }
    if (SAT_GROW(t->entries, t->ecap, t->n + 1) < 0)
        return NULL;
    size_t off = 8 + (len + 1 + 7) / 8 * 8;
    if (off + t->val_size > UINT32_MAX)
        return NULL;
    unsigned char *e = (unsigned char *)sat_arena_alloc(&t->arena, off + t->val_size);
    if (!e)
        return NULL;
    uint32_t l32 = (uint32_t)len, o32 = (uint32_t)off;
    memcpy(e, &l32, 4);
    memcpy(e + 4, &o32, 4);
    if (len)
        memcpy(e + 8, key, len);
    e[8 + len] = '\0';
    memset(e + off, 0, t->val_size);
    t->entries[t->n++] = e;
    t->slots[j].hash = h;
    t->slots[j].entry = e;
    t->last = e;
    if (is_new)
        *is_new = 1;
    return e + off;
}

size_t sat_strtab_bytes(const sat_strtab *t)
{
    return t->cap * sizeof(sat_strtab_slot) + t->ecap * sizeof(unsigned char *) +
           t->arena.total;
}
