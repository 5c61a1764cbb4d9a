/*
 * cmd_storms.c - `satscope storms INPUT... [--window DUR] [--json]` (issue 4):
 * storms of client failures (timeouts, abandons, busy answers, abrupt closes,
 * abandoned TLS handshakes, resets) found against their own baseline, on a
 * timeline with what rose before each and whether it outlived its trigger.
 */
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_storms;

enum { OPT_WINDOW = 0x100, OPT_TOP, OPT_RETRY_WINDOW, OPT_SLOW };

static const sat_cli_opt storms_opts[] = {
    {"window", OPT_WINDOW, 0, "DUR",
     "step of the series (e.g. 1s, 1m); by default it follows\n"
     "the input: the longest of 10s, 5s, 2s, 1s that gives 30\n"
     "windows (a baseline), each period of the input on its\n"
     "own (inputs 1 h or more apart are separate periods)", NULL},
    {"top", OPT_TOP, 0, "N", "clients listed per storm (default 5)", NULL},
    {"retry-window", OPT_RETRY_WINDOW, 0, "DUR",
     "a reconnect this soon after an unanswered connection\n"
     "is its retry (default 10s, as for handshakes)", NULL},
    {"slow", OPT_SLOW, 0, "DUR",
     "an HTTP request answered in DUR or more is a client\n"
     "failure (kind slow; default 1s); set it to the clients'\n"
     "timeout; 'off': never", NULL},
    {"json", SAT_OPT_JSON, 0, NULL, "JSON (times as RFC 3339 UTC strings)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per storm, the JSON's key names", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints\n"
     "one (tables: storms, failures, signals, top_clients,\n"
     "periods, windows)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_storms(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1; /* never read here */
    sat_storms_opts so;
    memset(&so, 0, sizeof so);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_storms, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_WINDOW:
            if ((so.window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("storms", "bad --window '%s'", optarg);
            break;
        case OPT_RETRY_WINDOW:
            if ((so.retry_window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("storms", "bad --retry-window '%s'", optarg);
            break;
        case OPT_SLOW:
            if (!strcmp(optarg, "off"))
                so.slow = -1;
            else if ((so.slow = sat_cli_parse_duration(optarg)) <= 0)
                return sat_cli_usage_error("storms", "bad --slow '%s' (a duration, or off)",
                                           optarg);
            break;
        case OPT_TOP:
            if (sat_cli_parse_top("storms", optarg, &so.top_clients))
                return SAT_EXIT_USAGE;
            break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    return sat_cli_analyze_args(&c, "storms", &so, a.fmt, argc, argv);
}

const sat_command sat_cmd_storms = {
    "storms", "storms of client timeouts and failures, and what caused them", run_storms,
    "INPUT... [--window DUR] [--json|--csv] [options]",
    "Storms of client failures in access logs (389, OpenLDAP, HTTP), captures\n"
    "or .sat traces: ABANDONs, results err=3/11/51/52/80, closes A1 B1 B4 T1\n"
    "T2 T3, HTTP requests answered 408, 499, 502, 503 or 504 or in --slow or\n"
    "more (nginx, Apache, Tomcat access logs), TLS handshakes the client gave\n"
    "up on or that failed, client RSTs,\n"
    "clients closing (FIN) with a request unanswered, connection attempts\n"
    "never answered before the client gave up, SYN retries of connections\n"
    "the client then sent nothing on, and connections given up for a retry\n"
    "(the same client connecting again to the same server within\n"
    "--retry-window of one the server had not answered) -\n"
    "one per failed operation or connection (an ABANDON and the A1 close after\n"
    "it count once; so do an abandoned handshake, its RST and its retry).\n"
    "A storm is a run of windows where they rose clearly above their own\n"
    "baseline (a Poisson CUSUM; analyze/storms.c documents it). For each:\n"
    "when, how big, what kinds, which clients, what rose before it (etime or\n"
    "response time, wtime, unindexed searches, load, full handshakes,\n"
    "connections (HTTP: first requests of connections), the time\n"
    "the server took to answer handshakes), the retries and reconnects, and\n"
    "whether the failures outlived the trigger (a metastable failure).",
    storms_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};
