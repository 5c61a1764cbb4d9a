/*
 * chart_data.c - what the data of a chart spans (chart_int.h): each
 * series' bar widths (a window's length, else the spacing of its points),
 * the stacks (a stacked point sits on the earlier stacks at the same x), and
 * the x and y ranges of the panels (value axes from 0 so lengths compare;
 * log axes over the positive values only), and how a value maps onto a
 * frame.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

double ch_map(const ch_axis *a, double v, double from, double len)
{
    if (a->scale == SAT_AXIS_LOG) {
        if (!(v > 0))
            return NAN;
        double l0 = log10(a->lo), l1 = log10(a->hi);
        return from + (log10(v) - l0) / (l1 - l0) * len;
    }
    if (!(a->hi > a->lo))
        return from;
    return from + (v - a->lo) / (a->hi - a->lo) * len;
}

/* The right edge of point i of a bar or step series. */
double ch_bar_right(const sat_chart_series *s, const ch_axis *xa, size_t i)
{
    if (s->style == SAT_SERIES_BARS && s->width == 0 && xa->scale == SAT_AXIS_LOG) {
        if (i + 1 < s->n && s->x[i + 1] > s->x[i])
            return s->x[i + 1];
        if (i > 0 && s->x[i - 1] > 0 && s->x[i] > s->x[i - 1])
            return s->x[i] * (s->x[i] / s->x[i - 1]);
        return s->x[i] * 2;
    }
    return s->x[i] + s->bar_w;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A window's width from the spacing of the points (the smallest gap). */
static double spacing(const sat_chart_series *s)
{
    double best = 0;
    for (size_t i = 1; i < s->n; i++) {
        double d = fabs(s->x[i] - s->x[i - 1]);
        if (d > 0 && (best == 0 || d < best))
            best = d;
    }
    return best > 0 ? best : 1;
}

/* Stacks each side's STACKED series on the earlier ones: the base of a point
 * is the sum of the earlier stacks at the same x. */
static int stack(sat_chart *c, sat_chart_panel *p, int right)
{
    size_t total = 0;
    for (size_t k = 0; k < p->nseries; k++)
        if (p->series[k]->style == SAT_SERIES_STACKED && p->series[k]->right == right)
            total += p->series[k]->n;
    if (!total)
        return SAT_OK;
    double *xs = malloc(total * sizeof *xs), *tops = calloc(total, sizeof *tops);
    if (!xs || !tops) {
        free(xs);
        free(tops);
        return c->status = SAT_E_NOMEM;
    }
    size_t n = 0;
    for (size_t k = 0; k < p->nseries; k++)
        if (p->series[k]->style == SAT_SERIES_STACKED && p->series[k]->right == right)
            for (size_t i = 0; i < p->series[k]->n; i++)
                xs[n++] = p->series[k]->x[i];
    qsort(xs, n, sizeof *xs, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || xs[i] != xs[u - 1])
            xs[u++] = xs[i];
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->style != SAT_SERIES_STACKED || s->right != right)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double *f = bsearch(&s->x[i], xs, u, sizeof *xs, cmp_double);
            size_t at = (size_t)(f - xs);
            s->base[i] = tops[at];
            if (isfinite(s->y[i]))
                tops[at] += s->y[i];
        }
    }
    free(xs);
    free(tops);
    return SAT_OK;
}

void ch_extend(ch_range *r, double v, int log_scale)
{
    if (!isfinite(v) || (log_scale && !(v > 0)))
        return;
    if (!r->any || v < r->lo)
        r->lo = v;
    if (!r->any || v > r->hi)
        r->hi = v;
    r->any = 1;
}

/* Prepares the series (bases, widths) and takes the x ch_range of a panel's
 * series and own annotations into rx. */
int ch_panel_data(sat_chart *c, sat_chart_panel *p, ch_range *rx)
{
    ch_axis *xa = ch_panel_xaxis(p);
    int xlog = xa->scale == SAT_AXIS_LOG;
    p->has_data = 0;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        free(s->base);
        s->base = NULL;
        if (s->n && s->style == SAT_SERIES_STACKED) {
            s->base = calloc(s->n, sizeof *s->base);
            if (!s->base)
                return c->status = SAT_E_NOMEM;
        }
        s->bar_w = s->width > 0 ? s->width : spacing(s);
        if (s->style == SAT_SERIES_HBARS) {
            /* values run along x, from 0, with room for the value after the longest */
            if (s->n)
                p->has_data = 1;
            ch_extend(rx, 0, xlog);
            for (size_t i = 0; i < s->n; i++)
                ch_extend(rx, s->y[i] * 1.12, xlog);
            continue;
        }
        for (size_t i = 0; i < s->n; i++) {
            if (isfinite(s->y[i]))
                p->has_data = 1;
            ch_extend(rx, s->x[i], xlog);
            if (s->style == SAT_SERIES_STACKED || s->style == SAT_SERIES_BARS ||
                s->style == SAT_SERIES_STEP)
                ch_extend(rx, ch_bar_right(s, xa, i), xlog);
        }
    }
    for (size_t k = 0; k < p->nannots; k++)
        if (p->annots[k].kind == CH_A_VLINE || p->annots[k].kind == CH_A_LABEL)
            ch_extend(rx, p->annots[k].x0, xlog);
    SAT_FORWARD_IF_ERROR(stack(c, p, 0));
    return stack(c, p, 1);
}

/* The y ch_range of a side of a panel. */
void ch_panel_yrange(sat_chart_panel *p, int right, ch_axis *a)
{
    ch_range r = {0};
    int ylog = a->scale == SAT_AXIS_LOG;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->right != right)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double y = s->y[i];
            if (s->style == SAT_SERIES_STACKED && s->base && isfinite(y))
                y += s->base[i];
            ch_extend(&r, y, ylog);
        }
    }
    if (!right)
        for (size_t k = 0; k < p->nannots; k++)
            if (p->annots[k].kind == CH_A_HLINE || p->annots[k].kind == CH_A_LABEL)
                ch_extend(&r, p->annots[k].y, ylog);
    if (a->fixed) {
        a->lo = a->flo;
        a->hi = a->fhi;
    } else if (ylog) {
        a->lo = r.any ? r.lo : 1;
        a->hi = r.any ? r.hi : 10;
    } else {
        a->lo = r.any && r.lo < 0 ? r.lo : 0;
        a->hi = r.any && r.hi > a->lo ? r.hi : a->lo + 1;
    }
}

void ch_xrange_finish(ch_axis *a, ch_range *r)
{
    if (a->fixed) {
        a->lo = a->flo;
        a->hi = a->fhi;
        return;
    }
    if (!r->any) {
        a->lo = a->scale == SAT_AXIS_LOG ? 1 : 0;
        a->hi = a->scale == SAT_AXIS_LOG ? 10 : 1;
        return;
    }
    a->lo = r->lo;
    a->hi = r->hi;
    if (a->scale == SAT_AXIS_LINEAR && a->lo > 0)
        a->lo = 0; /* value axes from 0, so lengths compare */
    if (!(a->hi > a->lo))
        a->hi = a->scale == SAT_AXIS_LOG ? a->lo * 10 : a->lo + (a->scale == SAT_AXIS_TIME ? 60 : 1);
}
