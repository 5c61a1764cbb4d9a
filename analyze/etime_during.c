/*
 * etime_during.c - who used the server during a span of the inputs (a
 * storm): the work of each filter shape, client, bind DN and search base in
 * that span, not over the whole inputs (a batch that held the workers for
 * the 5 minutes of a storm is a few percent of a day).
 *
 * The spans are known only after the pass (the storms analyzer finds them at
 * finish), so the pass keeps, per 10 s of each server, a
 * summary of the work per key of each dimension: the exact total, and the
 * heaviest ET_DURING_K keys with their work by the Space-Saving rule
 * (Metwally, Agrawal, El Abbadi 2005, weighted): a key not held takes the
 * place of the lightest, inheriting its work as its error, so a key's figure
 * is at most its error above the truth, and any key with more than 1/K of
 * the summary's work is held. A summary is exact while its dimension had at
 * most K keys in those 10 s (the few filter shapes of an application).
 *
 * A span's figures (sat_etime_focus, then the result): the summaries of its
 * 10 s windows and of its server's inputs added up; each key's work is given
 * as the most it can be (the sum of what the summaries hold, plus the
 * lightest held of each full summary it is not in) and the least it is
 * (that minus the errors and those lightest): the table ranks and shares by
 * the least, and "(other)" holds the rest of the exact total, so the shares
 * sum to 100 %.
 *
 * Exactness: a summary is of one server's rows in the order its inputs hold
 * them, so one pass and parallel parts (one per input) keep the same
 * summaries but where two inputs of one server share 10 s (a rotation):
 * parts add their summaries of them, as one more weighted update per key
 * held, within the same bound. Bounded: at most ET_DURING_MAX
 * summaries (~1.6 KB each); the rows of windows past it are counted, not
 * summarised, and the span's figures say so.
 */
#include <string.h>

#include "etime_result_int.h"

#define ET_DURING_STEP ((sat_ts_ns)10 * 1000000000LL)
#define ET_DURING_MAX 20000
#define ET_DURING_TOP 10 /* keys a span's table names, before "(other)" */
#define ET_DURING_MIN_SHARE 0.001 /* ... each with at least this share of the span's work */

/* The dimensions, in the order of the summary's arrays. */
enum { D_SHAPES, D_CLIENTS, D_USERS, D_BASES, D__COUNT };

/* A dimension's keys, as arrays (the row path scans rec[] only). */
typedef struct et_ss {
    const void *rec[ET_DURING_K]; /* the key's record in its usage table (stable: strtab.h) */
    int64_t work[ET_DURING_K];    /* at most the truth by err */
    int64_t err[ET_DURING_K];
} et_ss;

typedef struct et_dsum {
    int64_t total[D__COUNT]; /* exact */
    uint8_t n[D__COUNT];
    uint8_t hint[D__COUNT];  /* the slot the dimension's last key went to */
    et_ss e[D__COUNT];
} et_dsum;

typedef struct et_dkey {
    int64_t window; /* ts / ET_DURING_STEP */
    uint32_t server, pad;
} et_dkey;
_Static_assert(sizeof(et_dsum) == ET_DSUM_SIZE, "ET_DSUM_SIZE");

static et_ktab *table_of(sat_etime *e, int d)
{
    return d == D_SHAPES ? &e->shapes : d == D_CLIENTS ? &e->clients : d == D_USERS ? &e->users
                                                                              : &e->bases;
}

/* One more weighted update; the slot it went to. A run of operations of
 * one key (a batch's searches, the one filter shape) finds it at the hint.
 * Else the scans go over all K slots without an early exit (slots past n
 * hold NULL, never a record): a dimension with more keys than K in 10 s (a
 * day's users) scans on most operations, and these loops have no branch to
 * mispredict and vectorise. */
static int ss_add(et_dsum *s, int d, const void *rec, int64_t work)
{
    sat_sum_add(&s->total[d], work); /* saturating (acc.h), as every sum here */
    et_ss *e = &s->e[d];
    int n = s->n[d], i = s->hint[d];
    if (i < n && e->rec[i] == rec) {
        sat_sum_add(&e->work[i], work);
        return i;
    }
    i = -1;
    for (int j = 0; j < ET_DURING_K; j++)
        i = e->rec[j] == rec ? j : i;
    if (i >= 0) {
        sat_sum_add(&e->work[i], work);
    } else if (n < ET_DURING_K) {
        i = n;
        e->rec[i] = rec;
        e->work[i] = work;
        e->err[i] = 0;
        s->n[d] = (uint8_t)(n + 1);
    } else {
        /* the lightest: its work, then the first slot that holds it */
        int64_t least = e->work[0];
        for (int j = 1; j < ET_DURING_K; j++)
            least = e->work[j] < least ? e->work[j] : least;
        for (int j = ET_DURING_K - 1; j >= 0; j--)
            i = e->work[j] == least ? j : i;
        e->err[i] = e->work[i];
        e->rec[i] = rec;
        sat_sum_add(&e->work[i], work);
    }
    s->hint[d] = (uint8_t)i;
    return i;
}

/* The work of one operation in the summary of window w. */
static void add_in(sat_etime *e, int64_t w, uint32_t server, const void *const recs[4],
                   int64_t work)
{
    et_dkey k = {w, server, 0};
    et_dsum *s = e->during_last;
    if (!s || k.window != e->during_last_key.window || k.server != e->during_last_key.server) {
        s = (et_dsum *)sat_strtab_find(&e->during, &k, sizeof k);
        if (!s) {
            if (e->during.n >= ET_DURING_MAX) {
                e->during_lost++;
                return;
            }
            int capped;
            s = (et_dsum *)sat_strtab_upsert(&e->during, &k, sizeof k, NULL, &capped);
            if (!s) {
                e->nomem = 1;
                return;
            }
        }
        e->during_last = s;
        e->during_last_key.window = k.window;
        e->during_last_key.server = k.server;
    }
    for (int d = 0; d < D__COUNT; d++)
        if (recs[d])
            ss_add(s, d, recs[d], work);
}

/* An operation's work is done before its RESULT: over [RESULT - work,
 * RESULT], spread over the windows it covers (a 17 s search asked for
 * before a storm works in it), else at its request. */
void et_during_add(sat_etime *e, const sat_ldap_op *op, const void *const recs[4])
{
    int fe;
    int64_t work = et_work_of(op, &fe);
    sat_ts_ns end = op->result_ts_ns > 0 ? op->result_ts_ns : op->ts_ns;
    if (work < 0 || end <= 0)
        return;
    sat_ts_ns start = end - work > 0 ? end - work : 0;
    int64_t w0 = start / ET_DURING_STEP, w1 = end / ET_DURING_STEP;
    if (w0 == w1 || work == 0) {
        add_in(e, w1, op->server, recs, work);
        return;
    }
    if (w1 - w0 > 360) /* a work of more than an hour: its last hour */
        w0 = w1 - 360;
    int64_t left = work;
    for (int64_t w = w0; w <= w1 && left > 0; w++) {
        sat_ts_ns a = w * ET_DURING_STEP > start ? w * ET_DURING_STEP : start;
        sat_ts_ns b = (w + 1) * ET_DURING_STEP < end ? (w + 1) * ET_DURING_STEP : end;
        int64_t part = w == w1 ? left : (b > a ? b - a : 0);
        if (part > left)
            part = left;
        if (part > 0)
            add_in(e, w, op->server, recs, part);
        left -= part;
    }
}

/* ---- records and their keys --------------------------------------------------------------- */

typedef struct recidx {
    const void *rec;
    size_t i; /* SIZE_MAX: the table's "(other)" */
} recidx;

static int cmp_recidx(const void *a, const void *b)
{
    const recidx *x = a, *y = b;
    return (uintptr_t)x->rec < (uintptr_t)y->rec ? -1 : (uintptr_t)x->rec > (uintptr_t)y->rec;
}

/* A table's records by address, to find a key from its record. */
static recidx *index_of(const et_ktab *t, size_t *n)
{
    size_t m = sat_keyed_n(&t->k);
    recidx *r = (recidx *)malloc((m + 1) * sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < m; i++)
        r[i] = (recidx){sat_keyed_rec(&t->k, i), i};
    r[m] = (recidx){t->k.other, SIZE_MAX};
    qsort(r, m + 1, sizeof *r, cmp_recidx);
    *n = m + 1;
    return r;
}

/* The four usage tables' indexes (free_indexes frees them). */
static int index_all(const sat_etime *e, recidx *idx[D__COUNT], size_t nidx[D__COUNT])
{
    for (int d = 0; d < D__COUNT; d++)
        if (!(idx[d] = index_of(table_of((sat_etime *)e, d), &nidx[d])))
            return SAT_E_NOMEM;
    return SAT_OK;
}

static void free_indexes(recidx *idx[D__COUNT])
{
    for (int d = 0; d < D__COUNT; d++)
        free(idx[d]);
}

static const recidx *find_rec(const recidx *idx, size_t n, const void *rec)
{
    recidx k = {rec, 0};
    return (const recidx *)bsearch(&k, idx, n, sizeof k, cmp_recidx);
}

/* from's summaries into into's: each record found by its key in into's
 * tables (merged before: every key of from is there, or in "(other)"). */
int et_during_merge(sat_etime *into, const sat_etime *from)
{
    if (!from->during.n && !from->during_lost)
        return SAT_OK;
    into->during_lost += from->during_lost;
    recidx *idx[D__COUNT] = {0};
    size_t nidx[D__COUNT] = {0};
    int st = index_all(from, idx, nidx);
    for (size_t i = 0; i < from->during.n && st == SAT_OK; i++) {
        const et_dkey *k = (const et_dkey *)sat_strtab_key(&from->during, i);
        const et_dsum *f = (const et_dsum *)sat_strtab_val(&from->during, i);
        int is_new, capped;
        et_dsum *s = NULL;
        if (into->during.n < ET_DURING_MAX || sat_strtab_find(&into->during, k, sizeof *k))
            s = (et_dsum *)sat_strtab_upsert(&into->during, k, sizeof *k, &is_new, &capped);
        if (!s) {
            if (into->during.n < ET_DURING_MAX)
                st = SAT_E_NOMEM;
            into->during_lost++;
            continue;
        }
        for (int d = 0; d < D__COUNT; d++) {
            et_ktab *t = table_of(into, d);
            int64_t held = 0;
            for (int j = 0; j < f->n[d]; j++) {
                const recidx *r = find_rec(idx[d], nidx[d], f->e[d].rec[j]);
                const void *rec = t->k.other;
                if (r && r->i != SIZE_MAX) {
                    const et_ktab *ft = table_of((sat_etime *)from, d);
                    void *p = sat_strtab_find(&t->k.tab, sat_keyed_key(&ft->k, r->i),
                                              sat_keyed_len(&ft->k, r->i));
                    if (p)
                        rec = (unsigned char *)p + SAT_KEYED_HDR;
                }
                /* the work of a key one part summarised, added as one more
                 * weighted update of the other's summary, with its error */
                int slot = ss_add(s, d, rec, f->e[d].work[j]);
                sat_sum_add(&s->e[d].err[slot], f->e[d].err[j]);
                sat_sum_add(&held, f->e[d].work[j]);
            }
            /* the keys from held no more, counted in the total only (held is
             * part of the total, unless that saturated) */
            sat_sum_add(&s->total[d], f->total[d] == SAT_SUM_SATURATED ? SAT_SUM_SATURATED
                                                                      : f->total[d] - held);
        }
        into->during_last = NULL;
    }
    free_indexes(idx);
    return st;
}

/* ---- as a partial's state (etime_state.c) ----------------------------------------------
 * A summary's keys are records of the usage tables: written as their index
 * in their table (UINT64_MAX: its "(other)"), made records again on load
 * (the tables are read before). */

#define DURING_OTHER UINT64_MAX

int et_during_save(const sat_etime *e, sat_sw *w)
{
    sat_sw_tag(w, "etime.during");
    sat_sw_u64(w, e->during_lost);
    sat_sw_u64(w, e->during.n);
    if (!e->during.n)
        return SAT_OK;
    recidx *idx[D__COUNT] = {0};
    size_t nidx[D__COUNT] = {0};
    int st = index_all(e, idx, nidx);
    for (size_t i = 0; i < e->during.n && st == SAT_OK; i++) {
        const et_dkey *k = (const et_dkey *)sat_strtab_key(&e->during, i);
        const et_dsum *s = (const et_dsum *)sat_strtab_val(&e->during, i);
        sat_sw_i64(w, k->window);
        sat_sw_u32(w, k->server);
        for (int d = 0; d < D__COUNT; d++) {
            sat_sw_i64(w, s->total[d]);
            sat_sw_u8(w, s->n[d]);
            sat_sw_u8(w, s->hint[d]);
            for (int j = 0; j < s->n[d]; j++) {
                const recidx *r = find_rec(idx[d], nidx[d], s->e[d].rec[j]);
                /* a record of none of the table's keys is its "(other)", as a merge takes it */
                sat_sw_u64(w, r && r->i != SIZE_MAX ? (uint64_t)r->i : DURING_OTHER);
                sat_sw_i64(w, s->e[d].work[j]);
                sat_sw_i64(w, s->e[d].err[j]);
            }
        }
    }
    free_indexes(idx);
    return st;
}

int et_during_load(sat_etime *e, sat_sr *r)
{
    if (sat_sr_tag(r, "etime.during") != SAT_OK)
        return r->err;
    e->during_lost = sat_sr_u64(r);
    uint64_t n = sat_sr_count(r, 8 + 4 + D__COUNT * (8 + 1 + 1));
    if (sat_sr_ok(r) && n > ET_DURING_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "etime.during: %llu summaries (at most %d)",
                           (unsigned long long)n, ET_DURING_MAX);
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        et_dkey k = {0, 0, 0};
        k.window = sat_sr_i64(r);
        k.server = sat_sr_u32(r);
        int is_new = 0, capped = 0;
        et_dsum *s = NULL;
        if (sat_sr_ok(r) &&
            !(s = (et_dsum *)sat_strtab_upsert(&e->during, &k, sizeof k, &is_new, &capped)))
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        if (s && !is_new)
            return sat_sr_fail(r, SAT_E_CORRUPT, "etime.during: a summary written twice");
        for (int d = 0; d < D__COUNT && sat_sr_ok(r); d++) {
            const et_ktab *t = table_of(e, d);
            s->total[d] = sat_sr_i64(r);
            uint8_t nk = sat_sr_u8(r), hint = sat_sr_u8(r);
            if (sat_sr_ok(r) && (nk > ET_DURING_K || hint >= ET_DURING_K))
                return sat_sr_fail(r, SAT_E_CORRUPT,
                                   "etime.during: a summary of %u keys, the last at %u "
                                   "(at most %d)", nk, hint, ET_DURING_K);
            s->n[d] = nk;
            s->hint[d] = hint;
            for (int j = 0; j < nk && sat_sr_ok(r); j++) {
                uint64_t ri = sat_sr_u64(r);
                s->e[d].work[j] = sat_sr_i64(r);
                s->e[d].err[j] = sat_sr_i64(r);
                if (sat_sr_ok(r) && ri != DURING_OTHER && ri >= sat_keyed_n(&t->k))
                    return sat_sr_fail(r, SAT_E_CORRUPT,
                                       "etime.during: key %llu of a table of %zu",
                                       (unsigned long long)ri, sat_keyed_n(&t->k));
                s->e[d].rec[j] = ri == DURING_OTHER ? t->k.other : sat_keyed_rec(&t->k, ri);
            }
        }
    }
    e->during_last = NULL;
    return sat_sr_status(r);
}

static void free_focus(sat_etime *e)
{
    for (size_t i = 0; i < e->nfocus; i++)
        free(e->focus[i].servers);
    free(e->focus);
    e->focus = NULL;
    e->nfocus = 0;
}

void et_during_free(sat_etime *e)
{
    sat_strtab_free(&e->during);
    free_focus(e);
}

size_t et_during_bytes(const sat_etime *e) { return sat_strtab_bytes(&e->during); }

/* ---- spans -------------------------------------------------------------------------------- */

int sat_etime_focus(sat_etime *e, const sat_span *spans, size_t n)
{
    if (!e)
        return SAT_E_USAGE;
    free_focus(e);
    if (!n)
        return SAT_OK;
    e->focus = (et_focus *)calloc(n, sizeof *e->focus);
    if (!e->focus)
        return SAT_E_NOMEM;
    e->nfocus = n;
    for (size_t i = 0; i < n; i++) {
        et_focus *f = &e->focus[i];
        f->from = spans[i].from;
        f->to = spans[i].to;
        f->label = spans[i].label;
        f->all = spans[i].npaths == 0;
        /* the span's inputs by path: the servers (input sets) that read them */
        f->servers = (uint32_t *)calloc(e->nsrcs ? e->nsrcs : 1, sizeof *f->servers);
        if (!f->servers)
            return SAT_E_NOMEM;
        for (size_t s = 0; s < e->nsrcs; s++)
            for (size_t p = 0; p < spans[i].npaths; p++)
                if (spans[i].paths[p] && !strcmp(spans[i].paths[p], e->srcs[s].path)) {
                    f->servers[f->nservers++] = e->srcs[s].server;
                    break;
                }
    }
    return SAT_OK;
}

static int in_span(const et_focus *f, const et_dkey *k)
{
    sat_ts_ns w0 = k->window * ET_DURING_STEP;
    if (w0 + ET_DURING_STEP <= f->from || w0 >= f->to)
        return 0;
    if (f->all)
        return 1;
    for (size_t i = 0; i < f->nservers; i++)
        if (f->servers[i] == k->server)
            return 1;
    return 0;
}

/* One key's figures over a span. */
typedef struct dkey_sum {
    const void *rec;
    int64_t most;       /* what the summaries hold of it */
    int64_t err;        /* of which, at most this much is not its own */
    int64_t absent_min; /* the lightest of the full summaries that hold it */
    const char *name;   /* its key (after folding) */
    size_t len;
} dkey_sum;

static int cmp_rec(const void *a, const void *b)
{
    const dkey_sum *x = a, *y = b;
    return (uintptr_t)x->rec < (uintptr_t)y->rec ? -1 : (uintptr_t)x->rec > (uintptr_t)y->rec;
}

static int cmp_name(const void *a, const void *b)
{
    const dkey_sum *x = a, *y = b;
    size_t l = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, l);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static int64_t least(const dkey_sum *k) { return k->most - k->err; }

static int cmp_least(const void *a, const void *b)
{
    const dkey_sum *x = a, *y = b;
    int64_t lx = least(x), ly = least(y);
    if (lx != ly)
        return lx > ly ? -1 : 1;
    return cmp_name(a, b);
}

static const struct {
    const char *dim, *keycol;
} dims[D__COUNT] = {{"filter_shapes", "filter_shape"},
                    {"clients", "client"},
                    {"bind_dns", "binddn"},
                    {"bases", "base"}};

/* One span's table of one dimension: the keys by their least work. */
static int span_dim(const sat_etime *e, sat_rnode *t, const et_focus *f, int d, const recidx *idx,
                    size_t nidx, size_t top)
{
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < e->during.n; i++)
        if (in_span(f, (const et_dkey *)sat_strtab_key(&e->during, i)))
            cap += ((const et_dsum *)sat_strtab_val(&e->during, i))->n[d];
    dkey_sum *ks = (dkey_sum *)malloc((cap ? cap : 1) * sizeof *ks);
    if (!ks)
        return SAT_E_NOMEM;
    int64_t total = 0, full_min = 0; /* the sum of each full summary's lightest */
    for (size_t i = 0; i < e->during.n; i++) {
        if (!in_span(f, (const et_dkey *)sat_strtab_key(&e->during, i)))
            continue;
        const et_dsum *s = (const et_dsum *)sat_strtab_val(&e->during, i);
        sat_sum_add(&total, s->total[d]);
        int64_t min = 0;
        if (s->n[d] == ET_DURING_K) {
            min = s->e[d].work[0];
            for (int j = 1; j < ET_DURING_K; j++)
                min = s->e[d].work[j] < min ? s->e[d].work[j] : min;
            sat_sum_add(&full_min, min);
        }
        for (int j = 0; j < s->n[d]; j++)
            ks[n++] = (dkey_sum){s->e[d].rec[j], s->e[d].work[j], s->e[d].err[j], min, NULL, 0};
    }
    if (total == SAT_SUM_SATURATED) {
        free(ks); /* the span's work is past the range (acc.h): no share is known */
        return SAT_OK;
    }
    /* one row per record, then per key as written (bind DNs fold) */
    qsort(ks, n, sizeof *ks, cmp_rec);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && ks[m - 1].rec == ks[i].rec) {
            sat_sum_add(&ks[m - 1].most, ks[i].most);
            sat_sum_add(&ks[m - 1].err, ks[i].err);
            sat_sum_add(&ks[m - 1].absent_min, ks[i].absent_min);
        } else {
            ks[m++] = ks[i];
        }
    }
    /* each record's key; bind DNs as written (et_norm_dn: no longer than
     * logged), into one buffer sized first */
    const et_ktab *tab = table_of((sat_etime *)e, d);
    size_t need = 0;
    for (size_t i = 0; i < m; i++) {
        const recidx *r = find_rec(idx, nidx, ks[i].rec);
        ks[i].name = "(other)";
        ks[i].len = 7;
        if (r && r->i != SIZE_MAX) {
            ks[i].name = sat_keyed_key(&tab->k, r->i);
            ks[i].len = sat_keyed_len(&tab->k, r->i);
            need += ks[i].len;
        }
    }
    char *names = d == D_USERS ? (char *)malloc(need ? need : 1) : NULL;
    if (d == D_USERS && !names) {
        free(ks);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0, used = 0; names && i < m; i++)
        if (ks[i].name[0] != '(') { /* "(anonymous)", "(unknown)": ours, kept */
            size_t len = et_norm_dn(ks[i].name, ks[i].len, names + used);
            ks[i].name = names + used;
            ks[i].len = len;
            used += len;
        }
    qsort(ks, m, sizeof *ks, cmp_name);
    size_t u = 0;
    for (size_t i = 0; i < m; i++) {
        if (u && ks[u - 1].len == ks[i].len && !memcmp(ks[u - 1].name, ks[i].name, ks[i].len)) {
            sat_sum_add(&ks[u - 1].most, ks[i].most);
            sat_sum_add(&ks[u - 1].err, ks[i].err);
            sat_sum_add(&ks[u - 1].absent_min, ks[i].absent_min);
        } else {
            ks[u++] = ks[i];
        }
    }
    /* "(other)" (keys past the table's cap) is never a row of its own here */
    size_t w = 0;
    for (size_t i = 0; i < u; i++)
        if (!(ks[i].len == 7 && !memcmp(ks[i].name, "(other)", 7)))
            ks[w++] = ks[i];
    qsort(ks, w, sizeof *ks, cmp_least);
    size_t show = w < top ? w : top;
    int64_t shown = 0;
    for (size_t i = 0; i < show; i++) {
        int64_t lo = least(&ks[i]);
        /* a key a full summary did not hold may have had up to its lightest there */
        int64_t hi = ks[i].most + (full_min > ks[i].absent_min ? full_min - ks[i].absent_min : 0);
        if (lo <= 0 || (double)lo < ET_DURING_MIN_SHARE * (double)total)
            break; /* the rest is "(other)": a table of who used the server, not of everyone */
        sat_rnode *o = sat_table_row(t);
        sat_put_count(o, "storm", f->label);
        sat_put_text(o, "dimension", dims[d].dim);
        sat_put_textn(o, "key", ks[i].name, ks[i].len);
        sat_put_dur(o, "work_s", (double)lo / 1e9, ET_DUR);
        sat_put_ratio(o, "work_share", total > 0 ? (double)lo / (double)total : NAN, ET_FRAC);
        sat_put_dur(o, "work_max_s", (double)(hi < lo ? lo : hi) / 1e9, ET_DUR);
        shown += lo;
    }
    if (total > shown && total > 0) {
        sat_rnode *o = sat_table_row(t);
        sat_put_count(o, "storm", f->label);
        sat_put_text(o, "dimension", dims[d].dim);
        sat_put_text(o, "key", "(other)");
        sat_put_dur(o, "work_s", (double)(total - shown) / 1e9, ET_DUR);
        sat_put_ratio(o, "work_share", (double)(total - shown) / (double)total, ET_FRAC);
        sat_put_dur(o, "work_max_s", (double)(total - shown) / 1e9, ET_DUR);
    }
    free(ks);
    free(names);
    return SAT_OK;
}

int et_result_during(sat_rnode *root, const sat_etime *e)
{
    if (!e->opts.during || !e->nfocus)
        return SAT_OK;
    static const sat_col cols[] = {
        {"storm", SAT_UNIT_COUNT, 0, NULL},
        {"dimension", SAT_UNIT_TEXT, 0, NULL},
        {"key", SAT_UNIT_TEXT, 0, NULL},
        {"work_s", SAT_UNIT_DURATION, ET_DUR, "work"},
        {"work_share", SAT_UNIT_RATIO, ET_FRAC, "share"},
        {"work_max_s", SAT_UNIT_DURATION, ET_DUR, "at most"}};
    sat_rnode *u = sat_obj(root, "during");
    sat_put_count(u, "window_s", (uint64_t)(ET_DURING_STEP / 1000000000LL));
    sat_put_count(u, "keys_per_window", ET_DURING_K);
    sat_put_count(u, "rows_not_summarised", e->during_lost);
    sat_rnode *t = sat_table(u, "used", cols, sizeof cols / sizeof cols[0]);
    recidx *idx[D__COUNT] = {0};
    size_t nidx[D__COUNT] = {0};
    int st = index_all(e, idx, nidx);
    for (size_t i = 0; i < e->nfocus && st == SAT_OK; i++)
        for (int d = 0; d < D__COUNT && st == SAT_OK; d++)
            st = span_dim(e, t, &e->focus[i], d, idx[d], nidx[d],
                          e->opts.top < ET_DURING_TOP ? e->opts.top : ET_DURING_TOP);
    free_indexes(idx);
    return st;
}
