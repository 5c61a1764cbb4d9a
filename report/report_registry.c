/*
 * report_registry.c - the table of text reports, one per analyzer (DESIGN.md:
 * plug-ins are tables): JSON and CSV need none, the one writers serve every
 * result. A new analyzer's report adds its line.
 */
#include <string.h>

#include "satscope/report.h"
#include "sections.h"
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

/* The text forms of the reports built on result sections (satscope/result.h):
 * one entry per analyzer whose registry entry has a `result` function. */
extern const sat_text_report sat_text_crashes, sat_text_cachesize;

extern const sat_text_report sat_text_saturation;
extern const sat_text_report sat_text_timeline;
static const sat_text_report *const sat_text_reports[] = {
    &sat_text_crashes,    &sat_text_cachesize,
    &sat_text_saturation, &sat_text_storms,
    &sat_text_timeline,
};

const sat_text_report *sat_text_report_find(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof sat_text_reports / sizeof sat_text_reports[0]; i++)
        if (sat_text_reports[i] && strcmp(sat_text_reports[i]->analyzer, analyzer) == 0)
            return sat_text_reports[i];
    return NULL;
}

const char *const *sat_csv_tables(const char *analyzer)
{
    const sec_builder *b = sec_find(analyzer);
    if (b)
        return b->csv_tables;
    const sat_text_report *t = sat_text_report_find(analyzer);
    return t ? t->csv_tables : NULL;
}
