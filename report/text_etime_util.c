/*
 * text_etime_util.c - the helpers of the etime text report (text_etime.h):
 * values read from the result by path, the notes of figures some input
 * cannot log (from the result's not_logged table), rates over the span,
 * "label  value  note" lines whose notes wrap instead of being cut, and a
 * table printer for some of a table's rows.
 */
#include <stdlib.h>
#include <string.h>

#include "text_etime.h"

const sat_value *etx_val(const sat_rnode *n, const char *path)
{
    const sat_rnode *c = n ? sat_rnode_get(n, path) : NULL;
    return c ? sat_rnode_value(c) : NULL;
}

uint64_t etx_count(const sat_rnode *n, const char *path)
{
    const sat_value *v = etx_val(n, path);
    if (!v || v->absent)
        return 0;
    return v->unit == SAT_UNIT_INT ? (uint64_t)v->v.i : v->v.u;
}

/* The not_logged row of field, NULL when every input can log it. */
static const sat_rnode *nl_row(const etx *x, const char *field)
{
    const sat_rnode *t = field ? sat_rnode_get(x->root, "not_logged") : NULL;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        const sat_value *f = sat_row_get(r, "field");
        if (f && !f->absent && strcmp(f->v.s, field) == 0)
            return r;
    }
    return NULL;
}

int etx_some_cannot(const etx *x, const char *field) { return nl_row(x, field) != NULL; }

int etx_not_logged(const etx *x, const char *field)
{
    const sat_rnode *r = nl_row(x, field);
    const sat_value *p = r ? sat_row_get(r, "partial") : NULL;
    return p && !p->absent && !p->v.i;
}

const char *etx_field_note(etx *x, const char *field, const char *usual)
{
    const sat_rnode *r = nl_row(x, field);
    if (!usual)
        usual = "";
    if (!r)
        return usual;
    const sat_value *why = sat_row_get(r, "why");
    const char *w = why && !why->absent ? why->v.s : "the inputs do not log it";
    char *b = x->note[x->ni++ % 32];
    if (etx_not_logged(x, field))
        snprintf(b, 512, "(%s)", w);
    else
        snprintf(b, 512, "%s%s(partial: %llu of %llu inputs cannot log it: %s)", usual,
                 *usual ? " " : "", (unsigned long long)etx_count(r, "inputs_without"),
                 (unsigned long long)etx_count(r, "of_inputs"), w);
    return b;
}

const char *etx_rate(etx *x, uint64_t n)
{
    char *b = x->note[x->ni++ % 32];
    if (!(x->span_s > 0)) {
        snprintf(b, 512, "(span 0: no rate)");
        return b;
    }
    char s[64], m[64];
    sat_fmt_sig3(s, sizeof s, (double)n / x->span_s);
    sat_fmt_sig3(m, sizeof m, (double)n / x->span_s * 60.0);
    snprintf(b, 512, "(%s/s, %s/min)", s, m);
    return b;
}

void etx_kv_init(etx_kvs *k, etx *x)
{
    sat_tbl_init(&k->tb, "lrl");
    sat_tbl_set_width(&k->tb, x->t->width);
    k->x = x;
}

void etx_kv_text(etx_kvs *k, const char *label, const char *value, const char *note)
{
    const char *row[3] = {label, value, note};
    sat_tbl_row(&k->tb, row);
}

void etx_kv(etx_kvs *k, const char *label, const sat_rnode *obj, const char *path,
            const char *field, const char *usual)
{
    const sat_value *v = etx_val(obj, path);
    char b[256];
    if (v && v->absent && field && etx_not_logged(k->x, field))
        snprintf(b, sizeof b, "not logged");
    else
        sat_fmt_value(b, sizeof b, v);
    etx_kv_text(k, label, b, etx_field_note(k->x, field, usual));
}

static size_t disp_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Labels and values aligned; the last cell (the note) is never cut: past the
 * width it wraps at blanks, continued under its first character. */
void etx_kv_print(etx_kvs *k, const char *indent)
{
    sat_tbl *tb = &k->tb;
    FILE *out = k->x->t->out;
    if (tb->err)
        k->x->t->err = SAT_E_NOMEM;
    if (!indent)
        indent = "  ";
    int nc = tb->ncol;
    size_t w[TBL_MAXCOL] = {0};
    for (size_t r = 0; r < tb->nrows; r++)
        for (int c = 0; c < nc - 1; c++) {
            size_t l = disp_width(tb->cells[r * (size_t)nc + (size_t)c]);
            if (l > w[c])
                w[c] = l;
        }
    size_t lead = disp_width(indent);
    for (int c = 0; c < nc - 1; c++)
        lead += w[c] + 2;
    size_t limit = k->x->t->width ? k->x->t->width : (size_t)-1;
    for (size_t r = 0; r < tb->nrows; r++) {
        char *const *cell = tb->cells + r * (size_t)nc;
        fputs(indent, out);
        for (int c = 0; c < nc - 1; c++) {
            size_t pad = w[c] - disp_width(cell[c]);
            int last = c == nc - 2 && !*cell[nc - 1];
            if (tb->right[c])
                fprintf(out, "%*s%s", (int)pad, "", cell[c]);
            else if (last)
                fputs(cell[c], out);
            else
                fprintf(out, "%s%*s", cell[c], (int)pad, "");
            if (!last)
                fputs("  ", out);
        }
        /* the note, wrapped at blanks */
        const char *p = cell[nc - 1];
        size_t col = lead, cont = lead + 20 < limit ? lead : disp_width(indent) + 4;
        int first = 1;
        while (*p) {
            const char *sp = p;
            while (*sp == ' ')
                sp++;
            size_t wl = strcspn(sp, " ");
            size_t need = (size_t)(sp - p) + wl;
            if (!first && col + need > limit) {
                fprintf(out, "\n%*s", (int)cont, "");
                col = cont;
                p = sp;
                need = wl;
            }
            fwrite(p, 1, need, out);
            col += need;
            p += need;
            first = 0;
        }
        fputc('\n', out);
        k->x->t->lines++;
    }
    for (size_t i = 0; i < tb->nrows * (size_t)nc; i++)
        free(tb->cells[i]);
    free(tb->cells);
    tb->cells = NULL;
    tb->nrows = tb->cap = 0;
}

void etx_rows(etx *x, const sat_rnode *table, const char *columns, const sat_rnode *const *rows,
              size_t n, const char *indent, etx_cell_fn cell)
{
    size_t ncols;
    const sat_col *cols = sat_table_cols(table, &ncols);
    const sat_col *use[TBL_MAXCOL];
    char titles[TBL_MAXCOL][64], spec[TBL_MAXCOL + 1];
    int nuse = 0;
    for (const char *p = columns; *p && nuse < TBL_MAXCOL;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        size_t kl = eq ? (size_t)(eq - p) : len;
        for (size_t i = 0; i < ncols; i++)
            if (strlen(cols[i].name) == kl && strncmp(cols[i].name, p, kl) == 0) {
                use[nuse] = &cols[i];
                if (eq)
                    snprintf(titles[nuse], sizeof titles[nuse], "%.*s", (int)(len - kl - 1), eq + 1);
                else
                    snprintf(titles[nuse], sizeof titles[nuse], "%s",
                             cols[i].title ? cols[i].title : cols[i].name);
                spec[nuse] = cols[i].unit == SAT_UNIT_TEXT || cols[i].unit == SAT_UNIT_TIME ? 'l'
                                                                                         : 'r';
                nuse++;
                break;
            }
        p += len;
        if (*p == ',')
            p++;
    }
    spec[nuse] = '\0';
    sat_tbl tb;
    sat_tbl_init(&tb, spec);
    sat_tbl_set_width(&tb, x->t->width);
    const char *row[TBL_MAXCOL];
    for (int i = 0; i < nuse; i++)
        row[i] = titles[i];
    sat_tbl_row(&tb, row);
    char cells[TBL_MAXCOL][256];
    for (size_t r = 0; r < n; r++) {
        for (int i = 0; i < nuse; i++) {
            if (!cell || !cell(rows[r], use[i]->name, cells[i], sizeof cells[i]))
                sat_fmt_value(cells[i], sizeof cells[i], sat_row_get(rows[r], use[i]->name));
            row[i] = cells[i];
        }
        sat_tbl_row(&tb, row);
    }
    if (tb.err)
        x->t->err = SAT_E_NOMEM;
    x->t->lines += tb.nrows;
    sat_tbl_print(&tb, x->t->out, indent ? indent : "  ");
}

