/*
 * acc.c - accumulator records and keyed tables (acc.h): init, merge and
 * free by field kind, written once for every analyzer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"

static size_t kind_size(int kind)
{
    switch (kind) {
    case SAT_ACC_DSUM: return sizeof(double);
    case SAT_ACC_SKETCH: return sizeof(sat_qsketch);
    case SAT_ACC_DERIVED: return 0;
    default: return 8; /* uint64_t / int64_t */
    }
}

/* Bytes of one element of a field of this kind (FIRST/LAST: with its extra). */
static size_t elem_size(const sat_acc_field *f)
{
    return kind_size(f->kind) +
           (f->kind == SAT_ACC_FIRST || f->kind == SAT_ACC_LAST ? f->extra : 0);
}

/* Every element of every field of d: for (EACH...) gives f and the byte
 * offset of the element in the record. */
#define FOR_EACH_ELEM(d, f, off)                                                          \
    for (const sat_acc_field *f = (d)->fields; f < (d)->fields + (d)->nfields; f++)       \
        for (size_t e_ = 0, off = f->off; f->kind != SAT_ACC_DERIVED && e_ < (f->n ? f->n : 1u); \
             e_++, off += elem_size(f))

void sat_rec_init(const sat_rec_desc *d, void *rec)
{
    memset(rec, 0, d->size);
    FOR_EACH_ELEM(d, f, off)
    {
        unsigned char *p = (unsigned char *)rec + off;
        int64_t v;
        switch (f->kind) {
        case SAT_ACC_MAX:
            v = SAT_ACC_NONE_MAX;
            memcpy(p, &v, sizeof v);
            break;
        case SAT_ACC_MIN:
            v = SAT_ACC_NONE_MIN;
            memcpy(p, &v, sizeof v);
            break;
        case SAT_ACC_SKETCH: sat_qsketch_init((sat_qsketch *)(void *)p, f->extra); break;
        default: break;
        }
    }
}

void sat_acc_first(void *field, int64_t ts, const void *extra, size_t n)
{
    int64_t cur;
    memcpy(&cur, field, sizeof cur);
    if (ts == 0 || (cur != 0 && cur <= ts))
        return;
    memcpy(field, &ts, sizeof ts);
    if (n)
        memcpy((unsigned char *)field + sizeof ts, extra, n);
}

void sat_acc_last(void *field, int64_t ts, const void *extra, size_t n)
{
    int64_t cur;
    memcpy(&cur, field, sizeof cur);
    if (ts == 0 || (cur != 0 && cur > ts))
        return;
    memcpy(field, &ts, sizeof ts);
    if (n)
        memcpy((unsigned char *)field + sizeof ts, extra, n);
}

int sat_rec_merge(const sat_rec_desc *d, void *into, const void *from)
{
    int st = SAT_OK;
    FOR_EACH_ELEM(d, f, off)
    {
        unsigned char *p = (unsigned char *)into + off;
        const unsigned char *q = (const unsigned char *)from + off;
        uint64_t a, b;
        int64_t x, y;
        double u, w;
        switch (f->kind) {
        case SAT_ACC_COUNT:
        case SAT_ACC_BITS:
            memcpy(&a, p, 8);
            memcpy(&b, q, 8);
            a = f->kind == SAT_ACC_COUNT ? a + b : (a | b);
            memcpy(p, &a, 8);
            break;
        case SAT_ACC_SUM:
        case SAT_ACC_MAX:
        case SAT_ACC_MIN:
            memcpy(&x, p, 8);
            memcpy(&y, q, 8);
            if (f->kind == SAT_ACC_SUM)
                sat_sum_add(&x, y);
            else if (f->kind == SAT_ACC_MAX ? y > x : y < x)
                x = y;
            memcpy(p, &x, 8);
            break;
        case SAT_ACC_DSUM:
            memcpy(&u, p, sizeof u);
            memcpy(&w, q, sizeof w);
            u += w;
            memcpy(p, &u, sizeof u);
            break;
        case SAT_ACC_FIRST:
        case SAT_ACC_LAST:
            memcpy(&y, q, 8);
            if (f->kind == SAT_ACC_FIRST)
                sat_acc_first(p, y, q + 8, f->extra);
            else
                sat_acc_last(p, y, q + 8, f->extra);
            break;
        case SAT_ACC_SKETCH:
            if (sat_qsketch_merge((sat_qsketch *)(void *)p, (const sat_qsketch *)(const void *)q))
                st = SAT_E_NOMEM;
            break;
        }
    }
    if (d->merge_extra && d->merge_extra(into, from) != SAT_OK)
        st = SAT_E_NOMEM;
    return st;
}

/* ---- output ------------------------------------------------------------------ */

/* The unit a field is written in. */
static int out_unit(const sat_acc_field *f)
{
    if (f->out.unit)
        return f->out.unit;
    switch (f->kind) {
    case SAT_ACC_COUNT:
    case SAT_ACC_BITS: return SAT_UNIT_COUNT;
    case SAT_ACC_FIRST:
    case SAT_ACC_LAST: return SAT_UNIT_TIME;
    case SAT_ACC_DSUM:
    case SAT_ACC_DERIVED: return SAT_UNIT_NUMBER;
    default: return SAT_UNIT_INT;
    }
}

static void put_field(const sat_acc_field *f, sat_rnode *o, const void *rec, const void *ctx)
{
    const unsigned char *p = (const unsigned char *)rec + f->off;
    int unit = out_unit(f);
    uint64_t u = 0;
    int64_t i = 0;
    double x = NAN;
    if (f->kind == SAT_ACC_DERIVED) {
        x = f->out.derive ? f->out.derive(rec, ctx) : NAN;
        if ((unit == SAT_UNIT_COUNT || unit == SAT_UNIT_BYTES) && !(x >= 0)) {
            sat_put_absent(o, f->out.key, (sat_unit)unit); /* a derived count: none */
            return;
        }
        u = x >= 0 ? (uint64_t)x : 0; /* a derived count or byte figure */
    } else if (f->kind == SAT_ACC_DSUM)
        memcpy(&x, p, sizeof x);
    else if (f->kind != SAT_ACC_SKETCH) {
        memcpy(&u, p, 8);
        memcpy(&i, p, 8);
    }
    int none = (f->kind == SAT_ACC_MAX && i == SAT_ACC_NONE_MAX) ||
               (f->kind == SAT_ACC_MIN && i == SAT_ACC_NONE_MIN);
    const char *k = f->out.key;
    if (f->kind == SAT_ACC_SUM && i == SAT_SUM_SATURATED) {
        sat_put_absent(o, k, (sat_unit)unit); /* past the range (acc.h) */
        return;
    }
    switch (unit) {
    case SAT_UNIT_COUNT: sat_put_count(o, k, u); break;
    case SAT_UNIT_BYTES: sat_put_bytes(o, k, u); break;
    case SAT_UNIT_TIME: sat_put_time(o, k, i); break;
    case SAT_UNIT_INT:
        if (none)
            sat_put_absent(o, k, SAT_UNIT_INT);
        else
            sat_put_int(o, k, i);
        break;
    case SAT_UNIT_DURATION:
        /* stored fields hold ns; a derived one gives seconds */
        sat_put_dur(o, k, none ? NAN : f->kind == SAT_ACC_DERIVED ? x : (double)i / 1e9,
                    f->out.decimals ? f->out.decimals : 6);
        break;
    case SAT_UNIT_RATIO: sat_put_ratio(o, k, x, f->out.decimals ? f->out.decimals : 4); break;
    case SAT_UNIT_RATE: sat_put_rate(o, k, x, f->out.decimals ? f->out.decimals : 3); break;
    default: sat_put_num(o, k, x, f->out.decimals ? f->out.decimals : 3); break;
    }
}

static void put_all(const sat_rec_desc *d, sat_rnode *o, const void *rec, const void *ctx,
                    int summary)
{
    for (const sat_acc_field *f = d->fields; f < d->fields + d->nfields; f++) {
        if (!f->out.key)
            continue;
        put_field(f, o, rec, ctx);
        if (summary) {
            sat_put_note(o, f->out.note);
            sat_put_label(o, f->out.title);
        }
    }
}

void sat_rec_put(const sat_rec_desc *d, sat_rnode *o, const void *rec, const void *ctx)
{
    put_all(d, o, rec, ctx, 1);
}

void sat_rec_row(const sat_rec_desc *d, sat_rnode *row, const void *rec, const void *ctx)
{
    put_all(d, row, rec, ctx, 0);
}

size_t sat_rec_cols(const sat_rec_desc *d, sat_col *cols, size_t max)
{
    size_t n = 0;
    for (const sat_acc_field *f = d->fields; f < d->fields + d->nfields && n < max; f++)
        if (f->out.key)
            cols[n++] = (sat_col){f->out.key, (uint8_t)out_unit(f),
                                  f->out.decimals ? f->out.decimals
                                  : out_unit(f) == SAT_UNIT_DURATION ? 6
                                  : out_unit(f) == SAT_UNIT_RATIO ? 4 : 3,
                                  f->out.title};
    return n;
}

void sat_rec_free(const sat_rec_desc *d, void *rec)
{
    if (!rec)
        return;
    FOR_EACH_ELEM(d, f, off)
    {
        if (f->kind == SAT_ACC_SKETCH)
            sat_qsketch_free((sat_qsketch *)(void *)((unsigned char *)rec + off));
    }
}

/* ---- keyed tables ------------------------------------------------------------ */

int sat_keyed_init(sat_keyed *k, const sat_rec_desc *d, size_t max_keys)
{
    memset(k, 0, sizeof *k);
    k->d = d;
    /* each payload is [rows of the key | record]: a merge that folds a key
     * of `from` adds that key's rows to folded_rows */
    sat_strtab_init(&k->tab, SAT_KEYED_HDR + d->size, max_keys);
    k->other = malloc(d->size);
    if (!k->other)
        return SAT_E_NOMEM;
    sat_rec_init(d, k->other);
    return SAT_OK;
}

void sat_keyed_free(sat_keyed *k)
{
    if (!k || !k->d)
        return;
    for (size_t i = 0; i < k->tab.n; i++)
        sat_rec_free(k->d, sat_keyed_rec(k, i));
    sat_strtab_free(&k->tab);
    if (k->other)
        sat_rec_free(k->d, k->other);
    free(k->other);
    k->other = NULL;
}

/* The record of key with `rows` more rows, or other (*folded) when full. */
static void *keyed_at(sat_keyed *k, const void *key, size_t len, uint64_t rows, int *folded)
{
    int is_new = 0, capped = 0;
    unsigned char *p = (unsigned char *)sat_strtab_upsert(&k->tab, key, len, &is_new, &capped);
    *folded = 0;
    if (p) {
        if (is_new)
            sat_rec_init(k->d, p + SAT_KEYED_HDR);
        uint64_t n;
        memcpy(&n, p, sizeof n);
        n += rows;
        memcpy(p, &n, sizeof n);
        return p + SAT_KEYED_HDR;
    }
    if (capped && k->other) {
        k->folded_rows += rows;
        *folded = 1;
        return k->other;
    }
    k->nomem = 1;
    return NULL;
}

void *sat_keyed_at(sat_keyed *k, const void *key, size_t len, int *folded)
{
    int f;
    void *rec = keyed_at(k, key, len, 1, &f);
    if (folded)
        *folded = f;
    return rec;
}

void *sat_keyed_new_(sat_keyed *k, unsigned char *p, int capped, int *folded)
{
    if (folded)
        *folded = 0;
    if (p) {
        sat_rec_init(k->d, p + SAT_KEYED_HDR);
        uint64_t n = 1;
        memcpy(p, &n, sizeof n);
        return p + SAT_KEYED_HDR;
    }
    if (capped && k->other) {
        k->folded_rows++;
        if (folded)
            *folded = 1;
        return k->other;
    }
    k->nomem = 1;
    return NULL;
}

uint64_t sat_keyed_rows(const sat_keyed *k, size_t i)
{
    uint64_t n;
    memcpy(&n, sat_strtab_val(&k->tab, i), sizeof n);
    return n;
}

int sat_keyed_merge(sat_keyed *into, const sat_keyed *from)
{
    int st = SAT_OK;
    for (size_t i = 0; i < from->tab.n; i++) {
        int folded;
        void *rec = keyed_at(into, sat_strtab_key(&from->tab, i), sat_strtab_len(&from->tab, i),
                             sat_keyed_rows(from, i), &folded);
        if (!rec) {
            st = SAT_E_NOMEM;
            continue;
        }
        if (sat_rec_merge(into->d, rec, sat_keyed_rec(from, i)) != SAT_OK)
            st = SAT_E_NOMEM;
    }
    if (from->other && into->other && from->folded_rows) {
        if (sat_rec_merge(into->d, into->other, from->other) != SAT_OK)
            st = SAT_E_NOMEM;
        into->folded_rows += from->folded_rows;
    }
    if (from->nomem)
        into->nomem = 1;
    return st;
}

/* qsort has no context argument in C11: the order and table of the sort in
 * progress, one per thread (analyzers may finish in parallel threads). */
static _Thread_local int (*sort_cmp)(const void *, const void *);
static _Thread_local const sat_keyed *sort_k;

static int by_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = sort_cmp(sat_keyed_rec(sort_k, a), sat_keyed_rec(sort_k, b));
    if (c)
        return c;
    size_t la = sat_strtab_len(&sort_k->tab, a), lb = sat_strtab_len(&sort_k->tab, b);
    c = memcmp(sat_strtab_key(&sort_k->tab, a), sat_strtab_key(&sort_k->tab, b),
               la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

size_t *sat_keyed_sorted(const sat_keyed *k, int (*cmp)(const void *, const void *), size_t *n)
{
    *n = k->tab.n;
    size_t *idx = (size_t *)malloc((k->tab.n ? k->tab.n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (size_t i = 0; i < k->tab.n; i++)
        idx[i] = i;
    sort_cmp = cmp;
    sort_k = k;
    qsort(idx, k->tab.n, sizeof *idx, by_cmp);
    return idx;
}
