/*
 * cmd_handshakes.c - `satscope handshakes INPUT... [--window 10s] [--by KEY]
 * [--json|--csv]`: TLS handshakes seen on the wire (issue 3): full, resumed,
 * failed, incomplete, the resumed ratio over time, and what they cost.
 */
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_handshakes;

enum { OPT_WINDOW = 0x100, OPT_RETRY_WINDOW, OPT_BY, OPT_TOP, OPT_FULL_COST, OPT_RESUMED_COST,
       OPT_PSK_COST };

/* the defaults the help states */
_Static_assert((int)SAT_HS_FULL_COST_US_DEFAULT == 330 &&
               (int)SAT_HS_RESUMED_COST_US_DEFAULT == 3 &&
               (int)SAT_HS_PSK_COST_US_DEFAULT == 60, "handshakes --help states the costs");

static const sat_cli_opt hs_opts[] = {
    {"window", OPT_WINDOW, 0, "DUR", "time series step (default 10s; e.g. 500ms, 1m)", NULL},
    {"retry-window", OPT_RETRY_WINDOW, 0, "DUR",
     "a retry: the same client back to the same server\n"
     "within DUR after a failed/incomplete one (default 10s)", NULL},
    {"by", OPT_BY, 0, "KEY", "client, server, sni: a table per key", "client server sni"},
    {"top", OPT_TOP, 0, "N", "rows in that table (default 20)", NULL},
    {"full-cost-us", OPT_FULL_COST, 0, "X", "server CPU of a full handshake (default 330)", NULL},
    {"resumed-cost-us", OPT_RESUMED_COST, 0, "X", "of a TLS <= 1.2 resumption (default 3)", NULL},
    {"psk-cost-us", OPT_PSK_COST, 0, "X", "of a TLS 1.3 PSK resumption (default 60)", NULL},
    {"json", SAT_OPT_JSON, 0, NULL, "JSON (seconds in keys ending _s)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per window (per key with --by)", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints one\n"
     "(tables: windows, groups, versions, resumption, durations)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_handshakes(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_hs_opts ho;
    memset(&ho, 0, sizeof ho);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_handshakes, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_WINDOW:
            if ((ho.window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "bad --window '%s'", optarg);
            break;
        case OPT_RETRY_WINDOW:
            if ((ho.retry_window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "bad --retry-window '%s'", optarg);
            break;
        case OPT_BY:
            if ((ho.by = sat_hs_by_parse(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "unknown --by key '%s'", optarg);
            break;
        case OPT_TOP:
            if (sat_cli_parse_top("handshakes", optarg, &ho.top))
                return SAT_EXIT_USAGE;
            break;
        case OPT_FULL_COST:
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.full_cost_us))
                return sat_cli_usage_error("handshakes", "bad --full-cost-us '%s'", optarg);
            break;
        case OPT_RESUMED_COST:
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.resumed_cost_us))
                return sat_cli_usage_error("handshakes", "bad --resumed-cost-us '%s'", optarg);
            break;
        case OPT_PSK_COST:
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.psk_cost_us))
                return sat_cli_usage_error("handshakes", "bad --psk-cost-us '%s'", optarg);
            break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    return sat_cli_analyze_args(&c, "handshakes", &ho, a.fmt, argc, argv);
}

const sat_command sat_cmd_handshakes = {
    "handshakes", "TLS handshakes on the wire: full, resumed, failed, incomplete",
    run_handshakes, "INPUT... [--window DUR] [--by KEY] [--json|--csv] [options]",
    "TLS handshakes seen in packet captures (pcap, pcapng, compressed or not;\n"
    "TLS found by content on any port) or in .sat traces: how many were full,\n"
    "resumed (session id, ticket, TLS 1.3 PSK), failed (an alert; those\n"
    "after the ServerHello, failed_after_server_hello, cost the server a full\n"
    "handshake and are charged as one) or incomplete (the client gave up\n"
    "before a ServerHello), the resumed ratio per window, handshakes per\n"
    "second, durations, retries, and an estimate of the server CPU they\n"
    "cost. Only the first handshake of a connection counts (renegotiations\n"
    "do not).\n\n"
    "HTTP access logs say it too, apart (\"logs\" in --json): a connection's\n"
    "first request ($connection_requests = 1, Apache %k = 0) carries its\n"
    "handshake, full or resumed as $ssl_session_reused or\n"
    "%{SSL_SESSION_RESUMED}x logged it; a format without the flag (Tomcat's\n"
    "valve, combined) is said not to log it: a capture of the same period\n"
    "gives it. Without the request number, requests are counted per request\n"
    "(on a new or a resumed session), not as handshakes.",
    hs_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};
