/*
 * handshakes_result.c - the sections of the handshakes analyzer's result
 * (satscope/result.h, docs/output.md), from its finished view: the totals
 * and their rates, the cost per handshake, then the tables `versions`,
 * `resumption` and `durations`, the retries, the captures' `tcp`, the --by
 * table `groups` (its key column named after the dimension: client, server
 * or sni) and the time series `windows`. The JSON, CSV and text forms are
 * all made from these. Handshakes read from HTTP access logs are the
 * "logs" object, apart from the captures' (put_logs).
 */
#include <math.h>
#include <stdio.h>

#include "satscope/analyze.h"

/* The columns of a set of handshakes' counts (a window, a group). */
#define HS_COUNT_COLS                                                                      \
    {"connections", SAT_UNIT_COUNT, 0, "conns"}, {"full", SAT_UNIT_COUNT, 0, NULL},       \
        {"resumed", SAT_UNIT_COUNT, 0, NULL}, {"failed", SAT_UNIT_COUNT, 0, NULL},        \
        {"failed_after_server_hello", SAT_UNIT_COUNT, 0, "failed after SH"},              \
        {"incomplete", SAT_UNIT_COUNT, 0, "incompl."},                                    \
        {"resumed_ratio", SAT_UNIT_RATIO, 4, "resumed%"}, {"cpu_s", SAT_UNIT_DURATION, 6, "cpu"}

static const char *version_name(uint16_t v, char *buf, size_t n)
{
    switch (v) {
    case 0: return "(no ServerHello)";
    case 0x0300: return "SSLv3";
    case 0x0301: return "TLS1.0";
    case 0x0302: return "TLS1.1";
    case 0x0303: return "TLS1.2";
    case 0x0304: return "TLS1.3";
    case 0xffff: return "(other)";
    default: break;
    }
    if ((v & 0xff00) == 0x7f00)
        snprintf(buf, n, "TLS1.3-draft%u", v & 0xff);
    else if (v == 0x7e01 || v == 0x7e02)
        snprintf(buf, n, "TLS1.3-experiment(0x%04x)", v);
    else
        snprintf(buf, n, "0x%04x", v);
    return buf;
}

/* resumed / (full + resumed), NAN when neither. */
static double ratio_of(const sat_hs_counts *c)
{
    uint64_t fr = c->n[SAT_TLS_FULL] + c->n[SAT_TLS_RESUMED];
    return fr ? (double)c->n[SAT_TLS_RESUMED] / (double)fr : NAN;
}

static void put_counts(sat_rnode *o, const sat_hs_counts *c)
{
    sat_put_count(o, "connections", c->connections);
    sat_put_count(o, "full", c->n[SAT_TLS_FULL]);
    sat_put_count(o, "resumed", c->n[SAT_TLS_RESUMED]);
    sat_put_count(o, "failed", c->n[SAT_TLS_FAILED]);
    sat_put_count(o, "failed_after_server_hello", c->failed_after_server_hello);
    sat_put_count(o, "incomplete", c->n[SAT_TLS_INCOMPLETE]);
    sat_put_ratio(o, "resumed_ratio", ratio_of(c), 4);
    sat_put_dur(o, "cpu_s", c->cpu_s, 6);
}

static double or_nan(double s) { return s >= 0 ? s : NAN; } /* the view's -1 = none */

static void put_totals(sat_rnode *root, const sat_hs_view *v)
{
    const sat_hs_counts *a = &v->all;
    sat_put_count(root, "connections", a->connections);
    sat_put_count(root, "full", a->n[SAT_TLS_FULL]);
    sat_put_note(root, "certificate / key exchange: the expensive kind");
    sat_put_count(root, "resumed", a->n[SAT_TLS_RESUMED]);
    sat_put_note(root, "session id, ticket or PSK accepted");
    sat_put_count(root, "failed", a->n[SAT_TLS_FAILED]);
    sat_put_note(root, "an alert ended the handshake");
    sat_put_count(root, "failed_after_server_hello", a->failed_after_server_hello);
    sat_put_note(root, "of the failed: the server had answered (costed as full)");
    sat_put_count(root, "incomplete", a->n[SAT_TLS_INCOMPLETE]);
    sat_put_note(root, "ClientHello never answered before the client left");
    sat_put_ratio(root, "resumed_ratio", ratio_of(a), 4);
    sat_put_note(root, "resumed / (full + resumed)");
    sat_put_dur(root, "cpu_s", a->cpu_s, 6);
    sat_put_note(root, "server CPU for these handshakes (estimate)");
    sat_put_time(root, "first_ts", v->first_ts);
    sat_put_time(root, "last_ts", v->first_ts ? v->last_ts : 0);
    sat_put_dur(root, "span_s", v->span_s, 3);
    /* a rate over no time is not known */
    sat_put_rate(root, "rate_per_s", v->span_s > 0 ? v->rate_per_s : NAN, 3);
    sat_put_note(root, "over the span");
    sat_put_rate(root, "peak_rate_per_s", v->nwindows ? v->peak_rate_per_s : NAN, 3);
    sat_put_note(root, "the busiest window's");
    sat_put_time(root, "peak_ts", v->peak_ts);
    sat_rnode *cost = sat_obj(root, "cost_per_handshake");
    sat_set_compact(cost);
    sat_put_dur(cost, "full_s", v->full_cost_us / 1e6, 9);
    sat_put_dur(cost, "resumed_s", v->resumed_cost_us / 1e6, 9);
    sat_put_dur(cost, "psk_s", v->psk_cost_us / 1e6, 9);
}

static void put_versions(sat_rnode *root, const sat_hs_view *v)
{
    static const sat_col cols[] = {{"version", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *t = sat_table(root, "versions", cols, 2);
    for (size_t i = 0; i < v->nversions; i++) {
        char nb[40];
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "version", version_name(v->versions[i].version, nb, sizeof nb));
        sat_put_count(row, "count", v->versions[i].count);
    }
}

static void put_resumption(sat_rnode *root, const sat_hs_view *v)
{
    static const sat_col cols[] = {{"mechanism", SAT_UNIT_TEXT, 0, NULL},
                                   {"offered", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed", SAT_UNIT_COUNT, 0, "accepted"}};
    static const char *const mech[3] = {"session_id", "ticket", "psk"};
    sat_rnode *t = sat_table(root, "resumption", cols, 3);
    for (int m = 0; m < 3; m++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "mechanism", mech[m]);
        sat_put_count(row, "offered", v->offered[m]);
        sat_put_count(row, "resumed", v->resumed_by[m]);
    }
}

static void put_durations(sat_rnode *root, const sat_hs_view *v)
{
    static const sat_col cols[] = {{"outcome", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL},
                                   {"p50_s", SAT_UNIT_DURATION, 6, "p50"},
                                   {"p99_s", SAT_UNIT_DURATION, 6, "p99"}};
    sat_rnode *t = sat_table(root, "durations", cols, 4);
    sat_rnode *row = sat_table_row(t);
    sat_put_text(row, "outcome", "full");
    sat_put_count(row, "count", v->full_measured);
    sat_put_dur(row, "p50_s", or_nan(v->full_p50_s), 6);
    sat_put_dur(row, "p99_s", or_nan(v->full_p99_s), 6);
    row = sat_table_row(t);
    sat_put_text(row, "outcome", "resumed");
    sat_put_count(row, "count", v->resumed_measured);
    sat_put_dur(row, "p50_s", or_nan(v->resumed_p50_s), 6);
    sat_put_dur(row, "p99_s", or_nan(v->resumed_p99_s), 6);
}

static void put_tcp(sat_rnode *root, const sat_hs_view *v)
{
    static const char *const why[SAT_TCP_END__COUNT] = {
        "still open when the capture ended", "the client closed first (FIN)",
        "the server closed first (FIN)", "reset by the client (RST)",
        "reset by the server (RST: refused, or aborted)", "idle past the timeout",
        "evicted at the flow table's capacity"};
    sat_rnode *tcp = sat_obj(root, "tcp");
    sat_put_count(tcp, "connections", v->tcp_conns);
    sat_put_count(tcp, "without_tls", v->tcp_no_tls);
    sat_rnode *end = sat_obj(tcp, "by_end");
    sat_set_compact(end);
    for (int e = 0; e < SAT_TCP_END__COUNT; e++) {
        sat_put_count(end, sat_tcp_end_name(e), v->tcp_by_end[e]);
        sat_put_note(end, why[e]);
    }
    sat_put_count(tcp, "syn_retries", v->tcp_syn_retrans);
    sat_put_note(tcp, "SYNs the clients sent again");
    sat_put_count(tcp, "unanswered", v->tcp_no_synack);
    sat_put_note(tcp, "connection attempts without a SYN/ACK");
    sat_put_dur(tcp, "rtt_p50_s", or_nan(v->tcp_rtt_p50_s), 6);
    sat_put_note(tcp, "SYN to the client's ACK");
    sat_put_dur(tcp, "rtt_p99_s", or_nan(v->tcp_rtt_p99_s), 6);
}

static void put_groups(sat_result *r, sat_rnode *root, const sat_hs_view *v)
{
    static const char *const byname[] = {"none", "client", "server", "sni"};
    const char *dim = byname[v->by];
    sat_put_text(root, "by", dim);
    sat_put_count(root, "groups_total", v->groups_total);
    sat_col cols[] = {{dim, SAT_UNIT_TEXT, 0, v->by == SAT_HS_BY_SNI ? "SNI" : NULL},
                      HS_COUNT_COLS};
    sat_rnode *t = sat_table(root, "groups", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < v->ngroups; i++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, dim, v->groups[i].key);
        put_counts(row, &v->groups[i].c);
    }
    sat_result_set_main(r, t);
}

static void put_windows(sat_result *r, sat_rnode *root, const sat_hs_view *v)
{
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "start"}, HS_COUNT_COLS};
    sat_put_dur(root, "window_s", (double)v->window / 1e9, 3);
    sat_rnode *t = sat_table(root, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, v->window);
    for (size_t i = 0; i < v->nwindows; i++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_time(row, "start_ts", v->windows[i].start_ts);
        put_counts(row, &v->windows[i].c);
    }
    if (v->by == SAT_HS_BY_NONE)
        sat_result_set_main(r, t);
}

static void put_log_field(sat_rnode *t, const sat_hs_log_view *l, int k)
{
    if (!l->fields_without[k])
        return;
    sat_rnode *o = sat_table_row(t);
    sat_put_text(o, "field", sat_field_name(k));
    sat_put_bool(o, "partial", (l->fields_known & SAT_FIELD_BIT(k)) != 0);
    sat_put_count(o, "of_inputs", l->fields_inputs);
    sat_put_count(o, "inputs_without", l->fields_without[k]);
    sat_put_text(o, "why", l->fields_why[k]);
}

/* Handshakes from HTTP access logs: a connection's first request carries its
 * handshake (analyze/handshakes_http.c); absent what the format cannot say. */
static void put_logs(sat_result *r, sat_rnode *root, const sat_hs_view *v)
{
    const sat_hs_log_view *l = &v->logs;
    int flag = (l->fields_known & SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION)) != 0,
        first = (l->fields_known & SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST)) != 0;
    int counted = flag && (first || l->c.connections); /* handshakes from first requests */
    sat_rnode *o = sat_obj(root, "logs");
    sat_put_count(o, "requests", l->requests);
    sat_put_note(o, "HTTP requests in the access logs");
    if (first || l->c.connections)
        sat_put_count(o, "first_requests", l->c.connections);
    else
        sat_put_absent(o, "first_requests", SAT_UNIT_COUNT);
    sat_put_note(o, "each opened a connection: its handshake");
    const sat_hs_counts *c = &l->c;
    if (counted) {
        sat_put_count(o, "full", c->n[SAT_TLS_FULL]);
        sat_put_count(o, "resumed", c->n[SAT_TLS_RESUMED]);
        sat_put_ratio(o, "resumed_ratio", ratio_of(c), 4);
        sat_put_note(o, "resumed / (full + resumed)");
        sat_put_dur(o, "cpu_s", c->cpu_s, 6);
        sat_put_note(o, "server CPU for these handshakes (estimate)");
    } else {
        sat_put_absent(o, "full", SAT_UNIT_COUNT);
        sat_put_absent(o, "resumed", SAT_UNIT_COUNT);
        sat_put_absent(o, "resumed_ratio", SAT_UNIT_RATIO);
        sat_put_absent(o, "cpu_s", SAT_UNIT_DURATION);
    }
    sat_put_count(o, "session_not_logged", l->session_unknown);
    sat_put_note(o, "first requests without a flag (not logged, no TLS)");
    sat_put_count(o, "later_requests", l->later_requests);
    sat_put_note(o, "after the first on their connection: no handshake");
    sat_put_count(o, "requests_without_number", l->no_conn_request);
    sat_put_note(o, "their number on the connection not logged: not handshakes");
    if (flag) {
        sat_put_count(o, "on_new_session", l->on_new);
        sat_put_count(o, "on_resumed_session", l->on_resumed);
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
    sat_put_time(o, "first_ts", l->first_ts);
    sat_put_time(o, "last_ts", l->first_ts ? l->last_ts : 0);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "start"},
                                   {"connections", SAT_UNIT_COUNT, 0, "first requests"},
                                   {"full", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed_ratio", SAT_UNIT_RATIO, 4, "resumed%"},
                                   {"cpu_s", SAT_UNIT_DURATION, 6, "cpu"}};
    sat_put_dur(o, "window_s", (double)l->window / 1e9, 3);
    sat_rnode *t = sat_table(o, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, l->window);
    for (size_t i = 0; i < l->nwindows; i++) {
        sat_rnode *row = sat_table_row(t);
        const sat_hs_counts *wc = &l->windows[i].c;
        sat_put_time(row, "start_ts", l->windows[i].start_ts);
        sat_put_count(row, "connections", wc->connections);
        if (counted) {
            sat_put_count(row, "full", wc->n[SAT_TLS_FULL]);
            sat_put_count(row, "resumed", wc->n[SAT_TLS_RESUMED]);
            sat_put_ratio(row, "resumed_ratio", ratio_of(wc), 4);
            sat_put_dur(row, "cpu_s", wc->cpu_s, 6);
        } else {
            sat_put_absent(row, "full", SAT_UNIT_COUNT);
            sat_put_absent(row, "resumed", SAT_UNIT_COUNT);
            sat_put_absent(row, "resumed_ratio", SAT_UNIT_RATIO);
            sat_put_absent(row, "cpu_s", SAT_UNIT_DURATION);
        }
    }
    static const sat_col ncols[] = {{"field", SAT_UNIT_TEXT, 0, NULL},
                                    {"partial", SAT_UNIT_BOOL, 0, NULL},
                                    {"of_inputs", SAT_UNIT_COUNT, 0, NULL},
                                    {"inputs_without", SAT_UNIT_COUNT, 0, NULL},
                                    {"why", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *nl = sat_table(o, "not_logged", ncols, 5);
    put_log_field(nl, l, SAT_FIELD_TLS_SESSION);
    put_log_field(nl, l, SAT_FIELD_CONN_REQUEST);
    /* logs alone: their series is the one --csv prints */
    if (!v->all.connections && !v->tcp_conns && v->by == SAT_HS_BY_NONE)
        sat_result_set_main(r, t);
}

int sat_hs_result(const sat_hs *h, sat_result *r)
{
    const sat_hs_view *v = sat_hs_get_view(h);
    sat_rnode *root = sat_result_root(r);
    if (!v || !root)
        return SAT_E_NOMEM;
    put_totals(root, v);
    put_versions(root, v);
    put_resumption(root, v);
    put_durations(root, v);
    sat_put_count(root, "retries", v->retries);
    sat_put_dur(root, "retry_gap_mean_s", v->retries ? v->retry_gap_mean_s : NAN, 6);
    sat_put_count(root, "hello_retry_requests", v->hrr);
    sat_put_count(root, "renegotiated", v->renegotiated);
    sat_put_count(root, "ssl2_client_hellos", v->ssl2_hello);
    sat_put_count(root, "started_before_capture", v->late_start);
    put_tcp(root, v);
    if (v->by != SAT_HS_BY_NONE)
        put_groups(r, root, v);
    put_windows(r, root, v);
    if (v->logs.requests || v->logs.fields_inputs)
        put_logs(r, root, v);
    return sat_result_status(r);
}
