/*
 * format_registry.c - the one list of log formats. Adding a format is one new
 * file, one line here, one fixture, one golden test and one fuzz target.
 */
#include "satscope/parse.h"

extern const sat_log_format sat_fmt_389text;
extern const sat_log_format sat_fmt_389json;
extern const sat_log_format sat_fmt_openldap;
extern const sat_log_format sat_fmt_http;

static const sat_log_format *const registry[] = {
    &sat_fmt_389text,
    &sat_fmt_389json,
    &sat_fmt_openldap,
    &sat_fmt_http,
    NULL,
};

const sat_log_format *const *sat_log_formats(void) { return registry; }

const sat_log_format *sat_log_format_by_name(const char *name)
{
    for (const sat_log_format *const *f = registry; *f; f++)
        if (name && strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}

const sat_log_format *sat_log_format_sniff(const char *buf, size_t len)
{
    const sat_log_format *best = NULL;
    int best_score = 29; /* below 30 nothing is claimed */
    for (const sat_log_format *const *f = registry; *f; f++) {
        int s = (*f)->sniff(buf, len);
        if (s > best_score) {
            best_score = s;
            best = *f;
        }
    }
    return best;
}
