/*
 * cachesize_mrc.c - the miss-ratio curve accumulator of the cachesize
 * analyzer (cachesize_internal.h): add a reference, merge two streams,
 * finish into the LRU curve, read hits at a size.
 *
 * Storage and merging: each reference is kept as 8 bytes (a 48-bit hash of
 * the DN and its length), in order, so that merge is concatenation and the
 * curve of several days or servers is that of the combined stream. Past
 * max_refs kept references, the stream is spatially sampled (a reference is
 * kept when hash(key) <= keep_max; keep_max halves until it fits), which is
 * the first step of SHARDS and leaves a stream SHARDS can finish. Merging
 * two streams samples both at the lower rate.
 *
 * The curve:
 *   exact   Mattson et al. 1970: an LRU stack distance per reference, the
 *           number of distinct keys referenced since the key's last reference
 *           plus one, counted with a Fenwick tree over reference times (one
 *           mark per key, at its last reference; times renumbered when the
 *           axis fills, so memory is O(distinct keys)). hits(c) = references
 *           with distance <= c: exact.
 *   SHARDS  Waldspurger et al., "Efficient MRC Construction with SHARDS",
 *           FAST'15, fixed-size variant: a key is sampled when its spatial
 *           hash T_i <= T; at most s_max sampled keys are tracked, and when
 *           one more arrives the key with the largest T_i is evicted and T is
 *           lowered below it (rate R = T / 2^64). A sampled reference's
 *           distance is scaled by 1/R and counted with weight 1/R (the same
 *           as rescaling the histogram when R drops); the SHARDS_adj
 *           correction adds (references - the weights' sum) to the first
 *           bucket. Scaled distances go to log buckets (exact to 4095, then
 *           256 per doubling) read with linear interpolation.
 *           Used when the stream was sampled to fit max_refs, or when asked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cachesize_internal.h"

#define CS_FREE UINT32_MAX
#define CS_NB_EXACT 4096
#define CS_NBUCKETS (CS_NB_EXACT + 52 * 256)

uint64_t cs_spatial(uint64_t key) { return sat_hash_u64(key ^ 0x9e3779b97f4a7c15ULL); }

static double rate_of(uint64_t tmax)
{
    return tmax == UINT64_MAX ? 1.0 : ldexp((double)tmax + 1.0, -64);
}

double cs_mrc_keep_rate(const cs_mrc *m) { return rate_of(m->keep_max); }

/* ---- the stored stream ----------------------------------------------------------- */

void cs_mrc_init(cs_mrc *m, uint64_t max_refs, size_t smax, int force_shards)
{
    memset(m, 0, sizeof *m);
    m->max_refs = max_refs;
    m->smax = smax;
    m->force_shards = force_shards;
    m->keep_max = UINT64_MAX;
    m->shards_rate = NAN;
    m->dn_mean_len = NAN;
}

static void free_curve(cs_mrc *m)
{
    free(m->cum);
    free(m->bcum);
    free(m->bw);
    m->cum = NULL;
    m->bcum = m->bw = NULL;
    m->maxd = 0;
}

void cs_mrc_free(cs_mrc *m)
{
    free_curve(m);
    free(m->refs);
    free(m->runs);
    m->refs = NULL;
    m->runs = NULL;
}

/* keep only references whose spatial hash is <= keep, the hour runs aligned */
static void filter_to(cs_mrc *m, uint64_t keep)
{
    m->keep_max = keep;
    size_t w = 0, r = 0;
    for (size_t i = 0; i < m->nrefs; i++) {
        while (r < m->nruns && m->runs[r].at == i)
            m->runs[r++].at = w;
        if (cs_spatial(m->refs[i] >> 16) <= keep)
            m->refs[w++] = m->refs[i];
    }
    while (r < m->nruns)
        m->runs[r++].at = w;
    m->nrefs = w;
}

/* halve the rate until the kept stream fits max_refs */
static void thin(cs_mrc *m)
{
    while (m->nrefs > m->max_refs && m->keep_max > 0)
        filter_to(m, m->keep_max >> 1);
}

static int push_ref(cs_mrc *m, uint64_t ref, int64_t hour)
{
    if (m->nruns == 0 || m->runs[m->nruns - 1].hour != hour) {
        if (SAT_GROW(m->runs, m->runcap, m->nruns + 1) < 0)
            return SAT_E_NOMEM;
        m->runs[m->nruns].at = m->nrefs;
        m->runs[m->nruns++].hour = hour;
    }
    if (SAT_GROW(m->refs, m->cap, m->nrefs + 1) < 0)
        return SAT_E_NOMEM;
    m->refs[m->nrefs++] = ref;
    if (m->nrefs > m->max_refs)
        thin(m);
    return SAT_OK;
}

int cs_mrc_add(cs_mrc *m, uint64_t key, size_t len, int64_t hour)
{
    m->references++;
    if (cs_spatial(key) > m->keep_max)
        return SAT_OK;
    return push_ref(m, key << 16 | (len > 65535 ? 65535 : len), hour);
}

int cs_mrc_merge(cs_mrc *into, const cs_mrc *from)
{
    into->references += from->references;
    if (from->keep_max < into->keep_max)
        filter_to(into, from->keep_max);
    size_t r = 0;
    for (size_t i = 0; i < from->nrefs; i++) {
        while (r + 1 < from->nruns && from->runs[r + 1].at <= i)
            r++;
        uint64_t ref = from->refs[i];
        if (cs_spatial(ref >> 16) <= into->keep_max &&
            push_ref(into, ref, from->nruns ? from->runs[r].hour : INT64_MIN) < 0)
            return SAT_E_NOMEM;
    }
    return SAT_OK;
}

/* ---- the LRU stack: keys, their last reference time, a Fenwick tree ---------------- */

typedef struct cs_stack {
    uint64_t *keys;  /* key + 1; 0 empty */
    uint32_t *tim;   /* slot -> time of its last reference */
    size_t cap, n;
    uint32_t *fen;   /* 1-based over times [0, F) */
    uint32_t *owner; /* time -> slot, CS_FREE */
    size_t F, now, marked;
} cs_stack;

static void stack_free(cs_stack *s)
{
    free(s->keys);
    free(s->tim);
    free(s->fen);
    free(s->owner);
    memset(s, 0, sizeof *s);
}

static int stack_init(cs_stack *s, size_t keys_hint)
{
    memset(s, 0, sizeof *s);
    s->cap = 1024;
    while (s->cap < 2 * keys_hint)
        s->cap <<= 1;
    s->F = 1024;
    s->keys = calloc(s->cap, sizeof *s->keys);
    s->tim = malloc(s->cap * sizeof *s->tim);
    s->fen = calloc(s->F + 1, sizeof *s->fen);
    s->owner = malloc(s->F * sizeof *s->owner);
    if (!s->keys || !s->tim || !s->fen || !s->owner) {
        stack_free(s);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < s->F; i++)
        s->owner[i] = CS_FREE;
    return SAT_OK;
}

static size_t slot_of(const cs_stack *s, uint64_t key)
{
    return (size_t)sat_hash_u64(key) & (s->cap - 1);
}

static void fen_add(cs_stack *s, size_t t, int32_t d)
{
    for (size_t i = t + 1; i <= s->F; i += i & (~i + 1))
        s->fen[i] += (uint32_t)d;
}

static size_t fen_prefix(const cs_stack *s, size_t t) /* marks at times 0..t */
{
    size_t sum = 0;
    for (size_t i = t + 1; i > 0; i -= i & (~i + 1))
        sum += s->fen[i];
    return sum;
}

static int stack_grow_table(cs_stack *s)
{
    size_t nc = s->cap * 2;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nt = malloc(nc * sizeof *nt);
    if (!nk || !nt) {
        free(nk);
        free(nt);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->keys[i])
            continue;
        size_t j = (size_t)sat_hash_u64(s->keys[i] - 1) & (nc - 1);
        while (nk[j])
            j = (j + 1) & (nc - 1);
        nk[j] = s->keys[i];
        nt[j] = s->tim[i];
        s->owner[s->tim[i]] = (uint32_t)j;
    }
    free(s->keys);
    free(s->tim);
    s->keys = nk;
    s->tim = nt;
    s->cap = nc;
    return SAT_OK;
}

/* renumber the marked times 0..marked-1 in order; widen the axis if half full */
static int stack_compact(cs_stack *s)
{
    size_t k = 0;
    for (size_t t = 0; t < s->now; t++) {
        uint32_t sl = s->owner[t];
        if (sl == CS_FREE)
            continue;
        s->tim[sl] = (uint32_t)k;
        s->owner[k++] = sl;
    }
    if (2 * k >= s->F) {
        /* the axis doubles: owner holds F times, fen F + 1 nodes */
        size_t ocap = s->F, fcap = s->F + 1;
        if (SAT_GROW(s->owner, ocap, 2 * s->F) < 0 || SAT_GROW(s->fen, fcap, 2 * s->F + 1) < 0)
            return SAT_E_NOMEM;
        s->F *= 2;
    }
    for (size_t t = k; t < s->F; t++)
        s->owner[t] = CS_FREE;
    memset(s->fen, 0, (s->F + 1) * sizeof *s->fen);
    for (size_t i = 1; i <= k; i++)
        s->fen[i] = 1;
    for (size_t i = 1; i <= s->F; i++) {
        size_t j = i + (i & (~i + 1));
        if (j <= s->F)
            s->fen[j] += s->fen[i];
    }
    s->now = k;
    return SAT_OK;
}

/* A reference to key: its stack distance (0: first reference), or < 0 on no memory.
 * *is_new says whether the key was inserted. */
static int64_t stack_access(cs_stack *s, uint64_t key, int *is_new)
{
    if (s->now == s->F && stack_compact(s) < 0)
        return SAT_E_NOMEM;
    if (2 * (s->n + 1) > s->cap && stack_grow_table(s) < 0)
        return SAT_E_NOMEM;
    size_t i = slot_of(s, key);
    while (s->keys[i] && s->keys[i] != key + 1)
        i = (i + 1) & (s->cap - 1);
    int64_t d = 0;
    if (s->keys[i]) {
        size_t p = s->tim[i];
        d = (int64_t)(s->marked - fen_prefix(s, p)) + 1;
        fen_add(s, p, -1);
        s->owner[p] = CS_FREE;
        s->marked--;
        *is_new = 0;
    } else {
        s->keys[i] = key + 1;
        s->n++;
        *is_new = 1;
    }
    s->tim[i] = (uint32_t)s->now;
    s->owner[s->now] = (uint32_t)i;
    fen_add(s, s->now, 1);
    s->marked++;
    s->now++;
    return d;
}

/* forget key (SHARDS eviction): unmark, then delete with backward shift */
static void stack_remove(cs_stack *s, uint64_t key)
{
    size_t i = slot_of(s, key);
    while (s->keys[i] && s->keys[i] != key + 1)
        i = (i + 1) & (s->cap - 1);
    if (!s->keys[i])
        return;
    size_t p = s->tim[i];
    fen_add(s, p, -1);
    s->owner[p] = CS_FREE;
    s->marked--;
    s->keys[i] = 0;
    s->n--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & (s->cap - 1);
        if (!s->keys[j])
            break;
        size_t home = slot_of(s, s->keys[j] - 1);
        /* can the entry at j move to the hole at i? (home not in (i, j]) */
        int move = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (move) {
            s->keys[i] = s->keys[j];
            s->tim[i] = s->tim[j];
            s->owner[s->tim[i]] = (uint32_t)i;
            s->keys[j] = 0;
            i = j;
        }
    }
}

/* ---- exact curve ------------------------------------------------------------------ */

static int curve_exact(cs_mrc *c)
{
    cs_stack s;
    if (stack_init(&s, 0) < 0)
        return SAT_E_NOMEM;
    size_t hcap = 1024;
    uint64_t *hist = calloc(hcap, sizeof *hist);
    double dnlen = 0;
    size_t maxd = 0;
    if (!hist)
        goto nomem;
    for (size_t i = 0; i < c->nrefs; i++) {
        int is_new;
        int64_t d = stack_access(&s, c->refs[i] >> 16, &is_new);
        if (d < 0)
            goto nomem;
        if (is_new) {
            dnlen += (double)(c->refs[i] & 0xffff);
            continue;
        }
        size_t du = (size_t)d;
        if (du >= hcap) {
            size_t had = hcap;
            if (SAT_GROW(hist, hcap, du + 1) < 0)
                goto nomem;
            memset(hist + had, 0, (hcap - had) * sizeof *hist);
        }
        hist[du]++;
        if (du > maxd)
            maxd = du;
    }
    c->unique = (double)s.n;
    c->dn_mean_len = s.n ? dnlen / (double)s.n : NAN;
    c->cum = malloc((maxd + 1) * sizeof *c->cum);
    if (!c->cum)
        goto nomem;
    c->cum[0] = 0;
    for (size_t d = 1; d <= maxd; d++)
        c->cum[d] = c->cum[d - 1] + hist[d];
    c->maxd = maxd;
    free(hist);
    stack_free(&s);
    return SAT_OK;
nomem:
    free(hist);
    stack_free(&s);
    return SAT_E_NOMEM;
}


/* ---- SHARDS ------------------------------------------------------------------------ */

static size_t bucket_of(uint64_t x)
{
    if (x < CS_NB_EXACT)
        return (size_t)x;
    int e = 63 - __builtin_clzll(x);
    return CS_NB_EXACT + (size_t)(e - 12) * 256 + (size_t)((x >> (e - 8)) & 255);
}

static void bucket_range(size_t b, uint64_t *lo, uint64_t *hi)
{
    if (b < CS_NB_EXACT) {
        *lo = *hi = b;
        return;
    }
    size_t e = (b - CS_NB_EXACT) / 256 + 12, m = (b - CS_NB_EXACT) % 256;
    *lo = (uint64_t)(256 + m) << (e - 8);
    *hi = *lo + ((uint64_t)1 << (e - 8)) - 1;
}

typedef struct heap_item {
    uint64_t t, key;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item x)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p].t >= x.t)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
    heap_item top = h[0], x = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        heap_item best = x;
        if (l < *n && h[l].t > best.t) {
            m = l;
            best = h[l];
        }
        if (r < *n && h[r].t > best.t)
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
    return top;
}

static int curve_shards(cs_mrc *c)
{
    size_t smax = c->smax;
    cs_stack s;
    if (stack_init(&s, smax) < 0)
        return SAT_E_NOMEM;
    heap_item *heap = malloc((smax + 1) * sizeof *heap);
    c->bw = calloc(CS_NBUCKETS, sizeof *c->bw);
    c->bcum = calloc(CS_NBUCKETS, sizeof *c->bcum);
    if (!heap || !c->bw || !c->bcum) {
        free(heap);
        stack_free(&s);
        return SAT_E_NOMEM;
    }
    size_t nheap = 0;
    uint64_t tmax = c->keep_max;
    double rate = rate_of(tmax), total_w = 0, cold_w = 0, dnlen = 0;
    uint64_t sampled_new = 0;
    for (size_t i = 0; i < c->nrefs; i++) {
        uint64_t key = c->refs[i] >> 16, t = cs_spatial(key);
        if (t > tmax)
            continue;
        int is_new;
        int64_t d = stack_access(&s, key, &is_new);
        if (d < 0) {
            free(heap);
            stack_free(&s);
            return SAT_E_NOMEM;
        }
        double w = 1.0 / rate;
        total_w += w;
        if (is_new) {
            cold_w += w;
            dnlen += (double)(c->refs[i] & 0xffff);
            sampled_new++;
            heap_push(heap, &nheap, (heap_item){t, key});
        } else {
            double x = floor((double)d / rate);
            uint64_t xi = x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
            c->bw[bucket_of(xi < 1 ? 1 : xi)] += w;
        }
        while (nheap > smax) {
            heap_item ev = heap_pop(heap, &nheap);
            stack_remove(&s, ev.key);
            while (nheap && heap[0].t == ev.t)
                stack_remove(&s, heap_pop(heap, &nheap).key);
            tmax = ev.t - 1;
            rate = rate_of(tmax);
        }
    }
    free(heap);
    stack_free(&s);
    double run = 0;
    for (size_t b = 0; b < CS_NBUCKETS; b++) {
        run += c->bw[b];
        c->bcum[b] = run;
    }
    c->adj = (double)c->references - total_w; /* SHARDS_adj */
    c->unique = cold_w;
    c->dn_mean_len = sampled_new ? dnlen / (double)sampled_new : NAN;
    c->shards_rate = rate;
    return SAT_OK;
}

double cs_mrc_hits(const cs_mrc *c, uint64_t entries)
{
    if (entries == 0)
        return 0;
    if (c->method == CS_EXACT) {
        if (!c->cum)
            return 0;
        return (double)c->cum[entries < c->maxd ? entries : c->maxd];
    }
    if (!c->bcum)
        return 0;
    size_t b = bucket_of(entries);
    uint64_t lo, hi;
    bucket_range(b, &lo, &hi);
    double h = (b ? c->bcum[b - 1] : 0) +
               c->bw[b] * (double)(entries - lo + 1) / (double)(hi - lo + 1);
    h += c->adj;
    double n = (double)c->references;
    return h < 0 ? 0 : h > n ? n : h;
}

uint64_t cs_mrc_top(const cs_mrc *c)
{
    if (c->method == CS_EXACT)
        return c->maxd;
    for (size_t b = CS_NBUCKETS; b-- > 0;)
        if (c->bw && c->bw[b] > 0) {
            uint64_t lo, hi;
            bucket_range(b, &lo, &hi);
            return hi;
        }
    return 1;
}

int cs_mrc_finish(cs_mrc *m)
{
    free_curve(m);
    m->shards_rate = NAN;
    m->method = (m->keep_max != UINT64_MAX || m->force_shards) ? CS_SHARDS : CS_EXACT;
    return m->method == CS_EXACT ? curve_exact(m) : curve_shards(m);
}
