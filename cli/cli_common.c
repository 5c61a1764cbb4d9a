/*
 * cli_common.c - the command table and what commands share: a collection that
 * tells the user what it rejected (file:line: reason) and what it could not
 * read, the exit code that follows, and time-option parsing.
 */
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "satscope/escape.h"
#include "satscope/analyze.h"
#include "satscope/chart.h"
#include "satscope/report_doc.h"
#include "satscope/parse.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_collect, sat_cmd_info, sat_cmd_verify, sat_cmd_export, sat_cmd_etime,
    sat_cmd_handshakes, sat_cmd_saturation, sat_cmd_storms, sat_cmd_crashes, sat_cmd_cachesize,
    sat_cmd_timeline, sat_cmd_chart, sat_cmd_report, sat_cmd_partial;

const sat_command *const sat_commands[] = {
    &sat_cmd_collect,
    &sat_cmd_info,
    &sat_cmd_verify,
    &sat_cmd_export,
    &sat_cmd_etime,
    &sat_cmd_handshakes,
    &sat_cmd_saturation,
    &sat_cmd_storms,
    &sat_cmd_crashes,
    &sat_cmd_cachesize,
    &sat_cmd_timeline,
    &sat_cmd_chart,
    &sat_cmd_report,
    &sat_cmd_partial,
    NULL,
};

static int stdout_said; /* the failure to write standard output was said */

void sat_cli_stdout_failed(const char *cmd, int err)
{
    if (stdout_said)
        return;
    stdout_said = 1;
    fprintf(stderr, "satscope%s%s: standard output: writing failed: %s\n", cmd ? " " : "",
            cmd ? cmd : "", strerror(err ? err : EIO));
}

int sat_cli_finish_stdout(const char *cmd, int code)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int err = errno;
    if ((!failed && !ferror(stdout)) || (code != SAT_EXIT_OK && code != SAT_EXIT_REJECTS))
        return code; /* written, or the command failed and said why itself */
    sat_cli_stdout_failed(cmd, err);
    return SAT_EXIT_FAILED;
}

int sat_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "satscope %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see satscope %s --help)\n", cmd);
    return SAT_EXIT_USAGE;
}

/* ---- collection with diagnostics ------------------------------------------------ */

/* The first rejected lines, file:line: reason, shown after the collection;
 * the same count over all the runs of a parallel analysis, in input order. */
#define SHOWN_REJECTS SAT_CLI_SHOWN_REJECTS

typedef struct tee_ctx {
    const sat_event_sink *inner;
    sat_cli_part *part;
    char **paths; /* by source id (minus the run's base), for naming rejects */
    size_t npaths;
} tee_ctx;

static char *dup_str(sat_str s)
{
    char *p = malloc((size_t)s.len + 1);
    if (p) {
        if (s.len)
            memcpy(p, s.ptr, s.len);
        p[s.len] = '\0';
    }
    return p;
}

static void tee_reject(tee_ctx *t, const sat_reject *r)
{
    sat_cli_part *pt = t->part;
    if (pt->nshown < SHOWN_REJECTS) {
        sat_cli_shown_reject *s = &pt->shown[pt->nshown++];
        s->source = r->source - pt->source_base;
        s->line_no = r->line_no;
        s->reason = dup_str(r->reason);
        s->excerpt = dup_str(r->excerpt);
    }
}

static void tee_source(tee_ctx *t, const sat_source *s)
{
    if (s->first_ts || s->last_ts)
        t->part->timed_sources++;
    uint32_t id = s->id - t->part->source_base;
    if (id < 1u << 20 && id >= t->npaths) {
        size_t n = (size_t)id + 1;
        char **np = realloc(t->paths, n * sizeof *np);
        if (np) {
            memset(np + t->npaths, 0, (n - t->npaths) * sizeof *np);
            t->paths = np;
            t->npaths = n;
        }
    }
    if (id < t->npaths && !t->paths[id])
        t->paths[id] = dup_str(s->path);
}

/* Sources and rejects are taken whatever the inner sink wants (they name the
 * inputs and the lines reported); every other row counts as an event. */
/* Out of line: inlined, its registers would be saved for every event row. */
__attribute__((noinline)) static int tee_note(tee_ctx *t, int table, const void *row)
{
    if (table == SAT_TABLE_SOURCE)
        tee_source(t, row);
    else
        tee_reject(t, row);
    return sat_sink_emit(t->inner, table, row);
}

static int tee_row(void *vctx, int table, const void *row)
{
    tee_ctx *t = vctx;
    if (table == SAT_TABLE_SOURCE || table == SAT_TABLE_REJECT)
        return tee_note(t, table, row);
    /* the tee takes no other table than the inner sink: straight on */
    t->part->events++;
    return t->inner->on_row(t->inner->ctx, table, row);
}

static void warn_out(void *ctx, const char *where, const char *msg)
{
    sat_cli_part *p = ctx;
    p->warnings++;
    if (!p->quiet)
        fprintf(p->warn_out ? p->warn_out : stderr, "satscope: %s%s%s\n", where ? where : "",
                where && *where ? ": " : "", msg);
}

int sat_cli_collect_part(const sat_cli_collect *c, char *const *paths, size_t npaths,
                         const sat_event_sink *sink, sat_cli_part *part)
{
    tee_ctx t;
    memset(&t, 0, sizeof t);
    t.inner = sink;
    t.part = part;
    part->quiet = c->quiet;

    sat_event_sink tee = {&t,
                          (sink->on_row ? sink->tables : 0) | SAT_TABLE_BIT(SAT_TABLE_SOURCE) |
                              SAT_TABLE_BIT(SAT_TABLE_REJECT),
                          tee_row};
    sat_collect_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.format = c->format;
    opts.log_format = c->log_format;
    /* one progress line for one run; runs in parallel would overwrite it */
    opts.progress = !c->quiet && !part->warn_out && isatty(STDERR_FILENO);
    opts.from_ns = c->from_ns;
    opts.to_ns = c->to_ns;
    opts.year = c->year;
    opts.no_filter_shapes = c->no_filter_shapes;
    opts.max_open = c->max_open;
    opts.max_pending = c->max_pending;
    opts.live_iface = c->live_iface;
    opts.live_filter = c->live_filter;
    opts.live_duration = c->live_duration;
    opts.live_count = c->live_count;
    opts.stop = c->stop;
    opts.ldap_port = c->ldap_port;
    opts.exe = c->exe;
    opts.debuginfo_path = c->debuginfo_path;
    opts.sysroot = c->sysroot;
    opts.crash_time = c->crash_time;
    opts.no_source_lines = c->no_source_lines;
    opts.warn = warn_out;
    opts.warn_ctx = part;
    opts.source_base = part->source_base;
    opts.server_base = part->server_base;
    opts.server_names = c->naming;
    opts.nserver_names = c->nnaming;

    /* With two cores or more the consumer (analyzer or trace encoder) runs on
     * its own thread, and a 389 text log is parsed on two threads and joined
     * in order: the three share the cores as the work comes. SAT_THREADS=1
     * keeps everything on one thread; SAT_PARSE_THREADS=1 parses on one
     * (the consumer still has its own: for comparisons). A run that is one of
     * several in parallel (part->one_thread) has the cores shared already. */
    sat_sink_pipe *pipe = NULL;
    const char *threads = getenv("SAT_THREADS");
    const char *parse_threads = getenv("SAT_PARSE_THREADS");
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !(threads && !strcmp(threads, "1")) &&
        !part->one_thread) {
        pipe = sat_sink_pipe_create(sink);
        opts.parse_threads = parse_threads && !strcmp(parse_threads, "1") ? 1 : 2;
    }
    sat_event_sink piped;
    if (pipe) {
        piped = sat_sink_pipe_sink(pipe);
        t.inner = &piped;
    }

    memset(&part->diag, 0, sizeof part->diag);
    memset(&part->stats, 0, sizeof part->stats);
    int rc = sat_collect_run((const char *const *)paths, npaths, &opts, &tee, &part->stats,
                             &part->diag);
    int prc = sat_sink_pipe_close(pipe);
    if (prc < 0 && rc >= 0) {
        rc = prc;
        sat_diag_set(&part->diag, prc, "", "%s", sat_strerror(prc));
    }
    part->rc = rc;
    /* the rejects named now: the paths are this run's */
    for (size_t i = 0; i < part->nshown; i++) {
        sat_cli_shown_reject *r = &part->shown[i];
        const char *path = r->source < t.npaths && t.paths[r->source] ? t.paths[r->source] : "?";
        r->path = strdup(path);
    }
    for (size_t i = 0; i < t.npaths; i++)
        free(t.paths[i]);
    free(t.paths);
    return rc;
}

void sat_cli_part_clear(sat_cli_part *p)
{
    for (size_t i = 0; i < p->nshown; i++) {
        free(p->shown[i].reason);
        free(p->shown[i].excerpt);
        free(p->shown[i].path);
    }
    p->nshown = 0;
}

/* The sums of the runs' stats (every field a count, or a flag summed). */
static void stats_add(sat_collect_stats *into, const sat_collect_stats *from)
{
    uint64_t *a = (uint64_t *)into;
    const uint64_t *b = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *into / sizeof(uint64_t); i++)
        a[i] += b[i];
    into->next_source = from->next_source;
    into->next_server = from->next_server;
}

/* What a bound of the joiner cost: "N requests ended unanswered: more than
 * M awaiting their RESULT at once (...); raise --max-pending". */
static void say_bound(uint64_t n, const char *noun, const char *what, size_t bound,
                      const char *held, const char *option)
{
    if (n)
        fprintf(stderr, "satscope: %llu %s%s %s: more than %zu %s; raise --%s\n",
                (unsigned long long)n, noun, n == 1 ? "" : "s", what, bound, held, option);
}

/* Text from the inputs (a path, a reason, a rejected line) on standard error,
 * its controls escaped (satscope/escape.h). */
static void put_escaped(const char *s)
{
    if (s)
        sat_escape_write(stderr, s, strlen(s), 0);
}

int sat_cli_collect_report(sat_cli_collect *c, sat_cli_part *const *parts, size_t nparts)
{
    sat_collect_stats st;
    memset(&st, 0, sizeof st);
    int rc = SAT_OK;
    size_t nshown = 0;
    c->events = 0;
    c->timed_sources = 0;
    for (size_t p = 0; p < nparts; p++) {
        stats_add(&st, &parts[p]->stats);
        c->events += parts[p]->events;
        c->timed_sources += parts[p]->timed_sources;
        if (parts[p]->rc < 0 && rc >= 0)
            rc = parts[p]->rc;
        if (parts[p]->rc == SAT_E_NOMEM)
            c->failed = SAT_E_NOMEM;
    }
    c->stats = st;
    if (!c->quiet) {
        for (size_t p = 0; p < nparts; p++)
            for (size_t i = 0; i < parts[p]->nshown && nshown < SHOWN_REJECTS; i++, nshown++) {
                const sat_cli_shown_reject *s = &parts[p]->shown[i];
                /* the path, the reason and the line hold the input's bytes:
                 * shown escaped, never a control on the terminal */
                fputs("satscope: ", stderr);
                put_escaped(s->path ? s->path : "?");
                fprintf(stderr, ":%llu: rejected: ", (unsigned long long)s->line_no);
                put_escaped(s->reason);
                fputs(": ", stderr);
                put_escaped(s->excerpt);
                fputc('\n', stderr);
            }
        say_bound(st.conns_evicted, "connection", "ended before their close line",
                  c->max_open ? c->max_open : (size_t)SAT_JOIN_MAX_OPEN_DEFAULT,
                  "held at once (closes missing from the log?)", "max-open");
        say_bound(st.ops_evicted, "request", "ended unanswered",
                  c->max_pending ? c->max_pending : (size_t)SAT_JOIN_MAX_PENDING_DEFAULT,
                  "awaiting their RESULT at once (RESULTs missing from the log?)", "max-pending");
        /* a capture's lines are its packets (sat_source.lines) */
        if (st.rejects)
            fprintf(stderr, "satscope: %llu of %llu lines rejected%s; %s\n",
                    (unsigned long long)st.rejects, (unsigned long long)(st.lines + st.packets),
                    st.rejects > nshown ? " (the first shown above)" : "",
                    c->events ? "the rest was analysed" : "nothing was analysed");
        /* Input problems were already warned about one by one. */
        for (size_t p = 0; p < nparts; p++) {
            const sat_cli_part *pt = parts[p];
            if (pt->rc < 0 && pt->diag.msg[0] && pt->rc != SAT_E_STOP && pt->rc != SAT_E_NOMEM &&
                pt->warnings == 0) {
                fputs("satscope: ", stderr);
                put_escaped(pt->diag.where);
                fputs(pt->diag.where[0] ? ": " : "", stderr);
                put_escaped(pt->diag.msg);
                fputc('\n', stderr);
            }
        }
    }
    if (c->failed)
        return SAT_EXIT_FAILED;
    if (st.unreadable ||
        (rc < 0 && st.lines == 0 && st.traces == 0 && st.packets == 0 && st.cores == 0))
        return SAT_EXIT_UNREADABLE;
    if (st.rejects || st.truncated || st.damaged_blocks || st.damaged_headers || rc < 0)
        return SAT_EXIT_REJECTS;
    return SAT_EXIT_OK;
}

int sat_cli_collect_run(sat_cli_collect *c, char *const *paths, size_t npaths,
                        const sat_event_sink *sink)
{
    sat_server_naming *names = NULL;
    size_t nnames = 0;
    if (!c->naming && sat_cli_server_names(c, paths, npaths, &names, &nnames) != SAT_OK)
        return sat_cli_fail(c->name ? c->name : "collect", SAT_E_NOMEM, "nothing written");
    if (names) { /* this collection's (sat_cli_collect_into may have set them) */
        c->naming = names;
        c->nnaming = nnames;
    }
    sat_cli_part part;
    memset(&part, 0, sizeof part);
    sat_cli_collect_part(c, paths, npaths, sink, &part);
    sat_cli_part *one = &part;
    int code = sat_cli_collect_report(c, &one, 1);
    sat_cli_part_clear(&part);
    if (names) {
        sat_cli_server_names_free(names, nnames);
        c->naming = NULL;
        c->nnaming = 0;
    }
    return code;
}

/* The input options: text for a help column 22 wide (lines up to 58). */
const sat_cli_opt sat_cli_collect_opts[] = {
    {"format", SAT_OPT_FORMAT, 0, "NAME",
     "force a log format: 389-text, 389-json, openldap, http",
     "389-text 389-json openldap http"},
    {"log-format", SAT_OPT_LOG_FORMAT, 0, "DEF",
     "HTTP access logs in the server's own format: an\n"
     "nginx log_format body ('$remote_addr ... $request_time'),\n"
     "an Apache LogFormat or a Tomcat pattern ('%h %t \"%r\" %D'),\n"
     "told apart by syntax, or a preset: combined, common,\n"
     "nginx-combined, apache-combined, tomcat-combined, ...\n"
     "(default: the standard formats are detected); with\n"
     "--log-format-file: the NAME of a definition in FILE",
     "combined common nginx-combined nginx-main apache-common apache-combined "
     "apache-vhost_combined tomcat-common tomcat-combined"},
    {"log-format-file", SAT_OPT_LOG_FORMAT_FILE, 0, "FILE",
     "HTTP access logs in a format defined in the server's\n"
     "configuration file (nginx.conf log_format, Apache\n"
     "LogFormat/CustomLog, Tomcat server.xml AccessLogValve):\n"
     "the one --log-format NAME names (a format's or an\n"
     "access log file's name), else the one the inputs' file\n"
     "names are logged with, else the only one", NULL},
    {"pattern", SAT_OPT_PATTERN, 0, "REGEX",
     "HTTP access logs read with a PCRE2 pattern whose named\n"
     "groups are the fields: (?<time>..) (?<status>..)\n"
     "(?<rt_ms>..) ... (the names: docs/http.md)", NULL},
    {"from", SAT_OPT_FROM, 0, "TIME", "only events from TIME on (ISO-8601 UTC or epoch s)", NULL},
    {"to", SAT_OPT_TO, 0, "TIME", "only events before TIME", NULL},
    {"year", SAT_OPT_YEAR, 0, "YYYY",
     "year of syslog timestamps, which carry none (default:\n"
     "each file's modification year)", NULL},
    {"ldap-port", SAT_OPT_LDAP_PORT, 0, "N",
     "captures: decode port N as LDAP whatever its bytes\n"
     "look like (LDAP is otherwise found by content)", NULL},
    {"exe", SAT_OPT_EXE, 0, "FILE",
     "cores: the executable that crashed (else found by\n"
     "the core's paths and build-ids)", NULL},
    {"debuginfo-path", SAT_OPT_DEBUGINFO_PATH, 0, "DIRS",
     "cores: ':'-separated directories of debug files\n"
     "(.build-id/xx/yyyy.debug, NAME.debug) and module copies", NULL},
    {"sysroot", SAT_OPT_SYSROOT, 0, "DIR", "cores: look up the paths the core names below DIR",
     NULL},
    {"server", SAT_OPT_SERVER, 0, "NAME",
     "the server the inputs were read from, whatever their\n"
     "logs say; NAME=PATH names that input (repeat for\n"
     "several); else a log's header names it, or the\n"
     "directory of inputs sharing a file name, or its path", NULL},
    {"crash-time", SAT_OPT_CRASH_TIME, 0, "T",
     "cores: when they crashed, RFC 3339\n"
     "(2025-06-09T14:24:16.7Z, +02:00): a core holds no\n"
     "clock; else the time in its file name (core_pattern\n"
     "time field), a log line naming its pid, or its file's\n"
     "modification time, in that order", NULL},
    {"no-source-lines", SAT_OPT_NO_SOURCE_LINES, 0, NULL,
     "cores: no file:line for frames (a C library's\n"
     "compressed debug info, libc6-dbg's, costs ~50 ms to\n"
     "inflate per run)", NULL},
    {"max-open", SAT_OPT_MAX_OPEN, 0, "N",
     "LDAP logs: connections held at most per server\n"
     "(default 131072, ~1 KB each); past it the oldest is\n"
     "ended as unclosed, and the count said", NULL},
    {"max-pending", SAT_OPT_MAX_PENDING, 0, "N",
     "LDAP logs: requests awaiting their RESULT held at most\n"
     "per server (default 65536, ~2 KB each); past it the\n"
     "oldest is ended as unanswered, and the count said", NULL},
    {"quiet", SAT_OPT_QUIET, 'q', NULL, "no summary or warnings on stderr", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

int sat_cli_collect_option(sat_cli_collect *c, const char *cmd, int opt, const char *arg)
{
    switch (opt) {
    case SAT_OPT_FORMAT:
        /* a usage error here, not an unreadable input later */
        if (!sat_log_format_by_name(arg)) {
            char names[256] = "";
            for (const sat_log_format *const *f = sat_log_formats(); *f; f++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         names[0] ? ", " : "", (*f)->name);
            return sat_cli_usage_error(cmd, "unknown --format '%s' (one of %s)", arg, names);
        }
        if (c->log_format && strcmp(arg, "http"))
            return sat_cli_usage_error(cmd, "--log-format reads HTTP logs: --format %s "
                                            "contradicts it", arg);
        c->format = arg;
        return 1;
    case SAT_OPT_LOG_FORMAT:
        if (c->format && strcmp(c->format, "http"))
            return sat_cli_usage_error(cmd, "--log-format reads HTTP logs: --format %s "
                                            "contradicts it", c->format);
        /* checked once every option is read: with --log-format-file it is
         * a name in FILE (sat_cli_http_settle) */
        c->log_format = arg;
        return 1;
    case SAT_OPT_LOG_FORMAT_FILE:
        c->log_format_file = arg;
        return 1;
    case SAT_OPT_PATTERN:
        c->log_pattern = arg;
        return 1;
    case SAT_OPT_FROM:
        if (sat_cli_parse_time(arg, &c->from_ns))
            return sat_cli_usage_error(cmd, "bad --from time '%s'", arg);
        return 1;
    case SAT_OPT_TO:
        if (sat_cli_parse_time(arg, &c->to_ns))
            return sat_cli_usage_error(cmd, "bad --to time '%s'", arg);
        return 1;
    case SAT_OPT_YEAR: {
        char *end;
        long y = strtol(arg, &end, 10);
        if (*end || y < 1970 || y > 2261)
            return sat_cli_usage_error(cmd, "bad --year '%s'", arg);
        c->year = (int)y;
        return 1;
    }
    case SAT_OPT_LDAP_PORT: {
        char *end;
        long port = strtol(arg, &end, 10);
        if (*end || port < 1 || port > 65535)
            return sat_cli_usage_error(cmd, "bad --ldap-port '%s'", arg);
        c->ldap_port = (uint16_t)port;
        return 1;
    }
    case SAT_OPT_MAX_OPEN:
    case SAT_OPT_MAX_PENDING: {
        double n;
        if (sat_cli_parse_number(arg, 16, 1e8, &n) || n != (double)(size_t)n)
            return sat_cli_usage_error(cmd, "bad --%s '%s' (a whole number, 16 to 100000000)",
                                       opt == SAT_OPT_MAX_OPEN ? "max-open" : "max-pending", arg);
        *(opt == SAT_OPT_MAX_OPEN ? &c->max_open : &c->max_pending) = (size_t)n;
        return 1;
    }
    case SAT_OPT_QUIET:
        c->quiet = 1;
        return 1;
    case SAT_OPT_JOBS:
        return sat_cli_parse_jobs(cmd, arg, c) ? SAT_EXIT_USAGE : 1;
    case SAT_OPT_EXE:
        if (access(arg, R_OK) != 0)
            return sat_cli_usage_error(cmd, "--exe %s: %s", arg, strerror(errno));
        c->exe = arg;
        return 1;
    case SAT_OPT_DEBUGINFO_PATH:
        c->debuginfo_path = arg;
        return 1;
    case SAT_OPT_SYSROOT: {
        struct stat st;
        if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
            return sat_cli_usage_error(cmd, "--sysroot %s: not a directory", arg);
        c->sysroot = arg;
        return 1;
    }
    case SAT_OPT_NO_SOURCE_LINES:
        c->no_source_lines = 1;
        return 1;
    case SAT_OPT_SERVER:
        return sat_cli_server_option(c, cmd, arg);
    case SAT_OPT_CRASH_TIME:
        if (sat_cli_parse_rfc3339(arg, &c->crash_time) < 0)
            return sat_cli_usage_error(cmd, "bad --crash-time '%s' (RFC 3339, with a zone: "
                                            "2025-06-09T14:24:16Z, 2025-06-09T16:24:16.5+02:00)",
                                       arg);
        return 1;
    default:
        return 0;
    }
}

int sat_cli_analyze_args(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                         int argc, char **argv)
{
    if (optind >= argc)
        return sat_cli_usage_error(name, "no input given");
    return sat_cli_analyze(c, name, opts, fmt, argv + optind, (size_t)(argc - optind));
}

int sat_cli_render_result(const sat_cli_collect *c, sat_result *res, int fmt,
                          int (*text)(sat_result *res, sat_text *t))
{
    const char *name = res ? sat_result_command(res) : c->name ? c->name : "?";
    if (!res || sat_result_status(res) != SAT_OK)
        return sat_cli_fail(name, SAT_E_NOMEM, NULL), SAT_E_NOMEM;
    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    if (fmt == SAT_REPORT_CSV && c->csv_dir) {
        sat_cli_out co;
        sat_cli_out_init(&co, c->inputs, c->ninputs, 0, "the CSV table");
        int rc = sat_result_csv_dir(res, c->csv_dir, &co.o, &diag);
        sat_cli_out_free(&co);
        if (rc == SAT_E_NOMEM)
            sat_cli_fail(name, rc, NULL);
        else if (rc < 0)
            sat_cli_path_error(name, NULL, diag.where, diag.msg);
        return rc < 0 ? rc : 0;
    }
    /* Standard output gets the whole rendering or nothing: it is made in
     * memory first, so a failure half way prints no figure. */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return sat_cli_fail(name, SAT_E_NOMEM, NULL), SAT_E_NOMEM;
    int rc;
    if (fmt == SAT_REPORT_JSON) {
        rc = sat_result_json(res, m, &diag);
    } else if (fmt == SAT_REPORT_CSV) {
        rc = sat_result_csv(res, c->csv_table, m, &diag);
    } else {
        sat_text t;
        sat_text_init(&t, m, c->wide);
        rc = text(res, &t);
        if (rc >= 0)
            rc = sat_text_finish(&t);
        if (rc < 0)
            snprintf(diag.msg, sizeof diag.msg, "%s", sat_strerror(rc));
    }
    if (fclose(m) != 0 && rc >= 0)
        rc = SAT_E_NOMEM;
    if (rc >= 0 && len && (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)) {
        sat_cli_stdout_failed(name, errno);
        free(buf);
        return SAT_E_IO;
    }
    free(buf);
    if (rc == SAT_E_NOMEM) {
        sat_cli_fail(name, rc, NULL);
        return rc;
    }
    if (rc < 0) {
        sat_cli_path_error(name, NULL, diag.where, diag.msg);
        return rc;
    }
    return 0;
}

/* An analyzer's text: its sections (report/sections/), as a report embeds
 * them, every row of their tables. */
static int text_of_sections(sat_result *res, sat_text *t)
{
    sat_report *doc = sat_report_sections(res);
    if (!doc)
        return SAT_E_NOMEM;
    sat_report_render_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.wide = t->width == 0;
    ro.table_rows = SIZE_MAX;
    int rc = sat_report_renderer_for("-")->render(doc, &ro, t->out, NULL);
    sat_report_free(doc);
    return rc;
}

/* One JSON, CSV and text path for every command: the result's sections. */
int sat_cli_render(const sat_cli_collect *c, const sat_analyzer *a, const void *obj, int fmt)
{
    sat_result *res = sat_result_new(a->name);
    if (res && a->result(obj, res) < 0) {
        sat_result_free(res);
        res = NULL;
    }
    int rc = sat_cli_render_result(c, res, fmt, text_of_sections);
    sat_result_free(res);
    return rc;
}

int sat_cli_analyze(sat_cli_collect *c, const char *name, const void *opts, int fmt,
                    char *const *paths, size_t npaths)
{
    const sat_analyzer *a = sat_analyzer_find(name);
    if (!a || !a->result) {
        fprintf(stderr, "satscope %s: no such analyzer or report\n", name);
        return SAT_EXIT_USAGE;
    }
    void *obj = a->create(opts);
    if (!obj)
        return sat_cli_fail(name, SAT_E_NOMEM, NULL);
    c->inputs = paths;
    c->ninputs = npaths;
    c->name = name;
    int code = sat_cli_collect_into(c, a, opts, obj, paths, npaths);
    if (c->failed) {
        a->free(obj);
        return sat_cli_fail(name, c->failed, NULL);
    }
    /* an empty log is a valid input (an empty report); nothing readable is not */
    if (code == SAT_EXIT_UNREADABLE && c->stats.lines == 0 && c->stats.traces == 0 &&
        c->stats.cores == 0) {
        a->free(obj);
        fprintf(stderr, "satscope %s: nothing could be read\n", name);
        return SAT_EXIT_UNREADABLE;
    }
    if (code != SAT_EXIT_UNREADABLE && sat_cli_no_events(c, name, paths, npaths)) {
        a->free(obj);
        return code;
    }
    if (a->finish(obj) < 0) {
        a->free(obj);
        return sat_cli_fail(name, SAT_E_NOMEM, NULL);
    }
    int rr = sat_cli_render(c, a, obj, fmt);
    if (rr < 0) /* an output refused (a symlink at --csv-dir): the user's to mend */
        code = rr == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_FAILED;
    if (fflush(stdout) != 0)
        code = SAT_EXIT_UNREADABLE;
    a->free(obj);
    return code;
}

int sat_cli_fail(const char *cmd, int err, const char *what)
{
    fprintf(stderr, "satscope %s: %s; %s\n", cmd, err == SAT_E_NOMEM ? "out of memory" : sat_strerror(err),
            what ? what : "nothing written");
    return SAT_EXIT_FAILED;
}

int sat_cli_no_events(const sat_cli_collect *c, const char *cmd, char *const *paths,
                      size_t npaths)
{
    int ranged = c->from_ns || c->to_ns;
    if (c->events || (c->timed_sources && !ranged) || c->stats.interrupted)
        return 0;
    if (c->quiet)
        return 1;
    fprintf(stderr, "satscope %s: ", cmd);
    for (size_t i = 0; i < npaths && i < 3; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", !strcmp(paths[i], "-") ? "standard input"
                                                                     : paths[i]);
    if (npaths > 3)
        fprintf(stderr, " and %zu more", npaths - 3);
    fprintf(stderr, " %s no events%s\n", npaths == 1 ? "holds" : "hold",
            ranged ? " in the --from/--to range" : "");
    return 1;
}

sat_dur_ns sat_cli_parse_duration(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return -1;
    double mul;
    if (!*end || !strcmp(end, "s"))
        mul = 1e9;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "m"))
        mul = 60e9;
    else if (!strcmp(end, "h"))
        mul = 3600e9;
    else
        return -1;
    double ns = v * mul;
    return ns >= 1e3 && ns < 1e18 ? (sat_dur_ns)ns : -1;
}

int sat_cli_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int sat_cli_parse_top(const char *cmd, const char *arg, size_t *out)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (*end || n < 1 || n > 100000)
        return sat_cli_usage_error(cmd, "bad --top '%s'", arg);
    *out = (size_t)n;
    return 0;
}

/* ---- time options --------------------------------------------------------------- */

/* Both read through the parser's RFC 3339 reader (parse.h), with the flags
 * that keep what they have always taken, strptime(3)'s liberties included. */
int sat_cli_parse_time(const char *s, sat_ts_ns *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s && *end == '\0') { /* epoch seconds */
        if (errno || v > INT64_MAX / 1000000000LL || v < INT64_MIN / 1000000000LL)
            return -1;
        *out = (sat_ts_ns)v * 1000000000LL;
        return 0;
    }
    int32_t off;
    return sat_parse_rfc3339(s, strlen(s), SAT_TIME_STRPTIME | SAT_TIME_RANGE_FORMS, out, &off,
                             NULL) == SAT_OK
               ? 0
               : -1;
}

int sat_cli_parse_rfc3339(const char *s, sat_ts_ns *out)
{
    sat_ts_ns ts;
    int32_t off;
    if (sat_parse_rfc3339(s, strlen(s), SAT_TIME_STRPTIME | SAT_TIME_LOWER_T | SAT_TIME_ZONE_COLON,
                          &ts, &off, NULL) != SAT_OK)
        return -1;
    /* the time as written (before its offset) must be after 1970-01-01T00:00:00 */
    int64_t secs = ts / 1000000000LL - (ts % 1000000000LL < 0);
    if (secs + off <= 0)
        return -1;
    *out = ts;
    return 0;
}

const void *sat_cli_chart_opts(const char *name)
{
    static const sat_timeline_opts timeline = {SAT_CHART_WINDOWS};
    return name && strcmp(name, "timeline") == 0 ? &timeline : NULL;
}
