/*
 * storms_result.c - the storms analyzer's results as sections (satscope/result.h,
 * docs/output.md), written from its state (its totals, and what finish found:
 * the periods, their windows, the storms), which every form (JSON, CSV, text)
 * renders; the counts named in its lists (storms_internal.h, storms_found.h)
 * are written from their records' descriptions:
 *
 *   (summary)    window_s, window_chosen, first_ts, last_ts, span_s, windows,
 *                events (client failures), deduplicated, retries, ...,
 *                baseline_windows and period_gap_s (the rules of the periods);
 *                rows_read {}
 *   failures     the failures by kind: kind, events, share, meaning (the kind in
 *                words), kind_group (the few a chart stacks); most first; kinds never
 *                seen are left out
 *   storms       one row per storm (the main table): its server (the one it
 *                belongs to: storms_servers.c; null when the inputs cannot tell),
 *                when, how big, its kinds
 *                (kinds.abandon ...), its trigger (trigger.signal ...), whether it
 *                outlived it (sustained, sustained_s, and what kept it going,
 *                sustained_by)
 *   signals      the chain: for every storm, every signal looked at before it
 *                (storm, signal_name, its words - label for a table, meaning for
 *                a sentence, in the words of what the inputs hold -, unit, cause,
 *                ldap_only, rose, baseline, lead_up (the windows before it and its
 *                first), during, onset_ts, back_ts, never_answered, client (whose
 *                operations the heavy-client signal counts))
 *   top_clients  the clients with the most failures of each storm
 *   periods      each server's periods, the step each was read at and why, and
 *                the floor of its baseline (each row lists its inputs)
 *   servers      the servers told apart: server, rows read of it, its failures and
 *                storms, its inputs (a list)
 *   windows      the series the detector read: per window of each period, the
 *                failures, by kind (kinds.<kind>, the kinds seen in the input),
 *                operations, connections opened and handshakes (and HTTP
 *                requests when the input had some)
 *
 * The kinds of HTTP requests (http_408 .. slow), the HTTP rows read and the
 * slow threshold are in the document only when HTTP requests were read: the
 * storms table has a kinds.<kind> column for every other kind always.
 *
 * A storm is named by its number (1 = the first row of storms) in the tables
 * that give more of it, and a period likewise. The values of a signal are in
 * its own unit, which its `unit` column says (and its name: seconds for
 * names ending _s, a share 0..1 for full_hs_share, else a count per
 * window: "count"); a p90 above any answer
 * (requests or handshakes the server never answered) is null with
 * "never_answered": true.
 */
#include <math.h>

#include "storms_internal.h"

#define NS 1e9
#define ST_COUNTS_MAX 8 /* columns a record of counts writes, at most */

static const char *const whys[] = {"option", "longest", "shorter", "shortest"};

/* Which words of a signal fit the inputs (st_signal_info): those of what
 * they hold, LDAP operations (or connections), HTTP requests, or both. */
static int words_of(const sat_storms *s)
{
    int ldap = ST_TOTALS(s)->rows.ldap_ops || ST_TOTALS(s)->rows.ldap_conns;
    return ST_TOTALS(s)->rows.http_reqs ? (ldap ? ST_WORDS_BOTH : ST_WORDS_HTTP) : ST_WORDS_LDAP;
}

/* A signal's unit as the result names units ("count": per window). */
static const char *unit_name(int unit)
{
    return unit == SAT_UNIT_DURATION ? "duration" : unit == SAT_UNIT_RATIO ? "ratio" : "count";
}

/* Whether the storms table has a column for kind k (see above). */
static int kind_listed(const sat_storms *s, int k)
{
    return k < SAT_STORM_KIND_HTTP_FIRST || ST_TOTALS(s)->rows.http_reqs;
}

static int kind_cmp_desc(const uint64_t *k, int a, int b)
{
    if (k[a] != k[b])
        return k[a] > k[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void put_kinds_table(sat_rnode *root, const sat_storms *s)
{
    static const sat_col cols[] = {{"kind", SAT_UNIT_TEXT, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, "failures"},
                                   {"share", SAT_UNIT_RATIO, 4, NULL},
                                   {"meaning", SAT_UNIT_TEXT, 0, NULL},
                                   {"meaning_one", SAT_UNIT_TEXT, 0, "meaning of one"},
                                   {"kind_group", SAT_UNIT_TEXT, 0, NULL}};
    const st_totals *T = ST_TOTALS(s);
    sat_rnode *t = sat_table(root, "failures", cols, 6);
    int order[SAT_STORM_KIND__COUNT], n = 0;
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        if (T->kinds[k])
            order[n++] = k;
    for (int i = 1; i < n; i++) /* insertion sort: 20 kinds at most */
        for (int j = i; j > 0 && kind_cmp_desc(T->kinds, order[j], order[j - 1]) < 0; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "kind", sat_storm_kind_name(order[i]));
        sat_put_count(row, "events", T->kinds[order[i]]);
        sat_put_ratio(row, "share", (double)T->kinds[order[i]] / (double)T->f.events, 4);
        sat_put_text(row, "meaning", st_kinds[order[i]].meaning);
        sat_put_text(row, "meaning_one", st_kinds[order[i]].one);
        sat_put_text(row, "kind_group", st_kinds[order[i]].group);
    }
}

static void put_periods(sat_rnode *root, const sat_storms *s)
{
    static const sat_col cols[] = {
        {"period", SAT_UNIT_COUNT, 0, NULL},
        {"server_addr", SAT_UNIT_TEXT, 0, "server"},
        {"start_ts", SAT_UNIT_TIME, 0, "start"},
        {"end_ts", SAT_UNIT_TIME, 0, "end"},
        {"span_s", SAT_UNIT_DURATION, 3, "span"},
        {"window_s", SAT_UNIT_DURATION, 3, "window"},
        {"window_chosen_s", SAT_UNIT_DURATION, 3, "chosen"},
        {"window_why", SAT_UNIT_TEXT, 0, "why"},
        {"window_count", SAT_UNIT_COUNT, 0, "windows"},
        {"window_count_at_10s", SAT_UNIT_INT, 0, "at 10 s"},
        {"baseline_floor", SAT_UNIT_NUMBER, 3, "floor"},
        {"events", SAT_UNIT_COUNT, 0, "failures"},
        {"storm_count", SAT_UNIT_COUNT, 0, "storms"},
        {"busiest_window_events", SAT_UNIT_COUNT, 0, "busiest"},
        {"busiest_window_ts", SAT_UNIT_TIME, 0, "busiest at"}};
    sat_rnode *t = sat_table(root, "periods", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < s->found.nperiods; i++) {
        const st_period_found *p = &s->found.periods[i];
        sat_rnode *row = sat_table_row(t);
        sat_put_count(row, "period", i + 1);
        sat_put_text(row, "server_addr", p->server);
        sat_put_time(row, "start_ts", p->start_ts);
        sat_put_time(row, "end_ts", p->end_ts);
        sat_put_dur(row, "span_s", (double)(p->end_ts - p->start_ts) / NS, 3);
        sat_put_dur(row, "window_s", (double)p->window / NS, 3);
        sat_put_dur(row, "window_chosen_s", (double)p->chosen / NS, 3);
        sat_put_text(row, "window_why", p->why >= 0 && p->why < 4 ? whys[p->why] : "?");
        sat_put_count(row, "window_count", p->nwindows);
        sat_put_int(row, "window_count_at_10s", p->windows_at_longest);
        sat_put_num(row, "baseline_floor", st_baseline_floor(p->window), 3);
        sat_put_count(row, "events", p->events);
        sat_put_count(row, "storm_count", p->nstorms);
        sat_put_count(row, "busiest_window_events", p->busiest_events);
        sat_put_time(row, "busiest_window_ts", p->busiest_ts);
        sat_rnode *in = sat_list(row, "inputs");
        for (size_t k = 0; k < p->ninputs; k++)
            sat_put_text(in, NULL, p->inputs[k]);
    }
}

/* The series, with a kinds.<kind> column for each kind of failure seen in
 * the input (in the order of the kinds, as the storms table): the same
 * columns whichever way the input was cut. */
static void put_windows(sat_rnode *root, const sat_storms *s)
{
    static const sat_col head[] = {{"start_ts", SAT_UNIT_TIME, 0, "start"},
                                   {"period", SAT_UNIT_COUNT, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, "failures"}};
    sat_col cols[3 + SAT_STORM_KIND__COUNT + ST_COUNTS_MAX + 1];
    char names[SAT_STORM_KIND__COUNT][48];
    size_t nc = 0;
    for (size_t i = 0; i < 3; i++)
        cols[nc++] = head[i];
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        if (ST_TOTALS(s)->kinds[k]) {
            snprintf(names[k], sizeof names[k], "kinds.%s", sat_storm_kind_name(k));
            sat_col c = {names[k], SAT_UNIT_COUNT, 0, NULL};
            cols[nc++] = c;
        }
    nc += sat_rec_cols(&st_win_counts_desc, cols + nc, ST_COUNTS_MAX);
    if (ST_TOTALS(s)->rows.http_reqs) {
        sat_col c = {"http_requests", SAT_UNIT_COUNT, 0, "requests"};
        cols[nc++] = c;
    }
    sat_rnode *t = sat_table(root, "windows", cols, nc); /* the names are copied */
    sat_table_set_window(t, s->found.window);
    for (size_t i = 0; i < s->found.nperiods; i++) {
        const st_period_found *p = &s->found.periods[i];
        for (size_t k = 0; p->windows && k < p->nwindows; k++) {
            const st_win_out *w = &p->windows[k];
            sat_rnode *row = sat_table_row(t);
            sat_put_time(row, "start_ts", p->windows_ts + (sat_ts_ns)k * p->window);
            sat_put_count(row, "period", i + 1);
            sat_put_count(row, "events", w->events);
            for (int j = 0; j < SAT_STORM_KIND__COUNT; j++)
                if (ST_TOTALS(s)->kinds[j])
                    sat_put_count(row, names[j], w->kinds[j]);
            sat_rec_row(&st_win_counts_desc, row, &w->c, NULL);
            if (ST_TOTALS(s)->rows.http_reqs)
                sat_put_count(row, "http_requests", w->http_requests);
        }
    }
}

/* The storms table's columns: the fixed ones, then kinds.<kind>, then the
 * trigger and whether the storm outlived it, then what it sums of its
 * windows (ST_STORM_COUNTS), then whether it was still on. */
#define ST_HEAD 12
#define ST_TAIL 13
static const sat_col storm_head[ST_HEAD] = {
    {"storm", SAT_UNIT_COUNT, 0, NULL},
    {"period", SAT_UNIT_COUNT, 0, NULL},
    {"server_addr", SAT_UNIT_TEXT, 0, "server"},
    {"window_s", SAT_UNIT_DURATION, 3, "window"},
    {"start_ts", SAT_UNIT_TIME, 0, "start"},
    {"end_ts", SAT_UNIT_TIME, 0, "end"},
    {"span_s", SAT_UNIT_DURATION, 3, "span"},
    {"peak_ts", SAT_UNIT_TIME, 0, "peak"},
    {"events", SAT_UNIT_COUNT, 0, "failures"},
    {"peak_events", SAT_UNIT_COUNT, 0, "at peak"},
    {"baseline_per_window", SAT_UNIT_NUMBER, 3, "baseline"},
    {"client_count", SAT_UNIT_COUNT, 0, "clients"}};
static const sat_col storm_tail[ST_TAIL] = {
    {"trigger.signal_name", SAT_UNIT_TEXT, 0, "trigger"},
    {"trigger.onset_ts", SAT_UNIT_TIME, 0, "onset"},
    {"trigger.back_ts", SAT_UNIT_TIME, 0, "back"},
    {"trigger.unseen_ts", SAT_UNIT_TIME, 0, "unseen from"},
    {"heavy_client", SAT_UNIT_TEXT, 0, "heavy client"},
    {"sustained", SAT_UNIT_BOOL, 0, NULL},
    {"sustained_s", SAT_UNIT_DURATION, 3, "sustained for"},
    {"sustained_by", SAT_UNIT_TEXT, 0, "sustained by"},
    {"mechanism", SAT_UNIT_TEXT, 0, "mechanism"},
    {"mechanism_unit", SAT_UNIT_TEXT, 0, "unit"},
    {"mechanism_usual", SAT_UNIT_NUMBER, 3, "before"},
    {"mechanism_during", SAT_UNIT_NUMBER, 3, "during"},
    {"mechanism_after", SAT_UNIT_NUMBER, 3, "after"}};
static const sat_col storm_last = {"ongoing", SAT_UNIT_BOOL, 0, NULL};

static sat_rnode *storms_table(sat_rnode *root, const sat_storms *s)
{
    sat_col cols[ST_HEAD + SAT_STORM_KIND__COUNT + ST_TAIL + ST_COUNTS_MAX + 1];
    char names[SAT_STORM_KIND__COUNT][48];
    size_t n = 0;
    for (int i = 0; i < ST_HEAD; i++)
        cols[n++] = storm_head[i];
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++) {
        if (!kind_listed(s, k))
            continue;
        snprintf(names[k], sizeof names[k], "kinds.%s", sat_storm_kind_name(k));
        sat_col c = {names[k], SAT_UNIT_COUNT, 0, NULL};
        cols[n++] = c;
    }
    for (int i = 0; i < ST_TAIL; i++)
        cols[n++] = storm_tail[i];
    n += sat_rec_cols(&st_counts_desc, cols + n, ST_COUNTS_MAX);
    cols[n++] = storm_last;
    return sat_table(root, "storms", cols, n); /* the names are copied */
}

static void put_storm(sat_rnode *t, const sat_storms *s, const sat_storm *st, size_t i)
{
    sat_rnode *row = sat_table_row(t);
    sat_put_count(row, "storm", i + 1);
    sat_put_count(row, "period", st->period + 1);
    sat_put_text(row, "server_addr", st->server);
    sat_put_dur(row, "window_s", (double)st->window / NS, 3);
    sat_put_time(row, "start_ts", st->start_ts);
    sat_put_time(row, "end_ts", st->end_ts);
    sat_put_dur(row, "span_s", (double)(st->end_ts - st->start_ts) / NS, 3);
    sat_put_time(row, "peak_ts", st->peak_ts);
    sat_put_count(row, "events", st->events);
    sat_put_count(row, "peak_events", st->peak_events);
    sat_put_num(row, "baseline_per_window", st->expected, 3);
    sat_put_count(row, "client_count", st->clients);
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++) {
        if (!kind_listed(s, k))
            continue;
        char name[48];
        snprintf(name, sizeof name, "kinds.%s", sat_storm_kind_name(k));
        sat_put_count(row, name, st->kinds[k]);
    }
    int g = st->trigger;
    sat_put_text(row, "trigger.signal_name", g >= 0 ? sat_storm_signal_name(g) : NULL);
    sat_put_time(row, "trigger.onset_ts", g >= 0 ? st->sig[g].onset_ts : 0);
    sat_put_time(row, "trigger.back_ts", g >= 0 ? st->sig[g].back_ts : 0);
    sat_put_time(row, "trigger.unseen_ts", g >= 0 ? st->sig[g].unseen_ts : 0);
    sat_put_text(row, "heavy_client", st->heavy_client);
    /* with no trigger, or one never back while the storm went on to the end of
     * the inputs, whether the storm outlived it is unknown: absent */
    if (g >= 0 && !st->untold)
        sat_put_bool(row, "sustained", st->sustained);
    sat_put_dur(row, "sustained_s", st->sustained_s, 3);
    int m = st->mechanism;
    sat_put_text(row, "sustained_by", m >= 0 && st->sustained ? st_mechanisms[m].meaning : NULL);
    sat_put_text(row, "mechanism", m >= 0 ? st_mechanisms[m].name : NULL);
    sat_put_text(row, "mechanism_unit", m >= 0 ? unit_name(st_mechanisms[m].unit) : NULL);
    sat_put_num(row, "mechanism_usual", m >= 0 ? st->mech[m].before : NAN, 3);
    sat_put_num(row, "mechanism_during", m >= 0 ? st->mech[m].during : NAN, 3);
    sat_put_num(row, "mechanism_after", m >= 0 ? st->mech[m].after : NAN, 3);
    sat_rec_row(&st_counts_desc, row, &st->sc, NULL);
    sat_put_bool(row, "ongoing", st->ongoing);
}

static void put_signals(sat_rnode *root, const sat_storms *s)
{
    static const sat_col cols[] = {
        {"storm", SAT_UNIT_COUNT, 0, NULL},
        {"signal_name", SAT_UNIT_TEXT, 0, "signal"},
        {"label", SAT_UNIT_TEXT, 0, NULL},
        {"meaning", SAT_UNIT_TEXT, 0, NULL},
        {"unit", SAT_UNIT_TEXT, 0, NULL},
        {"cause", SAT_UNIT_BOOL, 0, NULL},
        {"ldap_only", SAT_UNIT_BOOL, 0, "LDAP only"},
        {"rose", SAT_UNIT_BOOL, 0, NULL},
        {"baseline", SAT_UNIT_NUMBER, 6, NULL},
        {"lead_up", SAT_UNIT_NUMBER, 6, "before"},
        {"during", SAT_UNIT_NUMBER, 6, NULL},
        {"onset_ts", SAT_UNIT_TIME, 0, "onset"},
        {"back_ts", SAT_UNIT_TIME, 0, "back"},
        {"never_answered", SAT_UNIT_BOOL, 0, NULL},
        {"client", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "signals", cols, sizeof cols / sizeof cols[0]);
    int words = words_of(s);
    for (size_t i = 0; i < s->found.storms.nstorms; i++)
        for (int g = 0; g < SAT_SIG__COUNT; g++) {
            const st_sig *sg = &s->found.storms.storms[i].sig[g];
            sat_rnode *row = sat_table_row(t);
            sat_put_count(row, "storm", i + 1);
            sat_put_text(row, "signal_name", sat_storm_signal_name(g));
            sat_put_text(row, "label", st_signal_label(g, words));
            sat_put_text(row, "meaning", st_signal_meaning(g, words));
            sat_put_text(row, "unit", unit_name(st_signals[g].unit));
            sat_put_bool(row, "cause", st_signals[g].cause);
            sat_put_bool(row, "ldap_only", st_signals[g].ldap_only);
            sat_put_bool(row, "rose", sg->rose);
            sat_put_num(row, "baseline", sg->base, 6);
            sat_put_num(row, "lead_up", sg->before, 6);
            sat_put_num(row, "during", sg->during, 6);
            sat_put_time(row, "onset_ts", sg->onset_ts);
            sat_put_time(row, "back_ts", sg->back_ts);
            /* a p90 past every answer is null: said here */
            if (g == SAT_SIG_HS_ANSWER_P90 || g == SAT_SIG_ETIME_P90)
                sat_put_bool(row, "never_answered", isinf(sg->before) || isinf(sg->during));
            else
                sat_put_absent(row, "never_answered", SAT_UNIT_BOOL);
            /* whose operations the heavy-client signal counts */
            sat_put_text(row, "client",
                         g == SAT_SIG_HEAVY_CLIENT ? s->found.storms.storms[i].heavy_client : NULL);
        }
}

static void put_top_clients(sat_rnode *root, const sat_storms *s)
{
    static const sat_col cols[] = {{"storm", SAT_UNIT_COUNT, 0, NULL},
                                   {"client", SAT_UNIT_TEXT, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, "failures"}};
    sat_rnode *t = sat_table(root, "top_clients", cols, 3);
    for (size_t i = 0; i < s->found.storms.nstorms; i++)
        for (size_t c = 0; c < s->found.storms.storms[i].ntop; c++) {
            sat_rnode *row = sat_table_row(t);
            sat_put_count(row, "storm", i + 1);
            sat_put_text(row, "client", s->found.storms.storms[i].top[c].client);
            sat_put_count(row, "events", s->found.storms.storms[i].top[c].events);
        }
}

/* The servers told apart (storms_servers.c): each one's name, its inputs,
 * the rows read of it, its failures and storms. */
static void put_servers(sat_rnode *root, const sat_storms *s)
{
    static const sat_col cols[] = {{"server_addr", SAT_UNIT_TEXT, 0, "server"},
                                   {"rows", SAT_UNIT_COUNT, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, "failures"},
                                   {"storm_count", SAT_UNIT_COUNT, 0, "storms"}};
    sat_rnode *t = sat_table(root, "servers", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < s->ngroups; i++) {
        const st_group *gr = &s->groups[i];
        const st_rows *rw = &gr->g->t.rows;
        size_t ns = gr->g->found.storms.nstorms;
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "server_addr", gr->server);
        sat_put_count(row, "rows", rw->ldap_ops + rw->ldap_conns + rw->tls_hs + rw->tcp_conns +
                                       rw->http_reqs);
        sat_put_count(row, "events", gr->g->t.f.events);
        sat_put_count(row, "storm_count", ns);
        sat_rnode *in = sat_list(row, "inputs");
        for (size_t k = 0; k < gr->ninputs; k++)
            sat_put_text(in, NULL, gr->inputs[k]);
    }
}

int sat_storms_result(const sat_storms *s, sat_result *r)
{
    sat_rnode *root = sat_result_root(r);
    if (!s || !root)
        return SAT_E_NOMEM;
    const st_totals *t = ST_TOTALS(s);
    const st_found *fd = &s->found;
    sat_put_dur(root, "window_s", (double)fd->window / NS, 3);
    sat_put_text(root, "window_chosen", s->auto_window ? "auto" : "option");
    sat_put_time(root, "first_ts", t->first_ts);
    sat_put_time(root, "last_ts", t->last_ts);
    sat_put_dur(root, "span_s", t->first_ts ? (double)(t->last_ts - t->first_ts) / NS : NAN, 3);
    sat_put_count(root, "window_count", fd->nwindows);
    sat_rec_put(&st_failures_desc, root, &t->f, NULL);
    sat_put_count(root, "busiest_window_events", fd->busiest_events);
    sat_put_time(root, "busiest_window_ts", fd->busiest_ts);
    sat_put_dur(root, "busiest_window_s",
                fd->busiest_ts ? (double)fd->busiest_window / NS : NAN, 3);
    sat_put_count(root, "baseline_windows", ST_BASELINE_WINDOWS);
    sat_put_note(root, "a period's step gives it this many windows when it can: the detector's "
                       "warm-up and each storm's look back");
    sat_put_dur(root, "period_gap_s", (double)ST_PERIOD_GAP_NS / NS, 3);
    sat_put_note(root, "a silence this long (no row of any input) separates two periods, each "
                       "analysed on its own");
    sat_rnode *rows = sat_obj(root, "rows_read");
    sat_set_compact(rows);
    sat_rec_put(&st_rows_desc, rows, &t->rows, NULL);
    if (t->rows.http_reqs) {
        sat_put_count(rows, "http_req", t->rows.http_reqs);
        sat_put_dur(root, "slow_s", s->opts.slow > 0 ? (double)s->opts.slow / NS : NAN, 3);
        sat_put_note(root, "an HTTP request answered in this long or more is a failure (slow)");
        sat_rnode *in = sat_obj(root, "http_inputs");
        sat_set_compact(in);
        sat_rec_put(&st_http_inputs_desc, in, &t->http, NULL);
    }
    put_kinds_table(root, s);
    sat_rnode *st = storms_table(root, s);
    for (size_t i = 0; i < fd->storms.nstorms; i++)
        put_storm(st, s, &fd->storms.storms[i], i);
    sat_result_set_main(r, st);
    put_signals(root, s);
    put_top_clients(root, s);
    put_periods(root, s);
    put_servers(root, s);
    put_windows(root, s);
    return sat_result_status(r);
}
