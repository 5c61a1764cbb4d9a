/*
 * chart_layout.c - where everything of a chart goes, computed once
 * (chart_int.h): the ticks, the margins (from the measured extents of the
 * tick labels), the frames of the panels stacked top to bottom, the
 * legends, and every text with the box it covers (placed by the rule of
 * chart_text.c; the data ranges come from chart_data.c).
 *
 * A page, top to bottom: the title; per panel a header line (its title, then
 * its legend entries flowing to the right and wrapping, then a note), and
 * its frame; for a shared x axis the span and marker labels sit in a strip
 * between the first panel's header and its frame (rows of labels, a label
 * moved down a row when it would overlap one before it), the x ticks under
 * the bottom panel only, and the bands (sources) under the x axis, one row
 * each. The headers and the strip are flowed by chart_header.c.
 */
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"


/* ---- ticks fitted to the room ----------------------------------------------------- */

static double widest_tick(ch_lay *l, const ch_axis *a)
{
    double w = 0;
    for (size_t i = 0; i < a->nticks; i++) {
        if (a->ticks[i].label)
            w = fmax(w, ch_measure(l, a->ticks[i].label, SZ_TICK, 0, 0, NULL, NULL));
        if (a->ticks[i].label2)
            w = fmax(w, ch_measure(l, a->ticks[i].label2, SZ_TICK, 0, 0, NULL, NULL));
    }
    return w;
}

/* x ticks: as many as fit side by side with a gap between their labels. */
static int xticks_fit(ch_lay *l, ch_axis *a, double fw)
{
    if (a->scale == SAT_AXIS_CATEGORY)
        return SAT_OK;
    int target = (int)(fw / 55);
    if (target > 12)
        target = 12;
    if (target < 2)
        target = 2;
    double lo = a->lo, hi = a->hi;
    int expand = !a->fixed && a->scale != SAT_AXIS_TIME;
    for (int tries = 0; tries < 12; tries++) {
        a->lo = lo;
        a->hi = hi;
        SAT_FORWARD_IF_ERROR(ch_axis_ticks(l->c, a, target, expand));
        int fits = 1;
        for (size_t i = 1; i < a->nticks && fits; i++) {
            double x0 = ch_map(a, a->ticks[i - 1].v, 0, fw), x1 = ch_map(a, a->ticks[i].v, 0, fw);
            double w0 = fmax(ch_measure(l, a->ticks[i - 1].label, SZ_TICK, 0, 0, NULL, NULL),
                             a->ticks[i - 1].label2
                                 ? ch_measure(l, a->ticks[i - 1].label2, SZ_TICK, 0, 0, NULL, NULL)
                                 : 0);
            double w1 = fmax(ch_measure(l, a->ticks[i].label, SZ_TICK, 0, 0, NULL, NULL),
                             a->ticks[i].label2
                                 ? ch_measure(l, a->ticks[i].label2, SZ_TICK, 0, 0, NULL, NULL)
                                 : 0);
            if (x1 - x0 < (w0 + w1) / 2 + 8)
                fits = 0;
        }
        if (fits || target <= 2)
            break;
        target = (int)a->nticks - 1 < target - 1 ? (int)a->nticks - 1 : target - 1;
        if (target < 2)
            target = 2;
    }
    return SAT_OK;
}

static int ytarget(double h)
{
    int t = (int)(h / 24);
    return t < 2 ? 2 : t > 8 ? 8 : t;
}

/* ---- horizontal room ------------------------------------------------------------------ */

typedef struct hroom {
    double left, right; /* from the page's edges to the frame */
} hroom;

static int has_y2(const sat_chart_panel *p)
{
    if (!p->y2.set)
        return 0;
    for (size_t k = 0; k < p->nseries; k++)
        if (p->series[k]->right)
            return 1;
    return 0;
}

/* Categories of the panel's HBARS series, in the order first given. */
static int panel_categories(ch_lay *l, sat_chart_panel *p, double maxw)
{
    ch_axis *a = &p->y;
    for (size_t i = 0; i < a->ncats; i++)
        free(a->cats[i]);
    free(a->cats);
    a->cats = NULL;
    a->ncats = 0;
    free(a->cat_text);
    a->cat_text = NULL;
    size_t cap = 0;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->style != SAT_SERIES_HBARS)
            continue;
        free(s->row);
        s->row = calloc(s->n ? s->n : 1, sizeof *s->row);
        if (!s->row)
            return l->c->status = SAT_E_NOMEM;
        for (size_t i = 0; i < s->n; i++) {
            char *fitted = ch_fit_text(l, s->cat[i], SZ_TICK, 0, maxw);
            if (!fitted)
                return l->c->status;
            size_t j = 0;
            while (j < a->ncats && strcmp(a->cats[j], fitted) != 0)
                j++;
            s->row[i] = j;
            if (j < a->ncats) {
                free(fitted);
                continue;
            }
            char **g = ch_grow(l->c, a->cats, &cap, a->ncats + 1, sizeof *g);
            if (!g) {
                free(fitted);
                return l->c->status;
            }
            a->cats = g;
            a->cats[a->ncats++] = fitted;
        }
    }
    a->cat_text = malloc((a->ncats ? a->ncats : 1) * sizeof *a->cat_text);
    if (!a->cat_text)
        return l->c->status = SAT_E_NOMEM;
    for (size_t j = 0; j < a->ncats; j++)
        a->cat_text[j] = -1;
    return SAT_OK;
}

static hroom panel_hroom(ch_lay *l, sat_chart_panel *p)
{
    double lh = ch_line_h(l, SZ_AXIS);
    hroom r = {M_OUT, M_OUT};
    double w = 0;
    if (p->y.scale == SAT_AXIS_CATEGORY) {
        for (size_t i = 0; i < p->y.ncats; i++)
            w = fmax(w, ch_measure(l, p->y.cats[i], SZ_TICK, 0, 0, NULL, NULL));
    } else {
        w = widest_tick(l, &p->y);
    }
    r.left += w + TICK_LEN + 2;
    if (p->y.label && p->y.scale != SAT_AXIS_CATEGORY && p->has_data)
        r.left += lh + GAP;
    if (has_y2(p)) {
        r.right += widest_tick(l, &p->y2) + TICK_LEN + 2;
        if (p->y2.label)
            r.right += lh + GAP;
    }
    return r;
}

/* ---- the whole page -------------------------------------------------------------------------- */

static double xarea_h(ch_lay *l, const ch_axis *a, int zone_label)
{
    double h = TICK_LEN + 2 + ch_line_h(l, SZ_TICK);
    int dates = 0;
    for (size_t i = 0; i < a->nticks; i++)
        dates |= a->ticks[i].label2 != NULL;
    if (dates)
        h += ch_line_h(l, SZ_TICK);
    if (a->label || zone_label)
        h += ch_line_h(l, SZ_AXIS) + 2;
    return h + 2;
}

static void clear_layout(sat_chart *c)
{
    for (size_t i = 0; i < c->ntexts; i++)
        free(c->texts[i].s);
    c->ntexts = 0;
    for (size_t i = 0; i < c->ndropped; i++)
        free(c->dropped[i].s);
    c->ndropped = 0;
    ch_axis_clear_layout(&c->x);
    for (size_t i = 0; i < c->npanels; i++) {
        ch_axis_clear_layout(&c->panels[i]->x);
        ch_axis_clear_layout(&c->panels[i]->y);
        ch_axis_clear_layout(&c->panels[i]->y2);
    }
    for (size_t k = 0; k < c->nannots; k++)
        c->annots[k].text = -1;
}

/* The x axis label: a time axis says its zone. */
static char *x_label(sat_chart *c, const ch_axis *a)
{
    if (a->scale != SAT_AXIS_TIME)
        return ch_strdup(c, a->label);
    char zone[32], buf[256];
    ch_zone_name(zone, sizeof zone, c->tz, c->utc);
    snprintf(buf, sizeof buf, "%s (%s)", a->label ? a->label : "time", zone);
    return ch_strdup(c, buf);
}

/* Texts of a frame's y axes: tick labels, axis labels. */
static void place_y(ch_lay *l, sat_chart_panel *p)
{
    ch_rect *f = &p->frame;
    double asc = ch_ascent(l, SZ_TICK), lh = ch_line_h(l, SZ_AXIS);
    double mid = (asc - ch_line_h(l, SZ_TICK) + asc) / 2; /* baseline offset centring a line on y */
    double tickw = 0;
    if (!p->has_data)
        return;
    if (p->y.scale == SAT_AXIS_CATEGORY) {
        double rowh = p->y.ncats ? f->h / (double)p->y.ncats : f->h;
        for (size_t i = 0; i < p->y.ncats; i++) {
            ch_tspec t = {p->y.cats[i], CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
            int k = ch_place1(l, &t, f->x - TICK_LEN - 2, f->y + rowh * (i + 0.5) + mid, 2);
            if (p->y.cat_text)
                p->y.cat_text[i] = k;
        }
        return;
    }
    tickw = widest_tick(l, &p->y);
    for (size_t i = 0; i < p->y.nticks; i++) {
        double y = f->y + f->h - ch_map(&p->y, p->y.ticks[i].v, 0, f->h);
        ch_tspec t = {p->y.ticks[i].label, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
        ch_place1(l, &t, f->x - TICK_LEN - 2, y + mid, 2);
    }
    if (p->y.label) {
        ch_tspec t = {p->y.label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 1, 1, (int)p->index};
        double desc = lh - ch_ascent(l, SZ_AXIS);
        ch_place1(l, &t, f->x - TICK_LEN - 2 - tickw - GAP - desc, f->y + f->h / 2, 1);
    }
    if (!has_y2(p))
        return;
    double w2 = widest_tick(l, &p->y2);
    for (size_t i = 0; i < p->y2.nticks; i++) {
        double y = f->y + f->h - ch_map(&p->y2, p->y2.ticks[i].v, 0, f->h);
        ch_tspec t = {p->y2.ticks[i].label, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
        ch_place1(l, &t, f->x + f->w + TICK_LEN + 2, y + mid, 0);
    }
    if (p->y2.label) {
        ch_tspec t = {p->y2.label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 1, 1, (int)p->index};
        ch_place1(l, &t, f->x + f->w + TICK_LEN + 2 + w2 + GAP + ch_ascent(l, SZ_AXIS), f->y + f->h / 2, 1);
    }
}

/* Texts under a frame: the x tick labels, their date lines, the axis label.
 * A label at the page's edge is pulled in. */
static double place_x(ch_lay *l, const ch_axis *a, const ch_rect *f, int panel)
{
    double asc = ch_ascent(l, SZ_TICK), lh = ch_line_h(l, SZ_TICK);
    double y = f->y + f->h + TICK_LEN + 2 + asc;
    int dates = 0;
    for (size_t i = 0; i < a->nticks; i++) {
        double x = ch_map(a, a->ticks[i].v, f->x, f->w);
        for (int line = 0; line < 2; line++) {
            const char *s = line ? a->ticks[i].label2 : a->ticks[i].label;
            if (!s)
                continue;
            dates |= line;
            double w = ch_measure(l, s, SZ_TICK, 0, 0, NULL, NULL);
            double x0 = x - w / 2;
            if (x0 < 1)
                x0 = 1;
            if (x0 + w > l->c->w - 1)
                x0 = l->c->w - 1 - w;
            ch_tspec t = {s, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, panel};
            ch_place1(l, &t, x0, y + line * lh, 0);
        }
    }
    double bottom = y + (dates ? lh : 0) + (lh - asc);
    char *label = x_label(l->c, a);
    if (label) {
        ch_tspec t = {label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 0, 1, panel};
        ch_place1(l, &t, f->x + f->w / 2, bottom + 2 + ch_ascent(l, SZ_AXIS), 1);
        bottom += 2 + ch_line_h(l, SZ_AXIS);
        free(label);
    }
    return bottom;
}

/* Labels of a panel's own annotations, inside its frame. */
static void place_panel_annots(ch_lay *l, sat_chart_panel *p)
{
    ch_rect *f = &p->frame;
    ch_axis *xa = ch_panel_xaxis(p);
    double asc = ch_ascent(l, SZ_ANNOT), lh = ch_line_h(l, SZ_ANNOT);
    for (size_t k = 0; k < p->nannots; k++) {
        ch_annot *a = &p->annots[k];
        a->text = -1;
        if (!a->label || !a->label[0])
            continue;
        ch_tspec t = {a->label, a->kind == CH_A_LABEL ? CH_T_POINT : CH_T_LINE, SZ_ANNOT, 0, 0, 0, 0,
                   (int)p->index};
        double xs[6], ys[6];
        int an[6];
        size_t n = 0;
        if (a->kind == CH_A_VLINE) {
            double x = ch_map(xa, a->x0, f->x, f->w);
            for (int r = 0; r < 3; r++) {
                xs[n] = x + 3, ys[n] = f->y + 2 + asc + r * lh, an[n++] = 0;
                xs[n] = x - 3, ys[n] = f->y + 2 + asc + r * lh, an[n++] = 2;
            }
        } else if (a->kind == CH_A_HLINE) {
            double y = f->y + f->h - ch_map(&p->y, a->y, 0, f->h);
            xs[n] = f->x + f->w - 3, ys[n] = y - 2, an[n++] = 2;
            xs[n] = f->x + f->w - 3, ys[n] = y + asc + 2, an[n++] = 2;
            xs[n] = f->x + 3, ys[n] = y - 2, an[n++] = 0;
            xs[n] = f->x + 3, ys[n] = y + asc + 2, an[n++] = 0;
        } else {
            double x = ch_map(xa, a->x0, f->x, f->w), y = f->y + f->h - ch_map(&p->y, a->y, 0, f->h);
            xs[n] = x + 5, ys[n] = y - 4, an[n++] = 0;
            xs[n] = x - 5, ys[n] = y - 4, an[n++] = 2;
            xs[n] = x + 5, ys[n] = y + asc + 4, an[n++] = 0;
            xs[n] = x - 5, ys[n] = y + asc + 4, an[n++] = 2;
            xs[n] = x, ys[n] = y - 6 - lh, an[n++] = 1;
        }
        /* inside the frame only */
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            double w;
            ch_rect b = ch_text_box(l, &t, 0, 0, &w);
            double x0 = xs[i] - (an[i] == 1 ? w / 2 : an[i] == 2 ? w : 0);
            b = ch_text_box(l, &t, x0, ys[i], &w);
            if (b.x >= f->x && b.x + b.w <= f->x + f->w && b.y >= f->y && b.y + b.h <= f->y + f->h) {
                xs[m] = xs[i], ys[m] = ys[i], an[m++] = an[i];
            }
        }
        if (!m) /* no room inside its frame */
            ch_drop(l, &t, xs[0], ys[0], an[0]);
        else
            a->text = ch_place(l, &t, xs, ys, an, m);
    }
}

/* The value at the end of each horizontal bar, in the axis's unit: beside
 * the bar when it fits in the frame, else in white inside the bar's end. */
static void place_bar_values(ch_lay *l, sat_chart_panel *p)
{
    if (p->y.scale != SAT_AXIS_CATEGORY || !p->y.ncats)
        return;
    const ch_rect *f = &p->frame;
    const ch_axis *xa = ch_panel_xaxis(p);
    double rowh = f->h / (double)p->y.ncats, mid = (2 * ch_ascent(l, SZ_ANNOT) - ch_line_h(l, SZ_ANNOT)) / 2;
    size_t nh = 0, me = 0;
    for (size_t k = 0; k < p->nseries; k++)
        nh += p->series[k]->style == SAT_SERIES_HBARS;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->style != SAT_SERIES_HBARS || !s->row)
            continue;
        double th = rowh * 0.72 / (double)nh;
        free(s->vtext);
        s->vtext = malloc((s->n ? s->n : 1) * sizeof *s->vtext);
        if (!s->vtext) {
            l->c->status = SAT_E_NOMEM;
            return;
        }
        for (size_t i = 0; i < s->n; i++) {
            s->vtext[i] = -1;
            if (!isfinite(s->y[i]))
                continue;
            char v[64];
            ch_tick_label(v, sizeof v, xa->unit, s->y[i]);
            ch_tspec t = {v, CH_T_VALUE, SZ_ANNOT, 0, 0, 0, 1, (int)p->index};
            double x = ch_map(xa, s->y[i], f->x, f->w);
            double y = f->y + rowh * (double)s->row[i] + rowh * 0.14 + th * ((double)me + 0.5) + mid;
            double w = ch_measure(l, v, SZ_ANNOT, 0, 0, NULL, NULL);
            double x0 = ch_map(xa, xa->scale == SAT_AXIS_LOG ? xa->lo : fmax(xa->lo, 0), f->x, f->w);
            if (x + 3 + w <= f->x + f->w) {
                s->vtext[i] = ch_place1(l, &t, x + 3, y, 0);
            } else if (x - 3 - w >= x0) {
                t.grey = 2;
                s->vtext[i] = ch_place1(l, &t, x - 3, y, 2);
            } else {
                ch_drop(l, &t, x + 3, y, 0);
            }
        }
        me++;
    }
}

/* Where a panel's header starts: over its frame, but over its labels too
 * for bars (their frame starts far right of long category labels). */
static double header_x(const sat_chart *c, const sat_chart_panel *p)
{
    return p->y.scale == SAT_AXIS_CATEGORY && !c->shared ? M_OUT : p->frame.x;
}

/* A panel with nothing to draw takes a third of its share of the height:
 * its note needs a line, not a frame as tall as the others. */
static double eff_weight(const sat_chart_panel *p)
{
    return p->has_data ? p->weight : p->weight / 3;
}

static int layout(ch_lay *l)
{
    sat_chart *c = l->c;
    clear_layout(c);
    size_t np = c->npanels;
    if (!np)
        return SAT_OK;
    /* data */
    ch_range shared = {0};
    for (size_t i = 0; i < np; i++) {
        sat_chart_panel *p = c->panels[i];
        ch_range own = {0};
        SAT_FORWARD_IF_ERROR(ch_panel_data(c, p, c->shared ? &shared : &own));
        if (!c->shared) {
            if (!p->x.set)
                p->x.scale = SAT_AXIS_LINEAR;
            ch_xrange_finish(&p->x, &own);
        }
        ch_panel_yrange(p, 0, &p->y);
        if (p->y2.set)
            ch_panel_yrange(p, 1, &p->y2);
        p->show_x = !c->shared || i == np - 1;
    }
    size_t nbands = 0;
    if (c->shared) {
        for (size_t k = 0; k < c->nannots; k++) {
            ch_extend(&shared, c->annots[k].x0, c->x.scale == SAT_AXIS_LOG);
            ch_extend(&shared, c->annots[k].x1, c->x.scale == SAT_AXIS_LOG);
            nbands += c->annots[k].kind == CH_A_BAND;
        }
        ch_xrange_finish(&c->x, &shared);
    }
    double ylo[np > 0 ? np : 1], yhi[np > 0 ? np : 1], y2lo[np > 0 ? np : 1], y2hi[np > 0 ? np : 1];
    for (size_t i = 0; i < np; i++) {
        ylo[i] = c->panels[i]->y.lo, yhi[i] = c->panels[i]->y.hi;
        y2lo[i] = c->panels[i]->y2.lo, y2hi[i] = c->panels[i]->y2.hi;
    }
    double xlo = c->x.lo, xhi = c->x.hi;
    double plo[np > 0 ? np : 1], phi[np > 0 ? np : 1];
    for (size_t i = 0; i < np; i++)
        plo[i] = c->panels[i]->x.lo, phi[i] = c->panels[i]->x.hi;

    double top = M_OUT;
    double est_h = (c->h - 2 * M_OUT) / (double)np * 0.6;
    double heights[np > 0 ? np : 1];
    for (size_t i = 0; i < np; i++)
        heights[i] = est_h;
    int strip_used = 0, max_lines = 1;
    int rows[c->nannots > 0 ? c->nannots : 1];
    double strip_x[c->nannots > 0 ? c->nannots : 1];
    hroom room[np > 0 ? np : 1];
    hroom common = {M_OUT, M_OUT};
    /* two passes: the first from estimated heights, the second from the real ones */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            p->y.lo = ylo[i], p->y.hi = yhi[i];
            p->y2.lo = y2lo[i], p->y2.hi = y2hi[i];
            if (p->y.scale == SAT_AXIS_CATEGORY) {
                SAT_FORWARD_IF_ERROR(panel_categories(l, p, c->w * 0.4));
            } else {
                SAT_FORWARD_IF_ERROR(ch_axis_ticks(c, &p->y, ytarget(heights[i]), !p->y.fixed));
            }
            if (has_y2(p))
                SAT_FORWARD_IF_ERROR(ch_axis_ticks(c, &p->y2, ytarget(heights[i]), !p->y2.fixed));
            if (!p->has_data) { /* an empty frame says so, with no scale */
                ch_axis_clear_layout(&p->y);
                ch_axis_clear_layout(&p->y2);
            }
            room[i] = panel_hroom(l, p);
        }
        common = (hroom){M_OUT, M_OUT};
        for (size_t i = 0; i < np; i++) {
            common.left = fmax(common.left, room[i].left);
            common.right = fmax(common.right, room[i].right);
        }
        /* room for half of an x tick label at the right end */
        common.right = fmax(common.right, M_OUT + 14);
        /* unshared: the panels of one kind (category bars, or value axes)
         * line up with each other */
        double left_of[2] = {M_OUT, M_OUT};
        for (size_t i = 0; i < np; i++) {
            int cat = c->panels[i]->y.scale == SAT_AXIS_CATEGORY;
            left_of[cat] = fmax(left_of[cat], room[i].left);
        }
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            hroom r = c->shared ? common
                                : (hroom){left_of[p->y.scale == SAT_AXIS_CATEGORY], fmax(room[i].right, M_OUT + 14)};
            p->frame.x = r.left;
            p->frame.w = fmax(c->w - r.left - r.right, 10);
            if (!c->shared) {
                p->x.lo = plo[i], p->x.hi = phi[i];
                SAT_FORWARD_IF_ERROR(xticks_fit(l, &p->x, p->frame.w));
            }
        }
        if (c->shared) {
            c->x.lo = xlo, c->x.hi = xhi;
            SAT_FORWARD_IF_ERROR(xticks_fit(l, &c->x, c->panels[0]->frame.w));
        }
        /* vertical */
        top = M_OUT;
        if (c->title)
            top += ch_line_h(l, SZ_TITLE) + 6;
        double fixed = top + M_OUT, wsum = 0;
        double hl = ch_line_h(l, SZ_PANEL) + 2;
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            if (p->show_x)
                fixed += xarea_h(l, ch_panel_xaxis(p), ch_panel_xaxis(p)->scale == SAT_AXIS_TIME);
            if (i + 1 < np)
                fixed += PANEL_GAP;
            wsum += eff_weight(p);
        }
        if (c->shared) {
            strip_used = ch_strip_rows(l, &c->panels[0]->frame, rows, strip_x);
            fixed += strip_used * (ch_line_h(l, SZ_ANNOT) + 1) + (strip_used ? 2 : 0);
            fixed += nbands ? nbands * BAND_ROW + 4 : 0;
        }
        /* a header has the lines it needs, every series named, while the
         * headers take at most half of what is left; on a page too small
         * for that, each has its share (and "+N more" says what is not
         * named) */
        max_lines = 1;
        for (size_t i = 0; i < np; i++)
            if ((int)c->panels[i]->nseries + 2 > max_lines)
                max_lines = (int)c->panels[i]->nseries + 2;
        if (!c->auto_h) {
            double need = 0;
            for (size_t i = 0; i < np; i++) {
                sat_chart_panel *p = c->panels[i];
                need += ch_header_flow(l, p, header_x(c, p), c->w - M_OUT - header_x(c, p), 0, max_lines, 0) * hl;
            }
            int fit = (int)((c->h - fixed) * 0.5 / (double)np / hl);
            if (need > (c->h - fixed) * 0.5 && fit < max_lines)
                max_lines = fit > 1 ? fit : 1;
        }
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            fixed += ch_header_flow(l, p, header_x(c, p), c->w - M_OUT - header_x(c, p), 0, max_lines, 0) * hl + 2;
        }
        if (c->auto_h) {
            double sum = 0;
            for (size_t i = 0; i < np; i++) {
                sat_chart_panel *p = c->panels[i];
                heights[i] = p->y.scale == SAT_AXIS_CATEGORY && p->has_data
                                 ? (double)(p->y.ncats ? p->y.ncats : 1) * ROW_H
                                 : eff_weight(p) * FRAME_H;
                sum += heights[i];
            }
            c->h = ceil(fixed + sum);
            continue;
        }
        double avail = fmax(c->h - fixed, 10.0 * np);
        for (size_t i = 0; i < np; i++)
            heights[i] = avail * eff_weight(c->panels[i]) / wsum;
    }

    /* final places */
    if (c->title) {
        char *title = ch_fit_text(l, c->title, SZ_TITLE, 1, c->w - 2 * M_OUT);
        ch_tspec t = {title, CH_T_TITLE, SZ_TITLE, 1, 0, 0, 0, -1};
        if (title)
            ch_place1(l, &t, M_OUT, M_OUT + ch_ascent(l, SZ_TITLE), 0);
        free(title);
    }
    double y = top;
    double hl = ch_line_h(l, SZ_PANEL) + 2;
    double bottom = y;
    for (size_t i = 0; i < np; i++) {
        sat_chart_panel *p = c->panels[i];
        int lines = ch_header_flow(l, p, header_x(c, p), c->w - M_OUT - header_x(c, p), y + ch_ascent(l, SZ_PANEL),
                                max_lines, 1);
        y += lines * hl + 2;
        if (i == 0 && c->shared) {
            double alh = ch_line_h(l, SZ_ANNOT) + 1;
            c->strip = (ch_rect){p->frame.x, y, p->frame.w, strip_used * alh};
            for (size_t k = 0; k < c->nannots; k++) {
                ch_annot *a = &c->annots[k];
                if (!ch_is_strip(a))
                    continue;
                ch_tspec t = {a->label, a->kind == CH_A_SPAN ? CH_T_SPAN : CH_T_MARKER, SZ_ANNOT, 0, 0, 0, 0, -1};
                double x0 = strip_x[k];
                if (rows[k] < 0) { /* no row had room: listed where the top one is */
                    ch_drop(l, &t, x0, y + ch_ascent(l, SZ_ANNOT), 0);
                    continue;
                }
                double by = y + (strip_used - 1 - rows[k]) * alh + ch_ascent(l, SZ_ANNOT);
                a->text = ch_place1(l, &t, x0, by, 0);
            }
            y += strip_used * alh + (strip_used ? 2 : 0);
        }
        p->frame.y = y;
        p->frame.h = heights[i];
        y += heights[i];
        if (p->show_x) {
            /* the y axes first: the bottom tick label of a y axis wins
             * over an x tick label that would touch it */
            place_y(l, p);
            y = place_x(l, ch_panel_xaxis(p), &p->frame, (int)p->index);
        }
        bottom = y;
        y += PANEL_GAP;
    }
    for (size_t i = 0; i < np; i++) {
        sat_chart_panel *p = c->panels[i];
        if (!p->show_x)
            place_y(l, p);
        if (!p->has_data) {
            const char *note = p->note ? p->note : "no data";
            ch_tspec t = {note, CH_T_NOTE, SZ_NOTE, 0, 1, 0, 1, (int)p->index};
            ch_place1(l, &t, p->frame.x + p->frame.w / 2,
                       p->frame.y + p->frame.h / 2 + ch_ascent(l, SZ_NOTE) / 2, 1);
        }
        place_panel_annots(l, p);
        place_bar_values(l, p);
    }
    /* bands: one row each under the x axis */
    if (c->shared && nbands) {
        const ch_rect *f = &c->panels[np - 1]->frame;
        double by = bottom + 4;
        double asc = ch_ascent(l, SZ_BAND);
        for (size_t k = 0; k < c->nannots; k++) {
            ch_annot *a = &c->annots[k];
            if (a->kind != CH_A_BAND)
                continue;
            double x0 = ch_map(&c->x, a->x0, f->x, f->w), x1 = ch_map(&c->x, a->x1, f->x, f->w);
            x0 = fmax(x0, f->x);
            x1 = fmin(x1, f->x + f->w);
            if (x1 - x0 < 2)
                x1 = x0 + 2;
            a->rect = (ch_rect){x0, by + 1, x1 - x0, BAND_ROW - 2};
            if (a->label && a->label[0]) {
                ch_tspec t = {a->label, CH_T_BAND, SZ_BAND, 0, 0, 0, 0, -1};
                double w = ch_measure(l, a->label, SZ_BAND, 0, 0, NULL, NULL);
                double base = by + (BAND_ROW + asc) / 2 - 0.5;
                double xs[3] = {x0 + 3, x1 + 3, x0 - 3};
                double ys[3] = {base, base, base};
                int an[3] = {0, 0, 2};
                size_t n = 0;
                if (w + 6 <= x1 - x0)
                    n = 1; /* inside its bar */
                else {
                    xs[0] = x1 + 3, an[0] = 0; /* after it, else before it */
                    xs[1] = x0 - 3, an[1] = 2;
                    n = 2;
                }
                a->text = ch_place(l, &t, xs, ys, an, n);
            }
            by += BAND_ROW;
        }
    }
    return c->status;
}

double ch_shown_pt(const sat_chart *c, double size)
{
    return c->shown_w > 0 ? size * c->shown_w / c->w : size;
}

int ch_layout(sat_chart *c)
{
    if (!c)
        return SAT_E_NOMEM;
    if (c->status != SAT_OK || c->laid_out)
        return c->status;
    ch_lay l = {c, NULL, NULL};
    l.surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    l.cr = cairo_create(l.surf);
    if (cairo_status(l.cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(l.cr);
        cairo_surface_destroy(l.surf);
        return c->status = SAT_E_NOMEM;
    }
    ch_font_setup(l.cr);
    int st = layout(&l);
    cairo_destroy(l.cr);
    cairo_surface_destroy(l.surf);
    if (st == SAT_OK)
        c->laid_out = 1;
    return st;
}
