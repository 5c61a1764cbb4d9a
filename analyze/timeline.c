/*
 * timeline.c - the timeline analyzer (analyze_timeline.h): operations, HTTP
 * requests and connections counted per window of one series and per quarter hour (for the
 * local hours), etime histograms, and the inputs; its merge and the choice of
 * the window. The sections are built in timeline_result.c.
 *
 * The rule that makes merging exact: the window is a function of the span
 * alone. At any time the series is kept at the finest rung of the ladder
 * that holds the span seen so far in SAT_TL_WINDOWS_MAX windows; a larger
 * span never needs a finer rung, each rung divides the next and all are
 * aligned on the epoch, so widening a part's windows to the merged span's
 * rung gives exactly the windows one pass counts at that rung.
 */
#include <math.h>

#include "timeline_int.h"

#define NS 1000000000LL

/* The ladder of windows; past its top, the step doubles. */
static const int64_t ladder[] = {1 * NS, 10 * NS, 60 * NS, 600 * NS, 3600 * NS, 86400 * NS};
#define LADDER_N (sizeof ladder / sizeof ladder[0])
/* The hour series: quarter hours (every UTC offset in use is a whole number
 * of them), then hours, days, doubling. */
static const int64_t hladder[] = {900 * NS, 3600 * NS, 86400 * NS};
#define HLADDER_N (sizeof hladder / sizeof hladder[0])

/* Bin edges in ns: 10^(j/10) us, rounded, j = 0..90 (bin i holds etimes in
 * [edge[i-1], edge[i]); bin 0 those below 1 us, the last those at and above
 * 1000 s). Integer edges: an etime falls in the same bin on every machine. */
static const int64_t edges[SAT_TL_BINS - 1] = {
    1000LL, 1259LL, 1585LL, 1995LL, 2512LL, 3162LL, 3981LL, 5012LL, 6310LL, 7943LL, 10000LL,
    12589LL, 15849LL, 19953LL, 25119LL, 31623LL, 39811LL, 50119LL, 63096LL, 79433LL, 100000LL,
    125893LL, 158489LL, 199526LL, 251189LL, 316228LL, 398107LL, 501187LL, 630957LL, 794328LL,
    1000000LL, 1258925LL, 1584893LL, 1995262LL, 2511886LL, 3162278LL, 3981072LL, 5011872LL,
    6309573LL, 7943282LL, 10000000LL, 12589254LL, 15848932LL, 19952623LL, 25118864LL,
    31622777LL, 39810717LL, 50118723LL, 63095734LL, 79432823LL, 100000000LL, 125892541LL,
    158489319LL, 199526231LL, 251188643LL, 316227766LL, 398107171LL, 501187234LL, 630957344LL,
    794328235LL, 1000000000LL, 1258925412LL, 1584893192LL, 1995262315LL, 2511886432LL,
    3162277660LL, 3981071706LL, 5011872336LL, 6309573445LL, 7943282347LL, 10000000000LL,
    12589254118LL, 15848931925LL, 19952623150LL, 25118864315LL, 31622776602LL, 39810717055LL,
    50118723363LL, 63095734448LL, 79432823472LL, 100000000000LL, 125892541179LL, 158489319246LL,
    199526231497LL, 251188643151LL, 316227766017LL, 398107170553LL, 501187233627LL,
    630957344480LL, 794328234724LL, 1000000000000LL};

int sat_tl_bin(int64_t ns)
{
    int lo = 0, hi = SAT_TL_BINS - 1; /* the count of edges <= ns */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (edges[mid] <= ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double sat_tl_bin_lo_s(int bin)
{
    if (bin <= 0)
        return 0;
    return (double)edges[bin < SAT_TL_BINS ? bin - 1 : SAT_TL_BINS - 2] / 1e9;
}

double sat_tl_bin_hi_s(int bin)
{
    if (bin >= SAT_TL_BINS - 1)
        return INFINITY;
    return (double)edges[bin < 0 ? 0 : bin] / 1e9;
}

double tl_percentile(const uint64_t *hist, uint64_t n, int64_t et_max, int64_t et_min_inv,
                     double q)
{
    if (!n)
        return NAN;
    /* the rank: the least value with at least q n values at or below it */
    uint64_t rank = (uint64_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    uint64_t cum = 0;
    int b = 0;
    for (; b < SAT_TL_BINS - 1; b++) {
        cum += hist[b];
        if (cum >= rank)
            break;
    }
    double mn = (double)(INT64_MAX - et_min_inv) / 1e9, mx = (double)et_max / 1e9;
    double v;
    if (b == 0)
        v = 0.5e-6;
    else if (b == SAT_TL_BINS - 1)
        v = mx;
    else /* the geometric middle of the bin */
        v = 1e-6 * pow(10.0, ((double)b - 0.5) / SAT_TL_BINS_PER_DECADE);
    if (v > mx)
        v = mx;
    if (v < mn)
        v = mn;
    return v;
}

/* ---- records ------------------------------------------------------------------------ */
#define TL_WIN_ACC(field, key, title, note) SAT_COUNTER(tl_win, field, key, title, note),
static const sat_acc_field win_fields[] = {
    TL_WIN_COUNTS(TL_WIN_ACC)
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_win, ops),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_win, closes),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_win, hist),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_win, methods),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_win, classes),
    SAT_ACC(SAT_ACC_SUM, tl_win, etime_ns),
    SAT_ACC(SAT_ACC_SUM, tl_win, wtime_ns),
    SAT_ACC(SAT_ACC_SUM, tl_win, optime_ns),
    SAT_ACC(SAT_ACC_MAX, tl_win, et_max),
    SAT_ACC(SAT_ACC_MAX, tl_win, et_min_inv),
};
const sat_rec_desc tl_win_desc = {sizeof(tl_win), win_fields,
                                  sizeof win_fields / sizeof win_fields[0], NULL};

#define TL_REQ_ACC(field, key, title, note) SAT_COUNTER(tl_req_tot, field, key, title, note),
static const sat_acc_field req_fields[] = {TL_REQ_COUNTS(TL_REQ_ACC)};
const sat_rec_desc tl_req_tot_desc = {sizeof(tl_req_tot), req_fields,
                                      sizeof req_fields / sizeof req_fields[0], NULL};

#define TL_TOT_ACC(field, key, title, note) SAT_COUNTER(tl_tot, field, key, title, note),
static const sat_acc_field tot_fields[] = {
    TL_TOT_COUNTS(TL_TOT_ACC)
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, by_type),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, closes),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, hist),
    SAT_ACC_RUN(SAT_ACC_MAX, tl_tot, et_max),
    SAT_ACC_RUN(SAT_ACC_MAX, tl_tot, et_min_inv),
    SAT_ACC(SAT_ACC_FIRST, tl_tot, first_ts),
    SAT_ACC(SAT_ACC_LAST, tl_tot, last_ts),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, req),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, methods),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, classes),
    SAT_ACC_RUN(SAT_ACC_COUNT, tl_tot, req_hist),
    SAT_ACC(SAT_ACC_MAX, tl_tot, req_et_max),
    SAT_ACC(SAT_ACC_MAX, tl_tot, req_et_min_inv),
};
const sat_rec_desc tl_tot_desc = {sizeof(tl_tot), tot_fields,
                                  sizeof tot_fields / sizeof tot_fields[0], NULL};

static const sat_acc_field core_fields[] = {
    SAT_ACC(SAT_ACC_FIRST, tl_core, first_ts),
    SAT_ACC(SAT_ACC_LAST, tl_core, last_ts),
    SAT_ACC(SAT_ACC_BITS, tl_core, time_sources),
};
const sat_rec_desc tl_core_desc = {sizeof(tl_core), core_fields,
                                   sizeof core_fields / sizeof core_fields[0], NULL};

static void add_win(void *into, const void *from)
{
    (void)sat_rec_merge(&tl_win_desc, into, from); /* no sketch: cannot fail */
}

/* ---- the steps ---------------------------------------------------------------------- */
int64_t tl_nwin(sat_ts_ns first, sat_ts_ns last, int64_t step)
{
    if (first <= 0 || last < first)
        return 0;
    return sat_win_index(last, step) - sat_win_index(first, step) + 1;
}

/* Whether step is a rung of the ladder (hour: of the hour series' one): one
 * of it, or its top doubled (what a partial's step must be). */
int tl_step_valid(int64_t step, int hour)
{
    const int64_t *lad = hour ? hladder : ladder;
    size_t n = hour ? HLADDER_N : LADDER_N;
    for (size_t i = 0; i < n; i++)
        if (lad[i] == step)
            return 1;
    int64_t s = lad[n - 1];
    while (s < step && s <= INT64_MAX / 2)
        s *= 2;
    return s == step;
}

static int64_t next_step(const int64_t *lad, size_t n, int64_t step)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (lad[i] == step)
            return lad[i + 1];
    return step * 2;
}

/* Widens tab (at *step) up the ladder until the span fits in max windows. */
static int fit(sat_strtab *tab, int64_t *step, const int64_t *lad, size_t nlad, size_t max,
               sat_ts_ns first, sat_ts_ns last)
{
    while (tl_nwin(first, last, *step) > (int64_t)max) {
        int64_t to = next_step(lad, nlad, *step);
        if (sat_win_widen(tab, step, to / *step, sizeof(tl_win), add_win) < 0)
            return SAT_E_NOMEM;
    }
    return SAT_OK;
}

static int fit_all(sat_timeline *t)
{
    if (fit(&t->win, &t->step, ladder, LADDER_N, t->max_windows, t->t.first_ts,
            t->t.last_ts) < 0 ||
        fit(&t->hrs, &t->hstep, hladder, HLADDER_N, SAT_TL_HOUR_BUCKETS_MAX, t->t.first_ts,
            t->t.last_ts) < 0) {
        t->nomem = 1;
        return SAT_E_NOMEM;
    }
    return SAT_OK;
}

/* The window of the series (hour: of the hour series) that holds ts, after
 * the span took ts in. NULL when memory ran out. */
static tl_win *at(sat_timeline *t, int hour, sat_ts_ns ts)
{
    int64_t k = sat_win_index(ts, hour ? t->hstep : t->step);
    tl_win *w = (tl_win *)sat_strtab_upsert(hour ? &t->hrs : &t->win, &k, sizeof k, NULL, NULL);
    if (!w)
        t->nomem = 1;
    return w;
}

/* Takes ts into the span, widening the series if it no longer fits. */
static int span(sat_timeline *t, sat_ts_ns ts)
{
    if (ts <= 0)
        return 0;
    int grew = !t->t.first_ts || ts < t->t.first_ts || ts > t->t.last_ts;
    sat_acc_first(&t->t.first_ts, ts, NULL, 0);
    sat_acc_last(&t->t.last_ts, ts, NULL, 0);
    if (grew && fit_all(t) < 0)
        return 0;
    return 1;
}

/* ---- rows ------------------------------------------------------------------------- */

/* An answer counts in the window of its time (what the server got done in
 * it: the throughput), which may lie past the span read so far; one given
 * more than ANSWER_LATE_MAX after its request (or before it: a clock step)
 * counts in its request's window, so that the windows past the span stay
 * few. A window past the span at the end is not written. */
#define ANSWER_LATE_MAX (3600LL * 1000000000LL)
static void answered(sat_timeline *t, sat_ts_ns ts, sat_ts_ns rts)
{
    if (rts < ts || rts - ts > ANSWER_LATE_MAX)
        rts = ts;
    tl_win *w = at(t, 0, rts);
    if (w)
        w->answered++;
}

/* etime's rule (etime_int.h et_result_is_error): compare answers and a SASL
 * step that goes on are no errors. */
static int is_error(const sat_ldap_op *op)
{
    int has_result = op->err != SAT_ABSENT && !(op->flags & SAT_OPF_UNFINISHED);
    return has_result && op->err != 0 && op->err != 5 && op->err != 6 && op->err != 14;
}

static void add_op(tl_win *w, const sat_ldap_op *op, int t, int err, int64_t et, int hour)
{
    w->count++;
    w->errors += err;
    w->ops[t]++;
    if (et >= 0) {
        w->timed++;
        sat_sum_add(&w->etime_ns, et);
        w->hist[sat_tl_bin(et)]++;
        sat_acc_max(&w->et_max, et);
        sat_acc_max(&w->et_min_inv, INT64_MAX - et);
    }
    if (hour)
        return;
    if (op->wtime >= 0 && t != SAT_OP_ABANDON && t != SAT_OP_UNBIND && t != SAT_OP_AUTOBIND) {
        w->wt_n++;
        sat_sum_add(&w->wtime_ns, op->wtime);
    }
    if (op->optime >= 0 && t != SAT_OP_ABANDON && t != SAT_OP_UNBIND && t != SAT_OP_AUTOBIND) {
        w->ot_n++;
        sat_sum_add(&w->optime_ns, op->optime);
    }
}

static int on_op(sat_timeline *t, const sat_ldap_op *op)
{
    if (op->internal_depth > 0)
        return SAT_OK; /* inside its parent's etime */
    int ty = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    /* ABANDON, UNBIND and AUTOBIND are counted, never timed (etime.c) */
    int untimed = ty == SAT_OP_ABANDON || ty == SAT_OP_UNBIND || ty == SAT_OP_AUTOBIND;
    int64_t et = untimed ? SAT_ABSENT : op->etime;
    int err = is_error(op);
    t->t.ops++;
    t->t.by_type[ty]++;
    t->t.errors += err;
    if (et >= 0) {
        t->t.timed++;
        t->t.hist[ty][sat_tl_bin(et)]++;
        sat_acc_max(&t->t.et_max[ty], et);
        sat_acc_max(&t->t.et_min_inv[ty], INT64_MAX - et);
    }
    if (!untimed) {
        t->t.wt_n += op->wtime >= 0;
        t->t.ot_n += op->optime >= 0;
    }
    sat_ts_ns ts = op->ts_ns > 0 ? op->ts_ns : op->result_ts_ns;
    if (!span(t, ts)) {
        t->t.undated += ts <= 0;
        return SAT_OK;
    }
    tl_win *w = at(t, 0, ts), *h = at(t, 1, ts);
    if (w)
        add_op(w, op, ty, err, et, 0);
    if (h)
        add_op(h, op, ty, err, et, 1);
    if (!untimed && op->err != SAT_ABSENT && !(op->flags & SAT_OPF_UNFINISHED)) {
        sat_ts_ns rts = op->result_ts_ns > 0 ? op->result_ts_ns
                        : et >= 0 && op->ts_ns > 0 ? op->ts_ns + et
                                                   : ts;
        answered(t, ts, rts);
    }
    return SAT_OK;
}

/* ---- HTTP requests ------------------------------------------------------------------ */
const char *const tl_method_names[TL_METHODS] = {"GET",   "HEAD",    "POST",  "PUT", "DELETE",
                                                 "PATCH", "OPTIONS", "other", "none"};
const char *const tl_class_names[TL_CLASSES] = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};

static int method_of(sat_str m)
{
    if (!m.ptr || !m.len)
        return TL_M_NONE;
    for (int k = 0; k < TL_M_OTHER; k++)
        if (m.len == strlen(tl_method_names[k]) && !memcmp(m.ptr, tl_method_names[k], m.len))
            return k;
    return TL_M_OTHER;
}

static void add_req(tl_win *w, int m, int cls, int err, int64_t rt)
{
    w->count++;
    w->errors += err;
    w->reqs++;
    w->methods[m]++;
    w->classes[cls]++;
    if (rt >= 0) {
        w->timed++;
        sat_sum_add(&w->etime_ns, rt);
        w->hist[sat_tl_bin(rt)]++;
        sat_acc_max(&w->et_max, rt);
        sat_acc_max(&w->et_min_inv, INT64_MAX - rt);
    }
}

/* A request counts in the window of its start (event.h: ts), as an LDAP
 * operation in that of its request; its response time is its etime. */
static int on_http(sat_timeline *t, const sat_http_req *r)
{
    int m = method_of(r->method);
    int cls = r->status >= 100 && r->status < 600 ? r->status / 100 : 0;
    int err = r->status >= 400;
    int64_t rt = r->response_time;
    t->t.req.count++;
    t->t.methods[m]++;
    t->t.classes[cls]++;
    t->t.req.errors += err;
    if (rt >= 0) {
        t->t.req.timed++;
        t->t.req_hist[sat_tl_bin(rt)]++;
        sat_acc_max(&t->t.req_et_max, rt);
        sat_acc_max(&t->t.req_et_min_inv, INT64_MAX - rt);
    }
    if (!span(t, r->ts)) {
        t->t.req.undated += r->ts <= 0;
        return SAT_OK;
    }
    tl_win *w = at(t, 0, r->ts), *h = at(t, 1, r->ts);
    if (w)
        add_req(w, m, cls, err, rt);
    if (h)
        add_req(h, m, cls, err, rt);
    /* every request is answered (whatever its status), at its end */
    answered(t, r->ts, rt >= 0 ? r->ts + rt : r->ts);
    return SAT_OK;
}

/* A connection is open from its open line (from before the input when none
 * was seen: it was opened before the log began) to its close, or to a
 * restart; one still open at the end of the input never closes. */
static int on_conn(sat_timeline *t, const sat_ldap_conn *c)
{
    t->t.conns++;
    sat_ts_ns close = c->close_ts > 0 && !(c->flags & SAT_CONNF_UNCLOSED) ? c->close_ts : 0;
    if (c->open_ts > 0 && span(t, c->open_ts)) {
        tl_win *w = at(t, 0, c->open_ts);
        if (w)
            w->opened++;
        t->t.opened++;
    } else {
        t->t.conns_no_open++;
    }
    if (close && span(t, close)) {
        tl_win *w = at(t, 0, close);
        int code = c->close_code < SAT_CLOSE__COUNT ? c->close_code : SAT_CLOSE_OTHER;
        if (w) {
            w->closed++;
            if (code != SAT_CLOSE_NONE)
                w->closes[code]++;
        }
        t->t.closed++;
        if (code != SAT_CLOSE_NONE)
            t->t.closes[code]++;
    }
    return SAT_OK;
}

static char *dup_str(sat_str s)
{
    if (!s.ptr)
        return NULL;
    char *p = (char *)malloc(s.len + 1);
    if (p) {
        memcpy(p, s.ptr, s.len);
        p[s.len] = '\0';
    }
    return p;
}

static int add_src(sat_timeline *t, const tl_src *s, int copy_strings, const sat_source *row)
{
    if (SAT_GROW(t->src, t->capsrc, t->nsrc + 1) < 0)
        return SAT_E_NOMEM;
    tl_src *d = &t->src[t->nsrc];
    *d = *s;
    if (copy_strings) {
        d->path = dup_str(row->path);
        d->kind = dup_str(row->kind);
        d->format = dup_str(row->format);
    } else {
        sat_str p = sat_str_cstr(s->path ? s->path : ""), k = sat_str_cstr(s->kind ? s->kind : ""),
                f = sat_str_cstr(s->format ? s->format : "");
        d->path = s->path ? dup_str(p) : NULL;
        d->kind = s->kind ? dup_str(k) : NULL;
        d->format = s->format ? dup_str(f) : NULL;
    }
    if ((!d->path && (copy_strings ? row->path.ptr != NULL : s->path != NULL)) ||
        (!d->kind && (copy_strings ? row->kind.ptr != NULL : s->kind != NULL)) ||
        (!d->format && (copy_strings ? row->format.ptr != NULL : s->format != NULL))) {
        free(d->path);
        free(d->kind);
        free(d->format);
        return SAT_E_NOMEM;
    }
    t->nsrc++;
    return SAT_OK;
}

static int on_source(sat_timeline *t, const sat_source *s)
{
    tl_src r;
    memset(&r, 0, sizeof r);
    r.id = s->id;
    r.first_ts = s->first_ts;
    r.last_ts = s->last_ts;
    r.lines = s->lines;
    r.bytes = s->bytes;
    r.rejects = s->rejects;
    r.utc_offset_s = s->utc_offset_s;
    r.truncated = s->truncated;
    if (add_src(t, &r, 1, s) < 0)
        t->nomem = 1;
    return SAT_OK;
}

static int on_crash(sat_timeline *t, const sat_crash *c)
{
    if (c->origin != SAT_CRASH_CORE)
        return SAT_OK; /* a crash written in a log: the log's own lines date it */
    tl_core *k = (tl_core *)sat_strtab_upsert(&t->cores, &c->source, sizeof c->source, NULL, NULL);
    if (!k) {
        t->nomem = 1;
        return SAT_OK;
    }
    if (c->time_source < 64)
        k->time_sources |= 1ull << c->time_source;
    if (c->ts > 0 && c->time_source != SAT_CRASH_TIME_MTIME &&
        c->time_source != SAT_CRASH_TIME_UNKNOWN) {
        sat_acc_first(&k->first_ts, c->ts, NULL, 0);
        sat_acc_last(&k->last_ts, c->ts, NULL, 0);
    }
    return SAT_OK;
}

static int on_row(void *ctx, int table, const void *row)
{
    sat_timeline *t = (sat_timeline *)ctx;
    switch (table) {
    case SAT_TABLE_LDAP_OP: return on_op(t, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN: return on_conn(t, (const sat_ldap_conn *)row);
    case SAT_TABLE_SOURCE: return on_source(t, (const sat_source *)row);
    case SAT_TABLE_CRASH: return on_crash(t, (const sat_crash *)row);
    case SAT_TABLE_HTTP_REQ: return on_http(t, (const sat_http_req *)row);
    default: return SAT_OK;
    }
}

sat_event_sink sat_timeline_sink(sat_timeline *t)
{
    sat_event_sink k = {t,
                        SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                            SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ),
                        on_row};
    return k;
}

/* ---- lifecycle -------------------------------------------------------------------- */
sat_timeline *sat_timeline_create(const sat_timeline_opts *opts)
{
    sat_timeline *t = (sat_timeline *)calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->max_windows = opts && opts->max_windows ? opts->max_windows : SAT_TL_WINDOWS_MAX;
    sat_rec_init(&tl_tot_desc, &t->t);
    /* the MAX fields' "none" is 0 here, as in the windows (timeline_int.h) */
    memset(t->t.et_max, 0, sizeof t->t.et_max);
    memset(t->t.et_min_inv, 0, sizeof t->t.et_min_inv);
    t->t.req_et_max = t->t.req_et_min_inv = 0;
    sat_strtab_init(&t->win, sizeof(tl_win), 0);
    sat_strtab_init(&t->hrs, sizeof(tl_win), 0);
    sat_strtab_init(&t->cores, sizeof(tl_core), 0);
    t->step = ladder[0];
    t->hstep = hladder[0];
    return t;
}

void sat_timeline_free(sat_timeline *t)
{
    if (!t)
        return;
    sat_strtab_free(&t->win);
    sat_strtab_free(&t->hrs);
    sat_strtab_free(&t->cores);
    for (size_t i = 0; i < t->nsrc; i++) {
        free(t->src[i].path);
        free(t->src[i].kind);
        free(t->src[i].format);
    }
    free(t->src);
    free(t);
}

/* from's windows (at from_step, a rung at or below *step) into tab. */
static int merge_series(sat_strtab *tab, int64_t *step, const sat_strtab *from, int64_t from_step)
{
    int64_t f = *step / from_step;
    for (size_t i = 0; i < from->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(from, i), sizeof k);
        k = sat_win_index(k, f);
        void *w = sat_strtab_upsert(tab, &k, sizeof k, NULL, NULL);
        if (!w)
            return SAT_E_NOMEM;
        add_win(w, sat_strtab_val(from, i));
    }
    return SAT_OK;
}

/* Both parts to the wider rung of the two, then to the merged span's. */
static int merge_one(sat_strtab *tab, int64_t *step, const sat_strtab *from, int64_t from_step)
{
    if (*step < from_step &&
        sat_win_widen(tab, step, from_step / *step, sizeof(tl_win), add_win) < 0)
        return SAT_E_NOMEM;
    return merge_series(tab, step, from, from_step);
}

int sat_timeline_merge(sat_timeline *into, const sat_timeline *from)
{
    if (!into || !from || into == from)
        return SAT_E_USAGE;
    (void)sat_rec_merge(&tl_tot_desc, &into->t, &from->t); /* no sketch: cannot fail */
    if (!into->nomem && (merge_one(&into->win, &into->step, &from->win, from->step) < 0 ||
                         merge_one(&into->hrs, &into->hstep, &from->hrs, from->hstep) < 0))
        into->nomem = 1;
    for (size_t i = 0; i < from->cores.n && !into->nomem; i++) {
        void *k = sat_strtab_upsert(&into->cores, sat_strtab_key(&from->cores, i),
                                    sat_strtab_len(&from->cores, i), NULL, NULL);
        if (!k)
            into->nomem = 1;
        else
            (void)sat_rec_merge(&tl_core_desc, k, sat_strtab_val(&from->cores, i));
    }
    for (size_t i = 0; i < from->nsrc; i++)
        if (add_src(into, &from->src[i], 0, NULL) < 0)
            into->nomem = 1;
    into->nomem |= from->nomem;
    if (!into->nomem)
        fit_all(into);
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

int sat_timeline_finish(sat_timeline *t)
{
    if (!t)
        return SAT_E_USAGE;
    if (!t->nomem)
        fit_all(t);
    return t->nomem ? SAT_E_NOMEM : SAT_OK;
}
