/*
 * etime_usage.c - who used the server and who waited: per search filter
 * shape, client, bind DN and search base, the WORK their operations took
 * (the server's own time on them: optime, else etime - wtime, else etime for
 * logs without either, said in "work_measure") and the WAIT (wtime: time
 * queued before a worker took them). In a storm every operation waits for
 * the one that holds the workers, so total etime ranks the waiters with the
 * culprit; the work ranks who used the server, the wait who suffered.
 *
 * Rules:
 *   - each table's rows are its first `top` keys by the measure it is
 *     sorted by (work for "used", wait for "waited"), never a top by count
 *     re-sorted; a last "(other)" row holds every key not shown and the rows
 *     folded past the key cap, so the shares of a table sum to 1;
 *   - a share is of the whole of the table (every key and "(other)"): of
 *     all operations for clients and bind DNs, of the searches for filter
 *     shapes and bases ("<dim>_work_s" / "<dim>_wait_s" beside the tables);
 *   - filters are grouped by shape (values replaced: "(uid=*)"), so the few
 *     application queries stay few keys whatever the number of values: a
 *     batch's costly filter seen rarely keeps its own row even where the
 *     literal filters overflow the key cap (which keeps the first keys to
 *     arrive, and folds the rest);
 *   - bind DNs are the DN each operation ran as, counted as logged and
 *     folded at output (et_norm_dn: case, blanks), so the row path copies
 *     nothing.
 * The tables are written from mergeable records (et_use): a merge of parts
 * gives the result of one pass (tests/unit/test_merge_property.c).
 */
#include <string.h>

#include "etime_result_int.h"

/* ---- the row path: shapes --------------------------------------------------------------- */

et_use *et_shape_add(sat_etime *e, et_filt *fv, uint64_t filter_hash, const sat_ldap_op *op)
{
    int cache = fv != (et_filt *)e->filters.k.other;
    if (cache && fv->shape) { /* the filter's shape is known: no lookup */
        et_use_bump(fv->shape, op);
        return fv->shape;
    }
    size_t slot = (size_t)(filter_hash >> 17) & (ET_SHAPE_MEMO - 1);
    if (!cache && e->shape_memo[slot].shape && e->shape_memo[slot].hash == filter_hash &&
        e->shape_memo[slot].len == op->filter.len) {
        et_use_bump(e->shape_memo[slot].shape, op);
        return e->shape_memo[slot].shape;
    }
    sat_str key = op->filter;
    if (op->filter_shape.ptr && op->filter_shape.len) {
        key = op->filter_shape;
    } else if (e->opts.filter_shape) {
        /* a shape may be a little longer than its filter ("(a=)" -> "(a=*)") */
        size_t cap = op->filter.len + 64, n = 0;
        for (int tries = 0; tries < 2; tries++) {
            if (!et_scratch(e, cap))
                return NULL;
            n = e->opts.filter_shape(op->filter.ptr, op->filter.len, e->scratch, e->scratch_cap);
            if (n < e->scratch_cap)
                break;
            cap = n + 1;
        }
        if (n >= e->scratch_cap)
            return NULL;
        key = sat_str_make(e->scratch, n);
    }
    et_use *sv = (et_use *)et_ktab_at(e, &e->shapes, key.ptr, key.len);
    if (!sv)
        return NULL;
    et_use_bump(sv, op);
    if (sv == (et_use *)e->shapes.k.other)
        return sv;
    if (cache) {
        fv->shape = sv;
    } else {
        e->shape_memo[slot].hash = filter_hash;
        e->shape_memo[slot].len = op->filter.len;
        e->shape_memo[slot].shape = sv;
    }
    return sv;
}

/* ---- the result ------------------------------------------------------------------------ */

typedef struct urow {
    const char *key;
    const et_use *v;
} urow;

/* the measure a table is sorted by */
static _Thread_local int sort_wait;

static int cmp_urow(const void *a, const void *b)
{
    const urow *x = (const urow *)a, *y = (const urow *)b;
    int64_t mx = sort_wait ? x->v->wait : x->v->work, my = sort_wait ? y->v->wait : y->v->work;
    if (mx != my)
        return mx > my ? -1 : 1;
    if (x->v->v.count != y->v->v.count)
        return x->v->v.count > y->v->v.count ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* A sum of ns as seconds: absent when none of the n operations had one, or
 * when it saturated (acc.h), and so is a share of it or of a saturated whole. */
static double secs(int64_t ns, uint64_t n) { return n ? sat_sum_d(ns) / 1e9 : NAN; }
static double share(int64_t ns, uint64_t n, int64_t whole)
{
    double w = sat_sum_d(whole);
    return n && w > 0 ? sat_sum_d(ns) / w : NAN;
}

static void put_row(sat_rnode *t, const char *keycol, const char *key, const et_use *v,
                    const et_use *whole)
{
    sat_rnode *o = sat_table_row(t);
    sat_put_text(o, keycol, key);
    sat_put_count(o, "count", v->v.count);
    /* an operation's work time comes with its etime (et_work_of) */
    sat_put_dur(o, "work_s", secs(v->work, v->v.timed), ET_DUR);
    sat_put_ratio(o, "work_share", share(v->work, v->v.timed, whole->work), ET_FRAC);
    sat_put_dur(o, "wait_s", secs(v->wait, v->waited), ET_DUR);
    sat_put_ratio(o, "wait_share", share(v->wait, v->waited, whole->wait), ET_FRAC);
    sat_put_dur(o, "etime_s", secs(v->v.esum, v->v.timed), ET_DUR);
}

/* One table: the first `top` rows by its measure, then "(other)": the rest
 * (keys not shown, and `other`, the rows folded past the cap). */
static void usage_table(sat_rnode *p, const char *name, const char *keycol, urow *rows, size_t n,
                        const et_use *other, const et_use *whole, size_t top, int by_wait)
{
    static const sat_col cols[] = {
        {NULL, SAT_UNIT_TEXT, 0, NULL},
        {"count", SAT_UNIT_COUNT, 0, "ops"},
        {"work_s", SAT_UNIT_DURATION, ET_DUR, "work"},
        {"work_share", SAT_UNIT_RATIO, ET_FRAC, "share"},
        {"wait_s", SAT_UNIT_DURATION, ET_DUR, "wait"},
        {"wait_share", SAT_UNIT_RATIO, ET_FRAC, "wait share"},
        {"etime_s", SAT_UNIT_DURATION, ET_DUR, "etime"}};
    sat_col c[sizeof cols / sizeof cols[0]];
    memcpy(c, cols, sizeof cols);
    c[0].name = keycol;
    sat_rnode *t = sat_table(p, name, c, sizeof c / sizeof c[0]);
    /* the waited table without any wtime logged: nothing to rank */
    if (by_wait && !whole->waited)
        return;
    sort_wait = by_wait;
    qsort(rows, n, sizeof *rows, cmp_urow);
    size_t show = n < top ? n : top;
    et_use rest = *other;
    for (size_t i = show; i < n; i++)
        sat_rec_merge(&et_use_desc, &rest, rows[i].v); /* sums and counts: no memory */
    for (size_t i = 0; i < show; i++)
        put_row(t, keycol, rows[i].key, rows[i].v, whole);
    if (rest.v.count)
        put_row(t, keycol, "(other)", &rest, whole);
}

/* A dimension's two tables and wholes, from n records (keys[i], recs[i])
 * and the table's "(other)". */
static int usage_dim(sat_rnode *u, const char *dim, const char *keycol, const char *const *keys,
                     const et_use *const *recs, size_t n, const et_use *other, size_t top)
{
    urow *rows = (urow *)malloc((n ? n : 1) * sizeof *rows);
    if (!rows)
        return SAT_E_NOMEM;
    et_use whole = *other;
    for (size_t i = 0; i < n; i++) {
        rows[i] = (urow){keys[i], recs[i]};
        sat_rec_merge(&et_use_desc, &whole, recs[i]);
    }
    char k[96];
    snprintf(k, sizeof k, "%s_work_s", dim);
    sat_put_dur(u, k, secs(whole.work, whole.v.timed), ET_DUR);
    snprintf(k, sizeof k, "%s_wait_s", dim);
    sat_put_dur(u, k, secs(whole.wait, whole.waited), ET_DUR);
    snprintf(k, sizeof k, "%s_used", dim);
    usage_table(u, k, keycol, rows, n, other, &whole, top, 0);
    snprintf(k, sizeof k, "%s_waited", dim);
    usage_table(u, k, keycol, rows, n, other, &whole, top, 1);
    free(rows);
    return SAT_OK;
}

static int usage_keyed(sat_rnode *u, const char *dim, const char *keycol, const sat_keyed *k,
                       size_t top)
{
    size_t n = sat_keyed_n(k);
    const char **keys = (const char **)malloc((n ? n : 1) * sizeof *keys);
    const et_use **recs = (const et_use **)malloc((n ? n : 1) * sizeof *recs);
    int st = SAT_E_NOMEM;
    if (keys && recs) {
        for (size_t i = 0; i < n; i++) {
            keys[i] = sat_keyed_key(k, i);
            recs[i] = (const et_use *)sat_keyed_rec(k, i);
        }
        st = usage_dim(u, dim, keycol, keys, recs, n, (const et_use *)k->other, top);
    }
    free(keys);
    free((void *)recs);
    return st;
}

/* Bind DNs as logged, folded by et_norm_dn into one record each; the
 * folded table's "(other)" is the logged one's. */
static int usage_users(sat_rnode *u, const sat_etime *e, size_t top)
{
    const sat_keyed *k = &e->users.k;
    sat_keyed f;
    if (sat_keyed_init(&f, &et_use_desc, 0) != SAT_OK)
        return SAT_E_NOMEM;
    int st = sat_rec_merge(&et_use_desc, f.other, k->other);
    char *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < sat_keyed_n(k) && st == SAT_OK; i++) {
        const char *key = sat_keyed_key(k, i);
        size_t len = sat_keyed_len(k, i);
        if (len + 1 > cap && SAT_GROW(buf, cap, len + 1) != SAT_OK) {
            st = SAT_E_NOMEM;
            break;
        }
        /* "(anonymous)" and "(unknown)" are names of ours, kept as they are */
        size_t n = key[0] == '(' ? (memcpy(buf, key, len), len) : et_norm_dn(key, len, buf);
        et_use *v = (et_use *)sat_keyed_at(&f, buf, n, NULL);
        if (!v || sat_rec_merge(&et_use_desc, v, sat_keyed_rec(k, i)) != SAT_OK)
            st = SAT_E_NOMEM;
    }
    free(buf);
    if (st == SAT_OK)
        st = usage_keyed(u, "bind_dns", "binddn", &f, top);
    sat_keyed_free(&f);
    return st;
}

int et_result_usage(sat_rnode *root, const sat_etime *e)
{
    size_t top = e->opts.top;
    sat_rnode *u = sat_obj(root, "usage");
    const et_counts *c = &e->c;
    sat_put_text(u, "work_measure",
                 !c->worked                    ? "none"
                 : c->work_etime == 0          ? "optime"
                 : c->work_etime == c->worked  ? "etime"
                                               : "optime, else etime");
    sat_put_count(u, "work_from_etime", c->work_etime);
    int st = SAT_OK;
    if (usage_keyed(u, "filter_shapes", "filter_shape", &e->shapes.k, top) != SAT_OK ||
        usage_keyed(u, "clients", "client", &e->clients.k, top) != SAT_OK ||
        usage_users(u, e, top) != SAT_OK ||
        usage_keyed(u, "bases", "base", &e->bases.k, top) != SAT_OK)
        st = SAT_E_NOMEM;
    return st;
}
