/*
 * cmd_storms.c - `satscope storms INPUT... [--window DUR] [--json]` (issue 4):
 * storms of client failures (timeouts, abandons, busy answers, abrupt closes,
 * abandoned TLS handshakes, resets) found against their own baseline, on a
 * timeline with what rose before each and whether it outlived its trigger.
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
            "usage: satscope storms INPUT... [--window DUR] [--json]\n"
            "\n"
            "Storms of client failures in access logs (389, OpenLDAP), packet captures\n"
            "or .sat traces: ABANDONs, results err=3/11/51/52/80, closes A1 B1 B4 T1\n"
            "T2 T3, TLS handshakes the client gave up on or that failed, client RSTs,\n"
            "clients closing (FIN) with a request unanswered, connection attempts\n"
            "never answered before the client gave up, SYN retries of connections\n"
            "the client then sent nothing on, and connections given up for a retry\n"
            "(the same client connecting again to the same server within\n"
            "--retry-window of one the server had not answered) -\n"
            "one per failed operation or connection (an ABANDON and the A1 close after\n"
            "it count once; so do an abandoned handshake, its RST and its retry).\n"
            "A storm is a run of windows where they rose clearly above their own\n"
            "baseline (a Poisson CUSUM; analyze/storms.c documents it). For each:\n"
            "when, how big, what kinds, which clients, what rose before it (etime,\n"
            "wtime, unindexed searches, load, full handshakes, connections, the time\n"
            "the server took to answer handshakes), the retries and reconnects, and\n"
            "whether the failures outlived the trigger (a metastable failure).\n"
            "\n"
            "  --window DUR        step of the series (e.g. 1s, 1m); by default it follows\n"
            "                      the input: the longest of 10s, 5s, 2s, 1s that gives 30\n"
            "                      windows (a baseline), each period of the input on its own\n"
            "                      (inputs 1 h or more apart are separate periods)\n"
            "  --top N             clients listed per storm (default 5)\n"
            "  --retry-window DUR  a reconnect this soon after an unanswered connection\n"
            "                      is its retry (default 10s, as for handshakes)\n"
            "  --json              JSON (timestamps in epoch seconds)\n"
            SAT_CLI_COLLECT_HELP SAT_CLI_HELP_TAIL);
}

static int run_storms(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"window", required_argument, NULL, 'w'},
        {"top", required_argument, NULL, 'n'},
        {"retry-window", required_argument, NULL, 'r'},
        SAT_CLI_SHARED_LONGOPTS};
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1; /* never read here */
    sat_storms_opts so;
    memset(&so, 0, sizeof so);
    int fmt = SAT_REPORT_TEXT;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'w':
            if ((so.window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("storms", "bad --window '%s'", optarg);
            break;
        case 'r':
            if ((so.retry_window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("storms", "bad --retry-window '%s'", optarg);
            break;
        case 'n':
            if (sat_cli_parse_top("storms", optarg, &so.top_clients))
                return SAT_EXIT_USAGE;
            break;
        default: {
            int r = sat_cli_shared_option(&c, "storms", opt, optarg, &fmt, usage);
            if (r >= 0)
                return r;
            break;
        }
        }
    }
    return sat_cli_analyze_args(&c, "storms", &so, fmt, argc, argv);
}

const sat_command sat_cmd_storms = {
    "storms", "storms of client timeouts and failures, and what caused them", run_storms};
