/*
 * chart_header.c - the flowed rows of a chart's layout (chart_int.h): a
 * panel's header (its title, then its legend entries flowing to the right
 * and wrapping, then its note) and the strip of span and marker labels
 * above the panels of a shared time axis (rows of labels, a label moved up
 * a row when it would overlap one before it or a marker's line).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

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
int ch_header_flow(ch_lay *l, sat_chart_panel *p, double x0, double fw, double y, int max_lines, int commit)
{
    sat_chart *c = l->c;
    double lh = ch_line_h(l, SZ_PANEL) + 2, asc = ch_ascent(l, SZ_LEGEND);
    double x = x0;
    int lines = 1;
    if (max_lines < 1)
        max_lines = 1;
    if (p->title) {
        char *title = ch_fit_text(l, p->title, SZ_PANEL, 1, fw);
        if (!title)
            return lines;
        double w = ch_measure(l, title, SZ_PANEL, 1, 0, NULL, NULL);
        if (commit) {
            ch_tspec t = {title, CH_T_PANEL_TITLE, SZ_PANEL, 1, 0, 0, 0, (int)p->index};
            ch_place1(l, &t, x, y, 0);
        }
        free(title);
        x += w + 14;
    }
    size_t left = 0;
    for (size_t k = 0; k < p->nseries; k++)
        left += in_legend(p->series[k]);
    double more_w = ch_measure(l, "+99 more", SZ_LEGEND, 0, 1, NULL, NULL);
    for (size_t k = 0; k < p->nseries; k++) {
        sat_chart_series *s = p->series[k];
        s->in_legend = 0;
        if (!in_legend(s))
            continue;
        char *full = legend_name(c, s);
        char *name = full ? ch_fit_text(l, full, SZ_LEGEND, 0, fw / 2) : NULL;
        free(full);
        if (!name)
            return lines;
        double w = SWATCH_W + 3 + ch_measure(l, name, SZ_LEGEND, 0, 0, NULL, NULL);
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
            ch_tspec t = {name, CH_T_LEGEND, SZ_LEGEND, 0, 0, 0, 0, (int)p->index};
            if (ch_place1(l, &t, x + SWATCH_W + 3, y, 0) < 0)
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
            ch_tspec t = {more, CH_T_LEGEND, SZ_LEGEND, 0, 1, 0, 1, (int)p->index};
            ch_place1(l, &t, x, y, 0);
        }
        x += more_w + 10;
    }
    if (p->note && p->has_data) {
        double w = ch_measure(l, p->note, SZ_LEGEND, 0, 1, NULL, NULL);
        if (x + w > x0 + fw && x > x0 && lines < max_lines) {
            lines++;
            x = x0;
            y += lh;
        }
        if (commit) {
            ch_tspec t = {p->note, CH_T_NOTE, SZ_LEGEND, 0, 1, 0, 1, (int)p->index};
            ch_place1(l, &t, x, y, 0);
        }
    }
    return lines;
}

/* ---- the strip of span and marker labels ------------------------------------------------ */

int ch_is_strip(const ch_annot *a)
{
    return (a->kind == CH_A_SPAN || a->kind == CH_A_MARKER) && a->label && a->label[0];
}

/* The row of each strip label (-1: dropped), by intervals over the frame;
 * returns the rows used. */
int ch_strip_rows(ch_lay *l, const ch_rect *f, int *row, double *xs)
{
    sat_chart *c = l->c;
    double ends[STRIP_ROWS][64];
    double starts[STRIP_ROWS][64];
    size_t nin[STRIP_ROWS] = {0};
    int used = 0;
    for (size_t k = 0; k < c->nannots; k++) {
        row[k] = -1;
        xs[k] = f->x;
    }
    /* markers first, next to the frame (their lines are short and cross
     * nothing), then the spans' labels round them */
    for (size_t n = 0; n < 2 * c->nannots; n++) {
        size_t k = n % c->nannots;
        ch_annot *a = &c->annots[k];
        if (!ch_is_strip(a) || (a->kind == CH_A_MARKER) != (n < c->nannots))
            continue;
        double w = ch_measure(l, a->label, SZ_ANNOT, 0, 0, NULL, NULL);
        double lo = ch_map(&c->x, a->x0, f->x, f->w), hi = ch_map(&c->x, a->x1, f->x, f->w);
        double cx = a->kind == CH_A_SPAN ? (lo + hi) / 2 : lo;
        /* a marker's line runs down from its label through the rows under
         * it (row 0 is next to the frame): it crosses no label there, and
         * labels placed later keep off it. A span's label is centred over
         * it, else just left or right of it; a marker's beside its line
         * first, so that the line's neighbours find room too. */
        int marker = a->kind == CH_A_MARKER;
        double cand[3] = {cx - w / 2, lo - 3 - w, hi + 3};
        if (marker)
            cand[0] = lo - 3 - w, cand[1] = hi + 3, cand[2] = cx - w / 2;
        for (int r = 0; r < STRIP_ROWS && row[k] < 0; r++) {
            for (int q = 0; q < 3 && row[k] < 0; q++) {
                double x0 = fmin(fmax(cand[q], f->x), f->x + f->w - w);
                int clash = 0;
                for (size_t i = 0; i < nin[r] && !clash; i++)
                    clash = x0 < ends[r][i] + 4 && starts[r][i] < x0 + w + 4;
                for (int b = 0; marker && b < r && !clash; b++)
                    for (size_t i = 0; i < nin[b] && !clash; i++)
                        clash = cx > starts[b][i] - 3 && cx < ends[b][i] + 3;
                if (clash || nin[r] >= 64)
                    continue;
                starts[r][nin[r]] = x0;
                ends[r][nin[r]++] = x0 + w;
                for (int b = 0; marker && b < r; b++)
                    if (nin[b] < 64) {
                        starts[b][nin[b]] = cx - 1;
                        ends[b][nin[b]++] = cx + 1;
                    }
                row[k] = r;
                xs[k] = x0;
                if (r + 1 > used)
                    used = r + 1;
            }
        }
    }
    return used;
}

