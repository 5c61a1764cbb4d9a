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
 * This file keeps the accumulators (saturation_int.h: each record's counters
 * named once); the result - the points, the fit, where the server runs now,
 * the what-ifs and the TLS capacity - is made from them in
 * saturation_result.c.
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

#include "satscope/fields.h"

#include "saturation_int.h"

static const sat_acc_field win_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, sat_win, n),
    SAT_ACC(SAT_ACC_SUM, sat_win, etime_ns),
    SAT_ACC(SAT_ACC_SUM, sat_win, wtime_ns),
    SAT_ACC(SAT_ACC_SUM, sat_win, optime_ns),
};
static const sat_rec_desc win_desc = {sizeof(sat_win), win_fields,
                                      sizeof win_fields / sizeof win_fields[0], NULL};

#define SEC_FIELD(field, key, title, note) SAT_COUNTER(sat_hs_sec, field, key, title, note),
static const sat_acc_field sec_fields[] = {SAT_SEC_COUNTS(SEC_FIELD)};
#undef SEC_FIELD
const sat_rec_desc sat_sec_desc = {sizeof(sat_hs_sec), sec_fields,
                                   sizeof sec_fields / sizeof sec_fields[0], NULL};

static const sat_acc_field totals_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, sat_totals, n),
    SAT_ACC(SAT_ACC_SUM, sat_totals, wtime_ns),
    SAT_ACC(SAT_ACC_SUM, sat_totals, optime_ns),
    SAT_ACC(SAT_ACC_FIRST, sat_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, sat_totals, last_ts),
};
static const sat_rec_desc totals_desc = {sizeof(sat_totals), totals_fields,
                                         sizeof totals_fields / sizeof totals_fields[0], NULL};

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
    (void)sat_rec_merge(&sat_sec_desc, into, from);
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
        s->t.n.hs_failed_sh++;
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
        s->t.n.skipped++;
        return SAT_OK;
    }
    sat_ts_ns ts = op->result_ts_ns > 0 ? op->result_ts_ns : op->ts_ns;
    if (ts <= 0) {
        s->t.n.skipped++;
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
    s->t.n.ops++;
    w->n.ops++;
    if (et >= 0) {
        s->t.n.timed++;
        w->n.timed++;
        sat_sum_add(&w->etime_ns, et);
    }
    if (op->wtime >= 0) {
        w->n.wt_n++;
        sat_sum_add(&w->wtime_ns, op->wtime);
        s->t.n.wt_n++;
        sat_sum_add(&s->t.wtime_ns, op->wtime);
    }
    if (op->optime >= 0) {
        w->n.ot_n++;
        sat_sum_add(&w->optime_ns, op->optime);
        s->t.n.ot_n++;
        sat_sum_add(&s->t.optime_ns, op->optime);
    }
    return SAT_OK;
}

static int on_http(void *ctx, const sat_http_req *r)
{
    sat_saturation *s = (sat_saturation *)ctx;
    if (r->ts <= 0) {
        s->t.n.skipped++;
        return SAT_OK;
    }
    int has_rt = r->response_time >= 0;
    sat_ts_ns ts = has_rt ? r->ts + r->response_time : r->ts;
    sat_win *w = win_at(s, ts);
    if (!w)
        return SAT_OK;
    sat_acc_first(&s->t.first_ts, ts, NULL, 0);
    sat_acc_last(&s->t.last_ts, ts, NULL, 0);
    s->t.n.ops++;
    s->t.n.http_reqs++;
    w->n.ops++;
    if (has_rt) {
        s->t.n.timed++;
        w->n.timed++;
        sat_sum_add(&w->etime_ns, r->response_time);
    }
    if (r->conn_request == 1 && r->tls_session == SAT_HTTP_SESSION_NEW) {
        w->n.hs_full++;
        s->t.n.hs_full++;
    } else if (r->conn_request == 1 && r->tls_session == SAT_HTTP_SESSION_RESUMED) {
        w->n.hs_resumed++;
        s->t.n.hs_resumed++;
    }
    return SAT_OK;
}

/* An HTTP log whose format has no response time (nginx combined, Apache
 * common): its requests count in X, never in N (fields.h). */
static int on_source(void *ctx, const sat_source *src)
{
    sat_saturation *s = (sat_saturation *)ctx;
    if (src->fields & SAT_FIELDS_HTTP_SOURCE) {
        s->t.n.http_inputs++;
        s->t.n.http_no_rt += !(sat_source_fields(src) & SAT_FIELD_BIT(SAT_FIELD_ETIME));
    }
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_saturation *s = (sat_saturation *)ctx;
    s->t.n.tcp_conns++;
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
        w->n.hs_full++;
        s->t.n.hs_full++;
    } else {
        w->n.hs_resumed++;
        s->t.n.hs_resumed++;
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
    if (SAT_GROW(s->added, s->cap_added, s->nadded + 1) < 0)
        return SAT_E_NOMEM;
    s->added[s->nadded].n = n;
    s->added[s->nadded].x = x;
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
        if (sat_saturation_add_point(into, from->added[i].n, from->added[i].x) == SAT_E_NOMEM)
            into->nomem = 1;
    into->nomem |= from->nomem;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* Nothing to compute: the result is made from the accumulators
 * (saturation_result.c). */
int sat_saturation_finish(sat_saturation *s)
{
    if (!s)
        return SAT_E_USAGE;
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}

void sat_saturation_free(sat_saturation *s)
{
    if (!s)
        return;
    sat_strtab_free(&s->windows);
    sat_strtab_free(&s->hs_secs);
    free(s->added);
    free(s);
}
