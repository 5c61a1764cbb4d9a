/*
 * report_render_json.c - a report as JSON (`-o report.json`): the document
 * itself (satscope/report_doc.h) through the one JSON writer, schema and
 * command first; the result sets the charts draw from are not repeated (each
 * analyzer's own --json gives them).
 */
#include "doc_int.h"

static int render_json(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    (void)o;
    return sat_result_json(sat_report_doc(rep), out, diag);
}

const sat_report_renderer sat_render_json = {".json", "JSON", render_json};
