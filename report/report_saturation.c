/*
 * report_saturation.c - the `satscope saturation` report (issue 4): the
 * points (per window: concurrency N by Little's law, throughput X, queue
 * wait vs service time, handshakes), the Universal Scalability Law fit and
 * what it means for the admin (where the server peaks, where it runs now,
 * whether the knee was seen or extrapolated), and the what-ifs. JSON has
 * `usl: {sigma, kappa, lambda, n_star, x_max, r2}` and `points` [{n, x,
 * start_ts (RFC 3339 UTC)}]; CSV is one row per point.
 */
#include <math.h>

#include "render.h"
#include "text_table.h"

static const char *knee_name(int k)
{
    switch (k) {
    case SAT_USL_KNEE_OBSERVED: return "observed";
    case SAT_USL_KNEE_EXTRAPOLATED: return "extrapolated";
    case SAT_USL_KNEE_TOO_FAR: return "too_far";
    default: return "none";
    }
}

static void num(char *b, size_t n, double v, int dec)
{
    if (isfinite(v))
        sat_report_fmt_num(b, n, v, dec);
    else
        snprintf(b, n, "-");
}

/* Significant digits for small coefficients (kappa is often 1e-5). */
static void coef(char *b, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else if (v == 0 || fabs(v) >= 0.01)
        sat_report_fmt_num(b, n, v, 4);
    else
        snprintf(b, n, "%.3e", v);
}

/* Concurrency: 3 decimals, or 3 significant digits below 0.1 (a quiet
 * server runs at N = 0.005). */
static void num_n(char *b, size_t n, double v)
{
    if (isfinite(v) && v > 0 && v < 0.1)
        snprintf(b, n, "%.3g", v);
    else
        num(b, n, v, 3);
}

/* ---- text ------------------------------------------------------------------------------ */
static void print_points(const sat_saturation_view *v, FILE *out, tbl *t)
{
    int any_hs = v->hs_full + v->hs_resumed > 0;
    sat_tbl_init(t, any_hs ? "lrrrrrrrl" : "lrrrrrl");
    const char *h[9] = {"start", "ops", "X ops/s", "N", "wtime ms", "optime ms", "", "", ""};
    if (any_hs) {
        h[6] = "full hs";
        h[7] = "resumed hs";
        h[8] = "fit";
    } else {
        h[6] = "fit";
    }
    sat_tbl_row(t, h);
    for (size_t i = 0; i < v->npoints; i++) {
        const sat_saturation_point *p = &v->points[i];
        char ts[64] = "(measured)", ops[32] = "-", x[32], n[32], w[32], o[32], f[32], r[32];
        if (p->start_ts)
            sat_report_fmt_ts(ts, sizeof ts, p->start_ts);
        if (p->start_ts)
            snprintf(ops, sizeof ops, "%llu", (unsigned long long)p->ops);
        num(x, sizeof x, p->x, 2);
        num_n(n, sizeof n, p->n);
        num(w, sizeof w, p->wtime_mean_s * 1e3, 3);
        num(o, sizeof o, p->optime_mean_s * 1e3, 3);
        snprintf(f, sizeof f, "%llu", (unsigned long long)p->hs_full);
        snprintf(r, sizeof r, "%llu", (unsigned long long)p->hs_resumed);
        const char *used = p->used ? "yes" : "no";
        const char *row[9] = {ts, ops, x, n, w, o, any_hs ? f : used, r, used};
        sat_tbl_row(t, row);
    }
    sat_tbl_print(t, out, "  ");
}

static void print_fit(const sat_saturation_view *v, FILE *out)
{
    const sat_usl_fit *u = &v->usl;
    char lo[32], hi[32];
    num_n(lo, sizeof lo, u->n_min);
    num_n(hi, sizeof hi, u->n_max);
    if (!u->ok) {
        fprintf(out, "\nNo scalability fit: %s (%zu usable points).\n", u->why ? u->why : "?",
                u->npoints);
        return;
    }
    char s[32], k[32], l[32], r2[32], ns[32], xm[32];
    coef(s, sizeof s, u->sigma);
    coef(k, sizeof k, u->kappa);
    num(l, sizeof l, u->lambda, 2);
    num(r2, sizeof r2, u->r2, 4);
    fprintf(out,
            "\nUniversal Scalability Law fit over %zu points (N from %s to %s):\n"
            "  X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))\n"
            "  sigma (contention, serialised share)  %s\n"
            "  kappa (coherency, crosstalk)          %s\n"
            "  lambda (ops/s with one in flight)     %s\n"
            "  R^2                                   %s%s\n",
            u->npoints, lo, hi, s, k, l, r2,
            isfinite(u->r2) ? (u->r2 < 0.5 ? "  (a poor fit: read the figures below with care)"
                                           : "")
                            : "  (the throughputs were all equal)");
    num(ns, sizeof ns, u->n_star, 1);
    num(xm, sizeof xm, u->x_max, 1);
    char raw[32], cap[32];
    num(raw, sizeof raw, u->n_star_raw, 1);
    num(cap, sizeof cap, u->x_ceiling, 1);
    fprintf(out, "\nWhat it means:\n");
    switch (u->knee) {
    case SAT_USL_KNEE_OBSERVED:
        fprintf(out,
                "  The server peaks at about %s ops/s near %s concurrent operations (N*,\n"
                "  within the observed range): past it, more concurrent work lowers the\n"
                "  throughput (coherency costs), so queues and timeouts grow fast.\n",
                xm, ns);
        break;
    case SAT_USL_KNEE_EXTRAPOLATED:
        fprintf(out,
                "  The server would peak at about %s ops/s near %s concurrent operations,\n"
                "  but that knee is an EXTRAPOLATION: the highest concurrency observed was\n"
                "  %s. Measure at higher load to confirm it.\n",
                xm, ns, hi);
        break;
    case SAT_USL_KNEE_TOO_FAR:
        fprintf(out,
                "  The fit puts the knee at N = %s, more than %.0fx the highest concurrency\n"
                "  observed (%s): too far to extrapolate, so no peak is reported. The data\n"
                "  do not cover the saturation point.\n",
                raw, SAT_USL_EXTRAPOLATE_MAX, hi);
        break;
    default:
        if (u->sigma >= 0.9)
            fprintf(out,
                    "  Throughput did not grow with concurrency (sigma ~ 1): about %s ops/s\n"
                    "  over the whole range observed. Either the server was at its ceiling\n"
                    "  throughout, or (from a log) the clients' demand, not the server, set\n"
                    "  the throughput: no capacity figure can be read from these points.\n",
                    cap);
        else if (isfinite(u->x_ceiling))
            fprintf(out,
                    "  No retrograde region (kappa ~ 0) within these data: throughput would\n"
                    "  level off towards about %s ops/s (lambda / sigma) only at concurrency\n"
                    "  far above the highest observed (%s), an extrapolation: the data do not\n"
                    "  reach a knee, so they say no more than that no saturation was seen.\n",
                    cap, hi);
        else
            fprintf(out, "  Throughput grew in proportion to concurrency over the whole range\n"
                         "  observed: no sign of saturation in these data.\n");
        break;
    }
    if (v->window)
        fprintf(out,
                "  (From logs, X is what the clients asked for: windows far below capacity\n"
                "  read alike, and one where N rose while X did not is the server slowing\n"
                "  down or the work getting heavier. Points of a load test, given as a CSV,\n"
                "  measure capacity directly.)\n");
    if (isfinite(v->n_now)) {
        char nn[32], xn[32], p95[32];
        num_n(nn, sizeof nn, v->n_now);
        num(xn, sizeof xn, v->x_now, 2);
        num_n(p95, sizeof p95, v->n_p95);
        fprintf(out, "  You run at N = %s, X = %s ops/s (the last window fitted; N p95 %s)", nn,
                xn, p95);
        if (isfinite(u->n_star) && u->n_star > 0)
            fprintf(out, ": %.1f%% of N*.\n", 100.0 * v->n_now / u->n_star);
        else
            fprintf(out, ".\n");
    }
}

static void print_whatif(const sat_saturation_view *v, FILE *out)
{
    const sat_usl_fit *u = &v->usl;
    if (!u->ok)
        return;
    if (isfinite(v->cpus)) {
        char k[32], l[32], x[32];
        num(k, sizeof k, v->cpus, 2);
        num(l, sizeof l, v->cpus_lambda, 2);
        num(x, sizeof x, v->cpus_x_max, 1);
        fprintf(out,
                "\nWhat if %sx the CPUs: lambda %s ops/s, peak %s ops/s at the same N*.\n"
                "  Assumes lambda scales with the CPUs while sigma and kappa stay: an upper\n"
                "  bound, since contention and coherency costs usually grow with cores.\n",
                k, l, x);
    }
    if (isfinite(v->whatif_lambda)) {
        char now[32], then[32], x[32], xm[32], hp[32], l[32], ch[48] = "";
        num(now, sizeof now, 100 * v->resumed_share, 1);
        num(then, sizeof then, 100 * v->whatif_share, 1);
        num(x, sizeof x, v->whatif_x_max, 1);
        num(xm, sizeof xm, isfinite(u->x_max) ? u->x_max : u->x_ceiling, 1);
        num(hp, sizeof hp, v->hs_per_op, 3);
        num(l, sizeof l, v->whatif_lambda, 2);
        double base = isfinite(u->x_max) ? u->x_max : u->x_ceiling;
        if (isfinite(v->whatif_x_max) && base > 0)
            snprintf(ch, sizeof ch, ", %+.2f%%", 100.0 * (v->whatif_x_max / base - 1.0));
        fprintf(out,
                "\nWhat if the resumed share of TLS handshakes went from %s%% to %s%%:\n"
                "  lambda %s ops/s, peak %s ops/s (now %s%s). %s handshakes per operation,\n"
                "  full %.0f us and resumed %.0f us of server CPU each, added to an\n"
                "  operation's service time (first order).\n",
                now, then, l, x, xm, ch, hp, v->full_cost_us, v->resumed_cost_us);
        if (v->hs_failed_after_server_hello)
            fprintf(out, "  %llu of the handshakes failed after the ServerHello: costed as full\n"
                         "  ones whatever the share (the server had done its part).\n",
                    (unsigned long long)v->hs_failed_after_server_hello);
    }
}

/* What a capture says of the handshakes the server can take. */
static void print_capacity(const sat_hs_capacity *c, double v_full_us, double v_res_us,
                           FILE *out)
{
    if (!c->tcp_conns)
        return;
    char st[32], pk[32] = "-", pt[64] = "";
    num(st, sizeof st, (double)c->step / 1e9, 3);
    if (isfinite(c->peak_rate)) {
        num(pk, sizeof pk, c->peak_rate, 1);
        sat_report_fmt_ts(pt, sizeof pt, c->peak_ts);
    }
    fprintf(out, "\nTLS capacity (captures, per %s s): handshakes answered against connections offered\n", st);
    fprintf(out, "  offered     %llu new connections (first SYNs); %llu never answered before the\n"
                 "              client gave up, %llu ClientHellos not answered before it left\n",
            (unsigned long long)c->offered, (unsigned long long)c->gave_up,
            (unsigned long long)c->hello_unanswered);
    fprintf(out, "  answered    %llu handshakes (%llu full, %llu resumed",
            (unsigned long long)(c->full + c->resumed + c->failed_after_server_hello),
            (unsigned long long)c->full, (unsigned long long)c->resumed);
    if (c->failed_after_server_hello)
        fprintf(out, ", %llu failed after the ServerHello, costed as full",
                (unsigned long long)c->failed_after_server_hello);
    fprintf(out, ")");
    if (pt[0])
        fprintf(out, "; at most %s a second (%s)", pk, pt + 11);
    fprintf(out, "\n");
    if (!c->saturated) {
        fprintf(out, "  saturated   never: no connection attempt was turned away\n");
        return;
    }
    char a[64], b[64], off[32], sus[32], full[32], model[32], bound[32];
    sat_report_fmt_ts(a, sizeof a, c->saturated_first_ts);
    sat_report_fmt_ts(b, sizeof b, c->saturated_end_ts);
    num(off, sizeof off, c->offered_rate, 1);
    num(sus, sizeof sus, c->sustained_rate, 1);
    num(full, sizeof full, c->sustained_full_rate, 1);
    num(model, sizeof model, c->cpu_model, 4);
    fprintf(out, "  saturated   %zu windows turned attempts away, %s .. %s; in them\n"
                 "              %s connections offered a second, %s handshakes answered a second\n"
                 "              (%s full): the rate the server sustained\n",
            c->saturated, a, b + 11, off, sus, full);
    fprintf(out, "  CPU         by the cost model (full %.0f us, resumed %.0f us each): %s CPU s a\n"
                 "              second\n",
            v_full_us, v_res_us, model);
    if (isfinite(c->cost_bound_s)) {
        num(bound, sizeof bound, c->cost_bound_s * 1e3, 3);
        fprintf(out, "              measured: 1 / %s a second = %s ms of a worker per handshake,\n"
                     "              if the handshakes are what held the server back (not, say, a\n"
                     "              stopped process)\n",
                sus, bound);
    }
}

static int render_text(const void *vp, FILE *out)
{
    const sat_saturation_view *v = (const sat_saturation_view *)vp;
    if (v->window) {
        char first[64] = "-", last[64] = "-";
        if (v->first_ts)
            sat_report_fmt_ts(first, sizeof first, v->first_ts);
        if (v->last_ts)
            sat_report_fmt_ts(last, sizeof last, v->last_ts);
        fprintf(out, "satscope saturation: %llu answered operations, %s .. %s\n",
                (unsigned long long)v->ops, first, last);
    } else {
        fprintf(out, "satscope saturation: %llu measured points\n",
                (unsigned long long)v->added);
    }
    if (v->added && v->window)
        fprintf(out, "  plus %llu measured points\n", (unsigned long long)v->added);
    print_capacity(&v->capacity, v->full_cost_us, v->resumed_cost_us, out);
    if (!v->npoints) {
        fprintf(out, "\nNo answered operation in these inputs: saturation needs LDAP access\n"
                     "logs, LDAP captures, or a CSV of concurrency,throughput points.\n");
        return SAT_OK;
    }
    if (v->window) {
        char w[32], o[32];
        num(w, sizeof w, v->wtime_mean_s * 1e3, 3);
        num(o, sizeof o, v->optime_mean_s * 1e3, 3);
        fprintf(out,
                "\nPer %lld s window: X = operations answered per second, N = concurrency\n"
                "by Little's law (their summed etime / the window). Internal operations and\n"
                "persistent searches are not counted (%llu rows). The first and last windows\n"
                "count over their part inside the input; windows less than half inside it,\n"
                "or with fewer than %llu operations, are not fitted.\n",
                (long long)(v->window / 1000000000), (unsigned long long)v->skipped,
                (unsigned long long)v->min_ops);
        if (isfinite(v->wtime_mean_s) && isfinite(v->optime_mean_s))
            fprintf(out, "Mean queue wait (wtime) %s ms vs service (optime) %s ms: %s.\n", w, o,
                    v->wtime_mean_s > v->optime_mean_s
                        ? "operations waited for a worker longer than they ran (queueing)"
                        : "the time went to serving, not waiting");
    }
    fprintf(out, "\n");
    tbl t;
    print_points(v, out, &t);
    print_fit(v, out);
    print_whatif(v, out);
    return t.err ? SAT_E_NOMEM : SAT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */
static void jnum(sat_json *j, const char *k, double v, int dec)
{
    if (isfinite(v))
        sat_json_num(j, k, v, dec);
    else
        sat_json_null(j, k);
}

static int render_json(const void *vp, FILE *out)
{
    const sat_saturation_view *v = (const sat_saturation_view *)vp;
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 3);
    sat_json_document(&j);
    sat_json_u64(&j, "ops", v->ops);
    sat_json_u64(&j, "timed", v->timed);
    sat_json_u64(&j, "skipped", v->skipped);
    sat_json_u64(&j, "measured_points", v->added);
    sat_json_ts(&j, "first", v->first_ts);
    sat_json_ts(&j, "last", v->first_ts ? v->last_ts : 0);
    if (v->window)
        sat_json_num(&j, "window_s", (double)v->window / 1e9, 3);
    else
        sat_json_null(&j, "window_s");
    jnum(&j, "wtime_mean_s", v->wtime_mean_s, 6);
    jnum(&j, "optime_mean_s", v->optime_mean_s, 6);
    const sat_usl_fit *u = &v->usl;
    sat_json_object(&j, "usl");
    jnum(&j, "sigma", u->ok ? u->sigma : NAN, 6);
    if (u->ok && isfinite(u->kappa) && u->kappa != 0 && u->kappa < 1e-3) {
        char b[32];
        snprintf(b, sizeof b, "%.4e", u->kappa);
        /* small coefficients keep their significant digits */
        sat_json_num(&j, "kappa", strtod(b, NULL), 12);
    } else {
        jnum(&j, "kappa", u->ok ? u->kappa : NAN, 6);
    }
    jnum(&j, "lambda", u->ok ? u->lambda : NAN, 4);
    jnum(&j, "n_star", u->n_star, 3);
    jnum(&j, "x_max", u->x_max, 3);
    jnum(&j, "r2", u->ok ? u->r2 : NAN, 4);
    sat_json_bool(&j, "ok", u->ok);
    sat_json_str(&j, "why", u->why);
    sat_json_str(&j, "knee", u->ok ? knee_name(u->knee) : NULL);
    jnum(&j, "n_star_fitted", u->n_star_raw, 3);
    jnum(&j, "x_ceiling", u->x_ceiling, 3);
    sat_json_u64(&j, "points", u->npoints);
    jnum(&j, "n_min", u->n_min, 4);
    jnum(&j, "n_max", u->n_max, 4);
    sat_json_end(&j);
    sat_json_object(&j, "now");
    jnum(&j, "n", v->n_now, 4);
    jnum(&j, "x", v->x_now, 4);
    jnum(&j, "n_p95", v->n_p95, 4);
    sat_json_end(&j);
    sat_json_object(&j, "whatif");
    jnum(&j, "cpus", v->cpus, 3);
    jnum(&j, "cpus_lambda", v->cpus_lambda, 4);
    jnum(&j, "cpus_x_max", v->cpus_x_max, 3);
    sat_json_u64(&j, "hs_full", v->hs_full);
    sat_json_u64(&j, "hs_resumed", v->hs_resumed);
    sat_json_u64(&j, "hs_failed_after_server_hello", v->hs_failed_after_server_hello);
    jnum(&j, "hs_per_op", v->hs_per_op, 4);
    jnum(&j, "resumed_share", v->resumed_share, 4);
    jnum(&j, "whatif_resumed_share", v->whatif_share, 4);
    jnum(&j, "whatif_lambda", v->whatif_lambda, 4);
    jnum(&j, "whatif_x_max", v->whatif_x_max, 3);
    sat_json_end(&j);
    const sat_hs_capacity *c = &v->capacity;
    if (c->tcp_conns) { /* captures only */
        sat_json_object(&j, "tls_capacity");
        sat_json_num(&j, "step_s", (double)c->step / 1e9, 3);
        sat_json_u64(&j, "offered", c->offered);
        sat_json_u64(&j, "gave_up_unanswered", c->gave_up);
        sat_json_u64(&j, "client_hellos_unanswered", c->hello_unanswered);
        sat_json_u64(&j, "full", c->full);
        sat_json_u64(&j, "resumed", c->resumed);
        sat_json_u64(&j, "failed_after_server_hello", c->failed_after_server_hello);
        jnum(&j, "peak_per_s", c->peak_rate, 3);
        sat_json_u64(&j, "saturated_windows", c->saturated);
        sat_json_ts(&j, "saturated_first_ts", c->saturated ? c->saturated_first_ts : 0);
        sat_json_ts(&j, "saturated_end_ts", c->saturated ? c->saturated_end_ts : 0);
        jnum(&j, "offered_per_s", c->offered_rate, 3);
        jnum(&j, "sustained_per_s", c->sustained_rate, 3);
        jnum(&j, "sustained_full_per_s", c->sustained_full_rate, 3);
        jnum(&j, "cpu_s_per_s_model", c->cpu_model, 6);
        jnum(&j, "cost_per_handshake_s_measured", c->cost_bound_s, 6);
        sat_json_end(&j);
    }
    sat_json_array(&j, "points");
    for (size_t i = 0; i < v->npoints; i++) {
        const sat_saturation_point *p = &v->points[i];
        sat_json_object(&j, NULL);
        jnum(&j, "n", p->n, 4);
        jnum(&j, "x", p->x, 4);
        sat_json_ts(&j, "start_ts", p->start_ts);
        sat_json_u64(&j, "ops", p->ops);
        if (p->start_ts)
            sat_json_num(&j, "length_s", p->length_s, 3);
        else
            sat_json_null(&j, "length_s");
        jnum(&j, "wtime_mean_s", p->wtime_mean_s, 6);
        jnum(&j, "optime_mean_s", p->optime_mean_s, 6);
        sat_json_u64(&j, "hs_full", p->hs_full);
        sat_json_u64(&j, "hs_resumed", p->hs_resumed);
        sat_json_bool(&j, "used", p->used);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* ---- CSV ------------------------------------------------------------------------------- */
static int render_csv(const void *vp, FILE *out)
{
    const sat_saturation_view *v = (const sat_saturation_view *)vp;
    static const char *const cols[] = {"start_ts", "concurrency", "throughput", "ops",
                                       "wtime_mean_s", "optime_mean_s", "hs_full", "hs_resumed",
                                       "used", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->npoints; i++) {
        const sat_saturation_point *p = &v->points[i];
        sat_csv_ts(&c, p->start_ts);
        sat_csv_num(&c, p->n, 4);
        sat_csv_num(&c, p->x, 4);
        sat_csv_u64(&c, p->ops);
        sat_csv_num(&c, p->wtime_mean_s, 6);
        sat_csv_num(&c, p->optime_mean_s, 6);
        sat_csv_u64(&c, p->hs_full);
        sat_csv_u64(&c, p->hs_resumed);
        sat_csv_i64(&c, p->used);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

int sat_report_saturation(const sat_saturation *s, int fmt, FILE *out, sat_diag *diag)
{
    return sat_report_render(sat_saturation_get_view(s), fmt, render_text, render_json, render_csv, out, diag);
}
