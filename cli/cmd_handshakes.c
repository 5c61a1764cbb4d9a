/*
 * cmd_handshakes.c - `satscope handshakes INPUT... [--window 10s] [--by KEY]
 * [--json|--csv]`: TLS handshakes seen on the wire (issue 3): full, resumed,
 * failed, incomplete, the resumed ratio over time, and what they cost.
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
            "usage: satscope handshakes INPUT... [--window DUR] [--by KEY] [--json|--csv]\n"
            "\n"
            "TLS handshakes seen in packet captures (pcap, pcapng, compressed or not;\n"
            "TLS found by content on any port) or in .sat traces: how many were full,\n"
            "resumed (session id, ticket, TLS 1.3 PSK), failed (an alert; those\n"
            "after the ServerHello, failed_after_server_hello, cost the server a full\n"
            "handshake and are charged as one) or incomplete (the client gave up\n"
            "before a ServerHello), the resumed ratio per window, handshakes per\n"
            "second, durations, retries, and an estimate of the server CPU they\n"
            "cost. Only the first handshake of a connection counts (renegotiations\n"
            "do not).\n"
            "\n"
            "  --window DUR        time series step (default 10s; e.g. 500ms, 1m)\n"
            "  --retry-window DUR  a retry: the same client back to the same server\n"
            "                      within DUR after a failed/incomplete one (default 10s)\n"
            "  --by KEY            client, server, sni: a table per key\n"
            "  --top N             rows in that table (default 20)\n"
            "  --full-cost-us X    server CPU of a full handshake (default %.0f)\n"
            "  --resumed-cost-us X of a TLS <= 1.2 resumption (default %.0f)\n"
            "  --psk-cost-us X     of a TLS 1.3 PSK resumption (default %.0f)\n"
            "  --json              JSON (seconds in keys ending _s)\n"
            "  --csv               CSV: one row per window (per key with --by)\n"
            SAT_CLI_COLLECT_HELP
            SAT_CLI_HELP_TAIL,
            SAT_HS_FULL_COST_US_DEFAULT, SAT_HS_RESUMED_COST_US_DEFAULT,
            SAT_HS_PSK_COST_US_DEFAULT);
}

static int run_handshakes(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"window", required_argument, NULL, 'w'},
        {"retry-window", required_argument, NULL, 'R'},
        {"by", required_argument, NULL, 'b'},
        {"top", required_argument, NULL, 'n'},
        {"full-cost-us", required_argument, NULL, '1'},
        {"resumed-cost-us", required_argument, NULL, '2'},
        {"psk-cost-us", required_argument, NULL, '3'},
        {"csv", no_argument, NULL, 'c'},
        SAT_CLI_SHARED_LONGOPTS};
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_hs_opts ho;
    memset(&ho, 0, sizeof ho);
    int fmt = SAT_REPORT_TEXT;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'w':
            if ((ho.window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "bad --window '%s'", optarg);
            break;
        case 'R':
            if ((ho.retry_window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "bad --retry-window '%s'", optarg);
            break;
        case 'b':
            if ((ho.by = sat_hs_by_parse(optarg)) < 0)
                return sat_cli_usage_error("handshakes", "unknown --by key '%s'", optarg);
            break;
        case 'n':
            if (sat_cli_parse_top("handshakes", optarg, &ho.top))
                return SAT_EXIT_USAGE;
            break;
        case '1':
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.full_cost_us))
                return sat_cli_usage_error("handshakes", "bad --full-cost-us '%s'", optarg);
            break;
        case '2':
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.resumed_cost_us))
                return sat_cli_usage_error("handshakes", "bad --resumed-cost-us '%s'", optarg);
            break;
        case '3':
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &ho.psk_cost_us))
                return sat_cli_usage_error("handshakes", "bad --psk-cost-us '%s'", optarg);
            break;
        case 'c': fmt = SAT_REPORT_CSV; break;
        default: {
            int r = sat_cli_shared_option(&c, "handshakes", opt, optarg, &fmt, usage);
            if (r >= 0)
                return r;
            break;
        }
        }
    }
    return sat_cli_analyze_args(&c, "handshakes", &ho, fmt, argc, argv);
}

const sat_command sat_cmd_handshakes = {
    "handshakes", "TLS handshakes on the wire: full, resumed, failed, incomplete",
    run_handshakes};
