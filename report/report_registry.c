/*
 * report_registry.c - the table of renderers, one per (analyzer, format)
 * (DESIGN.md: plug-ins are tables). A new analyzer's report adds its lines.
 */
#include <string.h>

#include "render.h"
#include "text_etime.h"
#include "text_storms.h"

int sat_report_fmt_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "text") == 0)
        return SAT_REPORT_TEXT;
    if (strcmp(s, "json") == 0)
        return SAT_REPORT_JSON;
    if (strcmp(s, "csv") == 0)
        return SAT_REPORT_CSV;
    return -1;
}

int sat_report_render(const void *view, int fmt, sat_render_fn text, sat_render_fn json,
                      sat_render_fn csv, FILE *out, sat_diag *diag)
{
    sat_render_fn fn = fmt == SAT_REPORT_TEXT ? text
                     : fmt == SAT_REPORT_JSON ? json
                     : fmt == SAT_REPORT_CSV  ? csv
                                              : NULL;
    if (!view || !out || !fn) {
        sat_diag_set(diag, SAT_E_USAGE, "report",
                     view && out ? "this report has no such format" : "no result to render");
        return SAT_E_USAGE;
    }
    int rc = fn(view, out);
    if (rc == SAT_OK && ferror(out))
        rc = SAT_E_IO;
    if (rc < 0)
        sat_diag_set(diag, rc, "report", "%s", sat_strerror(rc));
    return rc;
}


/* (every report renders from its result now: none is left here) */
static const sat_renderer *const sat_renderers[] = {NULL};

const sat_renderer *const *sat_renderer_list(size_t *n)
{
    if (n)
        *n = 0;
    return sat_renderers;
}

const sat_renderer *sat_renderer_find(const char *analyzer, int fmt)
{
    if (!analyzer)
        return NULL;
    for (size_t i = 0; i < sizeof sat_renderers / sizeof sat_renderers[0]; i++)
        if (sat_renderers[i] && sat_renderers[i]->fmt == fmt && strcmp(sat_renderers[i]->analyzer, analyzer) == 0)
            return sat_renderers[i];
    return NULL;
}

/* The text forms of the reports built on result sections (satscope/result.h):
 * one entry per analyzer whose registry entry has a `result` function. */
extern const sat_text_report sat_text_handshakes;
extern const sat_text_report sat_text_saturation;
static const sat_text_report *const sat_text_reports[] = {
    &sat_text_etime,     &sat_text_crashes,    &sat_text_cachesize,
    &sat_text_handshakes, &sat_text_saturation, &sat_text_storms,
};

const sat_text_report *sat_text_report_find(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof sat_text_reports / sizeof sat_text_reports[0]; i++)
        if (sat_text_reports[i] && strcmp(sat_text_reports[i]->analyzer, analyzer) == 0)
            return sat_text_reports[i];
    return NULL;
}

static const sat_csv_report *const sat_csv_reports[] = {NULL};

static const sat_csv_report *csv_report(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof sat_csv_reports / sizeof sat_csv_reports[0]; i++)
        if (sat_csv_reports[i] && strcmp(sat_csv_reports[i]->analyzer, analyzer) == 0)
            return sat_csv_reports[i];
    return NULL;
}

const char *const *sat_csv_tables(const char *analyzer)
{
    const sat_text_report *t = sat_text_report_find(analyzer);
    if (t)
        return t->csv_tables;
    const sat_csv_report *r = csv_report(analyzer);
    return r ? r->names : NULL;
}

int sat_report_csv_table(const char *analyzer, const void *result, const char *name, FILE *out,
                         sat_diag *diag)
{
    const sat_csv_report *r = csv_report(analyzer);
    for (size_t i = 0; r && name && r->names[i]; i++)
        if (strcmp(r->names[i], name) == 0)
            return sat_report_render(r->view(result), SAT_REPORT_CSV, NULL, NULL, r->write[i],
                                     out, diag);
    return sat_diag_set(diag, SAT_E_USAGE, "report", "no CSV table '%s' in %s",
                        name ? name : "", analyzer ? analyzer : "?");
}
