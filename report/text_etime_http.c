/*
 * text_etime_http.c - the etime report's HTTP requests as text, read from
 * their result sections (analyze/etime_http_result.c): where the time went
 * by path template (or the --by key) and by method, the request counts, the
 * statuses, the top clients and the series. x->root is the object that
 * holds them: the result's root on HTTP logs alone, its "http" object
 * beside a directory's logs. A figure of a field no input logs says so
 * and why (the not_logged table beside them).
 */
#include <string.h>

#include "text_etime.h"


static const char *dim_title(const char *dim)
{
    if (!strcmp(dim, "path"))
        return "path template";
    return dim;
}

/* The columns of the grouped tables: without response times, the counts
 * only; the upstream's mean where some request logged one. */
static void time_cols(etx *x, char *out, size_t n)
{
    const sat_value *up = etx_val(x->root, "request_stats.upstream_mean_s");
    if (etx_not_logged(x, "etime"))
        snprintf(out, n, "count,rate_per_s,errors");
    else
        snprintf(out, n, "%s%s,errors",
                 x->t->width
                     ? "count,mean_s,p50_s,p99_s,max_s,total_s,share"
                     : "count,rate_per_s,mean_s,p50_s,p90_s,p99_s,p999_s,max_s,total_s,share",
                 up && !up->absent ? ",upstream_mean_s" : "");
}

static void where(etx *x)
{
    const sat_rnode *p = x->root;
    char tc[256], cols[512];
    time_cols(x, tc, sizeof tc);
    const sat_value *by = etx_val(p, "by");
    const char *dim = by && !by->absent ? by->v.s : "path";
    int minute = !strcmp(dim, "minute");
    const sat_rnode *g = sat_rnode_get(p, "groups");
    size_t n = sat_rnode_count(g), top = (size_t)etx_count(x->root, "top_n");
    if (!top)
        top = 20;
    size_t show = !minute && n > top ? top : n;
    if (show < n)
        sat_text_title(x->t, "Where the time went, by %s (top %zu of %zu by total response time)",
                       dim_title(dim), show, n);
    else
        sat_text_title(x->t, "Where the time went, by %s", dim_title(dim));
    if (etx_not_logged(x, "etime"))
        sat_text_line(x->t, "  Response times are not logged %s: requests and errors only",
                      etx_field_note(x, "etime", NULL));
    if (minute)
        snprintf(cols, sizeof cols, "start_ts,%s", tc);
    else
        snprintf(cols, sizeof cols, "%s,%s", tc, dim);
    sat_text_table(x->t, g, cols, show, NULL);
    if (show && show < sat_rnode_count(g))
        sat_text_line(x->t, "  (%llu more %s; --json or --csv has every row)",
                      (unsigned long long)(sat_rnode_count(g) - show),
                      sat_plural(sat_rnode_count(g) - show, "row", "rows"));
    uint64_t folded = etx_count(p, "groups_folded_keys");
    if (folded)
        sat_text_line(x->t, "  (about %llu keys past the key cap are folded into \"(other)\")",
                      (unsigned long long)folded);

    sat_text_title(x->t, "By method");
    snprintf(cols, sizeof cols, "method,%s", tc);
    sat_text_table(x->t, sat_rnode_get(p, "methods"), cols, 0, NULL);
    sat_text_line(x->t, "  (\"all\": every request. Times are response times; errors = "
                        "statuses >= 400; share = the group's total / all's total)");
}

static void requests(etx *x)
{
    const sat_rnode *o = sat_rnode_get(x->root, "request_stats");
    sat_text_title(x->t, "Requests");
    etx_kvs k;
    etx_kv_init(&k, x);
    etx_kv(&k, "Total requests:", o, "total", NULL, etx_rate(x, etx_count(o, "total")));
    etx_kv(&k, "With a status:", o, "with_status", NULL, NULL);
    etx_kv(&k, "Client errors (4xx):", o, "client_errors", NULL, NULL);
    etx_kv(&k, "Server errors (5xx):", o, "server_errors", NULL, NULL);
    etx_kv(&k, "Without a request line:", o, "no_request_line", NULL,
           "(the client sent nothing: 400, 408)");
    etx_kv(&k, "Over TLS:", o, "over_tls", "tls_session",
           "(a TLS protocol or session flag logged)");
    etx_kv(&k, "Connections opened (first requests):", o, "first_requests", "conn_request",
           NULL);
    etx_kv(&k, "Response bytes:", o, "response_bytes", NULL, NULL);
    etx_kv(&k, "Average response time:", o, "response_time_mean_s", "etime", NULL);
    const sat_value *up = etx_val(o, "upstream_mean_s");
    etx_kv(&k, "Average upstream time:", o, "upstream_mean_s", "upstream",
           up && up->absent && !etx_not_logged(x, "upstream")
               ? "(none: every request's upstream time was \"-\", no upstream)"
               : NULL);
    etx_kv_print(&k, NULL);
}

static void statuses(etx *x)
{
    const sat_rnode *t = sat_rnode_get(x->root, "statuses");
    if (!sat_rnode_count(t))
        return;
    sat_text_title(x->t, "Statuses");
    sat_text_table(x->t, t, "status,count,share,meaning", 0, NULL);
}

static void clients(etx *x)
{
    const sat_rnode *top = sat_rnode_get(x->root, "top");
    if (!sat_rnode_count(sat_rnode_get(top, "clients")))
        return;
    etx_top(x, "Top clients", top, "clients", "client", "client");
}

void etx_http(etx *x)
{
    where(x);
    requests(x);
    statuses(x);
    clients(x);
    etx_series(x, "Requests per");
}
