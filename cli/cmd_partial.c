/*
 * cmd_partial.c - `satscope partial INPUT... -o FILE.satp [--server NAME]
 * [--anonymize-key KEYFILE]`: a host's days in a small file
 * (include/satscope/partial.h): for each server and local day of the
 * inputs, the state of every analyzer the nightly digest reads, unfinished,
 * so that the centre merges the partials of a fleet (`satscope report
 * --kind digest *.satp`) as if it had read every log itself
 * (docs/fleet.md).
 *
 * Written through the safe writer (whole or not at all). With
 * --anonymize-key the rows are pseudonymised before any analyzer sees
 * them, as `collect --anonymize-key` does: the partial holds no name,
 * address or DN in the clear.
 */
#include <getopt.h> /* optarg, optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/anonymize.h"
#include "satscope/partial.h"

extern const sat_command sat_cmd_partial;

enum { OPT_OUT = 'o', OPT_ANON_KEY = 0x100 };

static const sat_cli_opt partial_opts[] = {
    {"output", OPT_OUT, 'o', "FILE", "where to write the partial (FILE.satp; - for standard\n"
                                     "output)", NULL},
    {"anonymize-key", OPT_ANON_KEY, 0, "KEYFILE",
     "pseudonymise the rows before the analysis, as\n"
     "collect --anonymize-key does", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

/* The cache options the command was given, for the plan's cachesize. */
static const void *given_opts(void *ctx, const char *analyzer)
{
    return sat_cli_member_opts(ctx, analyzer, NULL);
}

static void human_bytes(uint64_t b, char *buf, size_t n)
{
    if (b >= 10u << 20)
        snprintf(buf, n, "%.1f MB", (double)b / (1 << 20));
    else if (b >= 10u << 10)
        snprintf(buf, n, "%.1f KB", (double)b / (1 << 10));
    else
        snprintf(buf, n, "%llu bytes", (unsigned long long)b);
}

static int run_partial(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_cli_cache cc;
    sat_cli_cache_init(&cc);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_partial, &c);
    a.cache = &cc;
    const char *out = NULL, *anon_key = NULL;
    int opt, code = SAT_EXIT_OK;
    sat_anon *anon = NULL;
    sat_cli_dayset *days = NULL;
    sat_out *o = NULL;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUT: out = optarg; break;
        case OPT_ANON_KEY: anon_key = optarg; break;
        }
    }
    if (a.exit >= 0) {
        code = a.exit;
        goto done;
    }
    if (!out) {
        code = sat_cli_usage_error("partial", "no output given (-o FILE.satp)");
        goto done;
    }
    if (optind >= argc) {
        code = sat_cli_usage_error("partial", "no input given");
        goto done;
    }
    if ((code = sat_cli_open_anon_key("partial", anon_key, &anon)) != 0)
        goto done;
    char *const *paths = argv + optind;
    size_t npaths = (size_t)(argc - optind);
    sat_cli_out co;
    sat_cli_out_init(&co, paths, npaths, 0, "the partial");
    sat_diag d;
    memset(&d, 0, sizeof d);
    /* refused now, not after the analysis (safe_out.h) */
    int chk = sat_out_check(out, &co.o, &d);
    if (chk != SAT_OK) {
        sat_cli_out_free(&co);
        sat_cli_path_error("partial", out, d.where, d.msg);
        code = chk == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_UNREADABLE;
        goto done;
    }
    sat_digest_plan plan;
    sat_digest_plan_init(&plan, given_opts, &cc);
    days = sat_cli_dayset_collect(&c, &plan, anon, paths, npaths, "partial", &code);
    if (!days) {
        sat_cli_out_free(&co);
        goto done;
    }
    if (sat_cli_no_events(&c, "partial", paths, npaths)) {
        sat_cli_out_free(&co);
        if (code == SAT_EXIT_OK)
            code = SAT_EXIT_REJECTS;
        goto done;
    }
    o = sat_out_open(out, &co.o, &d);
    sat_cli_out_free(&co);
    FILE *f = o ? sat_out_stream(o) : NULL;
    int rc = !o ? d.code : !f ? sat_diag_set(&d, SAT_E_NOMEM, out, "out of memory") : SAT_OK;
    size_t n = sat_cli_dayset_n(days);
    uint64_t total = SAT_PARTIAL_HEADER_LEN + SAT_PARTIAL_TRAILER_LEN;
    if (rc >= 0)
        rc = sat_partial_write_header(f, &d);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        sat_multi *set = sat_cli_dayset_take(days, i, &d);
        uint64_t bytes = 0;
        rc = set ? sat_partial_write_day(f, sat_cli_dayset_meta(days, i), set, &bytes, &d)
                 : d.code;
        sat_cli_dayset_release(days, i);
        total += bytes;
        if (rc >= 0 && !c.quiet) {
            const sat_partial_day *m = sat_cli_dayset_meta(days, i);
            char hb[32];
            human_bytes(bytes, hb, sizeof hb);
            fprintf(stderr, "satscope partial: %s, %s: %llu rows, %s\n", m->server, m->date,
                    (unsigned long long)m->rows, hb);
        }
    }
    if (rc >= 0)
        rc = sat_partial_write_end(f, n, &d);
    if (rc >= 0) {
        rc = sat_out_commit(o, &d);
        o = NULL;
    }
    if (rc < 0) {
        if (rc == SAT_E_NOMEM)
            sat_cli_fail("partial", rc, "no partial written");
        else
            sat_cli_path_error("partial", out, d.where, d.msg[0] ? d.msg : sat_strerror(rc));
        code = SAT_EXIT_FAILED;
        goto done;
    }
    if (!c.quiet) {
        char hb[32];
        human_bytes(total, hb, sizeof hb);
        fprintf(stderr, "satscope partial: %zu server-day%s written to %s (%s)\n", n,
                n == 1 ? "" : "s", out, hb);
    }
done:
    sat_out_discard(o);
    sat_cli_dayset_free(days);
    sat_anon_free(anon);
    sat_cli_cache_clear(&cc);
    return code;
}

const sat_command sat_cmd_partial = {
    "partial", "a host's days for the fleet's digest: each server-day's analysis state (.satp)",
    run_partial,
    "INPUT... -o FILE.satp [--server NAME] [--anonymize-key KEYFILE] [options]",
    "For each server and local day of the inputs (as `report --kind digest`\n"
    "splits them), the state of every analyzer the digest reads - counters,\n"
    "sketches, capped keyed tables, the cache curve's references - before it\n"
    "is finished, in one checksummed file. The centre renders the digest from\n"
    "the partials alone: `satscope report --kind digest */*.satp --baseline\n"
    "old/*.satp`, merging the partials of one server and day (two halves of\n"
    "the day, two hosts behind one --server name) as one pass over their logs\n"
    "would, and holding one server-day's analyzers at a time (docs/fleet.md).\n\n"
    "Name the server with --server NAME (default: its log's host line, else\n"
    "the input's path). The cache options are cachesize's, as for report.",
    partial_opts, SAT_CLI_CACHE_OPTS | SAT_CLI_INPUT_OPTS | SAT_CLI_ANALYSIS_OPTS,
    SAT_CLI_EXIT_NOTE};
