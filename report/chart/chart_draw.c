/*
 * chart_draw.c - what a laid-out chart draws (chart_int.h, ch_paint), said
 * once for every output, and the cairo painter (PNG, PDF, a report's page).
 * It only reads the layout (frames, ranges, ticks, texts), so what is drawn
 * is what the structure dump says. Back to front: the page, per frame its
 * grid, the spans shaded, the series (clipped to the frame), the frame, the
 * markers and lines, then the bands, the legend samples, every text, and
 * last the hover regions (a window's or a bar's values, for the SVG).
 *
 * Colours: Okabe-Ito for the data; greys for the frame, the grid and the
 * annotations, so they never read as data. Font: DejaVu Sans through
 * cairo's toy API (fontconfig finds it), hinting off (chart_int.h).
 * Bars narrower than a few points are drawn as one stepped area per series,
 * not as a comb of slivers.
 */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart_int.h"

void ch_font_setup(void *vcr)
{
    cairo_t *cr = vcr;
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

void ch_ink_rgb(int ink, double rgb[3])
{
    static const double greys[] = {1.0 /* page */, 0.9 /* grid */, 0.45 /* frame */, 0.75 /* faint */,
                                   0.22 /* mark */, 0.1 /* text */, 0.3 /* grey text */,
                                   1.0 /* text on a bar */};
    if (ink >= 0 && ink < SAT_COLOR__COUNT) {
        ch_color_rgb(ink, rgb);
        return;
    }
    double g = ink >= CH_INK_PAGE && ink < CH_INK__COUNT ? greys[ink - CH_INK_PAGE] : 0;
    rgb[0] = rgb[1] = rgb[2] = g;
}

/* ---- what is drawn ---------------------------------------------------------------------- */

static const double DASH_LINE[2] = {4, 2}, DASH_MARK[2] = {3, 2};

static double px(const ch_axis *a, const ch_rect *f, double x) { return ch_map(a, x, f->x, f->w); }

static double py(const ch_axis *a, const ch_rect *f, double y) { return f->y + f->h - ch_map(a, y, 0, f->h); }

/* The bottom of bars on axis a: 0, or the axis's low end on a log one. */
static double bar_floor(const ch_axis *a)
{
    return a->scale == SAT_AXIS_LOG ? a->lo : (a->lo > 0 ? a->lo : 0);
}

static void stroke_series(const ch_painter *p, const sat_chart_series *s, double width)
{
    p->stroke(p->x, s->color, 1, width, s->dashed ? DASH_LINE : NULL);
}

/* A stack too dense for bars: its top edge stepped over each window and
 * back along its bottom (the earlier stacks' top), one filled area per run
 * of windows in time order without a gap. */
static void stacked_area(const ch_painter *p, const sat_chart_series *s, const ch_axis *xa,
                         const ch_axis *ya, const ch_rect *f)
{
    size_t i = 0;
    while (i < s->n) {
        size_t j = i;
        /* a run of windows without a gap */
        while (j + 1 < s->n && isfinite(s->y[j + 1]) && s->x[j + 1] > s->x[j] &&
               s->x[j + 1] <= s->x[j] + s->bar_w * 1.001)
            j++;
        if (!isfinite(s->y[i])) {
            i = j + 1;
            continue;
        }
        for (size_t k = i; k <= j; k++) {
            double b = s->base ? s->base[k] : 0, top = py(ya, f, b + s->y[k]);
            if (k == i)
                p->move(p->x, px(xa, f, s->x[k]), top);
            else
                p->line(p->x, px(xa, f, s->x[k]), top);
            p->line(p->x, px(xa, f, ch_bar_right(s, xa, k)), top);
        }
        for (size_t k = j + 1; k-- > i;) {
            double b = s->base ? s->base[k] : 0, bot = b > 0 ? py(ya, f, b) : py(ya, f, bar_floor(ya));
            p->line(p->x, px(xa, f, ch_bar_right(s, xa, k)), bot);
            p->line(p->x, px(xa, f, s->x[k]), bot);
        }
        i = j + 1;
    }
    p->fill(p->x, s->color, 1);
}

static void draw_series(const ch_painter *p, sat_chart_panel *pa, sat_chart_series *s)
{
    const ch_rect *f = &pa->frame;
    const ch_axis *xa = ch_panel_xaxis(pa), *ya = s->right ? &pa->y2 : &pa->y;
    switch (s->style) {
    case SAT_SERIES_LINE:
    case SAT_SERIES_STEP: {
        int open = 0;
        for (size_t i = 0; i < s->n; i++) {
            double x = px(xa, f, s->x[i]), y = py(ya, f, s->y[i]);
            if (!isfinite(x) || !isfinite(y)) {
                open = 0;
                continue;
            }
            if (!open)
                p->move(p->x, x, y);
            else
                p->line(p->x, x, y);
            open = 1;
            if (s->style == SAT_SERIES_STEP) {
                p->line(p->x, px(xa, f, s->x[i] + s->bar_w), y);
                /* a gap in the windows breaks the step */
                if (i + 1 < s->n && s->x[i + 1] > s->x[i] + s->bar_w * 1.001)
                    open = 0;
            }
        }
        stroke_series(p, s, 1.4);
        break;
    }
    case SAT_SERIES_POINTS:
        for (size_t i = 0; i < s->n; i++) {
            double x = px(xa, f, s->x[i]), y = py(ya, f, s->y[i]);
            if (isfinite(x) && isfinite(y))
                p->circle(p->x, x, y, 2.4);
        }
        p->fill(p->x, s->color, 1);
        break;
    case SAT_SERIES_STACKED:
    case SAT_SERIES_BARS: {
        /* windows under 3 points wide: an area, not a comb */
        if (s->style == SAT_SERIES_STACKED && s->n > 1 && s->bar_w > 0 &&
            px(xa, f, s->x[0] + s->bar_w) - px(xa, f, s->x[0]) < 3) {
            stacked_area(p, s, xa, ya, f);
            break;
        }
        for (size_t i = 0; i < s->n; i++) {
            if (!isfinite(s->y[i]) || s->y[i] == 0)
                continue;
            double b = s->style == SAT_SERIES_STACKED && s->base ? s->base[i] : 0;
            double x0 = px(xa, f, s->x[i]), x1 = px(xa, f, ch_bar_right(s, xa, i));
            double y0 = b > 0 ? py(ya, f, b) : py(ya, f, bar_floor(ya));
            double y1 = py(ya, f, b + s->y[i]);
            if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1))
                continue;
            double w = x1 - x0;
            if (w > 4) { /* a hairline between wide bars */
                x0 += 0.4;
                w -= 0.8;
            }
            p->rect(p->x, x0, y1, w, y0 - y1);
        }
        p->fill(p->x, s->color, s->style == SAT_SERIES_BARS ? 0.85 : 1);
        break;
    }
    case SAT_SERIES_HBARS: {
        size_t nh = 0, me = 0;
        for (size_t k = 0; k < pa->nseries; k++)
            if (pa->series[k]->style == SAT_SERIES_HBARS) {
                if (pa->series[k] == s)
                    me = nh;
                nh++;
            }
        double rowh = pa->y.ncats ? f->h / (double)pa->y.ncats : f->h;
        double th = rowh * 0.72 / (double)(nh ? nh : 1);
        for (size_t i = 0; i < s->n; i++) {
            if (!s->row || !isfinite(s->y[i]))
                continue;
            double x0 = px(xa, f, bar_floor(xa)), x1 = px(xa, f, s->y[i]);
            double y = f->y + rowh * (double)s->row[i] + rowh * 0.14 + th * (double)me;
            if (isfinite(x0) && isfinite(x1))
                p->rect(p->x, x0, y, x1 - x0, th);
        }
        p->fill(p->x, s->color, 1);
        break;
    }
    }
}

static void vdash(const ch_painter *p, double x, double y0, double y1)
{
    p->move(p->x, x, y0);
    p->line(p->x, x, y1);
    p->stroke(p->x, CH_INK_MARK, 1, 0.9, DASH_MARK);
}

static void draw_grid(const ch_painter *p, sat_chart_panel *pa)
{
    const ch_rect *f = &pa->frame;
    const ch_axis *xa = ch_panel_xaxis(pa);
    for (size_t i = 0; i < pa->y.nticks; i++) {
        double y = py(&pa->y, f, pa->y.ticks[i].v);
        p->move(p->x, f->x, y);
        p->line(p->x, f->x + f->w, y);
    }
    for (size_t i = 0; i < xa->nticks; i++) {
        double x = px(xa, f, xa->ticks[i].v);
        p->move(p->x, x, f->y);
        p->line(p->x, x, f->y + f->h);
    }
    p->stroke(p->x, CH_INK_GRID, 1, 0.5, NULL);
}

static void draw_ticks(const ch_painter *p, sat_chart_panel *pa)
{
    const ch_rect *f = &pa->frame;
    const ch_axis *xa = ch_panel_xaxis(pa);
    for (size_t i = 0; i < pa->y.nticks; i++) {
        double y = py(&pa->y, f, pa->y.ticks[i].v);
        p->move(p->x, f->x - 3, y);
        p->line(p->x, f->x, y);
    }
    if (pa->y2.set)
        for (size_t i = 0; i < pa->y2.nticks; i++) {
            double y = py(&pa->y2, f, pa->y2.ticks[i].v);
            p->move(p->x, f->x + f->w, y);
            p->line(p->x, f->x + f->w + 3, y);
        }
    if (pa->show_x)
        for (size_t i = 0; i < xa->nticks; i++) {
            double x = px(xa, f, xa->ticks[i].v);
            p->move(p->x, x, f->y + f->h);
            p->line(p->x, x, f->y + f->h + 3);
        }
    p->stroke(p->x, CH_INK_FRAME, 1, 0.7, NULL);
}

static void draw_swatch(const ch_painter *p, const sat_chart_series *s)
{
    const ch_rect *r = &s->swatch;
    if (s->style == SAT_SERIES_LINE || s->style == SAT_SERIES_STEP) {
        p->move(p->x, r->x, r->y + r->h / 2);
        p->line(p->x, r->x + r->w, r->y + r->h / 2);
        stroke_series(p, s, 2);
    } else if (s->style == SAT_SERIES_POINTS) {
        p->circle(p->x, r->x + r->w / 2, r->y + r->h / 2, 2.4);
        p->fill(p->x, s->color, 1);
    } else {
        p->rect(p->x, r->x, r->y, r->w, r->h);
        p->fill(p->x, s->color, 1);
    }
}

/* ---- hover regions: what a pointer over a window or a bar reads --------------------------- */

/* Appends to buf (at *len) without overflowing it. */
static void add(char *buf, size_t n, size_t *len, const char *fmt, const char *a, const char *b)
{
    if (*len + 1 >= n)
        return;
    int k = snprintf(buf + *len, n - *len, fmt, a, b);
    if (k > 0)
        *len = *len + (size_t)k < n ? *len + (size_t)k : n - 1;
}

/* x as its axis reads it: a time of day, or a value in the axis's unit. */
static void x_text(const sat_chart *c, const ch_axis *xa, double x, char *buf, size_t n)
{
    if (xa->scale == SAT_AXIS_TIME)
        ch_time_label(buf, n, NULL, 0, x, c->tz, 1);
    else
        ch_tick_label(buf, n, xa->unit, x);
}

/* The values the panel's series have in [x0, x1): "name value, ...". */
static void values_at(sat_chart_panel *pa, double x0, double x1, char *buf, size_t n, size_t *len)
{
    for (size_t k = 0; k < pa->nseries; k++) {
        const sat_chart_series *s = pa->series[k];
        if (s->style == SAT_SERIES_HBARS)
            continue;
        const ch_axis *ya = s->right ? &pa->y2 : &pa->y;
        for (size_t i = 0; i < s->n; i++)
            if (s->x[i] >= x0 && s->x[i] < x1 && isfinite(s->y[i]) && s->y[i] != 0) {
                char v[64];
                ch_tick_label(v, sizeof v, ya->unit, s->y[i]);
                add(buf, n, len, "\n%s %s", s->name ? s->name : "", v);
                break;
            }
    }
}

/* The series whose points give the panel's hover columns: the most points. */
static const sat_chart_series *grid_series(const sat_chart_panel *pa)
{
    const sat_chart_series *g = NULL;
    for (size_t k = 0; k < pa->nseries; k++) {
        const sat_chart_series *s = pa->series[k];
        if (s->style != SAT_SERIES_HBARS && (!g || s->n > g->n))
            g = s;
    }
    return g;
}

/* The edges of column i of grid series g: a window's start to its end, a
 * point's half-way to its neighbours. */
static void column(const sat_chart_series *g, const ch_axis *xa, size_t i, double *a, double *b)
{
    if (g->style == SAT_SERIES_STACKED || g->style == SAT_SERIES_STEP || g->style == SAT_SERIES_BARS) {
        *a = g->x[i];
        *b = ch_bar_right(g, xa, i);
        return;
    }
    int log = xa->scale == SAT_AXIS_LOG;
#define MID(u, v) (log ? sqrt((u) * (v)) : ((u) + (v)) / 2)
    *a = i > 0 ? MID(g->x[i - 1], g->x[i]) : g->x[i];
    *b = i + 1 < g->n ? MID(g->x[i], g->x[i + 1]) : g->x[i];
#undef MID
}

static void hovers(const ch_painter *p, sat_chart *c)
{
    char buf[2048];
    /* a shared time axis: one column per window across every panel */
    if (c->shared && c->npanels) {
        const sat_chart_panel *top = c->panels[0], *bottom = c->panels[c->npanels - 1];
        const sat_chart_series *g = NULL;
        for (size_t i = 0; i < c->npanels; i++) {
            const sat_chart_series *s = grid_series(c->panels[i]);
            if (s && (!g || s->n > g->n))
                g = s;
        }
        for (size_t i = 0; g && i < g->n; i++) {
            double a, b;
            column(g, &c->x, i, &a, &b);
            size_t len = 0;
            x_text(c, &c->x, a, buf, sizeof buf);
            len = strlen(buf);
            for (size_t k = 0; k < c->npanels; k++) {
                size_t before = len;
                /* the panel by its axis's words, short */
                const sat_chart_panel *pk = c->panels[k];
                add(buf, sizeof buf, &len, "\n%s:%s", pk->y.label ? pk->y.label : pk->title ? pk->title : "", "");
                size_t mark = len;
                values_at(c->panels[k], a, b, buf, sizeof buf, &len);
                if (len == mark) { /* nothing in this panel then */
                    len = before;
                    buf[len] = '\0';
                }
            }
            double x0 = px(&c->x, &top->frame, a), x1 = px(&c->x, &top->frame, b);
            x0 = fmax(x0, top->frame.x);
            x1 = fmin(x1, top->frame.x + top->frame.w);
            ch_rect r = {x0, top->frame.y, x1 - x0, bottom->frame.y + bottom->frame.h - top->frame.y};
            if (r.w > 0)
                p->hover(p->x, &r, buf);
        }
        return;
    }
    for (size_t k = 0; k < c->npanels; k++) {
        sat_chart_panel *pa = c->panels[k];
        const ch_rect *f = &pa->frame;
        const ch_axis *xa = ch_panel_xaxis(pa);
        /* bars: each its own */
        for (size_t j = 0; j < pa->nseries; j++) {
            const sat_chart_series *s = pa->series[j];
            if (s->style != SAT_SERIES_HBARS || !s->row || !pa->y.ncats)
                continue;
            double rowh = f->h / (double)pa->y.ncats;
            for (size_t i = 0; i < s->n; i++) {
                char v[64];
                ch_tick_label(v, sizeof v, xa->unit, s->y[i]);
                snprintf(buf, sizeof buf, "%s: %s", s->cat[i], v);
                ch_rect r = {f->x, f->y + rowh * (double)s->row[i], f->w, rowh};
                p->hover(p->x, &r, buf);
            }
        }
        const sat_chart_series *g = grid_series(pa);
        for (size_t i = 0; g && i < g->n; i++) {
            if (i > 0 && !(g->x[i] > g->x[i - 1]))
                break; /* not in order: no columns */
            double a, b;
            column(g, xa, i, &a, &b);
            x_text(c, xa, g->x[i], buf, sizeof buf);
            size_t len = strlen(buf), mark = len;
            values_at(pa, a, b + (b == a ? 1e-9 : 0), buf, sizeof buf, &len);
            double x0 = fmax(px(xa, f, a), f->x), x1 = fmin(px(xa, f, b), f->x + f->w);
            if (len > mark && x1 - x0 < 2) {
                x0 -= 1;
                x1 += 1;
            }
            ch_rect r = {x0, f->y, x1 - x0, f->h};
            if (len > mark && r.w > 0)
                p->hover(p->x, &r, buf);
        }
    }
}

void ch_paint(sat_chart *c, const ch_painter *p)
{
    p->rect(p->x, 0, 0, c->w, c->h);
    p->fill(p->x, CH_INK_PAGE, 1);
    for (size_t i = 0; i < c->npanels; i++) {
        sat_chart_panel *pa = c->panels[i];
        const ch_rect *f = &pa->frame;
        if (pa->has_data)
            draw_grid(p, pa);
        /* spans under the data */
        if (c->shared)
            for (size_t k = 0; k < c->nannots; k++) {
                const ch_annot *a = &c->annots[k];
                if (a->kind != CH_A_SPAN)
                    continue;
                double x0 = fmax(px(&c->x, f, a->x0), f->x), x1 = fmin(px(&c->x, f, a->x1), f->x + f->w);
                if (x1 - x0 < 1.5) {
                    x0 -= 0.75;
                    x1 = x0 + 1.5;
                }
                p->rect(p->x, x0, f->y, x1 - x0, f->h);
                p->fill(p->x, SAT_COLOR_VERMILLION, 0.13);
            }
        p->clip(p->x, f);
        for (size_t k = 0; k < pa->nseries; k++)
            draw_series(p, pa, pa->series[k]);
        /* the panel's own lines and points */
        const ch_axis *xa = ch_panel_xaxis(pa);
        for (size_t k = 0; k < pa->nannots; k++) {
            const ch_annot *a = &pa->annots[k];
            if (a->kind == CH_A_VLINE) {
                vdash(p, px(xa, f, a->x0), f->y, f->y + f->h);
            } else if (a->kind == CH_A_HLINE) {
                p->move(p->x, f->x, py(&pa->y, f, a->y));
                p->line(p->x, f->x + f->w, py(&pa->y, f, a->y));
                p->stroke(p->x, CH_INK_MARK, 1, 0.9, DASH_MARK);
            } else if (a->kind == CH_A_LABEL) {
                double x = px(xa, f, a->x0), y = py(&pa->y, f, a->y);
                if (isfinite(x) && isfinite(y)) {
                    p->circle(p->x, x, y, 3.2);
                    p->stroke(p->x, CH_INK_TEXT, 1, 1.2, NULL);
                }
            }
        }
        p->clip(p->x, NULL);
        p->rect(p->x, f->x, f->y, f->w, f->h);
        p->stroke(p->x, pa->has_data ? CH_INK_FRAME : CH_INK_FAINT, 1, 0.7, NULL);
        draw_ticks(p, pa);
        if (c->shared)
            for (size_t k = 0; k < c->nannots; k++)
                if (c->annots[k].kind == CH_A_MARKER)
                    vdash(p, px(&c->x, f, c->annots[k].x0), f->y, f->y + f->h);
    }
    /* the strip's labels point at the first frame */
    if (c->shared && c->npanels) {
        const ch_rect *f = &c->panels[0]->frame;
        for (size_t k = 0; k < c->nannots; k++) {
            const ch_annot *a = &c->annots[k];
            if (a->kind == CH_A_SPAN) {
                double x0 = fmax(px(&c->x, f, a->x0), f->x), x1 = fmin(px(&c->x, f, a->x1), f->x + f->w);
                p->rect(p->x, x0, f->y - 2, fmax(x1 - x0, 1.5), 2);
                p->fill(p->x, SAT_COLOR_VERMILLION, 0.8);
            } else if (a->kind == CH_A_MARKER && a->text >= 0) {
                const ch_rect *b = &c->texts[a->text].box;
                vdash(p, px(&c->x, f, a->x0), b->y + b->h, f->y);
            }
        }
        /* bands */
        int color = 0;
        for (size_t k = 0; k < c->nannots; k++) {
            const ch_annot *a = &c->annots[k];
            if (a->kind != CH_A_BAND)
                continue;
            static const int band_colors[] = {SAT_COLOR_SKY_BLUE, SAT_COLOR_ORANGE, SAT_COLOR_GREEN,
                                              SAT_COLOR_PURPLE, SAT_COLOR_YELLOW, SAT_COLOR_BLUE};
            p->rect(p->x, a->rect.x, a->rect.y, a->rect.w, a->rect.h);
            p->fill(p->x, band_colors[color++ % 6], 0.45);
        }
    }
    for (size_t i = 0; i < c->npanels; i++)
        for (size_t k = 0; k < c->panels[i]->nseries; k++)
            if (c->panels[i]->series[k]->in_legend)
                draw_swatch(p, c->panels[i]->series[k]);
    for (size_t i = 0; i < c->ntexts; i++) {
        const ch_text *t = &c->texts[i];
        if (t->role == CH_T_LINE || t->role == CH_T_POINT || t->role == CH_T_NOTE) {
            /* a label over data gets a light ground, so lines under it do not cut it */
            p->rect(p->x, t->box.x - 1, t->box.y, t->box.w + 2, t->box.h);
            p->fill(p->x, CH_INK_PAGE, 0.85);
        }
        p->text(p->x, t);
    }
    if (p->hover)
        hovers(p, c);
}

/* ---- the cairo painter ------------------------------------------------------------------- */

static void cr_move(void *x, double a, double b) { cairo_move_to(x, a, b); }
static void cr_line(void *x, double a, double b) { cairo_line_to(x, a, b); }
static void cr_rect(void *x, double a, double b, double w, double h) { cairo_rectangle(x, a, b, w, h); }

static void cr_circle(void *x, double cx, double cy, double r)
{
    cairo_new_sub_path(x);
    cairo_arc(x, cx, cy, r, 0, 2 * M_PI);
}

static void cr_ink(cairo_t *cr, int ink, double alpha)
{
    double rgb[3];
    ch_ink_rgb(ink, rgb);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
}

static void cr_fill(void *x, int ink, double alpha)
{
    cr_ink(x, ink, alpha);
    cairo_fill(x);
}

static void cr_stroke(void *x, int ink, double alpha, double width, const double *dash)
{
    cairo_t *cr = x;
    cr_ink(cr, ink, alpha);
    cairo_set_line_width(cr, width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_dash(cr, dash, dash ? 2 : 0, 0);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static void cr_clip(void *x, const ch_rect *r)
{
    if (!r) {
        cairo_restore(x);
        return;
    }
    cairo_save(x);
    cairo_rectangle(x, r->x, r->y, r->w, r->h);
    cairo_clip(x);
}

static void cr_text(void *x, const ch_text *t)
{
    cairo_t *cr = x;
    cairo_select_font_face(cr, CH_FONT, t->italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           t->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, t->size);
    cr_ink(cr, t->grey == 2 ? CH_INK_TEXT_ON_BAR : t->grey ? CH_INK_TEXT_GREY : CH_INK_TEXT, 1);
    cairo_save(cr);
    cairo_move_to(cr, t->x, t->y);
    if (t->vertical)
        cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, t->s);
    cairo_restore(cr);
    cairo_new_path(cr);
}

void ch_draw(sat_chart *c, void *cr)
{
    ch_font_setup(cr);
    const ch_painter p = {cr, cr_move, cr_line, cr_rect, cr_circle, cr_fill, cr_stroke, cr_clip, cr_text, NULL};
    ch_paint(c, &p);
}
