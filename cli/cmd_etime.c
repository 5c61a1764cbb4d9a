/*
 * cmd_etime.c - `satscope etime INPUT... [--by KEY] [--json|--csv]`: where the
 * server's time went, straight from raw logs or from .sat traces.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: satscope etime INPUT... [--by KEY] [--json|--csv] [options]\n"
            "\n"
            "Where the server's time went: per operation type (or per KEY) the\n"
            "count, rate, etime mean/p50/p90/p99/p99.9/max, total time and share,\n"
            "and queue wait (wtime) vs service time (optime); then connections by\n"
            "listener and close code, peak concurrency, result codes, notes,\n"
            "unindexed searches, binds by method, failed binds, and a per-minute\n"
            "series. INPUTs are access logs (any supported format and compression,\n"
            "'-' for stdin) or .sat traces.\n"
            "\n"
            "  --by KEY        op, base, filter (the filter's shape: values replaced),\n"
            "                  client, binddn, conn, minute, internal (389's internal\n"
            "                  operations under the client operation that ran them:\n"
            "                  type, base, filter shape, count per operation, time\n"
            "                  and share of its etime; shown under the main table\n"
            "                  anyway when the log has internal operations)\n"
            "  --json          JSON (units: seconds in keys ending _s)\n"
            "  --csv           CSV of the grouped rows\n"
            "  --top N         rows in the top-N lists (default 20)\n"
            "  --root-dn DN    the directory manager's DN, for counting root binds\n"
            "                  (default cn=directory manager; any case)\n"
            SAT_CLI_COLLECT_HELP
            "  -h, --help      this text\n"
            "\n"
            "Percentiles are nearest-rank: exact for groups of up to 2048\n"
            "operations, within 1%% of the exact value above that.\n"
            "exit: 0 ok, 1 some lines were rejected (the rest analysed), 2 usage,\n"
            "      3 an input could not be read\n");
}

static int run_etime(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"by", required_argument, NULL, 'b'},
        {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},
        {"top", required_argument, NULL, 'n'},
        {"root-dn", required_argument, NULL, 'r'},
        SAT_CLI_COLLECT_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_etime_opts eo;
    memset(&eo, 0, sizeof eo);
    int fmt = SAT_REPORT_TEXT;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'b':
            eo.by = sat_etime_by_parse(optarg);
            if (eo.by < 0)
                return sat_cli_usage_error("etime", "unknown --by key '%s'", optarg);
            break;
        case 'c': fmt = SAT_REPORT_CSV; break;
        case 'n':
            if (sat_cli_parse_top("etime", optarg, &eo.top))
                return SAT_EXIT_USAGE;
            break;
        case 'r': eo.root_dn = optarg; break;
        default: {
            int r = sat_cli_shared_option(&c, "etime", opt, optarg, &fmt, usage);
            if (r >= 0)
                return r;
            break;
        }
        }
    }
    /* only --by filter groups by shape (traces carry theirs already) */
    c.no_filter_shapes = eo.by != SAT_ETIME_BY_FILTER;
    return sat_cli_analyze_args(&c, "etime", &eo, fmt, argc, argv);
}

const sat_command sat_cmd_etime = {
    "etime", "where the server's time went (etime = wtime + optime)", run_etime};
