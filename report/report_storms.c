/*
 * report_storms.c - the `satscope storms` report (issue 4): a timeline of
 * the storms of client failures, one block per storm (when, how big, what
 * kinds, which clients, what rose before it, whether it outlived its
 * trigger), as text for a person woken at 3 a.m., or JSON with the keys of
 * the issue: storms[{start_ts, end_ts, peak_ts (RFC 3339 UTC), events,
 * clients, kinds, trigger, sustained}]. Before them, the window each period
 * was read at and why (window_chosen, periods[{start_ts, end_ts, window_s,
 * window_why, windows, events, storms, inputs}]), and in text, when the
 * inputs cover periods apart, which inputs cover which.
 */
#include <math.h>

#include "render.h"
#include "text_table.h"

static const char *const sig_label[SAT_SIG__COUNT] = {
    "unindexed searches", "operations", "full-handshake share", "etime p90",
    "wtime mean (queue)", "connections opened", "handshake answer p90", "ops of one client"};

/* "2 min 30 s", "45 s", "1 h 05 min", "250 ms" */
static void fmt_dur(char *b, size_t n, double s)
{
    long long v = llround(s);
    if (s < 0.9995) { /* sub-second windows and gaps */
        snprintf(b, n, "%.3g ms", s * 1e3);
        return;
    }
    if (v < 60)
        snprintf(b, n, "%lld s", v);
    else if (v < 3600)
        snprintf(b, n, v % 60 ? "%lld min %lld s" : "%lld min", v / 60, v % 60);
    else
        snprintf(b, n, "%lld h %02lld min", v / 3600, (v % 3600) / 60);
}

/* the value of a signal, with its unit */
static void fmt_sig(char *b, size_t n, int g, double v)
{
    char num[48];
    if (isnan(v)) {
        snprintf(b, n, "-");
        return;
    }
    if (isinf(v)) { /* most handshakes of the window were never answered */
        snprintf(b, n, "no answer");
        return;
    }
    switch (g) {
    case SAT_SIG_FULL_HS_SHARE:
        snprintf(b, n, "%.0f%%", 100.0 * v);
        break;
    case SAT_SIG_ETIME_P90:
    case SAT_SIG_WTIME_MEAN:
    case SAT_SIG_HS_ANSWER_P90:
        sat_report_fmt_num(num, sizeof num, v, v < 0.01 ? 6 : 3);
        snprintf(b, n, "%s s", num);
        break;
    default:
        sat_report_fmt_num(num, sizeof num, v, 1);
        snprintf(b, n, "%s", num);
        break;
    }
}

static void print_kinds(FILE *out, const uint64_t *kinds)
{
    int first = 1;
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++) {
        if (!kinds[k])
            continue;
        fprintf(out, "%s%s %llu", first ? "" : ", ", sat_storm_kind_name(k),
                (unsigned long long)kinds[k]);
        first = 0;
    }
    if (first)
        fprintf(out, "none");
}

static double ts_diff_s(sat_ts_ns a, sat_ts_ns b) { return (double)(a - b) / 1e9; }

static int render_storm_text(const sat_storms_view *v, const sat_storm *st, size_t i,
                             FILE *out)
{
    char a[64], b[64], p[64], d[64], ws[64], ex[64];
    sat_report_fmt_ts(a, sizeof a, st->start_ts);
    sat_report_fmt_ts(b, sizeof b, st->end_ts);
    sat_report_fmt_ts(p, sizeof p, st->peak_ts);
    fmt_dur(d, sizeof d, ts_diff_s(st->end_ts, st->start_ts));
    fmt_dur(ws, sizeof ws, (double)st->window / 1e9);
    sat_report_fmt_num(ex, sizeof ex, st->expected, 1);
    if (v->nperiods > 1)
        fprintf(out, "\nSTORM %zu  %s .. %s  (%s; period %zu)\n", i + 1, a, b, d, st->period + 1);
    else
        fprintf(out, "\nSTORM %zu  %s .. %s  (%s)\n", i + 1, a, b, d);
    fprintf(out, "  size      %llu client failures from %llu client%s; peak %llu in the %s from %s\n"
                 "            (baseline %s per %s)\n",
            (unsigned long long)st->events, (unsigned long long)st->clients,
            st->clients == 1 ? "" : "s", (unsigned long long)st->peak_events, ws, p, ex, ws);
    fprintf(out, "  kinds     ");
    print_kinds(out, st->kinds);
    fprintf(out, "\n");
    if (st->ntop) {
        fprintf(out, "  clients   ");
        for (size_t c = 0; c < st->ntop; c++)
            fprintf(out, "%s%s (%llu)", c ? ", " : "", st->top[c].client,
                    (unsigned long long)st->top[c].events);
        fprintf(out, "%s\n", st->clients > st->ntop ? ", ..." : "");
    }

    /* what rose before it */
    tbl t;
    sat_tbl_init(&t, "llrrrl");
    const char *hdr[6] = {"", "signal", "baseline", "before", "during", "onset"};
    int any = 0;
    for (int g = 0; g < SAT_SIG__COUNT; g++) {
        const sat_storm_sig *sg = &st->sig[g];
        if (isnan(sg->during) && isnan(sg->before))
            continue; /* no data of that kind in these inputs */
        if ((g == SAT_SIG_OPS || g == SAT_SIG_UNINDEXED || g == SAT_SIG_HEAVY_CLIENT) &&
            !v->ldap_ops)
            continue; /* no LDAP operations in these inputs */
        if (g != SAT_SIG_OPS && !isnan(sg->base) && !sg->rose && !sg->onset_ts)
            continue; /* quiet signals: only the load is always shown */
        char cb[80], cf[80], cd[80], on[192] = "";
        fmt_sig(cb, sizeof cb, g, sg->base);
        fmt_sig(cf, sizeof cf, g, sg->before);
        fmt_sig(cd, sizeof cd, g, sg->during);
        if (sg->onset_ts) {
            char ot[64];
            sat_report_fmt_ts(ot, sizeof ot, sg->onset_ts);
            double lead = ts_diff_s(st->start_ts, sg->onset_ts);
            char ld[64];
            fmt_dur(ld, sizeof ld, fabs(lead));
            if (lead == 0)
                snprintf(on, sizeof on, "%s (at the start)", ot + 11);
            else
                snprintf(on, sizeof on, "%s (%s %s)", ot + 11, ld,
                         lead > 0 ? "before" : "after the start");
        } else if (isnan(sg->base)) {
            snprintf(on, sizeof on, "(no baseline: the input starts here)");
        }
        char label[96];
        if (g == SAT_SIG_HEAVY_CLIENT && st->heavy_client)
            snprintf(label, sizeof label, "ops of %.60s", st->heavy_client);
        else
            snprintf(label, sizeof label, "%s", sig_label[g]);
        const char *row[6] = {sg->rose ? "ROSE" : "", label, cb, cf, cd, on};
        if (!any)
            sat_tbl_row(&t, hdr);
        sat_tbl_row(&t, row);
        any = 1;
    }
    if (any) {
        fprintf(out, "  before    what the %s windows before it and its first window show:\n", ws);
        sat_tbl_print(&t, out, "            ");
    } else {
        fprintf(out, "  before    no operation, connection or handshake data around it\n");
    }
    if (st->trigger >= 0) {
        const sat_storm_sig *sg = &st->sig[st->trigger];
        char bt[64] = "";
        if (sg->back_ts)
            sat_report_fmt_ts(bt, sizeof bt, sg->back_ts);
        char tl[96];
        if (st->trigger == SAT_SIG_HEAVY_CLIENT && st->heavy_client)
            snprintf(tl, sizeof tl, "a new heavy client, %.60s,", st->heavy_client);
        else
            snprintf(tl, sizeof tl, "%s", sig_label[st->trigger]);
        int cause = st->trigger <= SAT_SIG_FULL_HS_SHARE || st->trigger == SAT_SIG_HEAVY_CLIENT;
        fprintf(out, "  trigger   %s (%s)%s%s\n", tl,
                cause ? "the first cause to rise" : "the first to rise; no cause did",
                sg->back_ts ? "; back to baseline at " : "; still high at the end of the input",
                bt);
        const sat_storm_sig *co = &st->sig[SAT_SIG_CONN_OPENS];
        if (st->trigger == SAT_SIG_FULL_HS_SHARE && co->rose) {
            char b0[48], b1[48], f0[48], f1[48];
            fmt_sig(b0, sizeof b0, SAT_SIG_CONN_OPENS, co->base);
            fmt_sig(b1, sizeof b1, SAT_SIG_CONN_OPENS, co->before);
            fmt_sig(f0, sizeof f0, SAT_SIG_FULL_HS_SHARE, sg->base);
            fmt_sig(f1, sizeof f1, SAT_SIG_FULL_HS_SHARE, sg->before);
            fprintf(out, "            new connections that all need a full handshake: %s opened a\n"
                         "            window against %s, %s of handshakes full against %s\n",
                    b1, b0, f1, f0);
        } else if (st->trigger == SAT_SIG_HS_ANSWER_P90 && isinf(sg->before))
            fprintf(out, "            the server stopped answering TLS handshakes\n");
        else if (st->trigger == SAT_SIG_ETIME_P90 && isinf(sg->before))
            fprintf(out, "            the server stopped answering: requests went unanswered\n"
                         "            until their clients left\n");
        if (st->sustained) {
            char sd[64];
            fmt_dur(sd, sizeof sd, st->sustained_s);
            fprintf(out, "  SUSTAINED the failures stayed high for %s after the trigger was back:\n"
                         "            a metastable failure (retries and reconnects kept it going)\n",
                    sd);
        } else {
            fprintf(out, "  sustained no: the failures did not outlast the trigger by 3 windows\n");
        }
    } else {
        fprintf(out, "  trigger   none of the signals rose before it%s\n",
                v->ldap_ops || v->tls_hs ? "" : " (no operation or handshake data)");
        fprintf(out, "  sustained unknown (no trigger to compare with)\n");
    }
    if (st->conn_opens || st->hs_total) {
        double nwin = (double)(st->end_ts - st->start_ts) / (double)st->window;
        char per[64], base[64] = "-";
        sat_report_fmt_num(per, sizeof per, (double)st->conn_opens / nwin, 1);
        if (!isnan(st->sig[SAT_SIG_CONN_OPENS].base))
            sat_report_fmt_num(base, sizeof base, st->sig[SAT_SIG_CONN_OPENS].base, 1);
        fprintf(out, "  reconnects %llu connections opened during it (%s per %s, baseline %s)",
                (unsigned long long)st->conn_opens, per, ws, base);
        if (st->hs_total)
            fprintf(out, "; %llu of %llu TLS handshakes full",
                    (unsigned long long)st->hs_full, (unsigned long long)st->hs_total);
        fprintf(out, "\n");
    }
    if (st->retries)
        fprintf(out, "  retries   %llu connections retried a failed or unanswered one\n"
                     "            (the same client and server, within the retry window)\n",
                (unsigned long long)st->retries);
    if (st->ongoing)
        fprintf(out, "  ONGOING   the failures were still high in the last window of the input\n");
    return t.err ? SAT_E_NOMEM : SAT_OK;
}

/* Why the period's window is what it is, in one sentence (after "Window: 2 s"). */
static void print_why(FILE *out, const sat_storms_period *p, const char *indent)
{
    char span[64], w[64], lw[64], flo[32];
    double fl = 0.05 * (double)p->window / 1e9;
    sat_report_fmt_num(flo, sizeof flo, fl < 0.5 ? fl : 0.5, 3);
    fmt_dur(span, sizeof span, ts_diff_s(p->end_ts, p->start_ts));
    fmt_dur(w, sizeof w, (double)p->window / 1e9);
    fmt_dur(lw, sizeof lw, 10.0);
    switch (p->why) {
    case SAT_STORM_WIN_OPTION:
        fprintf(out, " (--window): %zu windows", p->nwindows);
        break;
    case SAT_STORM_WIN_LONGEST:
        fprintf(out, ", the longest step: %zu windows over %s", p->nwindows, span);
        break;
    case SAT_STORM_WIN_SHORTER:
        fprintf(out, ", chosen for %s of input: %zu windows, the longest step that\n"
                     "%sgives a baseline of %d (%s would give %lld); --window sets another",
                span, p->nwindows, indent, SAT_STORM_BASELINE_WINDOWS, lw,
                (long long)p->windows_at_longest);
        break;
    default:
        fprintf(out, ", the shortest chosen: %s of input give %zu windows (clients give\n"
                     "%sup after a second or more: shorter windows would cut one wave of\n"
                     "%sgive-ups); --window sets another",
                span, p->nwindows, indent, indent);
        break;
    }
    if (p->nwindows < SAT_STORM_BASELINE_WINDOWS)
        fprintf(out, "\n%sToo short for a baseline of its own (that takes %d windows): measured\n"
                     "%sagainst next to no failures (%s per %s window), a healthy server's",
                indent, SAT_STORM_BASELINE_WINDOWS, indent, flo, w);
    if (p->window != p->chosen) {
        char c[64];
        fmt_dur(c, sizeof c, (double)p->chosen / 1e9);
        fprintf(out, "\n%s(%s wanted: not kept, the inputs fill more than 4,096 windows of it,\n"
                     "%sor memory widened it)", indent, c, indent);
    }
    fprintf(out, "\n");
}

static void print_periods(const sat_storms_view *v, FILE *out)
{
    if (v->nperiods == 1) {
        char w[64];
        fmt_dur(w, sizeof w, (double)v->periods[0].window / 1e9);
        fprintf(out, "Window: %s", w);
        print_why(out, &v->periods[0], "  ");
        return;
    }
    char gap[64];
    fmt_dur(gap, sizeof gap, (double)SAT_STORM_PERIOD_GAP_NS / 1e9);
    /* the inputs do not overlap when none of them meets two periods */
    int shared = 0;
    for (size_t i = 1; i < v->nperiods && !shared; i++)
        for (size_t a = 0; a < v->periods[i].ninputs && !shared; a++)
            for (size_t j = 0; j < i && !shared; j++)
                for (size_t b = 0; b < v->periods[j].ninputs && !shared; b++)
                    shared = !strcmp(v->periods[i].inputs[a], v->periods[j].inputs[b]);
    if (shared)
        fprintf(out, "Periods: %zu periods, with at least %s without a row between them (an input\n"
                     "  has such a silence inside); each is analysed on its own, at its own window:\n",
                v->nperiods, gap);
    else
        fprintf(out, "Periods: the inputs do not overlap: they cover %zu periods, with at least %s\n"
                     "  without a row between them; each is analysed on its own, at its own window:\n",
                v->nperiods, gap);
    /* the periods with storms, and the first ones, at most 20 lines of them */
    size_t shown = 0, quiet = 0;
    for (size_t i = 0; i < v->nperiods; i++) {
        const sat_storms_period *p = &v->periods[i];
        if (shown >= 20 || (!p->nstorms && i >= 10)) {
            quiet++;
            continue;
        }
        shown++;
        char a[64], b[64], d[64], w[64];
        sat_report_fmt_ts(a, sizeof a, p->start_ts);
        sat_report_fmt_ts(b, sizeof b, p->end_ts);
        fmt_dur(d, sizeof d, ts_diff_s(p->end_ts, p->start_ts));
        fmt_dur(w, sizeof w, (double)p->window / 1e9);
        fprintf(out, "  %zu  %s .. %s (%s): %llu failure%s, %zu storm%s\n", i + 1, a, b, d,
                (unsigned long long)p->events, p->events == 1 ? "" : "s", p->nstorms,
                p->nstorms == 1 ? "" : "s");
        fprintf(out, "     window %s", w);
        print_why(out, p, "     ");
        fprintf(out, "     inputs ");
        for (size_t k = 0; k < p->ninputs; k++)
            fprintf(out, "%s%s", k ? ", " : "", p->inputs[k]);
        fprintf(out, "%s\n", p->ninputs ? "" : "(not named)");
    }
    if (quiet)
        fprintf(out, "  ... and %zu more period%s (--json lists them all)\n", quiet,
                quiet == 1 ? "" : "s");
}

static int render_text(const void *vp, FILE *out)
{
    const sat_storms_view *v = (const sat_storms_view *)vp;
    char a[64] = "-", b[64] = "-", ws[64];
    if (v->first_ts) {
        sat_report_fmt_ts(a, sizeof a, v->first_ts);
        sat_report_fmt_ts(b, sizeof b, v->last_ts);
    }
    fmt_dur(ws, sizeof ws, (double)v->window / 1e9);
    if (v->nperiods > 1)
        fprintf(out, "satscope storms: %zu storm%s in %s .. %s (%zu windows in %zu periods)\n",
                v->nstorms, v->nstorms == 1 ? "" : "s", a, b, v->nwindows, v->nperiods);
    else
        fprintf(out, "satscope storms: %zu storm%s in %s .. %s (%zu window%s of %s)\n",
                v->nstorms, v->nstorms == 1 ? "" : "s", a, b, v->nwindows,
                v->nwindows == 1 ? "" : "s", ws);
    fprintf(out, "Client failures: %llu (", (unsigned long long)v->events);
    print_kinds(out, v->kinds);
    fprintf(out, ")\n");
    if (v->deduped)
        fprintf(out, "  (%llu more rows were a failure already counted on the same connection:\n"
                     "  the A1 close after an ABANDON, a request left unanswered by a close\n"
                     "  already counted, the FIN or RST of a handshake given up)\n",
                (unsigned long long)v->deduped);
    fprintf(out, "Rows read: %llu LDAP operations, %llu LDAP connections, %llu TLS handshakes,\n"
                 "  %llu TCP connections\n",
            (unsigned long long)v->ldap_ops, (unsigned long long)v->ldap_conns,
            (unsigned long long)v->tls_hs, (unsigned long long)v->tcp_conns);
    if (v->retries)
        fprintf(out, "Retries: %llu connections retried a failed or unanswered one\n",
                (unsigned long long)v->retries);
    if (v->attempts_lost)
        fprintf(out, "  (%llu connections or requests past a table's cap were not looked at)\n",
                (unsigned long long)v->attempts_lost);
    if (v->nperiods)
        print_periods(v, out);
    if (!v->nstorms) {
        fmt_dur(ws, sizeof ws, (double)v->busiest_window / 1e9);
        fprintf(out, "\nNo storm: the failures never rose clearly above their own baseline\n"
                     "(a storm needs at least 5 failures and a window well above the usual).\n");
        if (v->busiest_ts) {
            char bt[64];
            sat_report_fmt_ts(bt, sizeof bt, v->busiest_ts);
            fprintf(out, "The busiest %s window, from %s, had %llu.\n", ws, bt,
                    (unsigned long long)v->busiest_events);
        }

        return SAT_OK;
    }
    for (size_t i = 0; i < v->nstorms; i++) {
        int rc = render_storm_text(v, &v->storms[i], i, out);
        if (rc < 0)
            return rc;
    }
    return SAT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */
static void json_kinds(sat_json *j, const uint64_t *kinds)
{
    sat_json_object(j, "kinds");
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        sat_json_u64(j, sat_storm_kind_name(k), kinds[k]);
    sat_json_end(j);
}

static int render_json(const void *vp, FILE *out)
{
    const sat_storms_view *v = (const sat_storms_view *)vp;
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 4);
    sat_json_document(&j);
    sat_json_num(&j, "window_s", (double)v->window / 1e9, 3);
    sat_json_str(&j, "window_chosen", v->window_auto ? "auto" : "option");
    sat_json_ts(&j, "first_ts", v->first_ts);
    sat_json_ts(&j, "last_ts", v->last_ts);
    sat_json_u64(&j, "windows", v->nwindows);
    sat_json_u64(&j, "events", v->events);
    json_kinds(&j, v->kinds);
    sat_json_u64(&j, "deduplicated", v->deduped);
    sat_json_u64(&j, "retries", v->retries);
    sat_json_u64(&j, "retry_attempts_not_examined", v->attempts_lost);
    sat_json_u64(&j, "busiest_window_events", v->busiest_events);
    sat_json_ts(&j, "busiest_window_ts", v->busiest_ts);
    sat_json_object(&j, "rows");
    sat_json_u64(&j, "ldap_op", v->ldap_ops);
    sat_json_u64(&j, "ldap_conn", v->ldap_conns);
    sat_json_u64(&j, "tls_hs", v->tls_hs);
    sat_json_u64(&j, "tcp_conn", v->tcp_conns);
    sat_json_end(&j);
    static const char *const whys[] = {"option", "longest", "shorter", "shortest"};
    sat_json_array(&j, "periods");
    for (size_t i = 0; i < v->nperiods; i++) {
        const sat_storms_period *p = &v->periods[i];
        sat_json_object(&j, NULL);
        sat_json_ts(&j, "start_ts", p->start_ts);
        sat_json_ts(&j, "end_ts", p->end_ts);
        sat_json_num(&j, "window_s", (double)p->window / 1e9, 3);
        sat_json_num(&j, "window_chosen_s", (double)p->chosen / 1e9, 3);
        sat_json_str(&j, "window_why", p->why >= 0 && p->why < 4 ? whys[p->why] : "?");
        sat_json_u64(&j, "windows", p->nwindows);
        sat_json_i64(&j, "windows_at_10s", p->windows_at_longest);
        sat_json_u64(&j, "events", p->events);
        sat_json_u64(&j, "storms", p->nstorms);
        sat_json_u64(&j, "busiest_window_events", p->busiest_events);
        sat_json_ts(&j, "busiest_window_ts", p->busiest_ts);
        sat_json_array(&j, "inputs");
        for (size_t k = 0; k < p->ninputs; k++)
            sat_json_str(&j, NULL, p->inputs[k]);
        sat_json_end(&j);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_array(&j, "storms");
    for (size_t i = 0; i < v->nstorms; i++) {
        const sat_storm *st = &v->storms[i];
        sat_json_object(&j, NULL);
        sat_json_u64(&j, "period", st->period + 1);
        sat_json_num(&j, "window_s", (double)st->window / 1e9, 3);
        sat_json_ts(&j, "start_ts", st->start_ts);
        sat_json_ts(&j, "end_ts", st->end_ts);
        sat_json_ts(&j, "peak_ts", st->peak_ts);
        sat_json_u64(&j, "events", st->events);
        sat_json_u64(&j, "peak_events", st->peak_events);
        sat_json_num(&j, "baseline_per_window", st->expected, 3);
        sat_json_u64(&j, "clients", st->clients);
        json_kinds(&j, st->kinds);
        sat_json_array(&j, "top_clients");
        for (size_t c = 0; c < st->ntop; c++) {
            sat_json_object(&j, NULL);
            sat_json_str(&j, "client", st->top[c].client);
            sat_json_u64(&j, "events", st->top[c].events);
            sat_json_end(&j);
        }
        sat_json_end(&j);
        sat_json_object(&j, "trigger");
        if (st->trigger >= 0) {
            sat_json_str(&j, "signal", sat_storm_signal_name(st->trigger));
            sat_json_ts(&j, "onset_ts", st->sig[st->trigger].onset_ts);
            sat_json_ts(&j, "back_ts", st->sig[st->trigger].back_ts);
        } else {
            sat_json_null(&j, "signal");
            sat_json_null(&j, "onset_ts");
            sat_json_null(&j, "back_ts");
        }
        sat_json_object(&j, "signals");
        for (int g = 0; g < SAT_SIG__COUNT; g++) {
            const sat_storm_sig *sg = &st->sig[g];
            sat_json_object(&j, sat_storm_signal_name(g));
            sat_json_bool(&j, "rose", sg->rose);
            sat_json_num(&j, "base", sg->base, 6);
            sat_json_num(&j, "before", sg->before, 6);
            sat_json_num(&j, "during", sg->during, 6);
            sat_json_ts(&j, "onset_ts", sg->onset_ts);
            sat_json_ts(&j, "back_ts", sg->back_ts);
            if (g == SAT_SIG_HEAVY_CLIENT)
                sat_json_str(&j, "client", st->heavy_client);
            if (g == SAT_SIG_HS_ANSWER_P90 || g == SAT_SIG_ETIME_P90) /* +inf: null, said here */
                sat_json_bool(&j, "unanswered", isinf(sg->before) || isinf(sg->during));
            sat_json_end(&j);
        }
        sat_json_end(&j);
        sat_json_end(&j);
        sat_json_bool(&j, "sustained", st->sustained);
        sat_json_num(&j, "sustained_s", st->sustained_s, 3);
        sat_json_u64(&j, "conn_opens", st->conn_opens);
        sat_json_u64(&j, "full_handshakes", st->hs_full);
        sat_json_u64(&j, "handshakes", st->hs_total);
        sat_json_u64(&j, "retries", st->retries);
        sat_json_bool(&j, "ongoing", st->ongoing);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* CSV, the main section: one row per storm, the scalar keys of its JSON
 * object under the same names; a nested object's keys are named by their
 * path (kinds.abandon, trigger.signal). The arrays (top_clients) and the
 * per-signal objects stay in the JSON. */
static int render_csv(const void *vp, FILE *out)
{
    const sat_storms_view *v = (const sat_storms_view *)vp;
    sat_csv c;
    sat_csv_init(&c, out);
    static const char *const head[] = {"period",      "window_s",           "start_ts",
                                       "end_ts",      "peak_ts",            "events",
                                       "peak_events", "baseline_per_window", "clients", NULL};
    static const char *const tail[] = {"trigger.signal", "trigger.onset_ts", "trigger.back_ts",
                                       "sustained",      "sustained_s",      "conn_opens",
                                       "full_handshakes", "handshakes",      "retries",
                                       "ongoing",        NULL};
    for (const char *const *h = head; *h; h++)
        sat_csv_str(&c, *h);
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++) {
        char name[64];
        snprintf(name, sizeof name, "kinds.%s", sat_storm_kind_name(k));
        sat_csv_str(&c, name);
    }
    sat_csv_header(&c, tail);
    for (size_t i = 0; i < v->nstorms; i++) {
        const sat_storm *st = &v->storms[i];
        sat_csv_u64(&c, st->period + 1);
        sat_csv_num(&c, (double)st->window / 1e9, 3);
        sat_csv_ts(&c, st->start_ts);
        sat_csv_ts(&c, st->end_ts);
        sat_csv_ts(&c, st->peak_ts);
        sat_csv_u64(&c, st->events);
        sat_csv_u64(&c, st->peak_events);
        sat_csv_num(&c, st->expected, 3);
        sat_csv_u64(&c, st->clients);
        for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
            sat_csv_u64(&c, st->kinds[k]);
        int t = st->trigger;
        sat_csv_str(&c, t >= 0 ? sat_storm_signal_name(t) : NULL);
        sat_csv_ts(&c, t >= 0 ? st->sig[t].onset_ts : 0);
        sat_csv_ts(&c, t >= 0 ? st->sig[t].back_ts : 0);
        sat_csv_str(&c, st->sustained ? "true" : "false");
        sat_csv_num(&c, st->sustained_s, 3);
        sat_csv_u64(&c, st->conn_opens);
        sat_csv_u64(&c, st->hs_full);
        sat_csv_u64(&c, st->hs_total);
        sat_csv_u64(&c, st->retries);
        sat_csv_str(&c, st->ongoing ? "true" : "false");
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* The periods, one row per period (periods[] of the JSON; inputs stay there). */
static int csv_periods(const void *vp, FILE *out)
{
    const sat_storms_view *v = (const sat_storms_view *)vp;
    static const char *const cols[] = {"start_ts", "end_ts", "window_s", "window_chosen_s",
                                       "window_why", "windows", "windows_at_10s", "events",
                                       "storms", "busiest_window_events", "busiest_window_ts",
                                       NULL};
    static const char *const whys[] = {"option", "longest", "shorter", "shortest"};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->nperiods; i++) {
        const sat_storms_period *p = &v->periods[i];
        sat_csv_ts(&c, p->start_ts);
        sat_csv_ts(&c, p->end_ts);
        sat_csv_num(&c, (double)p->window / 1e9, 3);
        sat_csv_num(&c, (double)p->chosen / 1e9, 3);
        sat_csv_str(&c, p->why >= 0 && p->why < 4 ? whys[p->why] : "?");
        sat_csv_u64(&c, p->nwindows);
        sat_csv_i64(&c, p->windows_at_longest);
        sat_csv_u64(&c, p->events);
        sat_csv_u64(&c, p->nstorms);
        sat_csv_u64(&c, p->busiest_events);
        sat_csv_ts(&c, p->busiest_ts);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* The top clients of every storm (storms[].top_clients[] of the JSON), the
 * storm named by its number in the storms table (1 = first row). */
static int csv_top_clients(const void *vp, FILE *out)
{
    const sat_storms_view *v = (const sat_storms_view *)vp;
    static const char *const cols[] = {"storm", "client", "events", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->nstorms; i++)
        for (size_t k = 0; k < v->storms[i].ntop; k++) {
            sat_csv_u64(&c, i + 1);
            sat_csv_str(&c, v->storms[i].top[k].client);
            sat_csv_u64(&c, v->storms[i].top[k].events);
            sat_csv_end_row(&c);
        }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

static const void *storms_view(const void *r) { return sat_storms_get_view((const sat_storms *)r); }
static const char *const csv_names[] = {"storms", "periods", "top_clients", NULL};
static const sat_render_fn csv_write[] = {render_csv, csv_periods, csv_top_clients};
const sat_csv_report sat_csv_storms = {"storms", storms_view, csv_names, csv_write};

int sat_report_storms(const sat_storms *s, int fmt, FILE *out, sat_diag *diag)
{
    return sat_report_render(sat_storms_get_view(s), fmt, render_text, render_json, render_csv, out, diag);
}
