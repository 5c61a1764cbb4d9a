/*
 * handshakes_http.c - the handshakes an HTTP access log tells of (http_req
 * rows, event.h), for the handshakes analyzer (sat_hs_log_view).
 *
 * The rule: a TLS session's resumption is a property of the connection that
 * the servers repeat on each of its requests (nginx $ssl_session_reused "r"
 * or ".", Apache %{SSL_SESSION_RESUMED}x "Resumed" or "Initial"), and the
 * handshake happened before the connection's first request. So a request
 * numbered 1 on its connection (conn_request: $connection_requests, Apache
 * %k + 1) counts one handshake, full or resumed as flagged; its later
 * requests count none. Without the request number the log cannot say which
 * requests opened a connection: those requests are counted per request
 * (on a new session, on a resumed one), never as handshakes, and the result
 * says so. Apache's %k is 0 on a request that ends its keepalive connection
 * with an error (fixtures/http-apache: the 503 after a first request), so
 * such a log shows more first requests than there were connections.
 *
 * A first request's TLS 1.3 resumption is costed as a PSK one (its
 * tls_protocol "TLSv1.3"), as a capture's would be. Counts are records
 * (acc.h) and the series a winseries: parts merge exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "handshakes_int.h"

typedef struct hs_log_totals {
    sat_hs_counts c;
    sat_ts_ns first_ts, last_ts;
    /* one run of counters: */
    uint64_t requests, session_unknown, later_requests, no_conn_request, on_new, on_resumed;
} hs_log_totals;

static const sat_acc_field totals_fields[] = {
    SAT_ACC_N(SAT_ACC_COUNT, hs_log_totals, c.n, SAT_HS_NOUT + 3),
    SAT_ACC(SAT_ACC_FIRST, hs_log_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, hs_log_totals, last_ts),
    SAT_ACC_N(SAT_ACC_COUNT, hs_log_totals, requests, 6),
};
static const sat_rec_desc totals_desc = {sizeof(hs_log_totals), totals_fields,
                                         sizeof totals_fields / sizeof totals_fields[0], NULL};
_Static_assert(offsetof(hs_log_totals, on_resumed) ==
                   offsetof(hs_log_totals, requests) + 5 * sizeof(uint64_t),
               "the counters of hs_log_totals are one run");

struct hs_log {
    hs_log_totals t;
    sat_strtab windows; /* window index -> sat_hs_counts */
    sat_dur_ns window;
    sat_fields_seen fields; /* of the HTTP inputs */
};

hs_log *hs_log_create(sat_dur_ns window)
{
    hs_log *l = (hs_log *)calloc(1, sizeof *l);
    if (!l)
        return NULL;
    sat_rec_init(&totals_desc, &l->t);
    sat_strtab_init(&l->windows, sizeof(sat_hs_counts), 0);
    l->window = window;
    return l;
}

void hs_log_free(hs_log *l)
{
    if (!l)
        return;
    sat_strtab_free(&l->windows);
    free(l);
}

void hs_log_source(hs_log *l, const sat_source *s)
{
    if (s->fields & SAT_FIELDS_HTTP_SOURCE)
        sat_fields_see(&l->fields, s);
}

static void add_counts(void *into, const void *from)
{
    (void)sat_rec_merge(&hs_counts_desc, into, from); /* counters only: cannot fail */
}

static int is_tls13(sat_str p)
{
    return p.ptr && p.len == 7 && memcmp(p.ptr, "TLSv1.3", 7) == 0;
}

static void count(sat_hs_counts *c, const sat_http_req *r)
{
    c->connections++;
    if (r->tls_session == SAT_HTTP_SESSION_NEW)
        c->n[SAT_TLS_FULL]++;
    else if (r->tls_session == SAT_HTTP_SESSION_RESUMED) {
        c->n[SAT_TLS_RESUMED]++;
        c->resumed_psk += is_tls13(r->tls_protocol);
    }
}

int hs_log_row(hs_log *l, const sat_http_req *r)
{
    hs_log_totals *t = &l->t;
    t->requests++;
    if (r->ts > 0) { /* the span of the requests read */
        sat_acc_first(&t->first_ts, r->ts, NULL, 0);
        sat_acc_last(&t->last_ts, r->ts, NULL, 0);
    }
    if (r->conn_request < 0) { /* not logged: which request opened it is unknown */
        t->no_conn_request++;
        t->on_new += r->tls_session == SAT_HTTP_SESSION_NEW;
        t->on_resumed += r->tls_session == SAT_HTTP_SESSION_RESUMED;
        return SAT_OK;
    }
    if (r->conn_request != 1) {
        t->later_requests++;
        return SAT_OK;
    }
    count(&t->c, r);
    t->session_unknown += r->tls_session == SAT_HTTP_SESSION_UNKNOWN;
    if (r->ts > 0) {
        sat_hs_counts *w = (sat_hs_counts *)sat_win_at(&l->windows, &l->window, r->ts,
                                                       HS_WINDOWS_MAX, sizeof(sat_hs_counts),
                                                       add_counts);
        if (!w)
            return SAT_E_NOMEM;
        count(w, r);
    }
    return SAT_OK;
}

int hs_log_merge(hs_log *into, const hs_log *from)
{
    sat_fields_merge(&into->fields, &from->fields);
    if (sat_rec_merge(&totals_desc, &into->t, &from->t) < 0)
        return SAT_E_NOMEM;
    return sat_win_merge(&into->windows, &into->window, &from->windows, from->window,
                         HS_WINDOWS_MAX, sizeof(sat_hs_counts), add_counts);
}

int hs_log_view(const hs_log *l, const sat_hs_opts *o, sat_arena *a, sat_hs_log_view *v)
{
    memset(v, 0, sizeof *v);
    const hs_log_totals *t = &l->t;
    v->requests = t->requests;
    v->c = t->c;
    v->c.cpu_s = hs_cpu_s(o, &t->c);
    v->session_unknown = t->session_unknown;
    v->later_requests = t->later_requests;
    v->no_conn_request = t->no_conn_request;
    v->on_new = t->on_new;
    v->on_resumed = t->on_resumed;
    v->first_ts = t->first_ts;
    v->last_ts = t->last_ts;
    v->window = l->window;
    v->fields_known = sat_fields_known(&l->fields);
    v->fields_inputs = l->fields.inputs;
    memcpy(v->fields_without, l->fields.without, sizeof v->fields_without);
    memcpy(v->fields_why, l->fields.why, sizeof v->fields_why);
    if (!l->windows.n)
        return SAT_OK;
    /* dense from the first window to the last (gaps read as zeros), or
     * only the windows seen when they are far apart */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < l->windows.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&l->windows, i), sizeof k);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    uint64_t span = (uint64_t)(hi - lo) + 1;
    int dense = span <= 4u * HS_WINDOWS_MAX;
    size_t n = dense ? (size_t)span : l->windows.n;
    sat_hs_window *w = (sat_hs_window *)sat_arena_alloc(a, n * sizeof *w);
    if (!w)
        return SAT_E_NOMEM;
    memset(w, 0, n * sizeof *w);
    if (dense) {
        for (size_t i = 0; i < n; i++)
            w[i].start_ts = (lo + (int64_t)i) * l->window;
        for (size_t i = 0; i < l->windows.n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&l->windows, i), sizeof k);
            w[k - lo].c = *(const sat_hs_counts *)sat_strtab_val(&l->windows, i);
        }
    } else {
        /* key order is arrival order: sort by start */
        for (size_t i = 0; i < n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&l->windows, i), sizeof k);
            w[i].start_ts = k * l->window;
            w[i].c = *(const sat_hs_counts *)sat_strtab_val(&l->windows, i);
        }
        for (size_t i = 1; i < n; i++) /* insertion sort: bounded by HS_WINDOWS_MAX */
            for (size_t j = i; j > 0 && w[j - 1].start_ts > w[j].start_ts; j--) {
                sat_hs_window tmp = w[j];
                w[j] = w[j - 1];
                w[j - 1] = tmp;
            }
    }
    for (size_t i = 0; i < n; i++)
        w[i].c.cpu_s = hs_cpu_s(o, &w[i].c);
    v->windows = w;
    v->nwindows = n;
    return SAT_OK;
}
