/*
 * chart_kinds.c - the chart kinds (chart.h, sat_chart_kind): one const table
 * of the charts built from analyzer results, by name, and the few helpers
 * every kind reads result sections with (chart_int.h). `satscope chart KIND`
 * and the report embed them through sat_chart_kind_find; a kind reads only
 * the results of the analyzers it lists (its `analyzers`), never raw inputs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chart_int.h"

static const sat_chart_kind *const kinds[] = {&ch_kind_timeline, &ch_kind_distributions,
                                              &ch_kind_capacity, NULL};

const sat_chart_kind *sat_chart_kind_find(const char *name)
{
    for (size_t i = 0; name && kinds[i]; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

const sat_chart_kind *const *sat_chart_kind_list(size_t *n)
{
    size_t k = 0;
    while (kinds[k])
        k++;
    if (n)
        *n = k;
    return kinds;
}

/* Times in seconds since the epoch (the chart's x), the rest as sat_value_num. */
double ch_num(const sat_value *v)
{
    double x = sat_value_num(v);
    return v && v->unit == SAT_UNIT_TIME ? (x != 0 ? x / 1e9 : NAN) : x;
}

double ch_row(const sat_rnode *row, const char *name)
{
    return row ? ch_num(sat_row_get(row, name)) : NAN;
}

double ch_res(sat_result *r, const char *path)
{
    return r ? ch_num(sat_rnode_val(sat_result_root(r), path)) : NAN;
}

const sat_rnode *ch_table(sat_result *r, const char *path)
{
    if (!r)
        return NULL;
    const sat_rnode *t = sat_rnode_get(sat_result_root(r), path);
    return t && sat_rnode_kind_of(t) == SAT_RN_TABLE ? t : NULL;
}

const char *ch_row_text(const sat_rnode *row, const char *name)
{
    const sat_value *v = row ? sat_row_get(row, name) : NULL;
    return v && !v->absent && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

double ch_window_s(const sat_rnode *table)
{
    return table ? (double)sat_table_window(table) / 1e9 : 0;
}

void ch_local_minute(char *buf, size_t n, double t, int32_t utc_offset_s)
{
    time_t lt = ch_secs(t + utc_offset_s);
    struct tm tm = {0};
    if (!gmtime_r(&lt, &tm)) /* out of range: zeros rather than garbage */
        memset(&tm, 0, sizeof tm);
    snprintf(buf, n, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min);
}
