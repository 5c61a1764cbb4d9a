/*
 * render_registry.c - the table of a document's output forms, by the output
 * path's extension (satscope/report_doc.h; plug-ins are tables): a form is
 * one render/render_<form>.c and one line here; and the names of a
 * command's forms (text, json, csv).
 */
#include <string.h>
#include <strings.h> /* strcasecmp */

#include "doc_int.h"

extern const sat_report_renderer sat_render_html, sat_render_pdf, sat_render_png, sat_render_svg,
    sat_render_eml, sat_render_text, sat_render_stdout, sat_render_json, sat_render_prom;

static const sat_report_renderer *const renderers[] = {
    &sat_render_html, &sat_render_pdf, &sat_render_png,    &sat_render_svg,
    &sat_render_eml,  &sat_render_text, &sat_render_stdout, &sat_render_json,
    &sat_render_prom,
};

const sat_report_renderer *sat_report_renderer_for(const char *path)
{
    if (!path)
        return NULL;
    size_t pl = strlen(path);
    for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++) {
        const char *ext = renderers[i]->ext;
        size_t el = strlen(ext);
        if (!strcmp(ext, "-") ? !strcmp(path, "-")
                              : pl > el && !strcasecmp(path + pl - el, ext))
            return renderers[i];
    }
    return NULL;
}

const sat_report_renderer *sat_report_renderer_of_ext(const char *ext)
{
    for (size_t i = 0; ext && i < sizeof renderers / sizeof renderers[0]; i++)
        if (!strcmp(renderers[i]->ext, ext))
            return renderers[i];
    return NULL;
}

const sat_report_renderer *const *sat_report_renderer_list(size_t *n)
{
    *n = sizeof renderers / sizeof renderers[0];
    return renderers;
}

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
