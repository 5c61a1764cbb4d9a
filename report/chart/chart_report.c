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


typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
} membuf;

static int mem_write(void *closure, const unsigned char *data, size_t len)
{
    membuf *m = closure;
    if (m->len + len > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < m->len + len)
            cap *= 2;
        unsigned char *np = realloc(m->p, cap);
        if (!np)
            return -1;
        m->p = np;
        m->cap = cap;
    }
    memcpy(m->p + m->len, data, len);
    m->len += len;
    return 0;
}

int rd_chart_bytes(sat_chart *c, int fmt, unsigned char **out, size_t *len, sat_diag *diag)
{
    membuf m = {NULL, 0, 0};
    int rc = sat_chart_write(c, (sat_chart_format)fmt, mem_write, &m, diag);
    if (rc < 0 || !m.p) {
        free(m.p);
        *out = NULL;
        *len = 0;
        return rc < 0 ? rc : SAT_E_NOMEM;
    }
    *out = m.p;
    *len = m.len;
    return SAT_OK;
}

void rd_chart_size(const char *name, double width, double *w, double *h)
{
    *w = width;
    if (!strcmp(name, "timeline"))
        *h = width * 1.15;
    else
        *h = width * 0.62;
}
