/*
 * report_render_image.c - a report as one picture (`-o timeline.png`,
 * `-o timeline.svg`): the report's timeline chart alone (the first section
 * chart named "timeline", else its first chart), drawn from its page's
 * result set by the chart engine.
 */
#include <stdlib.h>
#include <string.h>

#include "doc_int.h"

static int render_image(sat_report *rep, const sat_report_render_opts *o, FILE *out, int fmt,
                        sat_diag *diag)
{
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    const char *kind = NULL;
    const sat_rnode *page = NULL;
    for (const sat_rnode *pg = sat_rnode_first(sat_get_list(root, "pages")); pg; pg = sat_rnode_next(pg))
        for (const sat_rnode *s = sat_rnode_first(sat_get_list(pg, "sections")); s; s = sat_rnode_next(s))
            for (const sat_rnode *c = sat_rnode_first(sat_get_list(s, "charts")); c; c = sat_rnode_next(c)) {
                const char *k = sat_get_text(c, NULL, NULL);
                if (k && (!kind || (strcmp(kind, "timeline") && !strcmp(k, "timeline")))) {
                    kind = k;
                    page = pg;
                }
            }
    if (!kind)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "the report has no chart to draw");
    double w, h;
    rd_chart_size(kind, 1040, &w, &h);
    sat_chart *c = rd_chart(kind, sat_report_page_set(rep, page), o->utc, w, h, 0, diag);
    if (!c)
        return diag->code < 0 ? diag->code : sat_diag_set(diag, SAT_E_USAGE, NULL,
                                                         "the %s chart has nothing to draw", kind);
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = sat_chart_bytes(c, (sat_chart_format)fmt, &buf, &len, diag);
    if (rc >= 0 && fwrite(buf, 1, len, out) != len)
        rc = sat_diag_set(diag, SAT_E_IO, NULL, "writing the chart failed");
    free(buf);
    sat_chart_free(c);
    return rc;
}

static int render_png(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    return render_image(rep, o, out, SAT_CHART_PNG, diag);
}

static int render_svg(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    return render_image(rep, o, out, SAT_CHART_SVG, diag);
}

const sat_report_renderer sat_render_png = {".png", "PNG", render_png};
const sat_report_renderer sat_render_svg = {".svg", "SVG", render_svg};
