/*
 * storms.c - the timeout-storm analyzer ("satscope storms"): client
 * failures from every source, counted per window, a detector that finds the
 * windows where they rose above the series' own baseline, adjacent windows
 * merged into storms, and per storm what rose before it and whether the
 * failures outlived their trigger (a metastable failure).
 *
 * This file: the names of the failure kinds and signals, create, the view,
 * free. The rest of the analyzer, sharing storms_internal.h:
 *   storms_windows.c   the windows of a series (st_win)
 *   storms_detect.c    the detector (sat_storms_detect)
 *   storms_classify.c  rows to client failures (the event sink), dedup, the retry rule
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
 */
#include <math.h>

#include "storms_internal.h"

const sat_dur_ns st_auto_steps[ST_SERIES_MAX] = {
    1000000000LL, 2000000000LL, 5000000000LL, 10000000000LL};

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

/* from's windows into into's, their heavy hitters' client ids mapped from
 * from's peers table to into's (ids are per analyzer) */
static int merge_windows(sat_storms *into, const sat_storms *from, int si)
{
    st_series *ise = &into->ser[si];
    const st_series *fse = &from->ser[si];
    int droppable = si < into->nser - 1;
    if (ise->dropped || fse->dropped) {
        if (!ise->dropped)
            st_drop_series(ise);
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
                           droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win), st_win_add_v);
    if (rc == SAT_OK && droppable && ise->windows.n > ST_WINDOWS_MAX)
        st_drop_series(ise);
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
        st_keep_source(into, sat_strtab_key(&from->sources, i), sat_strtab_len(&from->sources, i),
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
        uint64_t *n = st_client_window(&into->cw, *nid, st_window_of(ts, into->opts.window),
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
        sat_ldap_op op; /* through st_keep_closed_waiting, for the client's id here */
        memset(&op, 0, sizeof op);
        op.server = fw->key.server;
        op.conn_epoch = fw->key.epoch;
        op.conn = fw->key.conn;
        op.ts_ns = fw->ts;
        if (fw->client != UINT32_MAX) {
            op.client_ip.ptr = sat_strtab_key(&from->peers, fw->client);
            op.client_ip.len = sat_strtab_len(&from->peers, fw->client);
        }
        st_keep_closed_waiting(into, &op);
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
            st_widen(into, &into->ser[si], 2);
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
        return heavy != UINT32_MAX && w->ops ? (double)st_mg_count(w, heavy) : NAN;
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
        base_h += st_mg_count(&w[t], heavy);
    }
    for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++) {
        lead += w[t].ops;
        lead_h += st_mg_count(&w[t], heavy);
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

static int st_build_storm(sat_storms *s, sat_storm *st, const st_win *w, size_t n,
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
            st_win_add(&w[sat_win_index(keys[i] * se->window, step) - dlo], sw);
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
        rc = st_build_storm(s, &(*all)[*ns], w, n, &sp[i], dlo * step, step);
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
    st_finish_closed_waiting(s); /* before the retries: they yield to what a key holds */
    st_finish_retries(s);
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
