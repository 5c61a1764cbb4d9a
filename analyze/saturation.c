/*
 * saturation.c - the saturation analyzer (issue 4 "satscope saturation"): how
 * close a server runs to the point where more concurrent work stops buying
 * more throughput.
 *
 * Per window (60 s by default) of ldap_op rows: throughput X = operations
 * answered (a RESULT) per second, and concurrency N by Little's law (N = X R:
 * the answered operations' summed etime divided by the window's length; an
 * operation is counted in the window of its RESULT, so one that spans two
 * windows puts all its time in the second: fine at windows much longer than
 * an etime). Mean wtime (waiting in the work queue) vs optime (being served)
 * says whether the latency is queueing or service. tls_hs rows give the
 * handshake mix for the what-if below.
 *
 * The points (N, X) are fitted with the Universal Scalability Law (Gunther,
 * "Guerrilla Capacity Planning", 2007, ch. 4-6):
 *     X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))
 * lambda: throughput of one operation in flight; sigma: contention (the
 * serialised share, Amdahl); kappa: coherency (crosstalk, making throughput
 * fall past N* = sqrt((1 - sigma) / kappa)). The fit is Levenberg-Marquardt
 * (Marquardt 1963: steps of (J'J + mu diag(J'J)) d = J'r, mu lowered after a
 * step that reduces the squared error, raised after one that does not) with
 * the bounds sigma in [0, 1], kappa >= 0, lambda > 0 kept by clamping each
 * step and freezing a parameter held at its bound by the gradient; several
 * starting points, the best kept. A knee above the observed concurrency is
 * an extrapolation, reported as such up to SAT_USL_EXTRAPOLATE_MAX times the
 * largest N seen, and refused beyond.
 *
 * TLS capacity (captures: tcp_conn and tls_hs rows), per second: the
 * connections offered (first SYNs), the attempts turned away (a SYN never
 * answered before the client gave up, SAT_TCPF_SYN_GAVE_UP, or a ClientHello
 * never answered) and the handshakes the server answered (full, resumed, and
 * those that failed after the ServerHello, which cost a full one; in the
 * second of their ServerHello). A second that turned attempts away is
 * "saturated": the server took all it could, so the handshakes it answered
 * then are the rate it sustains at most, set against the rate offered then.
 * Their CPU: the cost model's (full_cost_us each), and the measured bound
 * 1 / sustained rate (what one worker saturated by them spends on each).
 *
 * Bounded memory: windows widen (doubling) past SAT_WINDOWS_MAX, as in
 * analyze/handshakes.c (the per-second TLS series too); measured points are
 * capped at SAT_ADDED_MAX.
 */
#include <math.h>

#include "satscope/analyze.h"

#include "strtab.h"
#include "winseries.h"

#define SAT_WINDOWS_MAX 4096
#define SAT_ADDED_MAX 100000
#define USL_MAX_ITER 300

typedef struct sat_win {
    uint64_t ops, timed, wt_n, ot_n, hs_full, hs_resumed;
    int64_t etime_ns, wtime_ns, optime_ns; /* sums in ns: merged exactly, in any order */
} sat_win;

typedef struct sat_hs_sec { /* a second (or wider, past SAT_WINDOWS_MAX) of a capture */
    uint64_t offered, gave_up, hello_unanswered, full, resumed;
    uint64_t failed_sh; /* failed after the server's ServerHello: answered at full cost */
} sat_hs_sec;

struct sat_saturation {
    sat_saturation_opts opts;
    sat_dur_ns window;
    sat_strtab windows; /* int64 window index -> sat_win */
    sat_dur_ns hs_step;
    sat_strtab hs_secs; /* int64 index at hs_step -> sat_hs_sec */
    uint64_t tcp_conns;
    sat_ts_ns first_ts, last_ts;
    uint64_t ops, timed, skipped, wt_n, ot_n, hs_full, hs_resumed;
    uint64_t hs_failed_sh; /* failed after the ServerHello: full cost, no share */
    int64_t wtime_ns, optime_ns;
    double *added;      /* n, x pairs */
    size_t nadded, cap_added;
    int nomem;

    sat_saturation_view view;
    sat_saturation_point *vpoints;
    size_t vcap;
};

/* ---- the law and its fit ---------------------------------------------------------- */
double sat_usl_x(double sigma, double kappa, double lambda, double n)
{
    double d = 1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0);
    return d > 0 ? lambda * n / d : NAN;
}

static int point_ok(double n, double x) { return isfinite(n) && isfinite(x) && n > 0 && x >= 0; }

/* Sum of squared residuals; infinity where the law is undefined. */
static double usl_sse(const double p[3], const double *n, const double *x, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++) {
        if (!point_ok(n[i], x[i]))
            continue;
        double f = sat_usl_x(p[1], p[2], p[0], n[i]);
        if (!isfinite(f))
            return INFINITY;
        s += (x[i] - f) * (x[i] - f);
    }
    return s;
}

/* Solves the 3x3 system a d = b by Gaussian elimination with partial
 * pivoting; -1 if singular. */
static int solve3(double a[3][3], double b[3], double d[3])
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 1e-300))
            return -1;
        if (piv != c) {
            for (int k = 0; k < 3; k++) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 2; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < 3; k++)
            s -= a[r][k] * d[k];
        d[r] = s / a[r][r];
    }
    return 0;
}

static void clamp_params(double p[3], double lambda_floor)
{
    if (!(p[0] > lambda_floor))
        p[0] = lambda_floor;
    if (!(p[1] > 0))
        p[1] = 0;
    if (p[1] > 1)
        p[1] = 1;
    if (!(p[2] > 0))
        p[2] = 0;
}

/* One Levenberg-Marquardt descent from p (p = lambda, sigma, kappa); returns
 * the final squared error, p updated. */
static double usl_lm(double p[3], const double *n, const double *x, size_t count,
                     double lambda_floor, unsigned *iters)
{
    double sse = usl_sse(p, n, x, count);
    double mu = 1e-3;
    for (unsigned it = 0; it < USL_MAX_ITER && isfinite(sse); it++) {
        double jtj[3][3] = {{0}}, jtr[3] = {0};
        for (size_t i = 0; i < count; i++) {
            if (!point_ok(n[i], x[i]))
                continue;
            double ni = n[i];
            double d = 1.0 + p[1] * (ni - 1.0) + p[2] * ni * (ni - 1.0);
            double f = p[0] * ni / d;
            double j[3] = {ni / d, -p[0] * ni * (ni - 1.0) / (d * d),
                           -p[0] * ni * ni * (ni - 1.0) / (d * d)};
            double r = x[i] - f;
            for (int a = 0; a < 3; a++) {
                jtr[a] += j[a] * r;
                for (int b = 0; b < 3; b++)
                    jtj[a][b] += j[a] * j[b];
            }
        }
        /* a parameter at its bound that the gradient pushes further out is
         * held there for this step (a projected step would only stall) */
        int frozen[3] = {0, 0, 0};
        frozen[1] = (p[1] <= 0 && jtr[1] < 0) || (p[1] >= 1 && jtr[1] > 0);
        frozen[2] = p[2] <= 0 && jtr[2] < 0;
        int improved = 0;
        while (mu < 1e16) {
            double a[3][3], b[3], d[3] = {0, 0, 0};
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++)
                    a[r][c] = (frozen[r] || frozen[c]) ? (r == c) : jtj[r][c];
                if (!frozen[r])
                    a[r][r] += mu * (jtj[r][r] > 0 ? jtj[r][r] : 1e-12);
                b[r] = frozen[r] ? 0 : jtr[r];
            }
            if (solve3(a, b, d) < 0) {
                mu *= 10;
                continue;
            }
            double q[3] = {p[0] + d[0], p[1] + d[1], p[2] + d[2]};
            clamp_params(q, lambda_floor);
            double s2 = usl_sse(q, n, x, count);
            if (s2 < sse) {
                double rel = (sse - s2) / (sse > 0 ? sse : 1);
                memcpy(p, q, sizeof q);
                sse = s2;
                mu = mu / 10 > 1e-12 ? mu / 10 : 1e-12;
                improved = rel > 1e-12 ? 1 : 2;
                break;
            }
            mu *= 10;
        }
        if (iters)
            (*iters)++;
        if (improved != 1)
            break; /* no step helps any more (or only negligibly): converged */
    }
    return sse;
}

void sat_usl_fit_points(const double *n, const double *x, size_t count, sat_usl_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->sigma = fit->kappa = fit->lambda = NAN;
    fit->n_star = fit->x_max = fit->n_star_raw = fit->x_ceiling = fit->r2 = NAN;
    fit->n_min = fit->n_max = NAN;
    size_t m = 0;
    double nmin = INFINITY, nmax = 0, xsum = 0, lam0 = 0, lam0_any = 0;
    for (size_t i = 0; i < count; i++) {
        if (!point_ok(n[i], x[i]))
            continue;
        m++;
        nmin = n[i] < nmin ? n[i] : nmin;
        nmax = n[i] > nmax ? n[i] : nmax;
        xsum += x[i];
        double e = x[i] / n[i]; /* <= lambda wherever N >= 1 */
        if (n[i] >= 1 && e > lam0)
            lam0 = e;
        if (e > lam0_any)
            lam0_any = e;
    }
    fit->npoints = m;
    if (m) {
        fit->n_min = nmin;
        fit->n_max = nmax;
    }
    if (m < SAT_USL_MIN_POINTS) {
        fit->why = "too few points to fit three parameters (need 5)";
        return;
    }
    if (nmax < nmin * 1.2) {
        fit->why = "the concurrency hardly varied (less than 20% between the points): "
                   "no curve to fit";
        return;
    }
    if (!(lam0 > 0))
        lam0 = lam0_any;
    if (!(lam0 > 0)) {
        fit->why = "no throughput in any point";
        return;
    }
    /* starts: sigma from none to most, kappa putting the knee below, near
     * and far above the observed range, and none */
    static const double sig0[] = {0.0, 0.05, 0.3, 0.9};
    static const double knee0[] = {0.0, 0.5, 2.0, 10.0};
    double best[3] = {lam0, 0, 0}, best_sse = INFINITY;
    double lambda_floor = lam0 * 1e-9;
    for (size_t a = 0; a < sizeof sig0 / sizeof sig0[0]; a++)
        for (size_t b = 0; b < sizeof knee0 / sizeof knee0[0]; b++) {
            double k = knee0[b] > 0 ? (1 - sig0[a]) / (knee0[b] * nmax * knee0[b] * nmax) : 0;
            double p[3] = {lam0, sig0[a], k};
            double s = usl_lm(p, n, x, count, lambda_floor, &fit->iterations);
            if (s < best_sse) {
                best_sse = s;
                memcpy(best, p, sizeof best);
            }
        }
    if (!isfinite(best_sse)) {
        fit->why = "the fit did not converge";
        return;
    }
    fit->ok = 1;
    fit->lambda = best[0];
    fit->sigma = best[1];
    fit->kappa = best[2];
    double mean = xsum / (double)m, sst = 0;
    for (size_t i = 0; i < count; i++)
        if (point_ok(n[i], x[i]))
            sst += (x[i] - mean) * (x[i] - mean);
    fit->r2 = sst > 1e-300 * (double)m ? 1.0 - best_sse / sst : NAN;

    /* kappa ~ 0: its term would not reach 1e-6 of the denominator before
     * thousands of times the observed concurrency */
    int no_kappa = fit->kappa * (1e3 * nmax) * (1e3 * nmax) < 1e-6;
    if (fit->sigma >= 1.0 - 1e-9) {
        fit->knee = SAT_USL_KNEE_NONE; /* throughput never grew with N */
        fit->x_ceiling = fit->lambda;
    } else if (no_kappa) {
        fit->knee = SAT_USL_KNEE_NONE;
        if (fit->sigma > 1e-9)
            fit->x_ceiling = fit->lambda / fit->sigma;
    } else {
        fit->n_star_raw = sqrt((1 - fit->sigma) / fit->kappa);
        if (fit->n_star_raw <= nmax)
            fit->knee = SAT_USL_KNEE_OBSERVED;
        else if (fit->n_star_raw <= SAT_USL_EXTRAPOLATE_MAX * nmax)
            fit->knee = SAT_USL_KNEE_EXTRAPOLATED;
        else
            fit->knee = SAT_USL_KNEE_TOO_FAR;
        if (fit->knee != SAT_USL_KNEE_TOO_FAR) {
            fit->n_star = fit->n_star_raw;
            fit->x_max = sat_usl_x(fit->sigma, fit->kappa, fit->lambda, fit->n_star);
        }
    }
}

/* ---- windows -------------------------------------------------------------------------- */
static void add_win(sat_win *a, const sat_win *b)
{
    a->ops += b->ops;
    a->timed += b->timed;
    a->wt_n += b->wt_n;
    a->ot_n += b->ot_n;
    a->hs_full += b->hs_full;
    a->hs_resumed += b->hs_resumed;
    a->etime_ns += b->etime_ns;
    a->wtime_ns += b->wtime_ns;
    a->optime_ns += b->optime_ns;
}

static void add_win_v(void *into, const void *from)
{
    add_win((sat_win *)into, (const sat_win *)from);
}

static sat_win *win_at(sat_saturation *s, sat_ts_ns ts)
{
    sat_win *w = NULL;
    if (!s->nomem && !(w = (sat_win *)sat_win_at(&s->windows, &s->window, ts, SAT_WINDOWS_MAX,
                                                 sizeof(sat_win), add_win_v)))
        s->nomem = 1;
    return w;
}

static void add_sec_v(void *into, const void *from)
{
    sat_hs_sec *a = (sat_hs_sec *)into;
    const sat_hs_sec *b = (const sat_hs_sec *)from;
    a->offered += b->offered;
    a->gave_up += b->gave_up;
    a->hello_unanswered += b->hello_unanswered;
    a->full += b->full;
    a->resumed += b->resumed;
    a->failed_sh += b->failed_sh;
}

static sat_hs_sec *sec_at(sat_saturation *s, sat_ts_ns ts)
{
    sat_hs_sec *w = NULL;
    if (ts > 0 && !s->nomem &&
        !(w = (sat_hs_sec *)sat_win_at(&s->hs_secs, &s->hs_step, ts, SAT_WINDOWS_MAX,
                                       sizeof(sat_hs_sec), add_sec_v)))
        s->nomem = 1;
    return w;
}

static void note_ts(sat_saturation *s, sat_ts_ns ts)
{
    if (!s->first_ts || ts < s->first_ts)
        s->first_ts = ts;
    if (ts > s->last_ts)
        s->last_ts = ts;
}

/* ---- rows ------------------------------------------------------------------------------ */
/* A handshake that failed after the ServerHello: the server had done the
 * expensive part before the alert (the what-if charges it as full). */
static void note_failed_after_sh(sat_saturation *s, const sat_tls_hs *h)
{
    if (h->ts > 0 && h->outcome == SAT_TLS_FAILED && h->server_hello_ts)
        s->hs_failed_sh++;
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_saturation *s = (sat_saturation *)ctx;
    /* Internal operations run inside their parent's etime; a persistent
     * search stays open for hours by design; neither is load in flight. */
    int answered = op->result_ts_ns > 0 || op->err != SAT_ABSENT;
    if (op->internal_depth > 0 || (op->flags & (SAT_OPF_PERSISTENT | SAT_OPF_UNFINISHED)) ||
        !answered || op->type == SAT_OP_ABANDON || op->type == SAT_OP_UNBIND ||
        op->type == SAT_OP_AUTOBIND) {
        s->skipped++;
        return SAT_OK;
    }
    sat_ts_ns ts = op->result_ts_ns > 0 ? op->result_ts_ns : op->ts_ns;
    if (ts <= 0) {
        s->skipped++;
        return SAT_OK;
    }
    sat_dur_ns et = op->etime;
    if (et < 0 && op->result_ts_ns > 0 && op->ts_ns > 0 && op->result_ts_ns >= op->ts_ns)
        et = op->result_ts_ns - op->ts_ns;
    sat_win *w = win_at(s, ts);
    if (!w)
        return SAT_OK;
    note_ts(s, ts);
    s->ops++;
    w->ops++;
    if (et >= 0) {
        s->timed++;
        w->timed++;
        w->etime_ns += et;
    }
    if (op->wtime >= 0) {
        w->wt_n++;
        w->wtime_ns += op->wtime;
        s->wt_n++;
        s->wtime_ns += op->wtime;
    }
    if (op->optime >= 0) {
        w->ot_n++;
        w->optime_ns += op->optime;
        s->ot_n++;
        s->optime_ns += op->optime;
    }
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_saturation *s = (sat_saturation *)ctx;
    s->tcp_conns++;
    if (c->flags & SAT_TCPF_NO_SYN)
        return SAT_OK; /* opened before the capture: not offered in it */
    sat_hs_sec *w = sec_at(s, c->syn_ts);
    if (w) {
        w->offered++;
        w->gave_up += (c->flags & SAT_TCPF_SYN_GAVE_UP) != 0;
    }
    return SAT_OK;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    note_failed_after_sh((sat_saturation *)ctx, h);
    sat_saturation *s = (sat_saturation *)ctx;
    if (h->ts > 0) { /* answered is answered, whether the ClientHello was seen whole or not */
        /* a handshake that failed after the ServerHello was answered too: the
         * server signed and sent its certificate before the client gave up */
        int answered = h->outcome == SAT_TLS_FULL || h->outcome == SAT_TLS_RESUMED ||
                       (h->outcome == SAT_TLS_FAILED && h->server_hello_ts > 0);
        sat_hs_sec *sw = sec_at(s, answered && h->server_hello_ts > 0 ? h->server_hello_ts : h->ts);
        if (sw) {
            sw->full += h->outcome == SAT_TLS_FULL;
            sw->resumed += h->outcome == SAT_TLS_RESUMED;
            sw->failed_sh += h->outcome == SAT_TLS_FAILED && h->server_hello_ts > 0;
            sw->hello_unanswered += h->outcome == SAT_TLS_INCOMPLETE;
        }
    }
    if (h->ts <= 0 || (h->outcome != SAT_TLS_FULL && h->outcome != SAT_TLS_RESUMED))
        return SAT_OK;
    sat_win *w = win_at(s, h->ts);
    if (!w)
        return SAT_OK;
    if (h->outcome == SAT_TLS_FULL) {
        w->hs_full++;
        s->hs_full++;
    } else {
        w->hs_resumed++;
        s->hs_resumed++;
    }
    return SAT_OK;
}

/* ---- lifecycle ------------------------------------------------------------------------- */
sat_saturation *sat_saturation_create(const sat_saturation_opts *opts)
{
    sat_saturation *s = (sat_saturation *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opts)
        s->opts = *opts;
    if (s->opts.window <= 0)
        s->opts.window = 60 * (sat_dur_ns)1000000000;
    if (!s->opts.min_ops)
        s->opts.min_ops = 10;
    if (s->opts.full_cost_us <= 0)
        s->opts.full_cost_us = SAT_HS_FULL_COST_US_DEFAULT;
    if (s->opts.resumed_cost_us <= 0)
        s->opts.resumed_cost_us = SAT_HS_RESUMED_COST_US_DEFAULT;
    if (!(s->opts.resumed_share >= 0 && s->opts.resumed_share <= 1))
        s->opts.resumed_share = 0;
    s->window = s->opts.window;
    sat_strtab_init(&s->windows, sizeof(sat_win), 0);
    s->hs_step = 1000000000LL;
    sat_strtab_init(&s->hs_secs, sizeof(sat_hs_sec), 0);
    return s;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_saturation_sink(sat_saturation *s)
{
    sat_event_sink k = {s,
                        SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_TLS_HS) |
                            SAT_TABLE_BIT(SAT_TABLE_TCP_CONN),
                        on_row};
    return k;
}

int sat_saturation_add_point(sat_saturation *s, double n, double x)
{
    if (!s || !isfinite(n) || !isfinite(x) || n <= 0 || x < 0)
        return SAT_E_USAGE;
    if (s->nadded >= SAT_ADDED_MAX)
        return SAT_E_LIMIT;
    if (s->nadded == s->cap_added) {
        size_t nc = s->cap_added ? s->cap_added * 2 : 64;
        double *np = (double *)realloc(s->added, nc * 2 * sizeof *np);
        if (!np)
            return SAT_E_NOMEM;
        s->added = np;
        s->cap_added = nc;
    }
    s->added[2 * s->nadded] = n;
    s->added[2 * s->nadded + 1] = x;
    s->nadded++;
    return SAT_OK;
}

int sat_saturation_merge(sat_saturation *into, const sat_saturation *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    if (!into->nomem && sat_win_merge(&into->windows, &into->window, &from->windows,
                                      from->window, SAT_WINDOWS_MAX, sizeof(sat_win), add_win_v) < 0)
        into->nomem = 1;
    if (from->first_ts)
        note_ts(into, from->first_ts);
    if (from->last_ts)
        note_ts(into, from->last_ts);
    into->ops += from->ops;
    into->timed += from->timed;
    into->skipped += from->skipped;
    into->wt_n += from->wt_n;
    into->ot_n += from->ot_n;
    into->wtime_ns += from->wtime_ns;
    into->optime_ns += from->optime_ns;
    into->hs_failed_sh += from->hs_failed_sh;
    into->hs_full += from->hs_full;
    into->hs_resumed += from->hs_resumed;
    into->tcp_conns += from->tcp_conns;
    if (!into->nomem && sat_win_merge(&into->hs_secs, &into->hs_step, &from->hs_secs,
                                      from->hs_step, SAT_WINDOWS_MAX, sizeof(sat_hs_sec),
                                      add_sec_v) < 0)
        into->nomem = 1;
    for (size_t i = 0; i < from->nadded; i++)
        if (sat_saturation_add_point(into, from->added[2 * i], from->added[2 * i + 1]) ==
            SAT_E_NOMEM)
            into->nomem = 1;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The TLS capacity of a capture (see the opening comment). */
static void finish_capacity(const sat_saturation *s, sat_hs_capacity *c)
{
    memset(c, 0, sizeof *c);
    c->tcp_conns = s->tcp_conns;
    c->step = s->hs_step;
    c->offered_rate = c->sustained_rate = c->sustained_full_rate = c->peak_rate = NAN;
    c->cpu_model = c->cost_bound_s = NAN;
    /* full counts the failures after a ServerHello: they cost what a full one does */
    uint64_t sat_off = 0, sat_full = 0, sat_res = 0, peak = 0;
    for (size_t i = 0; i < s->hs_secs.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->hs_secs, i), sizeof k);
        const sat_hs_sec *w = (const sat_hs_sec *)sat_strtab_val(&s->hs_secs, i);
        sat_ts_ns t = k * s->hs_step;
        c->offered += w->offered;
        c->gave_up += w->gave_up;
        c->hello_unanswered += w->hello_unanswered;
        c->full += w->full;
        c->resumed += w->resumed;
        c->failed_after_server_hello += w->failed_sh;
        uint64_t answered = w->full + w->resumed + w->failed_sh;
        if (answered > peak || (answered == peak && peak && t < c->peak_ts)) {
            peak = answered;
            c->peak_ts = t;
        }
        if (!w->gave_up && !w->hello_unanswered)
            continue;
        c->saturated++;
        sat_off += w->offered;
        sat_full += w->full + w->failed_sh;
        sat_res += w->resumed;
        if (!c->saturated_first_ts || t < c->saturated_first_ts)
            c->saturated_first_ts = t;
        if (t + s->hs_step > c->saturated_end_ts)
            c->saturated_end_ts = t + s->hs_step;
    }
    double step_s = (double)s->hs_step / 1e9;
    if (peak)
        c->peak_rate = (double)peak / step_s;
    if (!c->saturated)
        return;
    double len = (double)c->saturated * step_s;
    c->offered_rate = (double)sat_off / len;
    c->sustained_rate = (double)(sat_full + sat_res) / len;
    c->sustained_full_rate = (double)sat_full / len;
    /* CPU seconds a second by the cost model, and the bound the rate itself
     * sets: a server that could answer no more spent 1/rate on each */
    c->cpu_model = ((double)sat_full * s->opts.full_cost_us +
                    (double)sat_res * s->opts.resumed_cost_us) / 1e6 / len;
    if (sat_full + sat_res)
        c->cost_bound_s = 1.0 / c->sustained_rate;
}

int sat_saturation_finish(sat_saturation *s)
{
    if (!s)
        return SAT_E_USAGE;
    sat_saturation_view *v = &s->view;
    memset(v, 0, sizeof *v);
    /* windows in time order (only those with answered operations or
     * handshakes exist in the table), then the added points */
    size_t nw = s->windows.n, np = nw + s->nadded;
    if (np > s->vcap) {
        sat_saturation_point *p =
            (sat_saturation_point *)realloc(s->vpoints, np * sizeof *p);
        if (!p)
            return SAT_E_NOMEM;
        s->vpoints = p;
        s->vcap = np;
    }
    sat_saturation_point *pt = s->vpoints;
    double ws = (double)s->window / 1e9;
    for (size_t i = 0; i < nw; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&s->windows, i), sizeof k);
        const sat_win *w = (const sat_win *)sat_strtab_val(&s->windows, i);
        sat_saturation_point *p = &pt[i];
        memset(p, 0, sizeof *p);
        p->start_ts = k * s->window;
        p->ops = w->ops;
        /* the first and last windows are partly outside the input: their
         * rates are taken over the part inside (a full-window divisor would
         * read them low), and they are fitted only if that is at least half */
        sat_ts_ns lo = p->start_ts > s->first_ts ? p->start_ts : s->first_ts;
        sat_ts_ns hi = p->start_ts + s->window < s->last_ts ? p->start_ts + s->window
                                                            : s->last_ts;
        p->length_s = hi - lo >= s->window / 2 ? (double)(hi - lo) / 1e9 : ws;
        p->used = hi - lo >= s->window / 2;
        p->x = (double)w->ops / p->length_s;
        /* operations without a latency are taken at the window's mean one */
        p->n = w->timed ? (double)w->etime_ns / 1e9 * ((double)w->ops / (double)w->timed) /
                              p->length_s
                        : NAN;
        p->wtime_mean_s = w->wt_n ? (double)w->wtime_ns / 1e9 / (double)w->wt_n : NAN;
        p->optime_mean_s = w->ot_n ? (double)w->optime_ns / 1e9 / (double)w->ot_n : NAN;
        p->hs_full = w->hs_full;
        p->hs_resumed = w->hs_resumed;
    }
    /* sort the windows by start (the table is in first-seen order) */
    for (size_t i = 1; i < nw; i++) {
        sat_saturation_point t = pt[i];
        size_t j = i;
        while (j > 0 && pt[j - 1].start_ts > t.start_ts) {
            pt[j] = pt[j - 1];
            j--;
        }
        pt[j] = t;
    }
    for (size_t i = 0; i < nw; i++)
        pt[i].used = pt[i].used && pt[i].ops >= s->opts.min_ops && isfinite(pt[i].n) &&
                     pt[i].n > 0;
    for (size_t i = 0; i < s->nadded; i++) {
        sat_saturation_point *p = &pt[nw + i];
        memset(p, 0, sizeof *p);
        p->n = s->added[2 * i];
        p->x = s->added[2 * i + 1];
        p->wtime_mean_s = p->optime_mean_s = NAN;
        p->used = 1;
    }
    v->points = pt;
    v->npoints = np;
    v->window = nw ? s->window : 0;
    v->min_ops = s->opts.min_ops;
    v->first_ts = s->first_ts;
    v->last_ts = s->last_ts;
    v->ops = s->ops;
    v->timed = s->timed;
    v->skipped = s->skipped;
    v->added = s->nadded;
    v->wtime_mean_s = s->wt_n ? (double)s->wtime_ns / 1e9 / (double)s->wt_n : NAN;
    v->optime_mean_s = s->ot_n ? (double)s->optime_ns / 1e9 / (double)s->ot_n : NAN;
    v->n_now = v->x_now = v->n_p95 = NAN;
    for (size_t i = nw; i-- > 0;)
        if (pt[i].used) {
            v->n_now = pt[i].n;
            v->x_now = pt[i].x;
            break;
        }

    /* the fit, over the used points: their n (first half) and x (second
     * half) in one scratch array, freed below */
    double *nx = (double *)malloc((np ? np : 1) * 2 * sizeof *nx);
    if (!nx)
        return SAT_E_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < np; i++)
        if (pt[i].used) {
            nx[m] = pt[i].n;
            nx[np + m] = pt[i].x;
            m++;
        }
    sat_usl_fit_points(nx, nx + np, m, &v->usl);
    /* where the server ran: the windows' N only (not measured points) */
    size_t mw = 0;
    for (size_t i = 0; i < nw; i++)
        if (pt[i].used)
            nx[mw++] = pt[i].n;
    if (mw) {
        qsort(nx, mw, sizeof *nx, cmp_double);
        size_t r = (size_t)ceil(0.95 * (double)mw);
        v->n_p95 = nx[(r ? r : 1) - 1];
    }
    free(nx);

    /* what-if: K times the CPUs. The usual assumption: lambda (the rate of
     * one operation in flight) scales with the CPUs while sigma and kappa
     * stay, so N* stays and X_max scales by K: optimistic, since contention
     * and coherency costs tend to grow with the cores. */
    const sat_usl_fit *u = &v->usl;
    double xm = isfinite(u->x_max) ? u->x_max : u->x_ceiling;
    v->cpus = v->cpus_lambda = v->cpus_x_max = NAN;
    if (s->opts.cpus > 0 && u->ok) {
        v->cpus = s->opts.cpus;
        v->cpus_lambda = u->lambda * s->opts.cpus;
        v->cpus_x_max = isfinite(xm) ? xm * s->opts.cpus : NAN;
    }
    /* what-if: another handshake mix. Each answered operation carries
     * hs_per_op handshakes costing full/resumed CPU; changing the resumed
     * share changes the service time of one operation, 1/lambda, by the
     * difference (first order: handshake CPU serialised with the operation's
     * own work), and X_max by the same ratio as lambda. A handshake that
     * failed after the ServerHello costs a full one and is among hs_per_op,
     * but not in the share: whatever the share, it stays a full one (a
     * client that rejects the certificate does not come back resumed). */
    v->hs_full = s->hs_full;
    v->hs_resumed = s->hs_resumed;
    v->hs_failed_after_server_hello = s->hs_failed_sh;
    v->full_cost_us = s->opts.full_cost_us;
    v->resumed_cost_us = s->opts.resumed_cost_us;
    v->hs_per_op = v->resumed_share = v->whatif_share = v->whatif_lambda = v->whatif_x_max =
        NAN;
    uint64_t hs = s->hs_full + s->hs_resumed;
    if (hs) {
        v->resumed_share = (double)s->hs_resumed / (double)hs;
        v->whatif_share = s->opts.resumed_share;
    }
    if (hs && s->ops && u->ok) {
        v->hs_per_op = (double)(hs + s->hs_failed_sh) / (double)s->ops;
        double done_per_op = (double)hs / (double)s->ops;
        double failed_per_op = (double)s->hs_failed_sh / (double)s->ops;
        double cf = s->opts.full_cost_us / 1e6, cr = s->opts.resumed_cost_us / 1e6;
        double now = done_per_op * ((1 - v->resumed_share) * cf + v->resumed_share * cr) +
                     failed_per_op * cf;
        double then = done_per_op * ((1 - v->whatif_share) * cf + v->whatif_share * cr) +
                      failed_per_op * cf;
        double service = 1.0 / u->lambda + then - now;
        if (service > 0) {
            v->whatif_lambda = 1.0 / service;
            v->whatif_x_max = isfinite(xm) ? xm * v->whatif_lambda / u->lambda : NAN;
        }
    }
    finish_capacity(s, &v->capacity);
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_saturation_view *sat_saturation_get_view(const sat_saturation *s)
{
    return s ? &s->view : NULL;
}

void sat_saturation_free(sat_saturation *s)
{
    if (!s)
        return;
    sat_strtab_free(&s->windows);
    sat_strtab_free(&s->hs_secs);
    free(s->added);
    free(s->vpoints);
    free(s);
}
