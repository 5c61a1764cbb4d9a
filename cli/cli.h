/*
 * cli.h - what the satscope commands share: the command table, exit codes
 * (DESIGN.md: 0 ok, 1 some input rejected, 2 usage, 3 an input unreadable),
 * and the collection-with-diagnostics wrapper every analyzer command uses.
 */
#ifndef SAT_CLI_H
#define SAT_CLI_H

#include <stdio.h>

#include "satscope/analyze.h"
#include "satscope/collect.h"
#include "satscope/report.h"
#include "satscope/safe_out.h"

enum sat_exit {
    SAT_EXIT_OK = 0,
    SAT_EXIT_REJECTS = 1,
    SAT_EXIT_USAGE = 2,
    SAT_EXIT_UNREADABLE = 3,
    SAT_EXIT_FAILED = 3 /* satscope could not finish: out of memory (nothing written) */
};

/* One option of a command, the one table that drives getopt_long, --help,
 * the man page and the bash completion (cli_options.c), so that they cannot
 * disagree. */
typedef struct sat_cli_opt {
    const char *name;   /* long name, without "--"; NULL ends a table */
    int code;           /* what the parser returns for it */
    char shortname;     /* also -X, or 0 */
    const char *arg;    /* the value's name in help ("DUR"), NULL: a flag */
    const char *help;   /* lines separated by '\n', without indentation */
    const char *values; /* the values it takes, space-separated, for the
                           completion; NULL: any (a file when arg names one) */
} sat_cli_opt;

/* option codes every command may use: the parser itself takes these */
enum { SAT_OPT_JSON = 0x1d0, SAT_OPT_CSV, SAT_OPT_HELP = 'h', SAT_OPT_VERSION = 0x1d2,
       SAT_OPT_CSV_DIR, SAT_OPT_WIDE };

/* which shared option groups a command takes besides its own table */
enum { SAT_CLI_INPUT_OPTS = 1,  /* the collect options (sat_cli_collect_opts) */
       SAT_CLI_REPORT_OPTS = 2,  /* the report options of the analysis commands (--wide) */
       SAT_CLI_ANALYSIS_OPTS = 4, /* the analysis options (sat_cli_analysis_opts: --jobs) */
       SAT_CLI_CACHE_OPTS = 8     /* the cache options (sat_cli_cache_opts, cli_cache.c) */ };

typedef struct sat_command {
    const char *name;
    const char *summary; /* one line for `satscope --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *synopsis; /* after "satscope NAME " in usage lines */
    const char *about;    /* --help's text before the options ('\n\n' between paragraphs) */
    const sat_cli_opt *opts; /* its own options, NULL-name ended */
    unsigned groups;      /* SAT_CLI_INPUT_OPTS, ... */
    const char *notes;    /* --help's text after the options, exit codes included */
    /* the CSV tables of a command that is no analyzer (`--csv NAME`), main
     * first; NULL: the analyzer's (sat_csv_tables) */
    const char *const *csv_tables;
} sat_command;

/* The input options every collecting command shares (--format, --from,
 * --to, --year, --ldap-port, --exe, --debuginfo-path, --sysroot,
 * --crash-time, --no-source-lines, --quiet). */
extern const sat_cli_opt sat_cli_collect_opts[];
/* The options every analysis command shares (cli_parallel.c): --jobs. */
extern const sat_cli_opt sat_cli_analysis_opts[];
/* The options of every command that runs the cachesize analyzer
 * (cli_cache.c): --target, --entry-size, --monitor, --ldif, --db-dir,
 * --max-refs, --shards, --shards-smax. */
extern const sat_cli_opt sat_cli_cache_opts[];
/* The exit codes of an analysis command, for its notes. */
#define SAT_CLI_EXIT_NOTE                                                    \
    "exit: 0 ok, 1 some input was rejected (the rest analysed), 2 usage,\n"  \
    "      3 an input could not be read"

/* The parser every command runs: getopt_long over the command's table and
 * its groups, and what every command does the same way: --help (usage on
 * stdout, exit 0), --version, --json / --csv (mutually exclusive), the input
 * options (applied to `collect`), and any usage error as one line naming
 * the command with a hint (exit 2). */
typedef struct sat_cli_args {
    const sat_command *cmd;
    struct sat_cli_collect *collect; /* where the input options go (NULL: none) */
    struct sat_cli_cache *cache;      /* where the cache options go: set after init
                                         by a command with SAT_CLI_CACHE_OPTS */
    int fmt;                          /* SAT_REPORT_TEXT, _JSON or _CSV */
    int exit;                         /* >= 0: return it now */
    int started;
} sat_cli_args;
void sat_cli_args_init(sat_cli_args *a, const sat_command *cmd, struct sat_cli_collect *c);
/* The code of the next option of the command's own table (optarg set), or
 * -1 at the end of the options or when a->exit says to return. */
int sat_cli_args_next(sat_cli_args *a, int argc, char **argv);
/* Prints cmd's --help. */
void sat_cli_print_help(const sat_command *cmd, FILE *out);
/* The man page satscope(1) in roff, and the bash completion script: both
 * from the command table (the hidden `satscope --man` / `--completion`). */
void sat_cli_print_man(FILE *out);
void sat_cli_print_completion(FILE *out);
/* The one line naming a path whatever the library put in `where` (which
 * often starts with the path already): "satscope CMD: PATH: WHERE: MSG". */
void sat_cli_path_error(const char *cmd, const char *path, const char *where, const char *msg);
/* Standard output could not be written (errno err): said once a run,
 * "satscope CMD: standard output: writing failed: ..." (cmd NULL: none). */
void sat_cli_stdout_failed(const char *cmd, int err);
/* The end of every run (satscope.c): standard output flushed; when it or any
 * write before failed (a full disk, /dev/full) a run that thought it did its
 * work (code 0 or 1) says so and exits SAT_EXIT_FAILED, never 0; a failed run
 * (code 2 and up) has said why already and keeps its code. */
int sat_cli_finish_stdout(const char *cmd, int code);

/* NULL-terminated, in the order `satscope --help` lists them. */
extern const sat_command *const sat_commands[];

/* A collection that reports as it goes: warnings and the first rejected
 * lines (file:line: reason) on stderr, a progress line when stderr is a
 * terminal, and the exit code the outcome deserves. `sink` receives every
 * event. */
typedef struct sat_cli_collect sat_cli_collect;
struct sat_cli_collect {
    const char *format;          /* --format, NULL to sniff */
    const char *log_format;      /* --log-format: HTTP logs' format, NULL to detect;
                                    after sat_cli_http_settle, what the three
                                    options below say together */
    const char *log_format_file; /* --log-format-file: the server's configuration */
    const char *log_pattern;     /* --pattern: a PCRE2 pattern */
    int http_settled;            /* sat_cli_http_settle ran */
    sat_ts_ns from_ns, to_ns;    /* --from/--to */
    int quiet;                   /* no summary/warnings on stderr */
    int year;                    /* --year: for syslog timestamps without one */
    int no_filter_shapes;        /* the consumer never reads filter shapes */
    const char *csv_table;       /* --csv NAME: that CSV table (NULL: the main one) */
    const char *csv_dir;         /* --csv-dir DIR: every CSV table as DIR/NAME.csv */
    const char *name;            /* the command (by sat_cli_analyze), for messages */
    char *const *inputs;         /* the inputs named (by sat_cli_analyze): what an
                                    output must not replace (cli_output.c) */
    size_t ninputs;
    int wide;                    /* --wide: text lines past 100 columns */
    const char *live_iface, *live_filter; /* collect --iface/--filter */
    sat_dur_ns live_duration;    /* --duration */
    uint64_t live_count;         /* --count */
    uint16_t ldap_port;          /* --ldap-port: LDAP on this port whatever the bytes */
    size_t max_open, max_pending;/* --max-open, --max-pending: the joiner's bounds
                                    (0: parse.h's defaults) */
    const char *exe;             /* --exe: cores: the executable that crashed */
    const char *debuginfo_path;  /* --debuginfo-path: cores: debug files, modules */
    const char *sysroot;         /* --sysroot: cores: the paths they name, below it */
    const volatile sig_atomic_t *stop; /* collect.h opts.stop (cli_interrupt.c) */
    sat_ts_ns crash_time;        /* --crash-time: cores: when they crashed */
    int no_source_lines;         /* --no-source-lines: cores: frames without file:line */
    const char *server_args[64]; /* --server NAME, NAME=PATH (cli_servers.c) */
    size_t nserver_args;
    const sat_server_naming *naming; /* during a collection: the sources' names */
    size_t nnaming;
    sat_collect_stats stats;     /* filled by sat_cli_collect_run */
    uint64_t events;             /* by sat_cli_collect_run: the rows given to the
                                    sink beyond sources and rejects */
    uint64_t timed_sources;      /* and the sources with a time range (read or
                                    replayed): those that held anything dated */
    unsigned jobs;               /* --jobs: inputs analysed at once; 0 = the online CPUs */
    size_t parallel_inputs;      /* by sat_cli_collect_into: the inputs it analysed
                                    apart and merged (0: one pass) */
    int failed;                  /* an internal failure (SAT_E_NOMEM) in the collection,
                                    the analysis or a merge: the figures cannot be
                                    trusted (sat_cli_fail) */
};

/* What every output file of a run gets from its inputs (cli_output.c): the
 * safe writer's options (safe_out.h) with the run's mode (0640 less the
 * umask, 0600 when an input is not readable by others: private_input names
 * it, private_why says why) and the input files' identities. `what` names
 * the output in messages ("the trace"). free releases the identities. */
typedef struct sat_cli_out {
    sat_out_opts o;
    sat_file_id *ids;
    size_t nids, cap;
    unsigned dflt; /* 0640 less the umask */
    const char *private_input, *private_why;
    char private_name[4096];
} sat_cli_out;
void sat_cli_out_init(sat_cli_out *co, char *const *inputs, size_t n, int live, const char *what);
/* The pseudonymiser of --anonymize-key PATH (NULL: none, *out NULL): 0, or
 * the exit code after saying why (a key file missing, short or readable by
 * others: a usage error). */
struct sat_anon;
int sat_cli_open_anon_key(const char *cmd, const char *path, struct sat_anon **out);
/* More inputs (a report's baseline). */
void sat_cli_out_add(sat_cli_out *co, char *const *inputs, size_t n);
void sat_cli_out_free(sat_cli_out *co);
/* Says on stderr why a file got mode `got` when it is not the default: the
 * regular file it replaced had old_mode, or an input is private. */
void sat_cli_out_say_mode(const sat_cli_out *co, const char *cmd, const char *path, unsigned got,
                          unsigned old_mode);

/* SIGINT and SIGTERM (cli_interrupt.c): install returns the flag the first
 * of them sets (its signal number) for sat_cli_collect.stop; a second one
 * ends the process (default action). restore puts the old handlers back. */
const volatile sig_atomic_t *sat_cli_interrupt_install(void);
void sat_cli_interrupt_restore(void);
int sat_cli_interrupt_signal(void); /* the signal received, 0 if none */

/* Runs the collection; returns the exit code it deserves (0, 1 or 3). */
int sat_cli_collect_run(sat_cli_collect *c, char *const *paths, size_t npaths,
                        const sat_event_sink *sink);

/* The same in two steps, for collections run in parts (cli_parallel.c): a
 * part runs the collection of some inputs, numbered from its bases, keeping
 * what it has to say (warnings to warn_out when set, else stderr as they
 * come; the first rejects) for the report, which says it for every part in
 * order, sums the parts' figures into c (stats, events, timed_sources) and
 * returns the exit code. */
#define SAT_CLI_SHOWN_REJECTS 10
typedef struct sat_cli_shown_reject {
    uint32_t source;           /* within the part (minus its source_base) */
    uint64_t line_no;
    char *reason, *excerpt, *path; /* owned */
} sat_cli_shown_reject;
typedef struct sat_cli_part {
    uint32_t source_base, server_base; /* in: where its numbering starts */
    int one_thread;            /* in: no threads of its own (it is one of several) */
    FILE *warn_out;            /* in: where its warnings go (NULL: stderr) */
    int quiet;
    sat_collect_stats stats;   /* out */
    int rc;                    /* out: sat_collect_run's status */
    sat_diag diag;
    unsigned long warnings;
    uint64_t events, timed_sources;
    sat_cli_shown_reject shown[SAT_CLI_SHOWN_REJECTS];
    size_t nshown;
} sat_cli_part;
int sat_cli_collect_part(const sat_cli_collect *c, char *const *paths, size_t npaths,
                         const sat_event_sink *sink, sat_cli_part *part);
int sat_cli_collect_report(sat_cli_collect *c, sat_cli_part *const *parts, size_t nparts);
void sat_cli_part_clear(sat_cli_part *p); /* frees what the part holds */

/* Collects paths into obj, an instance of analyzer a made with opts: when the
 * paths are several inputs and c->jobs allows, each input into an instance
 * of its own on a thread of its own, merged into obj in input order
 * (cli_parallel.c says which inputs and how); else as sat_cli_collect_run.
 * Returns the exit code the collection deserves. */
struct sat_analyzer;
int sat_cli_collect_into(sat_cli_collect *c, const struct sat_analyzer *a, const void *opts,
                         void *obj, char *const *paths, size_t npaths);
/* --jobs N (1 .. 1024): 0 and c->jobs set, or SAT_EXIT_USAGE after saying why. */
int sat_cli_parse_jobs(const char *cmd, const char *arg, sat_cli_collect *c);

/* One input option (sat_cli_collect_opts' codes): returns 1 if opt was one
 * of them (and applied), 0 if not, or SAT_EXIT_USAGE after printing why the
 * value is bad. */
int sat_cli_collect_option(sat_cli_collect *c, const char *cmd, int opt, const char *arg);

/* cli_servers.c: --server NAME or NAME=PATH taken (1), or a usage error (2,
 * said); the names of a collection's sources: --server's, then the
 * directory of inputs sharing a file name. SAT_OK or SAT_E_NOMEM; free with
 * sat_cli_server_names_free. */
int sat_cli_server_option(sat_cli_collect *c, const char *cmd, const char *arg);
int sat_cli_server_names(sat_cli_collect *c, char *const *paths, size_t npaths,
                         sat_server_naming **out, size_t *nout);
void sat_cli_server_names_free(sat_server_naming *names, size_t n);
/* After getopt: "no input given", or sat_cli_analyze on argv[optind..]. */
int sat_cli_analyze_args(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                         int argc, char **argv);
/* Prints the report of analyzer `a` (obj finished) in format fmt on stdout,
 * or the CSV tables in c->csv_dir; 0, or -1 after a message on stderr. */
int sat_cli_render(const sat_cli_collect *c, const sat_analyzer *a, const void *obj, int fmt);
/* The run every analyzer command shares, through the registries (analyze.h,
 * report.h): creates analyzer `name` with its opts, collects paths into it,
 * finishes it and renders it in fmt on stdout. Returns the exit code. */
/* Renders a built result (res may be NULL: out of memory) in fmt: JSON and
 * CSV by the one writers, text by `text`. 0, or a SAT_E_* code after a message
 * (SAT_E_USAGE: an output refused, as --csv-dir naming a symlink). */
int sat_cli_render_result(const sat_cli_collect *c, sat_result *res, int fmt,
                          int (*text)(sat_result *res, sat_text *t));
int sat_cli_analyze(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                    char *const *paths, size_t npaths);
/* When the collection read its inputs but they hold no event: the sink took
 * none and no input held anything with a time (a line, a packet, a core;
 * what a trace replays says the same of its sources), or none in the
 * --from/--to range when there is one: says so on stderr,
 * naming them, and returns 1, for the command to print no report of zeros;
 * else 0. An input with events of other kinds only gets its report (which
 * says what it lacks). */
int sat_cli_no_events(const sat_cli_collect *c, const char *cmd, char *const *paths,
                      size_t npaths);
/* "10s", "500ms", "250us", "2m", "1h" or plain seconds -> ns (1 us .. ~30 years);
 * < 0 if bad. */
sat_dur_ns sat_cli_parse_duration(const char *s);
/* A whole string that is a number in [lo, hi]: 0 and *out set, else -1. */
int sat_cli_parse_number(const char *s, double lo, double hi, double *out);
/* --top N (1 .. 100000): 0 and *out set, or SAT_EXIT_USAGE after saying why. */
int sat_cli_parse_top(const char *cmd, const char *arg, size_t *out);
/* option codes of the input options */
enum { SAT_OPT_EXE = 0x1c0, SAT_OPT_DEBUGINFO_PATH, SAT_OPT_SYSROOT, SAT_OPT_CRASH_TIME,
       SAT_OPT_NO_SOURCE_LINES, SAT_OPT_FORMAT, SAT_OPT_FROM, SAT_OPT_TO, SAT_OPT_YEAR,
       SAT_OPT_LDAP_PORT, SAT_OPT_QUIET = 'q', SAT_OPT_JOBS = 'j' };
enum { SAT_OPT_LOG_FORMAT = 0x1e0, SAT_OPT_LOG_FORMAT_FILE, SAT_OPT_PATTERN, SAT_OPT_MAX_OPEN,
       SAT_OPT_MAX_PENDING, SAT_OPT_SERVER };

/* Settles --log-format, --log-format-file and --pattern once every option is
 * read (cli_http.c, docs/http.md): c->log_format becomes the one definition
 * every HTTP log is read with (found in the configuration file by name, by
 * the inputs' file names, or alone; or the pattern), or NULL. 0, or the exit
 * code of a usage error (2) or of a configuration file not read (3), the
 * message printed. Runs once; later calls return 0. */
int sat_cli_http_settle(sat_cli_collect *c, const char *cmd, char *const *inputs, size_t n);

/* What the cache options say (cli_cache.c), parsed by sat_cli_args_next
 * when sat_cli_args.cache is set: the files they name are read as they
 * come (a file without what it should hold is said on stderr and sets
 * partial: exit 1 after the report). */
typedef struct sat_cli_cache {
    sat_cs_opts opts;            /* its monitor: the snapshots below (sat_cli_cache_get) */
    sat_cs_monitor monitor[2];   /* --monitor: the first two snapshots read */
    size_t nmonitor;
    int given;                   /* any cache option was given */
    int partial;                 /* a file held nothing of what it should */
} sat_cli_cache;
void sat_cli_cache_init(sat_cli_cache *cc);
/* One cache option: 1 if opt was one of them (applied), 0 if not, or
 * SAT_EXIT_USAGE after saying why (the command named as cmd). */
int sat_cli_cache_option(sat_cli_cache *cc, const char *cmd, int opt, const char *arg);
/* The cachesize analyzer's options (borrowed from cc, valid until
 * sat_cli_cache_clear). */
const sat_cs_opts *sat_cli_cache_get(sat_cli_cache *cc);
/* The options a command hands to analyzer `name`: the cache options for
 * cachesize when any was given, else dflt (cc may be NULL). */
const void *sat_cli_member_opts(sat_cli_cache *cc, const char *name, const void *dflt);
/* The options to run analyzer `name` with when its results feed charts
 * (borrowed, static), NULL for its defaults: the timeline in at most
 * SAT_CHART_WINDOWS windows (chart.h). */
const void *sat_cli_chart_opts(const char *name);
void sat_cli_cache_clear(sat_cli_cache *cc); /* frees what --db-dir read */

/* Parses "2025-06-08T07:19:14Z", "2025-06-08 07:19", epoch seconds;
 * returns 0 and sets *out, or -1. */
int sat_cli_parse_time(const char *s, sat_ts_ns *out);

/* RFC 3339: "2025-06-09T14:24:16.700Z", "2025-06-09 16:24:16+02:00" (a zone,
 * Z or +-HH:MM, is required; up to 9 digits of fraction); 0 and *out, or -1. */
int sat_cli_parse_rfc3339(const char *s, sat_ts_ns *out);

/* An internal failure ends the command: "satscope CMD: out of memory; nothing
 * written" (what: "no report written", NULL: "nothing written") once on
 * stderr, and SAT_EXIT_FAILED. Nothing of a run that failed is printed or
 * published: a figure of it could be wrong without saying so. */
int sat_cli_fail(const char *cmd, int err, const char *what);

/* ---- the digest's server-days (cli_days.c) ------------------------------------------
 * From inputs (one pass, split by server and day with the digest's plan) or
 * from partials (.satp): each server-day named as the digest shows it, those
 * of one name and date merged into one, unfinished, in order of server then
 * day. The plan must outlive the set. NULL after a message (*code set). */
struct sat_partial_day;
typedef struct sat_cli_dayset sat_cli_dayset;
struct sat_anon;
/* anon (NULL: none): the rows pseudonymised before the analyzers see them */
sat_cli_dayset *sat_cli_dayset_collect(sat_cli_collect *c, const sat_digest_plan *plan,
                                       struct sat_anon *anon, char *const *paths, size_t npaths,
                                       const char *cmd, int *code);
sat_cli_dayset *sat_cli_dayset_partials(const sat_digest_plan *plan, char *const *paths,
                                        size_t npaths, const char *cmd, int *code);
void sat_cli_dayset_free(sat_cli_dayset *s); /* NULL ok */
/* Whether the inputs are partials: 1 all of them, 0 none, -1 a mix (said,
 * as a usage error of cmd). */
int sat_cli_are_partials(const char *cmd, char *const *paths, size_t npaths);
size_t sat_cli_dayset_n(const sat_cli_dayset *s);
uint64_t sat_cli_dayset_dropped(const sat_cli_dayset *s); /* days the split's bound left out */
/* Day i's name, date and rows (its server is the name shown). */
const struct sat_partial_day *sat_cli_dayset_meta(const sat_cli_dayset *s, size_t i);
/* Day i's analyzer set, unfinished: the split's, or loaded from its
 * partials and merged (held until the next take or release: one day's
 * analyzers at a time). NULL with d set. */
sat_multi *sat_cli_dayset_take(sat_cli_dayset *s, size_t i, sat_diag *d);
void sat_cli_dayset_release(sat_cli_dayset *s, size_t i);

/* Prints "satscope CMD: msg" on stderr and returns SAT_EXIT_USAGE. */
int sat_cli_usage_error(const char *cmd, const char *fmt, ...) SAT_PRINTF(2, 3);

/* CSVs of measured points `concurrency,throughput` (cmd_saturation.c): 1 if
 * path is one (by its name or its first line); reading one into a
 * saturation analyzer returns the exit code it deserves (0, 1 rejected
 * lines, said on stderr unless quiet; 3 unreadable) and counts the points. */
struct sat_saturation;
int sat_cli_points_csv(const char *path);
int sat_cli_read_points(const char *path, struct sat_saturation *s, int quiet, size_t *points);

#endif
