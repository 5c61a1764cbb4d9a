/*
 * chart.c - the chart model (satscope/chart.h): the builders that record
 * panels, axes, series, points, bars and annotations, and their ownership
 * (every string copied, everything freed by sat_chart_free). Builder calls
 * on NULL handles do nothing; a failed allocation sets the sticky
 * SAT_E_NOMEM and later calls still return safely.
 *
 * Also the palette (Okabe & Ito, "Color Universal Design", 2008: eight
 * colours told apart with every common colour-vision deficiency) and the
 * result set lookup the chart kinds read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

static const unsigned char palette[SAT_COLOR__COUNT][3] = {
    {0xE6, 0x9F, 0x00}, /* orange */
    {0x56, 0xB4, 0xE9}, /* sky blue */
    {0x00, 0x9E, 0x73}, /* bluish green */
    {0xF0, 0xE4, 0x42}, /* yellow */
    {0x00, 0x72, 0xB2}, /* blue */
    {0xD5, 0x5E, 0x00}, /* vermillion */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0x00, 0x00, 0x00}, /* black */
};
static const char *const palette_hex[SAT_COLOR__COUNT] = {"#E69F00", "#56B4E9", "#009E73", "#F0E442",
                                                          "#0072B2", "#D55E00", "#CC79A7", "#000000"};

/* The order AUTO takes them: yellow, hard to see as a thin line on white,
 * comes last but for black. */
static const int auto_order[SAT_COLOR__COUNT] = {SAT_COLOR_BLUE,   SAT_COLOR_ORANGE, SAT_COLOR_GREEN,
                                                 SAT_COLOR_VERMILLION, SAT_COLOR_SKY_BLUE,
                                                 SAT_COLOR_PURPLE, SAT_COLOR_YELLOW, SAT_COLOR_BLACK};

void ch_color_rgb(int i, double rgb[3])
{
    if (i < 0 || i >= SAT_COLOR__COUNT)
        i = SAT_COLOR_BLACK;
    for (int k = 0; k < 3; k++)
        rgb[k] = palette[i][k] / 255.0;
}

const char *ch_color_hex(int i)
{
    return i >= 0 && i < SAT_COLOR__COUNT ? palette_hex[i] : palette_hex[SAT_COLOR_BLACK];
}

const char *ch_style_name(sat_series_style s)
{
    static const char *const names[] = {"line", "step", "stacked", "points", "bars", "hbars"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *ch_scale_name(sat_axis_scale s)
{
    static const char *const names[] = {"linear", "log", "time", "category"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *const ch_annot_names[] = {"span", "marker", "band", "vline", "hline", "label"};

/* The length of the valid UTF-8 sequence at p (1..4), 0 if none is. */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 && p[0] < 0xF0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Every text the chart keeps is copied here, and cleaned: a word from the
 * inputs (a filter, a DN, a file's name) may hold a control character or
 * bytes that are no UTF-8, which would put cairo's context in an error for
 * good (no text measured or drawn after it) and break the SVG's XML; each
 * becomes "?". */
char *ch_strdup(sat_chart *c, const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *d = malloc(len + 1);
    if (!d) {
        c->status = SAT_E_NOMEM;
        return NULL;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0 || *p < 0x20 || *p == 0x7F) {
            d[k++] = '?';
            p++;
            continue;
        }
        memcpy(d + k, p, n);
        k += n;
        p += n;
    }
    d[k] = '\0';
    return d;
}

void *ch_grow(sat_chart *c, void *p, size_t *cap, size_t need, size_t size)
{
    if (sat_grow_(&p, cap, need, size) < 0) {
        c->status = SAT_E_NOMEM;
        return NULL;
    }
    return p;
}

void ch_axis_clear_layout(ch_axis *a)
{
    for (size_t i = 0; i < a->nticks; i++) {
        free(a->ticks[i].label);
        free(a->ticks[i].label2);
    }
    free(a->ticks);
    a->ticks = NULL;
    a->nticks = 0;
}

static void axis_free(ch_axis *a)
{
    ch_axis_clear_layout(a);
    free(a->label);
    for (size_t i = 0; i < a->ncats; i++)
        free(a->cats[i]);
    free(a->cats);
    free(a->cat_text);
}

static void axis_set(sat_chart *c, ch_axis *a, sat_axis_scale scale, const char *label, sat_unit unit)
{
    free(a->label);
    a->set = 1;
    a->scale = scale;
    a->label = ch_strdup(c, label);
    a->unit = unit;
    c->laid_out = 0;
}

ch_axis *ch_panel_xaxis(sat_chart_panel *p)
{
    return p->chart->shared ? &p->chart->x : &p->x;
}

sat_chart *sat_chart_new(const char *title, double width_pt, double height_pt)
{
    sat_chart *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    /* 50 pt to 20000 pt (a PNG of 40000 pixels a side at most) */
    c->w = width_pt > 50 ? (width_pt < 20000 ? width_pt : 20000) : 50;
    c->h = height_pt > 50 ? (height_pt < 20000 ? height_pt : 20000) : 50;
    if (height_pt == 0) { /* as tall as its panels need (the layout says) */
        c->auto_h = 1;
        c->h = 20000;
    }
    c->title = ch_strdup(c, title);
    if (c->status != SAT_OK) {
        sat_chart_free(c);
        return NULL;
    }
    return c;
}

static void texts_free(ch_text *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(t[i].s);
}

void sat_chart_free(sat_chart *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->npanels; i++) {
        sat_chart_panel *p = c->panels[i];
        for (size_t k = 0; k < p->nseries; k++) {
            sat_chart_series *s = p->series[k];
            free(s->name);
            free(s->x);
            free(s->y);
            free(s->base);
            free(s->row);
            free(s->vtext);
            if (s->cat)
                for (size_t j = 0; j < s->n; j++)
                    free(s->cat[j]);
            free(s->cat);
            free(s);
        }
        free(p->series);
        for (size_t k = 0; k < p->nannots; k++)
            free(p->annots[k].label);
        free(p->annots);
        axis_free(&p->x);
        axis_free(&p->y);
        axis_free(&p->y2);
        free(p->title);
        free(p->note);
        free(p);
    }
    free(c->panels);
    for (size_t k = 0; k < c->nannots; k++)
        free(c->annots[k].label);
    free(c->annots);
    axis_free(&c->x);
    texts_free(c->texts, c->ntexts);
    free(c->texts);
    texts_free(c->dropped, c->ndropped);
    free(c->dropped);
    free(c->title);
    free(c);
}

int sat_chart_status(const sat_chart *c)
{
    return c ? c->status : SAT_E_NOMEM;
}

void sat_chart_share_x(sat_chart *c, sat_axis_scale scale, const char *label, sat_unit unit)
{
    if (!c)
        return;
    c->shared = 1;
    axis_set(c, &c->x, scale, label, unit);
}

void sat_chart_set_time_zone(sat_chart *c, int32_t utc_offset_s, int utc)
{
    if (!c)
        return;
    c->tz = utc ? 0 : utc_offset_s;
    c->utc = utc || utc_offset_s == 0;
    c->laid_out = 0;
}

void sat_chart_set_x_range(sat_chart *c, double lo, double hi)
{
    if (!c || !(hi > lo))
        return;
    c->x.fixed = 1;
    c->x.flo = lo;
    c->x.fhi = hi;
    c->laid_out = 0;
}

sat_chart_panel *sat_chart_panel_add(sat_chart *c, const char *title, double weight)
{
    if (!c || c->status != SAT_OK)
        return NULL;
    sat_chart_panel **ps = ch_grow(c, c->panels, &c->cappanels, c->npanels + 1, sizeof *ps);
    if (!ps)
        return NULL;
    c->panels = ps;
    sat_chart_panel *p = calloc(1, sizeof *p);
    if (!p) {
        c->status = SAT_E_NOMEM;
        return NULL;
    }
    p->chart = c;
    p->index = c->npanels;
    p->title = ch_strdup(c, title);
    p->weight = weight > 0 && isfinite(weight) ? weight : 1;
    p->y.scale = SAT_AXIS_LINEAR;
    c->panels[c->npanels++] = p;
    c->laid_out = 0;
    return p;
}

void sat_chart_panel_x(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit)
{
    if (p)
        axis_set(p->chart, &p->x, scale, label, unit);
}

void sat_chart_panel_y(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit)
{
    if (p)
        axis_set(p->chart, &p->y, scale, label, unit);
}

void sat_chart_panel_y_range(sat_chart_panel *p, double lo, double hi)
{
    if (!p || !(hi > lo))
        return;
    p->y.fixed = 1;
    p->y.flo = lo;
    p->y.fhi = hi;
    p->chart->laid_out = 0;
}

void sat_chart_panel_y2(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit,
                        double lo, double hi)
{
    if (!p)
        return;
    axis_set(p->chart, &p->y2, scale, label, unit);
    if (hi > lo) {
        p->y2.fixed = 1;
        p->y2.flo = lo;
        p->y2.fhi = hi;
    }
}

void sat_chart_panel_note(sat_chart_panel *p, const char *text)
{
    if (!p)
        return;
    free(p->note);
    p->note = ch_strdup(p->chart, text);
    p->chart->laid_out = 0;
}

static sat_chart_series *series_new(sat_chart_panel *p, const char *name, sat_series_style style,
                                    int color, int right)
{
    if (!p || p->chart->status != SAT_OK)
        return NULL;
    sat_chart *c = p->chart;
    sat_chart_series **ss = ch_grow(c, p->series, &p->capseries, p->nseries + 1, sizeof *ss);
    if (!ss)
        return NULL;
    p->series = ss;
    sat_chart_series *s = calloc(1, sizeof *s);
    if (!s) {
        c->status = SAT_E_NOMEM;
        return NULL;
    }
    s->panel = p;
    s->name = ch_strdup(c, name);
    s->style = style;
    if (color < 0 || color >= SAT_COLOR__COUNT)
        color = auto_order[p->next_color++ % SAT_COLOR__COUNT];
    s->color = color;
    s->right = right;
    p->series[p->nseries++] = s;
    c->laid_out = 0;
    return s;
}

sat_chart_series *sat_chart_series_add(sat_chart_panel *p, const char *name, sat_series_style style,
                                       int color)
{
    return series_new(p, name, style, color, 0);
}

sat_chart_series *sat_chart_series_right(sat_chart_panel *p, const char *name, sat_series_style style,
                                         int color)
{
    return series_new(p, name, style, color, 1);
}

void sat_chart_series_width(sat_chart_series *s, double width)
{
    if (s && width > 0 && isfinite(width)) {
        s->width = width;
        s->panel->chart->laid_out = 0;
    }
}

void sat_chart_series_dashed(sat_chart_series *s)
{
    if (s)
        s->dashed = 1;
}

static int series_room(sat_chart_series *s)
{
    sat_chart *c = s->panel->chart;
    if (c->status != SAT_OK)
        return 0;
    size_t cx = s->cap, cy = s->cap;
    double *x = ch_grow(c, s->x, &cx, s->n + 1, sizeof *x);
    if (!x)
        return 0;
    s->x = x;
    double *y = ch_grow(c, s->y, &cy, s->n + 1, sizeof *y);
    if (!y)
        return 0;
    s->y = y;
    if (s->style == SAT_SERIES_HBARS) {
        size_t cc = s->cap;
        char **cat = ch_grow(c, s->cat, &cc, s->n + 1, sizeof *cat);
        if (!cat)
            return 0;
        s->cat = cat;
    }
    s->cap = cx;
    c->laid_out = 0;
    return 1;
}

void sat_chart_point(sat_chart_series *s, double x, double y)
{
    if (!s || s->style == SAT_SERIES_HBARS || !isfinite(x) || !series_room(s))
        return;
    s->x[s->n] = x;
    s->y[s->n] = y; /* NAN kept: it breaks a line */
    s->n++;
}

void sat_chart_bar(sat_chart_series *s, const char *category, double value)
{
    if (!s || s->style != SAT_SERIES_HBARS || !category || !series_room(s))
        return;
    char *d = ch_strdup(s->panel->chart, category);
    if (!d)
        return;
    s->cat[s->n] = d;
    s->x[s->n] = (double)s->n;
    s->y[s->n] = value;
    s->n++;
}

static void annot_add(sat_chart *c, ch_annot **a, size_t *n, size_t *cap, ch_annot_kind kind,
                      double x0, double x1, double y, const char *label)
{
    if (!c || c->status != SAT_OK)
        return;
    ch_annot *g = ch_grow(c, *a, cap, *n + 1, sizeof *g);
    if (!g)
        return;
    *a = g;
    ch_annot *t = &g[*n];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->x0 = x0;
    t->x1 = x1;
    t->y = y;
    t->text = -1;
    t->label = ch_strdup(c, label);
    if (c->status != SAT_OK)
        return;
    (*n)++;
    c->laid_out = 0;
}

void sat_chart_span(sat_chart *c, double x0, double x1, const char *label)
{
    if (c && isfinite(x0) && isfinite(x1))
        annot_add(c, &c->annots, &c->nannots, &c->capannots, CH_A_SPAN, x0 < x1 ? x0 : x1,
                  x0 < x1 ? x1 : x0, NAN, label);
}

void sat_chart_marker(sat_chart *c, double x, const char *label)
{
    if (c && isfinite(x))
        annot_add(c, &c->annots, &c->nannots, &c->capannots, CH_A_MARKER, x, x, NAN, label);
}

void sat_chart_band(sat_chart *c, double x0, double x1, const char *label)
{
    if (c && isfinite(x0) && isfinite(x1))
        annot_add(c, &c->annots, &c->nannots, &c->capannots, CH_A_BAND, x0 < x1 ? x0 : x1,
                  x0 < x1 ? x1 : x0, NAN, label);
}

void sat_chart_panel_vline(sat_chart_panel *p, double x, const char *label)
{
    if (p && isfinite(x))
        annot_add(p->chart, &p->annots, &p->nannots, &p->capannots, CH_A_VLINE, x, x, NAN, label);
}

void sat_chart_panel_hline(sat_chart_panel *p, double y, const char *label)
{
    if (p && isfinite(y))
        annot_add(p->chart, &p->annots, &p->nannots, &p->capannots, CH_A_HLINE, NAN, NAN, y, label);
}

void sat_chart_panel_label(sat_chart_panel *p, double x, double y, const char *label)
{
    if (p && isfinite(x) && isfinite(y))
        annot_add(p->chart, &p->annots, &p->nannots, &p->capannots, CH_A_LABEL, x, x, y, label);
}

void sat_chart_show_width(sat_chart *c, double width_pt)
{
    if (c && width_pt > 0 && isfinite(width_pt))
        c->shown_w = width_pt;
}

double sat_chart_height(sat_chart *c)
{
    return c && ch_layout(c) == SAT_OK ? c->h : 0;
}

void sat_chart_svg_id_prefix(sat_chart *c, const char *prefix)
{
    if (!c)
        return;
    size_t k = 0;
    /* only characters an XML id may hold, so the prefix never breaks one */
    for (const char *s = prefix; s && *s && k + 1 < sizeof c->id_prefix; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            *s == '-' || *s == '_')
            c->id_prefix[k++] = *s;
    c->id_prefix[k] = '\0';
}
