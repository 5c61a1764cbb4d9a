/*
 * cmd_crashes.c - `satscope crashes INPUT... [--json]` (issue 5): crashes
 * from core files and from backtraces written in logs, each with its
 * crashing thread's frames, the other threads grouped, its fingerprint, the
 * groups of crashes, and the load and storms of the minute before each one
 * when logs or captures of that period are given too.
 */
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_crashes;

enum { OPT_CONTEXT = 0x100, OPT_MAX_FRAMES };

static const sat_cli_opt crashes_opts[] = {
    {"context", OPT_CONTEXT, 0, "DUR",
     "how long before each crash to look (default 60s), up to\n"
     "the crash itself; \"usual\" is the same length before it", NULL},
    {"max-frames", OPT_MAX_FRAMES, 0, "N", "frames kept per thread (default 128)", NULL},
    {"json", SAT_OPT_JSON, 0, NULL, "JSON (times as RFC 3339 UTC strings)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per crash, the JSON's key names", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints\n"
     "one (tables: crashes, groups)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_crashes(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1;
    sat_crashes_opts co;
    memset(&co, 0, sizeof co);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_crashes, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_CONTEXT:
            if ((co.context = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("crashes", "bad --context '%s'", optarg);
            break;
        case OPT_MAX_FRAMES: {
            double n;
            if (sat_cli_parse_number(optarg, 1, 100000, &n) < 0 || n != (double)(size_t)n)
                return sat_cli_usage_error("crashes", "bad --max-frames '%s'", optarg);
            co.max_frames = (size_t)n;
            break;
        }
        }
    }
    if (a.exit >= 0)
        return a.exit;
    return sat_cli_analyze_args(&c, "crashes", &co, a.fmt, argc, argv);
}

const sat_command sat_cmd_crashes = {
    "crashes", "crashes from core files and logged backtraces, grouped, with the load before",
    run_crashes, "INPUT... [--json|--csv] [options]",
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
    "No process memory is copied anywhere: only the facts shown.",
    crashes_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};
