/*
 * etime_groups.c - the etime analyzer's groups: per operation type, per
 * --by key (a capped keyed table with an estimate of the keys it folded
 * into "(other)"), and the per-minute series (winseries.h, on a ladder of
 * widths); the group record's descriptor (its fields, merge and row columns), the
 * series in time order and groups by total time for the result. The rules
 * are in etime.c.
 */
#include "etime_int.h"

/* ---- the group record (etime_int.h ET_GROUP_FIELDS) ------------------------------------ */

#define DUR 9  /* seconds: nanosecond resolution */
#define FRAC 6 /* shares, rates */

static const et_group *grp(const void *rec) { return (const et_group *)rec; }
static const et_row_ctx *rctx(const void *ctx) { return (const et_row_ctx *)ctx; }
static double ns_mean(int64_t sum, uint64_t n) { return n ? sat_sum_d(sum) / (double)n / 1e9 : NAN; }
/* (the sketch sorts its exact values on first use: a change of order only,
 * which no figure and no later add or merge depends on) */
static double quantile(const et_group *g, double q)
{
    return g->timed ? sat_qsketch_quantile((sat_qsketch *)(uintptr_t)&g->q, q) / 1e9 : NAN;
}

static double d_rate(const void *r, const void *c)
{
    return rctx(c)->span_s > 0 ? (double)grp(r)->count / rctx(c)->span_s : NAN;
}
static double d_mean(const void *r, const void *c)
{
    (void)c;
    return ns_mean(grp(r)->esum, grp(r)->timed);
}
static double d_p50(const void *r, const void *c) { (void)c; return quantile(grp(r), 0.50); }
static double d_p90(const void *r, const void *c) { (void)c; return quantile(grp(r), 0.90); }
static double d_p99(const void *r, const void *c) { (void)c; return quantile(grp(r), 0.99); }
static double d_p999(const void *r, const void *c) { (void)c; return quantile(grp(r), 0.999); }
static double d_max(const void *r, const void *c)
{
    (void)c;
    return grp(r)->timed && grp(r)->q.n ? (double)grp(r)->q.max / 1e9 : NAN;
}
static double d_total(const void *r, const void *c)
{
    (void)c;
    return grp(r)->timed ? sat_sum_d(grp(r)->esum) / 1e9 : NAN;
}
static double d_share(const void *r, const void *c)
{
    return grp(r)->timed && rctx(c)->all_ns > 0 ? sat_sum_d(grp(r)->esum) / rctx(c)->all_ns : NAN;
}
static double d_wtime(const void *r, const void *c)
{
    (void)c;
    return ns_mean(grp(r)->wsum, grp(r)->wn);
}
static double d_optime(const void *r, const void *c)
{
    (void)c;
    return ns_mean(grp(r)->osum, grp(r)->on);
}
static double d_upstream(const void *r, const void *c)
{
    (void)c;
    return ns_mean(grp(r)->usum, grp(r)->un);
}
static double d_bytes(const void *r, const void *c)
{
    (void)c;
    return grp(r)->bn ? sat_sum_d(grp(r)->bsum) : NAN;
}

/* A row's times after its counts: rate, percentiles, max, total, share. */
#define ROW_TIMES                                                                             \
    SAT_ACC_DERIVE("rate_per_s", SAT_UNIT_RATE, FRAC, "rate", NULL, d_rate),                 \
        SAT_ACC_DERIVE("mean_s", SAT_UNIT_DURATION, DUR, "mean", NULL, d_mean),              \
        SAT_ACC_DERIVE("p50_s", SAT_UNIT_DURATION, DUR, "p50", NULL, d_p50),                 \
        SAT_ACC_DERIVE("p90_s", SAT_UNIT_DURATION, DUR, "p90", NULL, d_p90),                 \
        SAT_ACC_DERIVE("p99_s", SAT_UNIT_DURATION, DUR, "p99", NULL, d_p99),                 \
        SAT_ACC_DERIVE("p999_s", SAT_UNIT_DURATION, DUR, "p99.9", NULL, d_p999),             \
        SAT_ACC_DERIVE("max_s", SAT_UNIT_DURATION, DUR, "max", NULL, d_max),                 \
        SAT_ACC_DERIVE("total_s", SAT_UNIT_DURATION, DUR, "total", NULL, d_total),           \
        SAT_ACC_DERIVE("share", SAT_UNIT_RATIO, FRAC, NULL, NULL, d_share)

#define GC(f, key) SAT_ACC_OUT(SAT_ACC_COUNT, et_group, f, key, SAT_UNIT_COUNT, NULL, NULL),
#define GS(f) SAT_ACC(SAT_ACC_SUM, et_group, f),
#define GK(f) SAT_ACC(SAT_ACC_SKETCH, et_group, f),
static const sat_acc_field group_fields[] = {
    ET_GROUP_FIELDS(GC, GS, GK)
    ROW_TIMES,
    SAT_ACC_DERIVE("wtime_mean_s", SAT_UNIT_DURATION, DUR, "wtime", NULL, d_wtime),
    SAT_ACC_DERIVE("optime_mean_s", SAT_UNIT_DURATION, DUR, "optime", NULL, d_optime),
};
#undef GC
#undef GS
#undef GK
const sat_rec_desc et_group_desc = {sizeof(et_group), group_fields,
                                    sizeof group_fields / sizeof group_fields[0], NULL};

/* The columns of HTTP requests' rows and of the series' windows: written
 * only (the record merges by et_group_desc). */
#define OUT_COUNT(f, key, title) SAT_ACC_OUT(SAT_ACC_COUNT, et_group, f, key, SAT_UNIT_COUNT, title, NULL)
static const sat_acc_field hrow_fields[] = {
    OUT_COUNT(count, "count", "requests"),
    OUT_COUNT(errors, "errors", NULL),
    ROW_TIMES,
    SAT_ACC_DERIVE("upstream_mean_s", SAT_UNIT_DURATION, DUR, "upstream", NULL, d_upstream),
    SAT_ACC_DERIVE("bytes", SAT_UNIT_BYTES, 0, "bytes", NULL, d_bytes),
};
const sat_rec_desc et_hrow_out = {sizeof(et_group), hrow_fields,
                                  sizeof hrow_fields / sizeof hrow_fields[0], NULL};
static const sat_acc_field window_fields[] = {
    OUT_COUNT(count, "count", "ops"),
    OUT_COUNT(errors, "errors", NULL),
    SAT_ACC_DERIVE("mean_s", SAT_UNIT_DURATION, DUR, "mean", NULL, d_mean),
    SAT_ACC_DERIVE("p50_s", SAT_UNIT_DURATION, DUR, "p50", NULL, d_p50),
    SAT_ACC_DERIVE("p90_s", SAT_UNIT_DURATION, DUR, "p90", NULL, d_p90),
    SAT_ACC_DERIVE("p99_s", SAT_UNIT_DURATION, DUR, "p99", NULL, d_p99),
    SAT_ACC_DERIVE("max_s", SAT_UNIT_DURATION, DUR, "max", NULL, d_max),
};
const sat_rec_desc et_window_out = {sizeof(et_group), window_fields,
                                    sizeof window_fields / sizeof window_fields[0], NULL};
#undef OUT_COUNT

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

int et_minutes_width_ok(int64_t w)
{
    int64_t m = 1;
    while (m * ET_MINUTE_NS < w && m < INT64_MAX / 2 / ET_MINUTE_NS)
        m = next_width(m);
    return w == m * ET_MINUTE_NS;
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

/* ---- the series and groups in the result's order ---------------------------------------- */

/* et_series_walk's adapter: a window without rows as an empty group */
typedef struct series_ctx {
    void (*fn)(void *ctx, int64_t w, const et_group *g);
    void *ctx;
    et_group empty;
} series_ctx;

static void series_row(void *ctx, int64_t w, const void *payload)
{
    series_ctx *x = (series_ctx *)ctx;
    x->fn(x->ctx, w, payload ? (const et_group *)payload : &x->empty);
}

int et_series_walk(const sat_strtab *series, void (*fn)(void *ctx, int64_t w, const et_group *g),
                   void *ctx)
{
    series_ctx x = {fn, ctx, {0}};
    memset(&x.empty, 0, sizeof x.empty);
    /* every window while that stays as bounded as the series, else only the
     * busy ones (they are far apart) */
    return sat_win_walk(series, 16u * ET_BUCKETS_MAX, series_row, &x);
}

typedef struct grp_sort {
    double total; /* -1: none timed */
    uint64_t count;
    const char *key;
    size_t idx;
} grp_sort;

static int cmp_grp(const void *a, const void *b)
{
    const grp_sort *x = (const grp_sort *)a, *y = (const grp_sort *)b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

size_t *et_group_order(const char *const *keys, const et_group *const *groups, size_t n)
{
    grp_sort *s = (grp_sort *)malloc((n ? n : 1) * sizeof *s);
    size_t *order = (size_t *)malloc((n ? n : 1) * sizeof *order);
    if (!s || !order) {
        free(s);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        s[i] = (grp_sort){groups[i]->timed ? (double)groups[i]->esum / 1e9 : -1,
                          groups[i]->count, keys[i], i};
    qsort(s, n, sizeof *s, cmp_grp);
    for (size_t i = 0; i < n; i++)
        order[i] = s[i].idx;
    free(s);
    return order;
}
