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
    sat_report *rep;
    int utc;
    int charts; /* numbered for their id prefixes */
    int page;   /* 1-based */
    int npages;
    rd_html_chart_fn chart_fn;
    void *chart_ctx;
} html_ctx;

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char css[] =
    ":root{--ink:#1d2430;--mute:#5b6573;--line:#d8dde4;--bg:#ffffff;--band:#f4f6f9;"
    "--crit:#b4341b;--warn:#b86e00;--note:#0a6aa1}"
    "*{box-sizing:border-box}"
    "body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 'DejaVu Sans',"
    "'Helvetica Neue',Arial,sans-serif}"
    "main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}"
    "header h1{font-size:28px;margin:0 0 4px}"
    "header p{margin:0;color:var(--mute)}"
    "h2{font-size:21px;margin:34px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}"
    "h3{font-size:15px;margin:22px 0 6px;color:var(--ink)}"
    "h3 small{font-weight:normal;color:var(--mute)}"
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
    "figure svg{display:block;width:100%;height:auto}"
    "figure figcaption,.note{color:var(--mute);font-size:13px}"
    "table{border-collapse:collapse;margin:4px 0 8px;font-size:13px}"
    "th,td{padding:3px 10px 3px 0;text-align:left;vertical-align:top}"
    "th{border-bottom:1px solid var(--line);color:var(--mute);font-weight:normal;white-space:nowrap}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.t{white-space:nowrap;font-variant-numeric:tabular-nums}"
    "tbody tr:nth-child(even){background:var(--band)}"
    "td{max-width:420px;overflow-wrap:anywhere}"
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

/* The anchor of section `id` of page k (1-based): unique in the file. */
static void anchor(char *buf, size_t n, int page, const char *id)
{
    snprintf(buf, n, "p%d-%s", page, id ? id : "section");
}

static void findings(html_ctx *x, const sat_rnode *list, const char *title, int page)
{
    if (!sat_rnode_first(list))
        return;
    fputs("<section class=\"findings\"><h2>", x->out);
    esc(x->out, title);
    fputs("</h2><ul>\n", x->out);
    for (const sat_rnode *f = sat_rnode_first(list); f; f = sat_rnode_next(f)) {
        const char *sev = rd_otext(f, "severity"), *sec = rd_otext(f, "section");
        fputs("<li class=\"", x->out);
        esc(x->out, sev ? sev : "notice");
        fputs("\"><span class=\"sev\">", x->out);
        esc(x->out, sev ? sev : "notice");
        fputs("</span>", x->out);
        esc(x->out, rd_otext(f, "text"));
        if (sec) {
            char a[160];
            anchor(a, sizeof a, page, sec);
            fprintf(x->out, " <a href=\"#%s\">details</a>", a);
        }
        fputs("</li>\n", x->out);
    }
    fputs("</ul></section>\n", x->out);
}

static void values(html_ctx *x, const sat_rnode *obj)
{
    /* numbers right-aligned, unless a long text shares their column */
    int long_text = 0;
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        const sat_value *v = sat_rnode_kind_of(c) == SAT_RN_VALUE ? sat_rnode_value(c) : NULL;
        if (v && v->unit == SAT_UNIT_TEXT && !v->absent && strlen(v->v.s) > 14)
            long_text = 1;
    }
    fputs("<table class=\"values\"><tbody>\n", x->out);
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        if (sat_rnode_kind_of(c) != SAT_RN_VALUE)
            continue;
        char lab[128], val[512];
        sat_doc_label(lab, sizeof lab, sat_rnode_key(c));
        rd_fmt_value(val, sizeof val, &x->clock, sat_rnode_value(c));
        fputs("<tr><td class=\"k\">", x->out);
        esc(x->out, lab);
        fprintf(x->out, "</td><td%s>",
                rd_unit_right(sat_rnode_value(c)->unit) && !long_text ? " class=\"n\"" : "");
        esc(x->out, val);
        fputs("</td><td class=\"note\">", x->out);
        esc(x->out, sat_rnode_note(c));
        fputs("</td></tr>\n", x->out);
    }
    fputs("</tbody></table>\n", x->out);
}

static const char *cell_class(int unit)
{
    return rd_unit_right(unit) ? " class=\"n\"" : unit == SAT_UNIT_TIME ? " class=\"t\"" : "";
}

static void table(html_ctx *x, const sat_rnode *block)
{
    uint64_t total;
    const sat_rnode *rows = rd_block_rows(block, &total);
    size_t ncols;
    const sat_col *cols = sat_table_cols(rows, &ncols);
    if (!rows || !ncols)
        return;
    const char *title = rd_otext(block, "title"), *note = rd_otext(block, "note");
    fputs("<h3>", x->out);
    esc(x->out, title);
    if (note) {
        fputs(" <small>(", x->out);
        esc(x->out, note);
        fputs(")</small>", x->out);
    }
    fputs("</h3>\n", x->out);
    if (!sat_rnode_first(rows)) {
        fputs("<p class=\"note\">none</p>\n", x->out);
        return;
    }
    fputs("<div class=\"wide\"><table><thead><tr>", x->out);
    for (size_t i = 0; i < ncols; i++) {
        char h[128];
        rd_col_title(h, sizeof h, &cols[i]);
        fprintf(x->out, "<th%s>", rd_unit_right(cols[i].unit) ? " class=\"n\"" : "");
        esc(x->out, h);
        fputs("</th>", x->out);
    }
    fputs("</tr></thead><tbody>\n", x->out);
    size_t shown = 0;
    for (const sat_rnode *r = sat_rnode_first(rows); r && shown < SAT_DOC_TABLE_ROWS;
         r = sat_rnode_next(r), shown++) {
        fputs("<tr>", x->out);
        for (size_t i = 0; i < ncols; i++) {
            char v[1024];
            rd_fmt_value(v, sizeof v, &x->clock, sat_row_get(r, cols[i].name));
            fprintf(x->out, "<td%s>", cell_class(cols[i].unit));
            esc(x->out, v);
            fputs("</td>", x->out);
        }
        fputs("</tr>\n", x->out);
    }
    fputs("</tbody></table></div>\n", x->out);
    if (total > shown)
        fprintf(x->out, "<p class=\"more\">&hellip; %llu more %s (the JSON form has every one)</p>\n",
                (unsigned long long)(total - shown), sat_plural(total - shown, "row", "rows"));
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

static void chart(html_ctx *x, const char *kind, const sat_result_set *set)
{
    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    /* a mail reader's column is narrower than a page, and a smaller PNG is
     * quicker to make and to send */
    double w, h;
    rd_chart_size(kind, x->chart_fn ? 760 : 1040, &w, &h);
    sat_chart *c = set ? rd_chart(kind, set, x->utc, w, h, &diag) : NULL;
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
        return;
    }
    char prefix[32];
    snprintf(prefix, sizeof prefix, "c%d-", ++x->charts);
    sat_chart_svg_id_prefix(c, prefix);
    unsigned char *svg = NULL;
    size_t len = 0;
    if (rd_chart_bytes(c, SAT_CHART_SVG, &svg, &len, &diag) == SAT_OK) {
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

static void section(html_ctx *x, const sat_rnode *s, const sat_result_set *set)
{
    char a[160];
    anchor(a, sizeof a, x->page, rd_otext(s, "section"));
    fprintf(x->out, "<section id=\"%s\">\n<h2>", a);
    esc(x->out, rd_otext(s, "title"));
    fputs("</h2>\n", x->out);
    for (const sat_rnode *p = sat_rnode_first(rd_list(s, "paragraphs")); p; p = sat_rnode_next(p)) {
        fputs("<p>", x->out);
        esc(x->out, rd_text(sat_rnode_value(p)));
        fputs("</p>\n", x->out);
    }
    const sat_rnode *v = sat_rnode_get(s, "values");
    if (v && sat_rnode_kind_of(v) == SAT_RN_OBJECT && sat_rnode_first(v))
        values(x, v);
    for (const sat_rnode *c = sat_rnode_first(rd_list(s, "charts")); c; c = sat_rnode_next(c))
        if (rd_text(sat_rnode_value(c)))
            chart(x, rd_text(sat_rnode_value(c)), set);
    for (const sat_rnode *b = sat_rnode_first(rd_list(s, "tables")); b; b = sat_rnode_next(b))
        table(x, b);
    fputs("</section>\n", x->out);
}

static void inputs(html_ctx *x, const sat_rnode *root)
{
    const sat_rnode *t = rd_table(root, "inputs");
    if (!t)
        return;
    fputs("<section id=\"inputs\"><h2>Inputs</h2>\n", x->out);
    sat_result *tmp = sat_result_new("report");
    sat_rnode *s = sat_obj(sat_result_root(tmp), "s");
    sat_doc_table(s, "Every source with its span", NULL, t, NULL, 0, NULL, NULL);
    const sat_rnode *b = sat_rnode_first(rd_list(s, "tables"));
    if (b)
        table(x, b);
    sat_result_free(tmp);
    fputs("</section>\n", x->out);
}

int rd_html(sat_report *rep, const sat_report_render_opts *o, FILE *out, rd_html_chart_fn fn,
            void *ctx, sat_diag *diag)
{
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    html_ctx x;
    memset(&x, 0, sizeof x);
    x.out = out;
    x.rep = rep;
    x.utc = o->utc;
    x.clock = rd_clock_of(root, o->utc);
    x.chart_fn = fn;
    x.chart_ctx = ctx;
    const char *title = rd_otext(root, "title");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    esc(out, title ? title : "Report");
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header><h1>", css);
    esc(out, title ? title : "Report");
    char a[64], b[64], zone[32];
    rd_fmt_datetime(a, sizeof a, &x.clock, rd_ots(root, "first_ts"));
    rd_fmt_datetime(b, sizeof b, &x.clock, rd_ots(root, "last_ts"));
    rd_fmt_zone(zone, sizeof zone, &x.clock);
    size_t nin = sat_rnode_count(rd_table(root, "inputs"));
    fputs("</h1><p>", out);
    fprintf(out, "%s to %s (times in %s), %zu %s</p></header>\n", a, b, zone, nin,
            sat_plural(nin, "input", "inputs"));
    findings(&x, rd_list(root, "findings"), "What happened", 1);
    const sat_rnode *pages = rd_list(root, "pages");
    x.npages = (int)sat_rnode_count(pages);
    for (const sat_rnode *pg = sat_rnode_first(pages); pg; pg = sat_rnode_next(pg)) {
        x.page++;
        fprintf(out, "<div class=\"page\" id=\"page-%d\">\n", x.page);
        if (x.npages > 1) {
            const char *pt = rd_otext(pg, "title"), *sub = rd_otext(pg, "subtitle");
            fputs("<h2 class=\"pagehead\">", out);
            esc(out, pt);
            if (sub) {
                fputs(" <small>", out);
                esc(out, sub);
                fputs("</small>", out);
            }
            fputs("</h2>\n", out);
        }
        findings(&x, rd_list(pg, "findings"), "Findings", x.page);
        const sat_result_set *set = sat_report_page_set(rep, pg);
        for (const sat_rnode *s = sat_rnode_first(rd_list(pg, "sections")); s; s = sat_rnode_next(s))
            section(&x, s, set);
        fputs("</div>\n", out);
    }
    inputs(&x, root);
    fputs("<footer>Made by satscope report from the inputs above.</footer>\n</main>\n</body>\n"
          "</html>\n",
          out);
    if (ferror(out))
        return sat_diag_set(diag, SAT_E_IO, NULL, "writing the HTML report failed");
    return SAT_OK;
}

static int render_html(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    return rd_html(rep, o, out, NULL, NULL, diag);
}

const sat_report_renderer sat_render_html = {".html", "HTML", render_html};
