/*
 * chart_layout.c - where everything of a chart goes, computed once
 * (chart_int.h): the data ranges, the ticks, the margins (from the measured
 * extents of the tick labels), the frames of the panels stacked top to
 * bottom, the legends, and every text with the box it covers.
 *
 * A page, top to bottom: the title; per panel a header line (its title, then
 * its legend entries flowing to the right and wrapping, then a note), and
 * its frame; for a shared x axis the span and marker labels sit in a strip
 * between the first panel's header and its frame (rows of labels, a label
 * moved down a row when it would overlap one before it), the x ticks under
 * the bottom panel only, and the bands (sources) under the x axis, one row
 * each.
 *
 * The rule for text: every text is measured (cairo_text_extents with the
 * font the drawing uses, hinting off so sizes agree on every surface) and
 * placed in order of importance (titles, ticks, axis labels, legends, notes,
 * annotations); one that would overlap a text already placed, or leave the
 * page, tries its other places and is dropped when none is free (the
 * structure dump lists the dropped ones). So no two texts drawn overlap.
 */
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

const char *const ch_role_names[CH_T__COUNT] = {"title",  "panel_title", "axis_label", "tick",
                                                "legend", "note",        "span",       "marker",
                                                "band",   "line",        "point",      "value"};

/* Sizes in points. */
#define M_OUT 8.0      /* outer margin */
#define SZ_TITLE 12.0
#define SZ_PANEL 9.0
#define SZ_TICK 7.5
#define SZ_AXIS 7.5
#define SZ_LEGEND 7.5
#define SZ_NOTE 8.5
#define SZ_ANNOT 7.0
#define SZ_BAND 6.5
#define TICK_LEN 3.0
#define GAP 4.0
#define PANEL_GAP 8.0
#define BAND_ROW 11.0
#define STRIP_ROWS 3
#define SWATCH_W 12.0

typedef struct L {
    sat_chart *c;
    cairo_surface_t *surf;
    cairo_t *cr;
} L;

int ch_rect_overlap(const ch_rect *a, const ch_rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

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

static void set_font(L *l, double size, int bold, int italic)
{
    cairo_select_font_face(l->cr, CH_FONT, italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(l->cr, size);
}

/* The advance width and the font's ascent and descent. */
static double measure(L *l, const char *s, double size, int bold, int italic, double *asc, double *desc)
{
    set_font(l, size, bold, italic);
    cairo_font_extents_t fe;
    cairo_font_extents(l->cr, &fe);
    if (asc)
        *asc = fe.ascent;
    if (desc)
        *desc = fe.descent;
    cairo_text_extents_t te;
    cairo_text_extents(l->cr, s ? s : "", &te);
    return te.x_advance;
}

static double line_h(L *l, double size)
{
    double a, d;
    measure(l, "", size, 0, 0, &a, &d);
    return a + d;
}

static double ascent(L *l, double size)
{
    double a, d;
    measure(l, "", size, 0, 0, &a, &d);
    return a;
}

/* s cut (at a character boundary) with "…" so it is at most maxw wide. */
static char *fit_text(L *l, const char *s, double size, int bold, double maxw)
{
    char *d = ch_strdup(l->c, s);
    if (!d || measure(l, d, size, bold, 0, NULL, NULL) <= maxw)
        return d;
    size_t n = strlen(d);
    char *buf = malloc(n + 4);
    if (!buf) {
        l->c->status = SAT_E_NOMEM;
        free(d);
        return NULL;
    }
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)d[n] & 0xC0) == 0x80)
            n--;
        memcpy(buf, d, n);
        memcpy(buf + n, "\xE2\x80\xA6", 4);
        if (measure(l, buf, size, bold, 0, NULL, NULL) <= maxw)
            break;
    }
    free(d);
    return buf;
}

typedef struct tspec {
    const char *s;
    ch_role role;
    double size;
    int bold, italic, vertical, grey, panel;
} tspec;

static ch_rect text_box(L *l, const tspec *t, double x, double y, double *w)
{
    double asc, desc;
    *w = measure(l, t->s, t->size, t->bold, t->italic, &asc, &desc);
    ch_rect b;
    if (t->vertical) /* turned a quarter left about (x, y): reads upwards from y */
        b = (ch_rect){x - asc, y - *w, asc + desc, *w};
    else
        b = (ch_rect){x, y - asc, *w, asc + desc};
    return b;
}

static int box_free(L *l, const ch_rect *b)
{
    sat_chart *c = l->c;
    if (b->x < -0.01 || b->y < -0.01 || b->x + b->w > c->w + 0.01 || b->y + b->h > c->h + 0.01)
        return 0;
    for (size_t i = 0; i < c->ntexts; i++)
        if (ch_rect_overlap(b, &c->texts[i].box))
            return 0;
    return 1;
}

static void record(L *l, ch_text **arr, size_t *n, size_t *cap, const tspec *t, double x, double y,
                   ch_rect b)
{
    sat_chart *c = l->c;
    ch_text *g = ch_grow(c, *arr, cap, *n + 1, sizeof *g);
    if (!g)
        return;
    *arr = g;
    char *s = ch_strdup(c, t->s);
    if (!s)
        return;
    g[*n] = (ch_text){s, t->role, t->size, t->bold, t->italic, t->vertical, t->grey, x, y, b, t->panel};
    (*n)++;
}

static void drop(L *l, const tspec *t, double x, double y, int anchor)
{
    double w;
    ch_rect b = text_box(l, t, 0, 0, &w);
    x -= anchor == 1 ? w / 2 : anchor == 2 ? w : 0;
    b = text_box(l, t, x, y, &w);
    record(l, &l->c->dropped, &l->c->ndropped, &l->c->capdropped, t, x, y, b);
}

/* Places t at the first free one of the n candidate positions (x, y: the
 * baseline's left end; anchor 0 left, 1 centre, 2 right of x). Returns the
 * text's index, or -1 when it was dropped. */
static int place(L *l, const tspec *t, const double *xs, const double *ys, const int *anchors, size_t n)
{
    ch_rect b = {0};
    double bx = 0, by = 0;
    for (size_t i = 0; i < n; i++) {
        double w;
        b = text_box(l, t, 0, 0, &w);
        double x = xs[i], y = ys[i];
        if (!t->vertical)
            x -= anchors[i] == 1 ? w / 2 : anchors[i] == 2 ? w : 0;
        else
            y += anchors[i] == 1 ? w / 2 : anchors[i] == 2 ? w : 0;
        b = text_box(l, t, x, y, &w);
        bx = x;
        by = y;
        if (box_free(l, &b)) {
            record(l, &l->c->texts, &l->c->ntexts, &l->c->captexts, t, x, y, b);
            return l->c->status == SAT_OK ? (int)l->c->ntexts - 1 : -1;
        }
    }
    if (n)
        record(l, &l->c->dropped, &l->c->ndropped, &l->c->capdropped, t, bx, by, b);
    return -1;
}

static int place1(L *l, const tspec *t, double x, double y, int anchor)
{
    return place(l, t, &x, &y, &anchor, 1);
}

/* ---- data ranges ---------------------------------------------------------------- */

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

typedef struct range {
    double lo, hi;
    int any;
} range;

static void extend(range *r, double v, int log_scale)
{
    if (!isfinite(v) || (log_scale && !(v > 0)))
        return;
    if (!r->any || v < r->lo)
        r->lo = v;
    if (!r->any || v > r->hi)
        r->hi = v;
    r->any = 1;
}

/* Prepares the series (bases, widths) and takes the x range of a panel's
 * series and own annotations into rx. */
static int panel_data(sat_chart *c, sat_chart_panel *p, range *rx)
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
            extend(rx, 0, xlog);
            for (size_t i = 0; i < s->n; i++)
                extend(rx, s->y[i] * 1.12, xlog);
            continue;
        }
        for (size_t i = 0; i < s->n; i++) {
            if (isfinite(s->y[i]))
                p->has_data = 1;
            extend(rx, s->x[i], xlog);
            if (s->style == SAT_SERIES_STACKED || s->style == SAT_SERIES_BARS ||
                s->style == SAT_SERIES_STEP)
                extend(rx, ch_bar_right(s, xa, i), xlog);
        }
    }
    for (size_t k = 0; k < p->nannots; k++)
        if (p->annots[k].kind == CH_A_VLINE || p->annots[k].kind == CH_A_LABEL)
            extend(rx, p->annots[k].x0, xlog);
    SAT_FORWARD_IF_ERROR(stack(c, p, 0));
    return stack(c, p, 1);
}

/* The y range of a side of a panel. */
static void panel_yrange(sat_chart_panel *p, int right, ch_axis *a)
{
    range r = {0};
    int ylog = a->scale == SAT_AXIS_LOG;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->right != right)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double y = s->y[i];
            if (s->style == SAT_SERIES_STACKED && s->base && isfinite(y))
                y += s->base[i];
            extend(&r, y, ylog);
        }
    }
    if (!right)
        for (size_t k = 0; k < p->nannots; k++)
            if (p->annots[k].kind == CH_A_HLINE || p->annots[k].kind == CH_A_LABEL)
                extend(&r, p->annots[k].y, ylog);
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

static void xrange_finish(ch_axis *a, range *r)
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

/* ---- ticks fitted to the room ----------------------------------------------------- */

static double widest_tick(L *l, const ch_axis *a)
{
    double w = 0;
    for (size_t i = 0; i < a->nticks; i++) {
        if (a->ticks[i].label)
            w = fmax(w, measure(l, a->ticks[i].label, SZ_TICK, 0, 0, NULL, NULL));
        if (a->ticks[i].label2)
            w = fmax(w, measure(l, a->ticks[i].label2, SZ_TICK, 0, 0, NULL, NULL));
    }
    return w;
}

/* x ticks: as many as fit side by side with a gap between their labels. */
static int xticks_fit(L *l, ch_axis *a, double fw)
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
            double w0 = fmax(measure(l, a->ticks[i - 1].label, SZ_TICK, 0, 0, NULL, NULL),
                             a->ticks[i - 1].label2
                                 ? measure(l, a->ticks[i - 1].label2, SZ_TICK, 0, 0, NULL, NULL)
                                 : 0);
            double w1 = fmax(measure(l, a->ticks[i].label, SZ_TICK, 0, 0, NULL, NULL),
                             a->ticks[i].label2
                                 ? measure(l, a->ticks[i].label2, SZ_TICK, 0, 0, NULL, NULL)
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
static int panel_categories(L *l, sat_chart_panel *p, double maxw)
{
    ch_axis *a = &p->y;
    for (size_t i = 0; i < a->ncats; i++)
        free(a->cats[i]);
    free(a->cats);
    a->cats = NULL;
    a->ncats = 0;
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
            char *fitted = fit_text(l, s->cat[i], SZ_TICK, 0, maxw);
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
    return SAT_OK;
}

static hroom panel_hroom(L *l, sat_chart_panel *p)
{
    double lh = line_h(l, SZ_AXIS);
    hroom r = {M_OUT, M_OUT};
    double w = 0;
    if (p->y.scale == SAT_AXIS_CATEGORY) {
        for (size_t i = 0; i < p->y.ncats; i++)
            w = fmax(w, measure(l, p->y.cats[i], SZ_TICK, 0, 0, NULL, NULL));
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

/* ---- the header of a panel: title, legend entries, note ------------------------------ */

/* A series is named in the legend when it has something drawn. */
static int in_legend(const sat_chart_series *s)
{
    if (!s->name || !s->name[0])
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(s->y[i]))
            return 1;
    return 0;
}

static char *legend_name(sat_chart *c, const sat_chart_series *s)
{
    if (!s->right)
        return ch_strdup(c, s->name);
    size_t n = strlen(s->name);
    char *d = malloc(n + 16);
    if (!d) {
        c->status = SAT_E_NOMEM;
        return NULL;
    }
    snprintf(d, n + 16, "%s (right)", s->name);
    return d;
}

/* Flows the header's items from x0 over width fw starting at baseline y,
 * wrapping, on at most max_lines lines: the legend entries that do not fit
 * are summed up as "+N more" (each entry is cut to half the width first).
 * Returns the lines used. With commit, places the texts. */
static int header_flow(L *l, sat_chart_panel *p, double x0, double fw, double y, int max_lines, int commit)
{
    sat_chart *c = l->c;
    double lh = line_h(l, SZ_PANEL) + 2, asc = ascent(l, SZ_LEGEND);
    double x = x0;
    int lines = 1;
    if (max_lines < 1)
        max_lines = 1;
    if (p->title) {
        char *title = fit_text(l, p->title, SZ_PANEL, 1, fw);
        if (!title)
            return lines;
        double w = measure(l, title, SZ_PANEL, 1, 0, NULL, NULL);
        if (commit) {
            tspec t = {title, CH_T_PANEL_TITLE, SZ_PANEL, 1, 0, 0, 0, (int)p->index};
            place1(l, &t, x, y, 0);
        }
        free(title);
        x += w + 14;
    }
    size_t left = 0;
    for (size_t k = 0; k < p->nseries; k++)
        left += in_legend(p->series[k]);
    double more_w = measure(l, "+99 more", SZ_LEGEND, 0, 1, NULL, NULL);
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        s->in_legend = 0;
        if (!in_legend(s))
            continue;
        char *full = legend_name(c, s);
        char *name = full ? fit_text(l, full, SZ_LEGEND, 0, fw / 2) : NULL;
        free(full);
        if (!name)
            return lines;
        double w = SWATCH_W + 3 + measure(l, name, SZ_LEGEND, 0, 0, NULL, NULL);
        if (x + w > x0 + fw && x > x0) {
            if (lines == max_lines) {
                free(name);
                break;
            }
            lines++;
            x = x0;
            y += lh;
        }
        /* on the last line an entry leaves room for the "+N more" after it */
        if (lines == max_lines && left > 1 && x + w + 10 + more_w > x0 + fw && x > x0) {
            free(name);
            break;
        }
        if (commit) {
            s->in_legend = 1;
            s->swatch = (ch_rect){x, y - asc * 0.8, SWATCH_W, asc * 0.8};
            tspec t = {name, CH_T_LEGEND, SZ_LEGEND, 0, 0, 0, 0, (int)p->index};
            if (place1(l, &t, x + SWATCH_W + 3, y, 0) < 0)
                s->in_legend = 0;
        }
        free(name);
        x += w + 10;
        left--;
    }
    if (left) {
        char more[32];
        snprintf(more, sizeof more, "+%zu more", left);
        if (commit) {
            tspec t = {more, CH_T_LEGEND, SZ_LEGEND, 0, 1, 0, 1, (int)p->index};
            place1(l, &t, x, y, 0);
        }
        x += more_w + 10;
    }
    if (p->note && p->has_data) {
        double w = measure(l, p->note, SZ_LEGEND, 0, 1, NULL, NULL);
        if (x + w > x0 + fw && x > x0 && lines < max_lines) {
            lines++;
            x = x0;
            y += lh;
        }
        if (commit) {
            tspec t = {p->note, CH_T_NOTE, SZ_LEGEND, 0, 1, 0, 1, (int)p->index};
            place1(l, &t, x, y, 0);
        }
    }
    return lines;
}

/* ---- the strip of span and marker labels ------------------------------------------------ */

static int is_strip(const ch_annot *a)
{
    return (a->kind == CH_A_SPAN || a->kind == CH_A_MARKER) && a->label && a->label[0];
}

/* The row of each strip label (-1: dropped), by intervals over the frame;
 * returns the rows used. */
static int strip_rows(L *l, const ch_rect *f, int *row)
{
    sat_chart *c = l->c;
    double ends[STRIP_ROWS][64];
    double starts[STRIP_ROWS][64];
    size_t nin[STRIP_ROWS] = {0};
    int used = 0;
    for (size_t k = 0; k < c->nannots; k++) {
        ch_annot *a = &c->annots[k];
        row[k] = -1;
        if (!is_strip(a))
            continue;
        double w = measure(l, a->label, SZ_ANNOT, 0, 0, NULL, NULL);
        double cx = a->kind == CH_A_SPAN ? (ch_map(&c->x, a->x0, f->x, f->w) + ch_map(&c->x, a->x1, f->x, f->w)) / 2
                                          : ch_map(&c->x, a->x0, f->x, f->w);
        double x0 = cx - w / 2;
        if (x0 < f->x)
            x0 = f->x;
        if (x0 + w > f->x + f->w)
            x0 = f->x + f->w - w;
        for (int r = 0; r < STRIP_ROWS; r++) {
            int clash = 0;
            for (size_t i = 0; i < nin[r] && !clash; i++)
                clash = x0 < ends[r][i] + 4 && starts[r][i] < x0 + w + 4;
            if (!clash && nin[r] < 64) {
                starts[r][nin[r]] = x0;
                ends[r][nin[r]++] = x0 + w;
                row[k] = r;
                if (r + 1 > used)
                    used = r + 1;
                break;
            }
        }
    }
    return used;
}

/* ---- the whole page -------------------------------------------------------------------------- */

static double xarea_h(L *l, const ch_axis *a, int zone_label)
{
    double h = TICK_LEN + 2 + line_h(l, SZ_TICK);
    int dates = 0;
    for (size_t i = 0; i < a->nticks; i++)
        dates |= a->ticks[i].label2 != NULL;
    if (dates)
        h += line_h(l, SZ_TICK);
    if (a->label || zone_label)
        h += line_h(l, SZ_AXIS) + 2;
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
static void place_y(L *l, sat_chart_panel *p)
{
    ch_rect *f = &p->frame;
    double asc = ascent(l, SZ_TICK), lh = line_h(l, SZ_AXIS);
    double mid = (asc - line_h(l, SZ_TICK) + asc) / 2; /* baseline offset centring a line on y */
    double tickw = 0;
    if (!p->has_data)
        return;
    if (p->y.scale == SAT_AXIS_CATEGORY) {
        double rowh = p->y.ncats ? f->h / (double)p->y.ncats : f->h;
        for (size_t i = 0; i < p->y.ncats; i++) {
            tspec t = {p->y.cats[i], CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
            place1(l, &t, f->x - TICK_LEN - 2, f->y + rowh * (i + 0.5) + mid, 2);
        }
        return;
    }
    tickw = widest_tick(l, &p->y);
    for (size_t i = 0; i < p->y.nticks; i++) {
        double y = f->y + f->h - ch_map(&p->y, p->y.ticks[i].v, 0, f->h);
        tspec t = {p->y.ticks[i].label, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
        place1(l, &t, f->x - TICK_LEN - 2, y + mid, 2);
    }
    if (p->y.label) {
        tspec t = {p->y.label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 1, 1, (int)p->index};
        double desc = lh - ascent(l, SZ_AXIS);
        place1(l, &t, f->x - TICK_LEN - 2 - tickw - GAP - desc, f->y + f->h / 2, 1);
    }
    if (!has_y2(p))
        return;
    double w2 = widest_tick(l, &p->y2);
    for (size_t i = 0; i < p->y2.nticks; i++) {
        double y = f->y + f->h - ch_map(&p->y2, p->y2.ticks[i].v, 0, f->h);
        tspec t = {p->y2.ticks[i].label, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, (int)p->index};
        place1(l, &t, f->x + f->w + TICK_LEN + 2, y + mid, 0);
    }
    if (p->y2.label) {
        tspec t = {p->y2.label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 1, 1, (int)p->index};
        place1(l, &t, f->x + f->w + TICK_LEN + 2 + w2 + GAP + ascent(l, SZ_AXIS), f->y + f->h / 2, 1);
    }
}

/* Texts under a frame: the x tick labels, their date lines, the axis label.
 * A label at the page's edge is pulled in. */
static double place_x(L *l, const ch_axis *a, const ch_rect *f, int panel)
{
    double asc = ascent(l, SZ_TICK), lh = line_h(l, SZ_TICK);
    double y = f->y + f->h + TICK_LEN + 2 + asc;
    int dates = 0;
    for (size_t i = 0; i < a->nticks; i++) {
        double x = ch_map(a, a->ticks[i].v, f->x, f->w);
        for (int line = 0; line < 2; line++) {
            const char *s = line ? a->ticks[i].label2 : a->ticks[i].label;
            if (!s)
                continue;
            dates |= line;
            double w = measure(l, s, SZ_TICK, 0, 0, NULL, NULL);
            double x0 = x - w / 2;
            if (x0 < 1)
                x0 = 1;
            if (x0 + w > l->c->w - 1)
                x0 = l->c->w - 1 - w;
            tspec t = {s, CH_T_TICK, SZ_TICK, 0, 0, 0, 1, panel};
            place1(l, &t, x0, y + line * lh, 0);
        }
    }
    double bottom = y + (dates ? lh : 0) + (lh - asc);
    char *label = x_label(l->c, a);
    if (label) {
        tspec t = {label, CH_T_AXIS_LABEL, SZ_AXIS, 0, 0, 0, 1, panel};
        place1(l, &t, f->x + f->w / 2, bottom + 2 + ascent(l, SZ_AXIS), 1);
        bottom += 2 + line_h(l, SZ_AXIS);
        free(label);
    }
    return bottom;
}

/* Labels of a panel's own annotations, inside its frame. */
static void place_panel_annots(L *l, sat_chart_panel *p)
{
    ch_rect *f = &p->frame;
    ch_axis *xa = ch_panel_xaxis(p);
    double asc = ascent(l, SZ_ANNOT), lh = line_h(l, SZ_ANNOT);
    for (size_t k = 0; k < p->nannots; k++) {
        ch_annot *a = &p->annots[k];
        a->text = -1;
        if (!a->label || !a->label[0])
            continue;
        tspec t = {a->label, a->kind == CH_A_LABEL ? CH_T_POINT : CH_T_LINE, SZ_ANNOT, 0, 0, 0, 0,
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
            ch_rect b = text_box(l, &t, 0, 0, &w);
            double x0 = xs[i] - (an[i] == 1 ? w / 2 : an[i] == 2 ? w : 0);
            b = text_box(l, &t, x0, ys[i], &w);
            if (b.x >= f->x && b.x + b.w <= f->x + f->w && b.y >= f->y && b.y + b.h <= f->y + f->h) {
                xs[m] = xs[i], ys[m] = ys[i], an[m++] = an[i];
            }
        }
        if (!m) /* no room inside its frame */
            drop(l, &t, xs[0], ys[0], an[0]);
        else
            a->text = place(l, &t, xs, ys, an, m);
    }
}

/* The value at the end of each horizontal bar, in the axis's unit, when it
 * fits inside the frame beside the bar (else inside the bar's end). */
static void place_bar_values(L *l, sat_chart_panel *p)
{
    if (p->y.scale != SAT_AXIS_CATEGORY || !p->y.ncats)
        return;
    const ch_rect *f = &p->frame;
    const ch_axis *xa = ch_panel_xaxis(p);
    double rowh = f->h / (double)p->y.ncats, mid = (2 * ascent(l, SZ_ANNOT) - line_h(l, SZ_ANNOT)) / 2;
    size_t nh = 0, me = 0;
    for (size_t k = 0; k < p->nseries; k++)
        nh += p->series[k]->style == SAT_SERIES_HBARS;
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        if (s->style != SAT_SERIES_HBARS || !s->row)
            continue;
        double th = rowh * 0.72 / (double)nh;
        for (size_t i = 0; i < s->n; i++) {
            if (!isfinite(s->y[i]))
                continue;
            char v[64];
            ch_tick_label(v, sizeof v, xa->unit, s->y[i]);
            tspec t = {v, CH_T_VALUE, SZ_ANNOT, 0, 0, 0, 1, (int)p->index};
            double x = ch_map(xa, s->y[i], f->x, f->w);
            double y = f->y + rowh * (double)s->row[i] + rowh * 0.14 + th * ((double)me + 0.5) + mid;
            double w = measure(l, v, SZ_ANNOT, 0, 0, NULL, NULL);
            if (x + 3 + w <= f->x + f->w)
                place1(l, &t, x + 3, y, 0);
            else
                drop(l, &t, x + 3, y, 0);
        }
        me++;
    }
}

/* A panel with nothing to draw takes a third of its share of the height:
 * its note needs a line, not a frame as tall as the others. */
static double eff_weight(const sat_chart_panel *p)
{
    return p->has_data ? p->weight : p->weight / 3;
}

static int layout(L *l)
{
    sat_chart *c = l->c;
    clear_layout(c);
    size_t np = c->npanels;
    if (!np)
        return SAT_OK;
    /* data */
    range shared = {0};
    for (size_t i = 0; i < np; i++) {
        sat_chart_panel *p = c->panels[i];
        range own = {0};
        SAT_FORWARD_IF_ERROR(panel_data(c, p, c->shared ? &shared : &own));
        if (!c->shared) {
            if (!p->x.set)
                p->x.scale = SAT_AXIS_LINEAR;
            xrange_finish(&p->x, &own);
        }
        panel_yrange(p, 0, &p->y);
        if (p->y2.set)
            panel_yrange(p, 1, &p->y2);
        p->show_x = !c->shared || i == np - 1;
    }
    size_t nbands = 0;
    if (c->shared) {
        for (size_t k = 0; k < c->nannots; k++) {
            extend(&shared, c->annots[k].x0, c->x.scale == SAT_AXIS_LOG);
            extend(&shared, c->annots[k].x1, c->x.scale == SAT_AXIS_LOG);
            nbands += c->annots[k].kind == CH_A_BAND;
        }
        xrange_finish(&c->x, &shared);
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
            top += line_h(l, SZ_TITLE) + 6;
        double fixed = top + M_OUT, wsum = 0;
        double hl = line_h(l, SZ_PANEL) + 2;
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            if (p->show_x)
                fixed += xarea_h(l, ch_panel_xaxis(p), ch_panel_xaxis(p)->scale == SAT_AXIS_TIME);
            if (i + 1 < np)
                fixed += PANEL_GAP;
            wsum += eff_weight(p);
        }
        if (c->shared) {
            strip_used = strip_rows(l, &c->panels[0]->frame, rows);
            fixed += strip_used * (line_h(l, SZ_ANNOT) + 1) + (strip_used ? 2 : 0);
            fixed += nbands ? nbands * BAND_ROW + 4 : 0;
        }
        /* the headers take at most 40% of what is left, shared alike */
        max_lines = (int)((c->h - fixed) * 0.4 / np / hl);
        for (size_t i = 0; i < np; i++) {
            sat_chart_panel *p = c->panels[i];
            fixed += header_flow(l, p, p->frame.x, p->frame.w, 0, max_lines, 0) * hl + 2;
        }
        double avail = fmax(c->h - fixed, 10.0 * np);
        for (size_t i = 0; i < np; i++)
            heights[i] = avail * eff_weight(c->panels[i]) / wsum;
    }

    /* final places */
    if (c->title) {
        char *title = fit_text(l, c->title, SZ_TITLE, 1, c->w - 2 * M_OUT);
        tspec t = {title, CH_T_TITLE, SZ_TITLE, 1, 0, 0, 0, -1};
        if (title)
            place1(l, &t, M_OUT, M_OUT + ascent(l, SZ_TITLE), 0);
        free(title);
    }
    double y = top;
    double hl = line_h(l, SZ_PANEL) + 2;
    double bottom = y;
    for (size_t i = 0; i < np; i++) {
        sat_chart_panel *p = c->panels[i];
        int lines = header_flow(l, p, p->frame.x, p->frame.w, y + ascent(l, SZ_PANEL), max_lines, 1);
        y += lines * hl + 2;
        if (i == 0 && c->shared) {
            double alh = line_h(l, SZ_ANNOT) + 1;
            c->strip = (ch_rect){p->frame.x, y, p->frame.w, strip_used * alh};
            for (size_t k = 0; k < c->nannots; k++) {
                ch_annot *a = &c->annots[k];
                if (!is_strip(a))
                    continue;
                tspec t = {a->label, a->kind == CH_A_SPAN ? CH_T_SPAN : CH_T_MARKER, SZ_ANNOT, 0, 0, 0, 0, -1};
                double w = measure(l, a->label, SZ_ANNOT, 0, 0, NULL, NULL);
                const ch_rect *f = &p->frame;
                double cx = a->kind == CH_A_SPAN
                                ? (ch_map(&c->x, a->x0, f->x, f->w) + ch_map(&c->x, a->x1, f->x, f->w)) / 2
                                : ch_map(&c->x, a->x0, f->x, f->w);
                double x0 = fmin(fmax(cx - w / 2, f->x), f->x + f->w - w);
                if (rows[k] < 0) { /* no row had room: listed where the top one is */
                    drop(l, &t, x0, y + ascent(l, SZ_ANNOT), 0);
                    continue;
                }
                double by = y + (strip_used - 1 - rows[k]) * alh + ascent(l, SZ_ANNOT);
                a->text = place1(l, &t, x0, by, 0);
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
            tspec t = {note, CH_T_NOTE, SZ_NOTE, 0, 1, 0, 1, (int)p->index};
            place1(l, &t, p->frame.x + p->frame.w / 2,
                       p->frame.y + p->frame.h / 2 + ascent(l, SZ_NOTE) / 2, 1);
        }
        place_panel_annots(l, p);
        place_bar_values(l, p);
    }
    /* bands: one row each under the x axis */
    if (c->shared && nbands) {
        const ch_rect *f = &c->panels[np - 1]->frame;
        double by = bottom + 4;
        double asc = ascent(l, SZ_BAND);
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
                tspec t = {a->label, CH_T_BAND, SZ_BAND, 0, 0, 0, 0, -1};
                double w = measure(l, a->label, SZ_BAND, 0, 0, NULL, NULL);
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
                a->text = place(l, &t, xs, ys, an, n);
            }
            by += BAND_ROW;
        }
    }
    return c->status;
}

int ch_layout(sat_chart *c)
{
    if (!c)
        return SAT_E_NOMEM;
    if (c->status != SAT_OK || c->laid_out)
        return c->status;
    L l = {c, NULL, NULL};
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
