/*
 * storms_chain.c - one storm described (st_build_storm): its failures, its
 * clients, and the chain of signals that led to it: what rose before it, the
 * trigger, whether the failures outlived it and what kept them going. The
 * rules are docs/report.md's ("The story's rules").
 *
 * Signals per window, for the chain: unindexed searches, external operations,
 * the full-handshake share, etime p90 (a log histogram, factor 1.25: +-12%),
 * wtime mean, connections opened, the handshakes' answer time, one client's
 * operations, the work per indexed operation (optime). For each: base =
 * median of the windows [start-33, start-4]; before = the highest of
 * [start-3, start+1]; "rose" when before > max(2 base, base + a floor per
 * signal); onset = where the run of windows above that threshold that
 * reaches the lead-up began (a gap of one window allowed, 30 windows at
 * most); back = the first of three windows in a row whose 3-window mean is
 * within the baseline's range (its 90th percentile, at least half the floor
 * above the median). Only causes name a trigger (storms_signals.c says
 * which signals are); with none risen there is no trigger, and nothing is
 * said of outliving it.
 */
#include <math.h>

#include "storms_internal.h"

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
    case SAT_SIG_UNINDEXED: return (double)w->ld.unindexed;
    case SAT_SIG_OPS: return (double)w->ld.ops;
    case SAT_SIG_FULL_HS_SHARE: /* the handshakes asked for anew: a redone one is the
                                   failures' (a mechanism), not a cause */
        return w->sc.hs > w->sc.hs_redone
                   ? (double)(w->sc.hs_full - w->sc.hs_redone) / (double)(w->sc.hs - w->sc.hs_redone)
                   : NAN;
    case SAT_SIG_ETIME_P90: return hist_p90_s(w->hist, ST_HIST + 1, w->ld.timed);
    case SAT_SIG_WTIME_MEAN:
        return w->ld.wtime_n ? sat_sum_d(w->wtime_sum_ns) / 1e9 / (double)w->ld.wtime_n : NAN;
    case SAT_SIG_CONN_OPENS: return (double)w->sc.opens;
    case SAT_SIG_HS_ANSWER_P90: return hist_p90_s(w->ans_hist, ST_HIST + 1, w->ld.answered);
    case SAT_SIG_HEAVY_CLIENT:
        return heavy != UINT32_MAX && w->ld.ops ? (double)st_mg_count(w, heavy) : NAN;
    case SAT_SIG_LONG_SEARCHES: /* a count of the operations the log holds */
        return w->ld.ops ? (double)w->ld.long_searches : NAN;
    case SAT_SIG_SERVICE_TIME:
        return w->ld.optime_n ? sat_sum_d(w->optime_sum_ns) / 1e9 / (double)w->ld.optime_n : NAN;
    default: return NAN;
    }
}

static int above(const st_win *w, size_t t, int g, double thr, uint32_t heavy)
{
    double v = signal_of(&w[t], g, heavy);
    return !isnan(v) && v > thr;
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

/* A new heavy client: a tenth or more of the lead-up's operations, and
 * at least twice the share it had in the windows [a, b] before. */
static int new_heavy(const st_win *w, const sat_storm_span *sp, uint32_t heavy, size_t a, size_t b)
{
    uint64_t lead = 0, lead_h = 0, base = 0, base_h = 0;
    for (size_t t = a; t <= b && b < sp->start; t++) {
        base += w[t].ld.ops;
        base_h += st_mg_count(&w[t], heavy);
    }
    for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= sp->start; t++) {
        lead += w[t].ld.ops;
        lead_h += st_mg_count(&w[t], heavy);
    }
    double share = lead ? (double)lead_h / (double)lead : 0.0;
    return share >= 0.10 && (!base || (double)base_h / (double)base < share / 2.0);
}

/* The windows [a, b] of one signal's values (NAN ones left out), sorted. */
static size_t values_of(const st_win *w, size_t a, size_t b, int g, uint32_t heavy, double *out,
                        size_t cap)
{
    size_t nv = 0;
    for (size_t t = a; t <= b && nv < cap; t++) {
        double v = signal_of(&w[t], g, heavy);
        if (!isnan(v))
            out[nv++] = v;
    }
    qsort(out, nv, sizeof *out, cmp_dbl);
    return nv;
}

/* The signal smoothed: the mean of window t and the two before it (a count
 * of operations at RESULT time is bursty; NAN when none of them has one). */
static double smoothed(const st_win *w, size_t t, int g, uint32_t heavy)
{
    double sum = 0;
    int k = 0;
    for (size_t u = t >= ST_SMOOTH - 1 ? t - (ST_SMOOTH - 1) : 0; u <= t; u++) {
        double v = signal_of(&w[u], g, heavy);
        if (!isnan(v)) {
            sum += v;
            k++;
        }
    }
    return k ? sum / k : NAN;
}

/* The early windows: 150-180 before the storm (or from the period's first),
 * at least 10 of them and all before the 30-window baseline; 0 when there
 * are not. */
static int early_windows(const sat_storm_span *sp, size_t *a, size_t *b)
{
    *a = sp->start >= 180 ? sp->start - 180 : 0;
    if (sp->start < 34 || *a + 10 > sp->start - 34)
        return 0;
    *b = *a + 29 < sp->start - 34 ? *a + 29 : sp->start - 34;
    return 1;
}

/* A heavy client that came minutes before the storm is in its 30-window
 * baseline already: it is new against the early windows, and measured
 * against them (base, its range hi and the threshold thr). */
static int heavy_ramp(st_sig *sg, const st_win *w, const sat_storm_span *sp, uint32_t heavy,
                      double *hi, double *thr)
{
    double vals[ST_BASELINE_WINDOWS];
    size_t a, b;
    if (!early_windows(sp, &a, &b) || !new_heavy(w, sp, heavy, a, b))
        return 0;
    size_t nv = values_of(w, a, b, SAT_SIG_HEAVY_CLIENT, heavy, vals, 30);
    if (nv < 10)
        return 0;
    double early = vals[(nv - 1) / 2], fl = st_signals[SAT_SIG_HEAVY_CLIENT].floor;
    double t = 2.0 * early > early + fl ? 2.0 * early : early + fl;
    if (!(sg->before > t))
        return 0;
    sg->base = early;
    *hi = vals[(size_t)ceil(0.9 * (double)nv) - 1];
    *thr = t;
    return 1;
}

/* A load that rose slowly (no trigger but the load itself): the 30-window
 * baseline before the lead-up is already up on the load of the early
 * windows by a tenth, and the lead-up is a quarter above that: the load is
 * the cause, measured against the earlier baseline (base, its range hi and
 * the threshold thr). */
static void load_ramp(st_sig *sg, const st_win *w, const sat_storm_span *sp, uint32_t heavy,
                      double *hi, double *thr)
{
    double vals[ST_BASELINE_WINDOWS];
    size_t a, b;
    if (!early_windows(sp, &a, &b))
        return;
    size_t nv = values_of(w, a, b, SAT_SIG_OPS, heavy, vals, 30);
    if (nv < 10)
        return;
    double early = vals[(nv - 1) / 2], fl = st_signals[SAT_SIG_OPS].floor;
    double t = 1.25 * early > early + fl ? 1.25 * early : early + fl;
    if (!(sg->base > 1.1 * early) || !(sg->before > t))
        return;
    sg->base = early;
    *hi = vals[(size_t)ceil(0.9 * (double)nv) - 1];
    *thr = t;
}

/* One signal before and during a storm: its baseline (the median and the
 * 90th percentile of the windows [start-33, start-4]), whether it rose in
 * the lead-up (the 3 windows before the start, and the storm's first
 * ST_INTO: a trigger may start with the storm), its onset and when it was
 * back within the baseline's range. */
static void look_at(st_sig *sg, int g, const st_win *w, size_t n, const sat_storm_span *sp,
                    uint32_t heavy, sat_ts_ns lo_ts, sat_dur_ns step)
{
    double vals[ST_BASELINE_WINDOWS];
    size_t a = sp->start >= 33 ? sp->start - 33 : 0;
    size_t nv = sp->start >= 4 ? values_of(w, a, sp->start - 4, g, heavy, vals, 30) : 0;
    sg->base = nv ? vals[(nv - 1) / 2] : NAN;
    double hi = nv ? vals[(size_t)ceil(0.9 * (double)nv) - 1] : NAN;
    size_t lead_a = sp->start >= 3 ? sp->start - 3 : 0;
    size_t lead_b = sp->start + ST_INTO - 1 <= sp->end ? sp->start + ST_INTO - 1 : sp->end;
    sg->before = sg->during = NAN;
    for (size_t t = lead_a; t <= lead_b; t++) {
        double v = signal_of(&w[t], g, heavy);
        if (!isnan(v) && (isnan(sg->before) || v > sg->before))
            sg->before = v;
    }
    for (size_t t = sp->start; t <= sp->end; t++) {
        double v = signal_of(&w[t], g, heavy);
        if (!isnan(v) && (isnan(sg->during) || v > sg->during))
            sg->during = v;
    }
    if (isnan(sg->base))
        return;
    double fl = st_signals[g].floor;
    double thr = 2.0 * sg->base > sg->base + fl ? 2.0 * sg->base : sg->base + fl;
    if (g == SAT_SIG_OPS && !(sg->before > thr))
        load_ramp(sg, w, sp, heavy, &hi, &thr);
    /* back to usual: within the baseline's range (its 90th percentile, or
     * half the floor above the median, the larger), smoothed */
    double usual = hi > sg->base + fl / 2 ? hi : sg->base + fl / 2;
    sg->rose = !isnan(sg->before) && sg->before > thr;
    /* (before the 4th window there is no baseline: [1, 0] is empty) */
    if (g == SAT_SIG_HEAVY_CLIENT && sg->rose &&
        !new_heavy(w, sp, heavy, sp->start >= 4 ? a : 1, sp->start >= 4 ? sp->start - 4 : 0)) {
        /* the client every other window has is not new, unless it came
         * within the baseline and not before */
        sg->rose = heavy_ramp(sg, w, sp, heavy, &hi, &thr);
        usual = hi > sg->base + fl / 2 ? hi : sg->base + fl / 2;
    }
    size_t on = SIZE_MAX, from = SIZE_MAX;
    if (sg->rose) {
        /* the rise that reaches the storm: back from its last high window
         * of the lead-up, over windows above the threshold (one window
         * without data or below it does not break the run), at most 30
         * windows; so an earlier blip is not its onset */
        for (size_t t = lead_a; t <= lead_b; t++)
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
        return;
    if (sg->rose && on + 4 <= sp->start && on > a) {
        /* a rise that began inside the baseline's windows is not part of
         * what is usual: the usual range is then that of the windows
         * before the onset (else a client that came 2 minutes before the
         * storm is "back to usual" while still at its own level) */
        size_t pre = values_of(w, on >= 31 ? on - 30 : 0, on - 1, g, heavy, vals, 30);
        if (pre >= 10) {
            double phi = vals[(size_t)ceil(0.9 * (double)pre) - 1];
            double pbase = vals[(pre - 1) / 2];
            double pusual = phi > pbase + fl / 2 ? phi : pbase + fl / 2;
            if (pusual < usual) {
                usual = pusual;
                sg->base = pbase;
            }
        }
    }
    sg->onset_ts = lo_ts + (sat_ts_ns)on * step;
    /* back: the first of three windows in a row whose smoothed value is
     * within the usual range, after the rise */
    for (size_t t = from + 1; t < n; t++) {
        size_t u = t;
        while (u < n && u < t + 3) {
            double v = smoothed(w, u, g, heavy);
            if (isnan(v) || v > usual)
                break;
            u++;
        }
        if (u == t + 3 || (u == n && u > t)) {
            sg->back_ts = lo_ts + (sat_ts_ns)t * step;
            break;
        }
    }
    if (!sg->back_ts) {
        /* never back: above usual to the end, or no longer measured (a
         * service time needs answered operations, a handshake mix
         * handshakes): which of the two the story must say */
        size_t last = n;
        for (size_t t = n; t > from + 1; t--)
            if (!isnan(signal_of(&w[t - 1], g, heavy))) {
                last = t - 1;
                break;
            }
        if (last == n)
            last = from;
        if (n - 1 - last >= 3)
            sg->unseen_ts = lo_ts + (sat_ts_ns)(last + 1) * step;
    }
}

/* A mechanism's value in one window (NAN: the window cannot tell). */
static double mechanism_of(const st_win *w, int m)
{
    switch (m) {
    case ST_MECH_RETRIES: /* beyond what the clients' own connection rates explain */
        return fmax(0.0, (double)w->sc.retries - (double)w->sc.retries_chance_u / 1e6);
    case ST_MECH_FULL_HANDSHAKES:
        return w->sc.hs ? (double)w->sc.hs_full / (double)w->sc.hs : NAN;
    case ST_MECH_REFUSED:
        return (double)(w->kinds[SAT_STORM_SYN_UNANSWERED] + w->kinds[SAT_STORM_SYN_RETRY]);
    case ST_MECH_RECONNECTS: return (double)w->sc.opens;
    case ST_MECH_OFFERED_LOAD: return (double)w->ld.ops;
    default: return NAN;
    }
}

static double mean_of(const st_win *w, size_t a, size_t b, int m)
{
    double sum = 0;
    size_t k = 0;
    for (size_t t = a; t <= b; t++) {
        double v = mechanism_of(&w[t], m);
        if (!isnan(v)) {
            sum += v;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

/* Whether the clients retried a good part of what failed in windows [a, b]:
 * retries (beyond chance) of at least ST_RETRY_SHARE of the failures. A
 * storm the clients fed by retrying has most of its failures retried; one
 * client retrying its own failures (a batch job trying again each second,
 * the trigger itself) is a small part of them. */
static int retried_enough(const st_win *w, size_t a, size_t b)
{
    double retried = 0, failed = 0;
    for (size_t t = a; t <= b; t++) {
        retried += mechanism_of(&w[t], ST_MECH_RETRIES);
        failed += (double)w[t].events;
    }
    return retried >= ST_RETRY_SHARE * failed;
}

/* What fed a storm: the first mechanism (in st_mechanisms' order: the most
 * direct first) whose mean rose above its baseline (the median of the
 * baseline windows) by its rule (twice the base and its floor above it):
 * over the windows after the trigger was back when the storm outlived it
 * (what kept it going), else over the storm's windows while the trigger
 * was up (what fed it). None rose: none is named. */
static void find_mechanism(sat_storm *st, const st_win *w, const sat_storm_span *sp,
                           size_t back)
{
    st->mechanism = -1;
    size_t a = sp->start >= 33 ? sp->start - 33 : 0;
    for (int m = 0; m < ST_MECH__COUNT; m++) {
        double vals[ST_BASELINE_WINDOWS];
        size_t nv = 0;
        for (size_t t = a; sp->start >= 4 && t <= sp->start - 4 && nv < 30; t++) {
            double v = mechanism_of(&w[t], m);
            if (!isnan(v))
                vals[nv++] = v;
        }
        qsort(vals, nv, sizeof *vals, cmp_dbl);
        st_mech_fig *f = &st->mech[m];
        f->before = nv ? vals[(nv - 1) / 2] : NAN;
        size_t up_end = back > sp->start && back - 1 < sp->end ? back - 1 : sp->end;
        f->during = back > sp->start ? mean_of(w, sp->start, up_end, m) : NAN;
        f->after = back <= sp->end ? mean_of(w, back, sp->end, m) : NAN;
        double fl = st_mechanisms[m].floor, b = isnan(f->before) ? 0 : f->before;
        double thr = 2.0 * b > b + fl ? 2.0 * b : b + fl;
        double judged = st->sustained ? f->after : f->during;
        f->rose = !isnan(judged) && judged > thr;
        if (m == ST_MECH_RETRIES && f->rose)
            f->rose = retried_enough(w, st->sustained ? back : sp->start,
                                     st->sustained ? sp->end : up_end);
        if (f->rose && st->mechanism < 0)
            st->mechanism = m;
    }
}

/* Whether clients were already retrying in the lead-up (retries above their
 * baseline by the mechanisms' rule): then the connections opened are their
 * reconnects, an effect, not a load that came from outside. */
static int retries_rose(const st_win *w, const sat_storm_span *sp)
{
    double vals[ST_BASELINE_WINDOWS], lead = 0;
    size_t nv = 0, a = sp->start >= 33 ? sp->start - 33 : 0;
    for (size_t t = a; sp->start >= 4 && t <= sp->start - 4 && nv < 30; t++)
        vals[nv++] = mechanism_of(&w[t], ST_MECH_RETRIES);
    qsort(vals, nv, sizeof *vals, cmp_dbl);
    double b = nv ? vals[(nv - 1) / 2] : 0, fl = st_mechanisms[ST_MECH_RETRIES].floor;
    size_t lead_b = sp->start + ST_INTO - 1 <= sp->end ? sp->start + ST_INTO - 1 : sp->end;
    for (size_t t = sp->start >= 3 ? sp->start - 3 : 0; t <= lead_b; t++)
        if (mechanism_of(&w[t], ST_MECH_RETRIES) > lead)
            lead = mechanism_of(&w[t], ST_MECH_RETRIES);
    return lead > (2.0 * b > b + fl ? 2.0 * b : b + fl);
}

/* The chain: every signal looked at; the trigger is the risen cause with
 * the earliest onset (a new heavy client is preferred to the load it
 * makes; the work per operation counts only when the load did not rise);
 * an effect (etime, wtime, the handshakes' answer time) never names it.
 * Sustained: the failures went on after the trigger was back to usual for
 * longer than the queue needs to drain (ST_DRAIN_S, and 3 windows). The
 * mechanism: what kept it going then, else what fed it while the trigger
 * was up. */
static void chain(sat_storm *st, const st_win *w, size_t n, const sat_storm_span *sp,
                  sat_ts_ns lo_ts, sat_dur_ns step)
{
    st->trigger = -1;
    st->mechanism = -1;
    uint32_t heavy = heavy_of(w, sp);
    for (int g = 0; g < SAT_SIG__COUNT; g++)
        look_at(&st->sig[g], g, w, n, sp, heavy, lo_ts, step);
    int load_rose = st->sig[SAT_SIG_OPS].rose;
    int retrying = retries_rose(w, sp);
    for (int g = 0; g < SAT_SIG__COUNT; g++) {
        const st_sig *sg = &st->sig[g];
        if (!sg->rose || !st_signals[g].cause || (g == SAT_SIG_SERVICE_TIME && load_rose) ||
            (g == SAT_SIG_CONN_OPENS && retrying))
            continue;
        const st_sig *best = st->trigger >= 0 ? &st->sig[st->trigger] : NULL;
        int narrower = g == SAT_SIG_HEAVY_CLIENT && st->trigger == SAT_SIG_OPS &&
                       sg->onset_ts <= best->onset_ts;
        if (!best || sg->onset_ts < best->onset_ts || narrower)
            st->trigger = g;
    }
    if (st->trigger < 0)
        return;
    sat_ts_ns back = st->sig[st->trigger].back_ts;
    sat_ts_ns end = lo_ts + (sat_ts_ns)(sp->end + 1) * step; /* the end of the last high window */
    /* the trigger's last window: its back (or the input's end when never back) */
    size_t back_w = back ? (size_t)((back - lo_ts) / step) : n;
    st->untold = !back && sp->end + 1 == n;
    if (back && end > back) {
        sat_dur_ns drain = (sat_dur_ns)(ST_DRAIN_S * 1e9);
        if (drain < 3 * step)
            drain = 3 * step;
        st->sustained_s = (double)(end - back) / 1e9;
        st->sustained = end - back > drain;
    }
    find_mechanism(st, w, sp, back_w);
}

typedef struct st_cl {
    const char *name; /* in the storm's client table */
    size_t len;
    uint64_t n;
} st_cl;

/* Most failures first; ties by address, so the order never depends on the
 * order the rows came in (nor on how the input was split and merged). */
static int cmp_cl(const void *a, const void *b)
{
    const st_cl *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

int st_build_storm(sat_storms *s, sat_storm *st, const st_win *w, size_t n,
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
        sat_rec_merge(&st_counts_desc, &st->sc, &w[t].sc); /* counts: cannot fail */
    }
    st->ongoing = sp->end + 1 == n;
    size_t zero = 0;
    for (int i = 0; i < ST_BITS / 64; i++)
        for (uint64_t b = ~bits[i]; b; b &= b - 1)
            zero++;
    double est = zero ? -(double)ST_BITS * log((double)zero / ST_BITS) : (double)ST_BITS * 8;
    /* failures per client within [start_ts, end_ts) */
    sat_strtab names; /* client -> uint64 failures in the storm */
    sat_strtab_init(&names, sizeof(uint64_t), 0);
    for (size_t i = 0; i < sat_keyed_n(&s->cw); i++) {
        const char *key = sat_keyed_key(&s->cw, i);
        int64_t widx;
        memcpy(&widx, key, sizeof widx);
        sat_ts_ns ts = widx * s->opts.window;
        const st_cw *c = (const st_cw *)sat_keyed_rec(&s->cw, i);
        if (ts < st->start_ts || ts >= st->end_ts || !c->n)
            continue;
        int capped;
        uint64_t *cn = (uint64_t *)sat_strtab_upsert(&names, key + 8, sat_keyed_len(&s->cw, i) - 8,
                                                    NULL, &capped);
        if (!cn) {
            sat_strtab_free(&names);
            return SAT_E_NOMEM;
        }
        *cn += c->n;
    }
    size_t ncl = names.n;
    st_cl *cl = (st_cl *)calloc(ncl + 1, sizeof *cl);
    if (!cl) {
        sat_strtab_free(&names);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < ncl; i++) {
        cl[i].name = sat_strtab_key(&names, i);
        cl[i].len = sat_strtab_len(&names, i);
        cl[i].n = *(const uint64_t *)sat_strtab_val(&names, i);
    }
    qsort(cl, ncl, sizeof *cl, cmp_cl);
    while (ncl && !cl[ncl - 1].n)
        ncl--;
    /* exact from the table, the linear count once a table overflowed */
    st->clients = s->t.clients_lost ? (uint64_t)llround(est) : ncl;
    size_t ntop = ncl < s->opts.top_clients ? ncl : s->opts.top_clients;
    st_client *top = (st_client *)sat_arena_alloc(&s->found.arena, (ntop + 1) * sizeof *top);
    for (size_t i = 0; top && i < ntop; i++) {
        top[i].client = sat_arena_strdup(&s->found.arena, cl[i].name, cl[i].len);
        top[i].events = cl[i].n;
        if (!top[i].client)
            top = NULL;
    }
    free(cl);
    sat_strtab_free(&names);
    if (!top)
        return SAT_E_NOMEM;
    st->top = top;
    st->ntop = ntop;
    chain(st, w, n, sp, lo_ts, step);
    uint32_t heavy = heavy_of(w, sp);
    if (heavy != UINT32_MAX && heavy < s->peers.n && !isnan(st->sig[SAT_SIG_HEAVY_CLIENT].before))
        st->heavy_client = sat_strtab_key(&s->peers, heavy);
    return SAT_OK;
}
