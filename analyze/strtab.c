/*
 * strtab.c - byte-string keyed hash table with interned keys and zeroed
 * fixed-size payloads (see strtab.h for the contract and why).
 */
#include "strtab.h"

void sat_strtab_init(sat_strtab *t, size_t val_size, size_t max_keys)
{
    memset(t, 0, sizeof *t);
    t->val_size = val_size ? val_size : 1;
    t->max_keys = max_keys;
    t->arena.chunk_size = 64 * 1024;
    t->last = UINT32_MAX;
}

void sat_strtab_free(sat_strtab *t)
{
    if (!t)
        return;
    free(t->hashes);
    free(t->slots);
    free(t->keys);
    free(t->lens);
    free(t->vals);
    sat_arena_free(&t->arena);
    memset(t, 0, sizeof *t);
    t->last = UINT32_MAX;
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

static int grow_slots(sat_strtab *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    uint64_t *nh = (uint64_t *)calloc(ncap, sizeof *nh);
    uint32_t *ns = (uint32_t *)malloc(ncap * sizeof *ns);
    if (!nh || !ns) {
        free(nh);
        free(ns);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->hashes[i])
            continue;
        size_t j = (size_t)t->hashes[i] & (ncap - 1);
        while (nh[j])
            j = (j + 1) & (ncap - 1);
        nh[j] = t->hashes[i];
        ns[j] = t->slots[i];
    }
    free(t->hashes);
    free(t->slots);
    t->hashes = nh;
    t->slots = ns;
    t->cap = ncap;
    return SAT_OK;
}

static int grow_vals(sat_strtab *t)
{
    size_t nv = t->vcap ? t->vcap * 2 : 16;
    const char **nk = (const char **)realloc((void *)t->keys, nv * sizeof *nk);
    if (!nk)
        return SAT_E_NOMEM;
    t->keys = nk;
    uint32_t *nl = (uint32_t *)realloc(t->lens, nv * sizeof *nl);
    if (!nl)
        return SAT_E_NOMEM;
    t->lens = nl;
    unsigned char *nvals = (unsigned char *)realloc(t->vals, nv * t->val_size);
    if (!nvals)
        return SAT_E_NOMEM;
    t->vals = nvals;
    t->vcap = nv;
    return SAT_OK;
}

static inline int key_eq(const sat_strtab *t, uint32_t i, const void *key, size_t len)
{
    return t->lens[i] == len && (len == 0 || memcmp(t->keys[i], key, len) == 0);
}

void *sat_strtab_find(const sat_strtab *t, const void *key, size_t len)
{
    if (!t->cap)
        return NULL;
    if (t->last != UINT32_MAX && key_eq(t, t->last, key, len))
        return sat_strtab_val(t, t->last);
    uint64_t h = sat_strtab_hash(key, len);
    size_t j = (size_t)h & (t->cap - 1);
    while (t->hashes[j]) {
        if (t->hashes[j] == h && key_eq(t, t->slots[j], key, len))
            return sat_strtab_val(t, t->slots[j]);
        j = (j + 1) & (t->cap - 1);
    }
    return NULL;
}

void *sat_strtab_upsert(sat_strtab *t, const void *key, size_t len,
                        int *is_new, int *capped)
{
    if (is_new)
        *is_new = 0;
    if (capped)
        *capped = 0;
    if (len > UINT32_MAX - 1)
        len = UINT32_MAX - 1;
    if (t->last != UINT32_MAX && key_eq(t, t->last, key, len))
        return sat_strtab_val(t, t->last);
    if ((t->n + 1) * 4 > t->cap * 3 && grow_slots(t) < 0)
        return NULL;
    uint64_t h = sat_strtab_hash(key, len);
    size_t j = (size_t)h & (t->cap - 1);
    while (t->hashes[j]) {
        if (t->hashes[j] == h && key_eq(t, t->slots[j], key, len)) {
            t->last = t->slots[j];
            return sat_strtab_val(t, t->slots[j]);
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (t->max_keys && t->n >= t->max_keys) {
        if (capped)
            *capped = 1;
        return NULL;
    }
    if (t->n == t->vcap && grow_vals(t) < 0)
        return NULL;
    char *k = sat_arena_strdup(&t->arena, (const char *)key, len);
    if (!k)
        return NULL;
    uint32_t i = (uint32_t)t->n++;
    t->keys[i] = k;
    t->lens[i] = (uint32_t)len;
    memset(sat_strtab_val(t, i), 0, t->val_size);
    t->hashes[j] = h;
    t->slots[j] = i;
    t->last = i;
    if (is_new)
        *is_new = 1;
    return sat_strtab_val(t, i);
}

size_t sat_strtab_bytes(const sat_strtab *t)
{
    return t->cap * (sizeof(uint64_t) + sizeof(uint32_t)) +
           t->vcap * (sizeof(char *) + sizeof(uint32_t) + t->val_size) +
           t->arena.total;
}
