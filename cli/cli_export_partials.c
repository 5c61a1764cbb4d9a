/*
 * cli_export_partials.c - the rows `satscope export` reads: the inputs'
 * (logs, captures, cores, traces: the collection's rows), or, when the
 * inputs are partials (.satp), each server-day's figures as plain columns
 * (partial.h: partial_op and partial_key), so that a fleet's partials load
 * into ClickHouse beside the rows and docs/clickhouse.md's SQL finishes them
 * as satscope does.
 */
#include <stdio.h>
#include <string.h>

#include "cli_export.h"
#include "satscope/partial.h"

const sat_table_def *sat_export_table(int id)
{
    return id < SAT_TABLE__COUNT ? sat_table_get(id) : sat_partial_table(id);
}

const sat_table_def *sat_export_table_by_name(const char *name)
{
    const sat_table_def *d = sat_table_by_name(name);
    return d ? d : sat_partial_table_by_name(name);
}

int sat_export_source_run(sat_cli_collect *c, char *const *paths, size_t npaths,
                          const sat_event_sink *sink, int *read_none)
{
    *read_none = 0;
    int partials = sat_cli_are_partials("export", paths, npaths);
    if (partials < 0)
        return SAT_EXIT_USAGE;
    if (!partials) {
        int code = sat_cli_collect_run(c, paths, npaths, sink);
        *read_none = code == SAT_EXIT_UNREADABLE && c->stats.lines == 0 &&
                     c->stats.traces == 0 && c->stats.packets == 0 && c->stats.cores == 0;
        return code;
    }
    sat_digest_plan plan; /* the sets the partials were written from */
    sat_digest_plan_init(&plan, NULL, NULL);
    int code = SAT_EXIT_OK;
    sat_cli_dayset *days = sat_cli_dayset_partials(&plan, paths, npaths, "export", &code);
    if (!days) {
        *read_none = 1;
        return code;
    }
    size_t n = sat_cli_dayset_n(days), done = 0;
    for (size_t i = 0; i < n; i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        sat_multi *set = sat_cli_dayset_take(days, i, &d);
        if (!set) { /* that server-day is left out, said */
            fprintf(stderr, "satscope export: %s: %s\n", d.where, d.msg);
            if (d.code == SAT_E_NOMEM)
                c->failed = 1;
            code = SAT_EXIT_UNREADABLE;
            continue;
        }
        int rc = sat_partial_columns(set, sat_cli_dayset_meta(days, i), sink->on_row, sink->ctx);
        sat_cli_dayset_release(days, i);
        if (rc == SAT_E_NOMEM)
            c->failed = 1;
        if (rc < 0)
            break;
        done++;
    }
    *read_none = done == 0;
    sat_cli_dayset_free(days);
    return code;
}
