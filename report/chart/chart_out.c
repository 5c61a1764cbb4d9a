/*
 * chart_out.c - a chart's files: PNG (drawn at 2 pixels per point, so text
 * stays crisp on screens that double) and PDF (cairo's surfaces, written
 * through a stream), SVG (the chart's own writer, chart_svg.c: its words
 * are text), and a chart drawn into someone else's cairo context (a page of
 * a PDF report).
 *
 * Deterministic output: PNG and SVG are the same bytes for the same chart;
 * a PDF would carry the time of day as its creation date, so it is fixed
 * (the end of the chart's time axis when it has one, else the epoch).
 */
#include <cairo-pdf.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "chart_int.h"

int sat_chart_format_of(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    static const struct {
        const char *ext;
        sat_chart_format fmt;
    } exts[] = {{".png", SAT_CHART_PNG}, {".svg", SAT_CHART_SVG}, {".pdf", SAT_CHART_PDF}};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i].ext);
        if (n > e && strcasecmp(path + n - e, exts[i].ext) == 0)
            return (int)exts[i].fmt;
    }
    return -1;
}

typedef struct sink {
    sat_chart_write_fn write;
    void *closure;
    int failed;
} sink;

static cairo_status_t to_sink(void *closure, const unsigned char *data, unsigned int len)
{
    sink *s = closure;
    if (s->failed || s->write(s->closure, data, len) != 0) {
        s->failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

/* A growing buffer (sat_chart_bytes). */
typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
    int failed;
} membuf;

static cairo_status_t to_mem(void *closure, const unsigned char *data, unsigned int len)
{
    membuf *m = closure;
    if (SAT_GROW(m->p, m->cap, m->n + len) < 0) {
        m->failed = 1;
        return CAIRO_STATUS_NO_MEMORY;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return CAIRO_STATUS_SUCCESS;
}

static int draw_on(sat_chart *c, cairo_surface_t *surf, double scale)
{
    cairo_t *cr = cairo_create(surf);
    cairo_scale(cr, scale, scale);
    ch_draw(c, cr);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    return st == CAIRO_STATUS_SUCCESS ? SAT_OK : SAT_E_NOMEM;
}

/* The PDF's creation date: the end of the time axis, else the epoch. */
static void pdf_date(const sat_chart *c, char *buf, size_t n)
{
    time_t t = 0;
    if (c->shared && c->x.scale == SAT_AXIS_TIME && isfinite(c->x.hi) && c->x.hi > 0)
        t = ch_secs(c->x.hi);
    struct tm tm = {0};
    if (!gmtime_r(&t, &tm)) /* out of range: zeros rather than garbage */
        memset(&tm, 0, sizeof tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int sat_chart_write(sat_chart *c, sat_chart_format fmt, sat_chart_write_fn write, void *closure,
                    sat_diag *diag)
{
    int st = ch_layout(c);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "laying out the chart: %s", sat_strerror(st));
    sink s = {write, closure, 0};
    cairo_surface_t *surf = NULL;
    switch (fmt) {
    case SAT_CHART_PNG:
        /* 4 bytes a pixel, 4 pixels a square point */
        if (c->w * c->h * 16 > 512.0 * 1048576)
            return sat_diag_set(diag, SAT_E_LIMIT, NULL,
                                "a PNG of %.0f x %.0f points would take over 512 MiB to draw", c->w, c->h);
        surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(c->w * 2), (int)ceil(c->h * 2));
        st = draw_on(c, surf, 2);
        if (st == SAT_OK && cairo_surface_write_to_png_stream(surf, to_sink, &s) != CAIRO_STATUS_SUCCESS)
            st = s.failed ? SAT_E_IO : SAT_E_NOMEM;
        break;
    case SAT_CHART_SVG: /* the chart's own writer: text as text (chart_svg.c) */
        st = ch_svg(c, write, closure);
        if (st != SAT_OK)
            return sat_diag_set(diag, st, NULL, st == SAT_E_IO ? "writing the chart failed" : "drawing the chart: %s",
                                sat_strerror(st));
        return SAT_OK;
    case SAT_CHART_PDF: {
        surf = cairo_pdf_surface_create_for_stream(to_sink, &s, c->w, c->h);
        char date[32];
        pdf_date(c, date, sizeof date);
        cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
        if (c->title)
            cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, c->title);
        cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "satscope");
        st = draw_on(c, surf, 1);
        cairo_surface_finish(surf);
        if (st == SAT_OK && cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS)
            st = s.failed ? SAT_E_IO : SAT_E_NOMEM;
        break;
    }
    default:
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "unknown chart format %d", (int)fmt);
    }
    cairo_surface_destroy(surf);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, st == SAT_E_IO ? "writing the chart failed" : "drawing the chart: %s",
                            sat_strerror(st));
    return SAT_OK;
}

static int to_file(void *closure, const unsigned char *data, size_t len)
{
    return fwrite(data, 1, len, closure) == len ? 0 : -1;
}

int sat_chart_write_file(sat_chart *c, const char *path, const sat_out_opts *oo, sat_diag *diag)
{
    int fmt = sat_chart_format_of(path);
    if (fmt < 0)
        return sat_diag_set(diag, SAT_E_USAGE, path, "a chart is written as .png, .svg or .pdf");
    sat_out *o = sat_out_open(path, oo, diag);
    if (!o)
        return diag ? diag->code : SAT_E_IO;
    FILE *f = sat_out_stream(o);
    int st = f ? sat_chart_write(c, (sat_chart_format)fmt, to_file, f, diag)
               : sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
    if (st == SAT_OK)
        st = sat_out_commit(o, diag);
    else
        sat_out_discard(o);
    if (st != SAT_OK && diag)
        snprintf(diag->where, sizeof diag->where, "%s", path);
    return st;
}

int sat_chart_draw(sat_chart *c, void *cr, double x, double y)
{
    int st = ch_layout(c);
    if (st != SAT_OK)
        return st;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rectangle(cr, 0, 0, c->w, c->h);
    cairo_clip(cr);
    ch_draw(c, cr);
    cairo_restore(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? SAT_OK : SAT_E_NOMEM;
}

void sat_chart_release_fonts(void)
{
    cairo_debug_reset_static_data(); /* cairo's font faces let go of their patterns */
    FcFini();
}

static int to_membuf(void *closure, const unsigned char *data, size_t len)
{
    return to_mem(closure, data, (unsigned)len) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

int sat_chart_bytes(sat_chart *c, sat_chart_format fmt, unsigned char **out, size_t *len,
                    sat_diag *diag)
{
    membuf m = {0};
    int rc = sat_chart_write(c, fmt, to_membuf, &m, diag);
    if (rc < 0 || !m.p) {
        free(m.p);
        *out = NULL;
        *len = 0;
        return rc < 0 ? rc : SAT_E_NOMEM;
    }
    *out = m.p;
    *len = m.n;
    return SAT_OK;
}
