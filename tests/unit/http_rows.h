/*
 * http_rows.h - (tests) collecting a file's http_req rows through the real
 * collection (sat_collect_run: sniff or --log-format, one or two parser
 * threads), with the rows' strings copied, for the HTTP unit tests.
 */
#ifndef SAT_TEST_HTTP_ROWS_H
#define SAT_TEST_HTTP_ROWS_H

#include <stdlib.h>
#include <string.h>

#include "satscope/collect.h"
#include "satscope/parse.h"

typedef struct hrow {
    sat_http_req r;      /* strings below, NUL-terminated copies */
    char method[16], path[256], tmpl[256], proto[16], tls[16], client[64], ua[64];
} hrow;

typedef struct hrows {
    hrow *v;
    size_t n, cap;
    sat_source src;      /* the last source row (strings copied below) */
    char format[64];
    size_t nsources, nrejects;
    uint64_t first_reject_line;
    uint64_t reject_lines[16]; /* the first 16 rejects' line numbers */
} hrows;

static void hr_copy(char *dst, size_t cap, sat_str s)
{
    size_t n = s.ptr ? (s.len < cap - 1 ? s.len : cap - 1) : 0;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static int hr_row(void *ctx, int table, const void *row)
{
    hrows *h = ctx;
    if (table == SAT_TABLE_SOURCE) {
        h->src = *(const sat_source *)row;
        hr_copy(h->format, sizeof h->format, h->src.format);
        h->nsources++;
    } else if (table == SAT_TABLE_REJECT) {
        if (!h->nrejects)
            h->first_reject_line = ((const sat_reject *)row)->line_no;
        if (h->nrejects < 16)
            h->reject_lines[h->nrejects] = ((const sat_reject *)row)->line_no;
        h->nrejects++;
    } else if (table == SAT_TABLE_HTTP_REQ) {
        if (h->n == h->cap) {
            h->cap = h->cap ? h->cap * 2 : 256;
            h->v = realloc(h->v, h->cap * sizeof *h->v);
            if (!h->v)
                return SAT_E_NOMEM;
        }
        hrow *d = &h->v[h->n++];
        d->r = *(const sat_http_req *)row;
        hr_copy(d->method, sizeof d->method, d->r.method);
        hr_copy(d->path, sizeof d->path, d->r.path);
        hr_copy(d->tmpl, sizeof d->tmpl, d->r.path_template);
        hr_copy(d->proto, sizeof d->proto, d->r.protocol);
        hr_copy(d->tls, sizeof d->tls, d->r.tls_protocol);
        hr_copy(d->client, sizeof d->client, d->r.client_ip);
        hr_copy(d->ua, sizeof d->ua, d->r.user_agent);
    }
    return SAT_OK;
}

/* Collects paths (relative to $SAT_SRC unless absolute) with log_format
 * (NULL: detect) on `threads` parser threads (2: with chunk bytes `chunk`).
 * Returns the run's status. */
static int hr_collect_n(hrows *h, const char *const *in, size_t n, const char *log_format,
                        int threads, size_t chunk)
{
    memset(h, 0, sizeof *h);
    const char *src = getenv("SAT_SRC");
    char full[8][1024];
    const char *paths[8];
    for (size_t i = 0; i < n && i < 8; i++) {
        snprintf(full[i], sizeof full[i], "%s%s%s", in[i][0] == '/' ? "" : src ? src : ".",
                 in[i][0] == '/' ? "" : "/", in[i]);
        paths[i] = full[i];
    }
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.log_format = log_format;
    o.parse_threads = threads;
    o.parse_chunk_bytes = chunk;
    o.reject_sample_max = 1000;
    sat_event_sink sink = {h, SAT_TABLES_ALL, hr_row};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    return sat_collect_run(paths, n < 8 ? n : 8, &o, &sink, &st, &d);
}

static int hr_collect(hrows *h, const char *path, const char *log_format, int threads,
                      size_t chunk)
{
    return hr_collect_n(h, &path, 1, log_format, threads, chunk);
}

static void hr_free(hrows *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

#endif
