/*
 * cmd_collect.c - `satscope collect INPUT... -o TRACE.sat`: logs (and traces)
 * in, one .sat trace out. The trace appears under its final name only when
 * complete (the writer works on a temporary file beside it and renames it at
 * the end); `-o -` streams it to standard output instead.
 *
 * The trace's mode: a trace holds DNs, client addresses and filter values,
 * so it is never readable by others: 0640 less the umask, 0600 when an input
 * is not readable by others itself (a file without o+r, standard input that
 * is not such a file, a live capture), and never looser than the trace it
 * replaces. A mode tighter than 0640-less-umask is said once, with why.
 * SIGINT and SIGTERM end the collection where it is: the trace of what was
 * read is closed (valid), and the exit is 128 + the signal (130, 143).
 * --anonymize-key KEYFILE puts the pseudonymiser (collect/anonymize.c) in
 * front of the trace writer: every row, from every input, goes through it,
 * and the trace's file header says it is pseudonymised.
 */
#include <dirent.h>
#include <glob.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "satscope/anonymize.h"
#include "satscope/trace.h"

enum { OPT_OUTPUT = 'o', OPT_IFACE = 0x100, OPT_FILTER, OPT_DURATION, OPT_COUNT, OPT_ANON_KEY };

static const sat_cli_opt collect_opts[] = {
    {"output", OPT_OUTPUT, 'o', "FILE",
     "the trace to write (required); '-' = standard output\n"
     "(not a terminal). FILE must be absent or a regular\n"
     "file: a device node, FIFO, symlink or directory is\n"
     "refused. Mode 0640 less the umask, 0600 when an input\n"
     "is not readable by others; never looser than a trace\n"
     "replaced", NULL},
    {"iface", OPT_IFACE, 0, "IF",
     "also capture live on interface IF (needs the right to\n"
     "capture: root or CAP_NET_RAW), until interrupted or:", NULL},
    {"duration", OPT_DURATION, 0, "D", "stop after D (30s, 5m, 1h, 500ms; plain number = s)",
     NULL},
    {"count", OPT_COUNT, 0, "N", "stop after N packets", NULL},
    {"filter", OPT_FILTER, 0, "BPF", "capture filter, e.g. 'tcp port 636'", NULL},
    {"anonymize-key", OPT_ANON_KEY, 0, "KEYFILE",
     "pseudonymise the trace: DN and filter values, client\n"
     "and server addresses (prefix-preserving), names, HTTP\n"
     "users, agents and path ids become keyed pseudonyms\n"
     "(the same for one key: groups and subnets survive);\n"
     "rejected lines keep their reason only. KEYFILE: 32\n"
     "bytes or more, not readable by others\n"
     "(head -c 32 /dev/urandom > KEYFILE; chmod 600 KEYFILE).\n"
     "What is kept: docs/privacy.md", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

extern const sat_command sat_cmd_collect;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_collect(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    const char *output = NULL, *anon_key = NULL;
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_collect, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUTPUT: output = optarg; break;
        case OPT_IFACE: c.live_iface = optarg; break;
        case OPT_FILTER: c.live_filter = optarg; break;
        case OPT_ANON_KEY: anon_key = optarg; break;
        case OPT_DURATION:
            if ((c.live_duration = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("collect", "bad --duration '%s'", optarg);
            break;
        case OPT_COUNT: {
            char *end;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (!*optarg || *end || n == 0)
                return sat_cli_usage_error("collect", "bad --count '%s'", optarg);
            c.live_count = n;
            break;
        }
        }
    }
    if (a.exit >= 0)
        return a.exit;
    if (!output)
        return sat_cli_usage_error("collect", "missing -o TRACE.sat");
    if (optind >= argc && !c.live_iface)
        return sat_cli_usage_error("collect", "no input given");
    if ((c.live_filter || c.live_duration || c.live_count) && !c.live_iface)
        return sat_cli_usage_error("collect", "--filter, --duration and --count need --iface");
    int streaming = !strcmp(output, "-") || !strcmp(output, "/dev/stdout");
    if (streaming && isatty(STDOUT_FILENO))
        return sat_cli_usage_error("collect", "-o -: standard output is a terminal; "
                                   "redirect it to a file or a pipe");

    /* The key first: a key refused writes nothing. */
    sat_anon *anon = NULL;
    int kcode = sat_cli_open_anon_key("collect", anon_key, &anon);
    if (kcode)
        return kcode;

    /* The trace's mode and the inputs it must not replace (cli_output.c). */
    sat_cli_out co;
    sat_cli_out_init(&co, argv + optind, (size_t)(argc - optind), c.live_iface != NULL,
                     "the trace");
    struct stat old;
    unsigned old_mode = !streaming && lstat(output, &old) == 0 && S_ISREG(old.st_mode)
                            ? (unsigned)old.st_mode & 0777u : 0;

    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    sat_trace_write_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.mode = co.o.mode;
    wo.inputs = co.o.inputs;
    wo.ninputs = co.o.ninputs;
    wo.flags = anon ? SAT_TRACE_F_PSEUDONYMISED : 0;
    sat_trace_writer *w = streaming
        ? sat_trace_writer_create_fd(STDOUT_FILENO, "standard output", &wo, &diag)
        : sat_trace_writer_create(output, &wo, &diag);
    sat_cli_out_free(&co);
    if (!w) {
        sat_anon_free(anon);
        if (diag.code == SAT_E_NOMEM)
            return sat_cli_fail("collect", diag.code, "no trace written");
        sat_cli_path_error("collect", output, diag.where, diag.msg);
        return diag.code == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_UNREADABLE;
    }
    if (!streaming && !c.quiet)
        sat_cli_out_say_mode(&co, "collect", output, sat_trace_writer_mode(w), old_mode);
    if (c.live_iface && !c.live_duration && !c.live_count && !c.quiet)
        fprintf(stderr, "satscope collect: capturing on %s until interrupted (Ctrl-C)\n",
                c.live_iface);
    sat_event_sink sink = sat_trace_writer_sink(w);
    sat_event_sink writer_sink = sink;
    if (anon) /* every row reaches the writer through the pseudonymiser */
        sink = sat_anon_sink(anon, &writer_sink);
    c.stop = sat_cli_interrupt_install();
    double t0 = now_s();
    int code = sat_cli_collect_run(&c, argv + optind, (size_t)(argc - optind), &sink);
    sat_anon_free(anon);
    const sat_collect_stats *st = &c.stats;
    /* a signal after the last input was read still exits 128 + it: the
     * trace is then whole, and the message says no input was left */
    int sig = sat_cli_interrupt_signal();
    if (c.failed) { /* a trace of a run that failed inside is never published */
        sat_cli_interrupt_restore();
        sat_trace_writer_abort(w);
        return sat_cli_fail("collect", c.failed, "no trace written");
    }
    if (!sig && code == SAT_EXIT_UNREADABLE && st->lines == 0 && st->traces == 0 &&
        st->packets == 0 && st->cores == 0) {
        sat_cli_interrupt_restore();
        sat_trace_writer_abort(w);
        fprintf(stderr, "satscope collect: nothing could be read; %s not written\n", output);
        return SAT_EXIT_UNREADABLE;
    }
    memset(&diag, 0, sizeof diag);
    int crc = sat_trace_writer_close(w, &diag);
    sat_cli_interrupt_restore();
    if (crc == SAT_E_NOMEM)
        return sat_cli_fail("collect", crc, "no trace written");
    if (crc < 0) {
        sat_cli_path_error("collect", output, diag.where, diag.msg);
        return diag.code == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_FAILED;
    }
    if (sig) {
        /* said even with -q: the exit code alone would not say the trace is whole */
        fprintf(stderr, "satscope collect: interrupted by %s: %s is a complete trace "
                "of what was read before it (%llu lines, %llu packets, %llu operations, "
                "%llu connections; %llu input%s not started)\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT",
                streaming ? "the trace on standard output" : output,
                (unsigned long long)st->lines, (unsigned long long)st->packets,
                (unsigned long long)st->ops, (unsigned long long)st->conns,
                (unsigned long long)st->not_started, st->not_started == 1 ? "" : "s");
        code = 128 + sig;
    }
    double dt = now_s() - t0;
    if (!c.quiet) {
        /* what the inputs held: LDAP operations and connections, HTTP requests,
         * or both (an HTTP-only trace has no "0 operations" to speak of) */
        char what[160];
        int n = 0;
        if (st->ops || st->conns || !st->http_requests)
            n = snprintf(what, sizeof what, "%llu operations, %llu connections",
                         (unsigned long long)st->ops, (unsigned long long)st->conns);
        if (st->http_requests)
            snprintf(what + n, sizeof what - (size_t)n, "%s%llu HTTP request%s", n ? ", " : "",
                     (unsigned long long)st->http_requests, st->http_requests == 1 ? "" : "s");
        fprintf(stderr,
                "satscope collect: %s: %s from %llu "
                "input(s), %.1f MB, %llu lines (%llu rejected) in %.2f s (%.0f MB/s)\n",
                streaming ? "standard output" : output, what,
                (unsigned long long)st->inputs, st->bytes / 1e6,
                (unsigned long long)st->lines, (unsigned long long)st->rejects, dt,
                dt > 0 ? st->bytes / 1e6 / dt : 0.0);
    }
    char skipped[64] = "";
    if (st->pcapng_skipped)
        snprintf(skipped, sizeof skipped, "; %llu pcapng block%s of other kinds skipped",
                 (unsigned long long)st->pcapng_skipped, st->pcapng_skipped == 1 ? "" : "s");
    if (!c.quiet && st->captures)
        fprintf(stderr,
                "satscope collect: %llu capture(s): %llu packets (%llu not TCP), %llu TCP "
                "connections (%llu expired idle, %llu evicted)%s\n",
                (unsigned long long)st->captures, (unsigned long long)st->packets,
                (unsigned long long)st->not_tcp, (unsigned long long)st->flows,
                (unsigned long long)st->expired, (unsigned long long)st->evicted, skipped);
    if (!c.quiet && st->cores)
        fprintf(stderr, "satscope collect: %llu core file(s): %llu crash(es), %llu frames\n",
                (unsigned long long)st->cores, (unsigned long long)st->crashes,
                (unsigned long long)st->frames);
    return code;
}

const sat_command sat_cmd_collect = {
    "collect", "read logs and traces into one .sat trace", run_collect,
    "INPUT... -o TRACE.sat [options]",
    "Reads access logs (389 DS text and JSON, OpenLDAP stats; plain, .gz,\n"
    ".bz2, .xz, .zst, or '-' for stdin) and .sat traces, and writes one\n"
    "columnar trace. Formats are detected from the content; rotated sets\n"
    "are ordered by the time of their content, not their names.\n"
    "\n"
    "HTTP access logs (nginx, Apache httpd, Tomcat) give one http_req row per\n"
    "request: the common and combined formats are detected; any other is\n"
    "given with --log-format as the server's own definition.\n"
    "\n"
    "Packet captures (pcap, pcapng, plain or compressed) are read beside\n"
    "the logs: one tcp_conn row per TCP connection, TLS handshakes and LDAP\n"
    "operations decoded from the wire.\n"
    "\n"
    "ELF core files (plain or compressed; x86_64, aarch64, i386; written by\n"
    "the kernel or gdb) give one crash row (signal, fault address, threads,\n"
    "build-id, fingerprint) and one frame row per frame of every thread,\n"
    "unwound with elfutils libdwfl. No process memory is copied.",
    collect_opts, SAT_CLI_INPUT_OPTS,
    "SIGINT (Ctrl-C) or SIGTERM: the input in hand is closed where it is and\n"
    "the trace of what was read is written (a second one quits at once).\n"
    "\n"
    "exit: 0 ok, 1 some lines were rejected (counted in the trace's reject\n"
    "table, the rest collected), 2 usage (or FILE is not a regular file),\n"
    "3 an input could not be read, 130/143 interrupted by SIGINT/SIGTERM\n"
    "(the trace holds what was read)."};
