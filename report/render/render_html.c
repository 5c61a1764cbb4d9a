/*
 * report_render_html.c - a report as one self-contained HTML file (`-o
 * report.html`): the document (satscope/report_doc.h) walked generically,
 * its charts inline SVG (cairo's, through sat_chart_write) and its style an
 * inline CSS. Nothing is fetched: no script, no font or image URL, no
 * external reference of any kind (the SVGs lose their xmlns declarations,
 * which the HTML parser does not need, so that no URL is left in the file;
 * cairo's ids are prefixed per chart so that several SVGs in one page never
 * share one). It prints well: @media print keeps charts and table rows whole
 * and puts each page of the report on a page of its own.
 * HTML5 (WHATWG): text escaped for element content and attribute values.
 */
#include <stdlib.h>
#include <string.h>

#include "doc_int.h"

typedef struct html_ctx {
    FILE *out;
    rd_clock clock;
    int utc;
    size_t rows;  /* the most rows shown of a table */
    int charts;   /* numbered for their id prefixes */
    rd_html_chart_fn chart_fn;
    void *chart_ctx;
} html_ctx;

/* The first n bytes of s (or to its end), escaped. */
static void escn(FILE *f, const char *s, size_t n)
{
    for (; s && *s && n; s++, n--) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void esc(FILE *f, const char *s) { escn(f, s, (size_t)-1); }

void rd_html_esc(FILE *f, const char *s) { esc(f, s); }

/* Prose (a title, a finding, a paragraph), escaped, a word that holds a
 * hyphen kept on one line: a browser breaks after a hyphen, which would
 * split a date (2026-|11-03), a zone (UTC-|05:00) or a DN's RDN
 * (uid=svc-|batch) where a reader sees one token. */
static void esc_prose(FILE *f, const char *s)
{
    while (s && *s) {
        size_t n = strcspn(s, " ");
        int hyphen = memchr(s, '-', n) && n < 48;
        if (hyphen)
            fputs("<span class=\"nw\">", f);
        escn(f, s, n);
        if (hyphen)
            fputs("</span>", f);
        s += n;
        while (*s == ' ')
            fputc(*s++, f);
    }
}

/* A table cell's text, escaped, with a break opportunity (<wbr>) after the
 * joints of a long name: a DN's commas between RDNs, a path's slashes, a
 * filter's closing parentheses. A cell then wraps there and never inside an
 * address, a number or an RDN (the stylesheet breaks nowhere else). */
static void esc_joints(FILE *f, const char *s, int unit)
{
    if (unit != SAT_UNIT_TEXT || !s || strlen(s) <= 24 || strchr(s, ' ')) {
        esc_prose(f, s);
        return;
    }
    /* each piece between joints on one line (uid=svc-batch, an IP) */
    while (*s) {
        size_t n = 1 + strcspn(s + 1, ",/)");
        n += s[n] != '\0'; /* the joint ends its piece */
        fputs("<span class=\"nw\">", f);
        escn(f, s, n);
        fputs(s[n] ? "</span><wbr>" : "</span>", f);
        s += n;
    }
}

static const char css[] =
    ":root{--ink:#1d2430;--mute:#5b6573;--line:#d8dde4;--bg:#ffffff;--band:#f4f6f9;"
    "--crit:#b4341b;--warn:#b86e00;--note:#0a6aa1;--hl:#fff3d6}"
    "@media (prefers-color-scheme:dark){:root{--ink:#e4e8ee;--mute:#a3adba;--line:#3b4452;"
    "--bg:#15191f;--band:#1e242c;--crit:#f07a62;--warn:#f0b04a;--note:#5fb4e8;--hl:#3a2f14}}"
    "*{box-sizing:border-box}"
    "body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 'DejaVu Sans',"
    "'Helvetica Neue',Arial,sans-serif}"
    "main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}"
    "header h1{font-size:28px;margin:0 0 4px}h1,h2,h3{text-wrap:balance}"
    "header p{margin:0;color:var(--mute)}"
    "h2{font-size:21px;margin:34px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}"
    "h3{font-size:17px;margin:24px 0 8px;color:var(--ink)}"
    "h4,h5,h6{font-size:15px;margin:18px 0 6px;color:var(--ink)}"
    ".tt{font-size:15px;margin:18px 0 6px}"
    "h3 small,h4 small,h5 small,h6 small{font-weight:normal;color:var(--mute)}"
    "pre{font-size:13px;background:var(--band);padding:8px 10px;overflow-x:auto}"
    ".findings{margin:20px 0 8px;padding:14px 18px;background:var(--band);border-radius:6px}"
    ".findings h2{margin-top:0;border:0}"
    ".findings ul{margin:0;padding:0;list-style:none}"
    ".findings li{margin:8px 0;padding-left:14px;border-left:4px solid var(--note)}"
    ".findings li.critical{border-color:var(--crit)}"
    ".findings li.warning{border-color:var(--warn)}"
    ".sev{font-size:11px;font-weight:bold;text-transform:uppercase;letter-spacing:.04em;"
    "margin-right:6px;color:var(--note)}"
    ".critical .sev{color:var(--crit)}.warning .sev{color:var(--warn)}"
    ".findings a{color:var(--mute);font-size:13px;margin-left:4px}"
    "figure{margin:14px 0;padding:0}"
    "figure figcaption,.note{color:var(--mute);font-size:13px}"
    "table{border-collapse:collapse;margin:4px 0 8px;font-size:13px}"
    "th,td{padding:3px 10px 3px 0;text-align:left;vertical-align:top}"
    "th{border-bottom:1px solid var(--line);color:var(--mute);font-weight:normal;white-space:nowrap}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.t{white-space:nowrap;font-variant-numeric:tabular-nums}"
    "tbody tr:nth-child(even){background:var(--band)}"
    /* a cell breaks only between words and at a name's own joints (<wbr>
     * after a DN's comma, a path's slash): never inside an address or a
     * number; a table wider than the page scrolls in its .wide box */
    "td{max-width:420px;overflow-wrap:normal;word-break:normal}"
    "tr.hl{background:var(--hl)!important}td.hl{font-weight:bold;color:var(--warn)}"
    "td a{color:inherit}.nw{white-space:nowrap}"
    "table.values td{padding:2px 16px 2px 0}"
    "table.values td.k{color:var(--mute)}"
    ".wide{overflow-x:auto}"
    ".more{color:var(--mute);font-size:12px;margin:0 0 10px}"
    ".pagehead{margin-top:40px}"
    "footer{margin-top:40px;color:var(--mute);font-size:12px}"
    "@media print{body{font-size:11pt}main{max-width:none;padding:0}"
    ".page+.page{break-before:page}figure,tr,.findings li{break-inside:avoid}"
    "h2,h3{break-after:avoid}p{orphans:3;widows:3}.wide{overflow:visible}"
    "tbody tr:nth-child(even){background:none}a{color:inherit;text-decoration:none}}"
    "@page{size:A4;margin:16mm 14mm}";

/* ---- charts (the chart engine's SVG: chart_svg.c) ----
 * A chart is shown at its own size (its texts are 9 pt = 12 px or more at
 * it), never scaled down into a narrow column: a window narrower than the
 * chart scrolls it sideways. Its colours are classes of its own <style>
 * (light and dark, by prefers-color-scheme). */
static const char chart_css[] =
    "figure.chart{overflow-x:auto;max-width:100%}"
    "figure.chart svg{display:block;max-width:none;height:auto}"
    /* on paper a sideways scroll is lost: the chart fits the sheet (the PDF
     * form draws charts for A4) */
    "@media print{figure.chart{overflow:visible}figure.chart svg{width:100%;height:auto}}";

static void findings(void *ctx, const sat_rnode *list, const char *title, int page)
{
    html_ctx *x = ctx;
    fputs("<section class=\"findings\"><h2>", x->out);
    esc(x->out, title);
    fputs("</h2><ul>\n", x->out);
    for (const sat_rnode *f = sat_rnode_first(list); f; f = sat_rnode_next(f)) {
        const char *sev = sat_get_text(f, "severity", "notice"), *sec = sat_get_text(f, "section", NULL);
        fputs("<li class=\"", x->out);
        esc(x->out, sev);
        fputs("\"><span class=\"sev\">", x->out);
        esc(x->out, rd_severity_word(sev));
        fputs("</span> ", x->out);
        esc_prose(x->out, sat_get_text(f, "text", NULL));
        if (sec) /* the anchor of a page's section (doc_walk.c) */
            fprintf(x->out, " <a href=\"#p%d-%s\">details</a>", page, sec);
        fputs("</li>\n", x->out);
    }
    fputs("</ul></section>\n", x->out);
}

static void values(void *ctx, const sat_rnode *obj, int level)
{
    html_ctx *x = ctx;
    (void)level;
    /* numbers right-aligned, unless a long text shares their column */
    int long_text = 0;
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        const sat_value *v = sat_rnode_value(c);
        if (v && v->unit == SAT_UNIT_TEXT && !v->absent && strlen(v->v.s) > 14)
            long_text = 1;
    }
    fputs("<table class=\"values\"><tbody>\n", x->out);
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        if (!sat_rnode_value(c))
            continue;
        char lab[128], val[1024];
        if (sat_rnode_label(c))
            snprintf(lab, sizeof lab, "%s", sat_rnode_label(c));
        else
            sat_key_label(lab, sizeof lab, sat_rnode_key(c));
        rd_fmt_value(val, sizeof val, &x->clock, sat_rnode_value(c));
        fputs("<tr><td class=\"k\">", x->out);
        esc(x->out, lab);
        fprintf(x->out, "</td><td%s>",
                sat_unit_right(sat_rnode_value(c)->unit) && !long_text ? " class=\"n\"" : "");
        esc_prose(x->out, val);
        fputs("</td><td class=\"note\">", x->out);
        esc_prose(x->out, sat_rnode_note(c));
        fputs("</td></tr>\n", x->out);
    }
    fputs("</tbody></table>\n", x->out);
}

static const char *cell_class(int unit)
{
    return sat_unit_right(unit) ? " class=\"n\"" : unit == SAT_UNIT_TIME ? " class=\"t\"" : "";
}

/* h2 for a page's sections, then one level smaller per part, h6 at most. */
static int heading_of(int level) { return level + 2 > 6 ? 6 : level + 2; }

static void table(void *ctx, const sat_rnode *block, int level)
{
    html_ctx *x = ctx;
    uint64_t total;
    const sat_rnode *rows = rd_block_rows(block, &total);
    size_t ncols;
    const sat_col *cols = sat_table_cols(rows, &ncols);
    if (!rows || !ncols)
        return;
    const char *title = sat_get_text(block, "title", NULL), *note = sat_get_text(block, "note", NULL);
    int h = heading_of(level + 1);
    if (title || note) {
        fprintf(x->out, "<h%d class=\"tt\">", h);
        esc(x->out, title);
        if (note) {
            fputs(" <small>(", x->out);
            esc_prose(x->out, note);
            fputs(")</small>", x->out);
        }
        fprintf(x->out, "</h%d>\n", h);
    }
    if (!sat_rnode_first(rows)) {
        fputs("<p class=\"note\">none</p>\n", x->out);
        return;
    }
    fputs("<div class=\"wide\"><table><thead><tr>", x->out);
    for (size_t i = 0; i < ncols; i++) {
        char hd[128];
        rd_col_title(hd, sizeof hd, &cols[i]);
        fprintf(x->out, "<th%s>", sat_unit_right(cols[i].unit) ? " class=\"n\"" : "");
        esc(x->out, hd);
        fputs("</th>", x->out);
    }
    fputs("</tr></thead><tbody>\n", x->out);
    size_t shown = 0;
    const sat_rnode *link = sat_rnode_first(sat_get_list(block, "detail_pages"));
    for (const sat_rnode *r = sat_rnode_first(rows); r && shown < x->rows;
         r = sat_rnode_next(r), shown++) {
        const char *mark = rd_block_highlight(block, r);
        double page = sat_get_num(link, NULL, NAN);
        link = link ? sat_rnode_next(link) : NULL;
        fputs(mark ? "<tr class=\"hl\">" : "<tr>", x->out);
        for (size_t i = 0; i < ncols; i++) {
            char v[1024];
            rd_fmt_value(v, sizeof v, &x->clock, sat_row_get(r, cols[i].name));
            int hl = mark && !strcmp(mark, cols[i].name);
            if (hl)
                fprintf(x->out, "<td class=\"hl%s\">", sat_unit_right(cols[i].unit) ? " n" : "");
            else
                fprintf(x->out, "<td%s>", cell_class(cols[i].unit));
            if (i == 0 && page >= 1)
                fprintf(x->out, "<a href=\"#page-%.0f\">", page);
            esc_joints(x->out, v, cols[i].unit);
            fputs(i == 0 && page >= 1 ? "</a></td>" : "</td>", x->out);
        }
        fputs("</tr>\n", x->out);
    }
    fputs("</tbody></table></div>\n", x->out);
    if (total > shown)
        fprintf(x->out, "<p class=\"more\">&hellip; %llu more %s (the JSON form has every one)</p>\n",
                (unsigned long long)(total - shown), sat_plural(total - shown, "row", "rows"));
    const char *foot = sat_get_text(block, "footnote", NULL);
    if (foot) {
        fputs("<p class=\"note\">", x->out);
        esc_prose(x->out, foot);
        fputs("</p>\n", x->out);
    }
}

/* Copies cairo's SVG into the page: without its XML declaration and its
 * xmlns declarations (an inline SVG needs neither, and they are the only
 * URLs in it). */
static void inline_svg(FILE *out, const unsigned char *p, size_t len)
{
    const char *s = (const char *)p, *end = s + len;
    const char *svg = s;
    while (svg + 4 <= end && strncmp(svg, "<svg", 4))
        svg++;
    static const char *const drop[] = {" xmlns=\"http://www.w3.org/2000/svg\"",
                                       " xmlns:xlink=\"http://www.w3.org/1999/xlink\""};
    for (const char *q = svg; q < end;) {
        size_t skip = 0;
        for (size_t i = 0; i < 2; i++) {
            size_t dl = strlen(drop[i]);
            if ((size_t)(end - q) >= dl && !memcmp(q, drop[i], dl))
                skip = dl;
        }
        if (skip) {
            q += skip;
            continue;
        }
        const char *nx = q + 1; /* up to the next blank, where a drop may start */
        while (nx < end && *nx != ' ')
            nx++;
        fwrite(q, 1, (size_t)(nx - q), out);
        q = nx;
    }
}

/* Width of a chart: the page's column (main: 1100 px less its padding, 780
 * pt), or the e-mail's 760 px (570 pt) its images are shown at. */
#define HTML_CHART_W 780.0
#define MAIL_CHART_W 570.0

static void chart(void *ctx, const char *kind, const sat_result_set *set, int level)
{
    html_ctx *x = ctx;
    (void)level;
    double w, h;
    rd_chart_size(kind, x->chart_fn ? MAIL_CHART_W : HTML_CHART_W, &w, &h);
    int parts = rd_chart_parts(kind, set);
    for (int part = 1; part <= parts; part++) {
        sat_diag diag;
        memset(&diag, 0, sizeof diag);
        sat_chart *c = set ? rd_chart(kind, set, x->utc, w, h, part, &diag) : NULL;
        if (!c) {
            fputs("<p class=\"note\">(", x->out);
            esc(x->out, kind);
            fputs(" chart: ", x->out);
            esc(x->out, diag.msg[0] ? diag.msg : "nothing to draw");
            fputs(")</p>\n", x->out);
            return;
        }
        if (x->chart_fn) {
            x->chart_fn(x->chart_ctx, x->out, c, kind, ++x->charts);
            sat_chart_free(c);
            continue;
        }
        char prefix[32];
        snprintf(prefix, sizeof prefix, "c%d-", ++x->charts);
        sat_chart_svg_id_prefix(c, prefix);
        unsigned char *svg = NULL;
        size_t len = 0;
        if (sat_chart_bytes(c, SAT_CHART_SVG, &svg, &len, &diag) == SAT_OK) {
            fputs("<figure class=\"chart\">\n", x->out);
            inline_svg(x->out, svg, len);
            fputs("\n</figure>\n", x->out);
        } else {
            fputs("<p class=\"note\">(chart: ", x->out);
            esc(x->out, diag.msg);
            fputs(")</p>\n", x->out);
        }
        free(svg);
        sat_chart_free(c);
    }
}

static void section_begin(void *ctx, const sat_rnode *s, const char *title, const char *anchor,
                          int level)
{
    html_ctx *x = ctx;
    (void)s;
    int h = heading_of(level);
    fprintf(x->out, "<section id=\"%s\">\n<h%d>", anchor, h);
    esc(x->out, title);
    fprintf(x->out, "</h%d>\n", h);
}

static void section_end(void *ctx, const sat_rnode *s, int level)
{
    (void)s;
    (void)level;
    fputs("</section>\n", ((html_ctx *)ctx)->out);
}

static void paragraph(void *ctx, const char *text, int level)
{
    html_ctx *x = ctx;
    (void)level;
    fputs("<p>", x->out);
    esc_prose(x->out, text);
    fputs("</p>\n", x->out);
}

static void pre(void *ctx, const sat_rnode *lines, int level)
{
    html_ctx *x = ctx;
    (void)level;
    fputs("<pre>", x->out);
    for (const sat_rnode *l = sat_rnode_first(lines); l; l = sat_rnode_next(l)) {
        esc(x->out, sat_get_text(l, NULL, ""));
        fputc('\n', x->out);
    }
    fputs("</pre>\n", x->out);
}

static void head(void *ctx, const sat_rnode *root)
{
    html_ctx *x = ctx;
    const char *title = sat_get_text(root, "title", "Report");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          x->out);
    esc(x->out, title);
    fprintf(x->out,
            "</title>\n<style>%s</style>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header><h1>",
            css, chart_css);
    esc_prose(x->out, title);
    char a[64], b[64], zone[32];
    rd_fmt_datetime(a, sizeof a, &x->clock, sat_get_time(root, "first_ts", 0));
    rd_fmt_datetime(b, sizeof b, &x->clock, sat_get_time(root, "last_ts", 0));
    rd_fmt_zone(zone, sizeof zone, &x->clock);
    size_t nin = sat_rnode_count(sat_get_table(root, "inputs"));
    fputs("</h1><p>", x->out);
    fprintf(x->out,
            "<span class=\"nw\">%s</span> to <span class=\"nw\">%s</span> (times in "
            "<span class=\"nw\">%s</span>), %zu %s</p></header>\n",
            a, b, zone, nin,
            sat_plural(nin, "input", "inputs"));
}

static void page_begin(void *ctx, const sat_rnode *pg, int no, int npages)
{
    html_ctx *x = ctx;
    fprintf(x->out, "<div class=\"page\" id=\"page-%d\">\n", no);
    if (npages > 1) {
        const char *sub = sat_get_text(pg, "subtitle", NULL);
        fputs("<h2 class=\"pagehead\">", x->out);
        esc_prose(x->out, sat_get_text(pg, "title", NULL));
        if (sub) {
            fputs(" <small>", x->out);
            esc_prose(x->out, sub);
            fputs("</small>", x->out);
        }
        fputs("</h2>\n", x->out);
    }
}

static void page_end(void *ctx, const sat_rnode *pg)
{
    (void)pg;
    fputs("</div>\n", ((html_ctx *)ctx)->out);
}

static void tail(void *ctx, const sat_rnode *root)
{
    (void)root;
    fputs("<footer>Made by satscope report from the inputs above.</footer>\n</main>\n</body>\n"
          "</html>\n",
          ((html_ctx *)ctx)->out);
}

static const rd_visitor html_visitor = {
    .head = head,
    .findings = findings,
    .page_begin = page_begin,
    .page_end = page_end,
    .section_begin = section_begin,
    .section_end = section_end,
    .paragraph = paragraph,
    .pre = pre,
    .values = values,
    .chart = chart,
    .table = table,
    .tail = tail,
};

int rd_html(sat_report *rep, const sat_report_render_opts *o, FILE *out, rd_html_chart_fn fn,
            void *ctx, sat_diag *diag)
{
    html_ctx x;
    memset(&x, 0, sizeof x);
    x.out = out;
    x.utc = o->utc;
    x.clock = rd_clock_of(sat_result_root(sat_report_doc(rep)), o->utc);
    x.rows = rd_table_rows(o);
    x.chart_fn = fn;
    x.chart_ctx = ctx;
    int rc = rd_walk(rep, &html_visitor, &x, &x.clock);
    if (rc < 0)
        return sat_diag_set(diag, rc, NULL, "writing the HTML report: %s", sat_strerror(rc));
    if (ferror(out))
        return sat_diag_set(diag, SAT_E_IO, NULL, "writing the HTML report failed");
    return SAT_OK;
}

static int render_html(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    return rd_html(rep, o, out, NULL, NULL, diag);
}

const sat_report_renderer sat_render_html = {".html", "HTML", render_html};
