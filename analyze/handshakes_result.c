/*
 * handshakes_result.c - the sections of the handshakes analyzer's result
 * (satscope/result.h, docs/output.md), made from its state: the totals and
 * their rates, the cost per handshake, then the tables `versions`,
 * `resumption` and `durations`, the retries, the captures' `tcp`, the --by
 * table `groups` (its key column named after the dimension: client, server
 * or sni) and the time series `windows`. Every count of a set of handshakes
 * is written from its record's description (hs_counts_desc): the totals'
 * values and the windows' and groups' columns are one list. Handshakes read
 * from HTTP access logs are the "logs" object (handshakes_http.c), the TLS
 * connections directory-server logs tell of the "dirlogs" one
 * (handshakes_dirlog.c).
 */
#include <math.h>
#include <stdio.h>

#include "handshakes_int.h"

#define HS_MAX_COLS 16

static const char *version_name(uint16_t v, char *buf, size_t n)
{
    switch (v) {
    case 0: return "(no ServerHello)";
    case 0x0300: return "SSLv3";
    case 0x0301: return "TLS1.0";
    case 0x0302: return "TLS1.1";
    case 0x0303: return "TLS1.2";
    case 0x0304: return "TLS1.3";
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

static double quantile_s(const sat_qsketch *s, double q)
{
    return s->n ? sat_qsketch_quantile((sat_qsketch *)s, q) / 1e9 : NAN;
}

/* A table whose columns are `first` (may be NULL) then a set of counts'. */
static sat_rnode *counts_table(sat_rnode *root, const char *key, const sat_col *first)
{
    sat_col cols[HS_MAX_COLS];
    size_t n = 0;
    if (first)
        cols[n++] = *first;
    n += sat_rec_cols(&hs_counts_desc, cols + n, HS_MAX_COLS - n);
    return sat_table(root, key, cols, n);
}

static void put_totals(const sat_hs *h, sat_rnode *root, double *peak_rate, int64_t *peak_ts)
{
    const hs_totals *t = &h->t;
    sat_rec_put(&hs_counts_desc, root, &t->all, &h->opts);
    double span = t->last_ts > t->first_ts ? (double)(t->last_ts - t->first_ts) / 1e9 : 0;
    sat_put_time(root, "first_ts", t->first_ts);
    sat_put_time(root, "last_ts", t->first_ts ? t->last_ts : 0);
    sat_put_dur(root, "span_s", span, 3);
    /* where a capture ran: a time range outside it has no handshake known */
    sat_put_time(root, "capture_first_ts", t->capture_first);
    sat_put_time(root, "capture_last_ts", t->capture_first ? t->capture_last : 0);
    /* a rate over no time is not known */
    sat_put_rate(root, "rate_per_s", span > 0 ? (double)t->all.connections / span : NAN, 3);
    sat_put_note(root, "over the span");
    sat_put_rate(root, "peak_rate_per_s", *peak_rate, 3);
    sat_put_note(root, "the busiest window's");
    sat_put_time(root, "peak_ts", *peak_ts);
    sat_rnode *cost = sat_obj(root, "cost_per_handshake");
    sat_set_compact(cost);
    sat_put_dur(cost, "full_s", h->opts.full_cost_us / 1e6, 9);
    sat_put_dur(cost, "resumed_s", h->opts.resumed_cost_us / 1e6, 9);
    sat_put_dur(cost, "psk_s", h->opts.psk_cost_us / 1e6, 9);
}

static int cmp_version(const void *a, const void *b)
{
    uint16_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Newest first, "(other)" last. */
static int put_versions(const sat_hs *h, sat_rnode *root)
{
    static const sat_col cols[] = {{"version", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *t = sat_table(root, "versions", cols, 2);
    size_t nk = sat_keyed_n(&h->versions);
    struct vrow {
        uint16_t version;
        uint64_t count;
    } *vs = malloc((nk ? nk : 1) * sizeof *vs);
    if (!vs)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nk; i++) {
        memcpy(&vs[i].version, sat_keyed_key(&h->versions, i), sizeof vs[i].version);
        vs[i].count = ((const hs_vcount *)sat_keyed_rec(&h->versions, i))->count;
    }
    qsort(vs, nk, sizeof *vs, cmp_version);
    for (size_t i = 0; i < nk; i++) {
        char nb[40];
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "version", version_name(vs[i].version, nb, sizeof nb));
        sat_put_count(row, "count", vs[i].count);
    }
    free(vs);
    if (sat_keyed_has_other(&h->versions)) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "version", "(other)");
        sat_put_count(row, "count", ((const hs_vcount *)h->versions.other)->count);
    }
    return SAT_OK;
}

static void put_resumption(const hs_totals *t, sat_rnode *root)
{
    static const sat_col cols[] = {{"mechanism", SAT_UNIT_TEXT, 0, NULL},
                                   {"offered", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed", SAT_UNIT_COUNT, 0, "accepted"}};
    static const char *const mech[3] = {"session_id", "ticket", "psk"};
    sat_rnode *tab = sat_table(root, "resumption", cols, 3);
    for (int m = 0; m < 3; m++) {
        sat_rnode *row = sat_table_row(tab);
        sat_put_text(row, "mechanism", mech[m]);
        sat_put_count(row, "offered", t->offered[m]);
        sat_put_count(row, "resumed", t->resumed_by[m]);
    }
}

static void put_durations(const hs_totals *t, sat_rnode *root)
{
    static const sat_col cols[] = {{"outcome", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL},
                                   {"p50_s", SAT_UNIT_DURATION, 6, "p50"},
                                   {"p99_s", SAT_UNIT_DURATION, 6, "p99"}};
    sat_rnode *tab = sat_table(root, "durations", cols, 4);
    const sat_qsketch *d[2] = {&t->dur_full, &t->dur_resumed};
    for (int i = 0; i < 2; i++) {
        sat_rnode *row = sat_table_row(tab);
        sat_put_text(row, "outcome", i ? "resumed" : "full");
        sat_put_count(row, "count", d[i]->n);
        sat_put_dur(row, "p50_s", quantile_s(d[i], 0.5), 6);
        sat_put_dur(row, "p99_s", quantile_s(d[i], 0.99), 6);
    }
}

static void put_tcp(const hs_totals *t, sat_rnode *root)
{
    static const char *const why[SAT_TCP_END__COUNT] = {
        "still open when the capture ended", "the client closed first (FIN)",
        "the server closed first (FIN)", "reset by the client (RST)",
        "reset by the server (RST: refused, or aborted)", "idle past the timeout",
        "evicted at the flow table's capacity"};
    sat_rnode *tcp = sat_obj(root, "tcp");
    sat_put_count(tcp, "connections", t->tcp_conns);
    sat_put_count(tcp, "without_tls", t->tcp_no_tls);
    sat_rnode *end = sat_obj(tcp, "by_end");
    sat_set_compact(end);
    for (int e = 0; e < SAT_TCP_END__COUNT; e++) {
        sat_put_count(end, sat_tcp_end_name(e), t->tcp_by_end[e]);
        sat_put_note(end, why[e]);
    }
    sat_put_count(tcp, "syn_retries", t->tcp_syn_retrans);
    sat_put_note(tcp, "SYNs the clients sent again");
    sat_put_count(tcp, "unanswered", t->tcp_no_synack);
    sat_put_note(tcp, "connection attempts without a SYN/ACK");
    sat_put_dur(tcp, "rtt_p50_s", quantile_s(&t->rtt, 0.5), 6);
    sat_put_note(tcp, "SYN to the client's ACK");
    sat_put_dur(tcp, "rtt_p99_s", quantile_s(&t->rtt, 0.99), 6);
}

/* A group: its key and its counts, for sorting. */
typedef struct hs_grow {
    const char *key;
    size_t len;
    hs_counts c;
} hs_grow;

static int cmp_group(const void *a, const void *b)
{
    const hs_grow *x = a, *y = b;
    /* the most full handshakes first: they are what costs */
    if (x->c.full != y->c.full)
        return x->c.full < y->c.full ? 1 : -1;
    if (x->c.connections != y->c.connections)
        return x->c.connections < y->c.connections ? 1 : -1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, n);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* The top N by full handshakes, then "(other)". */
static int put_groups(const sat_hs *h, sat_result *r, sat_rnode *root)
{
    static const char *const byname[] = {"none", "client", "server", "sni"};
    const char *dim = byname[h->opts.by];
    size_t n = sat_keyed_n(&h->groups);
    sat_put_text(root, "by", dim);
    sat_put_count(root, "groups_total", n + sat_keyed_has_other(&h->groups));
    sat_col key = {dim, SAT_UNIT_TEXT, 0, h->opts.by == SAT_HS_BY_SNI ? "SNI" : NULL};
    sat_rnode *t = counts_table(root, "groups", &key);
    hs_grow *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        g[i].key = sat_keyed_key(&h->groups, i);
        g[i].len = sat_keyed_len(&h->groups, i);
        g[i].c = *(const hs_counts *)sat_keyed_rec(&h->groups, i);
    }
    qsort(g, n, sizeof *g, cmp_group);
    size_t shown = n < h->opts.top ? n : h->opts.top;
    hs_counts rest = *(const hs_counts *)h->groups.other;
    for (size_t i = shown; i < n; i++)
        (void)sat_rec_merge(&hs_counts_desc, &rest, &g[i].c); /* counters: cannot fail */
    for (size_t i = 0; i < shown; i++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_textn(row, dim, g[i].key, g[i].len);
        sat_rec_row(&hs_counts_desc, row, &g[i].c, &h->opts);
    }
    if (rest.connections) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, dim, "(other)");
        sat_rec_row(&hs_counts_desc, row, &rest, &h->opts);
    }
    free(g);
    sat_result_set_main(r, t);
    return SAT_OK;
}

/* Windows dense from the first to the last, so gaps read as zeros; the
 * busiest one's rate and start. */
static void peak_of(const sat_hs *h, double *rate, int64_t *at)
{
    *rate = NAN;
    *at = 0;
    double ws = (double)h->window / 1e9;
    for (size_t i = 0; i < h->windows.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&h->windows, i), sizeof k);
        const hs_counts *c = (const hs_counts *)sat_strtab_val(&h->windows, i);
        double x = (double)c->connections / ws;
        if (isnan(*rate) || x > *rate || (x == *rate && k * h->window < *at)) {
            *rate = x;
            *at = k * h->window;
        }
    }
}

typedef struct win_rows {
    const sat_hs *h;
    sat_rnode *t;
} win_rows;

static void window_row(void *ctx, int64_t k, const void *payload)
{
    static const hs_counts none;
    const win_rows *x = (const win_rows *)ctx;
    sat_rnode *row = sat_table_row(x->t);
    sat_put_time(row, "start_ts", k * x->h->window);
    sat_rec_row(&hs_counts_desc, row, payload ? (const hs_counts *)payload : &none, &x->h->opts);
}

/* Every window from the first to the last (gaps read as zeros), or only
 * those with rows when they are far apart (winseries.h). */
static int put_windows(const sat_hs *h, sat_result *r, sat_rnode *root)
{
    static const sat_col start = {"start_ts", SAT_UNIT_TIME, 0, "start"};
    sat_put_dur(root, "window_s", (double)h->window / 1e9, 3);
    sat_rnode *t = counts_table(root, "windows", &start);
    sat_table_set_window(t, h->window);
    if (h->opts.by == SAT_HS_BY_NONE)
        sat_result_set_main(r, t);
    win_rows x = {h, t};
    return sat_win_walk(&h->windows, 4u * HS_WINDOWS_MAX, window_row, &x);
}

int sat_hs_result(const sat_hs *h, sat_result *r)
{
    sat_rnode *root = sat_result_root(r);
    if (!h || !root)
        return SAT_E_NOMEM;
    const hs_totals *t = &h->t;
    double peak;
    int64_t peak_ts;
    peak_of(h, &peak, &peak_ts);
    put_totals(h, root, &peak, &peak_ts);
    if (put_versions(h, root) < 0)
        return SAT_E_NOMEM;
    put_resumption(t, root);
    put_durations(t, root);
    sat_put_count(root, "retries", t->retries);
    sat_put_dur(root, "retry_gap_mean_s",
                t->retries ? sat_sum_d(t->retry_gap_ns) / 1e9 / (double)t->retries : NAN, 6);
    /* connections past the rule's cap: their retries are not in the count */
    sat_put_count(root, "retry_conns_not_examined", h->tries_lost);
    sat_rec_put(&hs_flags_desc, root, &t->flags, NULL);
    put_tcp(t, root);
    if (h->opts.by != SAT_HS_BY_NONE && put_groups(h, r, root) < 0)
        return SAT_E_NOMEM;
    if (put_windows(h, r, root) < 0)
        return SAT_E_NOMEM;
    if (hs_log_any(h->log) &&
        hs_log_result(h->log, &h->opts, r, root,
                      !t->all.connections && !t->tcp_conns && h->opts.by == SAT_HS_BY_NONE) < 0)
        return SAT_E_NOMEM;
    if (hs_dir_any(h->dir))
        hs_dir_result(h->dir, root);
    return sat_result_status(r);
}
