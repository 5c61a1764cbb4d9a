/*
 * handshakes.c - the TLS handshake analyzer: from the
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
 * version and group tables are capped keyed tables (acc.h) whose overflow
 * goes to "(other)"; the connections kept for the retry rule are capped (HS_TRIES_MAX, those
 * past it counted as not looked at).
 *
 * Every count is a record described once (acc.h: its fields, merge and
 * result columns from one X-macro list), so sat_hs_merge is a walk over
 * them; the CPU estimate is derived from counts when written, so merged
 * parts cost exactly what one pass does. The result's sections:
 * handshakes_result.c; the handshakes an HTTP access log tells of:
 * handshakes_http.c; the TLS connections a directory server's log tells of
 * (not their resumption, which it does not log): handshakes_dirlog.c. Retries
 * follow the rule the storms analyzer counts by (retry_rule.h: the client's
 * next connection after it gave up on the failed one), once every part is in.
 */
#include <math.h>

#include "handshakes_int.h"

#define HS_VERSIONS_MAX 32
#define HS_GROUP_KEYS_MAX 100000

/* ---- the records, described once --------------------------------------------------- */

static double resumed_ratio(const void *rec, const void *ctx)
{
    const hs_counts *c = rec;
    (void)ctx;
    uint64_t fr = c->full + c->resumed;
    return fr ? (double)c->resumed / (double)fr : NAN;
}

static double cpu_of(const void *rec, const void *ctx) { return hs_cpu_s(ctx, rec); }

#define HS_COUNT_ACC(f, key, title, note) SAT_COUNTER(hs_counts, f, key, title, note),
static const sat_acc_field counts_fields[] = {
    HS_COUNTS(HS_COUNT_ACC)
    SAT_ACC_DERIVE("resumed_ratio", SAT_UNIT_RATIO, 4, "resumed%", "resumed / (full + resumed)",
                   resumed_ratio),
    SAT_ACC_DERIVE("cpu_s", SAT_UNIT_DURATION, 6, "cpu", "server CPU for these handshakes (estimate)",
                   cpu_of),
};
const sat_rec_desc hs_counts_desc = {sizeof(hs_counts), counts_fields,
                                     sizeof counts_fields / sizeof counts_fields[0], NULL};

#define HS_FLAG_ACC(f, key, title, note) SAT_COUNTER(hs_flags, f, key, title, note),
static const sat_acc_field flags_fields[] = {HS_FLAGS(HS_FLAG_ACC)};
const sat_rec_desc hs_flags_desc = {sizeof(hs_flags), flags_fields,
                                    sizeof flags_fields / sizeof flags_fields[0], NULL};

static const sat_acc_field totals_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_totals, all),
    SAT_ACC(SAT_ACC_FIRST, hs_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, hs_totals, last_ts),
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_totals, resumed_by),
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_totals, offered),
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_totals, flags),
    SAT_ACC(SAT_ACC_COUNT, hs_totals, retries),
    SAT_ACC(SAT_ACC_SUM, hs_totals, retry_gap_ns),
    SAT_ACC(SAT_ACC_COUNT, hs_totals, tcp_conns),
    SAT_ACC(SAT_ACC_COUNT, hs_totals, tcp_no_tls),
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_totals, tcp_by_end),
    SAT_ACC(SAT_ACC_COUNT, hs_totals, tcp_syn_retrans),
    SAT_ACC(SAT_ACC_COUNT, hs_totals, tcp_no_synack),
    SAT_ACC(SAT_ACC_SKETCH, hs_totals, dur_full),
    SAT_ACC(SAT_ACC_SKETCH, hs_totals, dur_resumed),
    SAT_ACC(SAT_ACC_SKETCH, hs_totals, rtt),
    SAT_ACC(SAT_ACC_FIRST, hs_totals, capture_first),
    SAT_ACC(SAT_ACC_LAST, hs_totals, capture_last),
};
const sat_rec_desc hs_totals_desc = {sizeof(hs_totals), totals_fields,
                                     sizeof totals_fields / sizeof totals_fields[0], NULL};

static const sat_acc_field vcount_fields[] = {SAT_ACC(SAT_ACC_COUNT, hs_vcount, count)};
static const sat_rec_desc vcount_desc = {sizeof(hs_vcount), vcount_fields, 1, NULL};

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

/* A resumption costs a TLS 1.3 PSK's (an (EC)DHE exchange) or a TLS <= 1.2
 * one's (symmetric work only). */
static int resumed_psk(const sat_tls_hs *r)
{
    return r->outcome == SAT_TLS_RESUMED &&
           (r->resumed_by == SAT_TLS_RESUME_PSK || r->version >= 0x0304);
}

/* The server CPU of a set of handshakes, from its counts: full ones and those
 * that failed after the ServerHello (the server had done a full handshake's
 * expensive part: its certificate, the signature over its key exchange, its
 * key share) at full cost, resumptions at theirs, incomplete ones (never
 * answered) and failures before any ServerHello at nothing. Made from
 * counts, so that merged parts cost exactly what one pass does. */
double hs_cpu_s(const sat_hs_opts *o, const hs_counts *c)
{
    uint64_t full = c->full + c->failed_after_server_hello;
    uint64_t res = c->resumed - c->resumed_psk;
    return ((double)full * o->full_cost_us + (double)res * o->resumed_cost_us +
            (double)c->resumed_psk * o->psk_cost_us) / 1e6;
}

static void count(hs_counts *c, const sat_tls_hs *r)
{
    c->connections++;
    c->full += r->outcome == SAT_TLS_FULL;
    c->resumed += r->outcome == SAT_TLS_RESUMED;
    c->failed += r->outcome == SAT_TLS_FAILED;
    c->incomplete += r->outcome == SAT_TLS_INCOMPLETE;
    c->no_sni += !sat_str_present(r->sni);
    c->failed_after_server_hello += failed_after_server_hello(r);
    c->resumed_psk += resumed_psk(r);
}

/* ---- windows ------------------------------------------------------------------------ */
static void add_counts_v(void *into, const void *from)
{
    (void)sat_rec_merge(&hs_counts_desc, into, from); /* counters only: cannot fail */
}

static hs_counts *window_counts(sat_hs *h, sat_ts_ns ts)
{
    hs_counts *c = NULL;
    if (!h->nomem && !(c = (hs_counts *)sat_win_at(&h->windows, &h->window, ts, HS_WINDOWS_MAX,
                                                     sizeof(hs_counts), add_counts_v)))
        h->nomem = 1;
    return c;
}

/* ---- rows ------------------------------------------------------------------------------ */
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

/* ---- retries (the rule: retry_rule.h) ----------------------------------------------------- */

/* Room for one more in a list of the retry rule (n of cap, at most
 * HS_TRIES_MAX); 0 when there is none: the row is counted as not looked at
 * (or, out of memory, nomem). */
static int hs_room(sat_hs *h, int ok, size_t cap)
{
    if (!ok) {
        h->nomem |= cap < HS_TRIES_MAX;
        h->tries_lost++;
    }
    return ok;
}
#define HS_ROOM(h, arr, n, cap)                                                                  \
    hs_room(h, (n) < (cap) || ((cap) < HS_TRIES_MAX && SAT_GROW(arr, cap, (n) + 1) == SAT_OK), cap)

/* A failed or incomplete handshake: its connection, for the retry rule. */
static void note_failed(sat_hs *h, const sat_tls_hs *r)
{
    if (r->outcome != SAT_TLS_FAILED && r->outcome != SAT_TLS_INCOMPLETE)
        return;
    if (!HS_ROOM(h, h->failed, h->nfailed, h->failed_cap))
        return;
    h->failed[h->nfailed++] = (uint64_t)r->source << 32 | r->flow;
}

/* A TCP connection with its SYN (one opened before the capture retries nothing). */
static void note_try(sat_hs *h, const sat_tcp_conn *c)
{
    if ((c->flags & SAT_TCPF_NO_SYN) || c->syn_ts <= 0 || !c->client_ip.len)
        return;
    if (!HS_ROOM(h, h->tries, h->ntries, h->tries_cap))
        return;
    hs_try *a = &h->tries[h->ntries++];
    sat_try_of_tcp(&a->t, c);
    a->source = c->source;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void on_retry(void *ctx, size_t i, size_t f)
{
    sat_hs *h = (sat_hs *)ctx;
    h->t.retries++;
    sat_sum_add(&h->t.retry_gap_ns, h->tries[i].t.syn_ts - h->tries[f].t.gave_up_ts);
}

/* The retries, once every part is in: each connection whose handshake
 * failed or was left incomplete, and the connection that retried it. */
static void count_retries(sat_hs *h)
{
    if (!h->ntries) {
        h->nfailed = 0;
        return;
    }
    if (h->nfailed)
        qsort(h->failed, h->nfailed, sizeof *h->failed, cmp_u64);
    for (size_t i = 0; i < h->ntries; i++) {
        uint64_t key = (uint64_t)h->tries[i].source << 32 | h->tries[i].t.flow;
        h->tries[i].t.failed =
            h->nfailed && bsearch(&key, h->failed, h->nfailed, sizeof key, cmp_u64) != NULL;
    }
    if (sat_try_match(h->tries, h->ntries, sizeof *h->tries, h->opts.retry_window, on_retry, NULL,
                      h) != SAT_OK)
        h->nomem = 1;
    h->ntries = h->nfailed = 0; /* counted: a second finish must not count them again */
}

static int append(void *dst, size_t *n, size_t *cap, const void *src, size_t m, size_t size)
{
    if (!m)
        return 0;
    if (*n + m > HS_TRIES_MAX)
        return 1;
    char *p = *(char **)dst;
    if (*n + m > *cap) {
        size_t c = *cap ? *cap : 64;
        while (c < *n + m)
            c *= 2;
        p = realloc(p, c * size);
        if (!p)
            return -1;
        *(char **)dst = p;
        *cap = c;
    }
    memcpy(p + *n * size, src, m * size);
    *n += m;
    return 0;
}

/* A later part's connections and failures join into's (the rule does not
 * depend on the order they came in). */
static int merge_tries(sat_hs *into, const sat_hs *from)
{
    int a = append(&into->tries, &into->ntries, &into->tries_cap, from->tries, from->ntries,
                   sizeof *from->tries);
    int b = append(&into->failed, &into->nfailed, &into->failed_cap, from->failed, from->nfailed,
                   sizeof *from->failed);
    if (a < 0 || b < 0)
        return SAT_E_NOMEM;
    into->tries_lost += from->tries_lost + (a ? from->ntries : 0) + (b ? from->nfailed : 0);
    return SAT_OK;
}

/* The resumption a ClientHello offered. A hello that offers TLS 1.3 (or a
 * draft of it) sends a legacy session id whether or not it holds a session:
 * in middlebox compatibility mode (RFC 8446 4.1.2, D.4) it is 32 random
 * bytes, not an offer, and nothing in the hello tells the two apart. Its
 * resumption offer is pre_shared_key (or a TLS 1.2 session_ticket); its
 * session id counts as offered only when a TLS <= 1.2 server resumed by it
 * (then it was a cached id: RFC 8446 4.1.2 has a client put one there). A
 * cached id a 1.2 server did not accept is not counted (no telling). A
 * hello that does not offer 1.3 offers its session id when non-empty. The
 * row keeps what the client sent (dis_tls.c); this is the count's rule. */
static int offers_tls13(uint16_t v)
{
    return v == 0x0304 || (v >> 8) == 0x7f || v == 0x7e01 || v == 0x7e02;
}

static uint8_t offers_of(const sat_tls_hs *r)
{
    uint8_t o = r->offered;
    if ((o & SAT_TLS_RESUME_SESSION_ID) && offers_tls13(r->offered_version) &&
        !(r->outcome == SAT_TLS_RESUMED && (r->resumed_by & SAT_TLS_RESUME_SESSION_ID)))
        o &= (uint8_t)~SAT_TLS_RESUME_SESSION_ID;
    return o;
}

static int on_tls(void *ctx, const sat_tls_hs *r)
{
    sat_hs *h = (sat_hs *)ctx;
    hs_totals *t = &h->t;
    count(&t->all, r);
    if (r->ts > 0) {
        sat_acc_first(&t->first_ts, r->ts, NULL, 0);
        sat_acc_last(&t->last_ts, r->ts, NULL, 0);
        hs_counts *w = window_counts(h, r->ts);
        if (w)
            count(w, r);
    }
    uint16_t ver = r->version;
    hs_vcount *vc = (hs_vcount *)sat_keyed_at(&h->versions, &ver, sizeof ver, NULL);
    if (vc)
        vc->count++;
    else
        h->nomem = 1;
    if (r->outcome == SAT_TLS_RESUMED) {
        if (r->resumed_by & SAT_TLS_RESUME_SESSION_ID)
            t->resumed_by[0]++;
        else if (r->resumed_by & SAT_TLS_RESUME_TICKET)
            t->resumed_by[1]++;
        else if (r->resumed_by & SAT_TLS_RESUME_PSK)
            t->resumed_by[2]++;
    }
    uint8_t offered = offers_of(r);
    for (int b = 0; b < 3; b++)
        if (offered & (1u << b))
            t->offered[b]++;
    t->flags.hrr += (r->flags & SAT_TLSF_HRR) != 0;
    t->flags.renegotiated += (r->flags & SAT_TLSF_RENEGOTIATED) != 0;
    t->flags.ssl2_hello += (r->flags & SAT_TLSF_SSL2_HELLO) != 0;
    t->flags.late_start += (r->flags & SAT_TLSF_NO_CLIENT_HELLO) != 0;
    if (r->duration >= 0 && r->outcome == SAT_TLS_FULL)
        h->nomem |= sat_qsketch_add(&t->dur_full, r->duration) < 0;
    else if (r->duration >= 0 && r->outcome == SAT_TLS_RESUMED)
        h->nomem |= sat_qsketch_add(&t->dur_resumed, r->duration) < 0;

    if (h->opts.by != SAT_HS_BY_NONE) {
        char key[300];
        size_t len = group_key(h, r, key, sizeof key);
        hs_counts *g = (hs_counts *)sat_keyed_at(&h->groups, key, len, NULL);
        if (g)
            count(g, r);
        else
            h->nomem = 1;
    }
    note_failed(h, r);
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_hs *h = (sat_hs *)ctx;
    hs_totals *t = &h->t;
    t->tcp_conns++;
    if (!(c->flags & SAT_TCPF_TLS))
        t->tcp_no_tls++;
    if (c->end < SAT_TCP_END__COUNT)
        t->tcp_by_end[c->end]++;
    t->tcp_syn_retrans += c->syn_retrans;
    if (!(c->flags & (SAT_TCPF_SYNACK | SAT_TCPF_NO_SYN)))
        t->tcp_no_synack++;
    if (c->rtt >= 0)
        h->nomem |= sat_qsketch_add(&t->rtt, c->rtt) < 0;
    note_try(h, c);
    return SAT_OK;
}

/* A source: a capture's span (a time range outside it has no handshakes
 * known, not 0), an HTTP or a directory-server log's format. */
static void on_source(sat_hs *h, const sat_source *s)
{
    if (s->kind.ptr && s->kind.len == 4 && memcmp(s->kind.ptr, "pcap", 4) == 0 && s->first_ts > 0) {
        sat_acc_first(&h->t.capture_first, s->first_ts, NULL, 0);
        sat_acc_last(&h->t.capture_last, s->last_ts > s->first_ts ? s->last_ts : s->first_ts,
                     NULL, 0);
    }
    hs_log_source(h->log, s);
    hs_dir_source(h->dir, s);
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
    sat_rec_init(&hs_totals_desc, &h->t);
    sat_strtab_init(&h->windows, sizeof(hs_counts), 0);
    if (sat_keyed_init(&h->versions, &vcount_desc, HS_VERSIONS_MAX) < 0 ||
        sat_keyed_init(&h->groups, &hs_counts_desc, HS_GROUP_KEYS_MAX) < 0 ||
        !(h->log = hs_log_create(h->opts.window)) || !(h->dir = hs_dir_create())) {
        sat_hs_free(h);
        return NULL;
    }
    return h;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    case SAT_TABLE_SOURCE:
        on_source((sat_hs *)ctx, (const sat_source *)row);
        return SAT_OK;
    case SAT_TABLE_LDAP_CONN:
        hs_dir_conn(((sat_hs *)ctx)->dir, (const sat_ldap_conn *)row);
        return SAT_OK;
    case SAT_TABLE_HTTP_REQ:
        if (hs_log_row(((sat_hs *)ctx)->log, (const sat_http_req *)row) < 0)
            return SAT_E_NOMEM;
        return SAT_OK;
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_hs_sink(sat_hs *h)
{
    sat_event_sink s = {h,
                        SAT_TABLE_BIT(SAT_TABLE_TLS_HS) | SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN),
                        on_row};
    return s;
}

/* A walk over the accumulators; from is the later part (its rows came
 * after into's), which retries across the two parts need. */
int sat_hs_merge(sat_hs *into, const sat_hs *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    if (sat_rec_merge(&hs_totals_desc, &into->t, &from->t) < 0 || merge_tries(into, from) < 0 ||
        sat_keyed_merge(&into->versions, &from->versions) < 0 ||
        sat_keyed_merge(&into->groups, &from->groups) < 0 ||
        hs_log_merge(into->log, from->log) < 0 || hs_dir_merge(into->dir, from->dir) < 0)
        into->nomem = 1;
    if (!into->nomem && sat_win_merge(&into->windows, &into->window, &from->windows,
                                      from->window, HS_WINDOWS_MAX, sizeof(hs_counts),
                                      add_counts_v) < 0)
        into->nomem = 1;
    into->nomem |= from->nomem;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* The result is made from the state (handshakes_result.c): nothing to do
 * here but say whether every row was counted. */
int sat_hs_finish(sat_hs *h)
{
    if (!h)
        return SAT_E_USAGE;
    count_retries(h);
    return h->nomem ? SAT_E_NOMEM : SAT_OK;
}

void sat_hs_free(sat_hs *h)
{
    if (!h)
        return;
    sat_rec_free(&hs_totals_desc, &h->t);
    sat_strtab_free(&h->windows);
    sat_keyed_free(&h->versions);
    sat_keyed_free(&h->groups);
    free(h->tries);
    free(h->failed);
    hs_log_free(h->log);
    hs_dir_free(h->dir);
    free(h);
}
