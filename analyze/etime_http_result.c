/*
 * etime_http_result.c - the etime result's sections of HTTP requests
 * (satscope/result.h, docs/output.md), from the view's http part
 * (sat_etime_http_view): the requests per method ("all", every request,
 * last), the groups of the --by key (path templates by default; the key
 * column named after it: path, status, client, method, start_ts), the
 * request counts, every status by code, the top clients, the series and
 * the fields the HTTP inputs cannot carry. Times in *_s are response times.
 *
 * On input of HTTP logs only these are the result, with the inputs (the
 * directory's sections would all be zero); beside directory logs they are
 * the result's "http" object. etime_result.c decides which.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etime_names.h"
#include "etime_result_int.h"

#define DUR 9
#define FRAC 6

static int hknown(const sat_etime_http_view *h, int field)
{
    return (h->fields_known & SAT_FIELD_BIT(field)) != 0;
}

static const char *key_col(int by)
{
    switch (by) {
    case SAT_ETIME_BY_STATUS: return "status";
    case SAT_ETIME_BY_CLIENT: return "client";
    case SAT_ETIME_BY_METHOD: return "method";
    case SAT_ETIME_BY_MINUTE: return "start_ts";
    default: return "path";
    }
}

static sat_rnode *hrow_table(sat_rnode *parent, const char *name, int by)
{
    const sat_col cols[] = {
        {key_col(by),
         by == SAT_ETIME_BY_STATUS   ? SAT_UNIT_INT
         : by == SAT_ETIME_BY_MINUTE ? SAT_UNIT_TIME
                                     : SAT_UNIT_TEXT,
         0, by == SAT_ETIME_BY_MINUTE ? "minute (UTC)" : NULL},
        {"count", SAT_UNIT_COUNT, 0, "requests"},
        {"errors", SAT_UNIT_COUNT, 0, NULL},
        {"rate_per_s", SAT_UNIT_RATE, FRAC, "rate"},
        {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
        {"p50_s", SAT_UNIT_DURATION, DUR, "p50"},
        {"p90_s", SAT_UNIT_DURATION, DUR, "p90"},
        {"p99_s", SAT_UNIT_DURATION, DUR, "p99"},
        {"p999_s", SAT_UNIT_DURATION, DUR, "p99.9"},
        {"max_s", SAT_UNIT_DURATION, DUR, "max"},
        {"total_s", SAT_UNIT_DURATION, DUR, "total"},
        {"share", SAT_UNIT_RATIO, FRAC, NULL},
        {"upstream_mean_s", SAT_UNIT_DURATION, DUR, "upstream"}};
    return sat_table(parent, name, cols, sizeof cols / sizeof cols[0]);
}

static void put_hrow(sat_rnode *t, int by, const sat_etime_row *r, sat_ts_ns ts)
{
    sat_rnode *o = sat_table_row(t);
    const char *kc = key_col(by);
    if (by == SAT_ETIME_BY_MINUTE) {
        sat_put_time(o, kc, ts);
    } else if (by == SAT_ETIME_BY_STATUS) {
        char *end = NULL;
        long code = r->key ? strtol(r->key, &end, 10) : 0;
        if (end && end != r->key && !*end)
            sat_put_int(o, kc, code);
        else
            sat_put_absent(o, kc, SAT_UNIT_INT); /* "(none)", "(other)" */
    } else {
        sat_put_text(o, kc, r->key);
    }
    sat_put_count(o, "count", r->count);
    sat_put_count(o, "errors", r->errors);
    et_put_row_times(o, r);
    sat_put_dur(o, "upstream_mean_s", r->upstream_mean_s, DUR);
}

static void put_stats(sat_rnode *p, const sat_etime_http_view *h)
{
    uint64_t e4 = 0, e5 = 0;
    for (size_t i = 0; i < h->nstatuses; i++) {
        int32_t c = h->statuses[i].code;
        e4 += c >= 400 && c < 500 ? h->statuses[i].count : 0;
        e5 += c >= 500 ? h->statuses[i].count : 0;
    }
    sat_rnode *o = sat_obj(p, "request_stats");
    sat_put_count(o, "total", h->requests);
    sat_put_count(o, "with_status", h->with_status);
    sat_put_count(o, "without_status", h->status_absent);
    sat_put_count(o, "client_errors", e4);
    sat_put_note(o, "statuses 400-499");
    sat_put_count(o, "server_errors", e5);
    sat_put_note(o, "statuses 500 and above");
    sat_put_count(o, "no_request_line", h->no_request_line);
    sat_put_note(o, "the client sent no request (\"-\": 400, 408)");
    if (h->tls || hknown(h, SAT_FIELD_TLS_SESSION))
        sat_put_count(o, "over_tls", h->tls);
    else /* neither a TLS protocol nor a session flag in the format */
        sat_put_absent(o, "over_tls", SAT_UNIT_COUNT);
    sat_put_note(o, "a TLS protocol or session flag was logged");
    if (hknown(h, SAT_FIELD_CONN_REQUEST) && h->conn_request_rows)
        sat_put_count(o, "first_requests", h->first_requests);
    else
        sat_put_absent(o, "first_requests", SAT_UNIT_COUNT);
    sat_put_note(o, "a connection's first request: connections opened");
    sat_put_bytes(o, "response_bytes", h->bytes);
    sat_put_count(o, "with_bytes", h->bytes_rows);
    sat_put_dur(o, "response_time_mean_s", hknown(h, SAT_FIELD_ETIME) ? h->all.mean_s : NAN,
                DUR);
    sat_put_dur(o, "upstream_mean_s",
                hknown(h, SAT_FIELD_UPSTREAM) ? h->all.upstream_mean_s : NAN, DUR);
}

static void put_statuses(sat_rnode *p, const sat_etime_http_view *h)
{
    static const sat_col cols[] = {{"status", SAT_UNIT_INT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, "requests"},
                                   {"share", SAT_UNIT_RATIO, FRAC, NULL},
                                   {"error", SAT_UNIT_BOOL, 0, NULL},
                                   {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(p, "statuses", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < h->nstatuses; i++) {
        const sat_etime_code_count *s = &h->statuses[i];
        sat_rnode *o = sat_table_row(t);
        if (s->code >= 0)
            sat_put_int(o, "status", s->code);
        else
            sat_put_absent(o, "status", SAT_UNIT_INT); /* past 999 */
        sat_put_count(o, "count", s->count);
        sat_put_ratio(o, "share", h->requests ? (double)s->count / (double)h->requests : NAN,
                      FRAC);
        sat_put_bool(o, "error", s->code >= 400 || s->code < 0);
        sat_put_text(o, "meaning", s->code >= 0 ? sat_http_status_name(s->code)
                                                : "a status past 999");
    }
}

static void put_clients(sat_rnode *p, const sat_etime_http_view *h)
{
    static const sat_col cols[] = {{"client", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, "requests"},
                                   {"total_s", SAT_UNIT_DURATION, DUR, "response time total"}};
    sat_rnode *top = sat_obj(p, "top");
    sat_rnode *t = sat_table(top, "clients", cols, 3);
    for (size_t i = 0; i < h->clients.n; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "client", h->clients.rows[i].key);
        sat_put_count(o, "count", h->clients.rows[i].count);
        sat_put_dur(o, "total_s", h->clients.rows[i].total_s, DUR);
    }
    sat_put_count(top, "clients_distinct", h->clients.unique);
    sat_put_count(top, "clients_folded", h->clients.folded);
}

static void put_windows(sat_rnode *p, const sat_etime_http_view *h)
{
    sat_put_dur(p, "window_s", (double)h->window / 1e9, 0);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "minute (UTC)"},
                                   {"count", SAT_UNIT_COUNT, 0, "requests"},
                                   {"errors", SAT_UNIT_COUNT, 0, NULL},
                                   {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
                                   {"p99_s", SAT_UNIT_DURATION, DUR, "p99"},
                                   {"max_s", SAT_UNIT_DURATION, DUR, "max"}};
    sat_rnode *t = sat_table(p, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, h->window);
    for (size_t i = 0; i < h->nwindows; i++) {
        const sat_etime_minute *m = &h->windows[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_time(o, "start_ts", m->start);
        sat_put_count(o, "count", m->ops);
        sat_put_count(o, "errors", m->errors);
        sat_put_dur(o, "mean_s", m->mean_s, DUR);
        sat_put_dur(o, "p99_s", m->p99_s, DUR);
        sat_put_dur(o, "max_s", m->max_s, DUR);
    }
}

const sat_rnode *et_http_result(sat_rnode *p, const sat_etime_view *v)
{
    const sat_etime_http_view *h = &v->http;
    sat_put_text(p, "by", h->by == SAT_ETIME_BY_MINUTE ? "minute" : key_col(h->by));
    sat_put_count(p, "requests", h->requests);
    sat_rnode *m = hrow_table(p, "methods", SAT_ETIME_BY_METHOD);
    for (size_t i = 0; i < h->nmethods; i++)
        put_hrow(m, SAT_ETIME_BY_METHOD, &h->methods[i], 0);
    put_hrow(m, SAT_ETIME_BY_METHOD, &h->all, 0);
    sat_rnode *g = hrow_table(p, "groups", h->by);
    if (h->by == SAT_ETIME_BY_MINUTE)
        sat_table_set_window(g, h->window);
    for (size_t i = 0; i < h->ngroups; i++)
        put_hrow(g, h->by, &h->groups[i], h->group_ts ? h->group_ts[i] : 0);
    sat_put_count(p, "groups_folded_keys", h->groups_folded_keys);
    put_stats(p, h);
    put_statuses(p, h);
    put_clients(p, h);
    put_windows(p, h);
    et_put_not_logged(p, h->fields_known, h->fields_inputs, h->fields_without, h->fields_why);
    return g;
}
