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

typedef struct sat_saturation_point {
    sat_ts_ns start_ts;      /* window start; 0 for a measured (added) point */
    double n, x;             /* concurrency, throughput (ops/s) */
    uint64_t ops;            /* answered operations (0 for an added point) */
    double wtime_mean_s, optime_mean_s; /* NAN when not logged */
    uint64_t hs_full, hs_resumed;       /* TLS handshakes in the window */
    double length_s;         /* the window's part inside the operations' span,
                                over which X and N are rates (0 for an added point) */
    int used;                /* 1: in the fit (not: windows less than half inside
                                the span, or with fewer than min_ops operations) */
} sat_saturation_point;

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

/* What a capture says of the TLS handshakes a server can take (saturation.c):
 * per second, connections offered against handshakes answered; a second that
 * turned attempts away (a SYN or ClientHello never answered before the
 * client gave up) is saturated. Rates are per second over those seconds;
 * NAN when none. */
typedef struct sat_hs_second { /* one step of the capture's series */
    sat_ts_ns start_ts;
    uint64_t offered, gave_up, hello_unanswered, full, resumed, failed_after_server_hello;
    int saturated;             /* turned attempts away (gave_up or hello_unanswered) */
} sat_hs_second;

typedef struct sat_hs_capacity {
    uint64_t tcp_conns;        /* tcp_conn rows seen (0: no capture) */
    sat_dur_ns step;           /* 1 s, widened past 4096 windows */
    uint64_t offered;          /* new connections (first SYNs) */
    uint64_t gave_up;          /* of them, never answered before the client gave up */
    uint64_t hello_unanswered; /* ClientHellos not answered before the client left */
    uint64_t full, resumed;    /* handshakes answered */
    uint64_t failed_after_server_hello; /* answered too, then failed: costed as full, in
                                           the sustained and full rates */
    size_t saturated;          /* saturated windows */
    sat_ts_ns saturated_first_ts, saturated_end_ts;
    double offered_rate;       /* connections offered a second, while saturated */
    double sustained_rate, sustained_full_rate; /* handshakes answered a second then */
    double peak_rate;          /* the most answered in one window, a second */
    sat_ts_ns peak_ts;
    double cpu_model;          /* CPU seconds a second they cost, by full/resumed_cost_us */
    double cost_bound_s;       /* 1 / sustained_rate: what each cost one saturated worker */
    const sat_hs_second *seconds; size_t nseconds; /* dense, in time order */
} sat_hs_capacity;

typedef struct sat_saturation_view {
    const sat_saturation_point *points; size_t npoints; /* windows in time order, then added */
    sat_dur_ns window;       /* the step used; 0 when only added points */
    uint64_t min_ops;        /* the option in effect */
    sat_ts_ns first_ts, last_ts;
    uint64_t ops, timed, skipped; /* answered, with a latency, not counted (internal,
                                     persistent, no RESULT) */
    uint64_t added;          /* measured points added */
    uint64_t http_reqs;      /* of ops, HTTP requests (http_req rows) */
    uint64_t http_inputs, http_no_rt; /* HTTP logs read; of them, those whose format logs
                                         no response time (their requests: X, not N) */
    double wtime_mean_s, optime_mean_s; /* NAN if not logged */
    double n_now, x_now;     /* the last full window's (NAN if none) */
    double n_p95;            /* 95th percentile of the points' N (NAN if none) */
    sat_usl_fit usl;
    /* what-if (NAN when not asked or not computable) */
    double cpus, cpus_x_max, cpus_lambda;
    uint64_t hs_full, hs_resumed;
    uint64_t hs_failed_after_server_hello; /* costed as full, outside the share;
                                              among hs_per_op */
    double hs_per_op;        /* handshakes per answered operation */
    double resumed_share, whatif_share, whatif_lambda, whatif_x_max;
    double full_cost_us, resumed_cost_us;
    sat_hs_capacity capacity; /* captures: handshakes answered against offered */
} sat_saturation_view;

typedef struct sat_saturation sat_saturation;
sat_saturation *sat_saturation_create(const sat_saturation_opts *opts); /* NULL: no memory */
sat_event_sink sat_saturation_sink(sat_saturation *s); /* ldap_op, tls_hs, tcp_conn,
                                                          http_req, source rows */
/* A measured point (concurrency, throughput ops/s); SAT_E_USAGE if not finite
 * and positive, SAT_E_NOMEM. At most 100000 are kept. */
int sat_saturation_add_point(sat_saturation *s, double n, double x);
int sat_saturation_finish(sat_saturation *s); /* SAT_OK or SAT_E_NOMEM */
int sat_saturation_merge(sat_saturation *into, const sat_saturation *from);
const sat_saturation_view *sat_saturation_get_view(const sat_saturation *s); /* after finish */
void sat_saturation_free(sat_saturation *s); /* NULL ok */
/* The finished analyzer's sections (analyze/saturation_result.c): the totals,
 * the USL fit, where the server runs now, the what-ifs, the TLS capacity of
 * captures and the points. SAT_OK or SAT_E_NOMEM. */
int sat_saturation_result(const sat_saturation *s, sat_result *r);

#endif /* SATSCOPE_ANALYZE_SATURATION_H */
