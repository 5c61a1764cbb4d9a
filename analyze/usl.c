/*
 * usl.c - the Universal Scalability Law and its fit (Gunther, "Guerrilla
 * Capacity Planning", 2007, ch. 4-6), for the saturation analyzer:
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
 */
#include <math.h>
#include <string.h>

#include "satscope/analyze.h"

#define USL_MAX_ITER 300

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
