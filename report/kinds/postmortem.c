/*
 * report_postmortem.c - the post-mortem report (`satscope report --kind
 * postmortem`, the default): "the server fell over at 14:35: why?". One page
 * built from the results of every analyzer over the incident's logs,
 * captures and cores: first the findings (report_pm_findings.c: what
 * happened, when, the likely chain from trigger to crash), then the sections
 * a reader checks them against: the timeline, the storms with their chains,
 * where the time went (top offenders by total time, unindexed searches),
 * the TLS handshakes, the crash with its backtrace and the load before it,
 * and capacity (cache sizing and the scalability fit). The inputs are listed
 * with their spans. Every figure comes from a result; a section whose
 * analyzer saw nothing says so in a sentence.
 */
#include <string.h>

#include "postmortem.h"

static const char *const pm_analyzers[] = {"timeline", "etime",     "handshakes", "storms",
                                           "saturation", "cachesize", "crashes",    NULL};

void pm_dur(char *buf, size_t n, double s) { sat_fmt_duration(buf, n, s); }

void pm_time(const pm_ctx *p, char *buf, size_t n, int64_t ts)
{
    rd_fmt_time(buf, n, &p->clock, ts);
}

void pm_embed(const pm_ctx *p, sat_rnode *s, const char *analyzer, const sat_rnode *root,
              const char *const *only)
{
    const sec_builder *b = sec_find(analyzer);
    sec_ctx c = {p->clock, only, s};
    if (b && root)
        b->build(&c, root, s);
}

/* ---- the head: span, time zone, inputs ------------------------------------------- */

static void head(pm_ctx *p)
{
    /* the span every input covers: the timeline's (every source on it), else
     * the widest of the analyzers' own */
    int64_t first = sat_get_time(p->timeline, "first_ts", 0), last = sat_get_time(p->timeline, "last_ts", 0);
    const sat_rnode *others[] = {p->etime, p->storms, p->handshakes, p->crashes};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        int64_t a = sat_get_time(others[i], "first_ts", 0), b = sat_get_time(others[i], "last_ts", 0);
        if (a && (!first || a < first))
            first = a;
        if (b > last)
            last = b;
    }
    double off = sat_get_num(p->timeline, "utc_offset_s", NAN);
    int32_t offset = isfinite(off) ? (int32_t)off : 0;
    p->clock = rd_clock_at(offset, p->in->utc, first, last);
    char title[256] = "Post-mortem";
    if (p->in->title) {
        snprintf(title, sizeof title, "%s", p->in->title);
    } else if (first) {
        /* the default title says when (a mail's subject, a file among others) */
        char a[64], b[64], zone[32];
        rd_fmt_datetime(a, sizeof a, &p->clock, first);
        rd_fmt_time(b, sizeof b, &p->clock, last);
        rd_fmt_zone(zone, sizeof zone, &p->clock);
        a[16] = '\0'; /* to the minute */
        b[p->clock.dates ? 16 : 5] = '\0';
        snprintf(title, sizeof title, "Post-mortem, %s to %s %s", a, b, zone);
    }
    sat_doc_head(p->rep, title, first, last, offset);

    sat_doc_inputs(p->rep);
    const sat_rnode *src = sat_get_table(p->timeline, "sources");
    for (const sat_rnode *r = sat_rnode_first(src); r; r = sat_rnode_next(r)) {
        double bytes = sat_get_num(r, "bytes", NAN), lines = sat_get_num(r, "lines", NAN), rej = sat_get_num(r, "rejects", NAN);
        sat_doc_input(p->rep, sat_get_text(r, "path", NULL), sat_get_text(r, "kind", NULL), sat_get_text(r, "format", NULL),
                      isfinite(bytes) ? (uint64_t)bytes : 0, isfinite(lines) ? (uint64_t)lines : 0,
                      isfinite(rej) ? (uint64_t)rej : 0, sat_get_time(r, "first_ts", 0),
                      sat_get_time(r, "last_ts", 0));
    }
}

/* ---- sections ------------------------------------------------------------------ */

static void put_num_value(sat_rnode *vals, const char *key, const sat_rnode *o, const char *path)
{
    const sat_value *v = sat_rnode_val(o, path);
    if (v)
        sat_put_value(vals, key, v);
}

static void summary_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "summary", "The inputs at a glance");
    sat_rnode *v = sat_doc_values(s);
    const sat_rnode *root = sat_result_root(sat_report_doc(p->rep));
    put_num_value(v, "from_ts", root, "first_ts");
    put_num_value(v, "to_ts", root, "last_ts");
    put_num_value(v, "operations", p->etime, "operations");
    put_num_value(v, "connections", p->etime, "connections");
    put_num_value(v, "etime_mean_s", p->etime, "operation_stats.etime_mean_s");
    put_num_value(v, "wtime_mean_s", p->etime, "operation_stats.wtime_mean_s");
    if (p->http_etime) {
        const sat_rnode *h = p->http_etime;
        put_num_value(v, "requests", h, "requests");
        double ce = sat_get_num(h, "request_stats.client_errors", NAN), se = sat_get_num(h, "request_stats.server_errors", NAN);
        if (isfinite(ce) && isfinite(se))
            sat_put_count(v, "request_errors", (uint64_t)(ce + se));
        put_num_value(v, "server_errors", h, "request_stats.server_errors");
        /* what the format does not log is left out (the sections below say so) */
        if (isfinite(sat_get_num(h, "request_stats.first_requests", NAN)))
            put_num_value(v, "connections_opened", h, "request_stats.first_requests");
        if (isfinite(sat_get_num(h, "request_stats.response_time_mean_s", NAN)))
            put_num_value(v, "response_time_mean_s", h, "request_stats.response_time_mean_s");
        if (isfinite(sat_get_num(h, "request_stats.upstream_mean_s", NAN)))
            put_num_value(v, "upstream_mean_s", h, "request_stats.upstream_mean_s");
    }
    put_num_value(v, "client_failures", p->storms, "events");
    sat_put_count(v, "storm_count", sat_rnode_count(sat_get_table(p->storms, "storms")));
    put_num_value(v, "tls_handshakes", p->handshakes, "connections");
    if (isfinite(sat_get_num(p->handshakes, "logs.full", NAN)) && isfinite(sat_get_num(p->handshakes, "logs.resumed", NAN)))
        sat_put_count(v, "tls_handshakes_in_logs",
                      (uint64_t)(sat_get_num(p->handshakes, "logs.full", NAN) + sat_get_num(p->handshakes, "logs.resumed", NAN)));
    put_num_value(v, "crash_count", p->crashes, "count");
}

static void timeline_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "timeline", "Timeline");
    char zone[32];
    rd_fmt_zone(zone, sizeof zone, &p->clock);
    double w = sat_get_num(p->timeline, "window_s", NAN);
    if (isfinite(w)) {
        char ws[64];
        pm_dur(ws, sizeof ws, w);
        sat_doc_para(s,
                     "Every input on one time axis (%s), in windows of %s: %s, "
                     "latency, concurrency, client failures, TLS handshakes and connections; "
                     "storms shaded, the trigger's onset and crashes marked.",
                     zone, ws,
                     !p->http ? "operations" : p->ldap ? "operations and requests" : "requests");
    }
    sat_doc_chart(s, "timeline");
    /* the timeline's counts are of operations and requests alike */
    const sat_rnode *hours = sat_get_table(p->timeline, "hours");
    static const char *const spark[3][3] = {
        {"operations per hour", "errors per hour", "etime p99 per hour"},
        {"requests per hour", "errors per hour", "response p99 per hour"},
        {"ops+reqs per hour", "errors per hour", "etime/response p99"}};
    int kind = !p->http ? 0 : p->ldap ? 2 : 1;
    sat_doc_sparkline(s, spark[kind][0], hours, "count", 1);
    sat_doc_sparkline(s, spark[kind][1], hours, "errors", 1);
    sat_doc_sparkline(s, spark[kind][2], hours, "p99_s", 1);
}

/* The chain of every storm: each signal storms looked at, in words, its
 * values in its own unit (a count per window, a duration, a share). */
static void chain_table(pm_ctx *p, sat_rnode *s)
{
    static const sat_col cols[] = {{"storm", SAT_UNIT_COUNT, 0, NULL},
                                   {"signal_name", SAT_UNIT_TEXT, 0, "signal"},
                                   {"rose", SAT_UNIT_BOOL, 0, NULL},
                                   {"usual_text", SAT_UNIT_TEXT, 0, "usual"},
                                   {"lead_up_text", SAT_UNIT_TEXT, 0, "before"},
                                   {"during_text", SAT_UNIT_TEXT, 0, "during"},
                                   {"onset_ts", SAT_UNIT_TIME, 0, "onset"},
                                   {"back_ts", SAT_UNIT_TIME, 0, "back to usual"}};
    const sat_rnode *sig = sat_get_table(p->storms, "signals");
    if (!sig)
        return;
    char win[64];
    pm_dur(win, sizeof win, sat_get_num(p->storms, "window_s", NAN));
    char note[160];
    snprintf(note, sizeof note, "counts per %s window; before: the windows before the storm and "
             "its first", win);
    sat_rnode *t = sat_doc_new_table(s, "The chain: what rose before each storm", note, cols,
                                     sizeof cols / sizeof cols[0]);
    for (const sat_rnode *r = sat_rnode_first(sig); r; r = sat_rnode_next(r)) {
        if (!p->ldap && p->http && sat_get_bool(r, "ldap_only", 0) == 1)
            continue; /* an access log has no unindexed search nor queue wait */
        sat_rnode *row = sat_table_row(t);
        sat_put_count(row, "storm", (uint64_t)sat_get_num(r, "storm", NAN));
        sat_put_text(row, "signal_name", sat_get_text(r, "label", NULL));
        const sat_value *rose = sat_row_get(r, "rose");
        if (rose)
            sat_put_value(row, "rose", rose);
        static const char *const vals[3][2] = {
            {"baseline", "usual_text"}, {"lead_up", "lead_up_text"}, {"during", "during_text"}};
        for (int k = 0; k < 3; k++) {
            char b[64];
            double v = sat_get_num(r, vals[k][0], NAN);
            if (!isfinite(v) && sat_get_bool(r, "never_answered", -1) == 1 && k > 0)
                snprintf(b, sizeof b, "no answer");
            else
                pm_signal_value(b, sizeof b, r, v);
            sat_put_text(row, vals[k][1], b);
        }
        sat_put_time(row, "onset_ts", sat_get_time(r, "onset_ts", 0));
        sat_put_time(row, "back_ts", sat_get_time(r, "back_ts", 0));
    }
}

static void kinds_table(pm_ctx *p, sat_rnode *s)
{
    static const sat_col cols[] = {{"kind", SAT_UNIT_TEXT, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, "failures"},
                                   {"share", SAT_UNIT_RATIO, 4, NULL}};
    const sat_rnode *k = sat_get_table(p->storms, "failures");
    if (!k)
        return;
    sat_rnode *t = sat_doc_new_table(s, "Client failures by kind", "over every input", cols, 3);
    for (const sat_rnode *r = sat_rnode_first(k); r; r = sat_rnode_next(r)) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "kind", sat_get_text(r, "meaning", NULL));
        sat_put_count(row, "events", (uint64_t)sat_get_num(r, "events", NAN));
        sat_put_ratio(row, "share", sat_get_num(r, "share", NAN), 4);
    }
}

static void storms_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "storms", "Storms of client failures");
    const sat_rnode *storms = sat_get_table(p->storms, "storms");
    if (!sat_rnode_first(storms)) {
        double ev = sat_get_num(p->storms, "events", NAN);
        if (!p->storms)
            sat_doc_para(s, "The storms analyzer did not run.");
        else
            sat_doc_para(s,
                         "No storm: client failures (%.0f in all) never rose clearly above "
                         "their own baseline.",
                         isfinite(ev) ? ev : 0);
        return;
    }
    for (const sat_rnode *st = sat_rnode_first(storms); st; st = sat_rnode_next(st)) {
        char a[64], b[64], span[64];
        pm_time(p, a, sizeof a, sat_get_time(st, "start_ts", 0));
        pm_time(p, b, sizeof b, sat_get_time(st, "end_ts", 0));
        pm_dur(span, sizeof span, sat_get_num(st, "span_s", NAN));
        const char *trig = sat_get_text(st, "trigger.signal_name", NULL);
        char tr[256] = "no signal rose before it (its cause is not in these inputs)";
        if (trig) {
            char on[64];
            pm_time(p, on, sizeof on, sat_get_time(st, "trigger.onset_ts", 0));
            snprintf(tr, sizeof tr, "triggered by %s (rising at %s)", pm_signal_words(p, trig), on);
        }
        int sus = sat_get_bool(st, "sustained", -1);
        sat_doc_para(s, "Storm %.0f: %s to %s (%s), %.0f client failures from %.0f %s, %s; %s.",
                     sat_get_num(st, "storm", NAN), a, b, span, sat_get_num(st, "events", NAN),
                     sat_get_num(st, "client_count", NAN),
                     sat_get_num(st, "client_count", NAN) == 1 ? "client" : "clients", tr,
                     sus == 1 ? "the failures outlived their trigger (self-sustaining)"
                     : sus == 0 ? "the failures did not outlive their trigger"
                                : "whether they outlived a trigger is not known");
    }
    sat_doc_table(s, "Storms", NULL, storms,
                  "storm,start_ts=start,end_ts=end,events=failures,peak_events=worst window,"
                  "baseline_per_window=usual,client_count=clients,trigger.signal_name=trigger,"
                  "trigger.onset_ts=onset,sustained,retries",
                  0, NULL, NULL);
    chain_table(p, s);
    kinds_table(p, s);
    sat_doc_table(s, "Clients with the most failures", NULL, sat_get_table(p->storms, "top_clients"),
                  NULL, 0, NULL, NULL);
}

/* The requests of HTTP access logs: by path template, method, status and
 * client, by total response time (by count when no input logs it). */
static void http_offenders(pm_ctx *p, sat_rnode *s)
{
    const sat_rnode *h = p->http_etime;
    const sat_rnode *all = NULL;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(h, "methods")); r; r = sat_rnode_next(r))
        if (sat_get_text(r, "method", NULL) && !strcmp(sat_get_text(r, "method", NULL), "all"))
            all = r;
    const char *no_rt = pm_not_logged(p, "etime");
    double n = sat_get_num(h, "requests", NAN);
    const char *by = "total_s";
    if (no_rt || !all || !isfinite(sat_get_num(all, "total_s", NAN))) {
        sat_doc_para(s,
                     "%.0f HTTP %s; their response times are not logged (%s): the path "
                     "templates with the most requests:",
                     isfinite(n) ? n : 0, n == 1 ? "request" : "requests",
                     no_rt ? no_rt : "no request has one");
        by = "count";
    } else {
        char tt[64], mean[64];
        pm_dur(tt, sizeof tt, sat_get_num(all, "total_s", NAN));
        pm_dur(mean, sizeof mean, sat_get_num(all, "mean_s", NAN));
        sat_doc_para(s,
                     "The server spent %s answering %.0f HTTP requests (the sum of their "
                     "response times, %s on average). The top path templates by total time "
                     "(ids, hex and numbers in paths collapsed, queries dropped):",
                     tt, n, mean);
        if (!p->ldap) /* beside operations, the chart is already there */
            sat_doc_chart(s, "distributions");
    }
    /* logged but never there (no proxied request) is left out too */
    const char *up = isfinite(sat_get_num(h, "request_stats.upstream_mean_s", NAN))
                         ? ",upstream_mean_s=upstream mean" : "";
    /* without response times the tables hold counts alone */
    int timed = !strcmp(by, "total_s");
    char times[256];
    snprintf(times, sizeof times, "%s%s",
             timed ? ",p50_s=p50,p90_s=p90,p99_s=p99,max_s=max,total_s=total,share" : "", up);
    char cols[512];
    snprintf(cols, sizeof cols, "path=path template,count=requests%s,errors", times);
    sat_doc_table_by(s, "By path template", "errors: statuses >= 400", sat_get_table(h, "groups"),
                     cols, 10, by);
    snprintf(cols, sizeof cols, "method,count=requests%s,errors", times);
    sat_doc_table(s, "By method", "all: every request", sat_get_table(h, "methods"), cols, 0, NULL,
                  NULL);
    sat_doc_table(s, "Statuses", NULL, sat_get_table(h, "statuses"),
                  "status,count=requests,share,meaning", 0, NULL, NULL);
    sat_doc_table_by(s, "Clients", NULL, sat_get_table(h, "top.clients"),
                     timed ? "client,count=requests,total_s=total" : "client,count=requests", 10, by);
}

static void offenders_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "offenders", "Where the time went");
    int ops = p->etime && sat_rnode_first(sat_get_table(p->etime, "ops"));
    if (!ops && p->http_etime) {
        http_offenders(p, s);
        return;
    }
    if (!ops) {
        sat_doc_para(s, "No LDAP operation in the inputs.");
        return;
    }
    double total = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->etime, "ops")); r; r = sat_rnode_next(r)) {
        double t = sat_get_num(r, "total_s", NAN);
        const char *op = sat_get_text(r, "op", NULL);
        total += isfinite(t) && !(op && !strcmp(op, "all")) ? t : 0;
    }
    char tt[64];
    pm_dur(tt, sizeof tt, total);
    sat_doc_para(s,
                 "The server spent %s answering operations (the sum of their etimes, queue "
                 "wait included). The top offenders by total time:",
                 tt);
    sat_doc_chart(s, "distributions");
    sat_doc_table_by(s, "By operation", NULL, sat_get_table(p->etime, "ops"),
                     "op,count,p50_s=p50,p90_s=p90,p99_s=p99,max_s=max,total_s=total,share,"
                     "wtime_mean_s=wtime mean",
                     0, "total_s");
    sat_doc_table_by(s, "Unindexed searches", "notes=A/U: searches that read every entry",
                     sat_get_table(p->etime, "unindexed.searches"),
                     "count,total_s=total,max_s=max,filter,base,client,binddn=bind DN", 10,
                     "total_s");
    sat_doc_table_by(s, "Filters", NULL, sat_get_table(p->etime, "top.filters"),
                     "filter,count,total_s=total", 10, "total_s");
    sat_doc_table_by(s, "Clients", NULL, sat_get_table(p->etime, "top.clients"),
                     "client,count,total_s=total", 10, "total_s");
    sat_doc_table_by(s, "Bind DNs", NULL, sat_get_table(p->etime, "top.bind_dns"),
                     "binddn=bind DN,count,total_s=total", 10, "total_s");
    sat_doc_table_by(s, "Bases", NULL, sat_get_table(p->etime, "top.bases"), "base,count,total_s=total",
                     10, "total_s");
    if (p->http_etime)
        http_offenders(p, s);
}

static void handshakes_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "handshakes", "TLS handshakes");
    if (!p->handshakes)
        sat_doc_para(s, "The handshakes analyzer did not run.");
    else
        pm_embed(p, s, "handshakes", p->handshakes, NULL);
}

static void crash_section(pm_ctx *p, sat_rnode *page)
{
    const sat_rnode *crashes = sat_get_table(p->crashes, "crashes");
    sat_rnode *s = sat_doc_section(page, "crash",
                                   sat_rnode_count(crashes) > 1 ? "The crashes" : "The crash");
    if (!sat_rnode_first(crashes)) {
        sat_doc_para(s, "No crash in the inputs (no core file or backtrace given).");
        return;
    }
    size_t k = 0;
    for (const sat_rnode *c = sat_rnode_first(crashes); c && k < 5; c = sat_rnode_next(c), k++) {
        char at[64], where[512] = "";
        pm_time(p, at, sizeof at, sat_get_time(c, "ts", 0));
        const sat_rnode *frames = sat_get_table(c, "frames");
        const sat_rnode *f0 = sat_rnode_first(frames);
        if (f0 && sat_get_text(f0, "function", NULL)) {
            const char *file = sat_get_text(f0, "file", NULL);
            double line = sat_get_num(f0, "line", NAN);
            if (file && isfinite(line))
                snprintf(where, sizeof where, " in %s (%s:%.0f)", sat_get_text(f0, "function", NULL), file,
                         line);
            else
                snprintf(where, sizeof where, " in %s", sat_get_text(f0, "function", NULL));
        }
        const char *exe = sat_get_text(c, "executable", NULL);
        const char *base = exe ? strrchr(exe, '/') : NULL;
        sat_doc_para(s, "%s: %s (pid %.0f) got %s%s%s%s%s.", at, base ? base + 1 : exe ? exe : "a process",
                     sat_get_num(c, "pid", NAN), sat_get_text(c, "signal_name", NULL) ? sat_get_text(c, "signal_name", NULL) : "a signal",
                     sat_get_text(c, "si_code_name", NULL) ? " (" : "",
                     sat_get_text(c, "si_code_name", NULL) ? sat_get_text(c, "si_code_name", NULL) : "",
                     sat_get_text(c, "si_code_name", NULL) ? ")" : "", where);
        sat_rnode *v = sat_doc_values(s);
        if (k == 0) {
            put_num_value(v, "crashed_ts", c, "ts");
            put_num_value(v, "time_source", c, "time_source");
            put_num_value(v, "signal_name", c, "signal_name");
            put_num_value(v, "si_code_name", c, "si_code_name");
            put_num_value(v, "fault_address", c, "fault_addr");
            put_num_value(v, "executable", c, "executable");
            put_num_value(v, "pid", c, "pid");
            put_num_value(v, "threads", c, "threads");
            put_num_value(v, "fingerprint", c, "fingerprint");
        }
        char title[128];
        snprintf(title, sizeof title, "Backtrace of the crashing thread (%s)", at);
        sat_doc_table(s, title, NULL, frames, "depth=#,function,file,line,module", 0, NULL, NULL);
        if (sat_get_bool(c, "before.covered", -1) == 1) {
            char a[64], b[64], ua[64];
            pm_time(p, a, sizeof a, sat_get_time(c, "before.from_ts", 0));
            pm_time(p, b, sizeof b, sat_get_time(c, "before.to_ts", 0));
            pm_time(p, ua, sizeof ua, sat_get_time(c, "before.usual_from_ts", 0));
            sat_doc_para(s,
                         "The load before it (%s to %s, against the same length before, from "
                         "%s): %.0f operations (usually %.0f), %.0f errors, %.0f connections "
                         "opened, %.0f TLS handshakes (%.0f full).",
                         a, b, ua, sat_get_num(c, "before.operations", NAN),
                         sat_get_num(c, "before.usual_operations", NAN), sat_get_num(c, "before.errors", NAN),
                         sat_get_num(c, "before.conn_opens", NAN), sat_get_num(c, "before.handshakes", NAN),
                         sat_get_num(c, "before.full_handshakes", NAN));
        }
    }
}

static void capacity_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "capacity", "Capacity");
    if (!p->saturation && !p->cachesize) {
        sat_doc_para(s, "Neither capacity analyzer ran.");
        return;
    }
    if (p->http && !p->ldap) {
        /* HTTP logs alone: the entry cache is a directory server's */
        sat_doc_para(s,
                     "How much load the server takes before it saturates: the Universal "
                     "Scalability Law fitted to throughput (requests answered per second) "
                     "against concurrency (requests in service, by Little's law from their "
                     "response times), per window.");
        const char *why = sat_get_text(p->saturation, "usl.why", NULL);
        if (sat_get_num(p->saturation, "usl.r2", NAN) != sat_get_num(p->saturation, "usl.r2", NAN) && why)
            sat_doc_para(s, "No fit: %s (windows of %.0f s with at least %.0f requests).", why,
                         sat_get_num(p->saturation, "window_s", NAN), sat_get_num(p->saturation, "min_ops", NAN));
        sat_doc_chart(s, "capacity");
        sat_rnode *v = sat_doc_values(s);
        put_num_value(v, "usl_contention_sigma", p->saturation, "usl.sigma");
        put_num_value(v, "usl_coherency_kappa", p->saturation, "usl.kappa");
        put_num_value(v, "usl_knee", p->saturation, "usl.knee");
        put_num_value(v, "usl_n_star", p->saturation, "usl.n_star");
        put_num_value(v, "usl_x_max_per_s", p->saturation, "usl.x_max");
        put_num_value(v, "throughput_ceiling_per_s", p->saturation, "usl.x_ceiling");
        put_num_value(v, "usl_fit_r2", p->saturation, "usl.r2");
        return;
    }
    sat_doc_para(s,
                 "How much load the server takes before it saturates (the Universal "
                 "Scalability Law fitted to throughput against concurrency, per window), and "
                 "how big the entry cache must be for a hit ratio (the miss-ratio curve of the "
                 "entries the log names).");
    sat_doc_chart(s, "capacity");
    sat_rnode *v = sat_doc_values(s);
    put_num_value(v, "usl_contention_sigma", p->saturation, "usl.sigma");
    put_num_value(v, "usl_coherency_kappa", p->saturation, "usl.kappa");
    put_num_value(v, "usl_knee", p->saturation, "usl.knee");
    put_num_value(v, "usl_n_star", p->saturation, "usl.n_star");
    put_num_value(v, "usl_x_max_per_s", p->saturation, "usl.x_max");
    put_num_value(v, "throughput_ceiling_per_s", p->saturation, "usl.x_ceiling");
    put_num_value(v, "usl_fit_r2", p->saturation, "usl.r2");
    put_num_value(v, "cache_entries_named", p->cachesize, "unique");
    put_num_value(v, "cache_max_hit_ratio", p->cachesize, "max_hit_ratio");
    /* the cache configured today (cn=monitor: --monitor), against which the
     * sizes below read; the logs alone do not say it, and without it the
     * values are left out rather than shown as unknown */
    static const char *const monitor[][2] = {
        {"cache_current_entries", "monitor.current_entries"},
        {"cache_current_bytes", "monitor.max_entry_cache_bytes"},
        {"cache_measured_hit_ratio", "monitor.measured_hit_ratio"}};
    for (size_t i = 0; i < sizeof monitor / sizeof monitor[0]; i++) {
        const sat_value *mv = sat_rnode_val(p->cachesize, monitor[i][1]);
        if (mv && !mv->absent)
            sat_put_value(v, monitor[i][0], mv);
    }
    put_num_value(v, "entry_reads_unseen_ratio", p->cachesize, "unseen_share");
    put_num_value(v, "recommended_cachememsize_bytes", p->cachesize, "recommend.cachememsize_bytes");
    put_num_value(v, "recommended_dncachememsize_bytes", p->cachesize,
                  "recommend.dncachememsize_bytes");
    sat_doc_table(s, "Entry cache size for a hit ratio", NULL, sat_get_table(p->cachesize, "targets"),
                  NULL, 0, NULL, NULL);
}

/* ---- the builder ----------------------------------------------------------------- */

static int pm_build(sat_report *rep, const sat_report_input *in, sat_diag *diag)
{
    pm_ctx p;
    memset(&p, 0, sizeof p);
    p.rep = rep;
    p.in = in;
    p.timeline = sat_result_set_root(in->set, "timeline");
    p.etime = sat_result_set_root(in->set, "etime");
    p.handshakes = sat_result_set_root(in->set, "handshakes");
    p.storms = sat_result_set_root(in->set, "storms");
    p.saturation = sat_result_set_root(in->set, "saturation");
    p.cachesize = sat_result_set_root(in->set, "cachesize");
    p.crashes = sat_result_set_root(in->set, "crashes");
    /* what the inputs hold, from the rows storms read (it reads every kind) */
    p.http = sat_get_num(p.storms, "rows_read.http_req", NAN) > 0;
    p.ldap = sat_get_num(p.storms, "rows_read.ldap_op", NAN) > 0 || sat_get_num(p.storms, "rows_read.ldap_conn", NAN) > 0;
    if (p.http && p.etime) {
        const sat_rnode *h = sat_rnode_get(p.etime, "http");
        p.http_etime = h ? h : p.etime;
    }
    /* the storm told first: the one with the most failures */
    double most = -1;
    for (const sat_rnode *st = sat_rnode_first(sat_get_table(p.storms, "storms")); st;
         st = sat_rnode_next(st))
        if (sat_get_num(st, "events", NAN) > most) {
            most = sat_get_num(st, "events", NAN);
            p.storm = st;
        }
    head(&p);
    sat_doc_findings(rep, NULL); /* before the pages, as the document lists them */
    sat_rnode *page = sat_doc_page(rep, "Post-mortem", NULL, 0);
    pm_findings(&p);
    summary_section(&p, page);
    timeline_section(&p, page);
    storms_section(&p, page);
    offenders_section(&p, page);
    handshakes_section(&p, page);
    crash_section(&p, page);
    capacity_section(&p, page);
    int st = sat_result_status(sat_report_doc(rep));
    if (st < 0)
        sat_diag_set(diag, st, NULL, "building the post-mortem: %s", sat_strerror(st));
    return st;
}

const sat_report_kind sat_report_postmortem = {
    "postmortem", "what happened, when, and the likely chain from trigger to crash",
    pm_analyzers, 0, pm_build};
