/*
 * etime_http.c - the etime analyzer on HTTP access logs (http_req rows,
 * event.h): where a web or application server's time went.
 *
 * The rules, as for operations (etime.c) where they apply:
 *   - every request counts (all.count), with or without a status or a
 *     response time; its response time ($request_time, %D, ...: the etime
 *     field of fields.h) gives the percentiles, its upstream time
 *     ($upstream_response_time) a mean where logged;
 *   - an error is a status >= 400 (4xx the client's, 5xx the server's);
 *     every status is counted by code;
 *   - the groups are path templates by default (parse/http_path.c: query
 *     dropped, ids collapsed, so /item/1234?x=1 and /item/99 are one row),
 *     or the --by key: status, client, method (also "op"), minute;
 *   - bytes sent are summed per group and in all; a request is static or
 *     dynamic by its path's extension (SAT_HTTPF_STATIC, parse/http_path.c),
 *     and the paths of 404s are counted (query dropped: what was asked for);
 *   - requests are not operations: their counts, groups and series are
 *     their own, so a post-mortem over a directory's log and its web
 *     front's keeps both apart.
 * Memory is bounded as for operations: the group, method and client
 * tables are capped keyed tables (the rest folded into "(other)"), each
 * group a quantile sketch, the series at most ET_BUCKETS_MAX windows (their
 * width doubles past it, winseries.h).
 */
#include "etime_int.h"

#define CNT(m) SAT_ACC(SAT_ACC_COUNT, et_hcounts, m),
#define RUN(m, ...) SAT_ACC_RUN(SAT_ACC_COUNT, et_hcounts, m),
static const sat_acc_field hcounts_fields[] = {
    ET_HTTP_COUNTS(CNT, RUN)
    SAT_ACC(SAT_ACC_SUM, et_hcounts, bytes),
    SAT_ACC(SAT_ACC_SUM, et_hcounts, static_esum),
    SAT_ACC(SAT_ACC_SUM, et_hcounts, dynamic_esum),
    SAT_ACC(SAT_ACC_FIRST, et_hcounts, first_ts),
    SAT_ACC(SAT_ACC_LAST, et_hcounts, last_ts),
};
#undef CNT
#undef RUN
const sat_rec_desc et_hcounts_desc = {sizeof(et_hcounts), hcounts_fields,
                                      sizeof hcounts_fields / sizeof hcounts_fields[0], NULL};

/* The dimension of the HTTP groups: an HTTP key as asked, "op" as the
 * method, anything else (a directory's key) the default, path templates. */
int et_http_by(int by)
{
    switch (by) {
    case SAT_ETIME_BY_STATUS:
    case SAT_ETIME_BY_CLIENT:
    case SAT_ETIME_BY_METHOD:
    case SAT_ETIME_BY_MINUTE:
        return by;
    case SAT_ETIME_BY_OP:
        return SAT_ETIME_BY_METHOD;
    default:
        return SAT_ETIME_BY_PATH;
    }
}

void et_http_init(sat_etime *e)
{
    sat_strtab_init(&e->http.series, sizeof(et_group), 0);
    e->http.width = ET_MINUTE_NS;
}

void et_http_free(sat_etime *e)
{
    for (size_t i = 0; i < e->http.series.n; i++)
        sat_rec_free(&et_group_desc, sat_strtab_val(&e->http.series, i));
    sat_strtab_free(&e->http.series);
}

size_t et_http_bytes(const sat_etime *e)
{
    size_t b = sat_strtab_bytes(&e->http.series);
    for (size_t i = 0; i < e->http.series.n; i++)
        b += sat_qsketch_bytes(&((const et_group *)sat_strtab_val(&e->http.series, i))->q);
    return b;
}

/* ---- the series ------------------------------------------------------------------- */

/* sat_win_add_fn has no context: a failed sketch merge is noted per thread
 * (analyzers may run in parallel threads), and read after the call. */
static _Thread_local int hwin_nomem;

static et_group *hwin_group(void *w)
{
    et_group *g = (et_group *)w;
    if (!g->q.exact_max) /* a payload the strtab just zeroed */
        sat_rec_init(&et_group_desc, g);
    return g;
}

static void hwin_add(void *into, const void *from)
{
    if (sat_rec_merge(&et_group_desc, hwin_group(into), from) != SAT_OK)
        hwin_nomem = 1;
}

/* For widening our own series: the old window's sketch goes with its table. */
static void hwin_move(void *into, const void *from)
{
    hwin_add(into, from);
    sat_rec_free(&et_group_desc, (void *)(uintptr_t)from);
}

/* Twice as wide while the series holds more than ET_BUCKETS_MAX windows. */
static int hwin_bound(et_http *h)
{
    hwin_nomem = 0;
    while (h->series.n > ET_BUCKETS_MAX)
        if (sat_win_widen(&h->series, &h->width, 2, sizeof(et_group), hwin_move) != SAT_OK)
            return SAT_E_NOMEM;
    return hwin_nomem ? SAT_E_NOMEM : SAT_OK;
}

static et_group *hwindow(sat_etime *e, sat_ts_ns ts)
{
    et_http *h = &e->http;
    for (int pass = 0; pass < 2; pass++) {
        int64_t k = sat_win_index(ts, h->width);
        void *w = sat_strtab_upsert(&h->series, &k, sizeof k, NULL, NULL);
        if (!w)
            break;
        hwin_group(w);
        if (h->series.n <= ET_BUCKETS_MAX)
            return (et_group *)w;
        if (hwin_bound(h) != SAT_OK) /* then look the window up at the new width */
            break;
    }
    e->nomem = 1;
    return NULL;
}

/* Both series at the wider width (widths are a minute times powers of two),
 * then from's windows added, then bounded. */
int et_http_merge(sat_etime *into, const sat_etime *from)
{
    et_http *h = &into->http;
    const et_http *f = &from->http;
    hwin_nomem = 0;
    while (h->width < f->width)
        if (sat_win_widen(&h->series, &h->width, 2, sizeof(et_group), hwin_move) != SAT_OK)
            return SAT_E_NOMEM;
    int64_t fac = h->width / f->width;
    for (size_t i = 0; i < f->series.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&f->series, i), sizeof k);
        k = sat_win_index(k, fac);
        void *w = sat_strtab_upsert(&h->series, &k, sizeof k, NULL, NULL);
        if (!w)
            return SAT_E_NOMEM;
        hwin_add(w, sat_strtab_val(&f->series, i));
    }
    if (hwin_nomem)
        return SAT_E_NOMEM;
    return hwin_bound(h);
}

/* ---- the per-row path --------------------------------------------------------------- */

static void hgrp_add(sat_etime *e, et_group *g, const sat_http_req *r)
{
    g->count++;
    if (r->status != SAT_ABSENT) {
        g->results++;
        if (r->status >= 400)
            g->errors++;
    }
    if (r->response_time >= 0) {
        g->timed++;
        sat_sum_add(&g->esum, r->response_time);
        if (sat_qsketch_add(&g->q, r->response_time) < 0)
            e->nomem = 1;
    }
    if (r->upstream_time >= 0) {
        g->un++;
        sat_sum_add(&g->usum, r->upstream_time);
    }
    if (r->bytes >= 0) {
        g->bn++;
        sat_sum_add(&g->bsum, r->bytes);
    }
}

/* The path of a request without its query: what a 404 was asked for. */
static sat_str path_only(const sat_http_req *r)
{
    if (!r->path.ptr || !r->path.len)
        return sat_str_cstr("(no request line)");
    const char *q = memchr(r->path.ptr, '?', r->path.len);
    return sat_str_make(r->path.ptr, q ? (size_t)(q - r->path.ptr) : r->path.len);
}

static sat_str or_str(sat_str s, const char *dflt)
{
    return s.ptr && s.len ? s : sat_str_cstr(dflt);
}

/* The --by key of a request (not minute: the series is its groups). */
static sat_str http_key(int by, const sat_http_req *r, char *buf, size_t n)
{
    switch (by) {
    case SAT_ETIME_BY_STATUS:
        if (r->status == SAT_ABSENT)
            return sat_str_cstr("(none)");
        snprintf(buf, n, "%d", (int)r->status);
        return sat_str_cstr(buf);
    case SAT_ETIME_BY_CLIENT:
        return or_str(r->client_ip, "(unknown)");
    case SAT_ETIME_BY_METHOD:
        return or_str(r->method, "(no request line)");
    default:
        if (r->path_template.ptr && r->path_template.len)
            return r->path_template;
        return or_str(r->path, "(no request line)");
    }
}

int et_on_http(void *ctx, const sat_http_req *r)
{
    sat_etime *e = (sat_etime *)ctx;
    et_http *h = &e->http;
    et_hcounts *c = &h->c;
    e->finished = 0;
    c->requests++;
    if (r->ts > 0)
        et_widen(&c->first_ts, &c->last_ts, r->ts);
    if (r->status == SAT_ABSENT)
        c->status_absent++;
    else if (r->status >= 0 && r->status < ET_HTTP_STATUS_MAX)
        c->status[r->status]++;
    else
        c->status_other++;
    c->with_status += r->status != SAT_ABSENT;
    c->no_request_line += (r->flags & SAT_HTTPF_NO_REQUEST_LINE) != 0;
    c->tls += (r->flags & SAT_HTTPF_TLS) != 0;
    if (r->conn_request >= 0) {
        c->conn_request_rows++;
        c->first_requests += r->conn_request == 1;
    }
    if (r->bytes >= 0) {
        c->bytes_rows++;
        sat_sum_add(&c->bytes, r->bytes);
    }
    int is_static = (r->flags & SAT_HTTPF_STATIC) != 0;
    c->static_requests += is_static;
    if (r->response_time >= 0) {
        *(is_static ? &c->static_timed : &c->dynamic_timed) += 1;
        sat_sum_add(is_static ? &c->static_esum : &c->dynamic_esum, r->response_time);
    }
    hgrp_add(e, &h->all, r);
    sat_str m = or_str(r->method, "(no request line)");
    et_group *g = (et_group *)et_ktab_at(e, &h->methods, m.ptr, m.len);
    if (g)
        hgrp_add(e, g, r);
    int by = et_http_by(e->opts.by);
    if (by != SAT_ETIME_BY_MINUTE) {
        char kb[16];
        sat_str k = http_key(by, r, kb, sizeof kb);
        if ((g = (et_group *)et_ktab_at(e, &h->groups, k.ptr, k.len)))
            hgrp_add(e, g, r);
    }
    sat_str cl = or_str(r->client_ip, "(unknown)");
    et_kv *kv = (et_kv *)et_ktab_at(e, &h->clients, cl.ptr, cl.len);
    if (kv) {
        kv->count++;
        if (r->response_time >= 0) {
            kv->timed++;
            sat_sum_add(&kv->esum, r->response_time);
        }
    }
    if (r->status == 404) {
        sat_str nf = path_only(r);
        if ((kv = (et_kv *)et_ktab_at(e, &h->not_found, nf.ptr, nf.len))) {
            kv->count++;
            if (r->response_time >= 0) {
                kv->timed++;
                sat_sum_add(&kv->esum, r->response_time);
            }
        }
    }
    if (r->ts > 0 && (g = hwindow(e, r->ts)))
        hgrp_add(e, g, r);
    if (c->requests >= e->mem_check_at) {
        e->mem_check_at = c->requests + (1u << 20);
        size_t b = et_bytes(e);
        if (b > e->mem_peak)
            e->mem_peak = b;
    }
    return e->nomem ? SAT_E_NOMEM : SAT_OK;
}
