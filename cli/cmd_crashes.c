/*
 * cmd_crashes.c - `satscope crashes INPUT... [--json]` (issue 5): crashes
 * from core files and from backtraces written in logs, each with its
 * crashing thread's frames, the other threads grouped, its fingerprint, the
 * groups of crashes, and the load and storms of the minute before each one
 * when logs or captures of that period are given too.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: satscope crashes INPUT... [--json]\n"
            "\n"
            "Crashes from ELF core files (plain or .gz/.zst/.xz; x86_64, aarch64, i386;\n"
            "written by the kernel or by gdb) and from backtraces written in logs\n"
            "(Ceph-style \"*** Caught signal\" blocks, glibc backtrace_symbols lines, gdb\n"
            "bt output). Per crash: time, process, signal, fault address, the crashing\n"
            "thread's frames, the other threads grouped by identical stacks (a pool of\n"
            "idle workers is one line), and a fingerprint made of its top meaningful\n"
            "frames (abort/raise/assert/signal-trampoline frames skipped, module-\n"
            "relative) so that the same bug groups across builds; then the groups.\n"
            "Give the access logs or captures of the same period too, and each crash\n"
            "shows the load and the storms of client failures in the minute up to it,\n"
            "against the minute before that. Each crash says where its time came from\n"
            "(a core holds no clock: --crash-time, the core's file name, the kernel's or\n"
            "systemd-coredump's log line about its pid, else the file's mtime) and, for a\n"
            "signal sent by a process (kill -SEGV), the sender's pid and uid.\n"
            "No process memory is copied anywhere: only the facts shown.\n"
            "\n"
            "  --context DUR       how long before each crash to look (default 60s), up to\n"
            "                      the crash itself; \"usual\" is the same length before it\n"
            "  --max-frames N      frames kept per thread (default 128)\n"
            "  --json              JSON (timestamps in epoch seconds)\n"
            SAT_CLI_COLLECT_HELP SAT_CLI_HELP_TAIL);
}

static int run_crashes(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"context", required_argument, NULL, 'c'},
        {"max-frames", required_argument, NULL, 'm'},
        SAT_CLI_SHARED_LONGOPTS};
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1;
    sat_crashes_opts co;
    memset(&co, 0, sizeof co);
    int fmt = SAT_REPORT_TEXT;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if ((co.context = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("crashes", "bad --context '%s'", optarg);
            break;
        case 'm': {
            double n;
            if (sat_cli_parse_number(optarg, 1, 100000, &n) < 0 || n != (double)(size_t)n)
                return sat_cli_usage_error("crashes", "bad --max-frames '%s'", optarg);
            co.max_frames = (size_t)n;
            break;
        }
        default: {
            int r = sat_cli_shared_option(&c, "crashes", opt, optarg, &fmt, usage);
            if (r >= 0)
                return r;
            break;
        }
        }
    }
    return sat_cli_analyze_args(&c, "crashes", &co, fmt, argc, argv);
}

const sat_command sat_cmd_crashes = {
    "crashes", "crashes from core files and logged backtraces, grouped, with the load before",
    run_crashes};
