/*
 * chart_kinds.c - the chart kinds (chart.h, sat_chart_kind): one const table
 * of the charts built from analyzer results, by name. `satscope chart KIND`
 * and the report embed them through sat_chart_kind_find.
 */
#include <string.h>

#include "chart_int.h"

static const sat_chart_kind *const kinds[] = {NULL};

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
