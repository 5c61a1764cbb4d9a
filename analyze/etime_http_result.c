/*
 * etime_http_result.c - the etime result's sections of HTTP requests
 * (satscope/result.h, docs/output.md), written from the analyzer's HTTP
 * state (etime_int.h et_http): the requests per method ("all", every
 * request, last), the groups of the --by key (path templates by default;
 * the key column named after it: path, status, client, method, start_ts),
 * the request counts (bytes sent, static and dynamic requests), every status
 * by code, the top clients and 404 paths, the series and
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

#define DUR ET_DUR
#define FRAC ET_FRAC

static int hknown(const sat_etime *e, int field)
{
    return (sat_fields_known(&e->http.fields) & SAT_FIELD_BIT(field)) != 0;
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
    return et_group_table(parent, name, key_col(by),
                          by == SAT_ETIME_BY_STATUS   ? SAT_UNIT_INT
                          : by == SAT_ETIME_BY_MINUTE ? SAT_UNIT_TIME
                                                      : SAT_UNIT_TEXT,
                          by == SAT_ETIME_BY_MINUTE ? "minute (UTC)" : NULL, &et_hrow_out, NULL);
}

/* A row of requests: its key (a status as a number: "(none)" and "(other)"
 * are absent), then the group's columns. */
static void put_hrow(sat_rnode *t, int by, const char *key, sat_ts_ns ts, const et_group *g,
                     const et_row_ctx *ctx)
{
    sat_rnode *o = sat_table_row(t);
    const char *kc = key_col(by);
    if (by == SAT_ETIME_BY_MINUTE) {
        sat_put_time(o, kc, ts);
    } else if (by == SAT_ETIME_BY_STATUS) {
        char *end = NULL;
        long code = key ? strtol(key, &end, 10) : 0;
        if (end && end != key && !*end)
            sat_put_int(o, kc, code);
        else
            sat_put_absent(o, kc, SAT_UNIT_INT); /* "(none)", "(other)" */
    } else {
        sat_put_text(o, kc, key);
    }
    sat_rec_row(&et_hrow_out, o, g, ctx);
}

/* A capped table of et_group as rows by total time, "(other)" last. */
static int group_rows(sat_rnode *t, int by, const et_ktab *kt, const et_row_ctx *ctx)
{
    const sat_keyed *k = &kt->k;
    size_t nk = sat_keyed_n(k);
    const char **keys = (const char **)calloc(nk ? nk : 1, sizeof *keys);
    const et_group **gs = (const et_group **)calloc(nk ? nk : 1, sizeof *gs);
    if (!keys || !gs) {
        free(keys);
        free((void *)gs);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < nk; i++) {
        keys[i] = sat_keyed_key(k, i); /* NUL-terminated by the strtab */
        gs[i] = (const et_group *)sat_keyed_rec(k, i);
    }
    size_t *order = et_group_order(keys, gs, nk);
    for (size_t i = 0; order && i < nk; i++)
        put_hrow(t, by, keys[order[i]], 0, gs[order[i]], ctx);
    const et_group *other = (const et_group *)k->other;
    if (order && other->count)
        put_hrow(t, by, "(other)", 0, other, ctx);
    int st = order ? SAT_OK : SAT_E_NOMEM;
    free(order);
    free(keys);
    free((void *)gs);
    return st;
}

static void put_stats(sat_rnode *p, const sat_etime *e)
{
    const et_hcounts *h = &e->http.c;
    uint64_t e4 = 0, e5 = 0;
    for (int c = 400; c < ET_HTTP_STATUS_MAX; c++)
        *(c < 500 ? &e4 : &e5) += h->status[c];
    /* (those past 999 are neither) */
    const et_group *all = &e->http.all;
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
    if (h->tls || hknown(e, SAT_FIELD_TLS_SESSION))
        sat_put_count(o, "over_tls", h->tls);
    else /* neither a TLS protocol nor a session flag in the format */
        sat_put_absent(o, "over_tls", SAT_UNIT_COUNT);
    sat_put_note(o, "a TLS protocol or session flag was logged");
    if (hknown(e, SAT_FIELD_CONN_REQUEST) && h->conn_request_rows)
        sat_put_count(o, "first_requests", h->first_requests);
    else
        sat_put_absent(o, "first_requests", SAT_UNIT_COUNT);
    sat_put_note(o, "a connection's first request: connections opened");
    if (h->bytes == SAT_SUM_SATURATED) /* past the range (acc.h) */
        sat_put_absent(o, "response_bytes", SAT_UNIT_BYTES);
    else
        sat_put_bytes(o, "response_bytes", h->bytes > 0 ? (uint64_t)h->bytes : 0);
    sat_put_count(o, "with_bytes", h->bytes_rows);
    /* static files by their extension (event.h SAT_HTTPF_STATIC), and how much
     * of the response time they took */
    uint64_t with_path = h->requests - h->no_request_line;
    uint64_t stat = h->static_requests;
    sat_put_count(o, "static_requests", stat);
    sat_put_note(o, "a static file's extension: .css .js .png ...");
    sat_put_count(o, "dynamic_requests", with_path > stat ? with_path - stat : 0);
    double st_ns = sat_sum_d(h->static_esum), dy_ns = sat_sum_d(h->dynamic_esum);
    sat_put_ratio(o, "static_time_share",
                  hknown(e, SAT_FIELD_ETIME) && h->static_timed + h->dynamic_timed &&
                          st_ns + dy_ns > 0
                      ? st_ns / (st_ns + dy_ns)
                      : NAN,
                  FRAC);
    sat_put_note(o, "the static requests' share of the total response time");
    sat_put_dur(o, "response_time_mean_s",
                hknown(e, SAT_FIELD_ETIME) && all->timed
                    ? sat_sum_d(all->esum) / (double)all->timed / 1e9
                    : NAN,
                DUR);
    sat_put_dur(o, "upstream_mean_s",
                hknown(e, SAT_FIELD_UPSTREAM) && all->un
                    ? sat_sum_d(all->usum) / (double)all->un / 1e9
                    : NAN,
                DUR);
}
/* Every status by code; those past 999 last, as an absent status. */
static void put_statuses(sat_rnode *p, const sat_etime *e)
{
    const et_hcounts *h = &e->http.c;
    static const sat_col cols[] = {{"status", SAT_UNIT_INT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, "requests"},
                                   {"share", SAT_UNIT_RATIO, FRAC, NULL},
                                   {"error", SAT_UNIT_BOOL, 0, NULL},
                                   {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(p, "statuses", cols, sizeof cols / sizeof cols[0]);
    for (int code = 0; code <= ET_HTTP_STATUS_MAX; code++) {
        uint64_t n = code < ET_HTTP_STATUS_MAX ? h->status[code] : h->status_other;
        if (!n)
            continue;
        int past = code == ET_HTTP_STATUS_MAX;
        sat_rnode *o = sat_table_row(t);
        if (!past)
            sat_put_int(o, "status", code);
        else
            sat_put_absent(o, "status", SAT_UNIT_INT); /* past 999 */
        sat_put_count(o, "count", n);
        sat_put_ratio(o, "share", h->requests ? (double)n / (double)h->requests : NAN, FRAC);
        sat_put_bool(o, "error", code >= 400);
        sat_put_text(o, "meaning", !past ? sat_http_status_name(code) : "a status past 999");
    }
}

/* A top table of a capped et_kv table (key column `col`) by requests,
 * "(other)" last; its keys' count (folded ones estimated) as NAME_distinct
 * and NAME_folded. */
static int put_top(sat_rnode *top, const sat_etime *e, const et_ktab *k, const char *name,
                   const char *col)
{
    sat_col cols[3] = {{col, SAT_UNIT_TEXT, 0, NULL}};
    sat_rec_cols(&et_kv_desc, cols + 1, 2);
    cols[1].title = "requests";
    cols[2].title = "response time total";
    sat_rnode *t = sat_table(top, name, cols, 3);
    size_t n;
    size_t *idx = et_kv_top(k, e->opts.top, &n);
    int st = idx || !sat_keyed_n(&k->k) ? SAT_OK : SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, col, sat_keyed_key(&k->k, idx[i]));
        sat_rec_row(&et_kv_desc, o, sat_keyed_rec(&k->k, idx[i]), NULL);
    }
    free(idx);
    const et_kv *other = (const et_kv *)k->k.other;
    if (other->count) {
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, col, "(other)");
        sat_rec_row(&et_kv_desc, o, other, NULL);
    }
    uint64_t folded = et_ktab_folded_keys(k);
    char key[48];
    snprintf(key, sizeof key, "%s_distinct", name);
    sat_put_count(top, key, sat_keyed_n(&k->k) + folded);
    snprintf(key, sizeof key, "%s_folded", name);
    sat_put_count(top, key, folded);
    return st;
}

/* The top clients by requests, and the paths most asked for that were not
 * found (404, the query dropped). */
static int put_clients(sat_rnode *p, const sat_etime *e)
{
    sat_rnode *top = sat_obj(p, "top");
    int st = put_top(top, e, &e->http.clients, "clients", "client");
    if (put_top(top, e, &e->http.not_found, "not_found", "path") != SAT_OK)
        st = SAT_E_NOMEM;
    return st;
}

/* The series from the first window to the last (only the busy ones when
 * they are far apart); with --by minute, also the groups (rates over a
 * window). */
typedef struct hwin {
    sat_rnode *windows, *groups;
    int64_t width;
    et_row_ctx ctx;
} hwin;

static void hwin_row(void *ctx, int64_t w, const et_group *g)
{
    hwin *h = (hwin *)ctx;
    sat_rnode *o = sat_table_row(h->windows);
    sat_put_time(o, "start_ts", w * h->width);
    sat_rec_row(&et_window_out, o, g, NULL);
    if (h->groups)
        put_hrow(h->groups, SAT_ETIME_BY_MINUTE, NULL, w * h->width, g, &h->ctx);
}

static int put_windows(sat_rnode *p, const sat_etime *e, sat_rnode *minute_groups)
{
    const et_http *h = &e->http;
    sat_put_dur(p, "window_s", (double)h->width / 1e9, 0);
    sat_rnode *t = et_group_table(p, "windows", "start_ts", SAT_UNIT_TIME, "minute (UTC)",
                                  &et_window_out, "requests");
    sat_table_set_window(t, h->width);
    hwin w = {t, minute_groups, h->width, {sat_sum_d(h->all.esum), (double)h->width / 1e9}};
    return et_series_walk(&h->series, hwin_row, &w);
}

const sat_rnode *et_http_result(sat_rnode *p, const sat_etime *e, int *status)
{
    const et_http *h = &e->http;
    int by = et_http_by(e->opts.by);
    double span = h->c.first_ts ? (double)(h->c.last_ts - h->c.first_ts) / 1e9 : 0;
    et_row_ctx ctx = {sat_sum_d(h->all.esum), span};
    int st = SAT_OK;
    sat_put_text(p, "by", by == SAT_ETIME_BY_MINUTE ? "minute" : key_col(by));
    sat_put_count(p, "requests", h->c.requests);
    sat_rnode *m = hrow_table(p, "methods", SAT_ETIME_BY_METHOD);
    if (group_rows(m, SAT_ETIME_BY_METHOD, &h->methods, &ctx) != SAT_OK)
        st = SAT_E_NOMEM;
    put_hrow(m, SAT_ETIME_BY_METHOD, "all", 0, &h->all, &ctx);
    sat_rnode *g = hrow_table(p, "groups", by);
    if (by == SAT_ETIME_BY_MINUTE)
        sat_table_set_window(g, h->width);
    else if (group_rows(g, by, &h->groups, &ctx) != SAT_OK)
        st = SAT_E_NOMEM;
    sat_put_count(p, "groups_folded_keys",
                  by == SAT_ETIME_BY_MINUTE ? 0 : et_ktab_folded_keys(&h->groups));
    put_stats(p, e);
    put_statuses(p, e);
    if (put_clients(p, e) != SAT_OK ||
        put_windows(p, e, by == SAT_ETIME_BY_MINUTE ? g : NULL) != SAT_OK)
        st = SAT_E_NOMEM;
    et_put_not_logged(p, &h->fields);
    if (st != SAT_OK)
        *status = st;
    return g;
}
