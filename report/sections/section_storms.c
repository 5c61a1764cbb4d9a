/*
 * section_storms.c - the sections of the storms analyzer's result
 * (analyze/storms_result.c), read at 3 a.m.: first what happened, each storm
 * with its size, its trigger and the chain of what rose before it, whether
 * it outlived the trigger, its kinds, clients, reconnects and retries, and
 * the table of every signal before and during it; then the detail: the
 * failures by kind, the rows read, the window each period was read at and
 * why. `satscope storms` prints them; the post-mortem embeds them.
 *
 * What a signal or a kind of failure is called, its unit and whether it is
 * a cause are the result's (its signals and failures tables, said once in
 * analyze/storms_signals.c); so are the rules of the periods (the windows a
 * baseline takes, the silence between two periods, each period's floor).
 */
#include <stdarg.h>
#include <string.h>

#include "sections.h"

/* Windows, their spans and leads are whole seconds: "10 s", not "10.0 s"
 * (three significant figures would claim a precision the step does not
 * need); "1 h" is one hour exactly; other durations in human units. */
static void dur(char *b, size_t n, double s)
{
    if (isfinite(s) && s >= 1 && s < 999.5 && s == floor(s)) {
        snprintf(b, n, "%.0f s", s);
        return;
    }
    sat_fmt_duration(b, n, s);
    char *dot = strchr(b, '.'), *sp = dot ? strchr(dot, ' ') : NULL;
    if (isfinite(s) && s == floor(s) && sp) {
        char *z = sp;
        while (z > dot && z[-1] == '0')
            z--;
        if (z == dot + 1 || z - 1 == dot)
            memmove(dot, sp, strlen(sp) + 1);
    }
}

/* A text value of vals under key, shown with label ("" : none, the text
 * under the one before). */
static void item(sat_rnode *vals, const char *key, const char *label, const char *fmt, ...)
    SAT_PRINTF(4, 5);
static void item(sat_rnode *vals, const char *key, const char *label, const char *fmt, ...)
{
    if (!vals)
        return;
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sat_put_text(vals, key, buf);
    sat_put_label(vals, label);
}

/* Appends to b (of n, used l) like snprintf. */
static size_t add(char *b, size_t n, size_t l, const char *fmt, ...) SAT_PRINTF(4, 5);
static size_t add(char *b, size_t n, size_t l, const char *fmt, ...)
{
    if (l >= n)
        return l;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + l, n - l, fmt, ap);
    va_end(ap);
    return strlen(b);
}

static uint64_t rows_read(const sat_rnode *root, const char *table)
{
    char path[64];
    snprintf(path, sizeof path, "rows_read.%s", table);
    return sat_get_count(root, path, 0);
}

/* ---- the signals of one storm ---------------------------------------------------------- */

/* A signal's value in the unit its row names (a count per window, a
 * duration, a share); absent: "-", or "no answer" when the p90 is past
 * every answer. */
static void sig_value(char *b, size_t n, const sat_rnode *sig, const char *col)
{
    const char *unit = sat_get_text(sig, "unit", "count");
    double v = sat_get_num(sig, col, NAN);
    if (!isfinite(v)) {
        snprintf(b, n, "%s", sat_get_bool(sig, "never_answered", 0) == 1 ? "no answer" : "-");
    } else if (!strcmp(unit, "duration")) {
        sat_fmt_duration(b, n, v);
    } else if (!strcmp(unit, "ratio")) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, 100.0 * v);
        snprintf(b, n, "%s%%", t);
    } else {
        sat_fmt_fixed(b, n, v, 1);
    }
}

/* The signal in a table's words, with the client it counts when it names one. */
static void sig_label(char *b, size_t n, const sat_rnode *sig)
{
    const char *label = sat_get_text(sig, "label", sat_get_text(sig, "signal_name", "?"));
    const char *client = sat_get_text(sig, "client", NULL);
    if (client)
        snprintf(b, n, "%s (%.60s)", label, client);
    else
        snprintf(b, n, "%s", label);
}

static int is_named(const sat_rnode *row, const char *col, const char *name)
{
    const char *s = sat_get_text(row, col, NULL);
    return s && !strcmp(s, name);
}

/* The signals rows of storm no, in the result's order; at most max. */
static size_t signals_of(const sat_rnode *root, uint64_t no, const sat_rnode **out, size_t max)
{
    size_t k = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "signals")); r && k < max;
         r = sat_rnode_next(r))
        if (sat_get_count(r, "storm", 0) == no)
            out[k++] = r;
    return k;
}

static const sat_rnode *signal_of(const sat_rnode *root, uint64_t no, const char *name)
{
    const sat_rnode *sig[32];
    size_t n = signals_of(root, no, sig, 32);
    for (size_t i = 0; i < n; i++)
        if (is_named(sig[i], "signal_name", name))
            return sig[i];
    return NULL;
}

/* The chain: the causes that rose, then the effects that rose, each in the
 * order they rose, then the failures. */
static void chain(sat_rnode *v, const sat_rnode *root, const sat_rnode *s, uint64_t no)
{
    const sat_rnode *all[32], *rose[32];
    size_t n = signals_of(root, no, all, 32), nr = 0;
    for (size_t i = 0; i < n; i++)
        if (sat_get_bool(all[i], "rose", 0) == 1)
            rose[nr++] = all[i];
    if (!nr)
        return;
    for (size_t i = 1; i < nr; i++) /* causes first, then by onset (none: last) */
        for (size_t j = i; j > 0; j--) {
            const sat_rnode *x = rose[j], *y = rose[j - 1];
            int cx = sat_get_bool(x, "cause", 0) == 1, cy = sat_get_bool(y, "cause", 0) == 1;
            int64_t ox = sat_get_time(x, "onset_ts", 0), oy = sat_get_time(y, "onset_ts", 0);
            if (!(cx != cy ? cx > cy : (ox && (!oy || ox < oy))))
                break;
            rose[j] = y;
            rose[j - 1] = x;
        }
    char line[2048];
    size_t l = 0;
    int last_cause = -1;
    for (size_t i = 0; i < nr; i++) {
        char lab[128];
        sig_label(lab, sizeof lab, rose[i]);
        int cause = sat_get_bool(rose[i], "cause", 0) == 1;
        l = add(line, sizeof line, l, "%s%s", !i ? "" : cause == last_cause ? ", " : " -> ", lab);
        last_cause = cause;
    }
    uint64_t ev = sat_get_count(s, "events", 0);
    add(line, sizeof line, l, " -> %llu client %s", (unsigned long long)ev,
        sat_plural(ev, "failure", "failures"));
    item(v, "chain_text", "chain", "%s", line);
}

/* Whether a signal is shown in the storm's table: the load always; the
 * others when they moved or had no baseline, and only where the inputs
 * can hold them. */
static int signal_shown(const sat_rnode *root, const sat_rnode *r)
{
    int http_only = !rows_read(root, "ldap_op") && rows_read(root, "http_req");
    uint64_t ops = rows_read(root, "ldap_op") + rows_read(root, "http_req");
    uint64_t logs = sat_get_count(root, "http_inputs.count", 0);
    int no_conns =
        logs && sat_get_count(root, "http_inputs.without_connection_requests", 0) == logs;
    int un = sat_get_bool(r, "never_answered", 0) == 1;
    if (!sat_get_has(r, "lead_up") && !sat_get_has(r, "during") && !un)
        return 0; /* no data of that kind in these inputs */
    if (sat_get_bool(r, "cause", 0) == 1 && is_named(r, "unit", "count") && !ops)
        return 0; /* a cause counted in operations, without operations or requests */
    if (http_only && sat_get_bool(r, "ldap_only", 0) == 1)
        return 0; /* searches and the queue: directory servers only */
    if (http_only && no_conns && is_named(r, "signal_name", "conn_opens"))
        return 0; /* no input logs which request opened a connection */
    return is_named(r, "signal_name", "ops") || !sat_get_has(r, "baseline") ||
           sat_get_bool(r, "rose", 0) == 1 || sat_get_time(r, "onset_ts", 0);
}

/* Each signal before and during the storm; 1 when any was shown. */
static int signals_table(const sec_ctx *c, sat_rnode *sec, const sat_rnode *root,
                         const sat_rnode *s, uint64_t no)
{
    static const sat_col cols[] = {{"rose", SAT_UNIT_BOOL, 0, NULL},
                                   {"label", SAT_UNIT_TEXT, 0, "signal"},
                                   {"baseline_text", SAT_UNIT_TEXT, 0, "baseline"},
                                   {"lead_up_text", SAT_UNIT_TEXT, 0, "before"},
                                   {"during_text", SAT_UNIT_TEXT, 0, "during"},
                                   {"onset_text", SAT_UNIT_TEXT, 0, "onset"}};
    const sat_rnode *sig[32];
    size_t n = signals_of(root, no, sig, 32), shown = 0;
    sat_rnode *t = NULL;
    int64_t start = sat_get_time(s, "start_ts", 0);
    for (size_t i = 0; i < n; i++) {
        const sat_rnode *r = sig[i];
        if (!signal_shown(root, r))
            continue;
        if (!t) {
            char ws[64], title[160];
            dur(ws, sizeof ws, sat_get_dur(s, "window_s", NAN));
            snprintf(title, sizeof title,
                     "Before it: what the %s windows before it and its first two show", ws);
            t = sat_doc_new_table(sec, title, NULL, cols, sizeof cols / sizeof cols[0]);
        }
        shown++;
        char b[96], on[192] = "";
        sat_rnode *row = sat_table_row(t);
        sat_put_bool(row, "rose", sat_get_bool(r, "rose", 0) == 1);
        sig_label(b, sizeof b, r);
        sat_put_text(row, "label", b);
        static const char *const vals[3][2] = {
            {"baseline", "baseline_text"}, {"lead_up", "lead_up_text"}, {"during", "during_text"}};
        for (int k = 0; k < 3; k++) {
            if (k == 0 && !sat_get_has(r, "baseline"))
                snprintf(b, sizeof b, "-"); /* no baseline: never "no answer" */
            else
                sig_value(b, sizeof b, r, vals[k][0]);
            sat_put_text(row, vals[k][1], b);
        }
        int64_t onset = sat_get_time(r, "onset_ts", 0);
        if (onset) {
            char ot[64], ld[64], st[64];
            sec_time(c, ot, sizeof ot, onset);
            /* the storm's date is in its title: a time of the same day without it */
            sec_time(c, st, sizeof st, start);
            if (strlen(ot) > 11 && ot[10] == 'T' && !strncmp(ot, st, 11))
                memmove(ot, ot + 11, strlen(ot + 11) + 1);
            double lead = (double)(start - onset) / 1e9;
            dur(ld, sizeof ld, fabs(lead));
            if (lead == 0)
                snprintf(on, sizeof on, "%s (at the start)", ot);
            else
                snprintf(on, sizeof on, "%s (%s %s)", ot, ld, lead > 0 ? "before" : "after");
        } else if (!sat_get_has(r, "baseline")) {
            snprintf(on, sizeof on, "(input starts: no baseline)");
        }
        sat_put_text(row, "onset_text", on);
    }
    return shown > 0;
}

/* A mechanism's per-window figure in its unit ("12.5", "83.0%"). */
static void mech_value(char *b, size_t n, const sat_rnode *s, const char *col)
{
    double v = sat_get_num(s, col, NAN);
    if (!isfinite(v)) {
        snprintf(b, n, "-");
    } else if (!strcmp(sat_get_text(s, "mechanism_unit", ""), "ratio")) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, 100.0 * v);
        snprintf(b, n, "%s%%", t);
    } else {
        sat_fmt_fixed(b, n, v, 1);
    }
}

/* Whether the failures outlived the trigger, and what kept them going: the
 * mechanism that rose with its figures, or that none of them rose. */
static void sustained(sat_rnode *v, const sat_rnode *s, int64_t back, const char *unseen)
{
    if (sat_get_bool(s, "sustained", 0) != 1) {
        if (sat_get_bool(s, "sustained", -1) < 0 && unseen[0])
            item(v, "sustained_text", "sustained",
                 "cannot tell: from %s on, nothing was answered that could measure the trigger",
                 unseen);
        else
        item(v, "sustained_text", "sustained", "%s",
             sat_get_bool(s, "sustained", -1) < 0
                 ? "cannot tell: the trigger had not gone back to usual by the end"
             : !back || back >= sat_get_time(s, "end_ts", 0)
                 ? "no: the failures ended while the trigger was still up"
                 : "no: the failures ended within the queue's drain time of the trigger's "
                   "return (10 s, 3 windows)");
        const char *m = sat_get_text(s, "mechanism", NULL);
        if (m) {
            char b0[80], b1[80];
            mech_value(b0, sizeof b0, s, "mechanism_usual");
            mech_value(b1, sizeof b1, s, "mechanism_during");
            item(v, "fed_by_text", "fed by", "%s (%s per window usually, %s while the trigger was up)",
                 m, b0, b1);
        }
        return;
    }
    char sd[64];
    dur(sd, sizeof sd, sat_get_dur(s, "sustained_s", NAN));
    const char *by = sat_get_text(s, "sustained_by", NULL);
    if (!by) {
        item(v, "sustained_text", "SUSTAINED",
             "the failures went on for %s after the trigger was back: a self-sustaining "
             "failure; none of retries, reconnects, full handshakes, refused connections or the "
             "offered load rose after it",
             sd);
        return;
    }
    char b0[80], b1[80], b2[80];
    mech_value(b0, sizeof b0, s, "mechanism_usual");
    mech_value(b1, sizeof b1, s, "mechanism_during");
    mech_value(b2, sizeof b2, s, "mechanism_after");
    item(v, "sustained_text", "SUSTAINED",
         "the failures went on for %s after the trigger was back: a self-sustaining failure, "
         "kept going by %s (%s per window usually, %s while the trigger was up, %s after)",
         sd, by, b0, b1, b2);
}

/* The trigger, what its figures say, and whether the failures outlived it. */
static void trigger(const sec_ctx *c, sat_rnode *v, const sat_rnode *root, const sat_rnode *s,
                    uint64_t no)
{
    const char *trig = sat_get_text(s, "trigger.signal_name", NULL);
    const sat_rnode *tr = trig ? signal_of(root, no, trig) : NULL;
    if (!tr) {
        /* with no trigger, nothing is said of outliving it */
        item(v, "trigger_text", "trigger", "none found: no cause rose before it%s",
             rows_read(root, "ldap_op") || rows_read(root, "tls_hs") || rows_read(root, "http_req")
                 ? " (the load, unindexed searches, one client, the handshake mix, the work per "
                   "operation)"
                 : " (no operation or handshake data)");
        return;
    }
    char tl[128], bt[64] = "", ut[64] = "";
    int64_t back = sat_get_time(s, "trigger.back_ts", 0);
    int64_t unseen = sat_get_time(s, "trigger.unseen_ts", 0);
    if (back)
        sec_time(c, bt, sizeof bt, back);
    if (unseen)
        sec_time(c, ut, sizeof ut, unseen);
    sig_label(tl, sizeof tl, tr);
    item(v, "trigger_text", "trigger", "%s: %s%s%s", tl,
         "the first cause to rise",
         back     ? "; back to usual at "
         : unseen ? "; no longer measured from "
                  : "; not back to usual by the end of the input",
         back ? bt : ut);
    /* what the trigger's figures mean: new connections that each cost a full
     * handshake, or a server that stopped answering */
    const sat_rnode *co = signal_of(root, no, "conn_opens");
    int unanswered = !sat_get_has(tr, "lead_up") && sat_get_bool(tr, "never_answered", 0) == 1;
    if (!strcmp(trig, "full_hs_share") && co && sat_get_bool(co, "rose", 0) == 1) {
        char b0[48], b1[48], f0[48], f1[48];
        sig_value(b0, sizeof b0, co, "baseline");
        sig_value(b1, sizeof b1, co, "lead_up");
        sig_value(f0, sizeof f0, tr, "baseline");
        sig_value(f1, sizeof f1, tr, "lead_up");
        item(v, "trigger_note_text", "",
             "new connections that all need a full handshake: %s opened a window against %s, "
             "%s of handshakes full against %s",
             b1, b0, f1, f0);
    } else if (!strcmp(trig, "hs_answer_p90_s") && unanswered) {
        item(v, "trigger_note_text", "", "the server stopped answering TLS handshakes");
    } else if (!strcmp(trig, "etime_p90_s") && unanswered) {
        item(v, "trigger_note_text", "",
             "the server stopped answering: requests went unanswered until their clients left");
    }
    sustained(v, s, back, ut);
}

/* "57 abandoned operations, 46 time limits (err=3)": a storm row's kinds.*
 * columns, most first (ties in the columns' order), in the words of the
 * failures table (the storms analyzer says each kind once, of one and of
 * several). */
static void storm_kinds(const sat_rnode *root, const sat_rnode *s, char *b, size_t n)
{
    const sat_rnode *storms = sat_get_table(root, "storms"), *kinds = sat_get_table(root, "failures");
    size_t ncols, l = 0;
    const sat_col *cols = sat_table_cols(storms, &ncols);
    b[0] = '\0';
    for (uint64_t prev = UINT64_MAX;;) { /* each pass: the largest count below prev */
        uint64_t best = 0;
        for (size_t i = 0; i < ncols; i++)
            if (!strncmp(cols[i].name, "kinds.", 6)) {
                uint64_t x = sat_get_count(s, cols[i].name, 0);
                if (x < prev && x > best)
                    best = x;
            }
        if (!best)
            break;
        for (size_t i = 0; i < ncols; i++)
            if (!strncmp(cols[i].name, "kinds.", 6) && sat_get_count(s, cols[i].name, 0) == best) {
                const char *kind = cols[i].name + 6;
                const sat_rnode *row = sat_get_row(kinds, "kind", kind);
                const char *words = sat_get_text(row, best == 1 ? "meaning_one" : "meaning", kind);
                l = add(b, n, l, "%s%llu %s", l ? ", " : "", (unsigned long long)best, words);
            }
        prev = best;
    }
    if (!l)
        snprintf(b, n, "none");
}

/* One storm: a row of the storms table with its signals and clients. */
static void storm(const sec_ctx *c, const sat_rnode *root, const sat_rnode *s, sat_rnode *parent,
                  int periods, int servers)
{
    uint64_t no = sat_get_count(s, "storm", 0);
    char id[32], a[64], b[64], p[64], d[64], ws[64], ex[64], per[160] = "";
    snprintf(id, sizeof id, "storm-%llu", (unsigned long long)no);
    sec_time(c, a, sizeof a, sat_get_time(s, "start_ts", 0));
    sec_time(c, b, sizeof b, sat_get_time(s, "end_ts", 0));
    sec_time(c, p, sizeof p, sat_get_time(s, "peak_ts", 0));
    dur(d, sizeof d, sat_get_dur(s, "span_s", NAN));
    double win = sat_get_dur(s, "window_s", NAN);
    dur(ws, sizeof ws, win);
    sat_fmt_fixed(ex, sizeof ex, sat_get_num(s, "baseline_per_window", NAN), 1);
    size_t pl = 0;
    if (servers) /* whose storm it is, when the inputs are of several servers */
        pl = add(per, sizeof per, pl, "; %s", sat_get_text(s, "server_addr", "not told"));
    if (periods)
        add(per, sizeof per, pl, "; period %llu",
            (unsigned long long)sat_get_count(s, "period", 0));
    sat_rnode *sec = sec_section(c, parent, id, "STORM %llu  %s .. %s  (%s%s)",
                                 (unsigned long long)no, a, b, d, per);
    if (!sec)
        return;
    sat_rnode *v = sat_doc_values(sec);
    uint64_t ev = sat_get_count(s, "events", 0), cl = sat_get_count(s, "client_count", 0);
    item(v, "size_text", "size",
         "%llu client %s from %llu %s; peak %llu in the %s from %s (baseline %s per %s)",
         (unsigned long long)ev, sat_plural(ev, "failure", "failures"), (unsigned long long)cl,
         sat_plural(cl, "client", "clients"),
         (unsigned long long)sat_get_count(s, "peak_events", 0), ws, p, ex, ws);
    trigger(c, v, root, s, no);
    chain(v, root, s, no);

    char line[2048];
    storm_kinds(root, s, line, sizeof line);
    item(v, "kinds_text", "kinds", "%s", line);

    size_t ntop = 0, l = 0;
    line[0] = '\0';
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "top_clients")); r;
         r = sat_rnode_next(r))
        if (sat_get_count(r, "storm", 0) == no) {
            l = add(line, sizeof line, l, "%s%s (%llu)", l ? ", " : "",
                    sat_get_text(r, "client", "?"),
                    (unsigned long long)sat_get_count(r, "events", 0));
            ntop++;
        }
    if (ntop)
        item(v, "clients_text", "clients", "%s%s", line, cl > ntop ? ", ..." : "");

    uint64_t opens = sat_get_count(s, "conn_opens", 0), hs = sat_get_count(s, "handshakes", 0);
    if (opens || hs) {
        char rate[64], base[64] = "-", hl[128] = "";
        sat_fmt_fixed(rate, sizeof rate, (double)opens / (sat_get_dur(s, "span_s", NAN) / win), 1);
        const sat_rnode *co = signal_of(root, no, "conn_opens");
        if (co && sat_get_has(co, "baseline"))
            sat_fmt_fixed(base, sizeof base, sat_get_num(co, "baseline", NAN), 1);
        if (hs)
            snprintf(hl, sizeof hl, "; %llu of %llu TLS handshakes full",
                     (unsigned long long)sat_get_count(s, "full_handshakes", 0),
                     (unsigned long long)hs);
        item(v, "reconnects_text", "reconnects",
             "%llu %s opened during it (%s per %s, baseline %s)%s", (unsigned long long)opens,
             sat_plural(opens, "connection", "connections"), rate, ws, base, hl);
    }
    uint64_t re = sat_get_count(s, "retries", 0);
    if (re)
        item(v, "retries_text", "retries",
             "%llu %s a failed or unanswered one (the same client and server, within the "
             "retry window)",
             (unsigned long long)re, re == 1 ? "connection retried" : "connections retried");
    if (sat_get_bool(s, "ongoing", 0) == 1)
        item(v, "ongoing_text", "ONGOING",
             "the failures were still high in the last window of the input");
    if (!signals_table(c, sec, root, s, no))
        item(v, "before_text", "before", "no operation, connection or handshake data around it");
}

/* ---- the totals --------------------------------------------------------------------- */

static void totals(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    uint64_t ev = sat_get_count(root, "events", 0), dd = sat_get_count(root, "deduplicated", 0);
    sat_rnode *s = sec_section(c, parent, "failures", "Client failures: %llu",
                               (unsigned long long)ev);
    if (ev)
        sat_doc_table(s, NULL, NULL, sat_get_table(root, "failures"),
                      "kind,events=failures,share,meaning", 0, NULL, NULL);
    if (dd)
        sat_doc_footnote(s,
                         "(%llu more %s a failure already counted on the same connection: the A1 "
                         "close after an ABANDON, a request left unanswered by a close already "
                         "counted, the FIN or RST of a handshake given up)",
                         (unsigned long long)dd, dd == 1 ? "row was" : "rows were");
    /* what was read, under the failures */
    sat_rnode *r = sec_section(c, parent, "read", NULL);
    uint64_t o = rows_read(root, "ldap_op"), cn = rows_read(root, "ldap_conn"),
             h = rows_read(root, "tls_hs"), tc = rows_read(root, "tcp_conn"),
             hr = rows_read(root, "http_req");
    if (o || cn || h || tc || !hr) /* (an HTTP log alone: its own line below) */
        sat_doc_para(r, "Rows read: %llu LDAP %s, %llu LDAP %s, %llu TLS %s, %llu TCP %s",
                     (unsigned long long)o, sat_plural(o, "operation", "operations"),
                     (unsigned long long)cn, sat_plural(cn, "connection", "connections"),
                     (unsigned long long)h, sat_plural(h, "handshake", "handshakes"),
                     (unsigned long long)tc, sat_plural(tc, "connection", "connections"));
    if (hr) {
        char sl[64] = "never (--slow off)";
        if (sat_get_has(root, "slow_s"))
            dur(sl, sizeof sl, sat_get_dur(root, "slow_s", NAN));
        sat_doc_para(r,
                     "HTTP: %llu %s read; failures: statuses 408, 499, 502, 503, 504, and answers "
                     "in %s or more (slow: --slow)",
                     (unsigned long long)hr, sat_plural(hr, "request", "requests"), sl);
        uint64_t n = sat_get_count(root, "http_inputs.count", 0),
                 nrt = sat_get_count(root, "http_inputs.without_response_time", 0),
                 nc = sat_get_count(root, "http_inputs.without_connection_requests", 0);
        if (nrt)
            sat_doc_para(r,
                         "%llu of %llu HTTP %s no response time (as nginx combined, Apache "
                         "common and combined): slow answers cannot be seen there, nor a client "
                         "that gave up on an answer the server then logged as a success",
                         (unsigned long long)nrt, (unsigned long long)n,
                         n == 1 ? "input logs" : "inputs log");
        if (nc)
            sat_doc_para(r,
                         "%llu of %llu HTTP %s no request number on the connection "
                         "($connection_requests, %%k): no connections opened nor handshakes "
                         "counted there",
                         (unsigned long long)nc, (unsigned long long)n,
                         n == 1 ? "input logs" : "inputs log");
    }
    uint64_t re = sat_get_count(root, "retries", 0),
             lost = sat_get_count(root, "retry_attempts_not_examined", 0);
    if (re)
        sat_doc_para(r, "Retries: %llu %s a failed or unanswered one", (unsigned long long)re,
                     re == 1 ? "connection retried" : "connections retried");
    if (lost)
        sat_doc_para(r, "(%llu %s or requests past a table's cap were not looked at)",
                     (unsigned long long)lost, sat_plural(lost, "connection", "connections"));
}

/* ---- the periods and their windows ----------------------------------------------------- */

/* Why a period's window is what it is ("the longest step: 360 windows over
 * 1 h"), and, on lines of their own, what else a reader must know of it. */
static void why(const sat_rnode *root, const sat_rnode *p, char *b, size_t n, char *more,
                size_t mn)
{
    char span[64], w[64], lw[64], flo[32];
    double win = sat_get_dur(p, "window_s", NAN), chosen = sat_get_dur(p, "window_chosen_s", NAN);
    uint64_t nw = sat_get_count(p, "window_count", 0),
             base = sat_get_count(root, "baseline_windows", 0);
    sat_fmt_fixed(flo, sizeof flo, sat_get_num(p, "baseline_floor", NAN), 3);
    dur(span, sizeof span, sat_get_dur(p, "span_s", NAN));
    dur(w, sizeof w, win);
    dur(lw, sizeof lw, 10.0); /* the longest step: window_count_at_10s */
    const char *y = sat_get_text(p, "window_why", "");
    if (!strcmp(y, "option"))
        snprintf(b, n, "set by --window: %llu %s", (unsigned long long)nw,
                 sat_plural(nw, "window", "windows"));
    else if (!strcmp(y, "longest"))
        snprintf(b, n, "the longest step: %llu windows over %s", (unsigned long long)nw, span);
    else if (!strcmp(y, "shorter"))
        snprintf(b, n,
                 "chosen for %s of input: %llu windows, the longest step that gives a baseline "
                 "of %llu (%s would give %lld); --window sets another",
                 span, (unsigned long long)nw, (unsigned long long)base, lw,
                 (long long)sat_get_int(p, "window_count_at_10s", 0));
    else
        snprintf(b, n,
                 "the shortest chosen: %s of input give %llu %s (clients give up after a second "
                 "or more: shorter windows would cut one wave of give-ups); --window sets "
                 "another",
                 span, (unsigned long long)nw, sat_plural(nw, "window", "windows"));
    size_t l = 0;
    more[0] = '\0';
    if (nw < base)
        l = add(more, mn, l,
                "Too short for a baseline of its own (that takes %llu windows): measured "
                "against next to no failures (%s per %s window), a healthy server's.",
                (unsigned long long)base, flo, w);
    if (win != chosen) {
        char c[64];
        dur(c, sizeof c, chosen);
        add(more, mn, l,
            "%s(%s wanted: not kept, the inputs fill more than 4,096 windows of it, or memory "
            "widened it)",
            l ? "\n" : "", c);
    }
}

static int shares_input(const sat_rnode *periods)
{
    /* the inputs do not overlap when none of them meets two periods */
    for (const sat_rnode *p = sat_rnode_first(periods); p; p = sat_rnode_next(p))
        for (const sat_rnode *q = sat_rnode_first(periods); q != p; q = sat_rnode_next(q))
            for (const sat_rnode *a = sat_rnode_first(sat_get_list(p, "inputs")); a;
                 a = sat_rnode_next(a))
                for (const sat_rnode *b = sat_rnode_first(sat_get_list(q, "inputs")); b;
                     b = sat_rnode_next(b))
                    if (!strcmp(sat_get_text(a, NULL, ""), sat_get_text(b, NULL, "")))
                        return 1;
    return 0;
}

/* Each line of text (split at '\n') a paragraph of s. */
static void paras(sat_rnode *s, const char *text)
{
    while (text && *text) {
        size_t len = strcspn(text, "\n");
        sat_doc_para(s, "%.*s", (int)len, text);
        text += len + (text[len] == '\n');
    }
}


/* A row's "inputs" list as one line, ", " between them: its length (0: none). */
static size_t inputs_of(const sat_rnode *row, char *in, size_t cap)
{
    size_t l = 0;
    in[0] = '\0';
    for (const sat_rnode *x = sat_rnode_first(sat_get_list(row, "inputs")); x;
         x = sat_rnode_next(x))
        l = add(in, cap, l, "%s%s", l ? ", " : "", sat_get_text(x, NULL, ""));
    return l;
}
static void periods(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *pt = sat_get_table(root, "periods");
    size_t np = sat_rnode_count(pt);
    char w[64], y[2048], more[1024];
    if (np == 1) {
        const sat_rnode *p = sat_rnode_first(pt);
        dur(w, sizeof w, sat_get_dur(p, "window_s", NAN));
        sat_rnode *s = sec_section(c, parent, "window", "Window: %s", w);
        why(root, p, y, sizeof y, more, sizeof more);
        y[0] = (char)(y[0] >= 'a' && y[0] <= 'z' ? y[0] - 'a' + 'A' : y[0]);
        sat_doc_para(s, "%s.", y);
        paras(s, more);
        return;
    }
    if (!np)
        return;
    char gap[64];
    dur(gap, sizeof gap, sat_get_dur(root, "period_gap_s", NAN));
    sat_rnode *s = sec_section(c, parent, "periods",
                               "Periods: %zu, each analysed on its own, at its own window", np);
    if (sat_rnode_count(sat_get_table(root, "servers")) > 1)
        sat_doc_para(s, "Each server's rows apart (Servers), cut where at least %s passed "
                        "without a row of its inputs.",
                     gap);
    else if (shares_input(pt))
        sat_doc_para(s, "With at least %s without a row between them (an input has such a "
                        "silence inside).",
                     gap);
    else
        sat_doc_para(s, "The inputs do not overlap: they cover %zu periods, with at least %s "
                        "without a row between them.",
                     np, gap);
    /* the periods with storms, and the first ones, at most 20 of them */
    size_t shown = 0, quiet = 0, i = 0;
    for (const sat_rnode *p = sat_rnode_first(pt); p; p = sat_rnode_next(p), i++) {
        uint64_t ns = sat_get_count(p, "storm_count", 0), ev = sat_get_count(p, "events", 0);
        if (shown >= 20 || (!ns && i >= 10)) {
            quiet++;
            continue;
        }
        shown++;
        char a[64], b[64], d[64], id[32];
        sec_time(c, a, sizeof a, sat_get_time(p, "start_ts", 0));
        sec_time(c, b, sizeof b, sat_get_time(p, "end_ts", 0));
        dur(d, sizeof d, sat_get_dur(p, "span_s", NAN));
        dur(w, sizeof w, sat_get_dur(p, "window_s", NAN));
        snprintf(id, sizeof id, "period-%zu", i + 1);
        sat_rnode *ps = sec_section(c, s, id, "Period %zu: %s .. %s (%s): %llu %s, %llu %s", i + 1,
                                    a, b, d, (unsigned long long)ev,
                                    sat_plural(ev, "failure", "failures"), (unsigned long long)ns,
                                    sat_plural(ns, "storm", "storms"));
        sat_rnode *v = sat_doc_values(ps);
        if (sat_rnode_count(sat_get_table(root, "servers")) > 1)
            item(v, "server_text", "server", "%s", sat_get_text(p, "server_addr", "not told"));
        why(root, p, y, sizeof y, more, sizeof more);
        for (char *nl = strchr(more, '\n'); nl; nl = strchr(nl, '\n'))
            *nl = ' ';
        item(v, "window_text", "window", "%s, %s%s%s", w, y, more[0] ? ". " : "", more);
        char in[2048];
        item(v, "inputs_text", "inputs", "%s",
             inputs_of(p, in, sizeof in) ? in : "(not named)");
    }
    if (quiet)
        sat_doc_para(sec_section(c, s, "more", NULL),
                     "... and %zu more %s (--json or --csv periods lists them all)", quiet,
                     sat_plural(quiet, "period", "periods"));
}

/* ---- the servers ----------------------------------------------------------------------- */

/* Which inputs are which server, in a line each when the inputs are of more
 * than one (each server's storms are found in its own rows only); returns
 * how many servers. */
static int servers(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *t = sat_get_table(root, "servers");
    size_t n = sat_rnode_count(t);
    if (n < 2)
        return (int)n;
    sat_rnode *s = sec_section(c, parent, "servers", NULL);
    sat_doc_para(s, "Servers: %zu, each with storms of its own rows only", n);
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        char in[2048];
        size_t l = inputs_of(r, in, sizeof in);
        uint64_t ns = sat_get_count(r, "storm_count", 0);
        sat_doc_para(s, "  %s: %s (%llu %s)",
                     sat_get_text(r, "server_addr", "(address not logged)"), l ? in : "(not named)",
                     (unsigned long long)ns, sat_plural(ns, "storm", "storms"));
    }
    return (int)n;
}

/* ---- the builder ---------------------------------------------------------------------- */

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    size_t ns = sat_rnode_count(sat_get_table(root, "storms"));
    char a[64], b[64];
    sec_fmt(c, a, sizeof a, root, "first_ts");
    sec_fmt(c, b, sizeof b, root, "last_ts");
    snprintf(buf, n, "%zu %s in %s .. %s", ns, sat_plural(ns, "storm", "storms"), a, b);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *storms = sat_get_table(root, "storms");
    size_t np = sat_rnode_count(sat_get_table(root, "periods"));
    uint64_t nw = sat_get_count(root, "window_count", 0);
    char ws[64];
    dur(ws, sizeof ws, sat_get_dur(root, "window_s", NAN));
    sat_rnode *o = sec_section(c, parent, "overview", NULL);
    if (np > 1)
        sat_doc_para(o, "(%llu windows in %zu periods)", (unsigned long long)nw, np);
    else
        sat_doc_para(o, "(%llu %s of %s)", (unsigned long long)nw,
                     sat_plural(nw, "window", "windows"), ws);
    if (!sat_rnode_first(storms)) {
        sat_rnode *s = sec_section(c, parent, "none",
                                   "No storm: the failures never rose clearly above their own "
                                   "baseline");
        sat_doc_para(s, "A storm needs at least 5 failures and a window well above the usual.");
        if (sat_get_time(root, "busiest_window_ts", 0)) {
            char bw[64], bs[64];
            dur(bw, sizeof bw, sat_get_dur(root, "busiest_window_s", NAN));
            sec_time(c, bs, sizeof bs, sat_get_time(root, "busiest_window_ts", 0));
            sat_doc_para(s, "The busiest %s window, from %s, had %llu.", bw, bs,
                         (unsigned long long)sat_get_count(root, "busiest_window_events", 0));
        }
    }
    int nsv = servers(c, root, parent);
    for (const sat_rnode *s = sat_rnode_first(storms); s; s = sat_rnode_next(s))
        storm(c, root, s, parent, np > 1, nsv > 1);
    totals(c, root, parent);
    periods(c, root, parent);
}

static const char *const csv_tables[] = {"storms",  "failures", "signals", "top_clients",
                                         "periods", "servers",  "windows", NULL};

const sec_builder sec_storms = {"storms", lead, build, csv_tables};
