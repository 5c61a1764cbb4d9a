/*
 * cmd_timeline.c - `satscope timeline INPUT... [--json|--csv]`: the series the
 * timeline charts draw (analyze_timeline.h) for scripts: operations, errors,
 * etime percentiles, concurrency and connections per window, per hour of
 * local time, etime histograms by operation type, and the inputs on one axis.
 */
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_timeline;

static const sat_cli_opt tl_opts[] = {
    {"json", SAT_OPT_JSON, 0, NULL, "JSON (seconds in keys ending _s)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per window", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints one\n"
     "(tables: windows, busiest, hours, etime_histogram, sources)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_timeline(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_timeline_opts o;
    memset(&o, 0, sizeof o);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_timeline, &c);
    while (sat_cli_args_next(&a, argc, argv) != -1)
        ; /* no option of its own beyond the table's formats */
    if (a.exit >= 0)
        return a.exit;
    return sat_cli_analyze_args(&c, "timeline", &o, a.fmt, argc, argv);
}

const sat_command sat_cmd_timeline = {
    "timeline", "operations, errors, latency, connections per window and per hour, on one axis",
    run_timeline, "INPUT... [--json|--csv] [options]",
    "The series the timeline charts draw, from access logs or traces: per\n"
    "window (the finest of 1 s, 10 s, 1 min, 10 min, 1 h, 1 day that gives at\n"
    "most 2000 windows over the span) the operations by type (dated by their\n"
    "request), errors, etime p50/p90/p99 (from a histogram of 10 bins a decade:\n"
    "within 12% of the exact value), mean wtime and optime (389 2.x), the\n"
    "concurrency by Little's law (time spent in operations / window), the\n"
    "connections open at the window's end, opened, closed and by close code;\n"
    "per hour of local time the counts and percentiles; per operation type the\n"
    "etime histogram; and every input (logs, captures, cores) with its time\n"
    "range. HTTP access logs (nginx, Apache, Tomcat) add per window the\n"
    "requests by method and status class; their response time counts as the\n"
    "etime, statuses of 400 or more as errors.",
    tl_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};
