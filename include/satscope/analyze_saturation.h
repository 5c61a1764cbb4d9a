/*
 * analyze_saturation.h - the saturation analyzer (analyze/saturation*.c,
 * analyze/usl.c), part of analyze.h: throughput against concurrency.
 */
#ifndef SATSCOPE_ANALYZE_SATURATION_H
#define SATSCOPE_ANALYZE_SATURATION_H

#include "satscope/event.h"
#include "satscope/result.h"

/* ---- the saturation analyzer (analyze/saturation.c) --------------------
 * Per window: throughput X (operations answered per second) and concurrency N
 * by Little's law (the answered operations' summed etime / window length),
 * queue wait (wtime) vs service time (optime), and the TLS handshake mix; then
 * the Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N
 * (N-1)) fitted to those points (or to measured points a caller adds, e.g.
 * from a load test's CSV). HTTP requests count as operations answered, their
 * response time as the etime (analyze/saturation.c). */
typedef struct sat_saturation_opts {
    sat_dur_ns window;       /* 0 = 60 s (widened, doubling, past 4096 windows) */
    uint64_t min_ops;        /* windows answering fewer are not points; 0 = 10 */
    double cpus;             /* what-if: K times the CPUs; 0 = none */
    double resumed_share;    /* what-if: resumed share of handshakes, 0..1; < 0 = none */
    double full_cost_us, resumed_cost_us; /* 0 = SAT_HS_*_COST_US_DEFAULT */
} sat_saturation_opts;

enum sat_usl_knee {
    SAT_USL_KNEE_NONE,         /* kappa ~ 0: no retrograde region, no N* */
    SAT_USL_KNEE_OBSERVED,     /* N* within the observed concurrency */
    SAT_USL_KNEE_EXTRAPOLATED, /* N* above it, within SAT_USL_EXTRAPOLATE_MAX x */
    SAT_USL_KNEE_TOO_FAR       /* beyond: N* and X_max not reported */
};
#define SAT_USL_MIN_POINTS 5
#define SAT_USL_EXTRAPOLATE_MAX 4.0

typedef struct sat_usl_fit {
    int ok;                  /* 0: no fit, `why` says why */
    const char *why;         /* static text, NULL when ok */
    double sigma, kappa, lambda; /* contention, coherency, ops/s at N = 1 */
    double n_star, x_max;    /* NAN when none or refused (see knee) */
    double n_star_raw;       /* sqrt((1 - sigma) / kappa) even if refused; NAN if kappa ~ 0 */
    double x_ceiling;        /* lambda / sigma when kappa ~ 0 and sigma > 0, else NAN */
    double r2;               /* NAN when the throughputs are all equal */
    double n_min, n_max;     /* observed concurrency range of the points */
    int knee;                /* enum sat_usl_knee */
    size_t npoints;
    unsigned iterations;
} sat_usl_fit;

/* X(N) of the law; NAN if the denominator is not positive. */
double sat_usl_x(double sigma, double kappa, double lambda, double n);
/* Nonlinear least squares (Levenberg-Marquardt, sigma in [0, 1], kappa >= 0)
 * over `count` points; fills *fit (ok = 0 with why on too few points or too
 * narrow a range of N). Never allocates. */
void sat_usl_fit_points(const double *n, const double *x, size_t count, sat_usl_fit *fit);

typedef struct sat_saturation sat_saturation;
sat_saturation *sat_saturation_create(const sat_saturation_opts *opts); /* NULL: no memory */
sat_event_sink sat_saturation_sink(sat_saturation *s); /* ldap_op, tls_hs, tcp_conn,
                                                          http_req, source rows */
/* A measured point (concurrency, throughput ops/s); SAT_E_USAGE if not finite
 * and positive, SAT_E_NOMEM. At most 100000 are kept. */
int sat_saturation_add_point(sat_saturation *s, double n, double x);
int sat_saturation_finish(sat_saturation *s); /* SAT_OK or SAT_E_NOMEM */
int sat_saturation_merge(sat_saturation *into, const sat_saturation *from);
void sat_saturation_free(sat_saturation *s); /* NULL ok */
/* The finished analyzer's sections (analyze/saturation_result.c), made from
 * its accumulators: the totals, the USL fit, where the server runs now, the
 * what-ifs, the TLS capacity of captures (handshakes answered against
 * connections offered, per second) and the points. SAT_OK or SAT_E_NOMEM. */
int sat_saturation_result(const sat_saturation *s, sat_result *r);

#endif /* SATSCOPE_ANALYZE_SATURATION_H */
