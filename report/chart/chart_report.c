/*
 * chart_report.c - a chart of a report's page (doc_int.h): the chart kind
 * named by a section's `charts`, built from the page's result set, in the
 * parts a page region holds, at the size the report shows it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc_int.h"

sat_chart *rd_chart(const char *name, const sat_result_set *set, int utc, double width_pt,
                    double height_pt, int part, sat_diag *diag)
{
    const sat_chart_kind *k = sat_chart_kind_find(name);
    if (!k) {
        sat_diag_set(diag, SAT_E_USAGE, NULL, "no chart kind '%s'", name);
        return NULL;
    }
    sat_chart_opts o;
    memset(&o, 0, sizeof o);
    o.utc = utc;
    o.width_pt = width_pt;
    o.height_pt = height_pt;
    o.part = k->parts && k->parts(set) > 1 ? part : 0;
    return k->build(set, &o, diag);
}

int rd_chart_parts(const char *name, const sat_result_set *set)
{
    const sat_chart_kind *k = sat_chart_kind_find(name);
    size_t n = k && k->parts && set ? k->parts(set) : 1;
    return n > 1 ? (int)n : 1;
}

void rd_chart_size(const char *name, double width, double *w, double *h)
{
    *w = width;
    /* the timeline's six panels share a tall page; the others are as tall
     * as their panels need */
    if (!strcmp(name, "timeline") || !strcmp(name, "storm"))
        *h = fmax(width * 1.15, 720); /* on A4: a sheet's whole text height */
    else
        *h = 0;
}
