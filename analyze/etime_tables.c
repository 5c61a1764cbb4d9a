/*
 * etime_tables.c - the etime analyzer's lists: the top-N tables (clients,
 * bind DNs, bases, filters, extended operations, SASL mechanisms, failed
 * binds, TLS versions, attributes), the unindexed searches, the earliest
 * abandons and the result codes; the order their tops are shown in. The rules are
 * in etime.c.
 */
#include "etime_int.h"

/* summed etime of a key's operations, absent when none had one */
static double kv_total(const void *rec, const void *ctx)
{
    const et_kv *v = (const et_kv *)rec;
    (void)ctx;
    return v->timed ? sat_sum_d(v->esum) / 1e9 : NAN;
}

/* A top-N list's row after its key: count, total_s (etime_result_tables.c);
 * PREFIX: where the et_kv is in the record ("v." in an et_use). */
#define ET_KV_FIELDS(type, PREFIX)                                                            \
    SAT_ACC_OUT(SAT_ACC_COUNT, type, PREFIX count, "count", SAT_UNIT_COUNT, NULL, NULL),      \
    SAT_ACC(SAT_ACC_COUNT, type, PREFIX timed), SAT_ACC(SAT_ACC_SUM, type, PREFIX esum),     \
    SAT_ACC_DERIVE("total_s", SAT_UNIT_DURATION, 9, "etime total", NULL, kv_total)
static const sat_acc_field kv_fields[] = {ET_KV_FIELDS(et_kv, )};
const sat_rec_desc et_kv_desc = {sizeof(et_kv), kv_fields, sizeof kv_fields / sizeof kv_fields[0],
                                 NULL};
/* A filter's shape record is a cache (looked up again on its next row). */
static void filt_loaded(void *rec) { ((et_filt *)rec)->shape = NULL; }
const sat_rec_desc et_filt_desc = {sizeof(et_filt), kv_fields,
                                   sizeof kv_fields / sizeof kv_fields[0], NULL, filt_loaded};
/* the same and the work and wait (etime_usage.c writes them) */
static const sat_acc_field use_fields[] = {
    ET_KV_FIELDS(et_use, v.),
    SAT_ACC(SAT_ACC_COUNT, et_use, waited),
    SAT_ACC(SAT_ACC_SUM, et_use, work),
    SAT_ACC(SAT_ACC_SUM, et_use, wait),
};
const sat_rec_desc et_use_desc = {sizeof(et_use), use_fields,
                                  sizeof use_fields / sizeof use_fields[0], NULL};

/* The key's lengths are set once, by the key's first row; a record new in a
 * merge takes them (and the first row's conn and op, as a first row without
 * a time left them) from the record merged in. */
static int unidx_merge_extra(void *into, const void *from)
{
    et_unidx *u = (et_unidx *)into;
    const et_unidx *s = (const et_unidx *)from;
    if (u->count == s->count) { /* was empty */
        memcpy(u->klen, s->klen, sizeof u->klen);
        if (!s->first.ts)
            u->first = s->first;
    }
    return SAT_OK;
}

static const sat_acc_field unidx_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, et_unidx, count),
    SAT_ACC(SAT_ACC_COUNT, et_unidx, timed),
    SAT_ACC(SAT_ACC_BITS, et_unidx, notes),
    SAT_ACC(SAT_ACC_SUM, et_unidx, esum),
    SAT_ACC(SAT_ACC_MAX, et_unidx, emax),
    SAT_ACC(SAT_ACC_MAX, et_unidx, nentries_max),
    SAT_ACC_X(SAT_ACC_FIRST, et_unidx, first, 2 * sizeof(int64_t)),
};
const sat_rec_desc et_unidx_desc = {sizeof(et_unidx), unidx_fields,
                                    sizeof unidx_fields / sizeof unidx_fields[0],
                                    unidx_merge_extra};

static const sat_acc_field code_fields[] = {SAT_ACC(SAT_ACC_COUNT, et_code, count)};
const sat_rec_desc et_code_desc = {sizeof(et_code), code_fields, 1, NULL};

/* ---- rows ------------------------------------------------------------------------------- */

void et_count_err_other(sat_etime *e, int32_t code)
{
    et_code *c = (et_code *)sat_keyed_at(&e->err_other, &code, sizeof code, NULL);
    if (c)
        c->count++;
    else
        e->nomem = 1;
}

void et_count_ext(sat_etime *e, const sat_ldap_op *op)
{
    sat_str oid = op->method.ptr && op->method.len ? op->method : sat_str_cstr("(none)");
    if (op->extra.ptr && op->extra.len && et_scratch(e, oid.len + op->extra.len + 4)) {
        size_t o = 0;
        memcpy(e->scratch, oid.ptr, oid.len);
        o += oid.len;
        memcpy(e->scratch + o, " (", 2);
        o += 2;
        memcpy(e->scratch + o, op->extra.ptr, op->extra.len);
        o += op->extra.len;
        e->scratch[o++] = ')';
        et_ktab_add(e, &e->ext_oids, e->scratch, o, op);
    } else {
        et_ktab_add(e, &e->ext_oids, oid.ptr, oid.len, op);
    }
}

void et_on_unindexed(sat_etime *e, const sat_ldap_op *op)
{
    e->c.unidx_total++;
    sat_str parts[4] = {op->dn, op->filter, op->client_ip, op->bind_dn};
    size_t total = 4;
    for (int i = 0; i < 4; i++)
        total += parts[i].ptr ? parts[i].len : 0;
    if (!et_scratch(e, total))
        return;
    size_t o = 0;
    uint32_t lens[4];
    for (int i = 0; i < 4; i++) {
        lens[i] = parts[i].ptr ? parts[i].len : 0;
        if (lens[i])
            memcpy(e->scratch + o, parts[i].ptr, lens[i]);
        o += lens[i];
        e->scratch[o++] = '\x1f';
    }
    int folded;
    et_unidx *u = (et_unidx *)sat_keyed_at(&e->unidx, e->scratch, o, &folded);
    if (!u) {
        e->nomem = 1;
        return;
    }
    if (folded)
        return; /* counted in the table's folded rows */
    if (u->count == 0) {
        memcpy(u->klen, lens, sizeof lens);
        u->emax = SAT_ABSENT;
        u->nentries_max = SAT_ABSENT;
        u->first.ts = op->ts_ns;
        u->first.conn = op->conn;
        u->first.op = op->op;
    } else if (op->ts_ns && (op->ts_ns < u->first.ts || !u->first.ts)) {
        u->first.ts = op->ts_ns;
        u->first.conn = op->conn;
        u->first.op = op->op;
    }
    u->count++;
    u->notes |= op->notes;
    if (op->etime >= 0) {
        u->timed++;
        sat_sum_add(&u->esum, op->etime);
        sat_acc_max(&u->emax, op->etime);
    }
    sat_acc_max(&u->nentries_max, op->nentries);
}

/* ---- abandons ---------------------------------------------------------------------------- */
/* Keeps the `top` earliest abandons: replace the latest kept one when an
 * earlier one arrives (inputs are mostly in time order, so this is rare). */
void et_keep_abandon(sat_etime *e, sat_ts_ns ts, int64_t conn, int64_t opn,
                     int64_t target, sat_str client)
{
    if (!e->aband) {
        e->aband = (et_abandon *)calloc(e->opts.top, sizeof *e->aband);
        if (!e->aband) {
            e->nomem = 1;
            return;
        }
    }
    et_abandon *slot = NULL;
    if (e->naband < e->opts.top) {
        slot = &e->aband[e->naband++];
    } else {
        size_t worst = 0;
        for (size_t i = 1; i < e->naband; i++)
            if (e->aband[i].ts > e->aband[worst].ts)
                worst = i;
        if (ts >= e->aband[worst].ts)
            return;
        slot = &e->aband[worst];
    }
    slot->ts = ts;
    slot->conn = conn;
    slot->op = opn;
    slot->target_op = target;
    size_t n = client.ptr ? client.len : 0;
    if (n >= sizeof slot->client)
        n = sizeof slot->client - 1;
    if (n)
        memcpy(slot->client, client.ptr, n);
    slot->client[n] = '\0';
}

int et_abandons_merge(sat_etime *into, const sat_etime *from)
{
    for (size_t i = 0; i < from->naband; i++) {
        const et_abandon *a = &from->aband[i];
        et_keep_abandon(into, a->ts, a->conn, a->op, a->target_op, sat_str_cstr(a->client));
    }
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* ---- attributes ----------------------------------------------------------------------- */

/* Adds the figures `w` of one attrs list to each attribute it names. */
static void split_attrs(sat_etime *e, const char *list, size_t len, const et_kv *w)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (list[i] == ' ' || list[i] == ','))
            i++;
        size_t j = i;
        while (j < len && list[j] != ' ' && list[j] != ',')
            j++;
        if (j > i) {
            char a[128];
            size_t n = j - i < sizeof a ? j - i : sizeof a;
            for (size_t k = 0; k < n; k++)
                a[k] = et_lower(list[i + k]);
            et_kv *v = (et_kv *)et_ktab_at(e, &e->attrs, a, n);
            if (v && sat_rec_merge(&et_kv_desc, v, w) != SAT_OK)
                e->nomem = 1;
        }
        i = j;
    }
}

/* The lists counted so far, split into attributes (at finish; the lists
 * are emptied so that a later finish or merge counts nothing twice). Lists
 * folded past the key cap are lost to the attribute table as such: their
 * figures go to its "other" row. */
void et_flush_attr_lists(sat_etime *e)
{
    et_ktab *l = &e->attr_lists;
    for (size_t i = 0; i < sat_keyed_n(&l->k); i++)
        split_attrs(e, sat_keyed_key(&l->k, i), sat_keyed_len(&l->k, i),
                    (const et_kv *)sat_keyed_rec(&l->k, i));
    if (sat_keyed_has_other(&l->k)) {
        sat_rec_merge(&et_kv_desc, e->attrs.k.other, l->k.other);
        e->attrs.k.folded_rows += l->k.folded_rows;
    }
    et_ktab_free(l);
    if (et_ktab_init(l, &et_kv_desc, e->opts.max_keys) != SAT_OK)
        e->nomem = 1;
}

/* ---- the tops, in the order they are shown --------------------------------------------- */

typedef struct et_sortkv {
    const char *key;
    uint64_t count;
    size_t idx;
} et_sortkv;

static int cmp_sortkv(const void *a, const void *b)
{
    const et_sortkv *x = (const et_sortkv *)a, *y = (const et_sortkv *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

size_t *et_kv_top(const et_ktab *k, size_t top, size_t *nout)
{
    *nout = 0;
    size_t nk = sat_keyed_n(&k->k);
    if (!nk || !top)
        return NULL;
    size_t cap = nk < top ? nk : top;
    et_sortkv *tmp = (et_sortkv *)malloc(cap * sizeof *tmp);
    size_t *idx = (size_t *)malloc(cap * sizeof *idx);
    if (!tmp || !idx) {
        free(tmp);
        free(idx);
        return NULL;
    }
    /* Only the `top` first entries are shown: keep them in a bounded heap
     * whose root is the one that sorts last, then sort just those (a key
     * table can hold 100,000 entries; the report shows 20). */
    size_t n = 0;
    for (size_t i = 0; i < nk; i++) {
        et_sortkv x;
        x.key = sat_keyed_key(&k->k, i);
        x.count = ((const et_kv *)sat_keyed_rec(&k->k, i))->count;
        x.idx = i;
        size_t at;
        if (n < cap) { /* sift up */
            at = n++;
            while (at > 0 && cmp_sortkv(&tmp[(at - 1) / 2], &x) < 0) {
                tmp[at] = tmp[(at - 1) / 2];
                at = (at - 1) / 2;
            }
            tmp[at] = x;
            continue;
        }
        if (cmp_sortkv(&x, &tmp[0]) >= 0)
            continue; /* sorts after everything kept */
        at = 0; /* replace the root, sift down */
        for (;;) {
            size_t c = 2 * at + 1;
            if (c >= n)
                break;
            if (c + 1 < n && cmp_sortkv(&tmp[c], &tmp[c + 1]) < 0)
                c++;
            if (cmp_sortkv(&tmp[c], &x) <= 0)
                break;
            tmp[at] = tmp[c];
            at = c;
        }
        tmp[at] = x;
    }
    qsort(tmp, n, sizeof *tmp, cmp_sortkv);
    for (size_t i = 0; i < n; i++)
        idx[i] = tmp[i].idx;
    free(tmp);
    *nout = n;
    return idx;
}
