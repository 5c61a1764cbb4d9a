/*
 * render.h - (internal to report/) what every report's entry point does: pick
 * the renderer of the format asked for, and turn a failed write or an
 * unknown format into a status and a message.
 */
#ifndef SAT_REPORT_RENDER_H
#define SAT_REPORT_RENDER_H

#include "satscope/report.h"

/* One format of one report: view is the analyzer's view (its own type). */
typedef int (*sat_render_fn)(const void *view, FILE *out);

/* Renders view with text, json or csv as fmt says (NULL: the format is not
 * offered: SAT_E_USAGE). SAT_E_IO when the stream failed. diag says why. */
int sat_report_render(const void *view, int fmt, sat_render_fn text, sat_render_fn json,
                      sat_render_fn csv, FILE *out, sat_diag *diag);

/* The CSV tables of one report (sat_csv_tables): view turns the analyzer
 * into its view, write[i] writes the table names[i] of that view. */
typedef struct sat_csv_report {
    const char *analyzer;
    const void *(*view)(const void *result);
    const char *const *names; /* NULL-terminated, main first */
    const sat_render_fn *write;
} sat_csv_report;
/* The text reports built on results (report_registry.c lists them). */
extern const sat_text_report sat_text_crashes, sat_text_cachesize;

#endif
