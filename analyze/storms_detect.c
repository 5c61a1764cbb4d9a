/*
 * storms_detect.c - the storms analyzer's detector: the windows of a series of
 * failure counts that rose above the series' own baseline, as spans.
 *
 * The detector (sat_storms_detect), on x_t = failures in window t:
 *   baseline  mu: the lower median of the first 30 windows (a series shorter
 *             than that starts at the floor below: it has no baseline of its
 *             own, and a capture taken during an incident may be mostly
 *             storm, which the median would take for the usual), then an
 *             EWMA (alpha 1/30) of the windows outside storms, each clipped to
 *             lam0 +- (4 sqrt(lam0) + 1) first, so the first windows of a storm
 *             (before its alarm) barely move it, nor does one empty window
 *             (a gap in the log) make the next normal one look like a burst.
 *             lam0 = max(mu, floor), floor = 0.05 a second of window, at most
 *             0.5 (0.5 per 10 s window, 0.1 per 2 s): a handful of failures
 *             stands out from a baseline of 0 whatever the window.
 *   CUSUM     S_t = max(0, S_{t-1} + x_t ln 2 - lam0): the Poisson log-
 *             likelihood ratio of a doubled rate (lam1 = 2 lam0) against
 *             lam0. An alarm when S_t > H = 6, or (a Shewhart rule beside
 *             the CUSUM, for a burst in one window) when P(X >= x_t) < 1e-5
 *             under Poisson(lam0) and x_t >= 5, or the same of the last three
 *             windows' sum under Poisson(3 lam0) (a burst cut by short
 *             windows: 3 + 3 + 3 in 2 s windows against 0): 7 failures in a window
 *             against a baseline of 0 are a storm, 5 are not. Figures (tests/unit/
 *             test_storms.c, fixed seeds): 0 to 3 false alarms in 5,000
 *             windows of steady Poisson series of means 0 .. 200 (the worst,
 *             3, at a mean of 20: one per 1,700 windows); a doubling of a mean
 *             of 20 found in 1-2 windows; 12 failures in 3 s against 0 found.
 *   extent    the storm starts at the first window of the CUSUM's excursion
 *             (since S was last 0) whose count is above lam0, and runs while
 *             windows are "high" (x > lam0 + 2 sqrt(lam0)), ending after three
 *             windows that are not (a lull of 20 s in a storm of minutes, its
 *             clients between two timeouts, is the same storm); S is then
 *             reset and the baseline resumes.
 *   kept      when it holds >= 5 failures and its peak window is above
 *             lam0 + 3 sqrt(lam0) (a significant window, not only a drift).
 */
#include <math.h>

#include "storms_internal.h"

#define ST_H 6.0
#define ST_ALPHA (1.0 / 30.0)
#define ST_WARM 30
#define ST_GAP 3
#define ST_MIN_EVENTS 5
#define ST_SPIKE_P 1e-5

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* P(X >= x) for X ~ Poisson(lam), summed from x up (the tail is what is
 * small, so no 1 - cdf cancellation). */
static double poisson_sf(uint64_t x, double lam)
{
    if ((double)x <= lam)
        return 1.0; /* not in the upper tail (and the sum below needs decreasing terms) */
    double term = exp(-lam + (double)x * log(lam) - lgamma((double)x + 1.0)), sum = 0.0;
    for (uint64_t k = x; k < x + 1000 && term > sum * 1e-12; k++) {
        sum += term;
        term *= lam / (double)(k + 1);
    }
    return sum;
}

/* A window so far above the baseline that it alarms on its own. */
static int spike(uint64_t x, double lam0)
{
    return x >= ST_MIN_EVENTS && poisson_sf(x, lam0) < ST_SPIKE_P;
}

/* The last three windows together so far above three baselines that they
 * alarm: a burst cut in pieces by windows shorter than it. */
static int burst3(const uint64_t *x, size_t t, double lam0)
{
    if (t < 2)
        return 0;
    uint64_t sum = x[t] + x[t - 1] + x[t - 2];
    return x[t] && sum >= ST_MIN_EVENTS && poisson_sf(sum, 3.0 * lam0) < ST_SPIKE_P;
}

size_t sat_storms_detect(const uint64_t *x, size_t n, double floor, sat_storm_span *spans,
                         size_t cap)
{
    if (!x || !n)
        return 0;
    if (!(floor > 0))
        floor = ST_FLOOR;
    uint64_t warm[ST_WARM];
    size_t nw = n < ST_WARM ? n : ST_WARM;
    memcpy(warm, x, nw * sizeof *warm);
    qsort(warm, nw, sizeof *warm, cmp_u64);
    /* lower median; a series shorter than the warm-up has no baseline of
     * its own (a capture taken during the incident may be mostly storm,
     * and the median would be the storm's level): it is measured against
     * the floor, the next to no failures of a healthy server */
    double mu = n < ST_WARM ? floor : (double)warm[(nw - 1) / 2];
    double s = 0.0;
    size_t found = 0, exc_start = 0;
    const double ln2 = 0.6931471805599453;
    for (size_t t = 0; t < n; t++) {
        double lam0 = mu > floor ? mu : floor;
        double xt = (double)x[t];
        if (s == 0.0)
            exc_start = t;
        s = s + xt * ln2 - lam0;
        if (s < 0)
            s = 0.0;
        if (s <= ST_H && !spike(x[t], lam0) && !burst3(x, t, lam0)) {
            double band = 4.0 * sqrt(lam0) + 1.0;
            double xc = xt > lam0 + band ? lam0 + band : xt < lam0 - band ? lam0 - band : xt;
            mu += ST_ALPHA * (xc - mu);
            continue;
        }
        /* alarm: where it began, then how long it lasts */
        size_t start = exc_start;
        while (start < t && (double)x[start] <= lam0)
            start++;
        double high = lam0 + 2.0 * sqrt(lam0);
        size_t end = t, peak = start, quiet = 0, u = t + 1;
        for (; u < n && quiet < ST_GAP; u++) {
            if ((double)x[u] > high) {
                end = u;
                quiet = 0;
            } else {
                quiet++;
            }
        }
        uint64_t events = 0;
        for (size_t k = start; k <= end; k++) {
            events += x[k];
            if (x[k] > x[peak])
                peak = k;
        }
        if (events >= ST_MIN_EVENTS && (double)x[peak] > lam0 + 3.0 * sqrt(lam0)) {
            if (found < cap) {
                spans[found].start = start;
                spans[found].end = end;
                spans[found].peak = peak;
                spans[found].expected = lam0;
            }
            found++;
        }
        s = 0.0;
        t = end; /* the loop resumes after the storm; the baseline stays frozen */
    }
    return found;
}
