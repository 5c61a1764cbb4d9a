/*
 * text_table.c - aligned text tables for the reports (satscope/result_out.h):
 * fitted to a width by narrowing the widest text columns, whose cells are cut
 * ("...") or, in a column that wraps, carried on further lines.
 */
#include <stdlib.h>
#include <string.h>

#include "satscope/escape.h"
#include "satscope/result_out.h"

void sat_tbl_init(sat_tbl *t, const char *spec)
{
    /* spec: one char per column, 'l', 'r', 'L' or 'w' */
    memset(t, 0, sizeof *t);
    t->ncol = (int)strlen(spec);
    if (t->ncol > TBL_MAXCOL)
        t->ncol = TBL_MAXCOL;
    for (int i = 0; i < t->ncol; i++) {
        t->right[i] = spec[i] == 'r';
        t->keep[i] = spec[i] == 'L';
        t->wrap[i] = spec[i] == 'w';
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
        /* one line per row, no control reaching the terminal: every control
         * (TAB and LF too) and every byte that is not UTF-8 escaped */
        char *p = sat_escape_dup(v, strlen(v), 0);
        if (!p) {
            t->err = 1;
            for (int k = 0; k < c; k++)
                free(t->cells[t->nrows * (size_t)t->ncol + (size_t)k]);
            return;
        }
        t->cells[t->nrows * (size_t)t->ncol + (size_t)c] = p;
    }
    t->nrows++;
}

/* Display width of n bytes: UTF-8 continuation bytes do not count. */
static size_t disp_width_n(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

static size_t disp_width(const char *s) { return disp_width_n(s, strlen(s)); }

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

/* ---- cells that wrap -------------------------------------------------------------
 * A wrapped cell breaks after a blank (dropped there) or after a '/' (a path
 * goes on at its next directory), never inside a word: a name or a number
 * stays whole. Its further lines start two columns in. */
#define WRAP_IN 2

/* The length in bytes of the next word of s: up to a blank, or through a '/'. */
static size_t word_len(const char *s)
{
    size_t n = 0;
    while (s[n] && s[n] != ' ') {
        if (s[n++] == '/')
            break;
    }
    return n;
}

/* The narrowest a wrapped column may get: its longest word on a further line. */
static size_t longest_word(const char *s)
{
    size_t best = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t n = word_len(s), w = disp_width_n(s, n);
        best = w > best ? w : best;
        s += n;
    }
    return best ? best + WRAP_IN : 0;
}

/* s wrapped into lines of at most w display columns, '\n' between them: a
 * new string (NULL when out of memory). A word wider than a line has one of
 * its own. */
static char *wrap_cell(const char *s, size_t w)
{
    size_t len = strlen(s);
    /* each break adds at most "\n" and WRAP_IN blanks for a blank or nothing */
    char *o = (char *)malloc(len * (2 + WRAP_IN) + 1);
    if (!o)
        return NULL;
    size_t ol = 0, col = 0;
    while (*s) {
        int blank = *s == ' ';
        while (*s == ' ')
            s++;
        size_t n = word_len(s), ww = disp_width_n(s, n);
        if (!n)
            break;
        size_t need = (col && blank ? 1 : 0) + ww;
        if (col && col + need > w) {
            o[ol++] = '\n';
            memset(o + ol, ' ', WRAP_IN);
            ol += WRAP_IN;
            col = WRAP_IN;
        } else if (col && blank) {
            o[ol++] = ' ';
            col++;
        }
        memcpy(o + ol, s, n);
        ol += n;
        col += ww;
        s += n;
    }
    o[ol] = '\0';
    return o;
}

/* Line `i` of a cell ('\n' between its lines): its start and *n bytes; "" past its end. */
static const char *cell_line(const char *cell, size_t i, size_t *n)
{
    const char *p = cell;
    while (i && p) {
        p = strchr(p, '\n');
        if (p)
            p++;
        i--;
    }
    if (!p) {
        *n = 0;
        return "";
    }
    *n = strcspn(p, "\n");
    return p;
}

/* Narrows the widest left-aligned columns until a row fits t->width. */
static void fit_widths(const sat_tbl *t, size_t *w, const size_t *floor_w, size_t indent)
{
    size_t total = indent;
    for (int c = 0; c < t->ncol; c++)
        total += w[c] + (c ? 2 : 0);
    while (t->width && total > t->width) {
        int widest = -1;
        for (int c = 0; c < t->ncol; c++)
            if (!t->right[c] && !t->keep[c] && w[c] > floor_w[c] &&
                (widest < 0 || w[c] > w[widest]))
                widest = c;
        if (widest < 0)
            return; /* numbers are never cut: the row stays wide */
        size_t cut = total - t->width;
        if (cut > w[widest] - floor_w[widest])
            cut = w[widest] - floor_w[widest];
        w[widest] -= cut;
        total -= cut;
    }
}

/* How many groups columns 1.. take, each group holding at most `limit`
 * display columns of them and their gaps (a column wider goes alone). */
static size_t groups_at(const sat_tbl *t, const size_t *w, size_t limit)
{
    size_t k = 1, used = 0;
    for (int c = 1; c < t->ncol; c++) {
        if (used && used + 2 + w[c] > limit) {
            k++;
            used = 0;
        }
        used += 2 + w[c];
    }
    return k;
}

/* Prints every row's cells of columns sel[0..nsel) at their widths w; the
 * lines written. */
static size_t print_rows(const sat_tbl *t, FILE *out, const char *indent, const size_t *w,
                         const int *sel, int nsel)
{
    size_t lines = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        char *const *row = &t->cells[r * (size_t)t->ncol];
        size_t nlines = 1;
        for (int i = 0; i < nsel; i++) {
            size_t k = 1;
            for (const char *p = row[sel[i]]; (p = strchr(p, '\n')); p++)
                k++;
            nlines = k > nlines ? k : nlines;
        }
        for (size_t li = 0; li < nlines; li++, lines++) {
            fputs(indent, out);
            /* no trailing blanks: the line ends at its last non-empty cell (a
             * further line of a wrapped cell has nothing else) */
            int lastc = nsel - 1;
            size_t n;
            while (lastc > 0 && (li || !t->right[sel[lastc]]) &&
                   (cell_line(row[sel[lastc]], li, &n), !n))
                lastc--;
            for (int i = 0; i <= lastc; i++) {
                int c = sel[i];
                const char *v = cell_line(row[c], li, &n);
                size_t vw = disp_width_n(v, n);
                size_t pad = w[c] > vw ? w[c] - vw : 0;
                int last = i == lastc;
                if (t->right[c])
                    fprintf(out, "%*s%.*s", (int)pad, "", (int)n, v);
                else if (last)
                    fprintf(out, "%.*s", (int)n, v);
                else
                    fprintf(out, "%.*s%*s", (int)n, v, (int)pad, "");
                if (!last)
                    fputs("  ", out);
            }
            fputc('\n', out);
        }
    }
    return lines;
}

size_t sat_tbl_print(sat_tbl *t, FILE *out, const char *indent)
{
    enum { MIN_CUT = 12 };
    size_t w[TBL_MAXCOL] = {0}, floor_w[TBL_MAXCOL], lines = 0;
    for (int c = 0; c < t->ncol; c++)
        floor_w[c] = MIN_CUT;
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncol; c++) {
            const char *v = t->cells[r * (size_t)t->ncol + (size_t)c];
            size_t l = disp_width(v);
            if (l > w[c])
                w[c] = l;
            if (t->wrap[c] && longest_word(v) > floor_w[c])
                floor_w[c] = longest_word(v);
        }
    fit_widths(t, w, floor_w, disp_width(indent));
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncol; c++) {
            char **cell = &t->cells[r * (size_t)t->ncol + (size_t)c];
            if (!t->wrap[c]) {
                cut_cell(*cell, w[c]);
            } else if (disp_width(*cell) > w[c]) {
                char *wrapped = wrap_cell(*cell, w[c]);
                if (wrapped) {
                    free(*cell);
                    *cell = wrapped;
                } else { /* out of memory: cut as any other cell */
                    t->err = 1;
                    cut_cell(*cell, w[c]);
                }
            }
        }
    /* still too wide (numbers are never cut): the columns in groups that fit,
     * each group under the first column again, the next group after a blank */
    size_t ind = disp_width(indent), total = ind;
    for (int c = 0; c < t->ncol; c++)
        total += w[c] + (c ? 2 : 0);
    int sel[TBL_MAXCOL];
    if (!t->width || total <= t->width || t->ncol < 3) {
        for (int c = 0; c < t->ncol; c++)
            sel[c] = c;
        lines += print_rows(t, out, indent, w, sel, t->ncol);
    } else {
        /* as few groups as fit, the widest of them as narrow as can be: the
         * least width per group (the first column aside) that packs them in */
        size_t room = t->width > ind + w[0] ? t->width - ind - w[0] : 1;
        size_t groups = groups_at(t, w, room), limit = 1;
        while (limit < room && groups_at(t, w, limit) > groups)
            limit++;
        for (int c = 1; c < t->ncol;) {
            int n = 0;
            size_t used = 0;
            sel[n++] = 0;
            while (c < t->ncol && (n == 1 || used + 2 + w[c] <= limit)) {
                used += 2 + w[c];
                sel[n++] = c++;
            }
            if (sel[1] != 1) {
                fputc('\n', out);
                lines++;
            }
            lines += print_rows(t, out, indent, w, sel, n);
        }
    }
    for (size_t i = 0; i < t->nrows * (size_t)t->ncol; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
    return lines;
}
