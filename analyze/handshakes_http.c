/*
 * handshakes_http.c - the handshakes an HTTP access log tells of (http_req
 * rows, event.h), for the handshakes analyzer: the "logs" object of its
 * result (hs_log_result).
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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "handshakes_int.h"
#include "state_fields.h"
#include "state_keys.h"

/* What the logs' requests are counted into besides the first requests'
 * handshakes (a run of counters, merged as one). */
typedef struct hs_log_counts {
    uint64_t requests, session_unknown, later_requests, no_conn_request, on_new, on_resumed;
} hs_log_counts;

typedef struct hs_log_totals {
    hs_counts c;
    sat_ts_ns first_ts, last_ts;
    hs_log_counts n;
} hs_log_totals;

static const sat_acc_field totals_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_log_totals, c),
    SAT_ACC(SAT_ACC_FIRST, hs_log_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, hs_log_totals, last_ts),
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_log_totals, n),
};
static const sat_rec_desc totals_desc = {sizeof(hs_log_totals), totals_fields,
                                         sizeof totals_fields / sizeof totals_fields[0], NULL};

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
    sat_strtab_init(&l->windows, sizeof(hs_counts), 0);
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

static void count(hs_counts *c, const sat_http_req *r)
{
    c->connections++;
    if (r->tls_session == SAT_HTTP_SESSION_NEW)
        c->full++;
    else if (r->tls_session == SAT_HTTP_SESSION_RESUMED) {
        c->resumed++;
        c->resumed_psk += is_tls13(r->tls_protocol);
    }
}

int hs_log_row(hs_log *l, const sat_http_req *r)
{
    hs_log_totals *t = &l->t;
    t->n.requests++;
    if (r->ts > 0) { /* the span of the requests read */
        sat_acc_first(&t->first_ts, r->ts, NULL, 0);
        sat_acc_last(&t->last_ts, r->ts, NULL, 0);
    }
    if (r->conn_request < 0) { /* not logged: which request opened it is unknown */
        t->n.no_conn_request++;
        t->n.on_new += r->tls_session == SAT_HTTP_SESSION_NEW;
        t->n.on_resumed += r->tls_session == SAT_HTTP_SESSION_RESUMED;
        return SAT_OK;
    }
    if (r->conn_request != 1) {
        t->n.later_requests++;
        return SAT_OK;
    }
    count(&t->c, r);
    t->n.session_unknown += r->tls_session == SAT_HTTP_SESSION_UNKNOWN;
    if (r->ts > 0) {
        hs_counts *w = (hs_counts *)sat_win_at(&l->windows, &l->window, r->ts, HS_WINDOWS_MAX,
                                               sizeof(hs_counts), add_counts);
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
                         HS_WINDOWS_MAX, sizeof(hs_counts), add_counts);
}

int hs_log_any(const hs_log *l) { return l && (l->t.n.requests || l->fields.inputs); }

/* The windows' indices, dense from the first to the last (gaps read as
 * zeros), or only those seen when they are far apart; sorted. NULL when out
 * of memory; *n set. */
static int64_t *window_keys(const hs_log *l, size_t *n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < l->windows.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&l->windows, i), sizeof k);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    uint64_t span = l->windows.n ? (uint64_t)(hi - lo) + 1 : 0;
    int dense = span <= 4u * HS_WINDOWS_MAX;
    *n = dense ? (size_t)span : l->windows.n;
    int64_t *keys = malloc((*n ? *n : 1) * sizeof *keys);
    if (!keys)
        return NULL;
    for (size_t i = 0; i < *n; i++) {
        if (dense)
            keys[i] = lo + (int64_t)i;
        else
            memcpy(&keys[i], sat_strtab_key(&l->windows, i), sizeof keys[i]);
    }
    if (!dense) /* key order is arrival order: sort by start (bounded by HS_WINDOWS_MAX) */
        for (size_t i = 1; i < *n; i++)
            for (size_t j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
                int64_t tmp = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = tmp;
            }
    return keys;
}

static void put_field(sat_rnode *t, const hs_log *l, int k, uint32_t known)
{
    if (!l->fields.without[k])
        return;
    sat_rnode *o = sat_table_row(t);
    sat_put_text(o, "field", sat_field_name(k));
    sat_put_bool(o, "partial", (known & SAT_FIELD_BIT(k)) != 0);
    sat_put_count(o, "of_inputs", l->fields.inputs);
    sat_put_count(o, "inputs_without", l->fields.without[k]);
    sat_put_text(o, "why", l->fields.why[k]);
}

/* Absent what the format cannot say: the counts of a set of first requests
 * when the logs carry the flag, else only how many. */
static void put_counts(sat_rnode *o, const hs_counts *c, const sat_hs_opts *opts, int counted)
{
    if (counted) {
        sat_put_count(o, "full", c->full);
        sat_put_count(o, "resumed", c->resumed);
        sat_put_ratio(o, "resumed_ratio",
                      c->full + c->resumed ? (double)c->resumed / (double)(c->full + c->resumed)
                                           : NAN,
                      4);
        sat_put_note(o, "resumed / (full + resumed)");
        sat_put_dur(o, "cpu_s", hs_cpu_s(opts, c), 6);
        sat_put_note(o, "server CPU for these handshakes (estimate)");
    } else {
        sat_put_absent(o, "full", SAT_UNIT_COUNT);
        sat_put_absent(o, "resumed", SAT_UNIT_COUNT);
        sat_put_absent(o, "resumed_ratio", SAT_UNIT_RATIO);
        sat_put_absent(o, "cpu_s", SAT_UNIT_DURATION);
    }
}

int hs_log_result(const hs_log *l, const sat_hs_opts *opts, sat_result *r, sat_rnode *root, int main)
{
    const hs_log_totals *t = &l->t;
    uint32_t known = sat_fields_known(&l->fields);
    int flag = (known & SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION)) != 0,
        first = (known & SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST)) != 0;
    int counted = flag && (first || t->c.connections); /* handshakes from first requests */
    sat_rnode *o = sat_obj(root, "logs");
    sat_put_count(o, "requests", t->n.requests);
    sat_put_note(o, "HTTP requests in the access logs");
    if (first || t->c.connections)
        sat_put_count(o, "first_requests", t->c.connections);
    else
        sat_put_absent(o, "first_requests", SAT_UNIT_COUNT);
    sat_put_note(o, "each opened a connection: its handshake");
    put_counts(o, &t->c, opts, counted);
    sat_put_count(o, "session_not_logged", t->n.session_unknown);
    sat_put_note(o, "first requests without a flag (not logged, no TLS)");
    sat_put_count(o, "later_requests", t->n.later_requests);
    sat_put_note(o, "after the first on their connection: no handshake");
    sat_put_count(o, "requests_without_number", t->n.no_conn_request);
    sat_put_note(o, "their number on the connection not logged: not handshakes");
    if (flag) {
        sat_put_count(o, "on_new_session", t->n.on_new);
        sat_put_count(o, "on_resumed_session", t->n.on_resumed);
    } else {
        sat_put_absent(o, "on_new_session", SAT_UNIT_COUNT);
        sat_put_absent(o, "on_resumed_session", SAT_UNIT_COUNT);
    }
    const char *how =
        !flag ? "Not logged: the log format does not say whether a TLS session was resumed; "
                "a capture of the same period gives it (satscope handshakes CAPTURE.pcap)"
        : !counted
            ? "Counted per request: the log format does not number a connection's requests, so "
              "the requests on new and on resumed sessions are counted, not handshakes; a "
              "capture of the same period counts the handshakes"
            : "Counted from each connection's first request (its number on the connection is 1)";
    sat_put_text(o, "counted", how);
    sat_put_time(o, "first_ts", t->first_ts);
    sat_put_time(o, "last_ts", t->first_ts ? t->last_ts : 0);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "start"},
                                   {"connections", SAT_UNIT_COUNT, 0, "first requests"},
                                   {"full", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed_ratio", SAT_UNIT_RATIO, 4, "resumed%"},
                                   {"cpu_s", SAT_UNIT_DURATION, 6, "cpu"}};
    sat_put_dur(o, "window_s", (double)l->window / 1e9, 3);
    sat_rnode *w = sat_table(o, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(w, l->window);
    size_t n;
    int64_t *keys = window_keys(l, &n);
    if (!keys)
        return SAT_E_NOMEM;
    static const hs_counts none;
    for (size_t i = 0; i < n; i++) {
        const hs_counts *c = (const hs_counts *)sat_strtab_find(&l->windows, &keys[i], sizeof keys[i]);
        sat_rnode *row = sat_table_row(w);
        sat_put_time(row, "start_ts", keys[i] * l->window);
        sat_put_count(row, "connections", c ? c->connections : 0);
        put_counts(row, c ? c : &none, opts, counted);
    }
    free(keys);
    static const sat_col ncols[] = {{"field", SAT_UNIT_TEXT, 0, NULL},
                                    {"partial", SAT_UNIT_BOOL, 0, NULL},
                                    {"of_inputs", SAT_UNIT_COUNT, 0, NULL},
                                    {"inputs_without", SAT_UNIT_COUNT, 0, NULL},
                                    {"why", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *nl = sat_table(o, "not_logged", ncols, 5);
    put_field(nl, l, SAT_FIELD_TLS_SESSION, known);
    put_field(nl, l, SAT_FIELD_CONN_REQUEST, known);
    if (main) /* logs alone: their series is the one --csv prints */
        sat_result_set_main(r, w);
    return sat_result_status(r);
}

/* ---- its state in a partial (handshakes_state.c) ------------------------------------ */

void hs_log_save(const hs_log *l, sat_sw *w)
{
    sat_sw_tag(w, "handshakes.logs");
    sat_sw_recs(w, &totals_desc, &l->t, 1);
    sat_sw_i64(w, l->window);
    sat_sw_strtab(w, &l->windows, &hs_counts_desc);
    sat_sw_fields_seen(w, &l->fields);
}

int hs_log_load(hs_log *l, sat_sr *r)
{
    if (sat_sr_tag(r, "handshakes.logs") != SAT_OK ||
        sat_sr_recs(r, &totals_desc, &l->t, 1) != SAT_OK)
        return r->err;
    sat_dur_ns window = sat_sr_i64(r);
    if (sat_sr_ok(r) && !hs_step_valid(window, l->window))
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: logs' windows of %lld ns where "
                           "%lld ns (or it doubled) are expected", (long long)window,
                           (long long)l->window);
    l->window = window;
    if (sat_sr_strtab(r, &l->windows, &hs_counts_desc) != SAT_OK ||
        sat_sr_win_keys(r, &l->windows, l->window, "handshakes: a logs' window") != SAT_OK)
        return r->err;
    return sat_sr_fields_seen(r, &l->fields);
}
