/*
 * chart_rebin.c - windows chosen for the reader (chart_int.h): an analyzer
 * counts in the windows it was asked for (a day in 1 s windows, a storm's
 * table in 10 s ones), a chart draws at most a few hundred across a page,
 * one length for every panel, said once in its title. The points of every
 * series are merged into that length by the series' own rule (ch_merge):
 * counts add up, a rate or a level is averaged over the time, a latency
 * keeps its largest window (a short peak stays seen), a ratio is averaged.
 */
#include <math.h>
#include <stdlib.h>

#include "chart_int.h"

/* Round window lengths, in seconds. */
static const double ladder[] = {1,    2,    5,     10,    20,    30,    60,    120,   300,  600,
                                900,  1800, 3600,  7200,  10800, 21600, 43200, 86400};

double ch_window_for(double span, double src, size_t max)
{
    if (!(src > 0) || !isfinite(src))
        return src;
    if (!(span > 0) || !isfinite(span) || max == 0)
        return src;
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        double w = ladder[i];
        double k = w / src;
        if (w + 1e-9 < src || fabs(k - round(k)) > 1e-6)
            continue; /* windows merge whole: a multiple of the data's */
        if (span / w <= (double)max)
            return w;
    }
    return src * ceil(span / (src * (double)max)); /* past a day: whole data windows */
}

typedef struct xy {
    double x, y;
    size_t i;
} xy;

static int by_x(const void *a, const void *b)
{
    const xy *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The points in time order: a table may hold a window once per server (the
 * storms' windows), whose values then merge into the one window drawn. */
static int sort_points(sat_chart *c, sat_chart_series *s)
{
    int sorted = 1;
    for (size_t i = 1; i < s->n && sorted; i++)
        sorted = !(s->x[i] < s->x[i - 1]);
    if (sorted)
        return SAT_OK;
    xy *v = malloc(s->n * sizeof *v);
    if (!v)
        return c->status = SAT_E_NOMEM;
    for (size_t i = 0; i < s->n; i++)
        v[i] = (xy){s->x[i], s->y[i], i};
    qsort(v, s->n, sizeof *v, by_x);
    for (size_t i = 0; i < s->n; i++)
        s->x[i] = v[i].x, s->y[i] = v[i].y;
    free(v);
    return SAT_OK;
}

/* Merges s in place; a window is [k w, (k + 1) w). */
static void rebin_series(sat_chart_series *s, double w, double from, double end)
{
    if (sort_points(s->panel->chart, s) != SAT_OK)
        return;
    double src = s->width;
    size_t out = 0, i = 0;
    size_t nbins = 0;
    while (i < s->n) {
        double k = floor(s->x[i] / w);
        double sum = 0, max = NAN;
        size_t nfin = 0;
        for (; i < s->n && floor(s->x[i] / w) == k; i++) {
            double y = s->y[i];
            if (!isfinite(y))
                continue;
            sum += y;
            max = nfin == 0 || y > max ? y : max;
            nfin++;
        }
        double v = NAN;
        if (nfin) {
            switch (s->merge) {
            case CH_MERGE_SUM: v = sum; break;
            case CH_MERGE_TIME_MEAN: v = src > 0 ? sum * src / w : sum / (double)nfin; break;
            case CH_MERGE_MAX: v = max; break;
            case CH_MERGE_MEAN: v = sum / (double)nfin; break;
            }
        }
        nbins++;
        double start = k * w;
        /* The window the inputs end inside is left out, not drawn: its counts
         * cover a part of it (the last 2 ms of a day), and drawn over the
         * whole window they read as a drop to zero just before the end. A
         * chart of one window keeps it. */
        if (isfinite(end) && start + w > end + 1e-6 && (nbins > 1 || i < s->n))
            continue;
        if (isfinite(from) && start + w <= from + 1e-6)
            continue; /* before the span drawn */
        s->x[out] = s->style == SAT_SERIES_POINTS ? start + w / 2 : start;
        s->y[out] = v;
        out++;
    }
    s->n = out;
    if (s->style != SAT_SERIES_POINTS)
        s->width = w;
}

void ch_rebin(sat_chart *c, double w, double from, double end)
{
    if (!c || !(w > 0) || !isfinite(w))
        return;
    for (size_t i = 0; i < c->npanels; i++)
        for (size_t k = 0; k < c->panels[i]->nseries; k++) {
            sat_chart_series *s = c->panels[i]->series[k];
            if (s->style != SAT_SERIES_HBARS)
                rebin_series(s, w, from, end);
        }
    c->laid_out = 0;
}
