/*
 * chart_text.c - measuring and placing the texts of a chart (chart_int.h,
 * ch_lay): the rule for text every part of the layout follows. Every text
 * is measured (cairo_text_extents with the font the drawing uses, hinting
 * off so sizes agree on every surface) and placed in order of importance
 * (titles, ticks, axis labels, legends, notes, annotations); one that would
 * overlap a text already placed, or leave the page, tries its other places
 * and is dropped when none is free (the structure dump lists the dropped
 * ones). So no two texts drawn overlap.
 */
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

const char *const ch_role_names[CH_T__COUNT] = {"title",  "panel_title", "axis_label", "tick",
                                                "legend", "note",        "span",       "marker",
                                                "band",   "line",        "point",      "value"};

int ch_rect_overlap(const ch_rect *a, const ch_rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

void ch_set_font(ch_lay *l, double size, int bold, int italic)
{
    cairo_select_font_face(l->cr, CH_FONT, italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(l->cr, size);
}

/* The advance width and the font's ascent and descent. */
double ch_measure(ch_lay *l, const char *s, double size, int bold, int italic, double *asc, double *desc)
{
    ch_set_font(l, size, bold, italic);
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

double ch_line_h(ch_lay *l, double size)
{
    double a, d;
    ch_measure(l, "", size, 0, 0, &a, &d);
    return a + d;
}

double ch_ascent(ch_lay *l, double size)
{
    double a, d;
    ch_measure(l, "", size, 0, 0, &a, &d);
    return a;
}

/* s cut (at a character boundary) with "…" so it is at most maxw wide. */
char *ch_fit_text(ch_lay *l, const char *s, double size, int bold, double maxw)
{
    char *d = ch_strdup(l->c, s);
    if (!d || ch_measure(l, d, size, bold, 0, NULL, NULL) <= maxw)
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
        if (ch_measure(l, buf, size, bold, 0, NULL, NULL) <= maxw)
            break;
    }
    free(d);
    return buf;
}

ch_rect ch_text_box(ch_lay *l, const ch_tspec *t, double x, double y, double *w)
{
    double asc, desc;
    *w = ch_measure(l, t->s, t->size, t->bold, t->italic, &asc, &desc);
    ch_rect b;
    if (t->vertical) /* turned a quarter left about (x, y): reads upwards from y */
        b = (ch_rect){x - asc, y - *w, asc + desc, *w};
    else
        b = (ch_rect){x, y - asc, *w, asc + desc};
    return b;
}

int ch_box_free(ch_lay *l, const ch_rect *b)
{
    sat_chart *c = l->c;
    if (b->x < -0.01 || b->y < -0.01 || b->x + b->w > c->w + 0.01 || b->y + b->h > c->h + 0.01)
        return 0;
    for (size_t i = 0; i < c->ntexts; i++)
        if (ch_rect_overlap(b, &c->texts[i].box))
            return 0;
    return 1;
}

static void record(ch_lay *l, ch_text **arr, size_t *n, size_t *cap, const ch_tspec *t, double x, double y,
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

void ch_drop(ch_lay *l, const ch_tspec *t, double x, double y, int anchor)
{
    double w;
    ch_rect b = ch_text_box(l, t, 0, 0, &w);
    x -= anchor == 1 ? w / 2 : anchor == 2 ? w : 0;
    b = ch_text_box(l, t, x, y, &w);
    record(l, &l->c->dropped, &l->c->ndropped, &l->c->capdropped, t, x, y, b);
}

/* Places t at the first free one of the n candidate positions (x, y: the
 * baseline's left end; anchor 0 left, 1 centre, 2 right of x). Returns the
 * text's index, or -1 when it was dropped. */
int ch_place(ch_lay *l, const ch_tspec *t, const double *xs, const double *ys, const int *anchors, size_t n)
{
    ch_rect b = {0};
    double bx = 0, by = 0;
    for (size_t i = 0; i < n; i++) {
        double w;
        b = ch_text_box(l, t, 0, 0, &w);
        double x = xs[i], y = ys[i];
        if (!t->vertical)
            x -= anchors[i] == 1 ? w / 2 : anchors[i] == 2 ? w : 0;
        else
            y += anchors[i] == 1 ? w / 2 : anchors[i] == 2 ? w : 0;
        b = ch_text_box(l, t, x, y, &w);
        bx = x;
        by = y;
        if (ch_box_free(l, &b)) {
            record(l, &l->c->texts, &l->c->ntexts, &l->c->captexts, t, x, y, b);
            return l->c->status == SAT_OK ? (int)l->c->ntexts - 1 : -1;
        }
    }
    if (n)
        record(l, &l->c->dropped, &l->c->ndropped, &l->c->capdropped, t, bx, by, b);
    return -1;
}

int ch_place1(ch_lay *l, const ch_tspec *t, double x, double y, int anchor)
{
    return ch_place(l, t, &x, &y, &anchor, 1);
}
