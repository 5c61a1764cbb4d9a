/*
 * cmd_etime.c - `satscope etime INPUT... [--by KEY] [--json|--csv]`: where the
 * server's time went, straight from raw logs or from .sat traces.
 */
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/parse.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_etime;

enum { OPT_BY = 0x100, OPT_TOP, OPT_ROOT_DN };

static const sat_cli_opt etime_opts[] = {
    {"by", OPT_BY, 0, "KEY",
     "op, base, filter (the filter's shape: values replaced),\n"
     "client, binddn, conn, minute, internal (389's internal\n"
     "operations under the client operation that ran them:\n"
     "type, base, filter shape, count per operation, time\n"
     "and share of its etime; shown under the main table\n"
     "anyway when the log has internal operations);\n"
     "HTTP access logs: path (the default: path templates,\n"
     "query dropped, ids collapsed), status, client, method\n"
     "(or op), minute",
     "op base filter client binddn conn minute internal path status method"},
    {"json", SAT_OPT_JSON, 0, NULL, "JSON (units: seconds in keys ending _s)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL,
     "CSV of the grouped rows (ops, groups with --by,\n"
     "internal_operations.ops with --by internal), the\n"
     "JSON's key names; --csv NAME another table", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR", "every CSV table as DIR/NAME.csv", NULL},
    {"top", OPT_TOP, 0, "N", "rows in the top-N lists (default 20)", NULL},
    {"root-dn", OPT_ROOT_DN, 0, "DN",
     "the directory manager's DN, for counting root binds\n"
     "(default cn=directory manager; any case)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_etime(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_etime_opts eo;
    memset(&eo, 0, sizeof eo);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_etime, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_BY:
            eo.by = sat_etime_by_parse(optarg);
            if (eo.by < 0)
                return sat_cli_usage_error("etime", "unknown --by key '%s'", optarg);
            break;
        case OPT_TOP:
            if (sat_cli_parse_top("etime", optarg, &eo.top))
                return SAT_EXIT_USAGE;
            break;
        case OPT_ROOT_DN: eo.root_dn = optarg; break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    /* only --by filter groups by shape (traces carry theirs already) */
    c.no_filter_shapes = eo.by != SAT_ETIME_BY_FILTER;
    /* the usage tables' shapes then: one per distinct filter */
    eo.filter_shape = sat_filter_shape;
    return sat_cli_analyze_args(&c, "etime", &eo, a.fmt, argc, argv);
}

const sat_command sat_cmd_etime = {
    "etime", "where the server's time went (etime = wtime + optime)", run_etime,
    "INPUT... [--by KEY] [--json|--csv] [options]",
    "Where the server's time went: per operation type (or per KEY) the\n"
    "count, rate, etime mean/p50/p90/p99/p99.9/max, total time and share,\n"
    "and queue wait (wtime) vs service time (optime); then connections by\n"
    "listener and close code, peak concurrency, result codes, notes,\n"
    "unindexed searches, binds by method, failed binds, and a per-minute\n"
    "series. INPUTs are access logs (any supported format and compression,\n"
    "'-' for stdin) or .sat traces.\n\n"
    "On HTTP access logs (nginx, Apache httpd, Tomcat): per path template (or\n"
    "KEY) and per method the requests, rate, response time mean/p50/p90/p99/\n"
    "p99.9/max, total and share, upstream time where logged, errors (statuses\n"
    ">= 400); every status by code, top clients and a per-minute series. A\n"
    "figure the log format does not carry (no response time in `common`)\n"
    "is shown as not logged, with why.",
    etime_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS,
    "Percentiles are nearest-rank: exact for groups of up to 2048\n"
    "operations, within 1% of the exact value above that.\n\n"
    "exit: 0 ok, 1 some lines were rejected (the rest analysed), 2 usage,\n"
    "      3 an input could not be read"};
