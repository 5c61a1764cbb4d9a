/*
 * collect_window.c - --from/--to on the rows of logs and captures, as a sink
 * between the producer and the caller's sink. On logs the joiner sees every
 * line (a request before the window may be answered inside it) and its rows
 * are kept by their time: an operation by its request time, a connection if
 * it was open at some moment of the window; capture rows alike, by the rules
 * of the trace reader (FORMAT.md "Time range of a block").
 */
#include "collect_run.h"

static int in_window(const window *w, sat_ts_ns ts)
{
    return (!w->from || ts >= w->from) && (!w->to || ts < w->to);
}

/* Whether a row is kept by the window: ldap_op, http_req and tls_hs rows by their time,
 * connections (ldap_conn, tcp_conn) if open at some moment of it. A crash by
 * its time, one of unknown time (0) only when there is no window, as the trace
 * reader does (FORMAT.md "Time range of a block"). Every other row passes:
 * rejects, and frames, which have no time and come before their crash row (a
 * consumer keeps those whose (source, crash) it saw: event.h's join rule). */
static int win_keeps(const window *w, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return in_window(w, ((const sat_ldap_op *)row)->ts_ns);
    case SAT_TABLE_LDAP_CONN: {
        const sat_ldap_conn *c = row;
        sat_ts_ns open = c->open_ts ? c->open_ts : c->close_ts;
        sat_ts_ns close = c->close_ts ? c->close_ts : c->open_ts;
        return !((w->to && open >= w->to) || (w->from && close < w->from));
    }
    case SAT_TABLE_TCP_CONN: {
        const sat_tcp_conn *c = row;
        return !((w->to && c->syn_ts >= w->to) || (w->from && c->end_ts < w->from));
    }
    case SAT_TABLE_TLS_HS:
        return in_window(w, ((const sat_tls_hs *)row)->ts);
    case SAT_TABLE_HTTP_REQ:
        return in_window(w, ((const sat_http_req *)row)->ts);
    case SAT_TABLE_CRASH: {
        const sat_crash *c = row;
        return c->ts ? in_window(w, c->ts) : !w->from && !w->to;
    }
    default:
        return 1;
    }
}

int sat_run_window_row(void *ctx, int table, const void *row)
{
    const window *w = ctx;
    return win_keeps(w, table, row) ? sat_sink_emit(w->inner, table, row) : SAT_OK;
}
