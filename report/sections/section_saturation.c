/*
 * section_saturation.c - the sections of the saturation analyzer's result
 * (analyze/saturation_result.c): the TLS capacity of captures, the points
 * (per window: concurrency N by Little's law, throughput X, queue wait vs
 * service time, handshakes; or the measured points of a load test), the
 * Universal Scalability Law fit and what it means for the admin (where the
 * server peaks, where it runs now, whether the knee was seen or
 * extrapolated), and the what-ifs. `satscope saturation` prints them; the
 * post-mortem's "Capacity" takes the fit and its meaning ("usl", "knee").
 * Figures in three significant figures and human units.
 */
#include <string.h>

#include "sections.h"

/* Whether every answered operation was an HTTP request: the text then says
 * requests and req/s. */
static int http_only(const sat_rnode *root)
{
    uint64_t h = sat_get_count(root, "http_requests", 0);
    return h && h == sat_get_count(root, "answered", 0);
}

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    uint64_t ops = sat_get_count(root, "answered", 0),
             added = sat_get_count(root, "measured_points", 0);
    int windows = sat_get_has(root, "window_s");
    if (!windows && added) {
        snprintf(buf, n, "%llu measured %s", (unsigned long long)added,
                 sat_plural(added, "point", "points"));
        return;
    }
    char a[64], b[64], plus[96] = "";
    sec_fmt(c, a, sizeof a, root, "first_ts");
    sec_fmt(c, b, sizeof b, root, "last_ts");
    if (added)
        snprintf(plus, sizeof plus, ", plus %llu measured %s", (unsigned long long)added,
                 sat_plural(added, "point", "points"));
    snprintf(buf, n, "%llu answered %s, %s .. %s%s", (unsigned long long)ops,
             http_only(root) ? sat_plural(ops, "request", "requests")
                             : sat_plural(ops, "operation", "operations"),
             a, b, plus);
}

/* What a capture says of the TLS handshakes the server can take: offered,
 * answered, the seconds that turned attempts away and what they cost. */
static void capacity(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *cap = sat_get_obj(root, "tls_capacity");
    if (!cap)
        return;
    char st[64], a[64], b[64], x[64], y[64], z[64], note[512];
    sec_fmt(c, st, sizeof st, cap, "step_s");
    sat_rnode *s = sec_section(c, parent, "tls_capacity",
                               "TLS capacity (captures, per %s): handshakes answered against "
                               "connections offered", st);
    sat_rnode *v = sat_doc_values(s);
    uint64_t off = sat_get_count(cap, "offered", 0),
             hello = sat_get_count(cap, "client_hellos_unanswered", 0),
             full = sat_get_count(cap, "full", 0), res = sat_get_count(cap, "resumed", 0),
             fsh = sat_get_count(cap, "failed_after_server_hello", 0),
             nsat = sat_get_count(cap, "saturated_windows", 0);
    snprintf(note, sizeof note, "new %s (first SYNs); %llu never answered before the client gave "
                                "up, %llu %s not answered before it left",
             sat_plural(off, "connection", "connections"),
             (unsigned long long)sat_get_count(cap, "gave_up_unanswered", 0),
             (unsigned long long)hello, sat_plural(hello, "ClientHello", "ClientHellos"));
    sec_copy(v, cap, "offered", NULL, NULL);
    sat_put_note(v, note);

    char fshs[160] = "", peak[192] = "";
    if (fsh)
        snprintf(fshs, sizeof fshs, ", %llu failed after the ServerHello, costed as full",
                 (unsigned long long)fsh);
    if (sat_get_has(cap, "peak_per_s")) {
        sat_fmt_sig3(a, sizeof a, sat_get_num(cap, "peak_per_s", NAN));
        sec_fmt(c, b, sizeof b, cap, "peak_ts");
        snprintf(peak, sizeof peak, "; at most %s a second (%s)", a, b);
    }
    uint64_t ans = full + res + fsh;
    snprintf(note, sizeof note, "%s (%llu full, %llu resumed%s)%s",
             sat_plural(ans, "handshake", "handshakes"), (unsigned long long)full,
             (unsigned long long)res, fshs, peak);
    sat_put_count(v, "handshakes_answered", ans);
    sat_put_note(v, note);
    sat_put_label(v, "answered");

    if (!nsat) {
        sec_copy(v, cap, "saturated_windows", NULL, "saturated");
        sat_put_note(v, "no connection attempt was turned away");
        return;
    }
    sec_fmt(c, a, sizeof a, cap, "saturated_first_ts");
    sec_fmt(c, b, sizeof b, cap, "saturated_end_ts");
    sat_fmt_sig3(x, sizeof x, sat_get_num(cap, "offered_per_s", NAN));
    sat_fmt_sig3(y, sizeof y, sat_get_num(cap, "sustained_per_s", NAN));
    sat_fmt_sig3(z, sizeof z, sat_get_num(cap, "sustained_full_per_s", NAN));
    snprintf(note, sizeof note, "%s turned attempts away, %s .. %s; in them %s connections "
                                "offered a second, %s handshakes answered a second (%s full): the "
                                "rate the server sustained",
             sat_plural(nsat, "window", "windows"), a, b, x, y, z);
    sec_copy(v, cap, "saturated_windows", NULL, "saturated");
    sat_put_note(v, note);

    const sat_rnode *cost = sat_get_obj(root, "cost_per_handshake");
    char fc[64], rc[64];
    sec_fmt(c, fc, sizeof fc, cost, "full_s");
    sec_fmt(c, rc, sizeof rc, cost, "resumed_s");
    snprintf(note, sizeof note, "by the cost model (full %s, resumed %s each)", fc, rc);
    sec_copy(v, cap, "cpu_s_per_s_model", NULL, "CPU s a second");
    sat_put_note(v, note);
    if (sat_get_has(cap, "cost_per_handshake_s_measured")) {
        snprintf(note, sizeof note, "of a worker per handshake (1 / %s a second), if the "
                                    "handshakes are what held the server back (not, say, a "
                                    "stopped process)", y);
        sec_copy(v, cap, "cost_per_handshake_s_measured", NULL, "measured cost");
        sat_put_note(v, note);
    }
}

/* How the windows' points were made, in words. */
static void windows_prose(const sat_rnode *root, sat_rnode *s, int http)
{
    uint64_t min_ops = sat_get_count(root, "min_ops", 0);
    if (http) {
        uint64_t untimed = sat_get_count(root, "answered", 0) - sat_get_count(root, "timed", 0);
        uint64_t nin = sat_get_count(root, "http_inputs.count", 0),
                 nrt = sat_get_count(root, "http_inputs.without_response_time", 0);
        sat_doc_para(s, "X = HTTP requests answered per second (every status: a 503 is an answer "
                        "too, a cheap one), N = concurrency by Little's law (their summed "
                        "response time / the window), each in the window of its end. The first "
                        "and last windows count over their part inside the input; windows less "
                        "than half inside it, or with fewer than %llu %s, are not fitted.",
                     (unsigned long long)min_ops, sat_plural(min_ops, "request", "requests"));
        if (untimed)
            sat_doc_para(s, "%llu %s no response time logged: counted in X, not in N.",
                         (unsigned long long)untimed,
                         untimed == 1 ? "request had" : "requests had");
        if (nrt)
            sat_doc_para(s, "%llu of %llu HTTP %s no response time (as nginx combined, Apache "
                            "common and combined): N cannot be measured from %s; give a format "
                            "that logs it (--log-format).",
                         (unsigned long long)nrt, (unsigned long long)nin,
                         nin == 1 ? "input logs" : "inputs log", nrt == 1 ? "it" : "them");
        return;
    }
    uint64_t skipped = sat_get_count(root, "skipped", 0);
    sat_doc_para(s, "X = operations answered per second, N = concurrency by Little's law (their "
                    "summed etime / the window). Internal operations and persistent searches are "
                    "not counted (%llu %s). The first and last windows count over their part "
                    "inside the input; windows less than half inside it, or with fewer than %llu "
                    "%s, are not fitted.",
                 (unsigned long long)skipped, sat_plural(skipped, "row", "rows"),
                 (unsigned long long)min_ops, sat_plural(min_ops, "operation", "operations"));
    double wt = sat_get_dur(root, "wtime_mean_s", NAN), ot = sat_get_dur(root, "optime_mean_s", NAN);
    if (!isnan(wt) && !isnan(ot)) {
        char a[64], b[64];
        sat_fmt_duration(a, sizeof a, wt);
        sat_fmt_duration(b, sizeof b, ot);
        sat_doc_para(s, "Mean queue wait (wtime) %s vs service (optime) %s: %s.", a, b,
                     wt > ot ? "operations waited for a worker longer than they ran (queueing)"
                             : "the time went to serving, not waiting");
    }
}

static void points(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *pts = sat_get_table(root, "points");
    int windows = sat_get_has(root, "window_s"), http = http_only(root);
    sat_rnode *s;
    if (windows) {
        char a[64];
        sec_fmt(c, a, sizeof a, root, "window_s");
        s = sec_section(c, parent, "points", "Points, one per %s window", a);
        windows_prose(root, s, http);
    } else {
        s = sec_section(c, parent, "points", "Measured points");
    }
    const sat_rnode *w = sat_get_obj(root, "whatif");
    int any_hs = sat_get_count(w, "hs_full", 0) + sat_get_count(w, "hs_resumed", 0) > 0;
    const char *cols = "concurrency,throughput,used";
    if (windows && http)
        cols = any_hs ? "start_ts,answered,throughput,concurrency,hs_full,hs_resumed,used"
                      : "start_ts,answered,throughput,concurrency,used";
    else if (windows)
        cols = any_hs ? "start_ts,answered,throughput,concurrency,wtime_mean_s,optime_mean_s,"
                        "hs_full,hs_resumed,used"
                      : "start_ts,answered,throughput,concurrency,wtime_mean_s,optime_mean_s,used";
    sat_doc_table(s, NULL, NULL, pts, cols, 0, NULL, NULL);
}

/* What the fit means: where the server peaks (or why no peak can be read)
 * and where it runs now. */
static void knee(const sec_ctx *c, const sat_rnode *root, const sat_rnode *u, sat_rnode *parent)
{
    sat_rnode *s = sec_section(c, parent, "knee", "What it means:");
    if (!s)
        return;
    int http = http_only(root);
    const char *xu = http ? "req/s" : "ops/s", *cw = http ? "requests" : "operations";
    char xm[64], ns[64], hi[64], raw[64], cap[64];
    sat_fmt_sig3(xm, sizeof xm, sat_get_num(u, "x_max", NAN));
    sat_fmt_sig3(ns, sizeof ns, sat_get_num(u, "n_star", NAN));
    sat_fmt_sig3(hi, sizeof hi, sat_get_num(u, "concurrency_max", NAN));
    sat_fmt_sig3(raw, sizeof raw, sat_get_num(u, "n_star_fitted", NAN));
    sat_fmt_sig3(cap, sizeof cap, sat_get_num(u, "x_ceiling", NAN));
    const char *k = sat_get_text(u, "knee", "");
    const char *unread = sat_get_text(u, "capacity_unread", NULL);
    if (unread) { /* the points fall short of any capacity the fit could give */
        char need[64];
        sat_fmt_sig3(need, sizeof need, sat_get_num(u, "concurrency_needed", NAN));
        sat_doc_para(s, "No capacity figure: %s. The highest concurrency observed was N = %s; "
                        "a figure needs about N = %s or more.",
                     unread, hi, need);
    } else if (!strcmp(k, "observed"))
        sat_doc_para(s, "The server peaks at about %s %s near %s concurrent %s (N*, within the "
                        "observed range): past it, more concurrent work lowers the throughput "
                        "(coherency costs), so queues and timeouts grow fast.",
                     xm, xu, ns, cw);
    else if (!strcmp(k, "extrapolated"))
        sat_doc_para(s, "The server would peak at about %s %s near %s concurrent %s, but that "
                        "knee is an EXTRAPOLATION: the highest concurrency observed was %s. "
                        "Measure at higher load to confirm it.",
                     xm, xu, ns, cw, hi);
    else if (!strcmp(k, "too_far"))
        sat_doc_para(s, "The fit puts the knee at N = %s, more than %.0fx the highest "
                        "concurrency observed (%s): too far to extrapolate, so no peak is "
                        "reported. The data do not cover the saturation point.",
                     raw, sat_get_num(u, "extrapolate_max", NAN), hi);
    else if (sat_get_num(u, "sigma", NAN) >= 0.9)
        sat_doc_para(s, "Throughput did not grow with concurrency (sigma ~ 1): about %s %s over "
                        "the whole range observed. Either the server was at its ceiling "
                        "throughout, or (from a log) the clients' demand, not the server, set "
                        "the throughput: no capacity figure can be read from these points.",
                     cap, xu);
    else if (sat_get_has(u, "x_ceiling"))
        sat_doc_para(s, "No retrograde region (kappa ~ 0) within these data: throughput would "
                        "level off towards about %s %s (lambda / sigma) only at concurrency far "
                        "above the highest observed (%s), an extrapolation: the data do not "
                        "reach a knee, so they say no more than that no saturation was seen.",
                     cap, xu, hi);
    else
        sat_doc_para(s, "Throughput grew in proportion to concurrency over the whole range "
                        "observed: no sign of saturation in these data.");
    if (sat_get_has(root, "window_s"))
        sat_doc_para(s, "(From logs, X is what the clients asked for: windows far below capacity "
                        "read alike, and one where N rose while X did not is the server slowing "
                        "down or the work getting heavier. Points of a load test, given as a "
                        "CSV, measure capacity directly.)");
    const sat_rnode *now = sat_get_obj(root, "now");
    double n_now = sat_get_num(now, "concurrency", NAN), n_star = sat_get_num(u, "n_star", NAN);
    if (!isnan(n_now)) {
        char nn[64], xn[64], p95[64], share[128] = "";
        if (n_star > 0) {
            char pc[64];
            sat_fmt_sig3(pc, sizeof pc, 100.0 * n_now / n_star);
            snprintf(share, sizeof share, ": %s%% of N*", pc);
        }
        sat_fmt_sig3(nn, sizeof nn, n_now);
        sat_fmt_sig3(xn, sizeof xn, sat_get_num(now, "throughput", NAN));
        sat_fmt_sig3(p95, sizeof p95, sat_get_num(now, "concurrency_p95", NAN));
        sat_doc_para(s, "You run at N = %s, X = %s %s (the last window fitted; N p95 %s)%s.", nn,
                     xn, xu, p95, share);
    }
}

/* The fit's parameters, or why there is none; then what it means. */
static void fit(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *u = sat_get_obj(root, "usl");
    uint64_t np = sat_get_count(u, "fitted_points", 0);
    if (sat_get_bool(u, "ok", 0) != 1) {
        char w[64] = "";
        uint64_t min_ops = sat_get_count(root, "min_ops", 0);
        if (sat_get_has(root, "window_s")) /* what makes a point usable */
            snprintf(w, sizeof w, "; windows of %.0f s with at least %llu answered",
                     sat_get_dur(root, "window_s", NAN), (unsigned long long)min_ops);
        sec_section(c, parent, "usl", "No scalability fit: %s (%llu usable %s%s).",
                    sat_get_text(u, "why", "?"), (unsigned long long)np,
                    sat_plural(np, "point", "points"), w);
        return;
    }
    char lo[64], hi[64];
    sat_fmt_sig3(lo, sizeof lo, sat_get_num(u, "concurrency_min", NAN));
    sat_fmt_sig3(hi, sizeof hi, sat_get_num(u, "concurrency_max", NAN));
    sat_rnode *s = sec_section(c, parent, "usl",
                               "Universal Scalability Law fit over %llu %s (N from %s to %s):",
                               (unsigned long long)np, sat_plural(np, "point", "points"), lo, hi);
    sat_doc_para(s, "X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))");
    sat_rnode *v = sat_doc_values(s);
    sec_copy(v, u, "sigma", NULL, NULL);
    sec_copy(v, u, "kappa", NULL, NULL);
    sec_copy(v, u, "lambda", NULL, NULL);
    /* how far to trust the figures, beside the one that says it */
    sec_copy(v, u, "r2", NULL, "R^2");
    double r2 = sat_get_num(u, "r2", NAN);
    if (isnan(r2))
        sat_put_note(v, "undefined: the throughputs were all equal");
    else if (r2 < 0.5)
        sat_put_note(v, "a poor fit: read the figures below with care");
    knee(c, root, u, parent);
}

static void whatif(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *u = sat_get_obj(root, "usl");
    if (sat_get_bool(u, "ok", 0) != 1)
        return;
    const sat_rnode *w = sat_get_obj(root, "whatif");
    int http = http_only(root);
    const char *xu = http ? "req/s" : "ops/s";
    char k[64], l[64], x[64];
    if (sat_get_has(w, "cpus")) {
        sat_fmt_fixed(k, sizeof k, sat_get_num(w, "cpus", NAN), 3); /* the factor as given */
        sat_fmt_sig3(l, sizeof l, sat_get_num(w, "cpus_lambda", NAN));
        sat_fmt_sig3(x, sizeof x, sat_get_num(w, "cpus_x_max", NAN));
        sat_rnode *s = sat_get_has(w, "cpus_x_max")
                           ? sec_section(c, parent, "whatif_cpus",
                                         "What if %sx the CPUs: lambda %s %s, peak %s %s at the "
                                         "same N*.",
                                         k, l, xu, x, xu)
                           : sec_section(c, parent, "whatif_cpus",
                                         "What if %sx the CPUs: lambda %s %s (no peak: these "
                                         "points give no capacity figure).",
                                         k, l, xu);
        sat_doc_para(s, "Assumes lambda scales with the CPUs while sigma and kappa stay: an upper "
                        "bound, since contention and coherency costs usually grow with cores.");
    }
    if (!sat_get_has(w, "whatif_lambda"))
        return;
    double base = sat_get_num(u, "x_max", NAN);
    if (isnan(base))
        base = sat_get_num(u, "x_ceiling", NAN);
    double wx = sat_get_num(w, "whatif_x_max", NAN);
    char now[64], then[64], xm[64], hp[64], ch[64] = "", fc[64], rc[64];
    if (!isnan(wx) && base > 0)
        snprintf(ch, sizeof ch, ", %+.2f%%", 100.0 * (wx / base - 1.0));
    sec_fmt(c, now, sizeof now, w, "resumed_share");
    sec_fmt(c, then, sizeof then, w, "whatif_resumed_share");
    sat_rnode *s = sec_section(c, parent, "whatif_handshakes",
                               "What if the resumed share of TLS handshakes went from %s to %s:",
                               now, then);
    const sat_rnode *cost = sat_get_obj(root, "cost_per_handshake");
    sec_fmt(c, fc, sizeof fc, cost, "full_s");
    sec_fmt(c, rc, sizeof rc, cost, "resumed_s");
    sat_fmt_sig3(l, sizeof l, sat_get_num(w, "whatif_lambda", NAN));
    sat_fmt_sig3(x, sizeof x, wx);
    sat_fmt_sig3(xm, sizeof xm, base);
    sat_fmt_sig3(hp, sizeof hp, sat_get_num(w, "hs_per_op", NAN));
    char peak[192];
    if (isnan(wx) || isnan(base)) /* no capacity figure to scale */
        snprintf(peak, sizeof peak, "no peak: these points give no capacity figure");
    else
        snprintf(peak, sizeof peak, "peak %s %s (now %s%s)", x, xu, xm, ch);
    sat_doc_para(s, "lambda %s %s, %s. %s handshakes per %s, full %s and resumed %s of server CPU "
                    "each, added to %s service time (first order).",
                 l, xu, peak, hp, http ? "request" : "operation", fc, rc,
                 http ? "a request's" : "an operation's");
    uint64_t fsh = sat_get_count(w, "hs_failed_after_server_hello", 0);
    if (fsh)
        sat_doc_para(s, "%llu of the handshakes failed after the ServerHello: costed as full ones "
                        "whatever the share (the server had done its part).",
                     (unsigned long long)fsh);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    capacity(c, root, parent);
    if (!sat_rnode_count(sat_get_table(root, "points"))) {
        sat_rnode *s = sec_section(c, parent, "none", "No answered operation in these inputs");
        sat_doc_para(s, "Saturation needs LDAP or HTTP access logs, LDAP captures, or a CSV of "
                        "concurrency,throughput points.");
        return;
    }
    points(c, root, parent);
    fit(c, root, parent);
    whatif(c, root, parent);
}

static const char *const csv_tables[] = {"points", "tls_capacity.windows", NULL};

const sec_builder sec_saturation = {"saturation", lead, build, csv_tables};
