/*
 * text_storms.c - the text form of `satscope storms` (read at 3 a.m.), from
 * its result sections only (analyze/storms_result.c names them): first what
 * happened, the storms, each with its size, its trigger and the chain of
 * signals that rose before it, whether it outlived the trigger; then the
 * detail: the failures by kind, the rows read, the window each period was
 * read at and why. Lines fit 100 columns unless --wide; durations in human
 * units (sat_fmt_duration).
 *
 * This file: the report, the totals and the periods; one storm's block is
 * text_storms_storm.c.
 */
#include <math.h>
#include <string.h>

#include "text_storms.h"

/* the storms analyzer's (analyze_storms.h), until its result carries them */
#define SAT_STORM_BASELINE_WINDOWS 30
#define SAT_STORM_PERIOD_GAP_NS (3600LL * 1000000000LL)

const sat_value *st_get(const sat_rnode *o, const char *key) { return sat_row_get(o, key); }

uint64_t st_u64(const sat_rnode *o, const char *key)
{
    const sat_value *v = sat_row_get(o, key);
    return v && !v->absent ? v->v.u : 0;
}

int64_t st_i64(const sat_rnode *o, const char *key) /* TIME, INT, BOOL */
{
    const sat_value *v = sat_row_get(o, key);
    return v && !v->absent ? v->v.i : 0;
}

double st_dbl(const sat_rnode *o, const char *key)
{
    const sat_value *v = sat_row_get(o, key);
    return v && !v->absent ? v->v.d : NAN;
}

const char *st_str(const sat_rnode *o, const char *key)
{
    const sat_value *v = sat_row_get(o, key);
    return v && !v->absent && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

/* Windows, their spans and leads are whole seconds: "10 s", not "10.0 s"
 * (three significant figures would claim a precision the step does not
 * need); other durations in human units. */
void st_dur(char *b, size_t n, double s)
{
    if (isfinite(s) && s >= 1 && s < 999.5 && s == floor(s)) {
        snprintf(b, n, "%.0f s", s);
        return;
    }
    sat_fmt_duration(b, n, s);
    char *dot = strchr(b, '.'), *sp = dot ? strchr(dot, ' ') : NULL;
    if (isfinite(s) && s == floor(s) && sp) { /* "1.00 h" is one hour exactly: "1 h" */
        char *z = sp;
        while (z > dot && z[-1] == '0')
            z--;
        if (z == dot + 1 || z - 1 == dot)
            memmove(dot, sp, strlen(sp) + 1);
    }
}

void st_ts(char *b, size_t n, int64_t ts)
{
    if (ts)
        sat_fmt_ts(b, n, ts);
    else
        snprintf(b, n, "-");
}

/* Writes first, then the words of text, wrapped to the width with each next
 * line starting with cont; a '\n' in text starts a next line. */
void st_wrap(sat_text *t, const char *first, const char *cont, const char *text)
{
    size_t limit = t->width ? t->width : (size_t)-1, cl = strlen(cont);
    fputs(first, t->out);
    size_t col = strlen(first), start = col;
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            fputc('\n', t->out);
            fputs(cont, t->out);
            t->lines++;
            col = start = cl;
            p++;
            continue;
        }
        size_t sp = 0;
        while (p[sp] == ' ')
            sp++;
        size_t wl = strcspn(p + sp, " \n");
        if (col > start && col + sp + wl > limit && sp) {
            fputc('\n', t->out);
            fputs(cont, t->out);
            t->lines++;
            col = start = cl;
            fwrite(p + sp, 1, wl, t->out);
            col += wl;
        } else {
            fwrite(p, 1, sp + wl, t->out);
            col += sp + wl;
        }
        p += sp + wl;
    }
    fputc('\n', t->out);
    t->lines++;
}

void st_item(sat_text *t, const char *label, const char *fmt, ...)
{
    char buf[4096], first[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(first, sizeof first, "  %-10s ", label);
    st_wrap(t, first, ST_CONT, buf);
}

void st_para(sat_text *t, const char *indent, const char *fmt, ...)
{
    char buf[4096], cont[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(cont, sizeof cont, "%s  ", indent);
    st_wrap(t, indent, cont, buf);
}

/* "close_B1 393, abandon 57" from the kinds table (most first), or from a
 * storm row's kinds.* columns in their order. */
static void kinds_of_table(const sat_rnode *kinds, char *b, size_t n)
{
    size_t l = 0;
    b[0] = '\0';
    for (const sat_rnode *r = sat_rnode_first(kinds); r && l < n; r = sat_rnode_next(r)) {
        snprintf(b + l, n - l, "%s%s %llu", l ? ", " : "", st_str(r, "kind"),
                 (unsigned long long)st_u64(r, "events"));
        l = strlen(b);
    }
    if (!l)
        snprintf(b, n, "none");
}

/* Why a period's window is what it is (after "Window: 2 s"). */
static void why_text(const sat_rnode *p, char *b, size_t n)
{
    char span[64], w[64], lw[64], flo[32];
    double win = st_dbl(p, "window_s"), chosen = st_dbl(p, "window_chosen_s");
    double fl = 0.05 * win;
    uint64_t nw = st_u64(p, "window_count");
    sat_fmt_fixed(flo, sizeof flo, fl < 0.5 ? fl : 0.5, 3);
    st_dur(span, sizeof span, st_dbl(p, "span_s"));
    st_dur(w, sizeof w, win);
    st_dur(lw, sizeof lw, 10.0);
    const char *why = st_str(p, "window_why");
    why = why ? why : "";
    size_t l;
    if (!strcmp(why, "option"))
        snprintf(b, n, " (--window): %llu %s", (unsigned long long)nw,
                 sat_plural(nw, "window", "windows"));
    else if (!strcmp(why, "longest"))
        snprintf(b, n, ", the longest step: %llu windows over %s", (unsigned long long)nw, span);
    else if (!strcmp(why, "shorter"))
        snprintf(b, n,
                 ", chosen for %s of input: %llu windows, the longest step that gives a "
                 "baseline of %d (%s would give %lld); --window sets another",
                 span, (unsigned long long)nw, SAT_STORM_BASELINE_WINDOWS, lw,
                 (long long)st_i64(p, "window_count_at_10s"));
    else
        snprintf(b, n,
                 ", the shortest chosen: %s of input give %llu %s (clients give up after a "
                 "second or more: shorter windows would cut one wave of give-ups); --window "
                 "sets another",
                 span, (unsigned long long)nw, sat_plural(nw, "window", "windows"));
    if (nw < SAT_STORM_BASELINE_WINDOWS) {
        l = strlen(b);
        snprintf(b + l, n - l,
                 "\nToo short for a baseline of its own (that takes %d windows): measured "
                 "against next to no failures (%s per %s window), a healthy server's",
                 SAT_STORM_BASELINE_WINDOWS, flo, w);
    }
    if (win != chosen) {
        char c[64];
        st_dur(c, sizeof c, chosen);
        l = strlen(b);
        snprintf(b + l, n - l,
                 "\n(%s wanted: not kept, the inputs fill more than 4,096 windows of it, or "
                 "memory widened it)",
                 c);
    }
}

static int shares_input(const sat_rnode *periods)
{
    /* the inputs do not overlap when none of them meets two periods */
    for (const sat_rnode *p = sat_rnode_first(periods); p; p = sat_rnode_next(p))
        for (const sat_rnode *q = sat_rnode_first(periods); q != p; q = sat_rnode_next(q))
            for (const sat_rnode *a = sat_rnode_first(sat_rnode_get(p, "inputs")); a;
                 a = sat_rnode_next(a))
                for (const sat_rnode *b = sat_rnode_first(sat_rnode_get(q, "inputs")); b;
                     b = sat_rnode_next(b))
                    if (!strcmp(sat_rnode_value(a)->v.s, sat_rnode_value(b)->v.s))
                        return 1;
    return 0;
}

static void print_periods(sat_text *t, const sat_rnode *periods)
{
    char why[2048], w[64];
    size_t np = sat_rnode_count(periods);
    const sat_rnode *p0 = sat_rnode_first(periods);
    if (np == 1) {
        char line[2200];
        st_dur(w, sizeof w, st_dbl(p0, "window_s"));
        why_text(p0, why, sizeof why);
        snprintf(line, sizeof line, "%s%s", w, why);
        st_wrap(t, "Window: ", "  ", line);
        return;
    }
    char gap[64];
    st_dur(gap, sizeof gap, (double)SAT_STORM_PERIOD_GAP_NS / 1e9);
    if (shares_input(periods))
        st_para(t, "",
                "Periods: %zu periods, with at least %s without a row between them (an input has "
                "such a silence inside); each is analysed on its own, at its own window:",
                np, gap);
    else
        st_para(t, "",
                "Periods: the inputs do not overlap: they cover %zu periods, with at least %s "
                "without a row between them; each is analysed on its own, at its own window:",
                np, gap);
    /* the periods with storms, and the first ones, at most 20 of them */
    size_t shown = 0, quiet = 0, i = 0;
    for (const sat_rnode *p = p0; p; p = sat_rnode_next(p), i++) {
        uint64_t ns = st_u64(p, "storm_count"), ev = st_u64(p, "events");
        if (shown >= 20 || (!ns && i >= 10)) {
            quiet++;
            continue;
        }
        shown++;
        char a[64], b[64], d[64], head[16], in[2048] = "";
        st_ts(a, sizeof a, st_i64(p, "start_ts"));
        st_ts(b, sizeof b, st_i64(p, "end_ts"));
        st_dur(d, sizeof d, st_dbl(p, "span_s"));
        st_dur(w, sizeof w, st_dbl(p, "window_s"));
        snprintf(head, sizeof head, "  %-2zu ", i + 1);
        char line[256];
        snprintf(line, sizeof line, "%s .. %s (%s): %llu %s, %llu %s", a, b, d,
                 (unsigned long long)ev, sat_plural(ev, "failure", "failures"),
                 (unsigned long long)ns, sat_plural(ns, "storm", "storms"));
        st_wrap(t, head, "       ", line);
        why_text(p, why, sizeof why);
        snprintf(line, sizeof line, "%s", w);
        char wl[2200];
        snprintf(wl, sizeof wl, "%s%s", w, why);
        st_wrap(t, "     window ", "       ", wl);
        size_t l = 0;
        for (const sat_rnode *x = sat_rnode_first(sat_rnode_get(p, "inputs")); x;
             x = sat_rnode_next(x)) {
            snprintf(in + l, sizeof in - l, "%s%s", l ? ", " : "", sat_rnode_value(x)->v.s);
            l = strlen(in);
        }
        st_wrap(t, "     inputs ", "       ", l ? in : "(not named)");
    }
    if (quiet)
        st_para(t, "  ", "... and %zu more %s (--json or --csv periods lists them all)", quiet,
                sat_plural(quiet, "period", "periods"));
}

static void print_totals(sat_text *t, const sat_rnode *root)
{
    char kinds[2048];
    kinds_of_table(sat_rnode_get(root, "failures"), kinds, sizeof kinds);
    uint64_t ev = st_u64(root, "events"), dd = st_u64(root, "deduplicated");
    sat_text_title(t, "Client failures: %llu", (unsigned long long)ev);
    if (ev)
        st_para(t, "  ", "%s", kinds);
    if (dd)
        st_para(t, "  ",
                "(%llu more %s a failure already counted on the same connection: the A1 close "
                "after an ABANDON, a request left unanswered by a close already counted, the "
                "FIN or RST of a handshake given up)",
                (unsigned long long)dd, dd == 1 ? "row was" : "rows were");
    const sat_rnode *rows = sat_rnode_get(root, "rows_read");
    uint64_t o = st_u64(rows, "ldap_op"), c = st_u64(rows, "ldap_conn"),
             h = st_u64(rows, "tls_hs"), tc = st_u64(rows, "tcp_conn");
    uint64_t hr = st_u64(rows, "http_req");
    if (o || c || h || tc || !hr) /* (an HTTP log alone: its own line below) */
        st_para(t, "",
                "Rows read: %llu LDAP %s, %llu LDAP %s, %llu TLS %s, %llu TCP %s",
                (unsigned long long)o, sat_plural(o, "operation", "operations"),
                (unsigned long long)c, sat_plural(c, "connection", "connections"),
                (unsigned long long)h, sat_plural(h, "handshake", "handshakes"),
                (unsigned long long)tc, sat_plural(tc, "connection", "connections"));
    if (hr) {
        char sl[64] = "never (--slow off)";
        const sat_value *sv = st_get(root, "slow_s");
        if (sv && !sv->absent)
            st_dur(sl, sizeof sl, sv->v.d);
        st_para(t, "",
                "HTTP: %llu %s read; failures: statuses 408, 499, 502, 503, 504, and answers "
                "in %s or more (slow: --slow)",
                (unsigned long long)hr, sat_plural(hr, "request", "requests"), sl);
        const sat_rnode *in = sat_rnode_get(root, "http_inputs");
        uint64_t n = st_u64(in, "count"), nrt = st_u64(in, "without_response_time"),
                 nc = st_u64(in, "without_connection_requests");
        if (nrt)
            st_para(t, "  ",
                    "%llu of %llu HTTP %s no response time (as nginx combined, Apache "
                    "common and combined): slow answers cannot be seen there, nor a client "
                    "that gave up on an answer the server then logged as a success",
                    (unsigned long long)nrt, (unsigned long long)n,
                    n == 1 ? "input logs" : "inputs log");
        if (nc)
            st_para(t, "  ",
                    "%llu of %llu HTTP %s no request number on the connection ($connection_"
                    "requests, %%k): no connections opened nor handshakes counted there",
                    (unsigned long long)nc, (unsigned long long)n,
                    n == 1 ? "input logs" : "inputs log");
    }
    uint64_t re = st_u64(root, "retries"), lost = st_u64(root, "retry_attempts_not_examined");
    if (re)
        st_para(t, "", "Retries: %llu %s a failed or unanswered one", (unsigned long long)re,
                re == 1 ? "connection retried" : "connections retried");
    if (lost)
        st_para(t, "  ", "(%llu %s or requests past a table's cap were not looked at)",
                (unsigned long long)lost, sat_plural(lost, "connection", "connections"));
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    const sat_rnode *storms = sat_rnode_get(root, "storms");
    const sat_rnode *periods = sat_rnode_get(root, "periods");
    size_t ns = sat_rnode_count(storms), np = sat_rnode_count(periods);
    uint64_t nw = st_u64(root, "window_count");
    char a[64], b[64], ws[64], line[256], paren[128];
    st_ts(a, sizeof a, st_i64(root, "first_ts"));
    st_ts(b, sizeof b, st_i64(root, "last_ts"));
    st_dur(ws, sizeof ws, st_dbl(root, "window_s"));
    snprintf(line, sizeof line, "satscope storms: %zu %s in %s .. %s", ns,
             sat_plural(ns, "storm", "storms"), a, b);
    if (np > 1)
        snprintf(paren, sizeof paren, "(%llu windows in %zu periods)", (unsigned long long)nw, np);
    else
        snprintf(paren, sizeof paren, "(%llu %s of %s)", (unsigned long long)nw,
                 sat_plural(nw, "window", "windows"), ws);
    /* the parenthesis stays whole: on the title's line when it fits, else under it */
    if (!t->width || strlen(line) + 1 + strlen(paren) <= t->width)
        st_para(t, "", "%s %s", line, paren);
    else {
        st_para(t, "", "%s", line);
        st_para(t, "  ", "%s", paren);
    }
    if (!ns) {
        st_dur(ws, sizeof ws, st_dbl(root, "busiest_window_s"));
        sat_text_title(t, "No storm: the failures never rose clearly above their own baseline");
        st_para(t, "", "(a storm needs at least 5 failures and a window well above the usual).");
        int64_t bt = st_i64(root, "busiest_window_ts");
        if (bt) {
            char bs[64];
            st_ts(bs, sizeof bs, bt);
            st_para(t, "", "The busiest %s window, from %s, had %llu.", ws, bs,
                    (unsigned long long)st_u64(root, "busiest_window_events"));
        }
    }
    for (const sat_rnode *s = sat_rnode_first(storms); s; s = sat_rnode_next(s)) {
        int rc = st_storm_text(t, root, s, np > 1);
        if (rc < 0)
            return rc;
    }
    print_totals(t, root);
    if (np)
        print_periods(t, periods);
    return t->err;
}

static const char *const csv_tables[] = {"storms", "failures", "signals", "top_clients",
                                         "periods", "windows", NULL};
const sat_text_report sat_text_storms = {"storms", render, csv_tables};
