/*
 * cmd_saturation.c - `satscope saturation INPUT... [--window DUR] [--json|--csv]`
 * (issue 4): throughput vs concurrency per window (Little's law) from LDAP
 * logs, captures or traces, and the Universal Scalability Law fit: where the
 * server peaks and how close it runs to it.
 *
 * Inputs may also be CSVs of measured points, `concurrency,throughput` with
 * that header line (from a load test). They are recognised here, by a name
 * ending in .csv or by that first line, and read here (not in collect/: a
 * CSV of points is not a source of events).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_saturation;

#define CSV_HEADER "concurrency,throughput"
#define CSV_LINE_MAX 4096
#define CSV_SHOWN_REJECTS 10

enum { OPT_WINDOW = 0x100, OPT_MIN_OPS, OPT_CPUS, OPT_RESUMED_SHARE, OPT_FULL_COST,
       OPT_RESUMED_COST };

/* the defaults the help states */
_Static_assert((int)SAT_USL_EXTRAPOLATE_MAX == 4 && (int)SAT_HS_FULL_COST_US_DEFAULT == 330 &&
               (int)SAT_HS_RESUMED_COST_US_DEFAULT == 3, "saturation --help states them");

static const sat_cli_opt sat_opts[] = {
    {"window", OPT_WINDOW, 0, "DUR", "window length (default 60s; e.g. 10s, 5m)", NULL},
    {"min-ops", OPT_MIN_OPS, 0, "N",
     "windows answering fewer operations are not fitted\n"
     "(default 10)", NULL},
    {"cpus", OPT_CPUS, 0, "K",
     "what-if: K times the CPUs (lambda scales with them,\n"
     "sigma and kappa stay: an upper bound)", NULL},
    {"resumed-share", OPT_RESUMED_SHARE, 0, "P",
     "what-if: the share of TLS handshakes resumed, 0..1\n"
     "(default 0: every handshake full); needs captures", NULL},
    {"full-cost-us", OPT_FULL_COST, 0, "X", "server CPU of a full handshake (default 330)", NULL},
    {"resumed-cost-us", OPT_RESUMED_COST, 0, "X", "of a resumed one (default 3)", NULL},
    {"json", SAT_OPT_JSON, 0, NULL,
     "JSON (usl: sigma, kappa, lambda, n_star, x_max, r2;\n"
     "points: start_ts, concurrency, throughput, ...)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per point", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints one\n"
     "(tables: points, tls_capacity.windows)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

/* The header, ASCII case-insensitive, blanks around fields ignored. */
static int is_header(const char *line)
{
    char b[64];
    size_t n = 0;
    for (const char *p = line; *p && *p != '\n' && *p != '\r' && n + 1 < sizeof b; p++)
        if (*p != ' ' && *p != '\t' && *p != '"')
            b[n++] = (char)tolower((unsigned char)*p);
    b[n] = '\0';
    return strncmp(b, CSV_HEADER, strlen(CSV_HEADER)) == 0 &&
           (b[strlen(CSV_HEADER)] == '\0' || b[strlen(CSV_HEADER)] == ',');
}

static int ends_with_csv(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && (!strcmp(path + n - 4, ".csv") || !strcmp(path + n - 4, ".CSV"));
}

/* 1 if path is a CSV of points (by name or by its first line), 0 if not. */
static int sniff_csv(const char *path)
{
    if (!strcmp(path, "-"))
        return 0; /* standard input is read once, by the collection */
    if (ends_with_csv(path))
        return 1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0; /* the collection will say why */
    char line[128];
    int yes = fgets(line, sizeof line, f) && is_header(line);
    fclose(f);
    return yes;
}

/* One field: a finite number, blanks around it allowed. */
static int field(const char **p, double *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    *out = v;
    *p = end;
    return 0;
}

/* Reads one CSV of points into s. Returns the exit code it deserves (0, 1
 * when lines were rejected, 3 when unreadable) and counts the points. */
static int read_csv(const char *path, sat_saturation *s, int quiet, size_t *points)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "satscope: %s: %s\n", path, strerror(errno));
        return SAT_EXIT_UNREADABLE;
    }
    char line[CSV_LINE_MAX];
    unsigned long long no = 0, rejects = 0;
    int header_seen = 0, code = SAT_EXIT_OK;
    while (fgets(line, sizeof line, f)) {
        no++;
        size_t len = strlen(line);
        const char *why = NULL;
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            why = "line too long";
        } else if (!header_seen) {
            if (!is_header(line))
                why = "the first line is not the header `concurrency,throughput`";
            header_seen = 1;
            if (!why)
                continue;
        }
        const char *p = line;
        while (!why && (*p == ' ' || *p == '\t'))
            p++;
        if (!why && (*p == '\n' || *p == '\r' || *p == '\0' || *p == '#'))
            continue; /* blank or comment */
        double n = 0, x = 0;
        if (!why && (field(&p, &n) || *p++ != ',' || field(&p, &x)))
            why = "expected two numbers: concurrency,throughput";
        if (!why && *p && *p != '\n' && *p != '\r' && *p != ',')
            why = "expected two numbers: concurrency,throughput";
        if (!why) {
            int rc = sat_saturation_add_point(s, n, x);
            if (rc == SAT_E_USAGE)
                why = "concurrency must be > 0 and throughput >= 0";
            else if (rc == SAT_E_LIMIT)
                why = "too many points (100000 kept)";
            else if (rc < 0)
                why = "out of memory";
            else
                (*points)++;
        }
        if (why) {
            rejects++;
            if (!quiet && rejects <= CSV_SHOWN_REJECTS) {
                char ex[48];
                size_t k = 0;
                for (const char *q = line; *q && *q != '\n' && *q != '\r' && k + 1 < sizeof ex;
                     q++)
                    ex[k++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
                ex[k] = '\0';
                fprintf(stderr, "satscope: %s:%llu: rejected: %s: %s\n", path, no, why, ex);
            }
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "satscope: %s: read error\n", path);
        code = SAT_EXIT_REJECTS;
    }
    fclose(f);
    if (rejects) {
        if (!quiet)
            fprintf(stderr, "satscope: %s: %llu of %llu lines rejected; the rest was analysed\n",
                    path, rejects, no);
        code = SAT_EXIT_REJECTS;
    }
    return code;
}

static int worse(int a, int b)
{
    /* 3 (unreadable) > 1 (rejects) > 0 */
    return a == SAT_EXIT_UNREADABLE || b == SAT_EXIT_UNREADABLE ? SAT_EXIT_UNREADABLE
                                                                : (a > b ? a : b);
}

static int run_saturation(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_saturation_opts so;
    memset(&so, 0, sizeof so);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_saturation, &c);
    int opt;
    double d;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_WINDOW:
            if ((so.window = sat_cli_parse_duration(optarg)) < 0)
                return sat_cli_usage_error("saturation", "bad --window '%s'", optarg);
            break;
        case OPT_MIN_OPS:
            if (sat_cli_parse_number(optarg, 1, 1e12, &d))
                return sat_cli_usage_error("saturation", "bad --min-ops '%s'", optarg);
            so.min_ops = (uint64_t)d;
            break;
        case OPT_CPUS:
            if (sat_cli_parse_number(optarg, 0.01, 1e4, &so.cpus))
                return sat_cli_usage_error("saturation", "bad --cpus '%s'", optarg);
            break;
        case OPT_RESUMED_SHARE:
            if (sat_cli_parse_number(optarg, 0, 1, &so.resumed_share))
                return sat_cli_usage_error("saturation", "bad --resumed-share '%s' (0..1)",
                                           optarg);
            break;
        case OPT_FULL_COST:
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &so.full_cost_us))
                return sat_cli_usage_error("saturation", "bad --full-cost-us '%s'", optarg);
            break;
        case OPT_RESUMED_COST:
            if (sat_cli_parse_number(optarg, 1e-3, 1e7, &so.resumed_cost_us))
                return sat_cli_usage_error("saturation", "bad --resumed-cost-us '%s'", optarg);
            break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    int fmt = a.fmt;
    if (optind >= argc)
        return sat_cli_usage_error("saturation", "no input given");

    sat_saturation *s = sat_saturation_create(&so);
    if (!s)
        return sat_cli_fail("saturation", SAT_E_NOMEM, NULL);
    /* CSVs of points are read here; the other inputs go to the collection,
     * in their order */
    size_t nin = (size_t)(argc - optind), nrest = 0, points = 0;
    char **rest = (char **)calloc(nin, sizeof *rest);
    if (!rest) {
        sat_saturation_free(s);
        return sat_cli_fail("saturation", SAT_E_NOMEM, NULL);
    }
    int code = SAT_EXIT_OK;
    for (size_t i = 0; i < nin; i++) {
        char *path = argv[optind + (int)i];
        if (sniff_csv(path)) {
            code = worse(code, read_csv(path, s, c.quiet, &points));
        } else {
            rest[nrest++] = path;
        }
    }
    if (nrest) {
        int rc = sat_cli_collect_into(&c, sat_analyzer_find("saturation"), &so, s, rest, nrest);
        if (c.failed) {
            free(rest);
            sat_saturation_free(s);
            return sat_cli_fail("saturation", c.failed, NULL);
        }
        if (rc == SAT_EXIT_UNREADABLE && c.stats.bytes == 0 && c.stats.traces == 0 &&
            points == 0) {
            free(rest);
            sat_saturation_free(s);
            fprintf(stderr, "satscope saturation: nothing could be read\n");
            return SAT_EXIT_UNREADABLE;
        }
        code = worse(code, rc);
        if (points == 0 && sat_cli_no_events(&c, "saturation", rest, nrest)) {
            free(rest);
            sat_saturation_free(s);
            return code;
        }
    } else if (points == 0 && code == SAT_EXIT_UNREADABLE) {
        free(rest);
        sat_saturation_free(s);
        fprintf(stderr, "satscope saturation: nothing could be read\n");
        return SAT_EXIT_UNREADABLE;
    }
    free(rest);
    if (sat_saturation_finish(s) < 0) {
        sat_saturation_free(s);
        return sat_cli_fail("saturation", SAT_E_NOMEM, NULL);
    }
    c.name = "saturation";
    int rr = sat_cli_render(&c, sat_analyzer_find("saturation"), s, fmt);
    if (rr < 0)
        code = rr == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_FAILED;
    if (fflush(stdout) != 0)
        code = SAT_EXIT_FAILED;
    sat_saturation_free(s);
    return code;
}

const sat_command sat_cmd_saturation = {
    "saturation", "throughput vs concurrency and the USL fit: how close to saturation",
    run_saturation, "INPUT... [--window DUR] [--json|--csv] [options]",
    "How close the server runs to saturation. Per window of the LDAP access\n"
    "logs (or LDAP captures, or .sat traces): throughput X (operations answered\n"
    "per second) and concurrency N by Little's law (their summed etime / the\n"
    "window), queue wait (wtime) vs service time (optime); of HTTP access logs\n"
    "(nginx, Apache, Tomcat): requests answered per second (every status) and\n"
    "their summed response time / the window; then the Universal\n"
    "Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)) fitted\n"
    "to those points: contention sigma, coherency kappa, the peak X_max at\n"
    "N* = sqrt((1 - sigma) / kappa), and whether the data reach that knee (a\n"
    "knee beyond 4x the highest concurrency seen is not reported).\n"
    "\n"
    "An INPUT may also be a CSV of measured points (e.g. from a load test):\n"
    "a header line `concurrency,throughput`, then one `N,X` per line.",
    sat_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};

/* The CSVs of points, for the other commands that run the saturation
 * analyzer (`satscope chart capacity`): cli.h. */
int sat_cli_points_csv(const char *path)
{
    return sniff_csv(path);
}

int sat_cli_read_points(const char *path, sat_saturation *s, int quiet, size_t *points)
{
    return read_csv(path, s, quiet, points);
}
