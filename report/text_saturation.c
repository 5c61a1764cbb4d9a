/*
 * text_saturation.c - the text form of `satscope saturation` (docs/output.md
 * "Text"), read from the result only (analyze/saturation_result.c): what
 * was read, the TLS capacity of captures, the points (per window:
 * concurrency N by Little's law, throughput X, queue wait vs service time,
 * handshakes), the Universal Scalability Law fit and what it means for the
 * admin (where the server peaks, where it runs now, whether the knee was
 * seen or extrapolated), and the what-ifs. Figures in three significant
 * figures and human units.
 */
#include <math.h>
#include <string.h>

#include "satscope/report.h"

static const sat_value *val(const sat_rnode *o, const char *path)
{
    return sat_rnode_value(sat_rnode_get(o, path));
}

static uint64_t count_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v && !v->absent && v->unit == SAT_UNIT_COUNT ? v->v.u : 0;
}

/* A double value (NUMBER, RATE, RATIO, DURATION), NAN when absent. */
static double num_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    if (!v || v->absent)
        return NAN;
    switch (v->unit) {
    case SAT_UNIT_NUMBER:
    case SAT_UNIT_RATE:
    case SAT_UNIT_RATIO:
    case SAT_UNIT_DURATION: return v->v.d;
    default: return NAN;
    }
}

static const char *text_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v && !v->absent && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

/* The value at path in its text form. */
static const char *fv(const sat_rnode *o, const char *path, char *buf, size_t n)
{
    sat_fmt_value(buf, n, val(o, path));
    return buf;
}

/* A number in three significant figures. */
static const char *f3(double v, char *buf, size_t n)
{
    sat_fmt_sig3(buf, n, v);
    return buf;
}

/* "2026-12-01T09:30:18Z" -> "09:30:18Z" (the day is on the line already). */
static const char *clock_of(const char *ts) { return strlen(ts) > 11 ? ts + 11 : ts; }

static void print_capacity(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *c = sat_rnode_get(root, "tls_capacity");
    if (!c)
        return;
    const sat_rnode *cost = sat_rnode_get(root, "cost_per_handshake");
    char st[64], a[64], b[64], x[64], y[64], z[64];
    uint64_t off = count_of(c, "offered"), gave = count_of(c, "gave_up_unanswered"),
             hello = count_of(c, "client_hellos_unanswered"), full = count_of(c, "full"),
             res = count_of(c, "resumed"), fsh = count_of(c, "failed_after_server_hello"),
             nsat = count_of(c, "saturated_windows");
    sat_text_title(t, "TLS capacity (captures, per %s): handshakes answered against connections "
                      "offered", fv(c, "step_s", st, sizeof st));
    sat_text_line(t, "  offered     %llu new %s (first SYNs); %llu never answered before the "
                     "client gave up, %llu %s not answered before it left",
                  (unsigned long long)off, sat_plural(off, "connection", "connections"),
                  (unsigned long long)gave, (unsigned long long)hello,
                  sat_plural(hello, "ClientHello", "ClientHellos"));
    char fshs[160] = "", peak[192] = "";
    if (fsh)
        snprintf(fshs, sizeof fshs, ", %llu failed after the ServerHello, costed as full",
                 (unsigned long long)fsh);
    if (!isnan(num_of(c, "peak_per_s")))
        snprintf(peak, sizeof peak, "; at most %s a second (%s)",
                 f3(num_of(c, "peak_per_s"), a, sizeof a), clock_of(fv(c, "peak_ts", b, sizeof b)));
    uint64_t ans = full + res + fsh;
    sat_text_line(t, "  answered    %llu %s (%llu full, %llu resumed%s)%s", (unsigned long long)ans,
                  sat_plural(ans, "handshake", "handshakes"), (unsigned long long)full,
                  (unsigned long long)res, fshs, peak);
    if (!nsat) {
        sat_text_line(t, "  saturated   never: no connection attempt was turned away");
        return;
    }
    sat_text_line(t, "  saturated   %llu %s turned attempts away, %s .. %s; in them %s "
                     "connections offered a second, %s handshakes answered a second (%s full): "
                     "the rate the server sustained",
                  (unsigned long long)nsat, sat_plural(nsat, "window", "windows"),
                  fv(c, "saturated_first_ts", a, sizeof a),
                  clock_of(fv(c, "saturated_end_ts", b, sizeof b)),
                  f3(num_of(c, "offered_per_s"), x, sizeof x),
                  f3(num_of(c, "sustained_per_s"), y, sizeof y),
                  f3(num_of(c, "sustained_full_per_s"), z, sizeof z));
    char fc[64], rc[64], m[64];
    sat_text_line(t, "  CPU         by the cost model (full %s, resumed %s each): %s CPU s a second",
                  fv(cost, "full_s", fc, sizeof fc), fv(cost, "resumed_s", rc, sizeof rc),
                  f3(num_of(c, "cpu_s_per_s_model"), m, sizeof m));
    if (!isnan(num_of(c, "cost_per_handshake_s_measured")))
        sat_text_line(t, "              measured: 1 / %s a second = %s of a worker per handshake, "
                         "if the handshakes are what held the server back (not, say, a stopped "
                         "process)",
                      y, fv(c, "cost_per_handshake_s_measured", a, sizeof a));
}

/* Whether every answered operation was an HTTP request: the text then says
 * requests and req/s. */
static int http_only(const sat_rnode *root)
{
    uint64_t h = count_of(root, "http_requests");
    return h && h == count_of(root, "answered");
}

static void print_meaning(sat_text *t, const sat_rnode *root, const sat_rnode *u)
{
    int http = http_only(root);
    const char *xu = http ? "req/s" : "ops/s", *cw = http ? "requests" : "operations";
    char xm[64], ns[64], hi[64], raw[64], cap[64];
    f3(num_of(u, "x_max"), xm, sizeof xm);
    f3(num_of(u, "n_star"), ns, sizeof ns);
    f3(num_of(u, "concurrency_max"), hi, sizeof hi);
    f3(num_of(u, "n_star_fitted"), raw, sizeof raw);
    f3(num_of(u, "x_ceiling"), cap, sizeof cap);
    const char *knee = text_of(u, "knee");
    sat_text_title(t, "What it means:");
    if (knee && !strcmp(knee, "observed"))
        sat_text_line(t, "  The server peaks at about %s %s near %s concurrent %s (N*, "
                         "within the observed range): past it, more concurrent work lowers the "
                         "throughput (coherency costs), so queues and timeouts grow fast.",
                      xm, xu, ns, cw);
    else if (knee && !strcmp(knee, "extrapolated"))
        sat_text_line(t, "  The server would peak at about %s %s near %s concurrent %s, "
                         "but that knee is an EXTRAPOLATION: the highest concurrency observed was "
                         "%s. Measure at higher load to confirm it.",
                      xm, xu, ns, cw, hi);
    else if (knee && !strcmp(knee, "too_far"))
        sat_text_line(t, "  The fit puts the knee at N = %s, more than %.0fx the highest "
                         "concurrency observed (%s): too far to extrapolate, so no peak is "
                         "reported. The data do not cover the saturation point.",
                      raw, 4.0 /* analyze_saturation.h SAT_USL_EXTRAPOLATE_MAX */, hi);
    else if (num_of(u, "sigma") >= 0.9)
        sat_text_line(t, "  Throughput did not grow with concurrency (sigma ~ 1): about %s %s "
                         "over the whole range observed. Either the server was at its ceiling "
                         "throughout, or (from a log) the clients' demand, not the server, set the "
                         "throughput: no capacity figure can be read from these points.",
                      cap, xu);
    else if (!isnan(num_of(u, "x_ceiling")))
        sat_text_line(t, "  No retrograde region (kappa ~ 0) within these data: throughput would "
                         "level off towards about %s %s (lambda / sigma) only at concurrency "
                         "far above the highest observed (%s), an extrapolation: the data do not "
                         "reach a knee, so they say no more than that no saturation was seen.",
                      cap, xu, hi);
    else
        sat_text_line(t, "  Throughput grew in proportion to concurrency over the whole range "
                      "observed: no sign of saturation in these data.");
    if (!isnan(num_of(root, "window_s")))
        sat_text_line(t, "  (From logs, X is what the clients asked for: windows far below "
                         "capacity read alike, and one where N rose while X did not is the server "
                         "slowing down or the work getting heavier. Points of a load test, given "
                         "as a CSV, measure capacity directly.)");
    const sat_rnode *now = sat_rnode_get(root, "now");
    double n_now = num_of(now, "concurrency"), n_star = num_of(u, "n_star");
    if (!isnan(n_now)) {
        char nn[64], xn[64], p95[64], share[128] = "";
        if (n_star > 0) {
            char pc[64];
            snprintf(share, sizeof share, ": %s%% of N*", f3(100.0 * n_now / n_star, pc, sizeof pc));
        }
        sat_text_line(t, "  You run at N = %s, X = %s %s (the last window fitted; N p95 %s)%s.",
                      f3(n_now, nn, sizeof nn), f3(num_of(now, "throughput"), xn, sizeof xn), xu,
                      f3(num_of(now, "concurrency_p95"), p95, sizeof p95), share);
    }
}

static void print_fit(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *u = sat_rnode_get(root, "usl");
    const sat_value *ok = val(u, "ok");
    char lo[64], hi[64];
    f3(num_of(u, "concurrency_min"), lo, sizeof lo);
    f3(num_of(u, "concurrency_max"), hi, sizeof hi);
    uint64_t np = count_of(u, "fitted_points");
    if (!ok || !ok->v.i) {
        const char *why = text_of(u, "why");
        sat_text_title(t, "No scalability fit: %s (%llu usable %s).", why ? why : "?",
                       (unsigned long long)np, sat_plural(np, "point", "points"));
        return;
    }
    sat_text_title(t, "Universal Scalability Law fit over %llu %s (N from %s to %s):",
                   (unsigned long long)np, sat_plural(np, "point", "points"), lo, hi);
    sat_text_line(t, "  X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))");
    sat_text_summary(t, u, "sigma,kappa,lambda,r2=R^2", "  ");
    double r2 = num_of(u, "r2");
    if (isnan(r2))
        sat_text_line(t, "  (R^2 undefined: the throughputs were all equal)");
    else if (r2 < 0.5)
        sat_text_line(t, "  (a poor fit: read the figures below with care)");
    print_meaning(t, root, u);
}

static void print_whatif(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *u = sat_rnode_get(root, "usl");
    const sat_value *ok = val(u, "ok");
    if (!ok || !ok->v.i)
        return;
    const sat_rnode *w = sat_rnode_get(root, "whatif");
    const char *xu = http_only(root) ? "req/s" : "ops/s";
    char k[64], l[64], x[64];
    if (!isnan(num_of(w, "cpus"))) {
        /* the factor as given */
        sat_fmt_fixed(k, sizeof k, num_of(w, "cpus"), 3);
        sat_text_title(t, "What if %sx the CPUs: lambda %s %s, peak %s %s at the same N*.", k,
                       f3(num_of(w, "cpus_lambda"), l, sizeof l), xu,
                       f3(num_of(w, "cpus_x_max"), x, sizeof x), xu);
        sat_text_line(t, "  Assumes lambda scales with the CPUs while sigma and kappa stay: an "
                         "upper bound, since contention and coherency costs usually grow with "
                         "cores.");
    }
    if (isnan(num_of(w, "whatif_lambda")))
        return;
    double base = num_of(u, "x_max");
    if (isnan(base))
        base = num_of(u, "x_ceiling");
    double wx = num_of(w, "whatif_x_max");
    char now[64], then[64], xm[64], hp[64], ch[64] = "", fc[64], rc[64];
    if (!isnan(wx) && base > 0)
        snprintf(ch, sizeof ch, ", %+.2f%%", 100.0 * (wx / base - 1.0));
    const sat_rnode *cost = sat_rnode_get(root, "cost_per_handshake");
    sat_text_title(t, "What if the resumed share of TLS handshakes went from %s to %s:",
                   fv(w, "resumed_share", now, sizeof now),
                   fv(w, "whatif_resumed_share", then, sizeof then));
    int http = http_only(root);
    sat_text_line(t, "  lambda %s %s, peak %s %s (now %s%s). %s handshakes per %s, "
                     "full %s and resumed %s of server CPU each, added to %s service "
                     "time (first order).",
                  f3(num_of(w, "whatif_lambda"), l, sizeof l), xu, f3(wx, x, sizeof x), xu,
                  f3(base, xm, sizeof xm), ch, f3(num_of(w, "hs_per_op"), hp, sizeof hp),
                  http ? "request" : "operation",
                  fv(cost, "full_s", fc, sizeof fc), fv(cost, "resumed_s", rc, sizeof rc),
                  http ? "a request's" : "an operation's");
    uint64_t fsh = count_of(w, "hs_failed_after_server_hello");
    if (fsh)
        sat_text_line(t, "  %llu of the handshakes failed after the ServerHello: costed as full "
                         "ones whatever the share (the server had done its part).",
                      (unsigned long long)fsh);
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    char a[64], b[64];
    uint64_t ops = count_of(root, "answered"), added = count_of(root, "measured_points");
    int windows = !isnan(num_of(root, "window_s")), http = http_only(root);
    if (windows || !added)
        sat_text_line(t, "satscope saturation: %llu answered %s, %s .. %s", (unsigned long long)ops,
                      http ? sat_plural(ops, "request", "requests")
                           : sat_plural(ops, "operation", "operations"),
                      fv(root, "first_ts", a, sizeof a),
                      fv(root, "last_ts", b, sizeof b));
    else
        sat_text_line(t, "satscope saturation: %llu measured %s", (unsigned long long)added,
                      sat_plural(added, "point", "points"));
    if (added && windows)
        sat_text_line(t, "  plus %llu measured %s", (unsigned long long)added,
                      sat_plural(added, "point", "points"));
    print_capacity(t, root);
    const sat_rnode *points = sat_rnode_get(root, "points");
    if (!sat_rnode_count(points)) {
        sat_text_title(t, "No answered operation in these inputs: saturation needs LDAP or HTTP");
        sat_text_line(t, "access logs, LDAP captures, or a CSV of concurrency,throughput points.");
        return SAT_OK;
    }
    if (windows && http) {
        uint64_t min_ops = count_of(root, "min_ops");
        uint64_t untimed = ops - count_of(root, "timed");
        sat_text_title(t, "Points, one per %s window", fv(root, "window_s", a, sizeof a));
        sat_text_line(t, "  X = HTTP requests answered per second (every status: a 503 is an "
                         "answer too, a cheap one), N = concurrency by Little's law (their "
                         "summed response time / the window), each in the window of its end. "
                         "The first and last windows count over their part inside the input; "
                         "windows less than half inside it, or with fewer than %llu %s, are not "
                         "fitted.",
                      (unsigned long long)min_ops, sat_plural(min_ops, "request", "requests"));
        if (untimed)
            sat_text_line(t, "  %llu %s no response time logged: counted in X, not in N.",
                          (unsigned long long)untimed, untimed == 1 ? "request had" : "requests had");
        uint64_t nin = count_of(root, "http_inputs.count"),
                 nrt = count_of(root, "http_inputs.without_response_time");
        if (nrt)
            sat_text_line(t, "  %llu of %llu HTTP %s no response time (as nginx combined, "
                             "Apache common and combined): N cannot be measured from %s; "
                             "give a format that logs it (--log-format).",
                          (unsigned long long)nrt, (unsigned long long)nin,
                          nin == 1 ? "input logs" : "inputs log", nrt == 1 ? "it" : "them");
    } else if (windows) {
        uint64_t skipped = count_of(root, "skipped"), min_ops = count_of(root, "min_ops");
        sat_text_title(t, "Points, one per %s window", fv(root, "window_s", a, sizeof a));
        sat_text_line(t, "  X = operations answered per second, N = concurrency by Little's law "
                         "(their summed etime / the window). Internal operations and persistent "
                         "searches are not counted (%llu %s). The first and last windows count "
                         "over their part inside the input; windows less than half inside it, or "
                         "with fewer than %llu %s, are not fitted.",
                      (unsigned long long)skipped, sat_plural(skipped, "row", "rows"),
                      (unsigned long long)min_ops, sat_plural(min_ops, "operation", "operations"));
        double wt = num_of(root, "wtime_mean_s"), ot = num_of(root, "optime_mean_s");
        if (!isnan(wt) && !isnan(ot))
            sat_text_line(t, "  Mean queue wait (wtime) %s vs service (optime) %s: %s.",
                          fv(root, "wtime_mean_s", a, sizeof a),
                          fv(root, "optime_mean_s", b, sizeof b),
                          wt > ot ? "operations waited for a worker longer than they ran (queueing)"
                                  : "the time went to serving, not waiting");
    }
    const sat_rnode *w = sat_rnode_get(root, "whatif");
    int any_hs = count_of(w, "hs_full") + count_of(w, "hs_resumed") > 0;
    if (!windows)
        sat_text_title(t, "Measured points");
    else
        sat_text_line(t, "%s", "");
    sat_text_table(t, points,
                   windows && http ? (any_hs ? "start_ts,answered,throughput,concurrency,hs_full,"
                                               "hs_resumed,used"
                                             : "start_ts,answered,throughput,concurrency,used")
                   : windows ? (any_hs ? "start_ts,answered,throughput,concurrency,wtime_mean_s,"
                                       "optime_mean_s,hs_full,hs_resumed,used"
                                     : "start_ts,answered,throughput,concurrency,wtime_mean_s,"
                                       "optime_mean_s,used")
                           : "concurrency,throughput,used",
                   0, "  ");
    print_fit(t, root);
    print_whatif(t, root);
    return SAT_OK;
}

static const char *const csv_tables[] = {"points", "tls_capacity.windows", NULL};

const sat_text_report sat_text_saturation = {"saturation", render, csv_tables};
