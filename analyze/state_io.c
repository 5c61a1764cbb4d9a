/*
 * state_io.c - analyzers' state as bytes and back (state_io.h): the
 * accumulators of acc.h written once for every analyzer, and read back only
 * through a bounded cursor.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_io.h"

#define NULL_STR UINT32_MAX

/* ---- writing ------------------------------------------------------------------ */

void sat_sw_free(sat_sw *w)
{
    free(w->p);
    memset(w, 0, sizeof *w);
}

void sat_sw_raw(sat_sw *w, const void *p, size_t n)
{
    if (w->nomem || !n)
        return;
    if (n > SIZE_MAX - w->n || SAT_GROW(w->p, w->cap, w->n + n) != SAT_OK) {
        w->nomem = 1;
        return;
    }
    memcpy(w->p + w->n, p, n);
    w->n += n;
}

static void put_le(sat_sw *w, uint64_t v, int bytes)
{
    unsigned char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    sat_sw_raw(w, b, (size_t)bytes);
}

void sat_sw_u8(sat_sw *w, uint8_t v) { sat_sw_raw(w, &v, 1); }
void sat_sw_u32(sat_sw *w, uint32_t v) { put_le(w, v, 4); }
void sat_sw_u64(sat_sw *w, uint64_t v) { put_le(w, v, 8); }
void sat_sw_i64(sat_sw *w, int64_t v) { put_le(w, (uint64_t)v, 8); }
void sat_sw_f64(sat_sw *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_le(w, u, 8);
}

void sat_sw_blob(sat_sw *w, const void *p, size_t n)
{
    if (n >= NULL_STR) {
        w->nomem = 1; /* a 4 GB string: no state holds one */
        return;
    }
    sat_sw_u32(w, (uint32_t)n);
    sat_sw_raw(w, p, n);
}

void sat_sw_str(sat_sw *w, const char *s)
{
    if (!s)
        sat_sw_u32(w, NULL_STR);
    else
        sat_sw_blob(w, s, strlen(s));
}

void sat_sw_tag(sat_sw *w, const char *tag) { sat_sw_str(w, tag); }

void sat_sw_sketch(sat_sw *w, const sat_qsketch *s)
{
    sat_sw_u64(w, s->n);
    sat_sw_i64(w, s->min);
    sat_sw_i64(w, s->max);
    sat_sw_u32(w, s->exact_max);
    sat_sw_u8(w, s->bucketed);
    sat_sw_u8(w, s->sorted);
    sat_sw_u64(w, s->zeros);
    sat_sw_u32(w, s->nvals);
    for (uint32_t i = 0; i < s->nvals; i++)
        sat_sw_i64(w, s->vals[i]);
    sat_sw_u32(w, (uint32_t)s->lo);
    sat_sw_u32(w, s->nbins);
    for (uint32_t i = 0; i < s->nbins; i++)
        sat_sw_u32(w, s->bins[i]);
}

/* The sketches of a record: each SKETCH field (they are never arrays). */
#define FOR_EACH_SKETCH(d, f)                                                                \
    for (const sat_acc_field *f = (d)->fields; f < (d)->fields + (d)->nfields; f++)          \
        if (f->kind == SAT_ACC_SKETCH)

uint32_t sat_state_layout(const sat_rec_desc *d)
{
    /* FNV-1a over the size and each field's kind, offset, count and extra */
    uint32_t h = 2166136261u;
    uint64_t parts[1 + 4 * 64];
    size_t n = 0;
    parts[n++] = d->size;
    for (size_t i = 0; i < d->nfields && n + 4 <= sizeof parts / sizeof parts[0]; i++) {
        parts[n++] = d->fields[i].kind;
        parts[n++] = d->fields[i].off;
        parts[n++] = d->fields[i].n;
        parts[n++] = d->fields[i].extra;
    }
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) {
            h ^= (uint8_t)(parts[i] >> (8 * b));
            h *= 16777619u;
        }
    return h;
}

/* One record: its bytes with the sketches' pointers cleared, then the sketches. */
static void put_rec(sat_sw *w, const sat_rec_desc *d, const unsigned char *rec,
                    unsigned char *tmp)
{
    memcpy(tmp, rec, d->size);
    FOR_EACH_SKETCH(d, f)
    {
        sat_qsketch *s = (sat_qsketch *)(void *)(tmp + f->off);
        s->vals = NULL;
        s->bins = NULL;
        s->vcap = 0;
    }
    if (d->loaded) /* what is not state (a cache pointer) is not written either */
        d->loaded(tmp);
    sat_sw_raw(w, tmp, d->size);
    FOR_EACH_SKETCH(d, f)
    sat_sw_sketch(w, (const sat_qsketch *)(const void *)(rec + f->off));
}

void sat_sw_recs(sat_sw *w, const sat_rec_desc *d, const void *recs, size_t n)
{
    sat_sw_u32(w, sat_state_layout(d));
    sat_sw_u64(w, n);
    unsigned char *tmp = malloc(d->size ? d->size : 1);
    if (!tmp) {
        w->nomem = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        put_rec(w, d, (const unsigned char *)recs + i * d->size, tmp);
    free(tmp);
}

void sat_sw_keyed(sat_sw *w, const sat_keyed *k)
{
    const sat_rec_desc *d = k->d;
    sat_sw_u32(w, sat_state_layout(d));
    sat_sw_u64(w, sat_keyed_n(k));
    sat_sw_u64(w, k->folded_rows);
    sat_sw_u8(w, (uint8_t)(k->nomem != 0));
    unsigned char *tmp = malloc(d->size ? d->size : 1);
    if (!tmp) {
        w->nomem = 1;
        return;
    }
    for (size_t i = 0; i < sat_keyed_n(k); i++) {
        sat_sw_blob(w, sat_keyed_key(k, i), sat_keyed_len(k, i));
        sat_sw_u64(w, sat_keyed_rows(k, i));
        put_rec(w, d, sat_keyed_rec(k, i), tmp);
    }
    put_rec(w, d, k->other, tmp);
    free(tmp);
}

void sat_sw_strtab(sat_sw *w, const sat_strtab *t, const sat_rec_desc *d)
{
    sat_sw_u32(w, d ? sat_state_layout(d) : 0);
    sat_sw_u64(w, t->val_size);
    sat_sw_u64(w, t->n);
    unsigned char *tmp = malloc(t->val_size ? t->val_size : 1);
    if (!tmp) {
        w->nomem = 1;
        return;
    }
    for (size_t i = 0; i < t->n; i++) {
        sat_sw_blob(w, sat_strtab_key(t, i), sat_strtab_len(t, i));
        if (d)
            put_rec(w, d, sat_strtab_val(t, i), tmp);
        else
            sat_sw_raw(w, sat_strtab_val(t, i), t->val_size);
    }
    free(tmp);
}

void sat_sw_array(sat_sw *w, const void *p, size_t n, size_t size)
{
    sat_sw_u64(w, size);
    sat_sw_u64(w, n);
    if (n && size)
        sat_sw_raw(w, p, n * size);
}

/* ---- reading ------------------------------------------------------------------- */

void sat_sr_init(sat_sr *r, const void *p, size_t n)
{
    memset(r, 0, sizeof *r);
    r->c = sat_cursor_make(p, n);
}

int sat_sr_fail(sat_sr *r, int code, const char *fmt, ...)
{
    if (!r->err) {
        r->err = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->msg, sizeof r->msg, fmt, ap);
        va_end(ap);
    }
    r->c.err = r->c.err ? r->c.err : code; /* later reads return zeros */
    return r->err;
}

int sat_sr_status(sat_sr *r)
{
    if (!r->err && r->c.err)
        sat_sr_fail(r, SAT_E_CORRUPT, "%s: the state ends early (at byte %zu)",
                    r->what ? r->what : "state", r->c.pos);
    return r->err;
}

void sat_sr_raw(sat_sr *r, void *p, size_t n)
{
    if (!n)
        return;
    if (!sat_cursor_need(&r->c, n)) {
        memset(p, 0, n);
        sat_sr_status(r);
        return;
    }
    memcpy(p, r->c.p + r->c.pos, n);
    r->c.pos += n;
}

static uint64_t get_le(sat_sr *r, int bytes)
{
    unsigned char b[8] = {0};
    sat_sr_raw(r, b, (size_t)bytes);
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

uint8_t sat_sr_u8(sat_sr *r) { return (uint8_t)get_le(r, 1); }
uint32_t sat_sr_u32(sat_sr *r) { return (uint32_t)get_le(r, 4); }
uint64_t sat_sr_u64(sat_sr *r) { return get_le(r, 8); }
int64_t sat_sr_i64(sat_sr *r) { return (int64_t)get_le(r, 8); }
double sat_sr_f64(sat_sr *r)
{
    uint64_t u = get_le(r, 8);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

uint64_t sat_sr_count(sat_sr *r, size_t each)
{
    uint64_t n = sat_sr_u64(r);
    if (!sat_sr_ok(r))
        return 0;
    size_t left = sat_cursor_left(&r->c);
    if (each && n > left / each) {
        sat_sr_fail(r, SAT_E_CORRUPT, "%s: a count of %llu does not fit in the %zu bytes left",
                    r->what ? r->what : "state", (unsigned long long)n, left);
        return 0;
    }
    return n;
}

const void *sat_sr_blob(sat_sr *r, size_t *n)
{
    *n = 0;
    uint32_t len = sat_sr_u32(r);
    if (!sat_sr_ok(r) || len == NULL_STR)
        return NULL;
    if (!sat_cursor_need(&r->c, len)) {
        sat_sr_status(r);
        return NULL;
    }
    const void *p = r->c.p + r->c.pos;
    r->c.pos += len;
    *n = len;
    return p;
}

char *sat_sr_str(sat_sr *r)
{
    size_t n;
    const void *p = sat_sr_blob(r, &n);
    if (!p)
        return NULL;
    char *s = malloc(n + 1);
    if (!s) {
        sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

int sat_sr_tag(sat_sr *r, const char *tag)
{
    size_t n;
    const char *p = sat_sr_blob(r, &n);
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    if (!p || n != strlen(tag) || memcmp(p, tag, n))
        return sat_sr_fail(r, SAT_E_CORRUPT, "expected the state of '%s', found '%.*s'", tag,
                           p ? (int)(n > 40 ? 40 : n) : 6, p ? p : "(none)");
    r->what = tag;
    return SAT_OK;
}

int sat_sr_sketch(sat_sr *r, sat_qsketch *s)
{
    sat_qsketch_free(s);
    s->n = sat_sr_u64(r);
    s->min = sat_sr_i64(r);
    s->max = sat_sr_i64(r);
    s->exact_max = sat_sr_u32(r);
    s->bucketed = sat_sr_u8(r);
    s->sorted = sat_sr_u8(r);
    s->zeros = sat_sr_u64(r);
    uint32_t nv = sat_sr_u32(r);
    if (sat_sr_ok(r) && (nv > s->exact_max || nv > sat_cursor_left(&r->c) / 8))
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a sketch of %u exact values (the most is %u)",
                           r->what ? r->what : "state", nv, s->exact_max);
    if (nv) {
        if (!(s->vals = malloc((size_t)nv * sizeof *s->vals)))
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        s->vcap = s->nvals = nv;
        for (uint32_t i = 0; i < nv; i++)
            s->vals[i] = sat_sr_i64(r);
    }
    s->lo = (int32_t)sat_sr_u32(r);
    uint32_t nb = sat_sr_u32(r);
    if (sat_sr_ok(r) && (nb > SAT_QSKETCH_MAX_BINS || nb > sat_cursor_left(&r->c) / 4))
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a sketch of %u buckets",
                           r->what ? r->what : "state", nb);
    if (nb) {
        if (!(s->bins = calloc(nb, sizeof *s->bins)))
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        s->nbins = nb;
        for (uint32_t i = 0; i < nb; i++)
            s->bins[i] = sat_sr_u32(r);
    }
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    /* what quantile and merge rely on: an exact sketch holds its n values, a
     * bucketed one none and no more counts than values, min <= max */
    uint64_t counted = s->zeros;
    for (uint32_t i = 0; i < s->nbins; i++)
        counted += s->bins[i];
    const char *bad =
        s->bucketed > 1 || s->sorted > 1                          ? "neither exact nor bucketed"
        : !s->bucketed && (s->n != s->nvals || s->nbins || s->zeros) ? "exact, but not holding its values"
        : s->bucketed && (s->nvals || counted > s->n)              ? "with more counts than values"
        : s->n && s->min > s->max                                  ? "whose min is above its max"
        : s->lo <= INT32_MIN + SAT_QSKETCH_MAX_BINS ||
                s->lo >= INT32_MAX - SAT_QSKETCH_MAX_BINS          ? "of buckets out of range"
                                                                   : NULL;
    if (bad)
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a sketch %s", r->what ? r->what : "state", bad);
    return SAT_OK;
}

/* One record into rec (made by sat_rec_init): its bytes, then its sketches. */
static int get_rec(sat_sr *r, const sat_rec_desc *d, unsigned char *rec)
{
    sat_rec_free(d, rec); /* the sketches' buffers, if any */
    sat_sr_raw(r, rec, d->size);
    FOR_EACH_SKETCH(d, f)
    {
        sat_qsketch *s = (sat_qsketch *)(void *)(rec + f->off);
        s->vals = NULL; /* what the bytes said is no pointer of ours */
        s->bins = NULL;
        s->vcap = s->nvals = s->nbins = 0;
    }
    FOR_EACH_SKETCH(d, f)
    {
        sat_qsketch *s = (sat_qsketch *)(void *)(rec + f->off);
        /* the exact limit is the record's (sat_rec_init), not the bytes' to choose */
        if (sat_sr_sketch(r, s) == SAT_OK &&
            s->exact_max != (f->extra ? f->extra : SAT_QSKETCH_EXACT_DEFAULT))
            sat_sr_fail(r, SAT_E_CORRUPT, "%s: a sketch of another exact limit (%u)",
                        r->what ? r->what : "state", s->exact_max);
    }
    if (d->loaded)
        d->loaded(rec);
    return sat_sr_status(r);
}

static int check_layout(sat_sr *r, const sat_rec_desc *d)
{
    uint32_t l = sat_sr_u32(r);
    if (sat_sr_ok(r) && l != (d ? sat_state_layout(d) : 0))
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "%s: written by a satscope whose layout differs from this one's "
                           "(make the partial again with this version)",
                           r->what ? r->what : "state");
    return sat_sr_status(r);
}

int sat_sr_recs(sat_sr *r, const sat_rec_desc *d, void *recs, size_t n)
{
    if (check_layout(r, d) != SAT_OK)
        return r->err;
    uint64_t m = sat_sr_count(r, d->size);
    if (sat_sr_ok(r) && m != n)
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: %llu records where %zu are expected",
                           r->what ? r->what : "state", (unsigned long long)m, n);
    for (size_t i = 0; i < n && sat_sr_ok(r); i++)
        get_rec(r, d, (unsigned char *)recs + i * d->size);
    return sat_sr_status(r);
}

/* A key read back into t: a new payload (a corrupt state repeating a key, or
 * holding more keys than the table's cap, is refused). NULL after a failure. */
static unsigned char *new_key(sat_sr *r, sat_strtab *t, const void *key, size_t len)
{
    int is_new = 0, capped = 0;
    unsigned char *p = sat_strtab_upsert(t, key ? key : "", len, &is_new, &capped);
    if (!p)
        sat_sr_fail(r, capped ? SAT_E_CORRUPT : SAT_E_NOMEM,
                    capped ? "%s: more keys than this table holds" : "%s: out of memory",
                    r->what ? r->what : "state");
    else if (!is_new)
        sat_sr_fail(r, SAT_E_CORRUPT, "%s: a key written twice", r->what ? r->what : "state");
    return p && is_new ? p : NULL;
}

int sat_sr_keyed(sat_sr *r, sat_keyed *k)
{
    const sat_rec_desc *d = k->d;
    if (check_layout(r, d) != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_count(r, 4 + 8 + d->size);
    uint64_t folded = sat_sr_u64(r);
    int nomem = sat_sr_u8(r) != 0;
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        size_t len;
        const void *key = sat_sr_blob(r, &len);
        uint64_t rows = sat_sr_u64(r);
        if (!sat_sr_ok(r))
            break;
        unsigned char *p = new_key(r, &k->tab, key, len);
        if (!p)
            return r->err;
        memcpy(p, &rows, sizeof rows);
        sat_rec_init(d, p + SAT_KEYED_HDR);
        get_rec(r, d, p + SAT_KEYED_HDR);
    }
    if (sat_sr_ok(r))
        get_rec(r, d, k->other);
    k->folded_rows = folded;
    k->nomem = nomem;
    return sat_sr_status(r);
}

int sat_sr_strtab(sat_sr *r, sat_strtab *t, const sat_rec_desc *d)
{
    if (check_layout(r, d) != SAT_OK)
        return r->err;
    uint64_t vs = sat_sr_u64(r);
    if (sat_sr_ok(r) && vs != t->val_size)
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: payloads of %llu bytes where %zu are expected",
                           r->what ? r->what : "state", (unsigned long long)vs, t->val_size);
    uint64_t n = sat_sr_count(r, 4 + (d ? d->size : t->val_size));
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        size_t len;
        const void *key = sat_sr_blob(r, &len);
        if (!sat_sr_ok(r))
            break;
        unsigned char *p = new_key(r, t, key, len);
        if (!p)
            return r->err;
        if (d) {
            sat_rec_init(d, p);
            get_rec(r, d, p);
        } else {
            sat_sr_raw(r, p, t->val_size);
        }
    }
    return sat_sr_status(r);
}

int sat_sr_array(sat_sr *r, void **p, size_t *n, size_t size)
{
    *p = NULL;
    *n = 0;
    uint64_t s = sat_sr_u64(r);
    if (sat_sr_ok(r) && s != size)
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: items of %llu bytes where %zu are expected",
                           r->what ? r->what : "state", (unsigned long long)s, size);
    uint64_t m = sat_sr_count(r, size);
    if (!sat_sr_ok(r) || !m)
        return sat_sr_status(r);
    void *a = malloc((size_t)m * size);
    if (!a)
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    sat_sr_raw(r, a, (size_t)m * size);
    if (!sat_sr_ok(r)) {
        free(a);
        return sat_sr_status(r);
    }
    *p = a;
    *n = (size_t)m;
    return SAT_OK;
}
