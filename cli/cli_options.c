/*
 * cli_options.c - one option table per command (cli.h sat_command.opts and
 * its groups) and everything made from it: the getopt_long parser every
 * command runs, --help, the man page satscope(1) and the bash completion.
 * Usage errors follow git and tcpdump: one line on stderr naming the command
 * and the option, a hint to --help, exit 2; the help itself only on request.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* access */

#include "cli.h"
#include "satscope/report.h"

#ifndef SAT_VERSION
#define SAT_VERSION "0.1.0"
#endif

#define MAX_OPTS 64
#define HELP_COLUMN 22 /* where the options' help starts in --help */

/* The options every command takes, listed last in its help. */
static const sat_cli_opt common_opts[] = {
    {"help", SAT_OPT_HELP, 'h', NULL, "this help (satscope help CMD: the same)", NULL},
    {"version", SAT_OPT_VERSION, 0, NULL, "the version of satscope", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

/* What every analysis command's report takes. */
static const sat_cli_opt report_opts[] = {
    {"wide", SAT_OPT_WIDE, 0, NULL, "text: lines as long as their content (default: 100 columns)",
     NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

/* The tables of a command, in help order: its own, its groups, the common ones. */
#define MAX_TABLES 6
static size_t cmd_tables(const sat_command *cmd, const sat_cli_opt *t[MAX_TABLES])
{
    size_t n = 0;
    if (cmd->opts)
        t[n++] = cmd->opts;
    if (cmd->groups & SAT_CLI_CACHE_OPTS)
        t[n++] = sat_cli_cache_opts;
    if (cmd->groups & SAT_CLI_REPORT_OPTS)
        t[n++] = report_opts;
    if (cmd->groups & SAT_CLI_INPUT_OPTS)
        t[n++] = sat_cli_collect_opts;
    if (cmd->groups & SAT_CLI_ANALYSIS_OPTS)
        t[n++] = sat_cli_analysis_opts;
    t[n++] = common_opts;
    return n;
}

/* `--csv NAME`: the word after --csv names a CSV table of the command when
 * the command has several and the word is not an option and no file here
 * (an input, then), and is one of the tables or holds no '/' or '.'; any
 * other name is a usage error listing them. 0, or -1 with a->exit set. */
static int csv_table_arg(sat_cli_args *a, int argc, char **argv)
{
    const char *const *names =
        a->cmd->csv_tables ? a->cmd->csv_tables : sat_csv_tables(a->cmd->name);
    if (!names || !a->collect || optind >= argc)
        return 0;
    const char *w = argv[optind];
    if (!w[0] || w[0] == '-' || access(w, F_OK) == 0)
        return 0;
    /* a table's path may hold dots ("top.clients"): those only by their name */
    for (size_t i = 0; strpbrk(w, "/.") && names[i]; i++)
        if (strcmp(names[i], w) == 0) {
            a->collect->csv_table = w;
            optind++;
            return 0;
        }
    if (strpbrk(w, "/."))
        return 0;
    char list[1024] = "";
    for (size_t i = 0; names[i]; i++) {
        if (strcmp(names[i], w) == 0) {
            a->collect->csv_table = w;
            optind++;
            return 0;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 names[i]);
    }
    a->exit = sat_cli_usage_error(a->cmd->name, "no CSV table '%s' (tables: %s)", w, list);
    return -1;
}

void sat_cli_args_init(sat_cli_args *a, const sat_command *cmd, sat_cli_collect *c)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->collect = c;
    a->fmt = SAT_REPORT_TEXT;
    a->exit = -1;
}

static const char *fmt_option(int fmt)
{
    return fmt == SAT_REPORT_JSON ? "--json" : fmt == SAT_REPORT_CSV ? "--csv" : "text";
}

int sat_cli_args_next(sat_cli_args *a, int argc, char **argv)
{
    struct option longopts[MAX_OPTS + 1];
    char shortopts[2 * MAX_OPTS + 2];
    size_t nl = 0, ns = 0;
    const sat_cli_opt *t[MAX_TABLES];
    size_t nt = cmd_tables(a->cmd, t);
    shortopts[ns++] = ':'; /* a missing value is told apart from an unknown option */
    for (size_t i = 0; i < nt; i++)
        for (const sat_cli_opt *o = t[i]; o->name && nl < MAX_OPTS; o++) {
            longopts[nl++] = (struct option){o->name, o->arg ? required_argument : no_argument,
                                             NULL, o->code};
            if (o->shortname) {
                shortopts[ns++] = o->shortname;
                if (o->arg)
                    shortopts[ns++] = ':';
            }
        }
    longopts[nl] = (struct option){NULL, 0, NULL, 0};
    shortopts[ns] = '\0';
    if (!a->started) {
        a->started = 1;
        optind = 1;
    }
    opterr = 0;
    const char *cmd = a->cmd->name;
    for (;;) {
        int opt = getopt_long(argc, argv, shortopts, longopts, NULL);
        switch (opt) {
        case -1:
            /* the HTTP format options say one thing together, known now */
            if (a->collect) {
                int r = sat_cli_http_settle(a->collect, cmd, argv + optind,
                                            optind < argc ? (size_t)(argc - optind) : 0);
                if (r)
                    a->exit = r;
            }
            return -1;
        case '?': {
            const char *bad = argv[optind - 1];
            if (optopt && optopt < 0x100) {
                a->exit = sat_cli_usage_error(cmd, "unknown option '-%c'", optopt);
                return -1;
            }
            /* getopt_long takes a unique prefix of a name; say which names a
             * shared prefix could be */
            char names[256] = "";
            size_t len = strcspn(bad + 2, "="), n = 0;
            for (size_t i = 0; i < nl && !strncmp(bad, "--", 2); i++)
                if (!strncmp(longopts[i].name, bad + 2, len) && n++ < 4)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s--%s",
                             names[0] ? ", " : "", longopts[i].name);
            if (n >= 2)
                a->exit = sat_cli_usage_error(cmd, "ambiguous option '%s' (%s%s)", bad, names,
                                              n > 4 ? ", ..." : "");
            else
                a->exit = sat_cli_usage_error(cmd, "unknown option '%s'", bad);
            return -1;
        }
        case ':':
            if (optopt && optopt < 0x100 && argv[optind - 1][1] != '-')
                a->exit = sat_cli_usage_error(cmd, "option '-%c' needs a value", optopt);
            else
                a->exit = sat_cli_usage_error(cmd, "option '%s' needs a value",
                                              argv[optind - 1]);
            return -1;
        case SAT_OPT_HELP:
            sat_cli_print_help(a->cmd, stdout);
            a->exit = SAT_EXIT_OK;
            return -1;
        case SAT_OPT_VERSION:
            printf("satscope %s\n", SAT_VERSION);
            a->exit = SAT_EXIT_OK;
            return -1;
        case SAT_OPT_JSON:
        case SAT_OPT_CSV: {
            int fmt = opt == SAT_OPT_JSON ? SAT_REPORT_JSON : SAT_REPORT_CSV;
            /* one output format per run: text, --json or --csv */
            if (a->fmt != SAT_REPORT_TEXT && a->fmt != fmt) {
                a->exit = sat_cli_usage_error(cmd, "%s and %s are mutually exclusive",
                                              fmt_option(a->fmt), fmt_option(fmt));
                return -1;
            }
            a->fmt = fmt;
            if (opt == SAT_OPT_CSV && csv_table_arg(a, argc, argv) < 0)
                return -1;
            continue;
        }
        case SAT_OPT_WIDE:
            if (a->collect)
                a->collect->wide = 1;
            continue;
        case SAT_OPT_CSV_DIR:
            if (a->fmt == SAT_REPORT_JSON) {
                a->exit = sat_cli_usage_error(cmd, "--json and --csv-dir are mutually exclusive");
                return -1;
            }
            a->fmt = SAT_REPORT_CSV;
            if (a->collect)
                a->collect->csv_dir = optarg;
            continue;
        default:
            if (a->cache) {
                int r = sat_cli_cache_option(a->cache, cmd, opt, optarg);
                if (r == 1)
                    continue;
                if (r != 0) {
                    a->exit = r;
                    return -1;
                }
            }
            if (a->collect) {
                int r = sat_cli_collect_option(a->collect, cmd, opt, optarg);
                if (r == 1)
                    continue;
                if (r != 0) {
                    a->exit = r;
                    return -1;
                }
            }
            return opt;
        }
    }
}

/* ---- --help ------------------------------------------------------------------- */

static void opt_label(const sat_cli_opt *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s%c%s--%s%s%s", o->shortname ? "-" : "", o->shortname ? o->shortname : ' ',
             o->shortname ? ", " : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (!o->shortname)
        memmove(buf, buf + 1, strlen(buf)); /* the placeholder blank */
}

static void print_opts(const sat_cli_opt *t, FILE *out)
{
    for (const sat_cli_opt *o = t; o->name; o++) {
        char label[128];
        opt_label(o, label, sizeof label);
        int w = fprintf(out, "  %s", label);
        if (w < HELP_COLUMN - 1)
            fprintf(out, "%*s", HELP_COLUMN - w, "");
        else
            fputs("  ", out);
        for (const char *p = o->help; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            fwrite(p, 1, len, out);
            fputc('\n', out);
            if (!nl)
                break;
            p = nl + 1;
            fprintf(out, "%*s", HELP_COLUMN, "");
        }
    }
}

void sat_cli_print_help(const sat_command *cmd, FILE *out)
{
    fprintf(out, "usage: satscope %s %s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "");
    if (cmd->about)
        fprintf(out, "\n%s\n", cmd->about);
    fputc('\n', out);
    const sat_cli_opt *t[MAX_TABLES];
    size_t nt = cmd_tables(cmd, t);
    for (size_t i = 0; i < nt; i++)
        print_opts(t[i], out);
    if (cmd->notes)
        fprintf(out, "\n%s\n", cmd->notes);
}

/* ---- satscope(1) ---------------------------------------------------------------- */

/* Text as roff: a backslash escaped, '-' as a minus sign in option-like words
 * (so that the man page can be searched and copied), a line that would start
 * with a request made literal, a blank line a new paragraph. */
static void roff_text(const char *s, FILE *out)
{
    int bol = 1;
    for (const char *p = s; *p; p++) {
        if (bol && *p == '\n') {
            fputs(".PP\n", out);
            continue;
        }
        if (bol && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        if (bol && *p == ' ') { /* an indented line keeps its break */
            fputs(".br\n", out);
            while (p[1] == ' ')
                p++;
            bol = 0;
            continue;
        }
        bol = *p == '\n';
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-' && (p == s || p[-1] == ' ' || p[-1] == '-' || p[-1] == '[' ||
                               p[-1] == '(' || p[-1] == '|'))
            fputs("\\-", out);
        else
            fputc(*p, out);
    }
    if (!bol)
        fputc('\n', out);
}

static void roff_opts(const sat_cli_opt *t, FILE *out)
{
    for (const sat_cli_opt *o = t; o->name; o++) {
        fputs(".TP\n", out);
        if (o->shortname)
            fprintf(out, "\\fB\\-%c\\fR, ", o->shortname);
        fputs("\\fB\\-\\-", out);
        for (const char *p = o->name; *p; p++)
            fputs(*p == '-' ? "\\-" : (char[2]){*p, 0}, out);
        fputs("\\fR", out);
        if (o->arg)
            fprintf(out, " \\fI%s\\fR", o->arg);
        fputc('\n', out);
        roff_text(o->help, out);
    }
}

/* EXAMPLES: the six everyday commands the README shows on the fixtures, here on a server's
 * own files (tests/cli/readme_examples.sh holds the two lists to the same commands and
 * options, in the same order). */
static const struct man_example {
    const char *what;
    const char *command;
} man_examples[] = {
    {"The post-mortem of an incident from its access logs, a capture and a core: what happened, "
     "when, the likely chain (-o x.pdf, x.eml, x.txt or - for the other forms).",
     "satscope report access* incident.pcap --crash-time 2025-06-09T14:24:10Z \\\n"
     "    --exe /usr/sbin/ns-slapd core.12345.zst -o postmortem.html"},
    {"Where the server's time went, by operation type (--by filter, client, binddn, base...).",
     "satscope etime /var/log/dirsrv/slapd-ex/access*"},
    {"Storms of client failures: when, how big, what rose before them, whether they outlived it.",
     "satscope storms /var/log/dirsrv/slapd-ex/access*"},
    {"TLS handshakes in a capture: full, resumed, failed, incomplete, and their CPU.",
     "satscope handshakes incident.pcap"},
    {"The nightly digest: each server's day against its baseline days.",
     "satscope report --kind digest ldap*/access* --baseline yesterday.sat \\\n"
     "    --baseline monday.sat -o today.html"},
    {"Entry, DN and DB cache sizes for target hit ratios, as an LDIF for ldapmodify.",
     "satscope cachesize access* --monitor before.ldif --monitor after.ldif \\\n"
     "    --target 0.95,0.99"},
};

/* ENVIRONMENT: every variable satscope reads, what it changes (tests/cli/install.sh holds
 * the list to the getenv calls of the sources). */
static const struct man_def {
    const char *term;
    const char *text;
} man_environment[] = {
    {"SAT_THREADS",
     "1: each input read, parsed and analysed on one thread. By default, with two CPUs or more, "
     "the analysis has a thread of its own and a 389 text log is parsed on two (-j still says "
     "how many inputs run at once)."},
    {"SAT_PARSE_THREADS",
     "1: a 389 text log parsed on one thread, the analysis still on its own (for comparisons)."},
    {"SAT_MALLOC_TUNE",
     "0: glibc's malloc left as it is. By default satscope executes itself again once at start "
     "with GLIBC_TUNABLES set: the heap grows in 32 MiB steps on transparent huge pages, one "
     "arena, big blocks from the heap (far fewer page faults)."},
    {"GLIBC_TUNABLES",
     "When set, satscope leaves glibc's malloc as it says (no tuning, no second execution)."},
    {"TMPDIR",
     "Where a compressed core file is decompressed to be read, as a file already unlinked "
     "(default /tmp)."},
    {"DEBUGINFOD_URLS",
     "Read by elfutils' libdwfl for cores: when set, debug files and executables missing here "
     "are asked of those servers. Unset it to stay offline."},
    {"SATSCOPE_CLICKHOUSE_PASSWORD",
     "export --clickhouse URL: the password of ClickHouse's user (sent as the "
     "X-ClickHouse-Key header), when --password-file is not given; never on the command "
     "line, where other users' ps would see it."},
    {"SOURCE_DATE_EPOCH",
     "report -o FILE.eml: the e-mail's Date: when --mail-date is not given, in seconds since "
     "1970 (the reproducible-builds convention); by default the time the report is made."},
};

/* FILES: where the Debian package puts the nightly run (packaging/). */
static const struct man_def man_files[] = {
    {"/etc/satscope/nightly.conf",
     "The nightly run's settings: the logs (shell patterns), the server's name, the partials' "
     "directory, a ClickHouse URL and a pseudonymisation key for the exported rows."},
    {"/lib/systemd/system/satscope-nightly.timer",
     "Starts satscope-nightly.service each night between 01:00 and 01:30 (enable it: "
     "systemctl enable --now satscope-nightly.timer)."},
    {"/lib/systemd/system/satscope-nightly.service",
     "Runs /usr/lib/satscope/satscope-nightly as the user satscope, sandboxed, writing only "
     "below /var/lib/satscope."},
    {"/usr/lib/satscope/satscope-nightly",
     "Yesterday's partial of the host's logs (satscope partial), and their rows to "
     "ClickHouse when a URL is set; SATSCOPE_NIGHTLY_DRY_RUN=1 prints the commands instead."},
    {"/var/lib/satscope/SERVER/YYYY-MM-DD.satp",
     "The partials, one per server and day, for the centre's report --kind digest."},
    {"/usr/share/satscope/clickhouse.sql",
     "ClickHouse's tables for the exported rows (the output of export --ddl)."},
    {"/usr/share/doc/satscope/",
     "fleet.md (the nightly run on a fleet), digest.md, clickhouse.md."},
    {"/usr/share/bash-completion/completions/satscope", "The bash completion."},
};

/* Terms and their text, as a tagged list. */
static void roff_defs(const struct man_def *d, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fputs(".TP\n\\fB", out);
        for (const char *p = d[i].term; *p; p++)
            fputs(*p == '-' ? "\\-" : (char[2]){*p, 0}, out);
        fputs("\\fR\n", out);
        roff_text(d[i].text, out);
    }
}

/* A command as roff no-fill text: every '-' a minus sign (so that it can be copied), a
 * backslash escaped. */
static void roff_command(const char *s, FILE *out)
{
    fputs(".PP\n.RS 4\n.nf\n", out);
    for (const char *p = s; *p; p++)
        fputs(*p == '-' ? "\\-" : *p == '\\' ? "\\e" : (char[2]){*p, 0}, out);
    fputs("\n.fi\n.RE\n", out);
}

void sat_cli_print_man(FILE *out)
{
    fprintf(out,
            ".\\\" satscope(1), written by `satscope --man` from the option tables of\n"
            ".\\\" the commands (cli/cli_options.c): the same text as their --help.\n"
            ".TH SATSCOPE 1 \"\" \"satscope %s\" \"User Commands\"\n"
            ".nh\n" /* no word cut at a line's end: names and options stay whole */
            ".SH NAME\n"
            "satscope \\- post\\-mortems, digests and cache sizing for directory and TLS servers\n"
            ".SH SYNOPSIS\n",
            SAT_VERSION);
    for (const sat_command *const *c = sat_commands; *c; c++) {
        fprintf(out, ".B satscope %s\n", (*c)->name);
        roff_text((*c)->synopsis ? (*c)->synopsis : "", out);
        fputs(".br\n", out);
    }
    fputs(".B satscope help\n.I COMMAND\n.br\n.B satscope \\-\\-version\n", out);
    fputs(".SH DESCRIPTION\n", out);
    roff_text("Post-mortems, digests and cache sizing for directory servers (389 DS, Red "
              "Hat/Sun/Oracle DS, OpenLDAP) from their access logs, packet captures and "
              "core files. Inputs may be logs (plain, .gz, .bz2, .xz, .zst, '-' for "
              "stdin; kinds detected by content), captures, cores or .sat traces.\n\n"
              "satscope help COMMAND prints the same text as satscope COMMAND --help.",
              out);
    fputs(".SH COMMANDS\n", out);
    for (const sat_command *const *c = sat_commands; *c; c++) {
        const sat_command *cmd = *c;
        fprintf(out, ".SS \"satscope %s\"\n", cmd->name);
        roff_text(cmd->summary, out);
        fputs(".PP\n", out);
        if (cmd->about)
            roff_text(cmd->about, out);
        if (cmd->opts && cmd->opts->name)
            roff_opts(cmd->opts, out);
        if (cmd->groups & SAT_CLI_REPORT_OPTS)
            roff_opts(report_opts, out);
        if (cmd->groups & SAT_CLI_INPUT_OPTS) {
            fputs(".PP\n", out);
            roff_text(cmd->groups & SAT_CLI_CACHE_OPTS
                          ? "And the cache options (CACHE OPTIONS), the input options (INPUT "
                            "OPTIONS), the analysis options (ANALYSIS OPTIONS), --help and "
                            "--version."
                      : cmd->groups & SAT_CLI_ANALYSIS_OPTS
                          ? "And the input options (INPUT OPTIONS), the analysis options "
                            "(ANALYSIS OPTIONS), --help and --version."
                          : "And the input options (INPUT OPTIONS), --help and --version.",
                      out);
        }
        if (cmd->notes) {
            fputs(".PP\n", out);
            roff_text(cmd->notes, out);
        }
    }
    fputs(".SH INPUT OPTIONS\n", out);
    roff_text("Every command that reads logs, captures or cores takes these:", out);
    roff_opts(sat_cli_collect_opts, out);
    fputs(".SH CACHE OPTIONS\n", out);
    roff_text("The commands that size the entry cache (cachesize, and the capacity of chart "
              "and report) take these: what the server's caches hold and how big its entries "
              "are, and how the miss-ratio curve is computed. The digest applies them to "
              "every server and day.",
              out);
    roff_opts(sat_cli_cache_opts, out);
    fputs(".SH ANALYSIS OPTIONS\n", out);
    roff_text("Every command that analyses its inputs takes these. Several inputs (files, "
              "rotated sets, .sat traces) are analysed at once, each on a thread of its own, "
              "and the results merged in input order: the output is the one pass's, byte for "
              "byte. A rotated set is one input; standard input, a directory or a pattern "
              "makes the run one pass.",
              out);
    roff_opts(sat_cli_analysis_opts, out);
    fputs(".SH COMMON OPTIONS\n", out);
    roff_opts(common_opts, out);
    fputs(".SH EXIT STATUS\n", out);
    roff_text("0 success; 1 the input was read but some of it was rejected (the count is "
              "reported, the rest is analysed); 2 usage error (one line on stderr naming "
              "the command); 3 an input could not be read at all, or satscope could not "
              "finish (out of memory, an output that could not be written): nothing of that run "
              "is then printed or published.",
              out);
    fputs(".SH ENVIRONMENT\n", out);
    roff_text("satscope reads these. TZ is not among them: times are shown in the inputs' own "
              "offsets, or in UTC with --utc.",
              out);
    roff_defs(man_environment, sizeof man_environment / sizeof man_environment[0], out);
    fputs(".SH FILES\n", out);
    roff_text("As the Debian package installs them:", out);
    roff_defs(man_files, sizeof man_files / sizeof man_files[0], out);
    fputs(".SH EXAMPLES\n", out);
    for (size_t i = 0; i < sizeof man_examples / sizeof man_examples[0]; i++) {
        if (i)
            fputs(".PP\n", out);
        roff_text(man_examples[i].what, out);
        roff_command(man_examples[i].command, out);
    }
}

/* ---- bash completion ------------------------------------------------------------ */

/* An option whose value names a file or a directory completes as one. */
static int arg_is_path(const char *arg)
{
    return arg && (strstr(arg, "FILE") || strstr(arg, "DIR") || strstr(arg, "TRACE"));
}

static void completion_opts(const sat_cli_opt *t, FILE *out)
{
    for (const sat_cli_opt *o = t; o->name; o++) {
        fprintf(out, " --%s", o->name);
        if (o->shortname)
            fprintf(out, " -%c", o->shortname);
    }
}

static void completion_values(const sat_cli_opt *t, FILE *out)
{
    for (const sat_cli_opt *o = t; o->name; o++) {
        if (!o->arg)
            continue;
        if (o->values)
            fprintf(out, "        --%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return;;\n",
                    o->name, o->values);
        else if (!arg_is_path(o->arg))
            fprintf(out, "        --%s) COMPREPLY=(); return;;\n", o->name);
        else
            fprintf(out, "        --%s) COMPREPLY=($(compgen -%c -- \"$cur\")); return;;\n",
                    o->name, !strcmp(o->arg, "DIR") ? 'd' : 'f');
    }
}

void sat_cli_print_completion(FILE *out)
{
    fputs("# bash completion for satscope, written by `satscope --completion` from the\n"
          "# commands' option tables (cli/cli_options.c).\n"
          "_satscope()\n"
          "{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local commands='",
          out);
    for (const sat_command *const *c = sat_commands; *c; c++)
        fprintf(out, "%s ", (*c)->name);
    fputs("help'\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$commands --help --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    local opts=\n"
          "    case ${COMP_WORDS[1]} in\n"
          "    help)\n"
          "        [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
          "        return;;\n",
          out);
    for (const sat_command *const *c = sat_commands; *c; c++) {
        const sat_command *cmd = *c;
        const sat_cli_opt *t[MAX_TABLES];
        size_t nt = cmd_tables(cmd, t);
        fprintf(out, "    %s)\n        case $prev in\n", cmd->name);
        for (size_t i = 0; i < nt; i++)
            completion_values(t[i], out);
        fputs("        esac\n        opts='", out);
        for (size_t i = 0; i < nt; i++)
            completion_opts(t[i], out);
        fputs("';;\n", out);
    }
    fputs("    *) return;;\n"
          "    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -F _satscope satscope\n",
          out);
}

/* ---- messages naming a path ----------------------------------------------------- */

void sat_cli_path_error(const char *cmd, const char *path, const char *where, const char *msg)
{
    size_t n = path ? strlen(path) : 0;
    /* the library's `where` usually begins with the path ("t.sat: block 3",
     * or the temporary file beside it, "t.sat.XXXXXX.partial") */
    int named = where && n && !strncmp(where, path, n);
    fprintf(stderr, "satscope %s: ", cmd);
    if (path && *path && !named)
        fprintf(stderr, "%s: ", path);
    if (where && *where)
        fprintf(stderr, "%s: ", where);
    fprintf(stderr, "%s\n", msg && *msg ? msg : "error");
}
