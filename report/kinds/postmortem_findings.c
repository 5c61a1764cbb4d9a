/*
 * report_pm_findings.c - the post-mortem's findings: in a few sentences,
 * what happened, when, and the likely chain, each written from the results'
 * figures (which the finding's `figures` object repeats, typed):
 *   1. the storm: when, how big, of what kinds, from how many clients;
 *   2. the trigger: the signal that rose first (storms' trigger) and when;
 *   3. the amplification: the effects that rose with it (the queue wait,
 *      reconnects, retries), and the collapse of TLS session resumption
 *      (full handshakes) from the handshakes windows before and during it;
 *   4. whether the failures outlived the trigger (storms' `sustained`);
 *   5. the crash: signal, function, time, and the storm it fell in;
 *   6. the top offender: the unindexed search (or filter) that took the most
 *      time.
 * A step the results say nothing about is left out, never guessed; with no
 * storm and no crash one notice says so.
 */
#include <string.h>

#include "postmortem.h"

/* ---- words ---------------------------------------------------------------------- */

/* The words of storms' signals and kinds of failure are its result's
 * (analyze/storms_signals.c says them once): read from its tables. */

const char *pm_kind_words(const pm_ctx *p, const char *kind, double n)
{
    const sat_rnode *t = sat_get_table(p->storms, "failures");
    const sat_rnode *r = kind ? sat_get_row(t, "kind", kind) : NULL;
    const char *w = sat_get_text(r, n == 1 ? "meaning_one" : "meaning", NULL);
    return w ? w : kind ? kind : "?";
}

const char *pm_not_logged(const pm_ctx *p, const char *field)
{
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->http_etime, "not_logged")); r;
         r = sat_rnode_next(r))
        if (sat_get_text(r, "field", NULL) && !strcmp(sat_get_text(r, "field", NULL), field) &&
            sat_get_bool(r, "partial", -1) != 1)
            return sat_get_text(r, "why", NULL) ? sat_get_text(r, "why", NULL) : "no input logs it";
    return NULL;
}

const char *pm_signal_words(const pm_ctx *p, const char *signal)
{
    const sat_rnode *r = signal ? sat_get_row(sat_get_table(p->storms, "signals"), "signal_name",
                                              signal)
                                : NULL;
    const char *w = sat_get_text(r, "meaning", NULL);
    return w ? w : signal ? signal : "?";
}

void pm_signal_value(char *buf, size_t n, const sat_rnode *signal_row, double v)
{
    const char *unit = sat_get_text(signal_row, "unit", "count");
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else if (!strcmp(unit, "duration"))
        sat_fmt_duration(buf, n, v);
    else if (!strcmp(unit, "ratio")) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, 100 * v);
        snprintf(buf, n, "%s%%", t);
    } else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else
        sat_fmt_sig3(buf, n, v);
}

const sat_rnode *pm_signal_row(const pm_ctx *p, double storm, const char *signal)
{
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->storms, "signals")); r;
         r = sat_rnode_next(r))
        if (sat_get_num(r, "storm", NAN) == storm && sat_get_text(r, "signal_name", NULL) &&
            !strcmp(sat_get_text(r, "signal_name", NULL), signal))
            return r;
    return NULL;
}

/* Whether a storm's server (storms' servers table, told apart by address)
 * has a capture among its inputs (the timeline's sources say which inputs
 * are captures): a capture of another server says nothing of this one. */
static int storm_server_captured(const pm_ctx *p, const sat_rnode *st)
{
    const char *addr = sat_get_text(st, "server_addr", NULL);
    const sat_rnode *srv = sat_get_table(p->storms, "servers");
    for (const sat_rnode *r = sat_rnode_first(srv); r; r = sat_rnode_next(r)) {
        const char *a = sat_get_text(r, "server_addr", NULL);
        if (!(a && addr && !strcmp(a, addr)) && !(!a && !addr))
            continue;
        for (const sat_rnode *x = sat_rnode_first(sat_get_list(r, "inputs")); x;
             x = sat_rnode_next(x)) {
            const char *path = sat_get_text(x, NULL, "");
            const sat_rnode *src = sat_get_table(p->timeline, "sources");
            for (const sat_rnode *q = sat_rnode_first(src); q; q = sat_rnode_next(q))
                if (!strcmp(sat_get_text(q, "path", ""), path) &&
                    !strcmp(sat_get_text(q, "kind", ""), "pcap"))
                    return 1;
        }
        return 0;
    }
    return 1; /* servers not told apart: the inputs are one server's */
}

void pm_handshakes_in(const pm_ctx *p, int64_t from, int64_t to, double *full, double *resumed,
                      double *all)
{
    *full = *resumed = *all = 0;
    /* a capture's handshakes when there is one (and it is of the storm's
     * server), else those access logs tell by their first requests' session
     * flag (both of one period would count every handshake twice) */
    const sat_rnode *win = sat_get_table(p->handshakes, "windows");
    if (sat_rnode_first(win) && p->storm && !storm_server_captured(p, p->storm))
        return;
    if (!sat_rnode_first(win))
        win = sat_get_table(p->handshakes, "logs.windows");
    for (const sat_rnode *r = sat_rnode_first(win); r; r = sat_rnode_next(r)) {
        int64_t ts = sat_get_time(r, "start_ts", 0);
        if (ts < from || ts >= to)
            continue;
        double f = sat_get_num(r, "full", NAN), s = sat_get_num(r, "resumed", NAN), c = sat_get_num(r, "connections", NAN);
        *full += isfinite(f) ? f : 0;
        *resumed += isfinite(s) ? s : 0;
        *all += isfinite(c) ? c : 0;
    }
}

/* Copies each named value of src into fig under the same name (the figures
 * a finding quotes), up to the NULL. */
static void copy_same(sat_rnode *fig, const sat_rnode *src, ...)
{
    va_list ap;
    va_start(ap, src);
    for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *))
        sat_put_copy(fig, k, src, k);
    va_end(ap);
}

/* sat_plural of a count held as a number (a result's figure) */
static const char *plural(double n, const char *one, const char *many)
{
    return sat_plural(n == 1 ? 1 : 0, one, many);
}

/* ---- the findings ------------------------------------------------------------------ */

/* "57 abandoned operations, 46 time limits (err=3) and 45 ..." : the three
 * biggest kinds of the storm's kinds.* columns, and how many more. */
static void storm_kinds(const pm_ctx *p, const sat_rnode *st, char *buf, size_t n)
{
    const char *name[32];
    double val[32];
    int k = 0;
    for (const sat_rnode *c = sat_rnode_first(st); c && k < 32; c = sat_rnode_next(c)) {
        const char *key = sat_rnode_key(c);
        double v = sat_value_num(sat_rnode_value(c));
        if (!key || strncmp(key, "kinds.", 6) || !(v > 0))
            continue;
        int at = k++;
        for (; at > 0 && val[at - 1] < v; at--) { /* most first, ties in column order */
            name[at] = name[at - 1];
            val[at] = val[at - 1];
        }
        name[at] = key + 6;
        val[at] = v;
    }
    int shown = k < 3 ? k : 3, others = k - shown;
    size_t l = 0;
    buf[0] = '\0';
    for (int i = 0; i < shown; i++) {
        const char *sep = i == 0 ? "" : i == shown - 1 && !others ? " and " : ", ";
        snprintf(buf + l, n - l, "%s%.0f %s", sep, val[i], pm_kind_words(p, name[i], val[i]));
        l = strlen(buf);
    }
    if (others)
        snprintf(buf + l, n - l, " and %d other %s", others, sat_plural((uint64_t)others, "kind", "kinds"));
}

static void finding_storm(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *st = p->storm;
    char a[64], b[64], span[64], kinds[512], win[64];
    pm_time(p, a, sizeof a, sat_get_time(st, "start_ts", 0));
    pm_time(p, b, sizeof b, sat_get_time(st, "end_ts", 0));
    pm_dur(span, sizeof span, sat_get_num(st, "span_s", NAN));
    pm_dur(win, sizeof win, sat_get_num(st, "window_s", NAN));
    storm_kinds(p, st, kinds, sizeof kinds);
    double ev = sat_get_num(st, "events", NAN), cl = sat_get_num(st, "client_count", NAN);
    char base[64];
    sat_fmt_sig3(base, sizeof base, sat_get_num(st, "baseline_per_window", NAN));
    size_t nstorms = sat_rnode_count(sat_get_table(p->storms, "storms"));
    char more[96] = "";
    if (nstorms > 1)
        snprintf(more, sizeof more, " (the biggest of %zu storms)", nstorms);
    sat_rnode *fig = sat_doc_finding(
        list, "critical", "storms",
        "From %s to %s (%s) clients failed %.0f times%s, %.0f in the worst %s window against "
        "a usual %s per window: %s, from %.0f %s.",
        a, b, span, ev, more, sat_get_num(st, "peak_events", NAN), win, base, kinds, cl,
        plural(cl, "client", "clients"));
    copy_same(fig, st, "storm", "start_ts", "end_ts", "span_s", "events", "peak_events",
              "baseline_per_window", "client_count", NULL);
}

static void finding_trigger(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *st = p->storm;
    const char *trig = sat_get_text(st, "trigger.signal_name", NULL);
    double num = sat_get_num(st, "storm", NAN);
    if (!trig) {
        sat_rnode *fig = sat_doc_finding(list, "warning", "storms",
                                         "No cause the inputs hold (the load, unindexed "
                                         "searches, one client, the handshake mix, the work per "
                                         "operation) rose before the storm: its trigger is not "
                                         "in these inputs.");
        sat_put_copy(fig, "storm", st, "storm");
        return;
    }
    const sat_rnode *sig = pm_signal_row(p, num, trig);
    char on[64], lead[96] = "", fromto[256] = "";
    int64_t onset = sat_get_time(st, "trigger.onset_ts", 0), start = sat_get_time(st, "start_ts", 0);
    pm_time(p, on, sizeof on, onset);
    if (onset && start > onset) {
        char d[64];
        pm_dur(d, sizeof d, (double)(start - onset) / 1e9);
        snprintf(lead, sizeof lead, ", %s before the first failures", d);
    }
    if (sig) {
        char u[64], bf[64], du[64];
        pm_signal_value(u, sizeof u, sig, sat_get_num(sig, "baseline", NAN));
        pm_signal_value(bf, sizeof bf, sig, sat_get_num(sig, "lead_up", NAN));
        pm_signal_value(du, sizeof du, sig, sat_get_num(sig, "during", NAN));
        const char *unit = sat_get_text(sig, "unit", "");
        const char *per = !strcmp(unit, "duration") ? "" : " per window";
        snprintf(fromto, sizeof fromto, " (from a usual %s%s to %s just before and %s during it)",
                 u, per, bf, du);
    }
    char back[96] = "";
    int64_t bk = sat_get_time(st, "trigger.back_ts", 0);
    if (bk) {
        char bt[64];
        pm_time(p, bt, sizeof bt, bk);
        snprintf(back, sizeof back, "; it was back to usual at %s", bt);
    }
    sat_rnode *fig = sat_doc_finding(list, "warning", "storms",
                                     "The likely trigger: %s, which rose at %s%s%s%s.",
                                     pm_signal_words(p, trig), on, lead, fromto, back);
    sat_put_copy(fig, "signal_name", st, "trigger.signal_name");
    sat_put_copy(fig, "onset_ts", st, "trigger.onset_ts");
    sat_put_copy(fig, "back_ts", st, "trigger.back_ts");
    if (sig) {
        copy_same(fig, sig, "baseline", "lead_up", "during", NULL);
    }
}

/* The effects that rose with the storm (signals other than the trigger
 * that rose), the reconnects and retries when their rate rose, and the
 * resumption collapse: effects, never named a trigger. */
static void finding_amplification(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *st = p->storm;
    double num = sat_get_num(st, "storm", NAN);
    const char *trig = sat_get_text(st, "trigger.signal_name", NULL);
    static const char *const effects[] = {"wtime_mean_s", "etime_p90_s", "conn_opens",
                                          "hs_answer_p90_s"};
    char parts[1024] = "";
    size_t l = 0;
    int nparts = 0;
    for (size_t i = 0; i < sizeof effects / sizeof effects[0]; i++) {
        const sat_rnode *sig = pm_signal_row(p, num, effects[i]);
        if (!sig || sat_get_bool(sig, "rose", -1) != 1 || (trig && !strcmp(trig, effects[i])))
            continue;
        char u[64], du[64];
        pm_signal_value(u, sizeof u, sig, sat_get_num(sig, "baseline", NAN));
        /* during the storm, else just before it (a p90 past every answer
         * during it is absent) */
        double during = sat_get_num(sig, "during", NAN);
        if (!isfinite(during))
            during = sat_get_num(sig, "lead_up", NAN);
        if (!isfinite(during) || !isfinite(sat_get_num(sig, "baseline", NAN)))
            continue;
        pm_signal_value(du, sizeof du, sig, during);
        snprintf(parts + l, sizeof parts - l, "%s%s went from %s to %s", nparts ? ", " : "",
                 pm_signal_words(p, effects[i]), u, du);
        l = strlen(parts);
        nparts++;
    }
    double opens = sat_get_num(st, "conn_opens", NAN), retries = sat_get_num(st, "retries", NAN);
    /* the reconnects are said only when their rate rose: opens per window
     * during it against the usual (the conn_opens signal's baseline) */
    const sat_rnode *co = pm_signal_row(p, num, "conn_opens");
    double span = sat_get_num(st, "span_s", NAN), win = sat_get_num(st, "window_s", NAN);
    double usual = co ? sat_get_num(co, "baseline", NAN) : NAN;
    double rate = span > 0 && win > 0 ? opens / (span / win) : NAN;
    int opens_rose = isfinite(rate) && isfinite(usual) && rate > 2 * usual && rate > usual + 5;
    if (opens > 0 && opens_rose) {
        snprintf(parts + l, sizeof parts - l, "%s%.0f connections were opened during it",
                 nparts ? "; " : "", opens);
        l = strlen(parts);
        if (retries > 0)
            snprintf(parts + l, sizeof parts - l, " (%.0f of them retries)", retries);
        l = strlen(parts);
        nparts++;
    }
    /* TLS resumption before against during the storm */
    int64_t a = sat_get_time(st, "start_ts", 0), b = sat_get_time(st, "end_ts", 0);
    double bf, br, ba, df, dr, da;
    pm_handshakes_in(p, a - (b - a), a, &bf, &br, &ba);
    pm_handshakes_in(p, a, b + 1, &df, &dr, &da);
    double before_ratio = bf + br > 0 ? br / (bf + br) : NAN;
    double during_ratio = df + dr > 0 ? dr / (df + dr) : NAN;
    if (isfinite(during_ratio)) {
        char ds[64];
        sat_fmt_sig3(ds, sizeof ds, 100 * during_ratio);
        if (isfinite(before_ratio)) {
            char bs[64];
            sat_fmt_sig3(bs, sizeof bs, 100 * before_ratio);
            snprintf(parts + l, sizeof parts - l,
                     "%sTLS session resumption %s from %s%% of handshakes before it to %s%% (%.0f "
                     "full %s)",
                     nparts ? "; " : "",
                     before_ratio > during_ratio ? "fell" : before_ratio < during_ratio ? "rose"
                                                                                        : "stayed",
                     bs, ds, df, plural(df, "handshake", "handshakes"));
        } else { /* no handshake seen before it (a capture started during it) */
            snprintf(parts + l, sizeof parts - l,
                     "%s%s%% of the TLS handshakes during it resumed a session (%.0f full %s)",
                     nparts ? "; " : "", ds, df, plural(df, "handshake", "handshakes"));
        }
        l = strlen(parts);
        nparts++;
    }
    if (!nparts)
        return;
    sat_rnode *fig = sat_doc_finding(list, "warning", "storms", "What rose with it: %s.", parts);
    sat_put_copy(fig, "conn_opens", st, "conn_opens");
    sat_put_copy(fig, "retries", st, "retries");
    if (isfinite(during_ratio)) {
        sat_put_ratio(fig, "resumed_ratio_before", before_ratio, 4);
        sat_put_ratio(fig, "resumed_ratio_during", during_ratio, 4);
        sat_put_count(fig, "full_handshakes_during", (uint64_t)df);
    }
}

/* Whether the failures outlived their trigger (storms' sustained: past the
 * queue's drain time after it was back to usual) and what kept them going
 * (storms' mechanism, named only when it rose, with its figures); nothing
 * is said of it without a trigger. */
static void finding_sustained(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *st = p->storm;
    int sus = sat_get_bool(st, "sustained", -1);
    const char *trig = sat_get_text(st, "trigger.signal_name", NULL);
    if (!trig)
        return;
    sat_rnode *fig;
    int64_t back = sat_get_time(st, "trigger.back_ts", 0), end = sat_get_time(st, "end_ts", 0);
    int64_t unseen = sat_get_time(st, "trigger.unseen_ts", 0);
    char bt[64] = "";
    if (back)
        pm_time(p, bt, sizeof bt, back);
    if (sus < 0 && unseen) {
        /* a trigger the inputs stop measuring: its return cannot be seen */
        char ut[64];
        pm_time(p, ut, sizeof ut, unseen);
        fig = sat_doc_finding(list, "warning", "storms",
                              "Whether the failures outlived their trigger cannot be told: from "
                              "%s to the end of the inputs nothing was answered that could "
                              "measure %s.",
                              ut, pm_signal_words(p, trig));
        sat_put_copy(fig, "unseen_ts", st, "trigger.unseen_ts");
        return;
    }
    if (sus < 0) {
        fig = sat_doc_finding(list, "warning", "storms",
                              "Whether the failures outlived their trigger cannot be told: it "
                              "(%s) had not gone back to usual by the end of the inputs, and the "
                              "storm was still on.",
                              pm_signal_words(p, trig));
        return;
    }
    if (sus == 1) {
        char d[64], how[512];
        pm_dur(d, sizeof d, sat_get_num(st, "sustained_s", NAN));
        const char *by = sat_get_text(st, "sustained_by", NULL);
        if (by) {
            int ratio = !strcmp(sat_get_text(st, "mechanism_unit", ""), "ratio");
            double k = ratio ? 100.0 : 1.0;
            snprintf(how, sizeof how,
                     "%s kept it going (%.3g%s per window usually, %.3g%s while the trigger was "
                     "up, %.3g%s after)",
                     by, k * sat_get_num(st, "mechanism_usual", NAN), ratio ? "%" : "",
                     k * sat_get_num(st, "mechanism_during", NAN), ratio ? "%" : "",
                     k * sat_get_num(st, "mechanism_after", NAN), ratio ? "%" : "");
        } else {
            snprintf(how, sizeof how,
                     "what kept it going is not in these inputs (retries, reconnects, full "
                     "handshakes, refused connections and the offered load did not rise)");
        }
        fig = sat_doc_finding(list, "critical", "storms",
                              "The failures outlived their trigger: they went on for %s after it "
                              "(%s) was back to usual at %s, longer than the queue takes to drain: a "
                              "self-sustaining (metastable) failure; %s.",
                              d, pm_signal_words(p, trig), bt, how);
    } else if (back && back < end) {
        fig = sat_doc_finding(list, "notice", "storms",
                              "The failures did not outlive their trigger: they ended within the "
                              "queue's drain time after it (%s) was back to usual at %s.",
                              pm_signal_words(p, trig), bt);
    } else if (back) {
        fig = sat_doc_finding(list, "notice", "storms",
                              "The failures did not outlive their trigger: they ended before it "
                              "(%s) went back to usual at %s.",
                              pm_signal_words(p, trig), bt);
    } else {
        /* the trigger never came back down: outliving it cannot be seen */
        fig = sat_doc_finding(list, "warning", "storms",
                              "The trigger, %s, had not gone back to usual by the end of the "
                              "inputs%s: whether the failures would outlive it cannot be told "
                              "from them.",
                              pm_signal_words(p, trig),
                              sat_get_bool(st, "ongoing", -1) == 1 ? ", and the storm was still on" : "");
    }
    sat_put_copy(fig, "sustained", st, "sustained");
    sat_put_copy(fig, "sustained_s", st, "sustained_s");
    if (sus == 1 && sat_get_text(st, "mechanism", NULL)) {
        copy_same(fig, st, "mechanism", "mechanism_usual", "mechanism_during", "mechanism_after",
                  NULL);
    }
}

static void finding_crash(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *crashes = sat_get_table(p->crashes, "crashes");
    size_t n = sat_rnode_count(crashes);
    const sat_rnode *c = sat_rnode_first(crashes);
    if (!c)
        return;
    char at[64], where[512] = "";
    pm_time(p, at, sizeof at, sat_get_time(c, "ts", 0));
    const sat_rnode *f0 = sat_rnode_first(sat_get_table(c, "frames"));
    if (f0 && sat_get_text(f0, "function", NULL)) {
        const char *file = sat_get_text(f0, "file", NULL);
        double line = sat_get_num(f0, "line", NAN);
        if (file && isfinite(line))
            snprintf(where, sizeof where, " in %s (%s:%.0f)", sat_get_text(f0, "function", NULL), file, line);
        else
            snprintf(where, sizeof where, " in %s", sat_get_text(f0, "function", NULL));
    }
    const char *exe = sat_get_text(c, "executable", NULL);
    const char *base = exe ? strrchr(exe, '/') : NULL;
    const char *sig = sat_get_text(c, "signal_name", NULL), *code = sat_get_text(c, "si_code_name", NULL);
    const char *addr = sat_get_text(c, "fault_addr", NULL);
    char detail[128] = "";
    if (code && addr)
        snprintf(detail, sizeof detail, " (%s at %s)", code, addr);
    else if (code)
        snprintf(detail, sizeof detail, " (%s)", code);
    char ctx[256] = "";
    double storm = sat_get_num(c, "before.storm", NAN);
    if (isfinite(storm) && storm > 0)
        snprintf(ctx, sizeof ctx, ", during storm %.0f", storm);
    if (sat_get_bool(c, "before.covered", -1) == 1) {
        size_t l = strlen(ctx);
        double ops = sat_get_num(c, "before.operations", NAN), usual = sat_get_num(c, "before.usual_operations", NAN);
        char w[64];
        pm_dur(w, sizeof w, (double)(sat_get_time(c, "before.to_ts", 0) - sat_get_time(c, "before.from_ts", 0)) / 1e9);
        snprintf(ctx + l, sizeof ctx - l,
                 "; the server answered %.0f operations in the %s before it (%.0f in the %s "
                 "before that)",
                 ops, w, usual, w);
    }
    char more[64] = "";
    if (n > 1)
        snprintf(more, sizeof more, "the first of %zu crashes: ", n);
    sat_rnode *fig = sat_doc_finding(list, "critical", "crash", "At %s %s%s (pid %.0f) crashed with %s%s%s%s.",
                                     at, more, base ? base + 1 : exe ? exe : "a process",
                                     sat_get_num(c, "pid", NAN), sig ? sig : "a signal", detail, where, ctx);
    copy_same(fig, c, "ts", "signal_name", "executable", "pid", NULL);
    if (f0)
        sat_put_copy(fig, "function", f0, "function");
}

static void finding_offender(pm_ctx *p, sat_rnode *list)
{
    /* the unindexed search that took the most time, else the filter */
    const sat_rnode *best = NULL;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->etime, "unindexed.searches")); r;
         r = sat_rnode_next(r))
        if (!best || sat_get_num(r, "total_s", NAN) > sat_get_num(best, "total_s", NAN))
            best = r;
    double all = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->etime, "ops")); r; r = sat_rnode_next(r))
        if (isfinite(sat_get_num(r, "total_s", NAN)) && !(sat_get_text(r, "op", NULL) && !strcmp(sat_get_text(r, "op", NULL), "all")))
            all += sat_get_num(r, "total_s", NAN);
    if (!best || !(all > 0))
        return;
    char tot[64], mx[64], share[64];
    double t = sat_get_num(best, "total_s", NAN);
    pm_dur(tot, sizeof tot, t);
    pm_dur(mx, sizeof mx, sat_get_num(best, "max_s", NAN));
    sat_fmt_sig3(share, sizeof share, 100 * t / all);
    /* an empty bind DN is an anonymous bind, an empty client one the log
     * does not name, an empty base the root DSE: never "for  under" */
    const char *who = sat_get_text(best, "binddn", NULL);
    const char *client = sat_get_text(best, "client", NULL);
    const char *base = sat_get_text(best, "base", NULL);
    who = who && *who ? who : NULL;
    client = client && *client ? client : NULL;
    base = !base ? "?" : *base ? base : "the root DSE";
    double cnt = sat_get_num(best, "count", NAN);
    sat_rnode *fig = sat_doc_finding(
        list, "warning", "offenders",
        "The costliest search: %.0f unindexed %s of %s for %s under %s%s%s took %s in all (%s%% of "
        "the server's time, the longest %s).",
        cnt, plural(cnt, "search", "searches"), sat_get_text(best, "filter", NULL) ? sat_get_text(best, "filter", NULL) : "?",
        who ? who : "an anonymous client", base,
        client ? " from " : "", client ? client : "", tot, share, mx);
    copy_same(fig, best, "count", "filter", "base", "client", "binddn", "total_s", "max_s", NULL);
    sat_put_ratio(fig, "share", t / all, 4);
}

/* HTTP requests answered with an error status (>= 400): how many, of which
 * statuses (the three most frequent, with their meaning). A warning when
 * server errors (5xx) are 1% of the requests or more. */
static void finding_http_errors(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *h = p->http_etime;
    double n = sat_get_num(h, "requests", NAN), ce = sat_get_num(h, "request_stats.client_errors", NAN),
           se = sat_get_num(h, "request_stats.server_errors", NAN);
    if (!(n > 0) || !isfinite(ce) || !isfinite(se) || !(ce + se > 0))
        return;
    const sat_rnode *top[3] = {NULL, NULL, NULL};
    size_t others = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(h, "statuses")); r; r = sat_rnode_next(r)) {
        if (sat_get_bool(r, "error", -1) != 1)
            continue;
        const sat_rnode *c = r;
        for (int i = 0; i < 3 && c; i++)
            if (!top[i] || sat_get_num(c, "count", NAN) > sat_get_num(top[i], "count", NAN)) {
                const sat_rnode *t = top[i];
                top[i] = c;
                c = t;
            }
        others += c != NULL;
    }
    char parts[512] = "";
    size_t l = 0;
    int k = 0;
    for (int i = 0; i < 3 && top[i]; i++, k++) {
        const char *m = sat_get_text(top[i], "meaning", NULL);
        const char *sep = i == 0 ? "" : (i == 2 || !top[i + 1]) && !others ? " and " : ", ";
        snprintf(parts + l, sizeof parts - l, "%s%.0f x %.0f%s%s", sep, sat_get_num(top[i], "count", NAN),
                 sat_get_num(top[i], "status", NAN), m ? " " : "", m ? m : "");
        l = strlen(parts);
    }
    if (others)
        snprintf(parts + l, sizeof parts - l, " and %zu other %s", others,
                 others == 1 ? "status" : "statuses");
    char share[64];
    sat_fmt_sig3(share, sizeof share, 100 * (ce + se) / n);
    int bad = se / n >= 0.01;
    sat_rnode *fig = sat_doc_finding(list, bad ? "warning" : "notice", "offenders",
                                     "Of %.0f HTTP requests, %.0f (%s%%) were answered with an "
                                     "error status: %s.",
                                     n, ce + se, share, parts);
    sat_put_count(fig, "requests", (uint64_t)n);
    sat_put_count(fig, "errors", (uint64_t)(ce + se));
    sat_put_count(fig, "server_errors", (uint64_t)se);
    sat_put_ratio(fig, "error_share", (ce + se) / n, 4);
}

/* The path template whose requests took the most response time in all. */
static void finding_http_offender(pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *h = p->http_etime, *best = NULL, *all = NULL;
    if (pm_not_logged(p, "etime"))
        return;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(h, "groups")); r; r = sat_rnode_next(r))
        if (isfinite(sat_get_num(r, "total_s", NAN)) &&
            (!best || sat_get_num(r, "total_s", NAN) > sat_get_num(best, "total_s", NAN)))
            best = r;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(h, "methods")); r; r = sat_rnode_next(r))
        if (sat_get_text(r, "method", NULL) && !strcmp(sat_get_text(r, "method", NULL), "all"))
            all = r;
    double t = best ? sat_get_num(best, "total_s", NAN) : NAN, whole = all ? sat_get_num(all, "total_s", NAN) : NAN;
    if (!best || !(t > 0) || !(whole > 0) || !sat_get_text(best, "path", NULL))
        return;
    char tot[64], p99[64], mx[64], share[64];
    pm_dur(tot, sizeof tot, t);
    pm_dur(p99, sizeof p99, sat_get_num(best, "p99_s", NAN));
    pm_dur(mx, sizeof mx, sat_get_num(best, "max_s", NAN));
    sat_fmt_sig3(share, sizeof share, 100 * t / whole);
    double cnt = sat_get_num(best, "count", NAN);
    sat_rnode *fig = sat_doc_finding(
        list, "notice", "offenders",
        "The most response time went to %s: %.0f %s took %s in all (%s%% of the time spent "
        "answering requests; p99 %s, the longest %s).",
        sat_get_text(best, "path", NULL), cnt, plural(cnt, "request", "requests"), tot, share, p99, mx);
    copy_same(fig, best, "path", "count", "total_s", "p99_s", "max_s", NULL);
    sat_put_ratio(fig, "share", t / whole, 4);
}

void pm_findings(pm_ctx *p)
{
    sat_rnode *list = sat_doc_findings(p->rep, NULL);
    int who = 0;
    if (p->storm) {
        finding_storm(p, list);
        finding_trigger(p, list);
        finding_amplification(p, list);
        finding_sustained(p, list);
        who = pm_finding_who_used(p, list);
    }
    finding_crash(p, list);
    /* the costliest search over the whole inputs, when the storm's own work
     * could not be told (its total etime holds the queue wait) */
    if (!who)
        finding_offender(p, list);
    if (p->http_etime) {
        finding_http_errors(p, list);
        finding_http_offender(p, list);
    }
    if (!p->storm && !sat_rnode_first(sat_get_table(p->crashes, "crashes")))
        sat_doc_finding(list, "notice", NULL,
                        "No storm of client failures and no crash in these inputs.");
}
