/*
 * report_render_text.c - a report as text (`-o report.txt`, `-o -`): the
 * same document as every other form, through the project's text layer
 * (sat_text_*: titles, prose wrapped to 100 columns unless --wide, aligned
 * tables): the findings first, then each page's sections (prose, values,
 * tables cut at SAT_DOC_TABLE_ROWS rows) with per-hour sparklines of Unicode
 * block characters in place of the charts, then the inputs with their spans.
 * Times are on the report's clock (local at the inputs' offset, or UTC).
 */
#include <string.h>

#include "doc_int.h"
#include "satscope/result_out.h"

typedef struct text_ctx {
    sat_text *t;
    rd_clock clock;
} text_ctx;

static const char *sev_mark(const char *sev)
{
    if (sev && !strcmp(sev, "critical"))
        return "!!";
    if (sev && !strcmp(sev, "warning"))
        return " !";
    return " -";
}

static void findings(text_ctx *x, const sat_rnode *list, const char *title)
{
    if (!sat_rnode_first(list))
        return;
    sat_text_title(x->t, "%s", title);
    for (const sat_rnode *f = sat_rnode_first(list); f; f = sat_rnode_next(f))
        sat_text_line(x->t, "%s %s", sev_mark(rd_otext(f, "severity")),
                      rd_otext(f, "text") ? rd_otext(f, "text") : "");
}

static void values(text_ctx *x, const sat_rnode *obj)
{
    sat_tbl tb;
    sat_tbl_init(&tb, "lrl");
    sat_tbl_set_width(&tb, x->t->width);
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        if (sat_rnode_kind_of(c) != SAT_RN_VALUE)
            continue;
        char lab[128], val[512];
        sat_doc_label(lab, sizeof lab, sat_rnode_key(c));
        rd_fmt_value(val, sizeof val, &x->clock, sat_rnode_value(c));
        const char *row[3] = {lab, val, sat_rnode_note(c)};
        sat_tbl_row(&tb, row);
    }
    if (tb.err)
        x->t->err = SAT_E_NOMEM;
    x->t->lines += tb.nrows;
    sat_tbl_print(&tb, x->t->out, "  ");
}

static void table(text_ctx *x, const sat_rnode *block)
{
    uint64_t total;
    const sat_rnode *rows = rd_block_rows(block, &total);
    size_t ncols;
    const sat_col *cols = sat_table_cols(rows, &ncols);
    if (!rows || !ncols)
        return;
    if (ncols > TBL_MAXCOL)
        ncols = TBL_MAXCOL;
    const char *title = rd_otext(block, "title"), *note = rd_otext(block, "note");
    sat_text_line(x->t, "  %s%s%s%s", title ? title : "", note ? " (" : "", note ? note : "",
                  note ? ")" : "");
    if (!sat_rnode_first(rows)) {
        sat_text_line(x->t, "    none");
        return;
    }
    char spec[TBL_MAXCOL + 1];
    char heads[TBL_MAXCOL][64];
    const char *cells[TBL_MAXCOL];
    for (size_t i = 0; i < ncols; i++) {
        spec[i] = rd_unit_right(cols[i].unit) ? 'r' : cols[i].unit == SAT_UNIT_TIME ? 'L' : 'l';
        rd_col_title(heads[i], sizeof heads[i], &cols[i]);
        cells[i] = heads[i];
    }
    spec[ncols] = '\0';
    sat_tbl tb;
    sat_tbl_init(&tb, spec);
    sat_tbl_set_width(&tb, x->t->width);
    sat_tbl_row(&tb, cells);
    char buf[TBL_MAXCOL][256];
    size_t shown = 0;
    for (const sat_rnode *r = sat_rnode_first(rows); r && shown < SAT_DOC_TABLE_ROWS;
         r = sat_rnode_next(r), shown++) {
        for (size_t i = 0; i < ncols; i++) {
            rd_fmt_value(buf[i], sizeof buf[i], &x->clock, sat_row_get(r, cols[i].name));
            cells[i] = buf[i];
        }
        sat_tbl_row(&tb, cells);
    }
    if (tb.err)
        x->t->err = SAT_E_NOMEM;
    x->t->lines += tb.nrows;
    sat_tbl_print(&tb, x->t->out, "    ");
    if (total > shown)
        sat_text_line(x->t, "    ... %llu more %s (the JSON form has every one)",
                      (unsigned long long)(total - shown), sat_plural(total - shown, "row", "rows"));
}

/* The eight block characters, lowest to highest; a step without data is a
 * blank. The scale runs from 0 (or the least value, when it is negative)
 * to the largest. */
static void sparkline(text_ctx *x, const sat_rnode *s)
{
    static const char *const bars[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
    const sat_rnode *pts = rd_list(s, "points");
    double lo = rd_onum(s, "min"), hi = rd_onum(s, "max");
    if (!sat_rnode_first(pts) || !isfinite(hi))
        return;
    if (lo > 0)
        lo = 0;
    size_t n = sat_rnode_count(pts);
    size_t width = x->t->width ? x->t->width : 1000;
    size_t room = width > 40 ? width - 40 : 20;
    /* more steps than room: each character the largest of the steps it takes */
    size_t per = (n + room - 1) / room;
    if (per < 1)
        per = 1;
    char line[8192];
    size_t l = 0;
    const sat_rnode *p = sat_rnode_first(pts);
    while (p && l + 8 < sizeof line) {
        double v = NAN;
        for (size_t k = 0; k < per && p; k++, p = sat_rnode_next(p)) {
            double y = sat_value_num(sat_rnode_value(p));
            if (isfinite(y) && !(y <= v))
                v = y;
        }
        if (!isfinite(v)) {
            line[l++] = ' ';
            continue;
        }
        int b = hi > lo ? (int)((v - lo) / (hi - lo) * 7 + 0.5) : 0;
        b = b < 0 ? 0 : b > 7 ? 7 : b;
        memcpy(line + l, bars[b], 3);
        l += 3;
    }
    line[l] = '\0';
    const char *unit = rd_otext(s, "unit");
    sat_value vlo = {SAT_UNIT_NUMBER, 0, 3, {.d = lo}}, vhi = {SAT_UNIT_NUMBER, 0, 3, {.d = hi}};
    if (unit && !strcmp(unit, "duration"))
        vlo.unit = vhi.unit = SAT_UNIT_DURATION;
    char a[64], b[64], from[64];
    sat_fmt_value(a, sizeof a, &vlo);
    sat_fmt_value(b, sizeof b, &vhi);
    rd_fmt_time(from, sizeof from, &x->clock, rd_ots(s, "first_ts"));
    const char *title = rd_otext(s, "title");
    /* the line itself is never wrapped: written as is */
    fprintf(x->t->out, "  %-22s %s  %s..%s from %s\n", title ? title : "", line, a, b, from);
    x->t->lines++;
}

static void section(text_ctx *x, const sat_rnode *s)
{
    const char *title = rd_otext(s, "title");
    sat_text_title(x->t, "%s", title ? title : "");
    for (const sat_rnode *p = sat_rnode_first(rd_list(s, "paragraphs")); p; p = sat_rnode_next(p))
        sat_text_line(x->t, "  %s", rd_text(sat_rnode_value(p)) ? rd_text(sat_rnode_value(p)) : "");
    const sat_rnode *v = sat_rnode_get(s, "values");
    if (v && sat_rnode_kind_of(v) == SAT_RN_OBJECT)
        values(x, v);
    for (const sat_rnode *sp = sat_rnode_first(rd_list(s, "sparklines")); sp; sp = sat_rnode_next(sp))
        sparkline(x, sp);
    for (const sat_rnode *b = sat_rnode_first(rd_list(s, "tables")); b; b = sat_rnode_next(b))
        table(x, b);
}

static void inputs(text_ctx *x, const sat_rnode *root)
{
    const sat_rnode *t = rd_table(root, "inputs");
    if (!sat_rnode_first(t))
        return;
    sat_text_title(x->t, "Inputs");
    /* a table block of its own, so that it prints as every other */
    sat_result *tmp = sat_result_new("report");
    sat_rnode *s = sat_obj(sat_result_root(tmp), "s");
    sat_doc_table(s, "Every source with its span", NULL, t,
                  "path,kind,bytes,lines,rejects,first_ts,last_ts", 0, NULL, NULL);
    const sat_rnode *b = sat_rnode_first(rd_list(s, "tables"));
    if (b)
        table(x, b);
    else
        x->t->err = SAT_E_NOMEM;
    sat_result_free(tmp);
}

static int render_text(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    sat_text t;
    sat_text_init(&t, out, o->wide);
    text_ctx x = {&t, rd_clock_of(sat_result_root(sat_report_doc(rep)), o->utc)};
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    char a[64], b[64], zone[32];
    rd_fmt_datetime(a, sizeof a, &x.clock, rd_ots(root, "first_ts"));
    rd_fmt_datetime(b, sizeof b, &x.clock, rd_ots(root, "last_ts"));
    rd_fmt_zone(zone, sizeof zone, &x.clock);
    const char *title = rd_otext(root, "title");
    sat_text_title(&t, "%s", title ? title : "Report");
    size_t nin = sat_rnode_count(rd_table(root, "inputs"));
    sat_text_line(&t, "%s to %s (times in %s), %zu %s", a, b, zone, nin,
                  sat_plural(nin, "input", "inputs"));
    findings(&x, rd_list(root, "findings"), "What happened");
    const sat_rnode *pages = rd_list(root, "pages");
    size_t npages = sat_rnode_count(pages);
    for (const sat_rnode *pg = sat_rnode_first(pages); pg; pg = sat_rnode_next(pg)) {
        if (npages > 1) {
            const char *pt = rd_otext(pg, "title"), *sub = rd_otext(pg, "subtitle");
            sat_text_title(&t, "==== %s%s%s", pt ? pt : "", sub ? " - " : "", sub ? sub : "");
        }
        findings(&x, rd_list(pg, "findings"), "Findings");
        for (const sat_rnode *s = sat_rnode_first(rd_list(pg, "sections")); s; s = sat_rnode_next(s))
            section(&x, s);
    }
    inputs(&x, root);
    int rc = sat_text_finish(&t);
    if (rc < 0)
        sat_diag_set(diag, rc, NULL, "writing the text report: %s", sat_strerror(rc));
    return rc;
}

const sat_report_renderer sat_render_text = {".txt", "text", render_text};
const sat_report_renderer sat_render_stdout = {"-", "text", render_text};
