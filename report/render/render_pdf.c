/*
 * report_render_pdf.c - a report as a multi-page PDF (`-o report.pdf`): the
 * same document as the HTML, laid out on A4 pages with cairo's PDF surface.
 * Text stays text (cairo's toy text API in DejaVu Sans, so pdftotext and a
 * reader's search find every title), charts are drawn by the chart engine
 * into the page (sat_chart_draw: vectors, not pictures), each report page
 * starts a new sheet, and a block that does not fit the rest of a sheet
 * starts the next one. Deterministic: the creation date is the report's
 * last_ts, not the time of the run.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <cairo-pdf.h>
#include <cairo.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doc_int.h"

#define PAGE_W 595.28
#define PAGE_H 841.89
#define MARGIN 46.0
#define CONTENT_W (PAGE_W - 2 * MARGIN)
#define BOTTOM (PAGE_H - MARGIN - 14)
#define FONT "DejaVu Sans"

typedef struct pdf_ctx {
    cairo_t *cr;
    double y;
    int sheet;
    rd_clock clock;
    int utc;
    size_t rows; /* the most rows shown of a table */
    const char *title;
} pdf_ctx;

/* A part of a section is drawn this much further in than its section. */
#define LEVEL_INDENT 10.0

static void font(pdf_ctx *x, double size, int bold)
{
    cairo_select_font_face(x->cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(x->cr, size);
}

static void ink(pdf_ctx *x, double r, double g, double b) { cairo_set_source_rgb(x->cr, r, g, b); }

static double text_w(pdf_ctx *x, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(x->cr, s, &e);
    return e.x_advance;
}

static void footer(pdf_ctx *x)
{
    font(x, 7.5, 0);
    ink(x, 0.4, 0.43, 0.48);
    char b[320];
    snprintf(b, sizeof b, "%s  -  page %d", x->title ? x->title : "report", x->sheet);
    cairo_move_to(x->cr, MARGIN, PAGE_H - MARGIN + 6);
    cairo_show_text(x->cr, b);
}

static void new_sheet(pdf_ctx *x)
{
    if (x->sheet) {
        footer(x);
        cairo_show_page(x->cr);
    }
    x->sheet++;
    x->y = MARGIN;
}

/* Room for h points more on this sheet, else a new one. */
static void need(pdf_ctx *x, double h)
{
    if (x->y + h > BOTTOM && x->y > MARGIN + 1)
        new_sheet(x);
}

/* s cut to fit width, ending in "..." (at a UTF-8 character boundary). */
static void fit(pdf_ctx *x, char *s, double width)
{
    if (text_w(x, s) <= width)
        return;
    size_t n = strlen(s);
    while (n > 0) {
        do
            n--;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80);
        char save[4];
        memcpy(save, s + n, 4);
        memcpy(s + n, "...", 4);
        if (text_w(x, s) <= width)
            return;
        memcpy(s + n, save, 4);
    }
    s[0] = '\0';
}

/* A paragraph wrapped at blanks to width from x0; returns the lines drawn. */
static int para(pdf_ctx *x, const char *text, double x0, double width, double size, int bold,
                double lead)
{
    font(x, size, bold);
    const char *p = text ? text : "";
    int lines = 0;
    char line[2048];
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = 0, best = 0;
        const char *q = p;
        for (;;) {
            const char *w = q;
            while (*w == ' ')
                w++;
            size_t wl = strcspn(w, " ");
            if (!wl)
                break;
            size_t nl = (size_t)(w - p) + wl;
            if (nl >= sizeof line)
                break;
            memcpy(line, p, nl);
            line[nl] = '\0';
            if (best && text_w(x, line) > width)
                break;
            best = nl;
            q = w + wl;
            len = nl;
        }
        if (!best) { /* one word longer than the line: cut */
            best = strcspn(p, " ");
            if (best >= sizeof line)
                best = sizeof line - 1;
            len = best;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        fit(x, line, width);
        need(x, lead);
        cairo_move_to(x->cr, x0, x->y + size);
        cairo_show_text(x->cr, line);
        x->y += lead;
        lines++;
        p += best;
    }
    return lines;
}

/* How many lines greedy wrapping at blanks (as para) makes of text. */
static int lines_at(pdf_ctx *x, const char *text, double width)
{
    char line[2048] = "";
    int lines = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t wl = strcspn(p, " "), ll = strlen(line);
        if (!wl)
            break;
        if (ll + 1 + wl >= sizeof line)
            return lines + 1;
        char save[2048];
        memcpy(save, line, ll + 1);
        snprintf(line + ll, sizeof line - ll, "%s%.*s", ll ? " " : "", (int)wl, p);
        if (ll && text_w(x, line) > width) { /* the word starts a new line */
            lines++;
            snprintf(line, sizeof line, "%.*s", (int)wl, p);
        }
        p += wl;
    }
    return lines + (line[0] != '\0');
}

/* The narrowest width that wraps a title of `size` into as many lines as the
 * full width does: lines of like length, never a full line and a word alone
 * ("UTC") under it. */
static double balanced_width(pdf_ctx *x, const char *text, double width, double size)
{
    font(x, size, 1);
    if (!text || text_w(x, text) <= width)
        return width;
    int n = lines_at(x, text, width);
    double lo = width / 4, hi = width;
    for (int i = 0; i < 14; i++) {
        double mid = (lo + hi) / 2;
        if (lines_at(x, text, mid) > n)
            lo = mid;
        else
            hi = mid;
    }
    return hi + 0.5;
}

static void heading(pdf_ctx *x, const char *text, double size, double before, double x0)
{
    need(x, before + size * 3.2); /* a heading keeps a few lines below it */
    x->y += before;
    ink(x, 0.11, 0.14, 0.19);
    para(x, text, x0, balanced_width(x, text, MARGIN + CONTENT_W - x0, size), size, 1,
         size * 1.35);
    if (size >= 13) {
        cairo_set_line_width(x->cr, 0.8);
        ink(x, 0.85, 0.87, 0.9);
        cairo_move_to(x->cr, MARGIN, x->y + 1);
        cairo_line_to(x->cr, MARGIN + CONTENT_W, x->y + 1);
        cairo_stroke(x->cr);
        x->y += 6;
    }
}

static void findings(void *ctx, const sat_rnode *list, const char *title, int page)
{
    pdf_ctx *x = ctx;
    (void)page;
    heading(x, title, 14, 12, MARGIN);
    for (const sat_rnode *f = sat_rnode_first(list); f; f = sat_rnode_next(f)) {
        const char *sev = sat_get_text(f, "severity", NULL);
        double r = 0.04, g = 0.42, b = 0.63;
        if (sev && !strcmp(sev, "critical"))
            r = 0.71, g = 0.2, b = 0.11;
        else if (sev && !strcmp(sev, "warning"))
            r = 0.72, g = 0.43, b = 0;
        need(x, 14);
        double top = x->y;
        ink(x, 0.11, 0.14, 0.19);
        /* its severity in words too: the bar's colour is lost in black and white */
        char line[4096];
        snprintf(line, sizeof line, "%s: %s", rd_severity_word(sev), sat_get_text(f, "text", ""));
        int n = para(x, line, MARGIN + 10, CONTENT_W - 10, 9.5, 0, 12.5);
        (void)n;
        /* the severity bar beside it (on the sheet the finding ended on) */
        if (x->y > top) {
            ink(x, r, g, b);
            cairo_rectangle(x->cr, MARGIN, top + 1, 3, x->y - top - 2);
            cairo_fill(x->cr);
        }
        x->y += 4;
    }
}

static void values(void *ctx, const sat_rnode *obj, int level)
{
    pdf_ctx *x = ctx;
    const double x0 = MARGIN + LEVEL_INDENT * level, cw = CONTENT_W - LEVEL_INDENT * level;
    font(x, 8.5, 0);
    double lw = 0, vw = 0, nw = 0; /* numbers align on the widest number */
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        if (sat_rnode_kind_of(c) != SAT_RN_VALUE)
            continue;
        char lab[128], val[512];
        if (sat_rnode_label(c))
            snprintf(lab, sizeof lab, "%s", sat_rnode_label(c));
        else
            sat_key_label(lab, sizeof lab, sat_rnode_key(c));
        rd_fmt_value(val, sizeof val, &x->clock, sat_rnode_value(c));
        double a = text_w(x, lab), b = text_w(x, val);
        lw = a > lw ? a : lw;
        vw = b > vw ? b : vw;
        if (sat_unit_right(sat_rnode_value(c)->unit))
            nw = b > nw ? b : nw;
    }
    lw = lw > cw * 0.45 ? cw * 0.45 : lw;
    vw = vw > cw - lw - 16 ? cw - lw - 16 : vw;
    x->y += 2;
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        if (sat_rnode_kind_of(c) != SAT_RN_VALUE)
            continue;
        char lab[128], val[512], note[512];
        if (sat_rnode_label(c))
            snprintf(lab, sizeof lab, "%s", sat_rnode_label(c));
        else
            sat_key_label(lab, sizeof lab, sat_rnode_key(c));
        rd_fmt_value(val, sizeof val, &x->clock, sat_rnode_value(c));
        snprintf(note, sizeof note, "%s", sat_rnode_note(c) ? sat_rnode_note(c) : "");
        need(x, 11);
        fit(x, lab, lw);
        fit(x, val, vw);
        ink(x, 0.36, 0.4, 0.45);
        cairo_move_to(x->cr, x0, x->y + 8.5);
        cairo_show_text(x->cr, lab);
        ink(x, 0.11, 0.14, 0.19);
        int right = sat_unit_right(sat_rnode_value(c)->unit);
        cairo_move_to(x->cr, x0 + lw + 12 + (right && nw > text_w(x, val) ? nw - text_w(x, val) : 0),
                      x->y + 8.5);
        cairo_show_text(x->cr, val);
        if (note[0]) {
            double nx = x0 + lw + vw + 24;
            fit(x, note, x0 + cw - nx);
            ink(x, 0.36, 0.4, 0.45);
            cairo_move_to(x->cr, nx, x->y + 8.5);
            cairo_show_text(x->cr, note);
        }
        x->y += 11;
    }
    x->y += 4;
}

#define MAXC 32

static void table(void *ctx, const sat_rnode *block, int level)
{
    pdf_ctx *x = ctx;
    const double x0 = MARGIN + LEVEL_INDENT * level, cw = CONTENT_W - LEVEL_INDENT * level;
    uint64_t total;
    const sat_rnode *rows = rd_block_rows(block, &total);
    sat_col cols[MAXC]; /* a page is narrow: the wide_only columns left out */
    size_t ncols = rd_block_cols(block, 1, cols, MAXC);
    if (!rows || !ncols)
        return;
    const char *title = sat_get_text(block, "title", NULL), *note = sat_get_text(block, "note", NULL);
    need(x, 40);
    x->y += 6;
    ink(x, 0.11, 0.14, 0.19);
    if (title)
        para(x, title, x0, cw, 9.5, 1, 12.5);
    if (note) {
        char nb[320];
        snprintf(nb, sizeof nb, "(%s)", note);
        ink(x, 0.36, 0.4, 0.45);
        para(x, nb, x0, cw, 7.5, 0, 10);
    }
    if (!sat_rnode_first(rows)) {
        font(x, 8, 0);
        cairo_move_to(x->cr, x0, x->y + 8);
        cairo_show_text(x->cr, "none");
        x->y += 12;
        return;
    }
    const double size = 7.5, lead = 10, gap = 8;
    font(x, size, 0);
    double w[MAXC];
    char h[MAXC][64];
    size_t nshow = total < x->rows ? (size_t)total : x->rows;
    for (size_t i = 0; i < ncols; i++) {
        rd_col_title(h[i], sizeof h[i], &cols[i]);
        w[i] = text_w(x, h[i]);
        size_t k = 0;
        for (const sat_rnode *r = sat_rnode_first(rows); r && k < nshow; r = sat_rnode_next(r), k++) {
            char v[512];
            rd_fmt_value(v, sizeof v, &x->clock, sat_row_get(r, cols[i].name));
            double tw = text_w(x, v);
            w[i] = tw > w[i] ? tw : w[i];
        }
    }
    /* too wide: narrow the widest text columns (numbers and times keep theirs) */
    for (int guard = 0; guard < 200; guard++) {
        double sum = 0;
        for (size_t i = 0; i < ncols; i++)
            sum += w[i] + gap;
        if (sum - gap <= cw)
            break;
        size_t widest = ncols;
        double second = 40;
        for (size_t i = 0; i < ncols; i++)
            if (cols[i].unit == SAT_UNIT_TEXT && w[i] > 40 && (widest == ncols || w[i] > w[widest]))
                widest = i;
        if (widest == ncols) { /* only numbers: shrink them all alike */
            for (size_t i = 0; i < ncols; i++)
                w[i] *= cw / sum;
            break;
        }
        for (size_t i = 0; i < ncols; i++)
            if (i != widest && cols[i].unit == SAT_UNIT_TEXT && w[i] > second)
                second = w[i];
        /* the widest gives up what is over, down to the next widest: the
         * text columns end up alike, none cut to nothing */
        double over = sum - gap - cw, to = w[widest] - over;
        w[widest] = to > second ? to : second > w[widest] - 1 ? w[widest] - 1 : second;
        if (w[widest] < 40)
            w[widest] = 40;
    }
    /* header */
    need(x, lead * 2);
    ink(x, 0.36, 0.4, 0.45);
    double cx = x0;
    for (size_t i = 0; i < ncols; i++) {
        char t[64];
        snprintf(t, sizeof t, "%s", h[i]);
        fit(x, t, w[i]);
        double off = sat_unit_right(cols[i].unit) ? w[i] - text_w(x, t) : 0;
        cairo_move_to(x->cr, cx + off, x->y + size);
        cairo_show_text(x->cr, t);
        cx += w[i] + gap;
    }
    x->y += lead;
    cairo_set_line_width(x->cr, 0.5);
    ink(x, 0.85, 0.87, 0.9);
    cairo_move_to(x->cr, x0, x->y - 1.5);
    cairo_line_to(x->cr, cx - gap, x->y - 1.5);
    cairo_stroke(x->cr);
    size_t k = 0;
    const sat_rnode *link = sat_rnode_first(sat_get_list(block, "detail_pages"));
    for (const sat_rnode *r = sat_rnode_first(rows); r && k < nshow;
         r = sat_rnode_next(r), k++, link = link ? sat_rnode_next(link) : NULL) {
        need(x, lead);
        double page = sat_get_num(link, NULL, NAN);
        /* a marked row (sat_doc_highlight): tinted, its mark in bold, so
         * that it shows in black and white too */
        const char *mark = rd_block_highlight(block, r);
        if (mark || k % 2) {
            if (mark)
                ink(x, 1.0, 0.95, 0.84);
            else
                ink(x, 0.96, 0.965, 0.975);
            cairo_rectangle(x->cr, x0 - 2, x->y, cx - gap - x0 + 4, lead);
            cairo_fill(x->cr);
        }
        ink(x, 0.11, 0.14, 0.19);
        cx = x0;
        for (size_t i = 0; i < ncols; i++) {
            char v[512];
            rd_fmt_value(v, sizeof v, &x->clock, sat_row_get(r, cols[i].name));
            font(x, size, mark && !strcmp(mark, cols[i].name));
            fit(x, v, w[i]);
            double off = sat_unit_right(cols[i].unit) ? w[i] - text_w(x, v) : 0;
            char dest[48];
            snprintf(dest, sizeof dest, "dest='page-%.0f'", page);
            if (i == 0 && page >= 1)
                cairo_tag_begin(x->cr, CAIRO_TAG_LINK, dest);
            cairo_move_to(x->cr, cx + off, x->y + size);
            cairo_show_text(x->cr, v);
            if (i == 0 && page >= 1)
                cairo_tag_end(x->cr, CAIRO_TAG_LINK);
            cx += w[i] + gap;
        }
        x->y += lead;
    }
    if (total > k) {
        char more[128];
        snprintf(more, sizeof more, "... %llu more %s (the JSON form has every one)",
                 (unsigned long long)(total - k), sat_plural(total - k, "row", "rows"));
        need(x, lead);
        ink(x, 0.36, 0.4, 0.45);
        cairo_move_to(x->cr, x0, x->y + size);
        cairo_show_text(x->cr, more);
        x->y += lead;
    }
    const char *foot = sat_get_text(block, "footnote", NULL);
    if (foot) {
        ink(x, 0.36, 0.4, 0.45);
        para(x, foot, x0, cw, 7.5, 0, 10);
    }
    x->y += 4;
}

/* A chart drawn at its size, one part per page region: a part that does not
 * fit the rest of the sheet starts the next one. */
static void chart(void *ctx, const char *kind, const sat_result_set *set, int level)
{
    pdf_ctx *x = ctx;
    (void)level;
    double w, h;
    rd_chart_size(kind, CONTENT_W, &w, &h);
    int parts = rd_chart_parts(kind, set);
    for (int part = 1; part <= parts; part++) {
        sat_diag diag;
        memset(&diag, 0, sizeof diag);
        sat_chart *c = set ? rd_chart(kind, set, x->utc, w, h, part, &diag) : NULL;
        if (!c) {
            char b[700];
            snprintf(b, sizeof b, "(%s chart: %s)", kind, diag.msg[0] ? diag.msg : "nothing to draw");
            ink(x, 0.36, 0.4, 0.45);
            para(x, b, MARGIN, CONTENT_W, 8.5, 0, 11);
            return;
        }
        double ch = sat_chart_height(c);
        need(x, ch + 8);
        x->y += 4;
        cairo_save(x->cr);
        sat_chart_draw(c, x->cr, MARGIN, x->y);
        cairo_restore(x->cr);
        x->y += ch + 10;
        sat_chart_free(c);
    }
}

static void section_begin(void *ctx, const sat_rnode *s, const char *title, const char *anchor,
                          int level)
{
    pdf_ctx *x = ctx;
    (void)anchor;
    /* a section that opens with a chart starts where its prose and the
     * chart fit together, not with its title alone at the foot of a sheet */
    const sat_rnode *c0 = sat_rnode_first(sat_get_list(s, "charts"));
    if (c0 && sat_get_text(c0, NULL, NULL)) {
        double w, h;
        rd_chart_size(sat_get_text(c0, NULL, NULL), CONTENT_W, &w, &h);
        if (h == 0) /* as tall as its panels: about a third of a sheet */
            h = 280;
        double prose = 50 + 30.0 * (double)sat_rnode_count(sat_get_list(s, "paragraphs"));
        if (h + prose < BOTTOM - MARGIN)
            need(x, h + prose);
    }
    static const double size[] = {14, 11.5, 10};
    heading(x, title, size[level < 2 ? level : 2], level ? 10 : 14, MARGIN + LEVEL_INDENT * level);
}

static void paragraph(void *ctx, const char *text, int level)
{
    pdf_ctx *x = ctx;
    ink(x, 0.11, 0.14, 0.19);
    para(x, text, MARGIN + LEVEL_INDENT * level, CONTENT_W - LEVEL_INDENT * level, 9.5, 0, 12.5);
    x->y += 4;
}

static void pre(void *ctx, const sat_rnode *lines, int level)
{
    pdf_ctx *x = ctx;
    const double x0 = MARGIN + LEVEL_INDENT * level;
    cairo_select_font_face(x->cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(x->cr, 8);
    ink(x, 0.11, 0.14, 0.19);
    for (const sat_rnode *l = sat_rnode_first(lines); l; l = sat_rnode_next(l)) {
        char b[1024];
        snprintf(b, sizeof b, "%s", sat_get_text(l, NULL, ""));
        need(x, 10);
        fit(x, b, CONTENT_W - LEVEL_INDENT * level);
        cairo_move_to(x->cr, x0, x->y + 8);
        cairo_show_text(x->cr, b);
        x->y += 10;
    }
    x->y += 4;
}

static void head(void *ctx, const sat_rnode *root)
{
    pdf_ctx *x = ctx;
    new_sheet(x);
    ink(x, 0.11, 0.14, 0.19);
    const char *t = x->title ? x->title : "Report";
    para(x, t, MARGIN, balanced_width(x, t, CONTENT_W, 20), 20, 1, 26);
    char a[64], b[64], zone[32], line[256];
    rd_fmt_datetime(a, sizeof a, &x->clock, sat_get_time(root, "first_ts", 0));
    rd_fmt_datetime(b, sizeof b, &x->clock, sat_get_time(root, "last_ts", 0));
    rd_fmt_zone(zone, sizeof zone, &x->clock);
    size_t nin = sat_rnode_count(sat_get_table(root, "inputs"));
    snprintf(line, sizeof line, "%s to %s (times in %s), %zu %s", a, b, zone, nin,
             sat_plural(nin, "input", "inputs"));
    ink(x, 0.36, 0.4, 0.45);
    para(x, line, MARGIN, CONTENT_W, 9.5, 0, 13);
}

static void page_begin(void *ctx, const sat_rnode *pg, int no, int npages)
{
    pdf_ctx *x = ctx;
    if (npages <= 1)
        return;
    /* each page of the document on a sheet of its own, but the first (a
     * digest's fleet summary) below the findings when a third of the sheet
     * is left: no sheet holding a short list of findings alone */
    if (no > 1 || x->y > BOTTOM - (BOTTOM - MARGIN) / 3)
        new_sheet(x);
    else
        x->y += 10;
    /* the page's name, where a table row that details on it links
     * (detail_pages) */
    char dest[48];
    snprintf(dest, sizeof dest, "name='page-%d'", no);
    cairo_tag_begin(x->cr, CAIRO_TAG_DEST, dest);
    heading(x, sat_get_text(pg, "title", ""), 17, 0, MARGIN);
    cairo_tag_end(x->cr, CAIRO_TAG_DEST);
    /* the subtitle on a line of its own, smaller: a wrapped title never
     * leaves a word of it ("UTC+01:00") alone on a line */
    const char *sub = sat_get_text(pg, "subtitle", NULL);
    if (sub) {
        x->y -= 4;
        ink(x, 0.36, 0.4, 0.45);
        para(x, sub, MARGIN, CONTENT_W, 10, 0, 13);
        x->y += 4;
    }
}

static const rd_visitor pdf_visitor = {
    .head = head,
    .findings = findings,
    .page_begin = page_begin,
    .section_begin = section_begin,
    .paragraph = paragraph,
    .pre = pre,
    .values = values,
    .chart = chart,
    .table = table,
};

static cairo_status_t pdf_write(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int render_pdf(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    cairo_surface_t *surf = cairo_pdf_surface_create_for_stream(pdf_write, out, PAGE_W, PAGE_H);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surf);
        return sat_diag_set(diag, SAT_E_NOMEM, NULL, "cannot make a PDF surface");
    }
    pdf_ctx x;
    memset(&x, 0, sizeof x);
    x.cr = cairo_create(surf);
    x.utc = o->utc;
    x.clock = rd_clock_of(root, o->utc);
    x.title = sat_get_text(root, "title", NULL);
    x.rows = rd_table_rows(o);
    /* the creation date is the report's, not the run's: the same inputs give
     * the same file */
    int64_t last = sat_get_time(root, "last_ts", 0);
    char date[40] = "2000-01-01T00:00:00Z";
    if (last > 0) {
        time_t t = (time_t)(last / 1000000000);
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_MOD_DATE, date);
    if (x.title)
        cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, x.title);
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "satscope report");

    int rc = rd_walk(rep, &pdf_visitor, &x, &x.clock);
    footer(&x);
    cairo_show_page(x.cr);
    cairo_status_t st = cairo_status(x.cr);
    cairo_destroy(x.cr);
    cairo_surface_finish(surf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (rc < 0)
        return sat_diag_set(diag, rc, NULL, "writing the PDF report: %s", sat_strerror(rc));
    if (st != CAIRO_STATUS_SUCCESS || ferror(out))
        return sat_diag_set(diag, SAT_E_IO, NULL, "writing the PDF report: %s",
                            cairo_status_to_string(st));
    return SAT_OK;
}

const sat_report_renderer sat_render_pdf = {".pdf", "PDF", render_pdf};
