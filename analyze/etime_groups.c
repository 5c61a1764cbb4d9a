/*
 * etime_groups.c - the etime analyzer's groups: per operation type, per
 * --by key (a capped keyed table with an estimate of the keys it folded
 * into "(other)"), and the per-minute series (winseries.h, on a ladder of
 * widths); their rows in the view. The rules are in etime.c.
 */
#include "etime_int.h"

static const sat_acc_field group_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, et_group, count),  SAT_ACC(SAT_ACC_COUNT, et_group, results),
    SAT_ACC(SAT_ACC_COUNT, et_group, timed),  SAT_ACC(SAT_ACC_COUNT, et_group, errors),
    SAT_ACC(SAT_ACC_SUM, et_group, esum),     SAT_ACC(SAT_ACC_SUM, et_group, wsum),
    SAT_ACC(SAT_ACC_SUM, et_group, osum),     SAT_ACC(SAT_ACC_COUNT, et_group, wn),
    SAT_ACC(SAT_ACC_COUNT, et_group, on),     SAT_ACC(SAT_ACC_SKETCH, et_group, q),
    SAT_ACC(SAT_ACC_SUM, et_group, usum),     SAT_ACC(SAT_ACC_COUNT, et_group, un),
};
const sat_rec_desc et_group_desc = {sizeof(et_group), group_fields,
                                    sizeof group_fields / sizeof group_fields[0], NULL};

/* ---- capped tables with a folded-key estimate ---------------------------------------- */

int et_ktab_init(et_ktab *k, const sat_rec_desc *d, size_t max_keys)
{
    k->foldbits = NULL;
    return sat_keyed_init(&k->k, d, max_keys);
}

void et_ktab_free(et_ktab *k)
{
    sat_keyed_free(&k->k);
    free(k->foldbits);
    k->foldbits = NULL;
}

static int fold_mark(uint8_t **bits, const void *key, size_t n)
{
    if (!*bits) {
        *bits = (uint8_t *)calloc(ET_FOLD_BITS / 8, 1);
        if (!*bits)
            return SAT_E_NOMEM;
    }
    uint64_t h = sat_strtab_hash(key, n) >> 17;
    uint32_t b = (uint32_t)(h & (ET_FOLD_BITS - 1));
    (*bits)[b >> 3] |= (uint8_t)(1u << (b & 7));
    return SAT_OK;
}

void *et_ktab_missed(sat_etime *e, et_ktab *k, const void *key, size_t len, void *rec)
{
    if (!rec || fold_mark(&k->foldbits, key, len) != SAT_OK)
        e->nomem = 1;
    return rec;
}

void *et_ktab_at(sat_etime *e, et_ktab *k, const void *key, size_t len)
{
    int folded;
    void *rec = sat_keyed_at(&k->k, key, len, &folded);
    if (!rec || (folded && fold_mark(&k->foldbits, key, len) != SAT_OK))
        e->nomem = 1;
    return rec;
}

/* The keys of from that into could not keep are folded keys of into. */
int et_ktab_merge(et_ktab *into, const et_ktab *from)
{
    int st = sat_keyed_merge(&into->k, &from->k);
    if (sat_keyed_n(&from->k) && sat_keyed_n(&into->k) >= into->k.tab.max_keys &&
        into->k.tab.max_keys)
        for (size_t i = 0; i < sat_keyed_n(&from->k); i++)
            if (!sat_strtab_find(&into->k.tab, sat_keyed_key(&from->k, i),
                                 sat_keyed_len(&from->k, i)) &&
                fold_mark(&into->foldbits, sat_keyed_key(&from->k, i),
                          sat_keyed_len(&from->k, i)) != SAT_OK)
                st = SAT_E_NOMEM;
    if (from->foldbits) {
        if (!into->foldbits && !(into->foldbits = (uint8_t *)calloc(ET_FOLD_BITS / 8, 1)))
            return SAT_E_NOMEM;
        for (uint32_t i = 0; i < ET_FOLD_BITS / 8; i++)
            into->foldbits[i] |= from->foldbits[i];
    }
    return st;
}

/* Linear counting (Whang et al. 1990): n ~ -m ln(zero bits / m). */
uint64_t et_ktab_folded_keys(const et_ktab *k)
{
    if (!k->foldbits)
        return 0;
    uint64_t zeros = 0;
    for (uint32_t i = 0; i < ET_FOLD_BITS / 8; i++)
        zeros += (uint64_t)(8 - __builtin_popcount(k->foldbits[i]));
    if (zeros == 0)
        zeros = 1;
    double m = ET_FOLD_BITS;
    return (uint64_t)llround(-m * log((double)zeros / m));
}

/* ---- the --by key ---------------------------------------------------------------------- */

/* The --by key of an op; NULL key for BY_NONE/OP/MINUTE (handled apart). */
sat_str et_group_key(sat_etime *e, const sat_ldap_op *op, char *tbuf)
{
    static const char *const bracketed[SAT_OP__COUNT] = {
        "[UNKNOWN]", "[BIND]", "[SRCH]", "[ADD]", "[MOD]", "[DEL]",
        "[MODRDN]", "[CMP]", "[EXT]", "[ABANDON]", "[UNBIND]", "[AUTOBIND]"};
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    switch (e->opts.by) {
    case SAT_ETIME_BY_BASE:
        if (t == SAT_OP_SRCH || t == SAT_OP_ADD || t == SAT_OP_MOD || t == SAT_OP_DEL ||
            t == SAT_OP_MODRDN || t == SAT_OP_CMP) {
            if (!op->dn.ptr)
                return sat_str_cstr("(none)");
            if (op->dn.len == 0)
                return sat_str_cstr("(root DSE)");
            return op->dn;
        }
        return sat_str_cstr(bracketed[t]);
    case SAT_ETIME_BY_FILTER:
        if (t == SAT_OP_SRCH) {
            if (op->filter_shape.ptr && op->filter_shape.len)
                return op->filter_shape;
            if (op->filter.ptr && op->filter.len)
                return op->filter;
            return sat_str_cstr("(none)");
        }
        return sat_str_cstr(bracketed[t]);
    case SAT_ETIME_BY_CLIENT:
        return op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                      : sat_str_cstr("(unknown)");
    case SAT_ETIME_BY_BINDDN:
        if (!op->bind_dn.ptr)
            return sat_str_cstr("(unknown)");
        if (op->bind_dn.len == 0)
            return sat_str_cstr("(anonymous)");
        if (!et_scratch(e, op->bind_dn.len + 1))
            return sat_str_cstr("(unknown)");
        return sat_str_make(e->scratch, et_norm_dn(op->bind_dn.ptr, op->bind_dn.len,
                                                e->scratch));
    case SAT_ETIME_BY_CONN: {
        et_connkey k = et_conn_key(op->server, op->conn_epoch, op->conn);
        memcpy(tbuf, &k, sizeof k);
        return sat_str_make(tbuf, sizeof k);
    }
    default:
        return SAT_STR_NONE;
    }
}

/* ---- the series ------------------------------------------------------------------------ */

/* The next window width of the series, in minutes: each divides the next,
 * so windows merge whole, and all are aligned on the epoch (hours, UTC
 * days). */
static int64_t next_width(int64_t w)
{
    static const int64_t ladder[] = {1, 5, 15, 60, 360, 1440};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        if (ladder[i] > w)
            return ladder[i];
    return w * 2;
}

/* sat_win_add_fn has no context: a failed sketch merge is noted here, per
 * thread (analyzers may run in parallel threads), and read after the call. */
static _Thread_local int win_nomem;

/* A window payload the strtab just zeroed becomes an empty group first. */
static et_group *win_group(void *w)
{
    et_group *g = (et_group *)w;
    if (!g->q.exact_max)
        sat_rec_init(&et_group_desc, g);
    return g;
}

static void win_add(void *into, const void *from)
{
    if (sat_rec_merge(&et_group_desc, win_group(into), from) != SAT_OK)
        win_nomem = 1;
}

/* For widening our own series: the old window's sketch goes with its table. */
static void win_move(void *into, const void *from)
{
    win_add(into, from);
    sat_rec_free(&et_group_desc, (void *)(uintptr_t)from);
}

/* Re-keys the series into windows `wmin` minutes wide (a multiple of the
 * current width), merging their groups: counts and sums stay exact and the
 * sketches keep their stated error (the merge of sketches is the sketch of
 * the union). */
static void minutes_rebucket(sat_etime *e, int64_t wmin)
{
    int64_t f = wmin * ET_MINUTE_NS / e->mwidth;
    if (f <= 1)
        return;
    win_nomem = 0;
    if (sat_win_widen(&e->minutes, &e->mwidth, f, sizeof(et_group), win_move) != SAT_OK ||
        win_nomem)
        e->nomem = 1;
    e->last_minute = INT64_MIN;
    e->last_minute_grp = NULL;
}

/* Keeps the series under ET_BUCKETS_MAX windows, however long the span. */
void et_minutes_bound(sat_etime *e)
{
    while (e->minutes.n > ET_BUCKETS_MAX && !e->nomem)
        minutes_rebucket(e, next_width(e->mwidth / ET_MINUTE_NS));
}

et_group *et_minute_at(sat_etime *e, int64_t w)
{
    int is_new;
    et_group *g = (et_group *)sat_strtab_upsert(&e->minutes, &w, sizeof w, &is_new, NULL);
    if (!g) {
        e->nomem = 1;
        return NULL;
    }
    if (is_new)
        sat_rec_init(&et_group_desc, g);
    e->last_minute = w;
    e->last_minute_grp = g;
    return g;
}

/* Both series at the wider step, then merged and bounded. */
int et_minutes_merge(sat_etime *into, const sat_etime *from)
{
    minutes_rebucket(into, from->mwidth / ET_MINUTE_NS);
    win_nomem = 0;
    int st = sat_win_merge(&into->minutes, &into->mwidth, &from->minutes, from->mwidth, SIZE_MAX,
                           sizeof(et_group), win_add);
    into->last_minute = INT64_MIN;
    into->last_minute_grp = NULL;
    et_minutes_bound(into);
    return st != SAT_OK || win_nomem ? SAT_E_NOMEM : SAT_OK;
}

void et_minutes_free(sat_etime *e)
{
    for (size_t i = 0; i < e->minutes.n; i++)
        sat_rec_free(&et_group_desc, sat_strtab_val(&e->minutes, i));
    sat_strtab_free(&e->minutes);
}

/* ---- rows of the view ------------------------------------------------------------------ */

void et_row_fill(sat_etime_row *r, const char *key, et_group *g, double all_total_ns,
                 double span_s)
{
    memset(r, 0, sizeof *r);
    r->key = key;
    r->count = g->count;
    r->results = g->results;
    r->timed = g->timed;
    r->errors = g->errors;
    r->rate = span_s > 0 ? (double)g->count / span_s : NAN;
    if (g->timed) {
        r->mean_s = (double)g->esum / (double)g->timed / 1e9;
        r->p50_s = sat_qsketch_quantile(&g->q, 0.50) / 1e9;
        r->p90_s = sat_qsketch_quantile(&g->q, 0.90) / 1e9;
        r->p99_s = sat_qsketch_quantile(&g->q, 0.99) / 1e9;
        r->p999_s = sat_qsketch_quantile(&g->q, 0.999) / 1e9;
        r->max_s = g->q.n ? (double)g->q.max / 1e9 : NAN;
        r->total_s = (double)g->esum / 1e9;
        r->share = all_total_ns > 0 ? (double)g->esum / all_total_ns : NAN;
    } else {
        r->mean_s = r->p50_s = r->p90_s = r->p99_s = r->p999_s = r->max_s = NAN;
        r->total_s = r->share = NAN;
    }
    r->wtime_mean_s = g->wn ? (double)g->wsum / (double)g->wn / 1e9 : NAN;
    r->optime_mean_s = g->on ? (double)g->osum / (double)g->on / 1e9 : NAN;
    r->upstream_mean_s = g->un ? (double)g->usum / (double)g->un / 1e9 : NAN;
}

int et_cmp_row_share(const void *a, const void *b)
{
    const sat_etime_row *x = (const sat_etime_row *)a, *y = (const sat_etime_row *)b;
    double tx = isnan(x->total_s) ? -1 : x->total_s, ty = isnan(y->total_s) ? -1 : y->total_s;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* ISO minute "2025-06-08T07:19:00Z" (civil-from-days, H. Hinnant). */
static void fmt_minute(int64_t minute, char *buf, size_t n)
{
    int64_t secs = minute * 60;
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t rem = secs - days * 86400;
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2)
        y++;
    snprintf(buf, n, "%04lld-%02lld-%02lldT%02lld:%02lld:00Z", (long long)y, (long long)m,
             (long long)d, (long long)(rem / 3600), (long long)(rem % 3600 / 60));
}

static int cmp_i64_idx(const void *a, const void *b)
{
    const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The series: one row per window from the first to the last (only the busy
 * ones when they are far apart, so that the view stays as bounded as the
 * series); with --by minute, also the groups. */
static int view_minutes(sat_etime *e, sat_etime_view *v, double all_ns)
{
    int64_t bucket_min = e->mwidth / ET_MINUTE_NS;
    v->minutes_width_min = (uint32_t)bucket_min;
    if (!e->minutes.n)
        return SAT_OK;
    int64_t *mk = (int64_t *)malloc(e->minutes.n * 2 * sizeof *mk);
    if (!mk)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < e->minutes.n; i++) {
        memcpy(&mk[2 * i], sat_strtab_key(&e->minutes, i), sizeof(int64_t));
        mk[2 * i + 1] = (int64_t)i;
    }
    qsort(mk, e->minutes.n, 2 * sizeof *mk, cmp_i64_idx);
    int64_t m0 = mk[0], m1 = mk[2 * (e->minutes.n - 1)];
    uint64_t want = (uint64_t)(m1 - m0) + 1;
    int dense = want <= 16u * ET_BUCKETS_MAX;
    size_t nrows = dense ? (size_t)want : e->minutes.n;
    sat_etime_minute *mr =
        (sat_etime_minute *)sat_arena_alloc(&e->view_arena, nrows * sizeof *mr);
    sat_etime_row *grows = NULL;
    if (e->opts.by == SAT_ETIME_BY_MINUTE)
        grows = (sat_etime_row *)sat_arena_alloc(&e->view_arena, nrows * sizeof *grows);
    if (!mr || (e->opts.by == SAT_ETIME_BY_MINUTE && !grows)) {
        free(mk);
        return SAT_E_NOMEM;
    }
    size_t k = 0;
    et_group empty;
    memset(&empty, 0, sizeof empty);
    for (size_t r = 0; r < nrows; r++) {
        int64_t minute;
        et_group *g;
        if (dense) {
            minute = m0 + (int64_t)r;
            if (k < e->minutes.n && mk[2 * k] == minute)
                g = (et_group *)sat_strtab_val(&e->minutes, (size_t)mk[2 * k++ + 1]);
            else
                g = &empty;
        } else {
            minute = mk[2 * r];
            g = (et_group *)sat_strtab_val(&e->minutes, (size_t)mk[2 * r + 1]);
        }
        sat_etime_row tmp;
        char kb[96];
        fmt_minute(minute * bucket_min, kb, sizeof kb);
        et_row_fill(&tmp, NULL, g, all_ns, 60.0 * (double)bucket_min);
        mr[r].start = minute * e->mwidth;
        mr[r].ops = g->count;
        mr[r].errors = g->errors;
        mr[r].timed = g->timed;
        mr[r].mean_s = tmp.mean_s;
        mr[r].p99_s = tmp.p99_s;
        mr[r].max_s = tmp.max_s;
        if (grows) {
            tmp.key = et_view_strdup(e, kb, strlen(kb));
            grows[r] = tmp;
        }
    }
    free(mk);
    v->minutes = mr;
    v->nminutes = nrows;
    if (grows) {
        v->groups = grows;
        v->ngroups = nrows;
    }
    return SAT_OK;
}

/* The rows per type, "all", the series and the --by groups. */
int et_view_groups(sat_etime *e, sat_etime_view *v, double all_ns, double span)
{
    sat_etime_row *oprows =
        (sat_etime_row *)sat_arena_alloc(&e->view_arena, SAT_OP__COUNT * sizeof *oprows);
    if (!oprows)
        return SAT_E_NOMEM;
    size_t nop = 0;
    for (int t = 1; t <= SAT_OP__COUNT; t++) {
        int tt = t % SAT_OP__COUNT; /* UNKNOWN last */
        if (e->optype[tt].count)
            et_row_fill(&oprows[nop++], sat_optype_name(tt), &e->optype[tt], all_ns, span);
    }
    v->ops_rows = oprows;
    v->nops_rows = nop;
    et_row_fill(&v->all, "all", &e->all, all_ns, span);

    if (view_minutes(e, v, all_ns) != SAT_OK)
        return SAT_E_NOMEM;

    if (e->opts.by == SAT_ETIME_BY_OP) {
        sat_etime_row *g =
            (sat_etime_row *)sat_arena_alloc(&e->view_arena, (nop ? nop : 1) * sizeof *g);
        if (!g)
            return SAT_E_NOMEM;
        memcpy(g, oprows, nop * sizeof *g);
        qsort(g, nop, sizeof *g, et_cmp_row_share);
        v->groups = g;
        v->ngroups = nop;
    } else if (e->opts.by != SAT_ETIME_BY_NONE && e->opts.by != SAT_ETIME_BY_MINUTE &&
               e->opts.by != SAT_ETIME_BY_INTERNAL) {
        const sat_keyed *kt = &e->groups.k;
        et_group *other = (et_group *)kt->other;
        size_t nk = sat_keyed_n(kt), n = nk + (other->count ? 1 : 0);
        sat_etime_row *g =
            (sat_etime_row *)sat_arena_alloc(&e->view_arena, (n ? n : 1) * sizeof *g);
        if (!g)
            return SAT_E_NOMEM;
        for (size_t i = 0; i < nk; i++) {
            const char *key = sat_keyed_key(kt, i);
            if (e->opts.by == SAT_ETIME_BY_CONN) {
                et_connkey ck;
                memcpy(&ck, key, sizeof ck);
                char kb[96];
                if (ck.server == 0 && ck.epoch == 0)
                    snprintf(kb, sizeof kb, "conn=%lld", (long long)ck.conn);
                else
                    snprintf(kb, sizeof kb, "conn=%lld server=%u restart=%u",
                             (long long)ck.conn, ck.server, ck.epoch);
                key = et_view_strdup(e, kb, strlen(kb));
            }
            et_row_fill(&g[i], key, (et_group *)sat_keyed_rec(kt, i), all_ns, span);
        }
        qsort(g, nk, sizeof *g, et_cmp_row_share);
        if (other->count)
            et_row_fill(&g[nk], "(other)", other, all_ns, span);
        v->groups = g;
        v->ngroups = n;
        v->groups_folded_keys = et_ktab_folded_keys(&e->groups);
    }
    return SAT_OK;
}
