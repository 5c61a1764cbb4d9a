/*
 * report_registry.c - the table of renderers, one per (analyzer, format)
 * (DESIGN.md: plug-ins are tables). A new analyzer's report adds its lines.
 */
#include <string.h>

#include "render.h"
#include "text_etime.h"

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

static int hs_text(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_handshakes((const sat_hs *)r, SAT_REPORT_TEXT, out, d);
}
static int hs_json(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_handshakes((const sat_hs *)r, SAT_REPORT_JSON, out, d);
}
static int hs_csv(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_handshakes((const sat_hs *)r, SAT_REPORT_CSV, out, d);
}
static const sat_renderer r_hs_text = {"handshakes", SAT_REPORT_TEXT, hs_text};
static const sat_renderer r_hs_json = {"handshakes", SAT_REPORT_JSON, hs_json};
static const sat_renderer r_hs_csv = {"handshakes", SAT_REPORT_CSV, hs_csv};

static int satu_text(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_saturation((const sat_saturation *)r, SAT_REPORT_TEXT, out, d);
}
static int satu_json(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_saturation((const sat_saturation *)r, SAT_REPORT_JSON, out, d);
}
static int satu_csv(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_saturation((const sat_saturation *)r, SAT_REPORT_CSV, out, d);
}
static const sat_renderer r_satu_text = {"saturation", SAT_REPORT_TEXT, satu_text};
static const sat_renderer r_satu_json = {"saturation", SAT_REPORT_JSON, satu_json};
static const sat_renderer r_satu_csv = {"saturation", SAT_REPORT_CSV, satu_csv};

static int st_text(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_storms((const sat_storms *)r, SAT_REPORT_TEXT, out, d);
}
static int st_json(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_storms((const sat_storms *)r, SAT_REPORT_JSON, out, d);
}
static const sat_renderer r_st_text = {"storms", SAT_REPORT_TEXT, st_text};
static const sat_renderer r_st_json = {"storms", SAT_REPORT_JSON, st_json};
static int st_csv(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_storms((const sat_storms *)r, SAT_REPORT_CSV, out, d);
}
static const sat_renderer r_st_csv = {"storms", SAT_REPORT_CSV, st_csv};

static int cr_text(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_crashes((const sat_crashes *)r, SAT_REPORT_TEXT, out, d);
}
static int cr_json(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_crashes((const sat_crashes *)r, SAT_REPORT_JSON, out, d);
}
static const sat_renderer r_cr_text = {"crashes", SAT_REPORT_TEXT, cr_text};
static const sat_renderer r_cr_json = {"crashes", SAT_REPORT_JSON, cr_json};
static int cr_csv(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_crashes((const sat_crashes *)r, SAT_REPORT_CSV, out, d);
}
static const sat_renderer r_cr_csv = {"crashes", SAT_REPORT_CSV, cr_csv};

static int cs_text(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_cachesize((const sat_cs *)r, SAT_REPORT_TEXT, out, d);
}
static int cs_json(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_cachesize((const sat_cs *)r, SAT_REPORT_JSON, out, d);
}
static const sat_renderer r_cs_text = {"cachesize", SAT_REPORT_TEXT, cs_text};
static const sat_renderer r_cs_json = {"cachesize", SAT_REPORT_JSON, cs_json};
static int cs_csv(const void *r, FILE *out, sat_diag *d)
{
    return sat_report_cachesize((const sat_cs *)r, SAT_REPORT_CSV, out, d);
}
static const sat_renderer r_cs_csv = {"cachesize", SAT_REPORT_CSV, cs_csv};

static const sat_renderer *const sat_renderers[] = {
    &r_hs_text, &r_hs_json, &r_hs_csv,
    &r_satu_text, &r_satu_json, &r_satu_csv, &r_st_text, &r_st_json, &r_st_csv, &r_cr_text, &r_cr_json, &r_cr_csv,
    &r_cs_text, &r_cs_json, &r_cs_csv,
};

const sat_renderer *const *sat_renderer_list(size_t *n)
{
    if (n)
        *n = sizeof sat_renderers / sizeof sat_renderers[0];
    return sat_renderers;
}

const sat_renderer *sat_renderer_find(const char *analyzer, int fmt)
{
    if (!analyzer)
        return NULL;
    for (size_t i = 0; i < sizeof sat_renderers / sizeof sat_renderers[0]; i++)
        if (sat_renderers[i]->fmt == fmt && strcmp(sat_renderers[i]->analyzer, analyzer) == 0)
            return sat_renderers[i];
    return NULL;
}

/* The text forms of the reports built on result sections (satscope/result.h):
 * one entry per analyzer whose registry entry has a `result` function. */
static const sat_text_report *const sat_text_reports[] = {&sat_text_etime};

const sat_text_report *sat_text_report_find(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof sat_text_reports / sizeof sat_text_reports[0]; i++)
        if (sat_text_reports[i] && strcmp(sat_text_reports[i]->analyzer, analyzer) == 0)
            return sat_text_reports[i];
    return NULL;
}

static const sat_csv_report *const sat_csv_reports[] = {&sat_csv_storms, &sat_csv_crashes,
                                                        &sat_csv_cachesize};

static const sat_csv_report *csv_report(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof sat_csv_reports / sizeof sat_csv_reports[0]; i++)
        if (strcmp(sat_csv_reports[i]->analyzer, analyzer) == 0)
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
