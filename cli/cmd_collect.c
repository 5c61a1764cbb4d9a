/*
 * cmd_collect.c - `satscope collect INPUT... -o TRACE.sat`: logs (and traces)
 * in, one .sat trace out. The trace appears under its final name only when
 * complete (the writer works on TRACE.sat.partial and renames at the end).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "satscope/trace.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: satscope collect INPUT... -o TRACE.sat [options]\n"
            "\n"
            "Reads access logs (389 DS text and JSON, OpenLDAP stats; plain, .gz,\n"
            ".bz2, .xz, .zst, or '-' for stdin) and .sat traces, and writes one\n"
            "columnar trace. Formats are detected from the content; rotated sets\n"
            "are ordered by the time of their content, not their names.\n"
            "\n"
            "Packet captures (pcap, pcapng, plain or compressed) are read beside\n"
            "the logs: one tcp_conn row per TCP connection, TLS handshakes and LDAP\n"
            "operations decoded from the wire.\n"
            "\n"
            "ELF core files (plain or compressed; x86_64, aarch64, i386; written by\n"
            "the kernel or gdb) give one crash row (signal, fault address, threads,\n"
            "build-id, fingerprint) and one frame row per frame of every thread,\n"
            "unwound with elfutils libdwfl. No process memory is copied.\n"
            "\n"
            "  -o, --output FILE the trace to write (required)\n"
            "  --iface IF      also capture live on interface IF (needs the right to\n"
            "                  capture: root or CAP_NET_RAW), bounded by:\n"
            "  --duration D    stop after D (30s, 5m, 1h, 500ms; plain number = s)\n"
            "  --count N       stop after N packets\n"
            "  --filter BPF    capture filter, e.g. 'tcp port 636'\n"
            SAT_CLI_COLLECT_HELP
            "  -h, --help      this text\n"
            "\n"
            "exit: 0 ok, 1 some lines were rejected (counted in the trace's reject\n"
            "table, the rest collected), 2 usage, 3 an input could not be read.\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_collect(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"iface", required_argument, NULL, 'I'},
        {"filter", required_argument, NULL, 'B'},
        {"duration", required_argument, NULL, 'D'},
        {"count", required_argument, NULL, 'N'},
        SAT_CLI_COLLECT_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    const char *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'I': c.live_iface = optarg; break;
        case 'B': c.live_filter = optarg; break;
        case 'D':
            if ((c.live_duration = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("collect", "bad --duration '%s'", optarg);
            break;
        case 'N': {
            char *end;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (!*optarg || *end || n == 0)
                return sat_cli_usage_error("collect", "bad --count '%s'", optarg);
            c.live_count = n;
            break;
        }
        case 'h': usage(stdout); return SAT_EXIT_OK;
        default: {
            int r = sat_cli_collect_option(&c, "collect", opt, optarg);
            if (r == 1)
                break;
            if (r == 0)
                usage(stderr);
            return SAT_EXIT_USAGE;
        }
        }
    }
    if (!output)
        return sat_cli_usage_error("collect", "missing -o TRACE.sat");
    if (optind >= argc && !c.live_iface)
        return sat_cli_usage_error("collect", "no input given");
    if ((c.live_filter || c.live_duration || c.live_count) && !c.live_iface)
        return sat_cli_usage_error("collect", "--filter, --duration and --count need --iface");
    if (c.live_iface && !c.live_duration && !c.live_count)
        return sat_cli_usage_error("collect", "--iface needs --duration or --count");

    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    sat_trace_writer *w = sat_trace_writer_create(output, NULL, &diag);
    if (!w) {
        fprintf(stderr, "satscope collect: %s: %s\n", output, diag.msg);
        return SAT_EXIT_UNREADABLE;
    }
    sat_event_sink sink = sat_trace_writer_sink(w);
    double t0 = now_s();
    int code = sat_cli_collect_run(&c, argv + optind, (size_t)(argc - optind), &sink);
    const sat_collect_stats *st = &c.stats;
    if (code == SAT_EXIT_UNREADABLE && st->lines == 0 && st->traces == 0 &&
        st->packets == 0 && st->cores == 0) {
        sat_trace_writer_abort(w);
        fprintf(stderr, "satscope collect: nothing could be read; %s not written\n", output);
        return SAT_EXIT_UNREADABLE;
    }
    memset(&diag, 0, sizeof diag);
    if (sat_trace_writer_close(w, &diag) < 0) {
        fprintf(stderr, "satscope collect: %s: %s%s%s\n", output, diag.where,
                diag.where[0] ? ": " : "", diag.msg);
        return SAT_EXIT_UNREADABLE;
    }
    double dt = now_s() - t0;
    if (!c.quiet)
        fprintf(stderr,
                "satscope collect: %s: %llu operations, %llu connections from %llu "
                "input(s), %.1f MB, %llu lines (%llu rejected) in %.2f s (%.0f MB/s)\n",
                output, (unsigned long long)st->ops, (unsigned long long)st->conns,
                (unsigned long long)st->inputs, st->bytes / 1e6,
                (unsigned long long)st->lines, (unsigned long long)st->rejects, dt,
                dt > 0 ? st->bytes / 1e6 / dt : 0.0);
    if (!c.quiet && st->captures)
        fprintf(stderr,
                "satscope collect: %llu capture(s): %llu packets (%llu not TCP), %llu TCP "
                "connections (%llu expired idle, %llu evicted)\n",
                (unsigned long long)st->captures, (unsigned long long)st->packets,
                (unsigned long long)st->not_tcp, (unsigned long long)st->flows,
                (unsigned long long)st->expired, (unsigned long long)st->evicted);
    if (!c.quiet && st->cores)
        fprintf(stderr, "satscope collect: %llu core file(s): %llu crash(es), %llu frames\n",
                (unsigned long long)st->cores, (unsigned long long)st->crashes,
                (unsigned long long)st->frames);
    return code;
}

const sat_command sat_cmd_collect = {
    "collect", "read logs and traces into one .sat trace", run_collect};
