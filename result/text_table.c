/*
 * text_table.c - aligned text tables for the reports (satscope/result_out.h).
 */
#include <stdlib.h>
#include <string.h>

#include "satscope/result_out.h"

void sat_tbl_init(sat_tbl *t, const char *spec)
{
    /* spec: one char per column, 'l' or 'r' */
    memset(t, 0, sizeof *t);
    t->ncol = (int)strlen(spec);
    if (t->ncol > TBL_MAXCOL)
        t->ncol = TBL_MAXCOL;
    for (int i = 0; i < t->ncol; i++) {
        t->right[i] = spec[i] == 'r';
        t->keep[i] = spec[i] == 'L';
    }
}

void sat_tbl_row(sat_tbl *t, const char *const *vals)
{
    if (t->err)
        return;
    if (SAT_GROW(t->cells, t->cap, (t->nrows + 1) * (size_t)t->ncol) < 0) {
        t->err = 1;
        return;
    }
    for (int c = 0; c < t->ncol; c++) {
        const char *v = vals[c] ? vals[c] : "";
        /* keep tables on one line per row: control bytes become '?' */
        size_t l = strlen(v);
        char *p = (char *)malloc(l + 1);
        if (!p) {
            t->err = 1;
            for (int k = 0; k < c; k++)
                free(t->cells[t->nrows * (size_t)t->ncol + (size_t)k]);
            return;
        }
        for (size_t i = 0; i < l; i++)
            p[i] = ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) ? '?' : v[i];
        p[l] = '\0';
        t->cells[t->nrows * (size_t)t->ncol + (size_t)c] = p;
    }
    t->nrows++;
}

/* Display width: UTF-8 continuation bytes do not count. */
static size_t disp_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

void sat_tbl_set_width(sat_tbl *t, size_t width) { t->width = width; }

/* Cuts s (in place) to at most w display columns, the last three "...". */
static void cut_cell(char *s, size_t w)
{
    if (disp_width(s) <= w)
        return;
    size_t keep = w > 3 ? w - 3 : 0, seen = 0;
    char *p = s;
    for (; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80) {
            if (seen == keep)
                break;
            seen++;
        }
    }
    memcpy(p, "...", 4);
}

/* Narrows the widest left-aligned columns until a row fits t->width. */
static void fit_widths(const sat_tbl *t, size_t *w, size_t indent)
{
    enum { MIN_CUT = 12 };
    size_t total = indent;
    for (int c = 0; c < t->ncol; c++)
        total += w[c] + (c ? 2 : 0);
    while (t->width && total > t->width) {
        int widest = -1;
        for (int c = 0; c < t->ncol; c++)
            if (!t->right[c] && !t->keep[c] && w[c] > MIN_CUT &&
                (widest < 0 || w[c] > w[widest]))
                widest = c;
        if (widest < 0)
            return; /* numbers are never cut: the row stays wide */
        size_t cut = total - t->width;
        if (cut > w[widest] - MIN_CUT)
            cut = w[widest] - MIN_CUT;
        w[widest] -= cut;
        total -= cut;
    }
}

void sat_tbl_print(sat_tbl *t, FILE *out, const char *indent)
{
    size_t w[TBL_MAXCOL] = {0};
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncol; c++) {
            size_t l = disp_width(t->cells[r * (size_t)t->ncol + (size_t)c]);
            if (l > w[c])
                w[c] = l;
        }
    fit_widths(t, w, disp_width(indent));
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncol; c++)
            cut_cell(t->cells[r * (size_t)t->ncol + (size_t)c], w[c]);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(indent, out);
        /* no trailing blanks: the row ends at its last non-empty cell */
        int lastc = t->ncol - 1;
        while (lastc > 0 && !t->right[lastc] && !*t->cells[r * (size_t)t->ncol + (size_t)lastc])
            lastc--;
        for (int c = 0; c <= lastc; c++) {
            const char *v = t->cells[r * (size_t)t->ncol + (size_t)c];
            size_t pad = w[c] - disp_width(v);
            int last = c == lastc;
            if (t->right[c])
                fprintf(out, "%*s%s", (int)pad, "", v);
            else if (last)
                fputs(v, out);
            else
                fprintf(out, "%s%*s", v, (int)pad, "");
            if (!last)
                fputs("  ", out);
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < t->nrows * (size_t)t->ncol; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
}
