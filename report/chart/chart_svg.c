/*
 * chart_svg.c - a laid-out chart as an SVG of its own (chart_int.h, ch_svg):
 * the painter of ch_paint that writes SVG elements, so a chart in a page is
 * read as a page is: its words are <text> (found, copied, read aloud), each
 * window or bar carries its values in a <title> a pointer shows, the chart
 * says what it shows and its key figure in <title> and <desc> (role="img"),
 * and its colours are classes of its own <style>, light or dark by the
 * reader's prefers-color-scheme. Each text keeps the width the layout
 * measured (textLength), so the layout holds in another font too.
 *
 * Compact: numbers to a tenth of a point, a series' bars one path, a
 * window's values one hover region across every panel of a shared axis.
 * The same chart gives the same bytes; ids (clips) carry the chart's prefix
 * (sat_chart_svg_id_prefix), so several SVGs in one page never share one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"

typedef struct svg {
    sat_chart *c;
    int (*write)(void *closure, const unsigned char *data, size_t len);
    void *closure;
    int failed;
    char *path; /* the path being built: its "d" */
    size_t plen, pcap;
    long cx, cy;      /* its current point, in tenths */
    size_t last_hv;   /* where its last H or V command starts, for merging; 0: none */
    char last_cmd;
    char prefix[40];
    int clips;
} svg;

static void out(svg *s, const char *p, size_t n)
{
    if (!s->failed && n && s->write(s->closure, (const unsigned char *)p, n) != 0)
        s->failed = SAT_E_IO;
}

static void outf(svg *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        out(s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Text escaped for element content and attribute values (the chart's texts
 * are UTF-8 without control characters: ch_strdup). */
static void esc(svg *s, const char *t)
{
    for (const char *p = t ? t : ""; *p; p++) {
        switch (*p) {
        case '&': out(s, "&amp;", 5); break;
        case '<': out(s, "&lt;", 4); break;
        case '>': out(s, "&gt;", 4); break;
        case '"': out(s, "&quot;", 6); break;
        default: out(s, p, 1);
        }
    }
}

/* A coordinate to a tenth, without a trailing ".0". */
static void num(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        v = 0;
    long t = lround(v * 10);
    if (t % 10 == 0)
        snprintf(buf, n, "%ld", t / 10);
    else
        snprintf(buf, n, "%s%ld.%ld", t < 0 ? "-" : "", labs(t) / 10, labs(t) % 10);
}

static void path_add(svg *s, const char *fmt, double a, double b)
{
    char x[32], y[32], piece[96];
    num(x, sizeof x, a);
    num(y, sizeof y, b);
    int n = snprintf(piece, sizeof piece, fmt, x, y);
    if (n <= 0 || s->failed)
        return;
    if (SAT_GROW(s->path, s->pcap, s->plen + (size_t)n + 1) < 0) {
        s->failed = SAT_E_NOMEM;
        return;
    }
    memcpy(s->path + s->plen, piece, (size_t)n + 1);
    s->plen += (size_t)n;
}

static void sv_move(void *x, double a, double b)
{
    svg *s = x;
    path_add(s, "M%s %s", a, b);
    s->cx = lround(a * 10), s->cy = lround(b * 10);
    s->last_cmd = 'M';
}

/* A line to (a, b): H or V when it keeps a coordinate (a step's edges), one
 * H or V for a run of them along one line (a flat stretch). */
static void sv_line(void *x, double a, double b)
{
    svg *s = x;
    long ta = lround(a * 10), tb = lround(b * 10);
    if (ta == s->cx && tb == s->cy)
        return;
    char cmd = tb == s->cy ? 'H' : ta == s->cx ? 'V' : 'L';
    if ((cmd == 'H' || cmd == 'V') && s->last_cmd == cmd)
        s->plen = s->last_hv; /* the same line on: one command */
    size_t at = s->plen;
    if (cmd == 'H')
        path_add(s, "H%s", a, 0);
    else if (cmd == 'V')
        path_add(s, "V%s", b, 0);
    else
        path_add(s, "L%s %s", a, b);
    s->last_hv = at;
    s->last_cmd = cmd;
    s->cx = ta, s->cy = tb;
}

static void sv_rect(void *x, double a, double b, double w, double h)
{
    ((svg *)x)->last_cmd = 'z';
    path_add(x, "M%s %s", a, b);
    path_add(x, "h%s", w, 0);
    path_add(x, "v%s", h, 0);
    path_add(x, "h%s", -w, 0);
    path_add(x, "z", 0, 0);
}

static void sv_circle(void *x, double cx, double cy, double r)
{
    ((svg *)x)->last_cmd = 'a';
    path_add(x, "M%s %s", cx - r, cy);
    char rr[32], d[32], piece[256];
    num(rr, sizeof rr, r);
    num(d, sizeof d, 2 * r);
    snprintf(piece, sizeof piece, "a%s %s 0 1 0 %s 0a%s %s 0 1 0 -%s 0", rr, rr, d, rr, rr, d);
    svg *s = x;
    size_t n = strlen(piece);
    if (s->failed || SAT_GROW(s->path, s->pcap, s->plen + n + 1) < 0) {
        s->failed = s->failed ? s->failed : SAT_E_NOMEM;
        return;
    }
    memcpy(s->path + s->plen, piece, n + 1);
    s->plen += n;
}

static void alpha_attr(svg *s, const char *what, double alpha)
{
    if (alpha < 0.999)
        outf(s, " %s-opacity=\"%.2f\"", what, alpha);
}

static void sv_fill(void *x, int ink, double alpha)
{
    svg *s = x;
    if (s->plen) {
        outf(s, "<path class=\"f%d\"", ink);
        alpha_attr(s, "fill", alpha);
        out(s, " d=\"", 4);
        out(s, s->path, s->plen);
        out(s, "\"/>\n", 4);
    }
    s->plen = 0;
}

static void sv_stroke(void *x, int ink, double alpha, double width, const double *dash)
{
    svg *s = x;
    if (s->plen) {
        char w[32];
        num(w, sizeof w, width);
        outf(s, "<path class=\"s%d\" stroke-width=\"%s\"", ink, w);
        alpha_attr(s, "stroke", alpha);
        if (dash)
            outf(s, " stroke-dasharray=\"%g %g\"", dash[0], dash[1]);
        out(s, " d=\"", 4);
        out(s, s->path, s->plen);
        out(s, "\"/>\n", 4);
    }
    s->plen = 0;
}

static void sv_clip(void *x, const ch_rect *r)
{
    svg *s = x;
    if (!r) {
        out(s, "</g>\n", 5);
        return;
    }
    char a[32], b[32], w[32], h[32];
    num(a, sizeof a, r->x);
    num(b, sizeof b, r->y);
    num(w, sizeof w, r->w);
    num(h, sizeof h, r->h);
    int k = s->clips++;
    outf(s, "<clipPath id=\"%sk%d\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/></clipPath>"
            "<g clip-path=\"url(#%sk%d)\">\n",
         s->prefix, k, a, b, w, h, s->prefix, k);
}

static void sv_text(void *x, const ch_text *t)
{
    svg *s = x;
    char a[32], b[32], len[32], size[32];
    num(a, sizeof a, t->x);
    num(b, sizeof b, t->y);
    num(len, sizeof len, t->vertical ? t->box.h : t->box.w);
    num(size, sizeof size, t->size);
    int ink = t->grey == 2 ? CH_INK_TEXT_ON_BAR : t->grey ? CH_INK_TEXT_GREY : CH_INK_TEXT;
    outf(s, "<text class=\"f%d\" x=\"%s\" y=\"%s\" font-size=\"%s\"", ink, a, b, size);
    if (t->bold)
        out(s, " font-weight=\"bold\"", 19);
    if (t->italic)
        out(s, " font-style=\"italic\"", 20);
    if (t->vertical)
        outf(s, " transform=\"rotate(-90 %s %s)\"", a, b);
    outf(s, " textLength=\"%s\" lengthAdjust=\"spacingAndGlyphs\">", len);
    esc(s, t->s);
    out(s, "</text>\n", 8);
}

static void sv_hover(void *x, const ch_rect *r, const char *title)
{
    svg *s = x;
    char a[32], b[32], w[32], h[32];
    num(a, sizeof a, r->x);
    num(b, sizeof b, r->y);
    num(w, sizeof w, r->w);
    num(h, sizeof h, r->h);
    outf(s, "<rect class=\"hv\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"><title>", a, b, w, h);
    esc(s, title);
    out(s, "</title></rect>\n", 16);
}

/* The colours of the inks, light then dark: the palette keeps its hues on a
 * dark ground but for black, which turns light. */
static void style(svg *s)
{
    static const char *const light[CH_INK__COUNT - SAT_COLOR__COUNT] = {
        "#ffffff", "#e6e6e6", "#737373", "#bfbfbf", "#383838", "#1a1a1a", "#4d4d4d", "#ffffff"};
    static const char *const dark[CH_INK__COUNT - SAT_COLOR__COUNT] = {
        "#15191f", "#333a44", "#8a93a0", "#555c66", "#c4cad3", "#e8ebef", "#b8bec7", "#ffffff"};
    out(s, "<style>", 7);
    outf(s, ".satchart text{font-family:'DejaVu Sans',Verdana,sans-serif;white-space:pre}"
            ".satchart .hv{fill:transparent}.satchart .hv:hover{fill:rgba(128,128,128,.16)}"
            ".satchart path[class^=s]{fill:none;stroke-linejoin:round}");
    for (int scheme = 0; scheme < 2; scheme++) {
        if (scheme)
            out(s, "@media (prefers-color-scheme:dark){", 35);
        for (int ink = 0; ink < CH_INK__COUNT; ink++) {
            const char *col = ink < SAT_COLOR__COUNT ? ch_color_hex(ink)
                              : scheme           ? dark[ink - SAT_COLOR__COUNT]
                                                 : light[ink - SAT_COLOR__COUNT];
            if (scheme && ink < SAT_COLOR__COUNT && ink != SAT_COLOR_BLACK)
                continue; /* the hues stay */
            if (scheme && ink == SAT_COLOR_BLACK)
                col = dark[CH_INK_TEXT - SAT_COLOR__COUNT];
            outf(s, ".satchart .f%d{fill:%s}.satchart .s%d{stroke:%s}", ink, col, ink, col);
        }
        if (scheme)
            out(s, "}", 1);
    }
    out(s, "</style>\n", 9);
}

/* A prefix from the chart's structure when none was set: FNV-1a of its title
 * and texts, so distinct charts in one page get distinct ids. */
static void make_prefix(svg *s)
{
    sat_chart *c = s->c;
    if (c->id_prefix[0]) {
        snprintf(s->prefix, sizeof s->prefix, "%s", c->id_prefix);
        return;
    }
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < c->ntexts; i++)
        for (const char *p = c->texts[i].s; p && *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
    snprintf(s->prefix, sizeof s->prefix, "c%08x-", (unsigned)h);
}

int ch_svg(sat_chart *c, int (*write)(void *closure, const unsigned char *data, size_t len),
           void *closure)
{
    svg s;
    memset(&s, 0, sizeof s);
    s.c = c, s.write = write, s.closure = closure;
    make_prefix(&s);
    char w[32], h[32], summary[1024];
    num(w, sizeof w, c->w);
    num(h, sizeof h, c->h);
    ch_summary(c, summary, sizeof summary);
    out(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39);
    outf(&s, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"satchart\" width=\"%spt\" height=\"%spt\" "
             "viewBox=\"0 0 %s %s\" role=\"img\" aria-labelledby=\"%st %sd\">\n<title id=\"%st\">",
         w, h, w, h, s.prefix, s.prefix, s.prefix);
    esc(&s, c->title ? c->title : "chart");
    outf(&s, "</title>\n<desc id=\"%sd\">", s.prefix);
    esc(&s, summary);
    out(&s, "</desc>\n", 8);
    style(&s);
    const ch_painter p = {&s, sv_move, sv_line, sv_rect, sv_circle, sv_fill, sv_stroke, sv_clip, sv_text,
                          sv_hover};
    ch_paint(c, &p);
    out(&s, "</svg>\n", 7);
    free(s.path);
    return s.failed ? s.failed : SAT_OK;
}

/* ---- what the chart shows, in words --------------------------------------------------------- */

static void cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (k > 0)
        *len = *len + (size_t)k < n ? *len + (size_t)k : n - 1;
}

/* A panel's key figure: its largest bar, or the peak of its largest
 * series (a stack's top) and where it is. */
static void panel_key(sat_chart *c, sat_chart_panel *p, char *buf, size_t n, size_t *len)
{
    double best = -INFINITY, at = NAN;
    const char *name = NULL;
    const sat_chart_series *bs = NULL;
    for (size_t k = 0; k < p->nseries; k++) {
        const sat_chart_series *s = p->series[k];
        if (s->right)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double v = s->y[i] + (s->base ? s->base[i] : 0);
            if (isfinite(v) && v > best) {
                best = v;
                at = s->x[i];
                name = s->style == SAT_SERIES_HBARS ? s->cat[i] : s->style == SAT_SERIES_STACKED ? NULL : s->name;
                bs = s;
            }
        }
    }
    if (!bs)
        return;
    const ch_axis *xa = ch_panel_xaxis(p);
    char v[64], x[64];
    if (bs->style == SAT_SERIES_HBARS) {
        ch_tick_label(v, sizeof v, xa->unit, best);
        cat(buf, n, len, "; largest: %s, %s", name ? name : "", v);
        return;
    }
    ch_tick_label(v, sizeof v, p->y.unit, best);
    if (xa->scale == SAT_AXIS_TIME)
        ch_time_label(x, sizeof x, NULL, 0, at, c->tz, 1);
    else
        ch_tick_label(x, sizeof x, xa->unit, at);
    cat(buf, n, len, "; peak %s%s%s at %s", name ? name : "", name ? " " : "", v, x);
}

void ch_summary(sat_chart *c, char *buf, size_t n)
{
    size_t len = 0;
    if (!n)
        return;
    buf[0] = '\0';
    cat(buf, n, &len, "%s.", c->title ? c->title : "A chart");
    for (size_t i = 0; i < c->npanels; i++) {
        sat_chart_panel *p = c->panels[i];
        cat(buf, n, &len, " %s", p->title ? p->title : "a panel");
        if (p->has_data)
            panel_key(c, p, buf, n, &len);
        else if (p->note)
            cat(buf, n, &len, ": %s", p->note);
        cat(buf, n, &len, ".");
    }
}

void sat_chart_summary(sat_chart *c, char *buf, size_t n)
{
    if (!buf || !n)
        return;
    buf[0] = '\0';
    if (c && ch_layout(c) == SAT_OK)
        ch_summary(c, buf, n);
}
