/*
 * report_kinds.c - the table of report kinds (satscope/report_doc.h; DESIGN.md:
 * plug-ins are tables): a kind is a builder of report_<kind>.c and one line
 * here.
 */
#include <string.h>

#include "doc_int.h"
#include "satscope/report_digest.h"

/* ---- the report kinds (one line per kind) ------------------------------------- */
static const sat_report_kind *const kinds[] = {
    &sat_report_postmortem,
    &sat_report_kind_digest,
};

const sat_report_kind *sat_report_kind_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

const sat_report_kind *const *sat_report_kind_list(size_t *n)
{
    *n = sizeof kinds / sizeof kinds[0];
    return kinds;
}
