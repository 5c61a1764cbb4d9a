/*
 * result_check.h - what the analyzers' unit tests check of a built result
 * (satscope/result.h): its forms as the CLI writes them (the one JSON and
 * CSV writers, the command's text report), the width of its text, and that
 * the text report's CSV table names (what --csv NAME accepts before the
 * result exists) are exactly the result's tables. Needs check.h first.
 */
#ifndef SAT_TEST_RESULT_CHECK_H
#define SAT_TEST_RESULT_CHECK_H

#include <stdlib.h>

#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

enum { AS_JSON, AS_CSV, AS_TEXT, AS_TEXT_WIDE };

/* r as JSON, CSV (table `table`, NULL: the main one) or text; caller frees;
 * NULL (and a failed check) when it cannot be written. */
static inline char *rc_render(sat_result *r, int as, const char *table)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(r && f);
    if (!r || !f) {
        if (f)
            fclose(f);
        free(buf);
        return NULL;
    }
    int rc;
    if (as == AS_JSON) {
        rc = sat_result_json(r, f, NULL);
    } else if (as == AS_CSV) {
        rc = sat_result_csv(r, table, f, NULL);
    } else {
        /* the command's text: its sections, as it prints them */
        struct sat_report *doc = sat_report_sections(r);
        CHECK(doc != NULL);
        sat_report_render_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.wide = as == AS_TEXT_WIDE;
        ro.table_rows = SIZE_MAX;
        rc = doc ? sat_report_renderer_for("-")->render(doc, &ro, f, NULL) : SAT_E_NOMEM;
        sat_report_free(doc);
    }
    CHECK_EQ_INT(rc, SAT_OK);
    fclose(f);
    return buf;
}

/* The same of the result that build(a, r) makes for command cmd. */
static inline char *rc_render_built(const char *cmd, int (*build)(const void *, sat_result *),
                                    const void *a, int as, const char *table)
{
    sat_result *r = sat_result_new(cmd);
    int rc = r ? build(a, r) : SAT_E_NOMEM;
    CHECK_EQ_INT(rc, SAT_OK);
    char *buf = rc == SAT_OK ? rc_render(r, as, table) : NULL;
    sat_result_free(r);
    return buf;
}

/* The result build(a, r) makes for command cmd; the caller frees it. */
static inline sat_result *rc_result(const char *cmd, int (*build)(const void *, sat_result *),
                                    const void *a)
{
    sat_result *r = sat_result_new(cmd);
    int rc = r ? build(a, r) : SAT_E_NOMEM;
    CHECK_EQ_INT(rc, SAT_OK);
    return r;
}

/* Row i of a table, NULL past its end. */
static inline const sat_rnode *rc_row(const sat_rnode *table, size_t i)
{
    const sat_rnode *r = sat_rnode_first(table);
    while (r && i--)
        r = sat_rnode_next(r);
    return r;
}

/* The widest line of buf, in display columns (UTF-8 continuation bytes do
 * not count). */
static inline size_t rc_widest(const char *buf)
{
    size_t col = 0, widest = 0;
    for (const char *p = buf; p && *p; p++) {
        if (*p == '\n')
            col = 0;
        else if (((unsigned char)*p & 0xc0) != 0x80 && ++col > widest)
            widest = col;
    }
    return widest;
}

/* Every CSV table the command's text report names is a table of r, and r
 * has no other. */
static inline void rc_check_tables(sat_result *r)
{
    const char *const *csv = r ? sat_csv_tables(sat_result_command(r)) : NULL;
    CHECK(csv != NULL);
    if (!csv)
        return;
    const char *const *paths;
    size_t n, k = 0;
    sat_result_tables(r, &paths, &n);
    for (; csv[k]; k++) {
        size_t i = 0;
        while (i < n && strcmp(paths[i], csv[k]))
            i++;
        if (i == n)
            printf("no table %s in the %s result\n", csv[k], sat_result_command(r));
        CHECK(i < n);
    }
    CHECK_EQ_INT(k, n);
}

/* The text of r fits the default width, and its CSV names are its tables. */
static inline void rc_check_text_and_tables(sat_result *r)
{
    char *text = rc_render(r, AS_TEXT, NULL);
    CHECK(text && rc_widest(text) <= SAT_TEXT_WIDTH);
    free(text);
    rc_check_tables(r);
}

#endif
