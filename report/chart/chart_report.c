/*
 * report_chart.c - a chart of a report's page (report_doc_int.h): the chart
 * kind named by a section's `charts`, built from the page's result set.
 */
#include <stdlib.h>
#include <string.h>

#include "doc_int.h"

sat_chart *rd_chart(const char *name, const sat_result_set *set, int utc, double width_pt,
                    double height_pt, sat_diag *diag)
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
    return k->build(set, &o, diag);
}

void rd_chart_size(const char *name, double width, double *w, double *h)
{
    *w = width;
    if (!strcmp(name, "timeline"))
        *h = width * 1.15;
    else
        *h = width * 0.62;
}
