/*
 * cmd_cachesize.c - `satscope cachesize INPUT... [--target 0.95,0.99] [--json]`
 * (issue 6): the LRU miss-ratio curve of the entries the logs name, and the
 * entry, DN and DB cache sizes for target hit ratios, with the entry size
 * from --entry-size, cn=monitor snapshots (--monitor) or an LDIF export
 * (--ldif), and the DB files from --db-dir: the cache options, shared with
 * report and chart and read by cli_cache.c; the analysis is
 * analyze/cachesize.c.
 */
#include <string.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_cachesize;

static const sat_cli_opt cs_opts[] = {
    {"json", SAT_OPT_JSON, 0, NULL,
     "JSON (targets, recommend, references, unique, mrc,\n"
     "unseen_share, method)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL,
     "CSV: the recommendation, one row per target (hit_ratio,\n"
     "reachable, entries, bytes)", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints\n"
     "one (tables: targets, working_set, mrc)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_cachesize(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1;
    sat_cli_cache cc;
    sat_cli_cache_init(&cc);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_cachesize, &c);
    a.cache = &cc;
    while (sat_cli_args_next(&a, argc, argv) != -1)
        ; /* every option is of a group */
    int code = a.exit;
    if (code < 0)
        code = sat_cli_analyze_args(&c, "cachesize", sat_cli_cache_get(&cc), a.fmt, argc, argv);
    sat_cli_cache_clear(&cc);
    return code == SAT_EXIT_OK && cc.partial ? SAT_EXIT_REJECTS : code;
}

const sat_command sat_cmd_cachesize = {
    "cachesize", "entry, DN and DB cache sizes for target hit ratios, from the access pattern",
    run_cachesize,
    "INPUT... [--target 0.95,0.99] [--entry-size BYTES]\n"
    "                          [--monitor FILE]... [--ldif FILE] [--db-dir DIR] [--json|--csv]",
    "How big the 389 entry cache, DN cache and DB cache must be for a target hit\n"
    "ratio, from the entries the access logs (389, OpenLDAP), captures or .sat\n"
    "traces name. The reference stream: the DN of every BIND with a DN, ADD, MOD,\n"
    "DEL, CMP, MODRDN (the old DN and the new one), and the base of every\n"
    "scope=base search, internal operations included; DNs compared in lower\n"
    "case without blanks after commas. Not references: the root DSE, cn=config,\n"
    "cn=schema, cn=monitor and the root DN (no backend entry). One-level and\n"
    "subtree searches read entries the log does not name: they are counted and\n"
    "their share reported as the part of the load the curve cannot see (also\n"
    "389 ENTRY lines, whose DNs are not kept).\n"
    "The curve is LRU's hit ratio for every cache size: exact (Mattson stack\n"
    "distances) while the references fit --max-refs, else SHARDS sampling\n"
    "(Waldspurger et al., FAST'15); the report says which. Cold misses count:\n"
    "a short log cannot show a hit ratio above 1 - distinct / references.",
    cs_opts, SAT_CLI_CACHE_OPTS | SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS,
    SAT_CLI_EXIT_NOTE};
