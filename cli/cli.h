/*
 * cli.h - what the satscope commands share: the command table, exit codes
 * (DESIGN.md: 0 ok, 1 some input rejected, 2 usage, 3 an input unreadable),
 * and the collection-with-diagnostics wrapper every analyzer command uses.
 */
#ifndef SAT_CLI_H
#define SAT_CLI_H

#include "satscope/collect.h"

enum sat_exit {
    SAT_EXIT_OK = 0,
    SAT_EXIT_REJECTS = 1,
    SAT_EXIT_USAGE = 2,
    SAT_EXIT_UNREADABLE = 3
};

typedef struct sat_command {
    const char *name;
    const char *summary; /* one line for `satscope --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} sat_command;

/* NULL-terminated, in the order `satscope --help` lists them. */
extern const sat_command *const sat_commands[];

/* A collection that reports as it goes: warnings and the first rejected
 * lines (file:line: reason) on stderr, a progress line when stderr is a
 * terminal, and the exit code the outcome deserves. `sink` receives every
 * event. */
typedef struct sat_cli_collect {
    const char *format;          /* --format, NULL to sniff */
    sat_ts_ns from_ns, to_ns;    /* --from/--to */
    int quiet;                   /* no summary/warnings on stderr */
    int year;                    /* --year: for syslog timestamps without one */
    int no_filter_shapes;        /* the consumer never reads filter shapes */
    const char *live_iface, *live_filter; /* collect --iface/--filter */
    sat_dur_ns live_duration;    /* --duration */
    uint64_t live_count;         /* --count */
    uint16_t ldap_port;          /* --ldap-port: LDAP on this port whatever the bytes */
    const char *exe;             /* --exe: cores: the executable that crashed */
    const char *debuginfo_path;  /* --debuginfo-path: cores: debug files, modules */
    const char *sysroot;         /* --sysroot: cores: the paths they name, below it */
    const volatile sig_atomic_t *stop; /* collect.h opts.stop (cli_interrupt.c) */
    sat_ts_ns crash_time;        /* --crash-time: cores: when they crashed */
    int no_source_lines;         /* --no-source-lines: cores: frames without file:line */
    sat_collect_stats stats;     /* filled by sat_cli_collect_run */
} sat_cli_collect;

/* SIGINT and SIGTERM (cli_interrupt.c): install returns the flag the first
 * of them sets (its signal number) for sat_cli_collect.stop; a second one
 * ends the process (default action). restore puts the old handlers back. */
const volatile sig_atomic_t *sat_cli_interrupt_install(void);
void sat_cli_interrupt_restore(void);
int sat_cli_interrupt_signal(void); /* the signal received, 0 if none */

/* Runs the collection; returns the exit code it deserves (0, 1 or 3). */
int sat_cli_collect_run(sat_cli_collect *c, char *const *paths, size_t npaths,
                        const sat_event_sink *sink);

/* The options every command that collects shares (--format, --from, --to,
 * --year, --ldap-port, --exe, --debuginfo-path, --sysroot, --quiet): returns 1 if opt was one of them (and applied), 0 if not,
 * or SAT_EXIT_USAGE after printing why the value is bad. */
int sat_cli_collect_option(sat_cli_collect *c, const char *cmd, int opt, const char *arg);
/* What every analysis command does with an option that is not its own:
 * --json sets *fmt, --help prints usage on stdout, the collect options are
 * applied, anything else prints usage on stderr. Returns -1 when the option
 * was taken (parse on), else the exit code to return now. */
int sat_cli_shared_option(sat_cli_collect *c, const char *cmd, int opt, const char *arg,
                          int *fmt, void (*usage)(FILE *out));
/* After getopt: "no input given", or sat_cli_analyze on argv[optind..]. */
int sat_cli_analyze_args(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                         int argc, char **argv);
/* The run every analyzer command shares, through the registries (analyze.h,
 * report.h): creates analyzer `name` with its opts, collects paths into it,
 * finishes it and renders it in fmt on stdout. Returns the exit code. */
int sat_cli_analyze(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                    char *const *paths, size_t npaths);
/* "10s", "500ms", "250us", "2m", "1h" or plain seconds -> ns (1 us .. ~30 years);
 * < 0 if bad. */
sat_dur_ns sat_cli_parse_duration(const char *s);
/* A whole string that is a number in [lo, hi]: 0 and *out set, else -1. */
int sat_cli_parse_number(const char *s, double lo, double hi, double *out);
/* --top N (1 .. 100000): 0 and *out set, or SAT_EXIT_USAGE after saying why. */
int sat_cli_parse_top(const char *cmd, const char *arg, size_t *out);
/* option codes of the long-only options (beyond any short letter) */
enum { SAT_OPT_EXE = 0x1c0, SAT_OPT_DEBUGINFO_PATH, SAT_OPT_SYSROOT, SAT_OPT_CRASH_TIME,
       SAT_OPT_NO_SOURCE_LINES };
#define SAT_CLI_COLLECT_LONGOPTS                                             \
    {"exe", required_argument, NULL, SAT_OPT_EXE},                           \
    {"debuginfo-path", required_argument, NULL, SAT_OPT_DEBUGINFO_PATH},     \
    {"sysroot", required_argument, NULL, SAT_OPT_SYSROOT},                   \
    {"crash-time", required_argument, NULL, SAT_OPT_CRASH_TIME},             \
    {"no-source-lines", no_argument, NULL, SAT_OPT_NO_SOURCE_LINES},         \
    {"format", required_argument, NULL, 'f'},                                \
    {"from", required_argument, NULL, 'F'},                                  \
    {"to", required_argument, NULL, 'T'},                                    \
    {"year", required_argument, NULL, 'Y'},                                  \
    {"ldap-port", required_argument, NULL, 'L'},                             \
    {"quiet", no_argument, NULL, 'q'}
/* The end of every analysis command's --help, after SAT_CLI_COLLECT_HELP. */
#define SAT_CLI_HELP_TAIL                                                    \
    "  -h, --help          this text\n"                                      \
    "\n"                                                                      \
    "exit: 0 ok, 1 some input was rejected (the rest analysed), 2 usage,\n"   \
    "      3 an input could not be read\n"
/* The options every analysis command ends its getopt table with (taken by
 * sat_cli_shared_option), and the table's end. */
#define SAT_CLI_SHARED_LONGOPTS                                              \
    {"json", no_argument, NULL, 'j'}, SAT_CLI_COLLECT_LONGOPTS,               \
        {"help", no_argument, NULL, 'h'}, { NULL, 0, NULL, 0 }
#define SAT_CLI_COLLECT_HELP                                                 \
    "  --format NAME   force a log format: 389-text, 389-json, openldap\n"   \
    "  --from TIME     only events from TIME on (ISO-8601 UTC or epoch s)\n" \
    "  --to TIME       only events before TIME\n"                            \
    "  --year YYYY     year of syslog timestamps, which carry none (default:\n" \
    "                  each file's modification year)\n"                     \
    "  --ldap-port N   captures: decode port N as LDAP whatever its bytes look\n" \
    "                  like (LDAP is otherwise found by content)\n"          \
    "  --exe FILE      cores: the executable that crashed (else found by the\n" \
    "                  core's paths and build-ids)\n"                        \
    "  --debuginfo-path DIRS  cores: ':'-separated directories of debug files\n" \
    "                  (.build-id/xx/yyyy.debug, NAME.debug) and module copies\n" \
    "  --sysroot DIR   cores: look up the paths the core names below DIR\n"  \
    "  --crash-time T  cores: when they crashed, RFC 3339 (2025-06-09T14:24:16.7Z,\n" \
    "                  +02:00): a core holds no clock; else the time in its file\n" \
    "                  name (core_pattern time field), a log line naming its pid,\n" \
    "                  or its file's modification time, in that order\n"  \
    "  --no-source-lines  cores: no file:line for frames (a C library's compressed\n" \
    "                  debug info, libc6-dbg's, costs ~50 ms to inflate per run)\n" \
    "  -q, --quiet     no summary or warnings on stderr\n"

/* Parses "2025-06-08T07:19:14Z", "2025-06-08 07:19", epoch seconds;
 * returns 0 and sets *out, or -1. */
int sat_cli_parse_time(const char *s, sat_ts_ns *out);

/* RFC 3339: "2025-06-09T14:24:16.700Z", "2025-06-09 16:24:16+02:00" (a zone,
 * Z or +-HH:MM, is required; up to 9 digits of fraction); 0 and *out, or -1. */
int sat_cli_parse_rfc3339(const char *s, sat_ts_ns *out);

/* Prints "satscope CMD: msg" on stderr and returns SAT_EXIT_USAGE. */
int sat_cli_usage_error(const char *cmd, const char *fmt, ...) SAT_PRINTF(2, 3);

#endif
