/*
 * saturation.c - the saturation analyzer (`satscope saturation`): how
 * close a server runs to the point where more concurrent work stops buying
 * more throughput.
 *
 * Per window (60 s by default) of ldap_op rows: throughput X = operations
 * answered (a RESULT) per second, and concurrency N by Little's law (N = X R:
 * the answered operations' summed etime divided by the window's length; an
 * operation is counted in the window of its RESULT, so one that spans two
 * windows puts all its time in the second: fine at windows much longer than
 * an etime). Mean wtime (waiting in the work queue) vs optime (being served)
 * says whether the latency is queueing or service. tls_hs rows give the
 * handshake mix for the what-if below.
 *
 * HTTP requests (http_req rows of access logs) are operations the same way:
 * each is answered (whatever its status: a 503 of a rate limit is an answer,
 * a cheap one) in the window of its end (start + response time), its
 * response time is its etime, and a connection's first request (conn_request
 * 1) with its TLS session flag logged is a full or resumed handshake. A
 * request without a logged response time counts in X, not in N. HTTP logs
 * have no queue wait: wtime and optime stay not logged.
 *
 * The points (N, X) are fitted with the Universal Scalability Law (usl.c).
 * The sections of the result are built in saturation_result.c.
 *
 * TLS capacity (captures: tcp_conn and tls_hs rows), per second: the
 * connections offered (first SYNs), the attempts turned away (a SYN never
 * answered before the client gave up, SAT_TCPF_SYN_GAVE_UP, or a ClientHello
 * never answered) and the handshakes the server answered (full, resumed, and
 * those that failed after the ServerHello, which cost a full one; in the
 * second of their ServerHello). A second that turned attempts away is
 * "saturated": the server took all it could, so the handshakes it answered
 * then are the rate it sustains at most, set against the rate offered then.
 * Their CPU: the cost model's (full_cost_us each), and the measured bound
 * 1 / sustained rate (what one worker saturated by them spends on each).
 *
 * Bounded memory: windows widen (doubling) past SAT_WINDOWS_MAX, as in
 * analyze/handshakes.c (the per-second TLS series too); measured points are
 * capped at SAT_ADDED_MAX.
 */
#include <math.h>

#include "satscope/analyze.h"
#include "satscope/fields.h"

#include "acc.h"
#include "winseries.h"

#define SAT_WINDOWS_MAX 4096
#define SAT_ADDED_MAX 100000

/* A window of operations; latencies summed in integer ns, so that merged
 * parts give exactly one pass's figures. */
typedef struct sat_win {
    uint64_t ops, timed, wt_n, ot_n, hs_full, hs_resumed;
    int64_t etime_ns, wtime_ns, optime_ns;
} sat_win;
static const sat_acc_field win_fields[] = {
    SAT_ACC_N(SAT_ACC_COUNT, sat_win, ops, 6),
    SAT_ACC_N(SAT_ACC_SUM, sat_win, etime_ns, 3),
};
static const sat_rec_desc win_desc = {sizeof(sat_win), win_fields, 2, NULL};

typedef struct sat_hs_sec { /* a second (or wider, past SAT_WINDOWS_MAX) of a capture */
    uint64_t offered, gave_up, hello_unanswered, full, resumed;
    uint64_t failed_sh; /* failed after the server's ServerHello: answered at full cost */
} sat_hs_sec;
static const sat_acc_field sec_fields[] = {SAT_ACC_N(SAT_ACC_COUNT, sat_hs_sec, offered, 6)};
static const sat_rec_desc sec_desc = {sizeof(sat_hs_sec), sec_fields, 1, NULL};

/* The totals over every row. */
typedef struct sat_totals {
    uint64_t tcp_conns, ops, timed, skipped, wt_n, ot_n, hs_full, hs_resumed;
    uint64_t hs_failed_sh; /* failed after the ServerHello: full cost, no share */
    uint64_t http_reqs;    /* of ops, HTTP requests */
    uint64_t http_inputs, http_no_rt; /* HTTP logs, those that log no response time */
    int64_t wtime_ns, optime_ns;
    sat_ts_ns first_ts, last_ts; /* of the operations */
} sat_totals;
static const sat_acc_field totals_fields[] = {
    SAT_ACC_N(SAT_ACC_COUNT, sat_totals, tcp_conns, 12),
    SAT_ACC_N(SAT_ACC_SUM, sat_totals, wtime_ns, 2),
    SAT_ACC(SAT_ACC_FIRST, sat_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, sat_totals, last_ts),
};
static const sat_rec_desc totals_desc = {sizeof(sat_totals), totals_fields, 4, NULL};

struct sat_saturation {
    sat_saturation_opts opts;
    sat_dur_ns window;
    sat_strtab windows; /* int64 window index -> sat_win */
    sat_dur_ns hs_step;
    sat_strtab hs_secs; /* int64 index at hs_step -> sat_hs_sec */
    sat_totals t;
    double *added;      /* n, x pairs, in the order added */
    size_t nadded, cap_added;
    int nomem;

    sat_saturation_view view;
    sat_saturation_point *vpoints;
    size_t vcap;
    sat_hs_second *vsecs;
};

/* ---- windows -------------------------------------------------------------------------- */
static void add_win_v(void *into, const void *from)
{
    (void)sat_rec_merge(&win_desc, into, from); /* counters only: cannot fail */
}

static sat_win *win_at(sat_saturation *s, sat_ts_ns ts)
{
    sat_win *w = NULL;
    if (!s->nomem && !(w = (sat_win *)sat_win_at(&s->windows, &s->window, ts, SAT_WINDOWS_MAX,
                                                 sizeof(sat_win), add_win_v)))
        s->nomem = 1;
    return w;
}

static void add_sec_v(void *into, const void *from)
{
    (void)sat_rec_merge(&sec_desc, into, from);
}

static sat_hs_sec *sec_at(sat_saturation *s, sat_ts_ns ts)
{
    sat_hs_sec *w = NULL;
    if (ts > 0 && !s->nomem &&
        !(w = (sat_hs_sec *)sat_win_at(&s->hs_secs, &s->hs_step, ts, SAT_WINDOWS_MAX,
                                       sizeof(sat_hs_sec), add_sec_v)))
        s->nomem = 1;
    return w;
}

/* ---- rows ------------------------------------------------------------------------------ */
/* A handshake that failed after the ServerHello: the server had done the
 * expensive part before the alert (the what-if charges it as full). */
static void note_failed_after_sh(sat_saturation *s, const sat_tls_hs *h)
{
    if (h->ts > 0 && h->outcome == SAT_TLS_FAILED && h->server_hello_ts)
        s->t.hs_failed_sh++;
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_saturation *s = (sat_saturation *)ctx;
    /* Internal operations run inside their parent's etime; a persistent
     * search stays open for hours by design; neither is load in flight. */
    int answered = op->result_ts_ns > 0 || op->err != SAT_ABSENT;
    if (op->internal_depth > 0 || (op->flags & (SAT_OPF_PERSISTENT | SAT_OPF_UNFINISHED)) ||
        !answered || op->type == SAT_OP_ABANDON || op->type == SAT_OP_UNBIND ||
        op->type == SAT_OP_AUTOBIND) {
        s->t.skipped++;
        return SAT_OK;
    }
    sat_ts_ns ts = op->result_ts_ns > 0 ? op->result_ts_ns : op->ts_ns;
    if (ts <= 0) {
        s->t.skipped++;
        return SAT_OK;
    }
    sat_dur_ns et = op->etime;
    if (et < 0 && op->result_ts_ns > 0 && op->ts_ns > 0 && op->result_ts_ns >= op->ts_ns)
        et = op->result_ts_ns - op->ts_ns;
    sat_win *w = win_at(s, ts);
    if (!w)
        return SAT_OK;
    sat_acc_first(&s->t.first_ts, ts, NULL, 0);
    sat_acc_last(&s->t.last_ts, ts, NULL, 0);
    s->t.ops++;
    w->ops++;
    if (et >= 0) {
        s->t.timed++;
        w->timed++;
        w->etime_ns += et;
    }
    if (op->wtime >= 0) {
        w->wt_n++;
        w->wtime_ns += op->wtime;
        s->t.wt_n++;
        s->t.wtime_ns += op->wtime;
    }
    if (op->optime >= 0) {
        w->ot_n++;
        w->optime_ns += op->optime;
        s->t.ot_n++;
        s->t.optime_ns += op->optime;
    }
    return SAT_OK;
}

static int on_http(void *ctx, const sat_http_req *r)
{
    sat_saturation *s = (sat_saturation *)ctx;
    if (r->ts <= 0) {
        s->t.skipped++;
        return SAT_OK;
    }
    int has_rt = r->response_time >= 0;
    sat_ts_ns ts = has_rt ? r->ts + r->response_time : r->ts;
    sat_win *w = win_at(s, ts);
    if (!w)
        return SAT_OK;
    sat_acc_first(&s->t.first_ts, ts, NULL, 0);
    sat_acc_last(&s->t.last_ts, ts, NULL, 0);
    s->t.ops++;
    s->t.http_reqs++;
    w->ops++;
    if (has_rt) {
        s->t.timed++;
        w->timed++;
        w->etime_ns += r->response_time;
    }
    if (r->conn_request == 1 && r->tls_session == SAT_HTTP_SESSION_NEW) {
        w->hs_full++;
        s->t.hs_full++;
    } else if (r->conn_request == 1 && r->tls_session == SAT_HTTP_SESSION_RESUMED) {
        w->hs_resumed++;
        s->t.hs_resumed++;
    }
    return SAT_OK;
}

/* An HTTP log whose format has no response time (nginx combined, Apache
 * common): its requests count in X, never in N (fields.h). */
static int on_source(void *ctx, const sat_source *src)
{
    sat_saturation *s = (sat_saturation *)ctx;
    if (src->fields & SAT_FIELDS_HTTP_SOURCE) {
        s->t.http_inputs++;
        s->t.http_no_rt += !(sat_source_fields(src) & SAT_FIELD_BIT(SAT_FIELD_ETIME));
    }
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_saturation *s = (sat_saturation *)ctx;
    s->t.tcp_conns++;
    if (c->flags & SAT_TCPF_NO_SYN)
        return SAT_OK; /* opened before the capture: not offered in it */
    sat_hs_sec *w = sec_at(s, c->syn_ts);
    if (w) {
        w->offered++;
        w->gave_up += (c->flags & SAT_TCPF_SYN_GAVE_UP) != 0;
    }
    return SAT_OK;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    note_failed_after_sh((sat_saturation *)ctx, h);
    sat_saturation *s = (sat_saturation *)ctx;
    if (h->ts > 0) { /* answered is answered, whether the ClientHello was seen whole or not */
        /* a handshake that failed after the ServerHello was answered too: the
         * server signed and sent its certificate before the client gave up */
        int answered = h->outcome == SAT_TLS_FULL || h->outcome == SAT_TLS_RESUMED ||
                       (h->outcome == SAT_TLS_FAILED && h->server_hello_ts > 0);
        sat_hs_sec *sw = sec_at(s, answered && h->server_hello_ts > 0 ? h->server_hello_ts : h->ts);
        if (sw) {
            sw->full += h->outcome == SAT_TLS_FULL;
            sw->resumed += h->outcome == SAT_TLS_RESUMED;
            sw->failed_sh += h->outcome == SAT_TLS_FAILED && h->server_hello_ts > 0;
            sw->hello_unanswered += h->outcome == SAT_TLS_INCOMPLETE;
        }
    }
    if (h->ts <= 0 || (h->outcome != SAT_TLS_FULL && h->outcome != SAT_TLS_RESUMED))
        return SAT_OK;
    sat_win *w = win_at(s, h->ts);
    if (!w)
        return SAT_OK;
    if (h->outcome == SAT_TLS_FULL) {
        w->hs_full++;
        s->t.hs_full++;
    } else {
        w->hs_resumed++;
        s->t.hs_resumed++;
    }
    return SAT_OK;
}

/* ---- lifecycle ------------------------------------------------------------------------- */
sat_saturation *sat_saturation_create(const sat_saturation_opts *opts)
{
    sat_saturation *s = (sat_saturation *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opts)
        s->opts = *opts;
    if (s->opts.window <= 0)
        s->opts.window = 60 * (sat_dur_ns)1000000000;
    if (!s->opts.min_ops)
        s->opts.min_ops = 10;
    if (s->opts.full_cost_us <= 0)
        s->opts.full_cost_us = SAT_HS_FULL_COST_US_DEFAULT;
    if (s->opts.resumed_cost_us <= 0)
        s->opts.resumed_cost_us = SAT_HS_RESUMED_COST_US_DEFAULT;
    if (!(s->opts.resumed_share >= 0 && s->opts.resumed_share <= 1))
        s->opts.resumed_share = 0;
    s->window = s->opts.window;
    sat_rec_init(&totals_desc, &s->t);
    sat_strtab_init(&s->windows, sizeof(sat_win), 0);
    s->hs_step = 1000000000LL;
    sat_strtab_init(&s->hs_secs, sizeof(sat_hs_sec), 0);
    return s;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    case SAT_TABLE_HTTP_REQ:
        return on_http(ctx, (const sat_http_req *)row);
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_saturation_sink(sat_saturation *s)
{
    sat_event_sink k = {s,
                        SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_TLS_HS) |
                            SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) | SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ) |
                            SAT_TABLE_BIT(SAT_TABLE_SOURCE),
                        on_row};
    return k;
}

int sat_saturation_add_point(sat_saturation *s, double n, double x)
{
    if (!s || !isfinite(n) || !isfinite(x) || n <= 0 || x < 0)
        return SAT_E_USAGE;
    if (s->nadded >= SAT_ADDED_MAX)
        return SAT_E_LIMIT;
    if (s->nadded == s->cap_added) {
        size_t nc = s->cap_added ? s->cap_added * 2 : 64;
        double *np = (double *)realloc(s->added, nc * 2 * sizeof *np);
        if (!np)
            return SAT_E_NOMEM;
        s->added = np;
        s->cap_added = nc;
    }
    s->added[2 * s->nadded] = n;
    s->added[2 * s->nadded + 1] = x;
    s->nadded++;
    return SAT_OK;
}

/* A walk over the accumulators; the measured points of from follow into's. */
int sat_saturation_merge(sat_saturation *into, const sat_saturation *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    (void)sat_rec_merge(&totals_desc, &into->t, &from->t); /* no sketch: cannot fail */
    if (!into->nomem && (sat_win_merge(&into->windows, &into->window, &from->windows,
                                       from->window, SAT_WINDOWS_MAX, sizeof(sat_win),
                                       add_win_v) < 0 ||
                         sat_win_merge(&into->hs_secs, &into->hs_step, &from->hs_secs,
                                       from->hs_step, SAT_WINDOWS_MAX, sizeof(sat_hs_sec),
                                       add_sec_v) < 0))
        into->nomem = 1;
    for (size_t i = 0; i < from->nadded; i++)
        if (sat_saturation_add_point(into, from->added[2 * i], from->added[2 * i + 1]) ==
            SAT_E_NOMEM)
            into->nomem = 1;
    into->nomem |= from->nomem;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The capture's seconds, dense from the first to the last (gaps read as
 * zeros), each marked saturated or not. */
static int finish_seconds(sat_saturation *s, sat_hs_capacity *c)
{
    free(s->vsecs);
    s->vsecs = NULL;
    if (!s->hs_secs.n)
        return SAT_OK;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < s->hs_secs.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->hs_secs, i), sizeof k);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    size_t n = (size_t)(hi - lo + 1);
    sat_hs_second *sec = (sat_hs_second *)calloc(n, sizeof *sec);
    if (!sec)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        sec[i].start_ts = (lo + (int64_t)i) * s->hs_step;
    for (size_t i = 0; i < s->hs_secs.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->hs_secs, i), sizeof k);
        const sat_hs_sec *w = (const sat_hs_sec *)sat_strtab_val(&s->hs_secs, i);
        sat_hs_second *o = &sec[k - lo];
        o->offered = w->offered;
        o->gave_up = w->gave_up;
        o->hello_unanswered = w->hello_unanswered;
        o->full = w->full;
        o->resumed = w->resumed;
        o->failed_after_server_hello = w->failed_sh;
        o->saturated = w->gave_up || w->hello_unanswered;
    }
    s->vsecs = sec;
    c->seconds = sec;
    c->nseconds = n;
    return SAT_OK;
}

/* The TLS capacity of a capture (see the opening comment). */
static int finish_capacity(sat_saturation *s, sat_hs_capacity *c)
{
    memset(c, 0, sizeof *c);
    c->tcp_conns = s->t.tcp_conns;
    c->step = s->hs_step;
    c->offered_rate = c->sustained_rate = c->sustained_full_rate = c->peak_rate = NAN;
    c->cpu_model = c->cost_bound_s = NAN;
    /* full counts the failures after a ServerHello: they cost what a full one does */
    uint64_t sat_off = 0, sat_full = 0, sat_res = 0, peak = 0;
    for (size_t i = 0; i < s->hs_secs.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->hs_secs, i), sizeof k);
        const sat_hs_sec *w = (const sat_hs_sec *)sat_strtab_val(&s->hs_secs, i);
        sat_ts_ns t = k * s->hs_step;
        c->offered += w->offered;
        c->gave_up += w->gave_up;
        c->hello_unanswered += w->hello_unanswered;
        c->full += w->full;
        c->resumed += w->resumed;
        c->failed_after_server_hello += w->failed_sh;
        uint64_t answered = w->full + w->resumed + w->failed_sh;
        if (answered > peak || (answered == peak && peak && t < c->peak_ts)) {
            peak = answered;
            c->peak_ts = t;
        }
        if (!w->gave_up && !w->hello_unanswered)
            continue;
        c->saturated++;
        sat_off += w->offered;
        sat_full += w->full + w->failed_sh;
        sat_res += w->resumed;
        if (!c->saturated_first_ts || t < c->saturated_first_ts)
            c->saturated_first_ts = t;
        if (t + s->hs_step > c->saturated_end_ts)
            c->saturated_end_ts = t + s->hs_step;
    }
    double step_s = (double)s->hs_step / 1e9;
    if (peak)
        c->peak_rate = (double)peak / step_s;
    if (finish_seconds(s, c) < 0)
        return SAT_E_NOMEM;
    if (!c->saturated)
        return SAT_OK;
    double len = (double)c->saturated * step_s;
    c->offered_rate = (double)sat_off / len;
    c->sustained_rate = (double)(sat_full + sat_res) / len;
    c->sustained_full_rate = (double)sat_full / len;
    /* CPU seconds a second by the cost model, and the bound the rate itself
     * sets: a server that could answer no more spent 1/rate on each */
    c->cpu_model = ((double)sat_full * s->opts.full_cost_us +
                    (double)sat_res * s->opts.resumed_cost_us) / 1e6 / len;
    if (sat_full + sat_res)
        c->cost_bound_s = 1.0 / c->sustained_rate;
    return SAT_OK;
}

int sat_saturation_finish(sat_saturation *s)
{
    if (!s)
        return SAT_E_USAGE;
    sat_saturation_view *v = &s->view;
    memset(v, 0, sizeof *v);
    /* windows in time order (only those with answered operations or
     * handshakes exist in the table), then the added points */
    size_t nw = s->windows.n, np = nw + s->nadded;
    if (np > s->vcap) {
        sat_saturation_point *p =
            (sat_saturation_point *)realloc(s->vpoints, np * sizeof *p);
        if (!p)
            return SAT_E_NOMEM;
        s->vpoints = p;
        s->vcap = np;
    }
    sat_saturation_point *pt = s->vpoints;
    double ws = (double)s->window / 1e9;
    for (size_t i = 0; i < nw; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->windows, i), sizeof k);
        const sat_win *w = (const sat_win *)sat_strtab_val(&s->windows, i);
        sat_saturation_point *p = &pt[i];
        memset(p, 0, sizeof *p);
        p->start_ts = k * s->window;
        p->ops = w->ops;
        /* the first and last windows are partly outside the input: their
         * rates are taken over the part inside (a full-window divisor would
         * read them low), and they are fitted only if that is at least half */
        sat_ts_ns lo = p->start_ts > s->t.first_ts ? p->start_ts : s->t.first_ts;
        sat_ts_ns hi = p->start_ts + s->window < s->t.last_ts ? p->start_ts + s->window
                                                            : s->t.last_ts;
        p->length_s = hi - lo >= s->window / 2 ? (double)(hi - lo) / 1e9 : ws;
        p->used = hi - lo >= s->window / 2;
        p->x = (double)w->ops / p->length_s;
        /* operations without a latency are taken at the window's mean one */
        p->n = w->timed ? (double)w->etime_ns / 1e9 * ((double)w->ops / (double)w->timed) / p->length_s : NAN;
        p->wtime_mean_s = w->wt_n ? (double)w->wtime_ns / 1e9 / (double)w->wt_n : NAN;
        p->optime_mean_s = w->ot_n ? (double)w->optime_ns / 1e9 / (double)w->ot_n : NAN;
        p->hs_full = w->hs_full;
        p->hs_resumed = w->hs_resumed;
    }
    /* sort the windows by start (the table is in first-seen order) */
    for (size_t i = 1; i < nw; i++) {
        sat_saturation_point t = pt[i];
        size_t j = i;
        while (j > 0 && pt[j - 1].start_ts > t.start_ts) {
            pt[j] = pt[j - 1];
            j--;
        }
        pt[j] = t;
    }
    for (size_t i = 0; i < nw; i++)
        pt[i].used = pt[i].used && pt[i].ops >= s->opts.min_ops && isfinite(pt[i].n) &&
                     pt[i].n > 0;
    for (size_t i = 0; i < s->nadded; i++) {
        sat_saturation_point *p = &pt[nw + i];
        memset(p, 0, sizeof *p);
        p->n = s->added[2 * i];
        p->x = s->added[2 * i + 1];
        p->wtime_mean_s = p->optime_mean_s = NAN;
        p->used = 1;
    }
    v->points = pt;
    v->npoints = np;
    v->window = nw ? s->window : 0;
    v->min_ops = s->opts.min_ops;
    v->first_ts = s->t.first_ts;
    v->last_ts = s->t.last_ts;
    v->ops = s->t.ops;
    v->timed = s->t.timed;
    v->skipped = s->t.skipped;
    v->http_reqs = s->t.http_reqs;
    v->http_inputs = s->t.http_inputs;
    v->http_no_rt = s->t.http_no_rt;
    v->added = s->nadded;
    v->wtime_mean_s = s->t.wt_n ? (double)s->t.wtime_ns / 1e9 / (double)s->t.wt_n : NAN;
    v->optime_mean_s = s->t.ot_n ? (double)s->t.optime_ns / 1e9 / (double)s->t.ot_n : NAN;
    v->n_now = v->x_now = v->n_p95 = NAN;
    for (size_t i = nw; i-- > 0;)
        if (pt[i].used) {
            v->n_now = pt[i].n;
            v->x_now = pt[i].x;
            break;
        }

    /* the fit, over the used points: their n (first half) and x (second
     * half) in one scratch array, freed below */
    double *nx = (double *)malloc((np ? np : 1) * 2 * sizeof *nx);
    if (!nx)
        return SAT_E_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < np; i++)
        if (pt[i].used) {
            nx[m] = pt[i].n;
            nx[np + m] = pt[i].x;
            m++;
        }
    sat_usl_fit_points(nx, nx + np, m, &v->usl);
    /* where the server ran: the windows' N only (not measured points) */
    size_t mw = 0;
    for (size_t i = 0; i < nw; i++)
        if (pt[i].used)
            nx[mw++] = pt[i].n;
    if (mw) {
        qsort(nx, mw, sizeof *nx, cmp_double);
        size_t r = (size_t)ceil(0.95 * (double)mw);
        v->n_p95 = nx[(r ? r : 1) - 1];
    }
    free(nx);

    /* what-if: K times the CPUs. The usual assumption: lambda (the rate of
     * one operation in flight) scales with the CPUs while sigma and kappa
     * stay, so N* stays and X_max scales by K: optimistic, since contention
     * and coherency costs tend to grow with the cores. */
    const sat_usl_fit *u = &v->usl;
    double xm = isfinite(u->x_max) ? u->x_max : u->x_ceiling;
    v->cpus = v->cpus_lambda = v->cpus_x_max = NAN;
    if (s->opts.cpus > 0 && u->ok) {
        v->cpus = s->opts.cpus;
        v->cpus_lambda = u->lambda * s->opts.cpus;
        v->cpus_x_max = isfinite(xm) ? xm * s->opts.cpus : NAN;
    }
    /* what-if: another handshake mix. Each answered operation carries
     * hs_per_op handshakes costing full/resumed CPU; changing the resumed
     * share changes the service time of one operation, 1/lambda, by the
     * difference (first order: handshake CPU serialised with the operation's
     * own work), and X_max by the same ratio as lambda. A handshake that
     * failed after the ServerHello costs a full one and is among hs_per_op,
     * but not in the share: whatever the share, it stays a full one (a
     * client that rejects the certificate does not come back resumed). */
    v->hs_full = s->t.hs_full;
    v->hs_resumed = s->t.hs_resumed;
    v->hs_failed_after_server_hello = s->t.hs_failed_sh;
    v->full_cost_us = s->opts.full_cost_us;
    v->resumed_cost_us = s->opts.resumed_cost_us;
    v->hs_per_op = v->resumed_share = v->whatif_share = v->whatif_lambda = v->whatif_x_max =
        NAN;
    uint64_t hs = s->t.hs_full + s->t.hs_resumed;
    if (hs) {
        v->resumed_share = (double)s->t.hs_resumed / (double)hs;
        v->whatif_share = s->opts.resumed_share;
    }
    if (hs && s->t.ops && u->ok) {
        v->hs_per_op = (double)(hs + s->t.hs_failed_sh) / (double)s->t.ops;
        double done_per_op = (double)hs / (double)s->t.ops;
        double failed_per_op = (double)s->t.hs_failed_sh / (double)s->t.ops;
        double cf = s->opts.full_cost_us / 1e6, cr = s->opts.resumed_cost_us / 1e6;
        double now = done_per_op * ((1 - v->resumed_share) * cf + v->resumed_share * cr) +
                     failed_per_op * cf;
        double then = done_per_op * ((1 - v->whatif_share) * cf + v->whatif_share * cr) +
                      failed_per_op * cf;
        double service = 1.0 / u->lambda + then - now;
        if (service > 0) {
            v->whatif_lambda = 1.0 / service;
            v->whatif_x_max = isfinite(xm) ? xm * v->whatif_lambda / u->lambda : NAN;
        }
    }
    if (finish_capacity(s, &v->capacity) < 0)
        return SAT_E_NOMEM;
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_saturation_view *sat_saturation_get_view(const sat_saturation *s)
{
    return s ? &s->view : NULL;
}

void sat_saturation_free(sat_saturation *s)
{
    if (!s)
        return;
    sat_strtab_free(&s->windows);
    sat_strtab_free(&s->hs_secs);
    free(s->added);
    free(s->vpoints);
    free(s->vsecs);
    free(s);
}
