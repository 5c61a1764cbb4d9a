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

static const sat_chart_kind *const kinds[] = {&ch_kind_timeline, &ch_kind_storm, &ch_kind_distributions,
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

double ch_time(int64_t ts_ns) { return ts_ns != 0 ? (double)ts_ns / 1e9 : NAN; }

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
