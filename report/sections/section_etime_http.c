/*
 * section_etime_http.c - the sections of the etime result's HTTP requests
 * (analyze/etime_http_result.c): where the time went by path template (or
 * the --by key) and by method with the bytes sent, the request counts (bytes,
 * distinct clients, static files and dynamic requests), the statuses, the top
 * clients, the paths not found (404) and the series. x->root is the object that holds them: the
 * result's root on HTTP logs alone, its "http" object beside a directory's
 * logs (then these are parts of the "http" section). A figure of a field no
 * input logs says so and why (the not_logged table beside them).
 */
#include <string.h>

#include "section_etime.h"

static const char *dim_title(const char *dim)
{
    return !strcmp(dim, "path") ? "path template" : dim;
}

/* The columns of the grouped tables: without response times, the counts
 * only; the upstream's mean where some request logged one; the rate, p90
 * and p99.9 where there is room. */
static void time_cols(const etb *x, char *out, size_t n)
{
    if (etb_not_logged(x, "etime"))
        snprintf(out, n, "count,rate_per_s,errors,bytes");
    else
        snprintf(out, n,
                 "count,+rate_per_s,mean_s,p50_s,p90_s,p99_s,+p999_s,max_s,total_s,share%s,"
                 "errors,+bytes",
                 sat_get_has(x->root, "request_stats.upstream_mean_s") ? ",upstream_mean_s" : "");
}

static void where(const etb *x, sat_rnode *parent)
{
    const sat_rnode *p = x->root;
    char tc[256], cols[512], nb[512];
    time_cols(x, tc, sizeof tc);
    const char *dim = sat_get_text(p, "by", "path");
    int minute = !strcmp(dim, "minute");
    const sat_rnode *g = sat_get_table(p, "groups");
    size_t n = sat_rnode_count(g), top = (size_t)sat_get_count(p, "top_n", 0);
    if (!top)
        top = 20;
    size_t show = !minute && n > top ? top : n;
    sat_rnode *s = show < n ? sec_section(x->c, parent, "http_groups",
                                          "Where the time went, by %s (top %zu of %zu by total "
                                          "response time)",
                                          dim_title(dim), show, n)
                            : sec_section(x->c, parent, "http_groups", "Where the time went, by %s",
                                          dim_title(dim));
    if (etb_not_logged(x, "etime"))
        sat_doc_para(s, "Response times are not logged %s: requests and errors only",
                     etb_field_note(x, "etime", NULL, nb, sizeof nb));
    if (minute)
        snprintf(cols, sizeof cols, "start_ts,%s", tc);
    else
        snprintf(cols, sizeof cols, "%s,%s", tc, dim);
    sat_doc_table(s, NULL, NULL, g, cols, show, NULL, NULL);
    uint64_t folded = sat_get_count(p, "groups_folded_keys", 0);
    if (folded)
        sat_doc_footnote(s, "(about %llu keys past the key cap are folded into \"(other)\")",
                         (unsigned long long)folded);

    s = sec_section(x->c, parent, "http_methods", "By method");
    snprintf(cols, sizeof cols, "method,%s", tc);
    sat_doc_table(s, NULL, NULL, sat_get_table(p, "methods"), cols, 0, NULL, NULL);
    sat_doc_footnote(s, "(\"all\": every request. Times are response times; errors = statuses "
                        ">= 400; share = the group's total / all's total)");
}

static void requests(const etb *x, sat_rnode *parent)
{
    const sat_rnode *o = sat_get_obj(x->root, "request_stats");
    sat_rnode *v = sat_doc_values(sec_section(x->c, parent, "http_requests", "Requests"));
    char rate[128];
    etb_value(x, v, o, "total", "total", "Total requests", NULL,
              etb_rate(x, sat_get_count(o, "total", 0), rate, sizeof rate));
    etb_value(x, v, o, "with_status", "with_status", "With a status", NULL, NULL);
    etb_value(x, v, o, "client_errors", "client_errors", "Client errors (4xx)", NULL, NULL);
    etb_value(x, v, o, "server_errors", "server_errors", "Server errors (5xx)", NULL, NULL);
    etb_value(x, v, o, "no_request_line", "no_request_line", "Without a request line", NULL,
              "(the client sent nothing: 400, 408)");
    etb_value(x, v, o, "over_tls", "over_tls", "Over TLS", "tls_session",
              "(a TLS protocol or session flag logged)");
    etb_value(x, v, o, "first_requests", "first_requests", "Connections opened", "conn_request",
              "(first requests)");
    etb_value(x, v, o, "response_bytes", "response_bytes", "Bytes sent", NULL,
              "(response bytes as logged)");
    const sat_rnode *top = sat_get_obj(x->root, "top");
    etb_value(x, v, top, "clients_distinct", "clients_distinct", "Distinct clients", NULL, NULL);
    char share[96] = "";
    double sh = sat_get_num(o, "static_time_share", -1);
    if (sh >= 0)
        snprintf(share, sizeof share, "(%.1f%% of the response time)", sh * 100);
    etb_value(x, v, o, "static_requests", "static_requests", "Static files", NULL,
              share[0] ? share : "(by extension: .css .js .png ...)");
    etb_value(x, v, o, "dynamic_requests", "dynamic_requests", "Dynamic requests", NULL, NULL);
    etb_value(x, v, o, "response_time_mean_s", "response_time_mean_s", "Average response time",
              "etime", NULL);
    etb_value(x, v, o, "upstream_mean_s", "upstream_mean_s", "Average upstream time", "upstream",
              sat_rnode_val(o, "upstream_mean_s") && !sat_get_has(o, "upstream_mean_s") &&
                      !etb_not_logged(x, "upstream")
                  ? "(none: every request's upstream time was \"-\", no upstream)"
                  : NULL);
}

void etb_http(const etb *x, sat_rnode *parent)
{
    where(x, parent);
    requests(x, parent);
    const sat_rnode *st = sat_get_table(x->root, "statuses");
    if (sat_rnode_first(st))
        sat_doc_table(sec_section(x->c, parent, "http_statuses", "Statuses"), NULL, NULL, st,
                      "status,count,share,meaning", 0, NULL, NULL);
    etb_top(x, parent, "http_top_clients", "Top clients", sat_get_obj(x->root, "top"), "clients",
            "client", "client", 1);
    etb_top(x, parent, "http_not_found", "Not found (404), by path",
            sat_get_obj(x->root, "top"), "not_found", "path", "path", 1);
    etb_series(x, parent, "http_windows", "Requests per");
}
