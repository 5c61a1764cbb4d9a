/*
 * cmd_chart.c - `satscope chart KIND INPUT... -o FILE.png|svg|pdf|json
 * [--utc] [--width PT --height PT]`: runs exactly the analyzers the chart
 * kind reads (sat_chart_kind.analyzers) in one pass over the inputs
 * (analyze/multi.c, collected in parallel parts with --jobs), builds their
 * results, the chart from them (report/chart_kinds.c), and writes it in the
 * format the output's extension says; .json is the chart's laid-out
 * structure (what the structural golden tests compare). "-.EXT" writes to
 * standard output.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/chart.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_chart;

enum { OPT_OUTPUT = 'o', OPT_UTC = 0x100, OPT_WIDTH, OPT_HEIGHT };

#define MAX_MEMBERS 16

static const sat_cli_opt chart_opts[] = {
    {"output", OPT_OUTPUT, 'o', "FILE",
     "the chart, in the format its extension says: .png (2 pixels\n"
     "per point), .svg, .pdf, or .json (the laid-out structure:\n"
     "axes, ticks, series, labels); -.EXT writes to standard output", NULL},
    {"utc", OPT_UTC, 0, NULL, "time axes in UTC (default: the inputs' local time)", NULL},
    {"width", OPT_WIDTH, 0, "PT", "the width in points, 1/72 in (default: the kind's)", NULL},
    {"height", OPT_HEIGHT, 0, "PT", "the height in points (default: the kind's)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

/* "timeline, distributions, capacity" */
static void kind_names(char *buf, size_t n)
{
    size_t nk;
    const sat_chart_kind *const *k = sat_chart_kind_list(&nk);
    buf[0] = '\0';
    for (size_t i = 0; i < nk; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "", k[i]->name);
}

static int ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), e = strlen(ext);
    return n > e && strcasecmp(s + n - e, ext) == 0;
}

static int to_stdout(void *closure, const unsigned char *data, size_t len)
{
    (void)closure;
    return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

/* Writes the chart to out ("-.EXT": standard output) through the safe
 * writer (safe_out.h). 0 or -1 after a message. */
static int write_chart(sat_chart *chart, const char *out, int json, const sat_out_opts *oo)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    int to_out = strncmp(out, "-.", 2) == 0;
    int rc;
    if (json) {
        sat_out *o = sat_out_open(to_out ? "-" : out, oo, &d);
        FILE *f = o ? sat_out_stream(o) : NULL;
        rc = !o ? d.code : !f ? sat_diag_set(&d, SAT_E_NOMEM, out, "out of memory")
                         : sat_chart_structure_json(chart, f, &d);
        if (rc == SAT_OK)
            rc = sat_out_commit(o, &d);
        else
            sat_out_discard(o);
    } else if (to_out) {
        rc = sat_chart_write(chart, (sat_chart_format)sat_chart_format_of(out), to_stdout, NULL, &d);
    } else {
        rc = sat_chart_write_file(chart, out, oo, &d);
    }
    if (rc == SAT_OK && to_out && fflush(stdout) != 0)
        rc = sat_diag_set(&d, SAT_E_IO, "standard output", "writing: %s", strerror(errno));
    if (rc == SAT_E_NOMEM) {
        sat_cli_fail("chart", rc, "no chart written");
        return -1;
    }
    if (rc != SAT_OK) {
        fprintf(stderr, "satscope chart: %s%s%s\n", d.where[0] ? d.where : "", d.where[0] ? ": " : "",
                d.msg);
        return -1;
    }
    return 0;
}

static int chart_run(int argc, char **argv, sat_cli_cache *ccp)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_chart, &c);
    a.cache = ccp;
    sat_chart_opts co;
    memset(&co, 0, sizeof co);
    const char *out = NULL;
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUTPUT: out = optarg; break;
        case OPT_UTC: co.utc = 1; break;
        case OPT_WIDTH:
        case OPT_HEIGHT:
            if (sat_cli_parse_number(optarg, 100, 5000, opt == OPT_WIDTH ? &co.width_pt : &co.height_pt))
                return sat_cli_usage_error("chart", "bad --%s '%s' (points, 100 to 5000)",
                                           opt == OPT_WIDTH ? "width" : "height", optarg);
            break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    char names[256];
    kind_names(names, sizeof names);
    if (optind >= argc)
        return sat_cli_usage_error("chart", "no chart kind given (kinds: %s)", names);
    const sat_chart_kind *kind = sat_chart_kind_find(argv[optind]);
    if (!kind)
        return sat_cli_usage_error("chart", "unknown chart kind '%s' (kinds: %s)", argv[optind], names);
    if (!out)
        return sat_cli_usage_error("chart", "no output given (-o FILE.png, .svg, .pdf or .json)");
    int json = ends_with(out, ".json");
    if (!json && sat_chart_format_of(out) < 0)
        return sat_cli_usage_error("chart", "unknown output format '%s' (.png, .svg, .pdf or .json)", out);
    if (optind + 1 >= argc)
        return sat_cli_usage_error("chart", "no input given");
    char *const *paths = argv + optind + 1;
    size_t npaths = (size_t)(argc - optind - 1);
    /* the output: refused now, not after the analysis (safe_out.h) */
    sat_cli_out outs;
    sat_cli_out_init(&outs, paths, npaths, 0, "the chart");
    sat_diag od;
    memset(&od, 0, sizeof od);
    int refused = sat_out_check(!strncmp(out, "-.", 2) ? "-" : out, &outs.o, &od);
    sat_cli_out_free(&outs);
    if (refused != SAT_OK) {
        sat_cli_path_error("chart", out, od.where, od.msg);
        return od.code == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_UNREADABLE;
    }

    sat_multi_member members[MAX_MEMBERS];
    size_t nm = 0;
    for (const char *const *n = kind->analyzers; *n && nm < MAX_MEMBERS; n++) {
        const sat_analyzer *an = sat_analyzer_find(*n);
        if (!an || !an->result) {
            fprintf(stderr, "satscope chart: the %s chart reads the %s analyzer, which is missing\n",
                    kind->name, *n);
            return SAT_EXIT_UNREADABLE;
        }
        members[nm++] =
            (sat_multi_member){an, sat_cli_member_opts(ccp, *n, sat_cli_chart_opts(*n))};
    }
    sat_multi_opts mo = {members, nm};
    sat_multi *m = sat_multi_create(&mo);
    if (!m)
        return sat_cli_fail("chart", SAT_E_NOMEM, "no chart written");
    /* CSVs of measured points go to the saturation analyzer, as
     * `satscope saturation` takes them; the other inputs to the collection */
    char **rest = calloc(npaths ? npaths : 1, sizeof *rest);
    if (!rest) {
        sat_multi_free(m);
        return sat_cli_fail("chart", SAT_E_NOMEM, "no chart written");
    }
    size_t nrest = 0, points = 0;
    int code = SAT_EXIT_OK;
    void *sat = NULL;
    for (size_t i = 0; i < nm; i++)
        if (strcmp(members[i].a->name, "saturation") == 0)
            sat = sat_multi_member_obj(m, i);
    for (size_t i = 0; i < npaths; i++) {
        if (sat && sat_cli_points_csv(paths[i])) {
            int rc = sat_cli_read_points(paths[i], sat, c.quiet, &points);
            code = rc == SAT_EXIT_UNREADABLE || code == SAT_EXIT_UNREADABLE ? SAT_EXIT_UNREADABLE
                                                                            : (rc > code ? rc : code);
        } else {
            rest[nrest++] = paths[i];
        }
    }
    int nothing = 0;
    if (nrest) {
        int rc = sat_cli_collect_into(&c, &sat_multi_analyzer, &mo, m, rest, nrest);
        if (c.failed) {
            free(rest);
            sat_multi_free(m);
            return sat_cli_fail("chart", c.failed, "no chart written");
        }
        if (rc == SAT_EXIT_UNREADABLE && c.stats.lines == 0 && c.stats.traces == 0 && c.stats.cores == 0 &&
            points == 0) {
            fprintf(stderr, "satscope chart: nothing could be read\n");
            nothing = 1;
        } else if (rc != SAT_EXIT_UNREADABLE && points == 0 && sat_cli_no_events(&c, "chart", rest, nrest)) {
            nothing = 1; /* said so; no chart written */
        }
        code = rc == SAT_EXIT_UNREADABLE || code == SAT_EXIT_UNREADABLE ? SAT_EXIT_UNREADABLE
                                                                        : (rc > code ? rc : code);
    } else if (points == 0) {
        fprintf(stderr, "satscope chart: nothing could be read\n");
        nothing = 1;
    }
    free(rest);
    if (nothing) {
        sat_multi_free(m);
        return SAT_EXIT_UNREADABLE;
    }
    if (sat_multi_finish(m) < 0) {
        sat_multi_free(m);
        return sat_cli_fail("chart", SAT_E_NOMEM, "no chart written");
    }
    sat_result *res[MAX_MEMBERS] = {NULL};
    int rc = sat_multi_results(m, res);
    sat_chart *chart = NULL;
    if (rc == SAT_OK) {
        sat_result_set set = {res, nm};
        sat_diag d;
        memset(&d, 0, sizeof d);
        chart = kind->build(&set, &co, &d);
        if (!chart && (!d.msg[0] || d.code == SAT_E_NOMEM))
            code = sat_cli_fail("chart", SAT_E_NOMEM, "no chart written");
        else if (!chart)
            fprintf(stderr, "satscope chart: %s; no chart written\n", d.msg);
    } else {
        code = sat_cli_fail("chart", rc, "no chart written");
    }
    sat_cli_out_init(&outs, paths, npaths, 0, "the chart");
    if (!chart || write_chart(chart, out, json, &outs.o) < 0)
        code = SAT_EXIT_FAILED;
    sat_cli_out_free(&outs);
    sat_chart_free(chart);
    sat_chart_release_fonts();
    for (size_t i = 0; i < nm; i++)
        sat_result_free(res[i]);
    sat_multi_free(m);
    return code == SAT_EXIT_OK && ccp->partial ? SAT_EXIT_REJECTS : code;
}

static int run_chart(int argc, char **argv)
{
    sat_cli_cache cc; /* what --db-dir read: borrowed by the analyzers until the end */
    sat_cli_cache_init(&cc);
    int code = chart_run(argc, argv, &cc);
    sat_cli_cache_clear(&cc);
    return code;
}

const sat_command sat_cmd_chart = {
    "chart", "charts of the analyzers' results: timeline, storm, distributions, capacity",
    run_chart, "KIND INPUT... -o FILE.png|svg|pdf|json [--utc] [--width PT --height PT]",
    "A chart of the inputs, drawn from the results of the analyzers it reads,\n"
    "run together in one pass over the inputs:\n"
    "\n"
    "  timeline       what happened over time, on one time axis: operations\n"
    "                 per second by type; etime p50/p90/p99 with the queue wait\n"
    "                 (wtime) against the work (optime); concurrency and open\n"
    "                 connections; client failures by kind; TLS handshakes and\n"
    "                 the share resumed; connections opened and closed by code.\n"
    "                 Storms shaded and labelled, their trigger's onset and every\n"
    "                 crash marked, every input a band under the axis.\n"
    "                 (timeline, storms, handshakes, crashes)\n"
    "  storm          the timeline over the storm with the most failures and\n"
    "                 three minutes around it, in finer windows. (as timeline)\n"
    "  distributions  the etime distribution of each operation type, and the\n"
    "                 share of all operation time spent by the top filters,\n"
    "                 search bases, clients and bind DNs. (timeline, etime)\n"
    "  capacity       the entry cache's hit ratio at each size (the miss ratio\n"
    "                 curve) and throughput against concurrency with the\n"
    "                 Universal Scalability Law fitted. (cachesize, saturation)\n"
    "\n"
    "Times are the inputs' local time, with its UTC offset on the axis, unless\n"
    "--utc. A panel whose data the inputs lack says so. As with `satscope\n"
    "saturation`, an INPUT may also be a CSV of measured points (a header line\n"
    "`concurrency,throughput`, then one `N,X` per line): the capacity chart\n"
    "fits them. The cache options are cachesize's: with --monitor (cn=monitor)\n"
    "the capacity chart marks the entry cache's current size.",
    chart_opts, SAT_CLI_CACHE_OPTS | SAT_CLI_INPUT_OPTS | SAT_CLI_ANALYSIS_OPTS,
    "exit: 0 ok, 1 some input was rejected (the rest analysed, the chart\n"
    "      written), 2 usage, 3 an input could not be read, or the inputs hold\n"
    "      nothing the chart draws, or the chart could not be written"};
