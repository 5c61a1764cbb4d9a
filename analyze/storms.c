/*
 * storms.c - the timeout-storm analyzer (issue 4 "satscope storms"): client
 * failures from every source, counted per window, a detector that finds the
 * windows where they rose above the series' own baseline, adjacent windows
 * merged into storms, and per storm what rose before it and whether the
 * failures outlived their trigger (a metastable failure).
 *
 * Failures (enum sat_storm_kind), one per failed operation or connection:
 *   ldap_op   ABANDON; results err=3 (timeLimitExceeded), 11 (adminLimit-
 *             Exceeded), 51 (busy), 52 (unavailable), 80 (other) - RFC 4511
 *             4.1.9; external operations only (internal ones are the server's)
 *   ldap_conn 389 close codes A1 (client abandoned / closed with an op
 *             outstanding), B1, B4, T1, T2, T3 (event.h sat_close_code)
 *   tls_hs    incomplete (ClientHello never answered) and failed handshakes
 *   tcp_conn  a client RST or FIN with a request unanswered (the dissector's
 *             view, event.h SAT_TCPF_CLIENT_LEFT_WAITING); a connection
 *             attempt the server never answered before the client gave up
 *             (SAT_TCPF_SYN_GAVE_UP: a full listen queue drops SYNs), dated
 *             when it gave up (its RST or FIN, else its last SYN + 1 s, the
 *             least a stack waits before sending it again: RFC 6298 2.1); a
 *             connection whose SYN had to be sent again and that carried no
 *             byte of the client (answered too late: it gave up at once; one
 *             that went on to carry its request was slow, not failed); a
 *             connection given up for a retry (finish_retries)
 * Deduplication: an ABANDON and the A1 close of the same connection (key
 * server + conn_epoch + conn) are one failure, counted as the ABANDON; on the
 * wire one failure per connection (key source + flow), counted as the most
 * specific kind (TLS > client RST or FIN or SYN never answered > SYN retry
 * > retried), so an
 * incomplete handshake, the client's FIN or RST that followed it and its
 * retry are one. The rule does not depend on the order rows arrive in: a
 * later, more specific row moves the count.
 *
 * The detector (sat_storms_detect), on x_t = failures in window t:
 *   baseline  mu: the lower median of the first 30 windows (a series shorter
 *             than that starts at the floor below: it has no baseline of its
 *             own, and a capture taken during an incident may be mostly
 *             storm, which the median would take for the usual), then an
 *             EWMA (alpha 1/30) of the windows outside storms, each clipped to
 *             lam0 +- (4 sqrt(lam0) + 1) first, so the first windows of a storm
 *             (before its alarm) barely move it, nor does one empty window
 *             (a gap in the log) make the next normal one look like a burst.
 *             lam0 = max(mu, floor), floor = 0.05 a second of window, at most
 *             0.5 (0.5 per 10 s window, 0.1 per 2 s): a handful of failures
 *             stands out from a baseline of 0 whatever the window.
 *   CUSUM     S_t = max(0, S_{t-1} + x_t ln 2 - lam0): the Poisson log-
 *             likelihood ratio of a doubled rate (lam1 = 2 lam0) against
 *             lam0. An alarm when S_t > H = 6, or (a Shewhart rule beside
 *             the CUSUM, for a burst in one window) when P(X >= x_t) < 1e-5
 *             under Poisson(lam0) and x_t >= 5, or the same of the last three
 *             windows' sum under Poisson(3 lam0) (a burst cut by short
 *             windows: 3 + 3 + 3 in 2 s windows against 0): 7 failures in a window
 *             against a baseline of 0 are a storm, 5 are not. Figures (tests/unit/
 *             test_storms.c, fixed seeds): 0 to 3 false alarms in 5,000
 *             windows of steady Poisson series of means 0 .. 200 (the worst,
 *             3, at a mean of 20: one per 1,700 windows); a doubling of a mean
 *             of 20 found in 1-2 windows; 12 failures in 3 s against 0 found.
 *   extent    the storm starts at the first window of the CUSUM's excursion
 *             (since S was last 0) whose count is above lam0, and runs while
 *             windows are "high" (x > lam0 + 2 sqrt(lam0)), ending after two
 *             windows that are not; S is then reset and the baseline resumes.
 *   kept      when it holds >= 5 failures and its peak window is above
 *             lam0 + 3 sqrt(lam0) (a significant window, not only a drift).
 *
 * Signals per window, for the chain: unindexed searches, external operations,
 * the full-handshake share, etime p90 (a log histogram, factor 1.25: +-12%),
 * wtime mean, connections opened. For each: base = median of the windows
 * [start-33, start-4], before = the highest of [start-3, start], "rose" when
 * before > max(2 base, base + a floor per signal); onset = where the run of
 * windows above that threshold that reaches the lead-up began (a gap of one
 * window allowed, 30 windows at most; for a signal that did not rise, the
 * first window above it during the storm), back = the first window after
 * the rise that begins three in a row at or below it. The trigger is the
 * risen cause (unindexed searches, load, a new heavy client - preferred to
 * the load it makes -, full-handshake share) with the earliest onset; only
 * when no cause rose, the risen effect (etime, wtime, connections opened,
 * handshake answer time) with the earliest onset.
 * Sustained (metastable): the storm's failures stayed high for at least 3
 * more windows after the trigger was back at its threshold.
 *
 * Windows: with --window, that step; without, every row is counted at 1, 2,
 * 5 and 10 s at once, the input is cut into periods at silences of an hour
 * or more (find_periods: last month's log and today's capture are two), and
 * each period is read at the longest step that gives it 30 windows, else 1 s
 * (choose_step). A storm, its baseline and its look back belong to one period.
 *
 * Bounded memory: windows widen (doubling) past 4096 (a finer series of the
 * default steps is dropped instead: the 10 s one covers what needs that
 * many windows); distinct clients per
 * window are a 4096-bit linear count; failures per client and window (at
 * the --window step, so exact whatever the order of the rows) a table of at
 * most 250,000 pairs; the client and dedup tables are capped (their overflow
 * is still counted, only without a name or a dedup).
 */
#include <math.h>

#include "satscope/analyze.h"

#include "strtab.h"
#include "winseries.h"

#define ST_WINDOWS_MAX 4096
#define ST_BITS 4096
#define ST_CW_MAX 250000
#define ST_HIST 80
#define ST_CLIENTS_MAX 100000
#define ST_DEDUP_MAX 1000000
#define ST_MG 4 /* heavy hitters kept per window (Misra-Gries) */
#define ST_ATTEMPTS_MAX 2000000

#define ST_FLOOR 0.5
#define ST_H 6.0
#define ST_ALPHA (1.0 / 30.0)
#define ST_WARM 30
#define ST_GAP 2
#define ST_MIN_EVENTS 5
#define ST_SPIKE_P 1e-5

typedef struct st_win {
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    uint64_t events;
    uint64_t bits[ST_BITS / 64];
    uint64_t ops, unindexed, opens, hs_full, hs_resumed, timed, wtime_n;
    double wtime_sum_s;
    uint32_t hist[ST_HIST + 1]; /* etime; [ST_HIST]: never answered (its connection
                                   closed first) */
    uint64_t answered, retries;
    uint32_t mg_id[ST_MG], mg_n[ST_MG]; /* busiest clients by operations: peers ids,
                                           Misra-Gries counts (a lower bound each) */
    uint32_t ans_hist[ST_HIST + 1]; /* ClientHello -> ServerHello; [ST_HIST]: never */
} st_win;

typedef struct st_connkey {
    uint32_t server, epoch;
    int64_t conn;
} st_connkey;

typedef struct st_waiting { /* keep_closed_waiting */
    st_connkey key;
    sat_ts_ns ts;
    uint32_t client, pad;   /* id in the peers table, UINT32_MAX none */
} st_waiting;

/* A TCP connection, kept for the retry rule (sat_storms_opts.retry_window). */
typedef struct st_attempt {
    uint64_t peer;          /* hash of source, client, server address and port */
    sat_ts_ns syn_ts, end_ts;
    uint32_t source, flow;
    uint32_t client;        /* id in the peers table */
    uint8_t unanswered;     /* the client sent bytes, the server none */
} st_attempt;

typedef struct st_cwkey {
    uint32_t id, pad;
    int64_t widx; /* window at the opts.window step (never widened) */
} st_cwkey;

typedef struct st_dedup {
    sat_ts_ns ts;
    uint8_t kind, has;
} st_dedup;

/* One series of windows at one step (window). Without --window the rows are
 * counted at every step of st_auto_steps at once, each series exact, and each
 * period of the input is analysed at the step that suits its length
 * (choose_step); with --window, at that one step. */
typedef struct st_series {
    sat_dur_ns window;  /* the step, widened (doubling) past ST_WINDOWS_MAX windows */
    sat_dur_ns base;    /* the step it was created with */
    sat_strtab windows; /* int64 window index -> st_win */
    int dropped;        /* a finer series past ST_WINDOWS_MAX windows: no longer counted
                           (whatever needs that many windows of it is long enough for a
                           coarser step; widened it would only copy the next series) */
} st_series;

#define ST_SERIES_MAX 4
static const sat_dur_ns st_auto_steps[ST_SERIES_MAX] = {
    1000000000LL, 2000000000LL, 5000000000LL, 10000000000LL};

typedef struct st_src { /* an input, for the periods it covers */
    sat_ts_ns first_ts, last_ts;
} st_src;

struct sat_storms {
    sat_storms_opts opts;
    int auto_window;    /* no --window: the step follows each period */
    int nser;
    st_series ser[ST_SERIES_MAX]; /* finest first */
    sat_strtab sources; /* path -> st_src */
    sat_strtab clients; /* client string -> uint32 id (= insertion index) */
    sat_strtab cw;      /* st_cwkey -> uint64 failures of that client in that window */
    sat_strtab ldap_dedup, wire_dedup;
    sat_strtab peers;       /* client address -> uint32 id (insertion index): of the
                               attempts, the requests left at a close, the heavy
                               hitters */
    sat_strtab wire_servers;/* uint32 server -> (nothing): LDAP rows of captures */
    st_attempt *attempts;
    size_t nattempts, attempts_cap;
    st_waiting *waiting;
    size_t nwaiting, waiting_cap;
    uint64_t waiting_lost;
    uint64_t attempts_lost, retries;
    uint64_t kinds[SAT_STORM_KIND__COUNT], events, deduped;
    uint64_t ldap_ops, ldap_conns, tls_hs, tcp_conns;
    sat_ts_ns first_ts, last_ts;
    int nomem;
    int clients_lost; /* a client or client-window pair past its table's cap */
    sat_storms_view view;
    sat_arena view_arena;
};

const char *sat_storm_kind_name(int k)
{
    static const char *const names[SAT_STORM_KIND__COUNT] = {
        "abandon", "time_limit", "admin_limit", "busy", "unavailable", "other_error",
        "close_A1", "close_B1", "close_B4", "close_T1", "close_T2", "close_T3",
        "tls_incomplete", "tls_failed", "rst_client", "syn_retry", "fin_waiting", "retried",
        "closed_waiting", "syn_unanswered"};
    return k >= 0 && k < SAT_STORM_KIND__COUNT ? names[k] : "?";
}

const char *sat_storm_signal_name(int s)
{
    static const char *const names[SAT_SIG__COUNT] = {
        "unindexed", "ops", "full_hs_share", "etime_p90_s", "wtime_mean_s", "conn_opens",
        "hs_answer_p90_s", "heavy_client_ops"};
    return s >= 0 && s < SAT_SIG__COUNT ? names[s] : "?";
}

/* ---- the detector ---------------------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* P(X >= x) for X ~ Poisson(lam), summed from x up (the tail is what is
 * small, so no 1 - cdf cancellation). */
static double poisson_sf(uint64_t x, double lam)
{
    if ((double)x <= lam)
        return 1.0; /* not in the upper tail (and the sum below needs decreasing terms) */
    double term = exp(-lam + (double)x * log(lam) - lgamma((double)x + 1.0)), sum = 0.0;
    for (uint64_t k = x; k < x + 1000 && term > sum * 1e-12; k++) {
        sum += term;
        term *= lam / (double)(k + 1);
    }
    return sum;
}

/* A window so far above the baseline that it alarms on its own. */
static int spike(uint64_t x, double lam0)
{
    return x >= ST_MIN_EVENTS && poisson_sf(x, lam0) < ST_SPIKE_P;
}

/* The last three windows together so far above three baselines that they
 * alarm: a burst cut in pieces by windows shorter than it. */
static int burst3(const uint64_t *x, size_t t, double lam0)
{
    if (t < 2)
        return 0;
    uint64_t sum = x[t] + x[t - 1] + x[t - 2];
    return x[t] && sum >= ST_MIN_EVENTS && poisson_sf(sum, 3.0 * lam0) < ST_SPIKE_P;
}

size_t sat_storms_detect(const uint64_t *x, size_t n, double floor, sat_storm_span *spans,
                         size_t cap)
{
    if (!x || !n)
        return 0;
    if (!(floor > 0))
        floor = ST_FLOOR;
    uint64_t warm[ST_WARM];
    size_t nw = n < ST_WARM ? n : ST_WARM;
    memcpy(warm, x, nw * sizeof *warm);
    qsort(warm, nw, sizeof *warm, cmp_u64);
    /* lower median; a series shorter than the warm-up has no baseline of
     * its own (a capture taken during the incident may be mostly storm,
     * and the median would be the storm's level): it is measured against
     * the floor, the next to no failures of a healthy server */
    double mu = n < ST_WARM ? floor : (double)warm[(nw - 1) / 2];
    double s = 0.0;
    size_t found = 0, exc_start = 0;
    const double ln2 = 0.6931471805599453;
    for (size_t t = 0; t < n; t++) {
        double lam0 = mu > floor ? mu : floor;
        double xt = (double)x[t];
        if (s == 0.0)
            exc_start = t;
        s = s + xt * ln2 - lam0;
        if (s < 0)
            s = 0.0;
        if (s <= ST_H && !spike(x[t], lam0) && !burst3(x, t, lam0)) {
            double band = 4.0 * sqrt(lam0) + 1.0;
            double xc = xt > lam0 + band ? lam0 + band : xt < lam0 - band ? lam0 - band : xt;
            mu += ST_ALPHA * (xc - mu);
            continue;
        }
        /* alarm: where it began, then how long it lasts */
        size_t start = exc_start;
        while (start < t && (double)x[start] <= lam0)
            start++;
        double high = lam0 + 2.0 * sqrt(lam0);
        size_t end = t, peak = start, quiet = 0, u = t + 1;
        for (; u < n && quiet < ST_GAP; u++) {
            if ((double)x[u] > high) {
                end = u;
                quiet = 0;
            } else {
                quiet++;
            }
        }
        uint64_t events = 0;
        for (size_t k = start; k <= end; k++) {
            events += x[k];
            if (x[k] > x[peak])
                peak = k;
        }
        if (events >= ST_MIN_EVENTS && (double)x[peak] > lam0 + 3.0 * sqrt(lam0)) {
            if (found < cap) {
                spans[found].start = start;
                spans[found].end = end;
                spans[found].peak = peak;
                spans[found].expected = lam0;
            }
            found++;
        }
        s = 0.0;
        t = end; /* the loop resumes after the storm; the baseline stays frozen */
    }
    return found;
}

/* ---- windows --------------------------------------------------------------------------- */
static int64_t window_of(sat_ts_ns ts, sat_dur_ns w)
{
    return sat_win_index(ts, w);
}

/* Misra-Gries over a window's operations: n more of client id. A full table
 * takes the newcomer in place of its smallest entry if it is larger (merge),
 * else every count goes down by n (the classic decrement). */
static void mg_add(st_win *w, uint32_t id, uint32_t n)
{
    int free_slot = -1, min = 0;
    for (int i = 0; i < ST_MG; i++) {
        if (w->mg_n[i] && w->mg_id[i] == id) {
            w->mg_n[i] += n;
            return;
        }
        if (!w->mg_n[i] && free_slot < 0)
            free_slot = i;
        if (w->mg_n[i] < w->mg_n[min])
            min = i;
    }
    if (free_slot >= 0) {
        w->mg_id[free_slot] = id;
        w->mg_n[free_slot] = n;
    } else if (n > w->mg_n[min]) {
        w->mg_id[min] = id;
        w->mg_n[min] = n;
    } else {
        for (int i = 0; i < ST_MG; i++)
            w->mg_n[i] -= w->mg_n[i] < n ? w->mg_n[i] : n;
    }
}

static uint32_t mg_count(const st_win *w, uint32_t id)
{
    for (int i = 0; i < ST_MG; i++)
        if (w->mg_n[i] && w->mg_id[i] == id)
            return w->mg_n[i];
    return 0;
}

static void win_add(st_win *into, const st_win *from)
{
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        into->kinds[k] += from->kinds[k];
    into->events += from->events;
    for (int i = 0; i < ST_BITS / 64; i++)
        into->bits[i] |= from->bits[i];
    into->ops += from->ops;
    into->unindexed += from->unindexed;
    into->opens += from->opens;
    into->hs_full += from->hs_full;
    into->hs_resumed += from->hs_resumed;
    into->timed += from->timed;
    into->wtime_n += from->wtime_n;
    into->wtime_sum_s += from->wtime_sum_s;
    for (int i = 0; i <= ST_HIST; i++) {
        into->hist[i] += from->hist[i];
        into->ans_hist[i] += from->ans_hist[i];
    }
    into->answered += from->answered;
    into->retries += from->retries;
    for (int i = 0; i < ST_MG; i++)
        if (from->mg_n[i])
            mg_add(into, from->mg_id[i], from->mg_n[i]);
}

static void win_add_v(void *into, const void *from)
{
    win_add((st_win *)into, (const st_win *)from);
}

static void widen(sat_storms *s, st_series *se, int64_t f)
{
    if (sat_win_widen(&se->windows, &se->window, f, sizeof(st_win), win_add_v) < 0)
        s->nomem = 1;
}

/* Stops counting a finer series (st_series.dropped): NULL. Whether it
 * happens depends only on how many windows the input fills, not on the
 * order of the rows nor on merges. */
static st_win *drop_series(st_series *se)
{
    sat_strtab_free(&se->windows);
    sat_strtab_init(&se->windows, sizeof(st_win), 0);
    se->dropped = 1;
    return NULL;
}

/* The window of series i that holds ts (NULL: no time, out of memory, or a
 * series dropped). */
static st_win *window_at(sat_storms *s, int i, sat_ts_ns ts)
{
    if (ts <= 0)
        return NULL;
    if (!s->first_ts || ts < s->first_ts)
        s->first_ts = ts;
    if (ts > s->last_ts)
        s->last_ts = ts;
    st_series *se = &s->ser[i];
    if (se->dropped || s->nomem)
        return NULL;
    int droppable = i < s->nser - 1;
    st_win *w = (st_win *)sat_win_at(&se->windows, &se->window, ts,
                                     droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win),
                                     win_add_v);
    if (!w)
        s->nomem = 1;
    else if (droppable && se->windows.n > ST_WINDOWS_MAX)
        w = drop_series(se);
    return w;
}

/* Every series' window that holds ts, in turn: a row counts at every step. */
#define FOR_EACH_WINDOW(s, ts, w)                                                            \
    for (int i_ = 0; i_ < (s)->nser; i_++)                                                   \
        for (st_win *w = window_at((s), i_, (ts)); w; w = NULL)

/* Log histogram of durations: bucket 0 up to 10 us, then factors of 1.25
 * (+-12%); the last bucket takes everything from about 6 minutes on. */
static int hist_bucket(sat_dur_ns d)
{
    double us = (double)d / 1e3;
    int b = us <= 10.0 ? 0 : 1 + (int)(log(us / 10.0) / log(1.25));
    return b < 0 ? 0 : b >= ST_HIST ? ST_HIST - 1 : b;
}

/* ---- counting ------------------------------------------------------------------------ */
static uint64_t *client_window(sat_strtab *cw, uint32_t id, int64_t widx, int *nomem)
{
    st_cwkey k;
    memset(&k, 0, sizeof k);
    k.id = id;
    k.widx = widx;
    int capped;
    uint64_t *n = (uint64_t *)sat_strtab_upsert(cw, &k, sizeof k, NULL, &capped);
    if (!n && !capped)
        *nomem = 1;
    return n;
}

/* +1 / -1 failure of this client in the window of ts */
static void count_client(sat_storms *s, sat_ts_ns ts, sat_str client, int add)
{
    if (!client.len || !client.ptr)
        return;
    int is_new, capped;
    uint32_t *id = (uint32_t *)sat_strtab_upsert(&s->clients, client.ptr, client.len, &is_new,
                                                 &capped);
    if (!id) {
        s->nomem |= !capped;
        s->clients_lost = 1;
        return;
    }
    if (is_new)
        *id = (uint32_t)(s->clients.n - 1);
    uint64_t *n = client_window(&s->cw, *id, window_of(ts, s->opts.window), &s->nomem);
    s->clients_lost |= !n;
    if (n && add)
        (*n)++;
    else if (n && *n)
        (*n)--;
}

static void count(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    s->kinds[kind]++;
    s->events++;
    int any = 0;
    FOR_EACH_WINDOW(s, ts, w) {
        any = 1;
        w->kinds[kind]++;
        w->events++;
        if (client.len && client.ptr) {
            uint64_t h = sat_strtab_hash(client.ptr, client.len);
            w->bits[(h >> 7) % ST_BITS / 64] |= (uint64_t)1 << ((h >> 7) % 64);
        }
    }
    if (!any || !client.len || !client.ptr)
        return;
    count_client(s, ts, client, 1);
}

static void uncount(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    count_client(s, ts, client, 0); /* the same connection: the same client */
    if (s->kinds[kind])
        s->kinds[kind]--;
    if (s->events)
        s->events--;
    FOR_EACH_WINDOW(s, ts, w) {
        if (w->kinds[kind]) {
            w->kinds[kind]--;
            w->events--;
        }
    }
}

static int wire_prio(int kind)
{
    switch (kind) {
    case SAT_STORM_TLS_INCOMPLETE:
    case SAT_STORM_TLS_FAILED: return 3;
    case SAT_STORM_RST_CLIENT:
    case SAT_STORM_SYN_UNANSWERED:
    case SAT_STORM_FIN_WAITING: return 2; /* (a connection ends one way only) */
    case SAT_STORM_SYN_RETRY: return 1;
    default: return 0; /* retried: only when nothing else said it failed */
    }
}


static void mark(st_dedup *d, int kind, sat_ts_ns ts)
{
    d->has = 1;
    d->kind = (uint8_t)kind;
    d->ts = ts;
}

/* The rows of one LDAP connection that are one failure: an ABANDON counts
 * (one per abandoned operation) and so does a B1..T3 close; the A1 close of
 * a connection with an ABANDON does not (the client gave up, then left: one
 * failure, counted as the ABANDON, whichever row comes first); a request
 * left unanswered at a close counts only when nothing else of its
 * connection does. */
static void ldap_keyed(sat_storms *s, st_dedup *d, sat_ts_ns ts, int kind, sat_str client)
{
    int had = d->has ? d->kind : -1;
    if (had < 0) {
        count(s, ts, kind, client);
        mark(d, kind, ts);
    } else if (kind == SAT_STORM_CLOSED_WAITING) {
        s->deduped++;
    } else if (had == SAT_STORM_CLOSED_WAITING ||
               (had == SAT_STORM_CLOSE_A1 && kind == SAT_STORM_ABANDON)) {
        uncount(s, d->ts, had, client); /* the more specific row takes its place */
        count(s, ts, kind, client);
        s->deduped++;
        mark(d, kind, ts);
    } else if (kind == SAT_STORM_CLOSE_A1 && had == SAT_STORM_ABANDON) {
        s->deduped++;
    } else {
        count(s, ts, kind, client); /* another ABANDON, or a B1..T3 close */
        if (had != SAT_STORM_ABANDON)
            mark(d, kind, ts);
    }
}

/* One failure per key: the first row counts; a later row of a more specific
 * kind moves the count to itself (ldap_keyed for LDAP connections). */
static void count_keyed(sat_storms *s, sat_strtab *t, const void *key, size_t klen,
                        sat_ts_ns ts, int kind, sat_str client, int ldap)
{
    int capped;
    st_dedup *d = (st_dedup *)sat_strtab_upsert(t, key, klen, NULL, &capped);
    if (!d) {
        s->nomem |= !capped;
        count(s, ts, kind, client);
        return;
    }
    if (ldap) {
        ldap_keyed(s, d, ts, kind, client);
        return;
    }
    if (!d->has) {
        count(s, ts, kind, client);
    } else if (wire_prio(kind) > wire_prio(d->kind)) {
        uncount(s, d->ts, d->kind, client);
        count(s, ts, kind, client);
        s->deduped++;
    } else {
        s->deduped++;
        return;
    }
    mark(d, kind, ts);
}


static int is_wire_server(const sat_storms *s, uint32_t server)
{
    return s->wire_servers.n && sat_strtab_find(&s->wire_servers, &server, sizeof server);
}

/* A request whose connection closed before its RESULT: a failure of kind
 * closed_waiting, counted at finish (finish_closed_waiting), once the source
 * rows (which come last) have said which servers are captures: on the wire
 * the TCP rule (SAT_TCPF_CLIENT_LEFT_WAITING) counts it already. */
static void keep_closed_waiting(sat_storms *s, const sat_ldap_op *op)
{
    if (s->nwaiting == s->waiting_cap) {
        if (s->waiting_cap >= ST_DEDUP_MAX) {
            s->waiting_lost++;
            return;
        }
        size_t ncap = s->waiting_cap ? s->waiting_cap * 2 : 256;
        st_waiting *nw = (st_waiting *)realloc(s->waiting, ncap * sizeof *nw);
        if (!nw) {
            s->nomem = 1;
            return;
        }
        s->waiting = nw;
        s->waiting_cap = ncap;
    }
    uint32_t client = UINT32_MAX;
    if (op->client_ip.len) {
        int is_new, capped;
        uint32_t *id = (uint32_t *)sat_strtab_upsert(&s->peers, op->client_ip.ptr,
                                                     op->client_ip.len, &is_new, &capped);
        if (id && is_new)
            *id = (uint32_t)(s->peers.n - 1);
        client = id ? *id : UINT32_MAX;
    }
    st_waiting *w = &s->waiting[s->nwaiting++];
    memset(w, 0, sizeof *w);
    w->key.server = op->server;
    w->key.epoch = op->conn_epoch;
    w->key.conn = op->conn;
    w->ts = op->ts_ns;
    w->client = client;
}

static void finish_closed_waiting(sat_storms *s)
{
    for (size_t i = 0; i < s->nwaiting; i++) {
        const st_waiting *w = &s->waiting[i];
        if (is_wire_server(s, w->key.server))
            continue;
        sat_str client = SAT_STR_NONE;
        if (w->client != UINT32_MAX) {
            client.ptr = sat_strtab_key(&s->peers, w->client);
            client.len = sat_strtab_len(&s->peers, w->client);
        }
        count_keyed(s, &s->ldap_dedup, &w->key, sizeof w->key, w->ts, SAT_STORM_CLOSED_WAITING,
                    client, 1);
    }
    s->nwaiting = 0; /* counted: a second finish must not count them again */
}

/* An input's time range, for the periods it covers (by path: ids differ
 * between analyzers that merge). */
static void keep_source(sat_storms *s, const char *path, size_t len, sat_ts_ns first,
                        sat_ts_ns last)
{
    if (!len || first <= 0)
        return;
    int is_new, capped;
    st_src *r = (st_src *)sat_strtab_upsert(&s->sources, path, len, &is_new, &capped);
    if (!r) {
        s->nomem |= !capped;
        return;
    }
    if (is_new) {
        r->first_ts = first;
        r->last_ts = last;
        return;
    }
    r->first_ts = first < r->first_ts ? first : r->first_ts;
    r->last_ts = last > r->last_ts ? last : r->last_ts;
}

static int on_source(void *ctx, const sat_source *src)
{
    sat_storms *s = (sat_storms *)ctx;
    keep_source(s, src->path.ptr, src->path.len, src->first_ts, src->last_ts);
    if (src->kind.len == 4 && !memcmp(src->kind.ptr, "pcap", 4)) {
        int capped;
        if (!sat_strtab_upsert(&s->wire_servers, &src->server, sizeof src->server, NULL,
                               &capped))
            s->nomem |= !capped;
    }
    return SAT_OK;
}

static void op_window(st_win *w, const sat_ldap_op *op, const uint32_t *id);

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_storms *s = (sat_storms *)ctx;
    s->ldap_ops++;
    if (op->internal_depth)
        return SAT_OK;
    sat_ts_ns rts = op->result_ts_ns ? op->result_ts_ns : op->ts_ns;
    if (op->type == SAT_OP_ABANDON) {
        st_connkey k;
        memset(&k, 0, sizeof k);
        k.server = op->server;
        k.epoch = op->conn_epoch;
        k.conn = op->conn;
        count_keyed(s, &s->ldap_dedup, &k, sizeof k, op->ts_ns, SAT_STORM_ABANDON,
                    op->client_ip, 1);
    } else {
        int kind = -1;
        switch (op->err) {
        case 3: kind = SAT_STORM_ERR_TIMELIMIT; break;
        case 11: kind = SAT_STORM_ERR_ADMINLIMIT; break;
        case 51: kind = SAT_STORM_ERR_BUSY; break;
        case 52: kind = SAT_STORM_ERR_UNAVAILABLE; break;
        case 80: kind = SAT_STORM_ERR_OTHER; break;
        default: break;
        }
        if (kind >= 0)
            count(s, rts, kind, op->client_ip);
    }
    if (op->type == SAT_OP_UNBIND || op->type == SAT_OP_ABANDON || op->ts_ns <= 0)
        return SAT_OK;
    if ((op->flags & SAT_OPF_UNFINISHED) && (op->flags & SAT_OPF_CONN_CLOSED) &&
        !(op->flags & SAT_OPF_PERSISTENT))
        keep_closed_waiting(s, op);
    uint32_t *id = NULL;
    if (op->client_ip.len) {
        int is_new, capped;
        id = (uint32_t *)sat_strtab_upsert(&s->peers, op->client_ip.ptr, op->client_ip.len,
                                           &is_new, &capped);
        if (id && is_new)
            *id = (uint32_t)(s->peers.n - 1);
    }
    FOR_EACH_WINDOW(s, op->ts_ns, w)
        op_window(w, op, id);
    return SAT_OK;
}

static void op_window(st_win *w, const sat_ldap_op *op, const uint32_t *id)
{
    w->ops++;
    if (id)
        mg_add(w, *id, 1);
    if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
        w->unindexed++;
    if ((op->flags & SAT_OPF_UNFINISHED) && (op->flags & SAT_OPF_CONN_CLOSED) &&
        !(op->flags & SAT_OPF_PERSISTENT)) {
        w->hist[ST_HIST]++; /* never answered: the longest wait of all */
        w->timed++;
    } else if (op->etime >= 0) {
        w->hist[hist_bucket(op->etime)]++;
        w->timed++;
    }
    if (op->wtime >= 0) {
        w->wtime_sum_s += (double)op->wtime / 1e9;
        w->wtime_n++;
    }
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    sat_storms *s = (sat_storms *)ctx;
    s->ldap_conns++;
    if (c->open_ts > 0)
        FOR_EACH_WINDOW(s, c->open_ts, w)
            w->opens++;
    int kind = -1;
    switch (c->close_code) {
    case SAT_CLOSE_A1: kind = SAT_STORM_CLOSE_A1; break;
    case SAT_CLOSE_B1: kind = SAT_STORM_CLOSE_B1; break;
    case SAT_CLOSE_B4: kind = SAT_STORM_CLOSE_B4; break;
    case SAT_CLOSE_T1: kind = SAT_STORM_CLOSE_T1; break;
    case SAT_CLOSE_T2: kind = SAT_STORM_CLOSE_T2; break;
    case SAT_CLOSE_T3: kind = SAT_STORM_CLOSE_T3; break;
    default: break;
    }
    if (kind < 0 || c->close_ts <= 0)
        return SAT_OK;
    st_connkey k;
    memset(&k, 0, sizeof k);
    k.server = c->server;
    k.epoch = c->conn_epoch;
    k.conn = c->conn;
    count_keyed(s, &s->ldap_dedup, &k, sizeof k, c->close_ts, kind, c->client_ip, 1);
    return SAT_OK;
}

static void count_wire(sat_storms *s, uint32_t source, uint32_t flow, sat_ts_ns ts, int kind,
                       sat_str client)
{
    uint32_t k[2] = {source, flow};
    count_keyed(s, &s->wire_dedup, k, sizeof k, ts, kind, client, 0);
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    sat_storms *s = (sat_storms *)ctx;
    s->tls_hs++;
    FOR_EACH_WINDOW(s, h->ts, w) {
        w->hs_full += h->outcome == SAT_TLS_FULL;
        w->hs_resumed += h->outcome == SAT_TLS_RESUMED;
        /* how long the server took to answer; a ClientHello the client gave
         * up on is the longest wait (an alert before any ServerHello is an
         * answer, but its time is not kept) */
        if (!(h->flags & SAT_TLSF_NO_CLIENT_HELLO)) {
            if (h->outcome == SAT_TLS_INCOMPLETE) {
                w->ans_hist[ST_HIST]++;
                w->answered++;
            } else if (h->server_hello_ts >= h->ts && h->server_hello_ts > 0) {
                w->ans_hist[hist_bucket(h->server_hello_ts - h->ts)]++;
                w->answered++;
            }
        }
    }
    if (h->outcome == SAT_TLS_INCOMPLETE || h->outcome == SAT_TLS_FAILED)
        count_wire(s, h->source, h->flow, h->ts,
                   h->outcome == SAT_TLS_INCOMPLETE ? SAT_STORM_TLS_INCOMPLETE
                                                    : SAT_STORM_TLS_FAILED,
                   h->client_ip);
    return SAT_OK;
}

/* Remember the connection for the retry rule (finish_retries). Without its
 * SYN the connection started before the capture: not a retry of anything. */
static void keep_attempt(sat_storms *s, const sat_tcp_conn *c)
{
    if ((c->flags & SAT_TCPF_NO_SYN) || c->syn_ts <= 0 || !c->client_ip.len || s->nomem)
        return;
    if (s->nattempts == s->attempts_cap) {
        if (s->attempts_cap >= ST_ATTEMPTS_MAX) {
            s->attempts_lost++;
            return;
        }
        size_t ncap = s->attempts_cap ? s->attempts_cap * 2 : 1024;
        st_attempt *na = (st_attempt *)realloc(s->attempts, ncap * sizeof *na);
        if (!na) {
            s->nomem = 1;
            return;
        }
        s->attempts = na;
        s->attempts_cap = ncap;
    }
    int is_new, capped;
    uint32_t *id = (uint32_t *)sat_strtab_upsert(&s->peers, c->client_ip.ptr, c->client_ip.len,
                                                 &is_new, &capped);
    if (!id) {
        s->nomem |= !capped;
        s->attempts_lost++;
        return;
    }
    if (is_new)
        *id = (uint32_t)(s->peers.n - 1);
    /* by address, not id: ids differ between analyzers that merge */
    uint64_t h = sat_strtab_hash(c->client_ip.ptr, c->client_ip.len) * 0x9e3779b97f4a7c15ULL;
    h ^= sat_strtab_hash(c->server_ip.ptr, c->server_ip.len);
    h ^= sat_hash_u64((uint64_t)c->source << 32 | c->server_port);
    st_attempt *a = &s->attempts[s->nattempts++];
    a->peer = h;
    a->syn_ts = c->syn_ts;
    a->end_ts = c->end_ts > c->syn_ts ? c->end_ts : c->syn_ts;
    a->source = c->source;
    a->flow = c->flow;
    a->client = *id;
    a->unanswered = c->bytes_c2s > 0 && c->bytes_s2c == 0;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_storms *s = (sat_storms *)ctx;
    s->tcp_conns++;
    if (!(c->flags & SAT_TCPF_NO_SYN))
        FOR_EACH_WINDOW(s, c->syn_ts, w)
            w->opens++;
    /* a client that resets or closes a connection it was done with is not
     * failing: only one leaving a request unanswered is */
    int waiting = (c->flags & SAT_TCPF_CLIENT_LEFT_WAITING) != 0;
    /* dated when the client gave up, not when the connection ended (a frozen
     * server answers and closes dead connections much later) */
    sat_ts_ns left = c->client_left_ts > 0 ? c->client_left_ts : c->end_ts;
    if (c->flags & SAT_TCPF_SYN_GAVE_UP)
        count_wire(s, c->source, c->flow,
                   c->client_left_ts > 0 ? c->client_left_ts
                                         : c->end_ts + (sat_dur_ns)1000000000,
                   SAT_STORM_SYN_UNANSWERED, c->client_ip);
    else if (c->end == SAT_TCP_END_RST_CLIENT && waiting)
        count_wire(s, c->source, c->flow, left, SAT_STORM_RST_CLIENT, c->client_ip);
    else if (c->end == SAT_TCP_END_FIN_CLIENT && waiting)
        count_wire(s, c->source, c->flow, left, SAT_STORM_FIN_WAITING, c->client_ip);
    else if (c->syn_retrans && !c->bytes_c2s)
        count_wire(s, c->source, c->flow, c->syn_ts, SAT_STORM_SYN_RETRY, c->client_ip);
    keep_attempt(s, c);
    return SAT_OK;
}

/* ---- lifecycle ---------------------------------------------------------------------- */
sat_storms *sat_storms_create(const sat_storms_opts *opts)
{
    sat_storms *s = (sat_storms *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opts)
        s->opts = *opts;
    s->auto_window = s->opts.window <= 0;
    s->nser = s->auto_window ? ST_SERIES_MAX : 1;
    for (int i = 0; i < s->nser; i++) {
        s->ser[i].base = s->ser[i].window = s->auto_window ? st_auto_steps[i] : s->opts.window;
        sat_strtab_init(&s->ser[i].windows, sizeof(st_win), 0);
    }
    s->opts.window = s->ser[0].base; /* the client-window table: the finest step */
    sat_strtab_init(&s->sources, sizeof(st_src), ST_CLIENTS_MAX);
    if (!s->opts.top_clients)
        s->opts.top_clients = 5;
    if (s->opts.retry_window <= 0) /* the handshakes analyzer's default too */
        s->opts.retry_window = 10 * (sat_dur_ns)1000000000;
    sat_strtab_init(&s->clients, sizeof(uint32_t), ST_CLIENTS_MAX);
    sat_strtab_init(&s->cw, sizeof(uint64_t), ST_CW_MAX);
    sat_strtab_init(&s->ldap_dedup, sizeof(st_dedup), ST_DEDUP_MAX);
    sat_strtab_init(&s->wire_dedup, sizeof(st_dedup), ST_DEDUP_MAX);
    sat_strtab_init(&s->peers, sizeof(uint32_t), ST_CLIENTS_MAX);
    sat_strtab_init(&s->wire_servers, sizeof(uint32_t), 0);
    s->view_arena.chunk_size = (size_t)64 << 10;
    return s;
}

sat_event_sink sat_storms_sink(sat_storms *s)
{
    sat_event_sink k;
    memset(&k, 0, sizeof k);
    k.ctx = s;
    k.on_source = on_source;
    k.on_ldap_op = on_op;
    k.on_ldap_conn = on_conn;
    k.on_tls_hs = on_tls;
    k.on_tcp_conn = on_tcp;
    return k;
}

/* from's windows into into's, their heavy hitters' client ids mapped from
 * from's peers table to into's (ids are per analyzer) */
static int merge_windows(sat_storms *into, const sat_storms *from, int si)
{
    st_series *ise = &into->ser[si];
    const st_series *fse = &from->ser[si];
    int droppable = si < into->nser - 1;
    if (ise->dropped || fse->dropped) {
        if (!ise->dropped)
            drop_series(ise);
        return SAT_OK;
    }
    uint32_t *map = (uint32_t *)calloc(from->peers.n + 1, sizeof *map);
    sat_strtab tmp;
    sat_strtab_init(&tmp, sizeof(st_win), 0);
    int rc = map ? SAT_OK : SAT_E_NOMEM;
    for (size_t i = 0; i < from->peers.n && rc == SAT_OK; i++) {
        int is_new, capped;
        uint32_t *id = (uint32_t *)sat_strtab_upsert(&into->peers, sat_strtab_key(&from->peers, i),
                                                     sat_strtab_len(&from->peers, i), &is_new,
                                                     &capped);
        if (id && is_new)
            *id = (uint32_t)(into->peers.n - 1);
        map[i] = id ? *id : UINT32_MAX;
    }
    for (size_t i = 0; i < fse->windows.n && rc == SAT_OK; i++) {
        st_win *w = (st_win *)sat_strtab_upsert(&tmp, sat_strtab_key(&fse->windows, i),
                                                sat_strtab_len(&fse->windows, i), NULL, NULL);
        if (!w) {
            rc = SAT_E_NOMEM;
            break;
        }
        *w = *(const st_win *)sat_strtab_val(&fse->windows, i);
        for (int k = 0; k < ST_MG; k++) {
            uint32_t to = w->mg_n[k] && w->mg_id[k] < from->peers.n ? map[w->mg_id[k]]
                                                                     : UINT32_MAX;
            if (to == UINT32_MAX)
                w->mg_n[k] = 0; /* a client past the cap: its count is left out */
            else
                w->mg_id[k] = to;
        }
    }
    if (rc == SAT_OK)
        rc = sat_win_merge(&ise->windows, &ise->window, &tmp, fse->window,
                           droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win), win_add_v);
    if (rc == SAT_OK && droppable && ise->windows.n > ST_WINDOWS_MAX)
        drop_series(ise);
    sat_strtab_free(&tmp);
    free(map);
    return rc;
}

int sat_storms_merge(sat_storms *into, const sat_storms *from)
{
    if (!into || !from || into->nser != from->nser ||
        into->ser[0].base != from->ser[0].base)
        return SAT_E_USAGE; /* made with other options */
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        into->kinds[k] += from->kinds[k];
    into->events += from->events;
    into->deduped += from->deduped;
    into->ldap_ops += from->ldap_ops;
    into->ldap_conns += from->ldap_conns;
    into->tls_hs += from->tls_hs;
    into->tcp_conns += from->tcp_conns;
    if (from->first_ts && (!into->first_ts || from->first_ts < into->first_ts))
        into->first_ts = from->first_ts;
    if (from->last_ts > into->last_ts)
        into->last_ts = from->last_ts;
    for (int si = 0; si < into->nser; si++)
        if (!into->nomem && merge_windows(into, from, si) < 0)
            into->nomem = 1;
    for (size_t i = 0; i < from->sources.n; i++) {
        const st_src *r = (const st_src *)sat_strtab_val(&from->sources, i);
        keep_source(into, sat_strtab_key(&from->sources, i), sat_strtab_len(&from->sources, i),
                    r->first_ts, r->last_ts);
    }
    /* client ids are per analyzer: map them through the names */
    for (size_t i = 0; i < from->cw.n && !into->nomem; i++) {
        st_cwkey fk;
        memcpy(&fk, sat_strtab_key(&from->cw, i), sizeof fk);
        if (fk.id >= from->clients.n)
            continue;
        int is_new, capped;
        uint32_t *nid = (uint32_t *)sat_strtab_upsert(
            &into->clients, sat_strtab_key(&from->clients, fk.id),
            sat_strtab_len(&from->clients, fk.id), &is_new, &capped);
        if (!nid) {
            into->nomem |= !capped;
            into->clients_lost = 1;
            continue;
        }
        if (is_new)
            *nid = (uint32_t)(into->clients.n - 1);
        sat_ts_ns ts = fk.widx * from->opts.window;
        uint64_t *n = client_window(&into->cw, *nid, window_of(ts, into->opts.window),
                                    &into->nomem);
        if (n)
            *n += *(const uint64_t *)sat_strtab_val(&from->cw, i);
        into->clients_lost |= !n;
    }
    into->clients_lost |= from->clients_lost;
    into->attempts_lost += from->attempts_lost;
    into->waiting_lost += from->waiting_lost;
    for (size_t i = 0; i < from->nwaiting && !into->nomem; i++) {
        const st_waiting *fw = &from->waiting[i];
        sat_ldap_op op; /* through keep_closed_waiting, for the client's id here */
        memset(&op, 0, sizeof op);
        op.server = fw->key.server;
        op.conn_epoch = fw->key.epoch;
        op.conn = fw->key.conn;
        op.ts_ns = fw->ts;
        if (fw->client != UINT32_MAX) {
            op.client_ip.ptr = sat_strtab_key(&from->peers, fw->client);
            op.client_ip.len = sat_strtab_len(&from->peers, fw->client);
        }
        keep_closed_waiting(into, &op);
    }
    for (size_t i = 0; i < from->wire_servers.n; i++) {
        int capped;
        if (!sat_strtab_upsert(&into->wire_servers, sat_strtab_key(&from->wire_servers, i),
                               sat_strtab_len(&from->wire_servers, i), NULL, &capped))
            into->nomem |= !capped;
    }
    for (size_t i = 0; i < from->nattempts && !into->nomem; i++) {
        const st_attempt *a = &from->attempts[i];
        if (into->nattempts == into->attempts_cap) {
            size_t ncap = into->attempts_cap ? into->attempts_cap * 2 : 1024;
            st_attempt *na = into->attempts_cap >= ST_ATTEMPTS_MAX
                                 ? NULL : (st_attempt *)realloc(into->attempts, ncap * sizeof *na);
            if (!na) {
                into->attempts_lost += from->nattempts - i;
                break;
            }
            into->attempts = na;
            into->attempts_cap = ncap;
        }
        int is_new, capped;
        uint32_t *nid = (uint32_t *)sat_strtab_upsert(
            &into->peers, sat_strtab_key(&from->peers, a->client),
            sat_strtab_len(&from->peers, a->client), &is_new, &capped);
        if (!nid) {
            into->nomem |= !capped;
            into->attempts_lost++;
            continue;
        }
        if (is_new)
            *nid = (uint32_t)(into->peers.n - 1);
        into->attempts[into->nattempts] = *a;
        into->attempts[into->nattempts++].client = *nid;
    }
    for (int si = 0; si < into->nser; si++)
        while (!into->ser[si].dropped && into->ser[si].windows.n > ST_WINDOWS_MAX &&
               !into->nomem)
            widen(into, &into->ser[si], 2);
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* ---- finish ---------------------------------------------------------------------------- */
/* p90 by nearest rank, the middle of its bucket; a rank in bucket
 * [ST_HIST] ("never", only in ans_hist) is +inf. */
static double hist_p90_s(const uint32_t *hist, int nbuckets, uint64_t n)
{
    if (!n)
        return NAN;
    uint64_t rank = (uint64_t)ceil(0.9 * (double)n), seen = 0;
    int b = 0;
    for (; b < nbuckets; b++) {
        seen += hist[b];
        if (seen >= rank)
            break;
    }
    if (b == 0)
        return 5e-6;
    if (b >= ST_HIST)
        return INFINITY;
    return 10e-6 * pow(1.25, (double)b - 0.5);
}

static double signal_of(const st_win *w, int sig, uint32_t heavy)
{
    switch (sig) {
    case SAT_SIG_UNINDEXED: return (double)w->unindexed;
    case SAT_SIG_OPS: return (double)w->ops;
    case SAT_SIG_FULL_HS_SHARE:
        return w->hs_full + w->hs_resumed
                   ? (double)w->hs_full / (double)(w->hs_full + w->hs_resumed) : NAN;
    case SAT_SIG_ETIME_P90: return hist_p90_s(w->hist, ST_HIST + 1, w->timed);
    case SAT_SIG_WTIME_MEAN: return w->wtime_n ? w->wtime_sum_s / (double)w->wtime_n : NAN;
    case SAT_SIG_CONN_OPENS: return (double)w->opens;
    case SAT_SIG_HS_ANSWER_P90: return hist_p90_s(w->ans_hist, ST_HIST + 1, w->answered);
    case SAT_SIG_HEAVY_CLIENT:
        return heavy != UINT32_MAX && w->ops ? (double)mg_count(w, heavy) : NAN;
    default: return NAN;
    }
}

static int above(const st_win *w, size_t t, int g, double thr, uint32_t heavy)
{
    double v = signal_of(&w[t], g, heavy);
    return !isnan(v) && v > thr;
}

/* The smallest rise that counts, per signal, above twice the base. */
static const double sig_floor[SAT_SIG__COUNT] = {2.0, 10.0, 0.2, 0.05, 0.01, 5.0, 0.05, 10.0};

static int is_cause(int g)
{
    return g <= SAT_SIG_FULL_HS_SHARE || g == SAT_SIG_HEAVY_CLIENT;
}

/* The busiest client of the lead-up (the 3 windows before the start and
 * the first), by the windows' heavy hitters; UINT32_MAX if none. */
static uint32_t heavy_of(const st_win *w, const sat_storm_span *sp)
{
    uint32_t ids[4 * ST_MG], best = UINT32_MAX;
    uint64_t sums[4 * ST_MG], top = 0;
    size_t n = 0;
    for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++)
        for (int i = 0; i < ST_MG; i++) {
            if (!w[t].mg_n[i])
                continue;
            size_t k = 0;
            while (k < n && ids[k] != w[t].mg_id[i])
                k++;
            if (k == n) {
                ids[n] = w[t].mg_id[i];
                sums[n++] = 0;
            }
            sums[k] += w[t].mg_n[i];
            if (sums[k] > top) {
                top = sums[k];
                best = ids[k];
            }
        }
    return best;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A new heavy client: a quarter or more of the lead-up's operations, and
 * at least twice the share it had in the windows before. */
static int new_heavy(const st_win *w, const sat_storm_span *sp, uint32_t heavy)
{
    uint64_t lead = 0, lead_h = 0, base = 0, base_h = 0;
    size_t a = sp->start >= 33 ? sp->start - 33 : 0, b = sp->start >= 4 ? sp->start - 4 : 0;
    for (size_t t = a; sp->start >= 4 && t <= b; t++) {
        base += w[t].ops;
        base_h += mg_count(&w[t], heavy);
    }
    for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++) {
        lead += w[t].ops;
        lead_h += mg_count(&w[t], heavy);
    }
    double share = lead ? (double)lead_h / (double)lead : 0.0;
    return share >= 0.25 && (!base || (double)base_h / (double)base < share / 2.0);
}

static void chain(sat_storm *st, const st_win *w, size_t n, const sat_storm_span *sp,
                  sat_ts_ns lo_ts, sat_dur_ns step)
{
    st->trigger = -1;
    uint32_t heavy = heavy_of(w, sp);
    sat_ts_ns best = 0;
    int best_cause = 0;
    for (int g = 0; g < SAT_SIG__COUNT; g++) {
        sat_storm_sig *sg = &st->sig[g];
        double vals[30];
        size_t nv = 0;
        size_t a = sp->start >= 33 ? sp->start - 33 : 0;
        size_t b = sp->start >= 4 ? sp->start - 4 : 0;
        for (size_t t = a; sp->start >= 4 && t <= b && nv < 30; t++) {
            double v = signal_of(&w[t], g, heavy);
            if (!isnan(v))
                vals[nv++] = v;
        }
        if (nv) {
            qsort(vals, nv, sizeof *vals, cmp_dbl);
            sg->base = vals[(nv - 1) / 2];
        } else {
            sg->base = NAN;
        }
        sg->before = NAN;
        for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++) {
            double v = signal_of(&w[t], g, heavy);
            if (!isnan(v) && (isnan(sg->before) || v > sg->before))
                sg->before = v;
        }
        sg->during = NAN;
        for (size_t t = sp->start; t <= sp->end; t++) {
            double v = signal_of(&w[t], g, heavy);
            if (!isnan(v) && (isnan(sg->during) || v > sg->during))
                sg->during = v;
        }
        if (isnan(sg->base))
            continue;
        double thr = 2.0 * sg->base > sg->base + sig_floor[g] ? 2.0 * sg->base
                                                              : sg->base + sig_floor[g];
        sg->rose = !isnan(sg->before) && sg->before > thr;
        if (g == SAT_SIG_HEAVY_CLIENT && sg->rose && !new_heavy(w, sp, heavy))
            sg->rose = 0; /* the client every other window has: not new */
        size_t on = SIZE_MAX, from = SIZE_MAX;
        if (sg->rose) {
            /* the rise that reaches the storm: back from its last high
             * window of the lead-up, over windows above the threshold (one
             * window without data or below it does not break the run), at
             * most 30 windows; so an earlier blip is not its onset */
            for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++)
                if (above(w, t, g, thr, heavy))
                    from = t;
            on = from;
            size_t lim = from >= 30 ? from - 30 : 0;
            while (on > lim) {
                if (above(w, on - 1, g, thr, heavy))
                    on--;
                else if (on - 1 > lim && above(w, on - 2, g, thr, heavy))
                    on -= 2;
                else
                    break;
            }
        } else {
            /* shown only: the first window above it during the storm (an
             * effect of it, not a cause) */
            for (size_t t = sp->start; t <= sp->end; t++)
                if (above(w, t, g, thr, heavy)) {
                    on = from = t;
                    break;
                }
        }
        if (on == SIZE_MAX)
            continue;
        sg->onset_ts = lo_ts + (sat_ts_ns)on * step;
        /* back: three windows in a row at or below it after the rise (or up
         * to the end), so one quiet window inside a long rise does not end it */
        for (size_t t = from + 1; t < n; t++) {
            size_t u = t;
            while (u < n && u < t + 3 && !above(w, u, g, thr, heavy))
                u++;
            if (!isnan(signal_of(&w[t], g, heavy)) && (u == n || u == t + 3)) {
                sg->back_ts = lo_ts + (sat_ts_ns)t * step;
                break;
            }
        }
        /* causes (load, unindexed searches, full handshakes) before effects
         * (latency, reconnects): etime rises with any storm, so it names the
         * trigger only when no cause rose */
        int cause = is_cause(g);
        /* one client's rise that is (most of) the load's names it better */
        int narrower = g == SAT_SIG_HEAVY_CLIENT && st->trigger == SAT_SIG_OPS &&
                       sg->onset_ts <= best;
        if (sg->rose && (st->trigger < 0 || (cause && !best_cause) ||
                         (cause == best_cause && sg->onset_ts < best) || narrower)) {
            st->trigger = g;
            best = sg->onset_ts;
            best_cause = cause;
        }
    }
    if (st->trigger >= 0) {
        sat_ts_ns back = st->sig[st->trigger].back_ts;
        sat_ts_ns last = lo_ts + (sat_ts_ns)sp->end * step; /* the last high window */
        if (back && last >= back) {
            st->sustained_s = (double)(last + step - back) / 1e9;
            st->sustained = last + step - back >= 3 * step;
        }
    }
}

typedef struct st_cl {
    uint32_t id;
    uint64_t n;
} st_cl;

static int cmp_cl(const void *a, const void *b)
{
    const st_cl *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int build_storm(sat_storms *s, sat_storm *st, const st_win *w, size_t n,
                       const sat_storm_span *sp, sat_ts_ns lo_ts, sat_dur_ns step)
{
    memset(st, 0, sizeof *st);
    st->window = step;
    st->start_ts = lo_ts + (sat_ts_ns)sp->start * step;
    st->end_ts = lo_ts + (sat_ts_ns)(sp->end + 1) * step;
    st->peak_ts = lo_ts + (sat_ts_ns)sp->peak * step;
    st->peak_events = w[sp->peak].events;
    st->expected = sp->expected;
    uint64_t bits[ST_BITS / 64];
    memset(bits, 0, sizeof bits);
    for (size_t t = sp->start; t <= sp->end; t++) {
        st->events += w[t].events;
        for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
            st->kinds[k] += w[t].kinds[k];
        for (int i = 0; i < ST_BITS / 64; i++)
            bits[i] |= w[t].bits[i];
        st->conn_opens += w[t].opens;
        st->hs_full += w[t].hs_full;
        st->hs_total += w[t].hs_full + w[t].hs_resumed;
        st->retries += w[t].retries;
    }
    st->ongoing = sp->end + 1 == n;
    size_t zero = 0;
    for (int i = 0; i < ST_BITS / 64; i++)
        for (uint64_t b = ~bits[i]; b; b &= b - 1)
            zero++;
    double est = zero ? -(double)ST_BITS * log((double)zero / ST_BITS) : (double)ST_BITS * 8;
    /* failures per client within [start_ts, end_ts) */
    size_t ncl = 0;
    st_cl *cl = (st_cl *)calloc(s->clients.n + 1, sizeof *cl);
    if (!cl)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < s->clients.n; i++)
        cl[i].id = (uint32_t)i;
    for (size_t i = 0; i < s->cw.n; i++) {
        st_cwkey k;
        memcpy(&k, sat_strtab_key(&s->cw, i), sizeof k);
        sat_ts_ns ts = k.widx * s->opts.window;
        if (ts >= st->start_ts && ts < st->end_ts && k.id < s->clients.n)
            cl[k.id].n += *(const uint64_t *)sat_strtab_val(&s->cw, i);
    }
    ncl = s->clients.n;
    qsort(cl, ncl, sizeof *cl, cmp_cl);
    while (ncl && !cl[ncl - 1].n)
        ncl--;
    /* exact from the table, the linear count once a table overflowed */
    st->clients = s->clients_lost ? (uint64_t)llround(est) : ncl;
    size_t ntop = ncl < s->opts.top_clients ? ncl : s->opts.top_clients;
    sat_storm_client *top = (sat_storm_client *)sat_arena_alloc(&s->view_arena,
                                                                (ntop + 1) * sizeof *top);
    if (!top) {
        free(cl);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < ntop; i++) {
        top[i].client = cl[i].id < s->clients.n ? sat_strtab_key(&s->clients, cl[i].id) : "?";
        top[i].events = cl[i].n;
    }
    free(cl);
    st->top = top;
    st->ntop = ntop;
    chain(st, w, n, sp, lo_ts, step);
    uint32_t heavy = heavy_of(w, sp);
    if (heavy != UINT32_MAX && heavy < s->peers.n && !isnan(st->sig[SAT_SIG_HEAVY_CLIENT].before))
        st->heavy_client = sat_strtab_key(&s->peers, heavy);
    return SAT_OK;
}

static int cmp_attempt(const void *a, const void *b)
{
    const st_attempt *x = a, *y = b;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    if (x->syn_ts != y->syn_ts)
        return x->syn_ts < y->syn_ts ? -1 : 1;
    return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* The retry rule: from one client address to one server address and port,
 * a connection that starts at most retry_window after the previous one ended
 * (or while it was still open), when that previous one failed (a failure is
 * counted on it) or was never answered (the client sent bytes, the server
 * none), retried it. The retry is counted where it started (amplification);
 * the connection given up is a failure of kind "retried" unless another kind
 * already counts it. Parallel clients behind one address look like one
 * client: any next connection of theirs counts. */
static void finish_retries(sat_storms *s)
{
    if (!s->nattempts)
        return;
    qsort(s->attempts, s->nattempts, sizeof *s->attempts, cmp_attempt);
    for (size_t i = 1; i < s->nattempts; i++) {
        const st_attempt *prev = &s->attempts[i - 1], *cur = &s->attempts[i];
        if (cur->peer != prev->peer || cur->syn_ts > prev->end_ts + s->opts.retry_window)
            continue;
        uint32_t key[2] = {prev->source, prev->flow};
        int failed = sat_strtab_find(&s->wire_dedup, key, sizeof key) != NULL;
        if (!failed && !prev->unanswered)
            continue;
        s->retries++;
        FOR_EACH_WINDOW(s, cur->syn_ts, w)
            w->retries++;
        if (!failed) {
            sat_str client;
            client.ptr = sat_strtab_key(&s->peers, prev->client);
            client.len = sat_strtab_len(&s->peers, prev->client);
            sat_ts_ns gave_up = prev->end_ts < cur->syn_ts ? prev->end_ts : cur->syn_ts;
            count_wire(s, prev->source, prev->flow, gave_up, SAT_STORM_RETRIED, client);
        }
    }
    s->nattempts = 0; /* counted: a second finish must not count them again */
}

/* ---- periods and their steps ---------------------------------------------------------- */
typedef struct st_period {
    sat_ts_ns start_ts, end_ts;
} st_period;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted window indexes of a series (malloc'd; NULL when out of memory). */
static int64_t *sorted_keys(const st_series *se)
{
    int64_t *k = (int64_t *)malloc((se->windows.n + 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < se->windows.n; i++)
        memcpy(&k[i], sat_strtab_key(&se->windows, i), sizeof *k);
    qsort(k, se->windows.n, sizeof *k, cmp_i64);
    return k;
}

/* The periods of the input: runs of the finest series' windows (any row of
 * any table makes a window) separated by a silence of at least
 * SAT_STORM_PERIOD_GAP_NS, and at least twice the widest step counted (so
 * that no window of any step holds rows of two periods). Inputs from
 * different times (last month's log and today's capture) are then analysed
 * each on its own: one baseline across a month of nothing would mean nothing,
 * and a step to span both would drown the storms. */
static const st_series *finest(const sat_storms *s)
{
    int i = 0;
    while (i < s->nser - 1 && s->ser[i].dropped)
        i++;
    return &s->ser[i];
}

static st_period *find_periods(sat_storms *s, size_t *np)
{
    const st_series *f = finest(s);
    int64_t *k = sorted_keys(f);
    st_period *p = (st_period *)malloc((f->windows.n + 1) * sizeof *p);
    if (!k || !p) {
        free(k);
        free(p);
        return NULL;
    }
    sat_dur_ns widest = 0;
    for (int i = 0; i < s->nser; i++)
        if (!s->ser[i].dropped)
            widest = s->ser[i].window > widest ? s->ser[i].window : widest;
    sat_dur_ns gap = SAT_STORM_PERIOD_GAP_NS > 2 * widest ? SAT_STORM_PERIOD_GAP_NS : 2 * widest;
    size_t n = 0;
    for (size_t i = 0; i < f->windows.n; i++) {
        sat_ts_ns a = k[i] * f->window, b = a + f->window;
        if (n && a - p[n - 1].end_ts < gap) {
            p[n - 1].end_ts = b;
            continue;
        }
        p[n].start_ts = a;
        p[n++].end_ts = b;
    }
    free(k);
    *np = n;
    return p;
}

/* windows of step w over [a, b) */
static int64_t windows_over(sat_ts_ns a, sat_ts_ns b, sat_dur_ns w)
{
    return sat_win_index(b - 1, w) - sat_win_index(a, w) + 1;
}

/* The step of a period: the option's; else the longest of st_auto_steps
 * that gives it at least SAT_STORM_BASELINE_WINDOWS windows (the
 * detector's warm-up and each storm's look back at what rose are 30
 * windows: fewer and there is no baseline to stand out from), else the
 * shortest, 1 s (a client gives up after a second or more: shorter windows
 * would only cut one wave of give-ups into pieces). 10 s, the longest, is
 * what a log of an hour or more gets. Returns the series' index. */
static int choose_step(const sat_storms *s, sat_storms_period *pp)
{
    int si = 0;
    pp->windows_at_longest = windows_over(pp->start_ts, pp->end_ts, st_auto_steps[ST_SERIES_MAX - 1]);
    if (!s->auto_window) {
        pp->why = SAT_STORM_WIN_OPTION;
    } else {
        pp->why = SAT_STORM_WIN_SHORTEST;
        for (int i = s->nser - 1; i >= 0; i--)
            if (windows_over(pp->start_ts, pp->end_ts, s->ser[i].base) >=
                SAT_STORM_BASELINE_WINDOWS) {
                si = i;
                pp->why = i == s->nser - 1 ? SAT_STORM_WIN_LONGEST : SAT_STORM_WIN_SHORTER;
                break;
            }
    }
    pp->chosen = s->ser[si].base;
    while (si < s->nser - 1 && s->ser[si].dropped)
        si++; /* a long input beside this period: the finest step still counted */
    return si;
}

/* The inputs whose time range meets the period, in the order read. */
static int period_inputs(sat_storms *s, sat_storms_period *pp)
{
    const char **in = (const char **)sat_arena_alloc(&s->view_arena,
                                                     (s->sources.n + 1) * sizeof *in);
    if (!in)
        return SAT_E_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < s->sources.n; i++) { /* the table keeps the order read */
        const st_src *r = (const st_src *)sat_strtab_val(&s->sources, i);
        if (r->first_ts < pp->end_ts && r->last_ts >= pp->start_ts)
            in[n++] = sat_strtab_key(&s->sources, i);
    }
    pp->inputs = in;
    pp->ninputs = n;
    return SAT_OK;
}

/* One period at one series: its dense windows (a period longer than
 * 4 x ST_WINDOWS_MAX of them is read at a power-of-two multiple of the
 * step, so the dense array stays bounded too), the detector, its storms. */
static int analyse_period(sat_storms *s, const st_series *se, const int64_t *keys,
                          sat_storms_period *pp, size_t pidx, sat_storm **all, size_t *ns,
                          size_t *cap)
{
    int64_t lo = sat_win_index(pp->start_ts, se->window);
    int64_t hi = sat_win_index(pp->end_ts - 1, se->window);
    int64_t f = 1;
    while ((hi / f - lo / f) >= 4 * ST_WINDOWS_MAX)
        f *= 2;
    sat_dur_ns step = se->window * f;
    int64_t dlo = sat_win_index(lo * se->window, step);
    size_t n = (size_t)(sat_win_index(hi * se->window, step) - dlo + 1);
    pp->window = step;
    pp->nwindows = n;
    st_win *w = (st_win *)calloc(n, sizeof *w);
    uint64_t *x = (uint64_t *)calloc(n, sizeof *x);
    sat_storm_span *sp = (sat_storm_span *)calloc(n, sizeof *sp);
    int rc = w && x && sp ? SAT_OK : SAT_E_NOMEM;
    size_t a = 0, b = se->windows.n; /* the first key >= lo (keys: sorted) */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (keys[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    for (size_t i = a; i < se->windows.n && keys[i] <= hi && rc == SAT_OK; i++) {
        const st_win *sw = (const st_win *)sat_strtab_find(&se->windows, &keys[i], sizeof keys[i]);
        if (sw)
            win_add(&w[sat_win_index(keys[i] * se->window, step) - dlo], sw);
    }
    for (size_t t = 0; t < n && rc == SAT_OK; t++) {
        x[t] = w[t].events;
        pp->events += x[t];
        if (x[t] > pp->busiest_events) {
            pp->busiest_events = x[t];
            pp->busiest_ts = (dlo + (int64_t)t) * step;
        }
    }
    /* the floor of the baseline: half a failure per 10 s (a handful stands
     * out from none), less in shorter windows, at most 0.5 a window */
    double floor = 0.05 * (double)step / 1e9;
    size_t found = rc == SAT_OK ? sat_storms_detect(x, n, floor < ST_FLOOR ? floor : ST_FLOOR,
                                                    sp, n) : 0;
    if (found > n)
        found = n;
    for (size_t i = 0; i < found && rc == SAT_OK; i++) {
        if (*ns == *cap) {
            sat_storm *na = (sat_storm *)realloc(*all, 2 * *cap * sizeof *na);
            if (!na) {
                rc = SAT_E_NOMEM;
                break;
            }
            *all = na;
            *cap *= 2;
        }
        rc = build_storm(s, &(*all)[*ns], w, n, &sp[i], dlo * step, step);
        if (rc == SAT_OK) {
            (*all)[*ns].period = pidx;
            (*ns)++;
            pp->nstorms++;
        }
    }
    free(w);
    free(x);
    free(sp);
    return rc;
}

int sat_storms_finish(sat_storms *s)
{
    if (!s)
        return SAT_E_USAGE;
    finish_closed_waiting(s); /* before the retries: they yield to what a key holds */
    finish_retries(s);
    sat_arena_free(&s->view_arena);
    s->view_arena.chunk_size = (size_t)64 << 10;
    sat_storms_view *v = &s->view;
    memset(v, 0, sizeof *v);
    v->first_ts = s->first_ts;
    v->last_ts = s->last_ts;
    v->events = s->events;
    memcpy(v->kinds, s->kinds, sizeof v->kinds);
    v->deduped = s->deduped;
    v->retries = s->retries;
    v->attempts_lost = s->attempts_lost + s->waiting_lost;
    v->ldap_ops = s->ldap_ops;
    v->ldap_conns = s->ldap_conns;
    v->tls_hs = s->tls_hs;
    v->tcp_conns = s->tcp_conns;
    v->window = finest(s)->window;
    v->window_auto = s->auto_window;
    if (!finest(s)->windows.n)
        return s->nomem ? SAT_E_NOMEM : SAT_OK;
    int rc = SAT_OK;
    size_t nper = 0;
    st_period *per = find_periods(s, &nper);
    if (!per)
        return SAT_E_NOMEM;
    sat_storms_period *vp = (sat_storms_period *)sat_arena_alloc(&s->view_arena,
                                                                 nper * sizeof *vp);
    size_t cap = 16, ns = 0;
    sat_storm *all = (sat_storm *)malloc(cap * sizeof *all);
    int64_t *keys[ST_SERIES_MAX] = {NULL};
    if (!vp || !all)
        rc = SAT_E_NOMEM;
    for (size_t p = 0; p < nper && rc == SAT_OK; p++) {
        sat_storms_period *pp = &vp[p];
        memset(pp, 0, sizeof *pp);
        pp->start_ts = per[p].start_ts;
        pp->end_ts = per[p].end_ts;
        int si = choose_step(s, pp);
        pp->first_storm = ns;
        if (!keys[si] && !(keys[si] = sorted_keys(&s->ser[si]))) {
            rc = SAT_E_NOMEM;
            break;
        }
        rc = analyse_period(s, &s->ser[si], keys[si], pp, p, &all, &ns, &cap);
        if (rc == SAT_OK)
            rc = period_inputs(s, pp);
        v->nwindows += pp->nwindows;
        if (pp->busiest_events > v->busiest_events) {
            v->busiest_events = pp->busiest_events;
            v->busiest_ts = pp->busiest_ts;
            v->busiest_window = pp->window;
        }
    }
    free(per);
    for (int i = 0; i < ST_SERIES_MAX; i++)
        free(keys[i]);
    sat_storm *st = rc == SAT_OK ? (sat_storm *)sat_arena_alloc(&s->view_arena,
                                                                (ns + 1) * sizeof *st)
                                 : NULL;
    if (rc == SAT_OK && !st)
        rc = SAT_E_NOMEM;
    if (rc == SAT_OK) {
        if (ns)
            memcpy(st, all, ns * sizeof *st);
        v->storms = st;
        v->nstorms = ns;
        v->periods = vp;
        v->nperiods = nper;
        v->window = vp[0].window;
    }
    free(all);
    if (rc < 0)
        return rc;
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_storms_view *sat_storms_get_view(const sat_storms *s) { return s ? &s->view : NULL; }

void sat_storms_free(sat_storms *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nser; i++)
        sat_strtab_free(&s->ser[i].windows);
    sat_strtab_free(&s->sources);
    sat_strtab_free(&s->clients);
    sat_strtab_free(&s->cw);
    sat_strtab_free(&s->ldap_dedup);
    sat_strtab_free(&s->wire_dedup);
    sat_strtab_free(&s->peers);
    sat_strtab_free(&s->wire_servers);
    free(s->attempts);
    free(s->waiting);
    sat_arena_free(&s->view_arena);
    free(s);
}
