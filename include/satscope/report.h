/*
 * report.h - rendering analyzer results for the commands: the output forms
 * (text, JSON, CSV) and each analyzer's text form and CSV tables. The
 * writers themselves are result/'s (satscope/result_out.h); report/ reads
 * results only, never an analyzer.
 */
#ifndef SATSCOPE_REPORT_H
#define SATSCOPE_REPORT_H

#include <stdio.h>

#include "satscope/result_out.h"

enum sat_report_fmt { SAT_REPORT_TEXT, SAT_REPORT_JSON, SAT_REPORT_CSV };
/* "text", "json", "csv" -> enum; < 0 if unknown. */
int sat_report_fmt_parse(const char *s);


/* CSV tables: the table sections of an analyzer's result one can ask for as
 * CSV (--csv NAME, --csv-dir), the main one (what --csv alone prints) first,
 * NULL terminated (its section builder's, report/sections/); NULL if no
 * such analyzer. */
const char *const *sat_csv_tables(const char *analyzer);

struct sat_report; /* satscope/report_doc.h */
/* The document of one analyzer's result r: its sections, as its command
 * prints them and as a report embeds them (report/sections/), under the
 * title "satscope NAME: what it holds", its times in RFC 3339 UTC. NULL when
 * out of memory or when the analyzer has no sections. The caller frees it
 * (sat_report_free); r must outlive it. */
struct sat_report *sat_report_sections(sat_result *r);

#endif /* SATSCOPE_REPORT_H */
