/*
 * chart_draw.c - drawing a laid-out chart with cairo (chart_int.h): it only
 * reads the layout (frames, ranges, ticks, texts), so what is drawn is what
 * the structure dump says. Back to front: the page, per frame its grid, the
 * spans shaded, the series (clipped to the frame), the frame, the markers
 * and lines, then the bands, the legend samples and every text.
 *
 * Colours: Okabe-Ito for the data; greys for the frame, the grid and the
 * annotations, so they never read as data. Font: DejaVu Sans through
 * cairo's toy API (fontconfig finds it), hinting off (chart_int.h).
 */
#include <cairo.h>
#include <math.h>

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

static void rgb(cairo_t *cr, int color, double alpha)
{
    double c[3];
    ch_color_rgb(color, c);
    cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

static void grey(cairo_t *cr, double g)
{
    cairo_set_source_rgb(cr, g, g, g);
}

static double px(const ch_axis *a, const ch_rect *f, double x)
{
    return ch_map(a, x, f->x, f->w);
}

static double py(const ch_axis *a, const ch_rect *f, double y)
{
    return f->y + f->h - ch_map(a, y, 0, f->h);
}

/* The bottom of bars on axis a: 0, or the axis's low end on a log one. */
static double bar_floor(const ch_axis *a)
{
    return a->scale == SAT_AXIS_LOG ? a->lo : (a->lo > 0 ? a->lo : 0);
}

static void line_style(cairo_t *cr, const sat_chart_series *s)
{
    cairo_set_line_width(cr, 1.4);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    if (s->dashed) {
        static const double d[] = {4, 2};
        cairo_set_dash(cr, d, 2, 0);
    } else {
        cairo_set_dash(cr, NULL, 0, 0);
    }
    rgb(cr, s->color, 1);
}

static void draw_series(cairo_t *cr, sat_chart_panel *p, sat_chart_series *s)
{
    const ch_rect *f = &p->frame;
    const ch_axis *xa = ch_panel_xaxis(p), *ya = s->right ? &p->y2 : &p->y;
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
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
            open = 1;
            if (s->style == SAT_SERIES_STEP) {
                double x1 = px(xa, f, s->x[i] + s->bar_w);
                cairo_line_to(cr, x1, y);
                /* a gap in the windows breaks the step */
                if (i + 1 < s->n && s->x[i + 1] > s->x[i] + s->bar_w * 1.001)
                    open = 0;
            }
        }
        line_style(cr, s);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        break;
    }
    case SAT_SERIES_POINTS:
        rgb(cr, s->color, 1);
        for (size_t i = 0; i < s->n; i++) {
            double x = px(xa, f, s->x[i]), y = py(ya, f, s->y[i]);
            if (!isfinite(x) || !isfinite(y))
                continue;
            cairo_new_sub_path(cr);
            cairo_arc(cr, x, y, 2.4, 0, 2 * M_PI);
        }
        cairo_fill(cr);
        break;
    case SAT_SERIES_STACKED:
    case SAT_SERIES_BARS:
        rgb(cr, s->color, s->style == SAT_SERIES_BARS ? 0.85 : 1);
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
            cairo_rectangle(cr, x0, y1, w, y0 - y1);
        }
        cairo_fill(cr);
        break;
    case SAT_SERIES_HBARS: {
        size_t nh = 0, me = 0;
        for (size_t k = 0; k < p->nseries; k++)
            if (p->series[k]->style == SAT_SERIES_HBARS) {
                if (p->series[k] == s)
                    me = nh;
                nh++;
            }
        double rowh = p->y.ncats ? f->h / (double)p->y.ncats : f->h;
        double th = rowh * 0.72 / (double)(nh ? nh : 1);
        rgb(cr, s->color, 1);
        for (size_t i = 0; i < s->n; i++) {
            if (!s->row || !isfinite(s->y[i]))
                continue;
            double x0 = px(xa, f, bar_floor(xa)), x1 = px(xa, f, s->y[i]);
            double y = f->y + rowh * (double)s->row[i] + rowh * 0.14 + th * (double)me;
            if (isfinite(x0) && isfinite(x1))
                cairo_rectangle(cr, x0, y, x1 - x0, th);
        }
        cairo_fill(cr);
        break;
    }
    }
}

static void vdash(cairo_t *cr, double x, double y0, double y1, double g)
{
    static const double d[] = {3, 2};
    cairo_set_dash(cr, d, 2, 0);
    cairo_set_line_width(cr, 0.9);
    grey(cr, g);
    cairo_move_to(cr, x, y0);
    cairo_line_to(cr, x, y1);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_grid(cairo_t *cr, sat_chart_panel *p)
{
    const ch_rect *f = &p->frame;
    const ch_axis *xa = ch_panel_xaxis(p);
    cairo_set_line_width(cr, 0.5);
    grey(cr, 0.9);
    for (size_t i = 0; i < p->y.nticks; i++) {
        double y = py(&p->y, f, p->y.ticks[i].v);
        cairo_move_to(cr, f->x, y);
        cairo_line_to(cr, f->x + f->w, y);
    }
    for (size_t i = 0; i < xa->nticks; i++) {
        double x = px(xa, f, xa->ticks[i].v);
        cairo_move_to(cr, x, f->y);
        cairo_line_to(cr, x, f->y + f->h);
    }
    cairo_stroke(cr);
}

static void draw_ticks(cairo_t *cr, sat_chart_panel *p)
{
    const ch_rect *f = &p->frame;
    const ch_axis *xa = ch_panel_xaxis(p);
    cairo_set_line_width(cr, 0.7);
    grey(cr, 0.45);
    for (size_t i = 0; i < p->y.nticks; i++) {
        double y = py(&p->y, f, p->y.ticks[i].v);
        cairo_move_to(cr, f->x - 3, y);
        cairo_line_to(cr, f->x, y);
    }
    if (p->y2.set)
        for (size_t i = 0; i < p->y2.nticks; i++) {
            double y = py(&p->y2, f, p->y2.ticks[i].v);
            cairo_move_to(cr, f->x + f->w, y);
            cairo_line_to(cr, f->x + f->w + 3, y);
        }
    if (p->show_x)
        for (size_t i = 0; i < xa->nticks; i++) {
            double x = px(xa, f, xa->ticks[i].v);
            cairo_move_to(cr, x, f->y + f->h);
            cairo_line_to(cr, x, f->y + f->h + 3);
        }
    cairo_stroke(cr);
}

static void draw_text(cairo_t *cr, const ch_text *t)
{
    if (t->role == CH_T_LINE || t->role == CH_T_POINT || t->role == CH_T_NOTE) {
        /* a label over data gets a light ground, so lines under it do not cut it */
        cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
        cairo_rectangle(cr, t->box.x - 1, t->box.y, t->box.w + 2, t->box.h);
        cairo_fill(cr);
    }
    cairo_select_font_face(cr, CH_FONT, t->italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           t->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, t->size);
    grey(cr, t->grey == 2 ? 1 : t->grey ? 0.3 : 0.1);
    cairo_save(cr);
    cairo_move_to(cr, t->x, t->y);
    if (t->vertical)
        cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, t->s);
    cairo_restore(cr);
    cairo_new_path(cr);
}

static void draw_swatch(cairo_t *cr, const sat_chart_series *s)
{
    const ch_rect *r = &s->swatch;
    if (s->style == SAT_SERIES_LINE || s->style == SAT_SERIES_STEP) {
        line_style(cr, s);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, r->x, r->y + r->h / 2);
        cairo_line_to(cr, r->x + r->w, r->y + r->h / 2);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    } else if (s->style == SAT_SERIES_POINTS) {
        rgb(cr, s->color, 1);
        cairo_arc(cr, r->x + r->w / 2, r->y + r->h / 2, 2.4, 0, 2 * M_PI);
        cairo_fill(cr);
    } else {
        rgb(cr, s->color, 1);
        cairo_rectangle(cr, r->x, r->y, r->w, r->h);
        cairo_fill(cr);
    }
}

void ch_draw(sat_chart *c, void *vcr)
{
    cairo_t *cr = vcr;
    ch_font_setup(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, c->w, c->h);
    cairo_fill(cr);
    for (size_t i = 0; i < c->npanels; i++) {
        sat_chart_panel *p = c->panels[i];
        const ch_rect *f = &p->frame;
        if (p->has_data)
            draw_grid(cr, p);
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
                rgb(cr, SAT_COLOR_VERMILLION, 0.13);
                cairo_rectangle(cr, x0, f->y, x1 - x0, f->h);
                cairo_fill(cr);
            }
        cairo_save(cr);
        cairo_rectangle(cr, f->x, f->y, f->w, f->h);
        cairo_clip(cr);
        for (size_t k = 0; k < p->nseries; k++)
            draw_series(cr, p, p->series[k]);
        /* the panel's own lines and points */
        for (size_t k = 0; k < p->nannots; k++) {
            const ch_annot *a = &p->annots[k];
            const ch_axis *xa = ch_panel_xaxis(p);
            if (a->kind == CH_A_VLINE) {
                vdash(cr, px(xa, f, a->x0), f->y, f->y + f->h, 0.25);
            } else if (a->kind == CH_A_HLINE) {
                static const double d[] = {3, 2};
                cairo_set_dash(cr, d, 2, 0);
                cairo_set_line_width(cr, 0.9);
                grey(cr, 0.25);
                cairo_move_to(cr, f->x, py(&p->y, f, a->y));
                cairo_line_to(cr, f->x + f->w, py(&p->y, f, a->y));
                cairo_stroke(cr);
                cairo_set_dash(cr, NULL, 0, 0);
            } else if (a->kind == CH_A_LABEL) {
                double x = px(xa, f, a->x0), y = py(&p->y, f, a->y);
                if (isfinite(x) && isfinite(y)) {
                    grey(cr, 0.1);
                    cairo_arc(cr, x, y, 3.2, 0, 2 * M_PI);
                    cairo_set_line_width(cr, 1.2);
                    cairo_stroke(cr);
                }
            }
        }
        cairo_restore(cr);
        /* the frame */
        cairo_set_line_width(cr, 0.7);
        grey(cr, p->has_data ? 0.45 : 0.75);
        cairo_rectangle(cr, f->x, f->y, f->w, f->h);
        cairo_stroke(cr);
        draw_ticks(cr, p);
        if (c->shared)
            for (size_t k = 0; k < c->nannots; k++)
                if (c->annots[k].kind == CH_A_MARKER)
                    vdash(cr, px(&c->x, f, c->annots[k].x0), f->y, f->y + f->h, 0.2);
    }
    /* the strip's labels point at the first frame */
    if (c->shared && c->npanels) {
        const ch_rect *f = &c->panels[0]->frame;
        for (size_t k = 0; k < c->nannots; k++) {
            const ch_annot *a = &c->annots[k];
            if (a->kind == CH_A_SPAN) {
                double x0 = fmax(px(&c->x, f, a->x0), f->x), x1 = fmin(px(&c->x, f, a->x1), f->x + f->w);
                rgb(cr, SAT_COLOR_VERMILLION, 0.8);
                cairo_rectangle(cr, x0, f->y - 2, fmax(x1 - x0, 1.5), 2);
                cairo_fill(cr);
            } else if (a->kind == CH_A_MARKER && a->text >= 0) {
                const ch_rect *b = &c->texts[a->text].box;
                vdash(cr, px(&c->x, f, a->x0), b->y + b->h, f->y, 0.2);
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
            rgb(cr, band_colors[color++ % 6], 0.45);
            cairo_rectangle(cr, a->rect.x, a->rect.y, a->rect.w, a->rect.h);
            cairo_fill(cr);
        }
    }
    for (size_t i = 0; i < c->npanels; i++)
        for (size_t k = 0; k < c->panels[i]->nseries; k++)
            if (c->panels[i]->series[k]->in_legend)
                draw_swatch(cr, c->panels[i]->series[k]);
    for (size_t i = 0; i < c->ntexts; i++)
        draw_text(cr, &c->texts[i]);
}
