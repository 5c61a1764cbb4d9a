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
#include "section_throughput.h"

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

/* What the post-mortem shows of each analyzer: the sections of its command
 * (report/sections/) that answer "what happened", without what the report
 * says once for every input (the span, the inputs, the rows read). */
static const char *const storms_parts[] = {"servers", "storm-*", "none", "failures", NULL};
/* (who used the server: by the work its operations took, and apart who
 * waited, over the whole inputs; during the storm: the storms section) */
static const char *const etime_parts[] = {"ops", "unindexed", "who_used", "who_waited", "http",
                                          NULL};
/* the same with the internal operations, when the inputs hold some */
static const char *const etime_internal_parts[] = {
    "ops", "internal", "unindexed", "who_used", "who_waited", "http", NULL};
static const char *const etime_results_parts[] = {"result_codes", "failed_binds_by_dn",
                                                  "failed_binds_by_client", NULL};
static const char *const etime_http_parts[] = {"http_groups", "http_methods", "http_statuses",
                                               "http_top_clients", NULL};
static const char *const crashes_parts[] = {"crash-*", NULL};
static const char *const saturation_parts[] = {"usl", "knee", "tls_capacity", NULL};
static const char *const cachesize_parts[] = {"recommend", "targets", "reads_seen", "monitor",
                                               "stream",    NULL};
static const char *const timeline_parts[] = {"busiest", NULL};

/* ---- sections ------------------------------------------------------------------ */

static void summary_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "summary", "The inputs at a glance");
    sat_rnode *v = sat_doc_values(s);
    const sat_rnode *root = sat_result_root(sat_report_doc(p->rep));
    sat_put_copy(v, "from_ts", root, "first_ts");
    sat_put_copy(v, "to_ts", root, "last_ts");
    sat_put_copy(v, "operations", p->etime, "operations");
    sat_put_copy(v, "connections", p->etime, "connections");
    sat_put_copy(v, "etime_mean_s", p->etime, "operation_stats.etime_mean_s");
    sat_put_copy(v, "wtime_mean_s", p->etime, "operation_stats.wtime_mean_s");
    if (p->http_etime) {
        const sat_rnode *h = p->http_etime;
        sat_put_copy(v, "requests", h, "requests");
        double ce = sat_get_num(h, "request_stats.client_errors", NAN), se = sat_get_num(h, "request_stats.server_errors", NAN);
        if (isfinite(ce) && isfinite(se))
            sat_put_count(v, "request_errors", (uint64_t)(ce + se));
        sat_put_copy(v, "server_errors", h, "request_stats.server_errors");
        /* what the format does not log is left out (the sections below say so) */
        if (isfinite(sat_get_num(h, "request_stats.first_requests", NAN)))
            sat_put_copy(v, "connections_opened", h, "request_stats.first_requests");
        if (isfinite(sat_get_num(h, "request_stats.response_time_mean_s", NAN)))
            sat_put_copy(v, "response_time_mean_s", h, "request_stats.response_time_mean_s");
        if (isfinite(sat_get_num(h, "request_stats.upstream_mean_s", NAN)))
            sat_put_copy(v, "upstream_mean_s", h, "request_stats.upstream_mean_s");
    }
    sat_put_copy(v, "client_failures", p->storms, "events");
    sat_put_count(v, "storm_count", sat_rnode_count(sat_get_table(p->storms, "storms")));
    sat_put_label(v, "storms");
    /* handshakes as the handshakes section counts them: a capture's, else
     * what the access logs tell; none said when no input can tell */
    if (sat_get_count(p->handshakes, "connections", 0))
        sat_put_copy(v, "tls_handshakes", p->handshakes, "connections");
    if (sat_get_count(p->handshakes, "connections", 0))
        sat_put_label(v, "TLS handshakes");
    if (sat_get_has(p->handshakes, "logs.full") && sat_get_has(p->handshakes, "logs.resumed"))
        sat_put_count(v, "tls_handshakes_in_logs", sat_get_count(p->handshakes, "logs.full", 0) +
                                                      sat_get_count(p->handshakes, "logs.resumed", 0));
    if (sat_get_has(p->handshakes, "logs.full") && sat_get_has(p->handshakes, "logs.resumed"))
        sat_put_label(v, "TLS handshakes in logs");
    /* a directory server's log counts its TLS connections, not their resumption */
    if (sat_get_count(p->handshakes, "dirlogs.tls_connections", 0)) {
        sat_put_copy(v, "tls_connections_in_logs", p->handshakes, "dirlogs.tls_connections");
        sat_put_label(v, "TLS connections in logs");
        sat_put_note(v, "resumption not logged by this format");
    }
    sat_put_copy(v, "crash_count", p->crashes, "count");
    if (sat_get_has(p->crashes, "count"))
        sat_put_label(v, "crashes");
}

static void timeline_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "timeline", "Timeline");
    char zone[32];
    rd_fmt_zone(zone, sizeof zone, &p->clock);
    /* the chart's window is its own (chosen for its width) and its title
     * says it: the prose does not name another */
    if (sat_get_has(p->timeline, "window_s"))
        sat_doc_para(s,
                     "Every input on one time axis (%s): %s, latency, concurrency, client "
                     "failures, TLS handshakes and connections; storms shaded, the trigger's "
                     "onset and crashes marked.",
                     zone, !p->http ? "operations" : p->ldap ? "operations and requests" : "requests");
    sat_doc_chart(s, "timeline");
    /* the timeline's counts are of operations and requests alike */
    const char *step;
    const sat_rnode *series = sat_doc_spark_series(p->timeline, &step);
    static const char *const spark[3][3] = {{"operations", "errors", "etime p99"},
                                            {"requests", "errors", "response p99"},
                                            {"ops+reqs", "errors", "etime/resp. p99"}};
    static const char *const cols[3] = {"count", "errors", "p99_s"};
    int kind = !p->http ? 0 : p->ldap ? 2 : 1;
    /* the latency of LDAP operations alone: etime's own windows, the figures
     * `etime --by minute` prints for the same minute */
    char lstep[32];
    const sat_rnode *lseries = kind == 0 ? sat_doc_latency_series(p->etime, p->timeline, lstep,
                                                                   sizeof lstep)
                                         : series;
    for (int i = 0; i < 3; i++) {
        char title[64];
        snprintf(title, sizeof title, "%s per %s", spark[kind][i], i == 2 && kind == 0 ? lstep : step);
        sat_doc_sparkline(s, title, i == 2 ? lseries : series, cols[i], 1);
    }
    pm_embed(p, s, "timeline", p->timeline, timeline_parts);
}

/* A section of the page holding analyzer's parts, or saying it did not run. */
static sat_rnode *analyzer_section(const pm_ctx *p, sat_rnode *page, const char *id,
                                   const char *title, const sat_rnode *root, const char *name)
{
    sat_rnode *s = sat_doc_section(page, id, title);
    if (!root)
        sat_doc_para(s, "The %s analyzer did not run.", name);
    (void)p;
    return s;
}

static void storms_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = analyzer_section(p, page, "storms", "Storms of client failures", p->storms,
                                    "storms");
    pm_embed(p, s, "storms", p->storms, storms_parts);
    /* the storm told first in detail: the timeline over it and a few
     * minutes around, in finer windows than the whole inputs' (chart_timeline.c) */
    if (p->storm && p->timeline)
        sat_doc_chart(s, "storm");
    /* what the server got done around the storm told first */
    if (p->storm && p->timeline) {
        sec_ctx c = {p->clock, NULL, s};
        char what[64];
        snprintf(what, sizeof what, "storm %.0f", sat_get_num(p->storm, "storm", NAN));
        sec_throughput(&c, s, "throughput", what,
                       !p->http ? "operations" : p->ldap ? "operations and requests" : "requests",
                       p->timeline, sat_get_time(p->storm, "start_ts", 0),
                       sat_get_time(p->storm, "end_ts", 0),
                       sat_get_time(p->storm, "trigger.onset_ts", 0));
    }
    /* who used the server during it: its work by filter shape, client, bind
     * DN and base in the storm, not over the whole inputs */
    if (p->storm && p->etime) {
        char id[48];
        snprintf(id, sizeof id, "during_storm_%.0f", sat_get_num(p->storm, "storm", NAN));
        const char *const only[] = {id, NULL};
        pm_embed(p, s, "etime", p->etime, only);
    }
}

static void offenders_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = analyzer_section(p, page, "offenders", "Where the time went", p->etime, "etime");
    if (!p->etime)
        return;
    int ops = sat_rnode_first(sat_get_table(p->etime, "ops")) != NULL;
    if (ops) {
        double total = sat_get_dur(sat_get_row(sat_get_table(p->etime, "ops"), "op", "all"),
                                   "total_s", NAN);
        char tt[64];
        pm_dur(tt, sizeof tt, total);
        sat_doc_para(s,
                     "The server spent %s answering operations (the sum of their etimes, queue "
                     "wait included).",
                     tt);
        sat_doc_chart(s, "distributions");
        pm_embed(p, s, "etime", p->etime,
                 sat_get_count(p->etime, "internal_operations.total", 0) ? etime_internal_parts
                                                                         : etime_parts);
    } else if (p->http_etime) {
        if (!p->ldap) /* the requests' own chart */
            sat_doc_chart(s, "distributions");
        pm_embed(p, s, "etime", p->etime, etime_http_parts);
    } else {
        sat_doc_para(s, "No LDAP operation in the inputs.");
    }
}

/* The answers' result codes and the failed binds (LDAP operations only). */
static void results_section(pm_ctx *p, sat_rnode *page)
{
    if (!p->etime || !sat_rnode_first(sat_get_table(p->etime, "result_codes")))
        return;
    sat_rnode *s = sat_doc_section(page, "results", "Result codes and failed binds");
    const sat_rnode *b = sat_get_obj(p->etime, "binds");
    uint64_t total = sat_get_count(b, "total", 0), failed = sat_get_count(b, "failed", 0);
    uint64_t results = 0;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(p->etime, "result_codes")); r;
         r = sat_rnode_next(r))
        results += sat_get_count(r, "count", 0);
    char share[96] = "";
    if (total) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, 100.0 * (double)failed / (double)total);
        snprintf(share, sizeof share, " (%s%%)", t);
    }
    sat_doc_para(s,
                 "%llu %s answered, by result code (RFC 4511); %llu %s, %llu failed with invalid "
                 "credentials (err=49)%s.",
                 (unsigned long long)results, sat_plural(results, "operation", "operations"),
                 (unsigned long long)total, sat_plural(total, "bind", "binds"),
                 (unsigned long long)failed, share);
    pm_embed(p, s, "etime", p->etime, etime_results_parts);
}

static void handshakes_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = analyzer_section(p, page, "handshakes", "TLS handshakes", p->handshakes,
                                    "handshakes");
    pm_embed(p, s, "handshakes", p->handshakes, NULL);
}

static void crash_section(pm_ctx *p, sat_rnode *page)
{
    size_t n = sat_rnode_count(sat_get_table(p->crashes, "crashes"));
    sat_rnode *s = analyzer_section(p, page, "crash", n > 1 ? "The crashes" : "The crash",
                                    p->crashes, "crashes");
    if (p->crashes && !n)
        sat_doc_para(s, "No crash in the inputs (no core file or backtrace given).");
    pm_embed(p, s, "crashes", p->crashes, crashes_parts);
}

static void capacity_section(pm_ctx *p, sat_rnode *page)
{
    sat_rnode *s = sat_doc_section(page, "capacity", "Capacity");
    if (!p->saturation && !p->cachesize) {
        sat_doc_para(s, "Neither capacity analyzer ran.");
        return;
    }
    /* HTTP logs alone: the entry cache is a directory server's */
    int cache = !(p->http && !p->ldap);
    sat_doc_para(s,
                 cache ? "How much load the server takes before it saturates (the Universal "
                         "Scalability Law fitted to throughput against concurrency, per "
                         "window), and how big the entry cache must be for a hit ratio (the "
                         "miss-ratio curve of the entries the log names)."
                       : "How much load the server takes before it saturates: the Universal "
                         "Scalability Law fitted to throughput (requests answered per second) "
                         "against concurrency (requests in service, by Little's law from their "
                         "response times), per window.");
    sat_doc_chart(s, "capacity");
    pm_embed(p, s, "saturation", p->saturation, saturation_parts);
    if (cache)
        pm_embed(p, s, "cachesize", p->cachesize, cachesize_parts);
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
    pm_findings_ops(&p);
    summary_section(&p, page);
    timeline_section(&p, page);
    storms_section(&p, page);
    offenders_section(&p, page);
    results_section(&p, page);
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
