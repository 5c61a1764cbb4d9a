/*
 * report_internal.h - (internal to report/) the internal-operations part of
 * the etime report (report_internal.c), called by report_etime.c. The view
 * is borrowed for the call.
 */
#ifndef SAT_REPORT_INTERNAL_H
#define SAT_REPORT_INTERNAL_H

#include <stdio.h>

#include "satscope/analyze.h"
#include "satscope/report.h"

/* The text section (nothing when the input has no internal operations and
 * --by internal was not asked for). */
void sat_report_internal_text(const sat_etime_view *v, FILE *out);
/* The "internal_operations" JSON member, under the same condition. */
void sat_report_internal_json(sat_json *j, const sat_etime_view *v);
/* The CSV of --by internal: header, one line per row. */
int sat_report_internal_csv(const sat_etime_view *v, FILE *out);

#endif
