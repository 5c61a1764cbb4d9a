/*
 * text_storms_storm.c - one storm of `satscope storms` as text, from its row
 * of the storms table and its rows of signals and top_clients: when and how
 * big, the trigger and the chain of what rose (causes, then the effects, then
 * the failures), whether the failures outlived the trigger (a metastable
 * failure), then the detail: kinds, clients, each signal before and during
 * it, reconnects and retries.
 */
#include <math.h>
#include <string.h>

#include "satscope/result_out.h"
#include "text_storms.h"

typedef struct sig_info {
    const char *name, *label;
    int cause; /* a cause (the load, what it asks), not an effect of the server's state */
} sig_info;

static const sig_info sigs[] = {
    {"unindexed", "unindexed searches", 1},      {"ops", "operations", 1},
    {"full_hs_share", "full-handshake share", 1}, {"etime_p90_s", "etime p90", 0},
    {"wtime_mean_s", "wtime mean (queue)", 0},    {"conn_opens", "connections opened", 0},
    {"hs_answer_p90_s", "handshake answer p90", 0}, {"heavy_client_ops", "ops of one client", 1}};

static const sig_info *sig_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof sigs / sizeof sigs[0]; i++)
        if (!strcmp(sigs[i].name, name))
            return &sigs[i];
    return NULL;
}

/* A signal's value in its unit (its name says it: _s seconds, _share a
 * share); absent: "-", or "no answer" when the p90 is past every answer. */
static void fmt_sig(char *b, size_t n, const char *name, const sat_value *v, int unanswered)
{
    size_t l = strlen(name);
    if (!v || v->absent) {
        snprintf(b, n, "%s", unanswered ? "no answer" : "-");
        return;
    }
    if (l > 2 && !strcmp(name + l - 2, "_s")) {
        sat_fmt_duration(b, n, v->v.d);
    } else if (l > 6 && !strcmp(name + l - 6, "_share")) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, 100.0 * v->v.d);
        snprintf(b, n, "%s%%", t);
    } else {
        sat_fmt_fixed(b, n, v->v.d, 1); /* a count per window */
    }
}

static const sat_rnode *signal_row(const sat_rnode *signals, uint64_t storm, const char *name)
{
    for (const sat_rnode *r = sat_rnode_first(signals); r; r = sat_rnode_next(r))
        if (st_u64(r, "storm") == storm && !strcmp(st_str(r, "signal_name"), name))
            return r;
    return NULL;
}

/* Whether the inputs held HTTP requests and no LDAP operation: the load is
 * then requests, and the etime their response time. */
static int http_only(const sat_rnode *root)
{
    const sat_rnode *rows = sat_rnode_get(root, "rows_read");
    return !st_u64(rows, "ldap_op") && st_u64(rows, "http_req");
}

static void label_of(char *b, size_t n, const sig_info *si, const char *heavy, int http)
{
    if (!strcmp(si->name, "heavy_client_ops") && heavy)
        snprintf(b, n, "%s of %.60s", http ? "requests" : "ops", heavy);
    else if (http && !strcmp(si->name, "heavy_client_ops"))
        snprintf(b, n, "requests of one client");
    else if (http && !strcmp(si->name, "ops"))
        snprintf(b, n, "requests");
    else if (http && !strcmp(si->name, "etime_p90_s"))
        snprintf(b, n, "response time p90");
    else
        snprintf(b, n, "%s", si->label);
}

/* The chain: the causes that rose, then the effects that rose, each in the
 * order they rose, then the failures. */
static void print_chain(sat_text *t, const sat_rnode *signals, const sat_rnode *s, uint64_t no,
                        int http)
{
    const sat_rnode *rose[16];
    size_t nr = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        const sat_rnode *r = signal_row(signals, no, sigs[i].name);
        if (r && st_i64(r, "rose") && nr < 16)
            rose[nr++] = r;
    }
    if (!nr)
        return;
    for (size_t i = 1; i < nr; i++) /* by cause first, then onset (0: last) */
        for (size_t j = i; j > 0; j--) {
            const sat_rnode *x = rose[j], *y = rose[j - 1];
            int cx = sig_of(st_str(x, "signal_name"))->cause, cy = sig_of(st_str(y, "signal_name"))->cause;
            int64_t ox = st_i64(x, "onset_ts"), oy = st_i64(y, "onset_ts");
            int before = cx != cy ? cx > cy : (ox && (!oy || ox < oy));
            if (!before)
                break;
            rose[j] = y;
            rose[j - 1] = x;
        }
    char line[2048];
    size_t l = 0;
    int last_cause = -1;
    for (size_t i = 0; i < nr; i++) {
        const sig_info *si = sig_of(st_str(rose[i], "signal_name"));
        char lab[96];
        label_of(lab, sizeof lab, si, st_str(s, "heavy_client"), http);
        const char *sep = !i ? "" : si->cause == last_cause ? ", " : " -> ";
        snprintf(line + l, sizeof line - l, "%s%s", sep, lab);
        l = strlen(line);
        last_cause = si->cause;
    }
    uint64_t ev = st_u64(s, "events");
    snprintf(line + l, sizeof line - l, " -> %llu client %s", (unsigned long long)ev,
             sat_plural(ev, "failure", "failures"));
    st_item(t, "chain", "%s", line);
}

/* Each signal before and during the storm: the load always, the others when
 * they moved or had no baseline. 1 when any row was printed. */
static int print_signals(sat_text *t, const sat_rnode *root, const sat_rnode *s, uint64_t no)
{
    const sat_rnode *signals = sat_rnode_get(root, "signals");
    uint64_t ldap_ops = st_u64(sat_rnode_get(root, "rows_read"), "ldap_op") +
                        st_u64(sat_rnode_get(root, "rows_read"), "http_req");
    int http = http_only(root);
    const sat_rnode *in = sat_rnode_get(root, "http_inputs");
    int no_conns = in && st_u64(in, "count") &&
                   st_u64(in, "without_connection_requests") == st_u64(in, "count");
    sat_tbl tb;
    sat_tbl_init(&tb, "llrrrl");
    sat_tbl_set_width(&tb, t->width);
    const char *hdr[6] = {"", "signal", "baseline", "before", "during", "onset"};
    int64_t start = st_i64(s, "start_ts");
    int any = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        const sig_info *si = &sigs[i];
        const sat_rnode *r = signal_row(signals, no, si->name);
        if (!r)
            continue;
        int un = (int)st_i64(r, "never_answered");
        const sat_value *base = st_get(r, "baseline"), *bef = st_get(r, "lead_up"),
                        *dur = st_get(r, "during");
        if (bef->absent && dur->absent && !un)
            continue; /* no data of that kind in these inputs */
        if (si->cause && strcmp(si->name, "full_hs_share") && !ldap_ops)
            continue; /* no LDAP operations or HTTP requests in these inputs */
        if (http && !strcmp(si->name, "unindexed"))
            continue; /* searches: LDAP only */
        if (http && no_conns && !strcmp(si->name, "conn_opens"))
            continue; /* no input logs which request opened a connection */
        int64_t onset = st_i64(r, "onset_ts");
        int rose = (int)st_i64(r, "rose");
        if (strcmp(si->name, "ops") && !base->absent && !rose && !onset)
            continue; /* quiet signals: only the load is always shown */
        char cb[80], cf[80], cd[80], on[192] = "", label[96];
        fmt_sig(cb, sizeof cb, si->name, base, 0);
        fmt_sig(cf, sizeof cf, si->name, bef, un);
        fmt_sig(cd, sizeof cd, si->name, dur, un);
        if (onset) {
            char ot[64], ld[64];
            st_ts(ot, sizeof ot, onset);
            double lead = (double)(start - onset) / 1e9;
            st_dur(ld, sizeof ld, fabs(lead));
            if (lead == 0)
                snprintf(on, sizeof on, "%s (at the start)", ot + 11);
            else
                snprintf(on, sizeof on, "%s (%s %s)", ot + 11, ld,
                         lead > 0 ? "before" : "after");
        } else if (base->absent) {
            snprintf(on, sizeof on, "(input starts: no baseline)");
        }
        label_of(label, sizeof label, si, st_str(s, "heavy_client"), http);
        const char *row[6] = {rose ? "ROSE" : "", label, cb, cf, cd, on};
        if (!any)
            sat_tbl_row(&tb, hdr);
        sat_tbl_row(&tb, row);
        any = 1;
    }
    if (any) {
        char ws[64];
        st_dur(ws, sizeof ws, st_dbl(s, "window_s"));
        st_item(t, "before", "what the %s windows before it and its first window show:", ws);
        t->lines += tb.nrows;
        sat_tbl_print(&tb, t->out, ST_CONT);
    }
    if (tb.err)
        t->err = SAT_E_NOMEM;
    return any;
}

static void print_trigger(sat_text *t, const sat_rnode *root, const sat_rnode *s, uint64_t no)
{
    const sat_rnode *signals = sat_rnode_get(root, "signals");
    const char *trig = st_str(s, "trigger.signal_name");
    const sig_info *si = sig_of(trig);
    if (!si) {
        const sat_rnode *rows = sat_rnode_get(root, "rows_read");
        st_item(t, "trigger", "none of the signals rose before it%s",
                st_u64(rows, "ldap_op") || st_u64(rows, "tls_hs") || st_u64(rows, "http_req")
                    ? "" : " (no operation or handshake data)");
        st_item(t, "sustained", "unknown (no trigger to compare with)");
        return;
    }
    const char *heavy = st_str(s, "heavy_client");
    char tl[128], bt[64] = "";
    int64_t back = st_i64(s, "trigger.back_ts");
    if (back)
        st_ts(bt, sizeof bt, back);
    if (!strcmp(si->name, "heavy_client_ops") && heavy)
        snprintf(tl, sizeof tl, "a new heavy client, %.60s,", heavy);
    else
        label_of(tl, sizeof tl, si, NULL, http_only(root));
    st_item(t, "trigger", "%s (%s)%s%s", tl,
            si->cause ? "the first cause to rise" : "the first to rise; no cause did",
            back ? "; back to baseline at " : "; still high at the end of the input", bt);
    const sat_rnode *tr = signal_row(signals, no, si->name);
    const sat_rnode *co = signal_row(signals, no, "conn_opens");
    int before_unanswered = tr && st_get(tr, "lead_up")->absent && st_i64(tr, "never_answered");
    if (!strcmp(si->name, "full_hs_share") && co && st_i64(co, "rose")) {
        char b0[48], b1[48], f0[48], f1[48];
        fmt_sig(b0, sizeof b0, "conn_opens", st_get(co, "baseline"), 0);
        fmt_sig(b1, sizeof b1, "conn_opens", st_get(co, "lead_up"), 0);
        fmt_sig(f0, sizeof f0, si->name, st_get(tr, "baseline"), 0);
        fmt_sig(f1, sizeof f1, si->name, st_get(tr, "lead_up"), 0);
        st_para(t, ST_CONT,
                "new connections that all need a full handshake: %s opened a window against "
                "%s, %s of handshakes full against %s",
                b1, b0, f1, f0);
    } else if (!strcmp(si->name, "hs_answer_p90_s") && before_unanswered) {
        st_para(t, ST_CONT, "the server stopped answering TLS handshakes");
    } else if (!strcmp(si->name, "etime_p90_s") && before_unanswered) {
        st_para(t, ST_CONT,
                "the server stopped answering: requests went unanswered until their clients "
                "left");
    }
    if (st_i64(s, "sustained")) {
        char sd[64];
        st_dur(sd, sizeof sd, st_dbl(s, "sustained_s"));
        st_item(t, "SUSTAINED",
                "the failures stayed high for %s after the trigger was back: a metastable "
                "failure (retries and reconnects kept it going)",
                sd);
    } else {
        st_item(t, "sustained", "no: the failures did not outlast the trigger by 3 windows");
    }
}

int st_storm_text(sat_text *t, const sat_rnode *root, const sat_rnode *s, int periods)
{
    uint64_t no = st_u64(s, "storm");
    char a[64], b[64], p[64], d[64], ws[64], ex[64];
    st_ts(a, sizeof a, st_i64(s, "start_ts"));
    st_ts(b, sizeof b, st_i64(s, "end_ts"));
    st_ts(p, sizeof p, st_i64(s, "peak_ts"));
    st_dur(d, sizeof d, st_dbl(s, "span_s"));
    double win = st_dbl(s, "window_s");
    st_dur(ws, sizeof ws, win);
    sat_fmt_fixed(ex, sizeof ex, st_dbl(s, "baseline_per_window"), 1);
    if (periods)
        sat_text_title(t, "STORM %llu  %s .. %s  (%s; period %llu)", (unsigned long long)no, a, b,
                       d, (unsigned long long)st_u64(s, "period"));
    else
        sat_text_title(t, "STORM %llu  %s .. %s  (%s)", (unsigned long long)no, a, b, d);
    uint64_t ev = st_u64(s, "events"), cl = st_u64(s, "client_count");
    st_item(t, "size", "%llu client %s from %llu %s; peak %llu in the %s from %s (baseline %s "
                       "per %s)",
            (unsigned long long)ev, sat_plural(ev, "failure", "failures"),
            (unsigned long long)cl, sat_plural(cl, "client", "clients"),
            (unsigned long long)st_u64(s, "peak_events"), ws, p, ex, ws);
    print_trigger(t, root, s, no);
    print_chain(t, sat_rnode_get(root, "signals"), s, no, http_only(root));

    /* kinds of this storm, most first (ties in the kinds' order) */
    char kinds[2048] = "";
    size_t ncols, l = 0;
    const sat_col *cols = sat_table_cols(sat_rnode_get(root, "storms"), &ncols);
    uint64_t prev = UINT64_MAX;
    for (;;) { /* each pass prints the largest count below prev, in column order */
        uint64_t best = 0;
        for (size_t c = 0; c < ncols; c++)
            if (!strncmp(cols[c].name, "kinds.", 6)) {
                uint64_t x = st_u64(s, cols[c].name);
                if (x < prev && x > best)
                    best = x;
            }
        if (!best)
            break;
        for (size_t c = 0; c < ncols; c++)
            if (!strncmp(cols[c].name, "kinds.", 6) && st_u64(s, cols[c].name) == best) {
                snprintf(kinds + l, sizeof kinds - l, "%s%s %llu", l ? ", " : "",
                         cols[c].name + 6, (unsigned long long)best);
                l = strlen(kinds);
            }
        prev = best;
    }
    st_item(t, "kinds", "%s", l ? kinds : "none");

    char clients[2048] = "";
    size_t ntop = 0;
    l = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_rnode_get(root, "top_clients")); r;
         r = sat_rnode_next(r)) {
        if (st_u64(r, "storm") != no)
            continue;
        snprintf(clients + l, sizeof clients - l, "%s%s (%llu)", l ? ", " : "", st_str(r, "client"),
                 (unsigned long long)st_u64(r, "events"));
        l = strlen(clients);
        ntop++;
    }
    if (ntop)
        st_item(t, "clients", "%s%s", clients, cl > ntop ? ", ..." : "");

    if (!print_signals(t, root, s, no))
        st_item(t, "before", "no operation, connection or handshake data around it");
    uint64_t opens = st_u64(s, "conn_opens"), hs = st_u64(s, "handshakes");
    if (opens || hs) {
        double nwin = st_dbl(s, "span_s") / win;
        char per[64], base[64] = "-";
        sat_fmt_fixed(per, sizeof per, (double)opens / nwin, 1);
        const sat_rnode *co = signal_row(sat_rnode_get(root, "signals"), no, "conn_opens");
        if (co && !isnan(st_dbl(co, "baseline")))
            sat_fmt_fixed(base, sizeof base, st_dbl(co, "baseline"), 1);
        char hl[128] = "";
        if (hs)
            snprintf(hl, sizeof hl, "; %llu of %llu TLS handshakes full",
                     (unsigned long long)st_u64(s, "full_handshakes"), (unsigned long long)hs);
        st_item(t, "reconnects", "%llu %s opened during it (%s per %s, baseline %s)%s",
                (unsigned long long)opens, sat_plural(opens, "connection", "connections"), per,
                ws, base, hl);
    }
    uint64_t re = st_u64(s, "retries");
    if (re)
        st_item(t, "retries",
                "%llu %s a failed or unanswered one (the same client and server, within the "
                "retry window)",
                (unsigned long long)re, re == 1 ? "connection retried" : "connections retried");
    if (st_i64(s, "ongoing"))
        st_item(t, "ONGOING", "the failures were still high in the last window of the input");
    return t->err;
}
