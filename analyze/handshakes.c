/*
 * handshakes.c - the TLS handshake analyzer (issue 3 "Commands"): from the
 * tls_hs rows of captures, how many handshakes were full, resumed, failed or
 * incomplete, the resumed ratio, a time series in fixed windows, the busiest
 * window, per client / server / SNI tables, handshake durations, an estimate
 * of the server CPU they cost, and the retries: a client whose handshake
 * failed or was abandoned coming back to the same server soon after.
 *
 * Why the cost model matters: a full handshake (a certificate signature and a
 * key exchange) costs the server about a hundred times a TLS <= 1.2
 * resumption (symmetric work only), so when resumption collapses under load
 * the CPU per connection jumps and the server falls further behind; TLS 1.3
 * PSK resumption usually still does an (EC)DHE exchange, so it saves less.
 *
 * Bounded memory: windows widen (doubling) past HS_WINDOWS_MAX buckets; the
 * group and retry tables are capped (strtab max_keys) with the overflow
 * counted. Retries are found in the order rows arrive (a connection's row is
 * emitted when it ends, and a client gives up on one connection before it
 * opens the next), which is why a retry is looked for only after its failure.
 */
#include "satscope/analyze.h"

#include "sketch.h"
#include "strtab.h"
#include "winseries.h"

#define HS_WINDOWS_MAX 4096
#define HS_VERSIONS_MAX 32
#define HS_GROUP_KEYS_MAX 100000
#define HS_PAIR_KEYS_MAX 1000000

typedef struct hs_pair {      /* client -> server, for retries */
    sat_ts_ns fail_ts;        /* ClientHello of the last failed/incomplete one, 0 none */
    sat_ts_ns first_ts;       /* of the pair's first handshake fed here (merge: a retry
                                 of the failure another part left pending) */
    int any_failed;           /* one of its handshakes here failed */
} hs_pair;

struct sat_hs {
    sat_hs_opts opts;
    sat_dur_ns window;        /* current step (>= opts.window) */
    sat_hs_counts all;
    sat_ts_ns first_ts, last_ts;
    sat_strtab windows;       /* key int64 window index -> sat_hs_counts */
    sat_hs_version versions[HS_VERSIONS_MAX + 1]; /* the last: all others */
    size_t nversions;
    sat_strtab groups;        /* key string -> sat_hs_counts */
    sat_hs_counts group_other;
    sat_strtab pairs;         /* key client|server -> hs_pair */
    uint64_t resumed_by[3], offered[3], hrr, renegotiated, ssl2_hello, late_start;
    uint64_t retries;
    int64_t retry_gap_sum_ns; /* in ns: a sum that merges exactly, in any order */
    sat_qsketch dur_full, dur_resumed;
    uint64_t tcp_conns, tcp_no_tls, tcp_by_end[SAT_TCP_END__COUNT], tcp_syn_retrans,
        tcp_no_synack;
    sat_qsketch rtt;
    int nomem;

    sat_hs_view view;
    sat_arena view_arena;
};

int sat_hs_by_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "none"))
        return SAT_HS_BY_NONE;
    if (!strcmp(s, "client"))
        return SAT_HS_BY_CLIENT;
    if (!strcmp(s, "server"))
        return SAT_HS_BY_SERVER;
    if (!strcmp(s, "sni"))
        return SAT_HS_BY_SNI;
    return -1;
}

/* ---- costs ------------------------------------------------------------------------ */
/* An alert ended a handshake the server had answered: capacity planning counts
 * it with the full ones (it cost as much), reports keep it among the failed. */
static int failed_after_server_hello(const sat_tls_hs *r)
{
    return r->outcome == SAT_TLS_FAILED && r->server_hello_ts != 0;
}

static double cost_us(const sat_hs *h, const sat_tls_hs *r)
{
    switch (r->outcome) {
    case SAT_TLS_FULL:
        return h->opts.full_cost_us;
    case SAT_TLS_RESUMED:
        return r->resumed_by == SAT_TLS_RESUME_PSK || r->version >= 0x0304
                   ? h->opts.psk_cost_us : h->opts.resumed_cost_us;
    case SAT_TLS_FAILED:
        /* An alert after the ServerHello: the server had done a full
         * handshake's expensive part (its certificate, the signature over its
         * key exchange, its key share), whatever the client made of it. */
        return failed_after_server_hello(r) ? h->opts.full_cost_us : 0.0;
    default:
        return 0.0; /* incomplete: never answered */
    }
}

static void count(sat_hs_counts *c, const sat_tls_hs *r, double cpu_s)
{
    c->connections++;
    if (r->outcome > 0 && r->outcome < SAT_HS_NOUT)
        c->n[r->outcome]++;
    c->failed_after_server_hello += failed_after_server_hello(r);
    c->cpu_s += cpu_s;
}

static void add_counts(sat_hs_counts *into, const sat_hs_counts *from)
{
    for (int i = 0; i < SAT_HS_NOUT; i++)
        into->n[i] += from->n[i];
    into->connections += from->connections;
    into->cpu_s += from->cpu_s;
    into->failed_after_server_hello += from->failed_after_server_hello;
}

/* ---- windows ------------------------------------------------------------------------ */
static void add_counts_v(void *into, const void *from)
{
    add_counts((sat_hs_counts *)into, (const sat_hs_counts *)from);
}

static sat_hs_counts *window_counts(sat_hs *h, sat_ts_ns ts)
{
    sat_hs_counts *c = NULL;
    if (!h->nomem && !(c = (sat_hs_counts *)sat_win_at(&h->windows, &h->window, ts, HS_WINDOWS_MAX,
                                                     sizeof(sat_hs_counts), add_counts_v)))
        h->nomem = 1;
    return c;
}

/* ---- rows ------------------------------------------------------------------------------ */
static void count_version(sat_hs *h, uint16_t v)
{
    for (size_t i = 0; i < h->nversions; i++)
        if (h->versions[i].version == v) {
            h->versions[i].count++;
            return;
        }
    if (h->nversions < HS_VERSIONS_MAX) {
        h->versions[h->nversions].version = v;
        h->versions[h->nversions++].count = 1;
    } else {
        h->versions[HS_VERSIONS_MAX].version = 0xffff; /* "other" */
        h->versions[HS_VERSIONS_MAX].count++;
    }
}

static size_t group_key(const sat_hs *h, const sat_tls_hs *r, char *buf, size_t cap)
{
    int n = 0;
    switch (h->opts.by) {
    case SAT_HS_BY_CLIENT:
        n = snprintf(buf, cap, "%.*s", (int)r->client_ip.len,
                     r->client_ip.ptr ? r->client_ip.ptr : "");
        break;
    case SAT_HS_BY_SERVER:
        n = snprintf(buf, cap, "%.*s:%u", (int)r->server_ip.len,
                     r->server_ip.ptr ? r->server_ip.ptr : "", r->server_port);
        break;
    case SAT_HS_BY_SNI:
        n = r->sni.ptr ? snprintf(buf, cap, "%.*s", (int)r->sni.len, r->sni.ptr)
                       : snprintf(buf, cap, "(no SNI)");
        break;
    default:
        return 0;
    }
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* A failed or incomplete handshake is remembered per client and server; the
 * next handshake of the same pair within retry_window is its retry. */
static void note_retry(sat_hs *h, const sat_tls_hs *r)
{
    char key[128];
    int n = snprintf(key, sizeof key, "%.*s|%.*s:%u", (int)r->client_ip.len,
                     r->client_ip.ptr ? r->client_ip.ptr : "", (int)r->server_ip.len,
                     r->server_ip.ptr ? r->server_ip.ptr : "", r->server_port);
    if (n <= 0)
        return;
    size_t len = (size_t)n < sizeof key ? (size_t)n : sizeof key - 1;
    int failed = r->outcome == SAT_TLS_FAILED || r->outcome == SAT_TLS_INCOMPLETE;
    int capped, is_new;
    /* every pair, not only those that failed: a part's first handshake of a
     * pair may retry what the part before it left failed (sat_hs_merge) */
    hs_pair *p = (hs_pair *)sat_strtab_upsert(&h->pairs, key, len, &is_new, &capped);
    if (!p)
        return;
    if (is_new)
        p->first_ts = r->ts;
    p->any_failed |= failed;
    if (p->fail_ts && r->ts > p->fail_ts && r->ts - p->fail_ts <= h->opts.retry_window) {
        h->retries++;
        h->retry_gap_sum_ns += r->ts - p->fail_ts;
        p->fail_ts = 0;
    }
    if (failed)
        p->fail_ts = r->ts;
}

static int on_tls(void *ctx, const sat_tls_hs *r)
{
    sat_hs *h = (sat_hs *)ctx;
    double cpu_s = cost_us(h, r) / 1e6;
    count(&h->all, r, cpu_s);
    if (r->ts > 0) {
        if (!h->first_ts || r->ts < h->first_ts)
            h->first_ts = r->ts;
        if (r->ts > h->last_ts)
            h->last_ts = r->ts;
        sat_hs_counts *w = window_counts(h, r->ts);
        if (w)
            count(w, r, cpu_s);
    }
    count_version(h, r->version);
    if (r->outcome == SAT_TLS_RESUMED) {
        if (r->resumed_by & SAT_TLS_RESUME_SESSION_ID)
            h->resumed_by[0]++;
        else if (r->resumed_by & SAT_TLS_RESUME_TICKET)
            h->resumed_by[1]++;
        else if (r->resumed_by & SAT_TLS_RESUME_PSK)
            h->resumed_by[2]++;
    }
    for (int b = 0; b < 3; b++)
        if (r->offered & (1u << b))
            h->offered[b]++;
    h->hrr += (r->flags & SAT_TLSF_HRR) != 0;
    h->renegotiated += (r->flags & SAT_TLSF_RENEGOTIATED) != 0;
    h->ssl2_hello += (r->flags & SAT_TLSF_SSL2_HELLO) != 0;
    h->late_start += (r->flags & SAT_TLSF_NO_CLIENT_HELLO) != 0;
    if (r->duration >= 0 && r->outcome == SAT_TLS_FULL)
        h->nomem |= sat_qsketch_add(&h->dur_full, r->duration) < 0;
    else if (r->duration >= 0 && r->outcome == SAT_TLS_RESUMED)
        h->nomem |= sat_qsketch_add(&h->dur_resumed, r->duration) < 0;

    if (h->opts.by != SAT_HS_BY_NONE) {
        char key[300];
        size_t len = group_key(h, r, key, sizeof key);
        int capped;
        sat_hs_counts *g = (sat_hs_counts *)sat_strtab_upsert(&h->groups, key, len, NULL,
                                                              &capped);
        if (!g && !capped)
            h->nomem = 1;
        count(g ? g : &h->group_other, r, cpu_s);
    }
    if (r->ts > 0)
        note_retry(h, r);
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_hs *h = (sat_hs *)ctx;
    h->tcp_conns++;
    if (!(c->flags & SAT_TCPF_TLS))
        h->tcp_no_tls++;
    if (c->end < SAT_TCP_END__COUNT)
        h->tcp_by_end[c->end]++;
    h->tcp_syn_retrans += c->syn_retrans;
    if (!(c->flags & (SAT_TCPF_SYNACK | SAT_TCPF_NO_SYN)))
        h->tcp_no_synack++;
    if (c->rtt >= 0)
        h->nomem |= sat_qsketch_add(&h->rtt, c->rtt) < 0;
    return SAT_OK;
}

/* ---- lifecycle --------------------------------------------------------------------------- */
sat_hs *sat_hs_create(const sat_hs_opts *opts)
{
    sat_hs *h = (sat_hs *)calloc(1, sizeof *h);
    if (!h)
        return NULL;
    if (opts)
        h->opts = *opts;
    if (h->opts.window <= 0)
        h->opts.window = 10 * (sat_dur_ns)1000000000;
    if (h->opts.retry_window <= 0)
        h->opts.retry_window = 10 * (sat_dur_ns)1000000000;
    if (!h->opts.top)
        h->opts.top = 20;
    if (h->opts.full_cost_us <= 0)
        h->opts.full_cost_us = SAT_HS_FULL_COST_US_DEFAULT;
    if (h->opts.resumed_cost_us <= 0)
        h->opts.resumed_cost_us = SAT_HS_RESUMED_COST_US_DEFAULT;
    if (h->opts.psk_cost_us <= 0)
        h->opts.psk_cost_us = SAT_HS_PSK_COST_US_DEFAULT;
    h->window = h->opts.window;
    sat_strtab_init(&h->windows, sizeof(sat_hs_counts), 0);
    sat_strtab_init(&h->groups, sizeof(sat_hs_counts), HS_GROUP_KEYS_MAX);
    sat_strtab_init(&h->pairs, sizeof(hs_pair), HS_PAIR_KEYS_MAX);
    sat_qsketch_init(&h->dur_full, 0);
    sat_qsketch_init(&h->dur_resumed, 0);
    sat_qsketch_init(&h->rtt, 0);
    h->view_arena.chunk_size = (size_t)64 << 10;
    return h;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_hs_sink(sat_hs *h)
{
    sat_event_sink s = {h,
                        SAT_TABLE_BIT(SAT_TABLE_TLS_HS) | SAT_TABLE_BIT(SAT_TABLE_TCP_CONN),
                        on_row};
    return s;
}

int sat_hs_merge(sat_hs *into, const sat_hs *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    add_counts(&into->all, &from->all);
    if (from->first_ts && (!into->first_ts || from->first_ts < into->first_ts))
        into->first_ts = from->first_ts;
    if (from->last_ts > into->last_ts)
        into->last_ts = from->last_ts;
    if (!into->nomem && sat_win_merge(&into->windows, &into->window, &from->windows,
                                      from->window, HS_WINDOWS_MAX, sizeof(sat_hs_counts), add_counts_v) < 0)
        into->nomem = 1;
    for (size_t i = 0; i < from->nversions; i++)
        for (uint64_t k = 0; k < from->versions[i].count; k++)
            count_version(into, from->versions[i].version);
    into->versions[HS_VERSIONS_MAX].count += from->versions[HS_VERSIONS_MAX].count;
    for (size_t i = 0; i < from->groups.n; i++) {
        int capped;
        sat_hs_counts *g = (sat_hs_counts *)sat_strtab_upsert(
            &into->groups, sat_strtab_key(&from->groups, i), sat_strtab_len(&from->groups, i),
            NULL, &capped);
        add_counts(g ? g : &into->group_other,
                   (const sat_hs_counts *)sat_strtab_val(&from->groups, i));
    }
    add_counts(&into->group_other, &from->group_other);
    for (int b = 0; b < 3; b++) {
        into->resumed_by[b] += from->resumed_by[b];
        into->offered[b] += from->offered[b];
    }
    into->hrr += from->hrr;
    into->renegotiated += from->renegotiated;
    into->ssl2_hello += from->ssl2_hello;
    into->late_start += from->late_start;
    into->retries += from->retries;
    into->retry_gap_sum_ns += from->retry_gap_sum_ns;
    /* across the cut: from's first handshake of a pair retries into's pending
     * failure as note_retry would have; then the pair is where from left it if
     * one of from's failed, else into's failure is still pending unless retried
     * (from's later handshakes are taken to come later, as captures give them) */
    for (size_t i = 0; i < from->pairs.n; i++) {
        const hs_pair *f = (const hs_pair *)sat_strtab_val(&from->pairs, i);
        int is_new, capped;
        hs_pair *p = (hs_pair *)sat_strtab_upsert(&into->pairs, sat_strtab_key(&from->pairs, i),
                                                  sat_strtab_len(&from->pairs, i), &is_new,
                                                  &capped);
        if (!p)
            continue;
        if (is_new) {
            *p = *f;
            continue;
        }
        if (p->fail_ts && f->first_ts > p->fail_ts &&
            f->first_ts - p->fail_ts <= into->opts.retry_window) {
            into->retries++;
            into->retry_gap_sum_ns += f->first_ts - p->fail_ts;
            p->fail_ts = 0;
        }
        if (f->any_failed)
            p->fail_ts = f->fail_ts;
        p->any_failed |= f->any_failed;
    }
    into->tcp_conns += from->tcp_conns;
    into->tcp_no_tls += from->tcp_no_tls;
    for (int e = 0; e < SAT_TCP_END__COUNT; e++)
        into->tcp_by_end[e] += from->tcp_by_end[e];
    into->tcp_syn_retrans += from->tcp_syn_retrans;
    into->tcp_no_synack += from->tcp_no_synack;
    if (sat_qsketch_merge(&into->rtt, &from->rtt) < 0)
        into->nomem = 1;
    if (sat_qsketch_merge(&into->dur_full, &from->dur_full) < 0 ||
        sat_qsketch_merge(&into->dur_resumed, &from->dur_resumed) < 0)
        into->nomem = 1;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

static int cmp_group(const void *a, const void *b)
{
    const sat_hs_group *x = a, *y = b;
    /* the most full handshakes first: they are what costs */
    if (x->c.n[SAT_TLS_FULL] != y->c.n[SAT_TLS_FULL])
        return x->c.n[SAT_TLS_FULL] < y->c.n[SAT_TLS_FULL] ? 1 : -1;
    if (x->c.connections != y->c.connections)
        return x->c.connections < y->c.connections ? 1 : -1;
    return strcmp(x->key, y->key);
}

static int cmp_version(const void *a, const void *b)
{
    const sat_hs_version *x = a, *y = b;
    return x->version < y->version ? 1 : x->version > y->version ? -1 : 0;
}

static double quantile_s(sat_qsketch *s, double q)
{
    return s->n ? sat_qsketch_quantile(s, q) / 1e9 : -1.0;
}

int sat_hs_finish(sat_hs *h)
{
    if (!h)
        return SAT_E_USAGE;
    sat_arena_free(&h->view_arena);
    h->view_arena.chunk_size = (size_t)64 << 10;
    sat_hs_view *v = &h->view;
    memset(v, 0, sizeof *v);
    v->all = h->all;
    uint64_t fr = h->all.n[SAT_TLS_FULL] + h->all.n[SAT_TLS_RESUMED];
    v->resumed_ratio = fr ? (double)h->all.n[SAT_TLS_RESUMED] / (double)fr : -1.0;
    v->first_ts = h->first_ts;
    v->last_ts = h->last_ts;
    v->span_s = h->last_ts > h->first_ts ? (double)(h->last_ts - h->first_ts) / 1e9 : 0.0;
    v->rate_per_s = v->span_s > 0 ? (double)h->all.connections / v->span_s : 0.0;
    memcpy(v->resumed_by, h->resumed_by, sizeof v->resumed_by);
    memcpy(v->offered, h->offered, sizeof v->offered);
    v->hrr = h->hrr;
    v->renegotiated = h->renegotiated;
    v->ssl2_hello = h->ssl2_hello;
    v->late_start = h->late_start;
    v->retries = h->retries;
    v->retry_gap_mean_s =
        h->retries ? (double)h->retry_gap_sum_ns / 1e9 / (double)h->retries : 0.0;
    v->full_p50_s = quantile_s(&h->dur_full, 0.5);
    v->full_p99_s = quantile_s(&h->dur_full, 0.99);
    v->resumed_p50_s = quantile_s(&h->dur_resumed, 0.5);
    v->resumed_p99_s = quantile_s(&h->dur_resumed, 0.99);
    v->tcp_conns = h->tcp_conns;
    v->tcp_no_tls = h->tcp_no_tls;
    memcpy(v->tcp_by_end, h->tcp_by_end, sizeof v->tcp_by_end);
    v->tcp_syn_retrans = h->tcp_syn_retrans;
    v->tcp_no_synack = h->tcp_no_synack;
    v->tcp_rtt_p50_s = quantile_s(&h->rtt, 0.5);
    v->tcp_rtt_p99_s = quantile_s(&h->rtt, 0.99);
    v->full_cost_us = h->opts.full_cost_us;
    v->resumed_cost_us = h->opts.resumed_cost_us;
    v->psk_cost_us = h->opts.psk_cost_us;
    v->by = h->opts.by;
    v->window = h->window;

    /* versions, newest first, "other" last */
    size_t nv = h->nversions + (h->versions[HS_VERSIONS_MAX].count ? 1 : 0);
    sat_hs_version *vs = (sat_hs_version *)sat_arena_alloc(&h->view_arena,
                                                           (nv ? nv : 1) * sizeof *vs);
    if (!vs)
        return SAT_E_NOMEM;
    memcpy(vs, h->versions, h->nversions * sizeof *vs);
    qsort(vs, h->nversions, sizeof *vs, cmp_version);
    if (nv > h->nversions)
        vs[h->nversions] = h->versions[HS_VERSIONS_MAX];
    v->versions = vs;
    v->nversions = nv;

    /* windows: dense from the first to the last, so gaps read as zeros */
    if (h->windows.n) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < h->windows.n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&h->windows, i), sizeof k);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        size_t n = (size_t)(hi - lo + 1);
        sat_hs_window *w = (sat_hs_window *)sat_arena_alloc(&h->view_arena, n * sizeof *w);
        if (!w)
            return SAT_E_NOMEM;
        memset(w, 0, n * sizeof *w);
        for (size_t i = 0; i < n; i++)
            w[i].start_ts = (lo + (int64_t)i) * h->window;
        for (size_t i = 0; i < h->windows.n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&h->windows, i), sizeof k);
            w[k - lo].c = *(const sat_hs_counts *)sat_strtab_val(&h->windows, i);
        }
        double ws = (double)h->window / 1e9;
        for (size_t i = 0; i < n; i++) {
            double rate = (double)w[i].c.connections / ws;
            if (rate > v->peak_rate_per_s) {
                v->peak_rate_per_s = rate;
                v->peak_ts = w[i].start_ts;
            }
        }
        v->windows = w;
        v->nwindows = n;
    }

    /* groups: the top N by full handshakes, then "(other)" */
    if (h->opts.by != SAT_HS_BY_NONE) {
        size_t n = h->groups.n;
        sat_hs_group *g = (sat_hs_group *)sat_arena_alloc(&h->view_arena,
                                                          (n + 1) * sizeof *g);
        if (!g)
            return SAT_E_NOMEM;
        for (size_t i = 0; i < n; i++) {
            g[i].key = sat_arena_strdup(&h->view_arena, sat_strtab_key(&h->groups, i),
                                        sat_strtab_len(&h->groups, i));
            if (!g[i].key)
                return SAT_E_NOMEM;
            g[i].c = *(const sat_hs_counts *)sat_strtab_val(&h->groups, i);
        }
        qsort(g, n, sizeof *g, cmp_group);
        size_t shown = n < h->opts.top ? n : h->opts.top;
        sat_hs_counts rest = h->group_other;
        for (size_t i = shown; i < n; i++)
            add_counts(&rest, &g[i].c);
        if (rest.connections) {
            g[shown].key = "(other)";
            g[shown].c = rest;
            shown++;
        }
        v->groups = g;
        v->ngroups = shown;
        v->groups_total = n + (h->group_other.connections ? 1 : 0);
    }
    return h->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_hs_view *sat_hs_get_view(const sat_hs *h) { return h ? &h->view : NULL; }

void sat_hs_free(sat_hs *h)
{
    if (!h)
        return;
    sat_strtab_free(&h->windows);
    sat_strtab_free(&h->groups);
    sat_strtab_free(&h->pairs);
    sat_qsketch_free(&h->dur_full);
    sat_qsketch_free(&h->dur_resumed);
    sat_qsketch_free(&h->rtt);
    sat_arena_free(&h->view_arena);
    free(h);
}
