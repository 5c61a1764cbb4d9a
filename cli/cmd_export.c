/*
 * cmd_export.c - `satscope export INPUT... [-o FILE.jsonl]`: every row the
 * inputs give (logs, captures, cores, traces), one JSON object per line: its
 * table and each column of the trace schema (trace/schema.c) by its stable
 * name, numbers as they are stored (times and durations in ns), strings
 * JSON-escaped, an absent string left out (absent is not ""). What a
 * vendor's support or another tool reads without satscope.
 *
 * --anonymize-key KEYFILE puts the same pseudonymiser as collect's in front
 * (collect/anonymize.c, docs/privacy.md): nothing of the people, hosts and
 * data the inputs name reaches the export. The file goes through the safe
 * writer (safe_out.h) with the run's mode; nothing of a run that failed is
 * published.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "satscope/anonymize.h"
#include "satscope/result_out.h"
#include "satscope/trace.h"

extern const sat_command sat_cmd_export;

enum { OPT_OUTPUT = 'o', OPT_ANON_KEY = 0x300, OPT_TABLE };

static const sat_cli_opt export_opts[] = {
    {"output", OPT_OUTPUT, 'o', "FILE",
     "the rows as JSON lines to FILE (default: standard\n"
     "output); FILE must be absent or a regular file", NULL},
    {"table", OPT_TABLE, 0, "NAME",
     "only this table's rows (ldap_op, ldap_conn, tls_hs,\n"
     "tcp_conn, http_req, crash, frame, source, reject);\n"
     "may be given again", NULL},
    {"anonymize-key", OPT_ANON_KEY, 0, "KEYFILE",
     "pseudonymise as collect --anonymize-key does\n"
     "(docs/privacy.md)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

typedef struct export_ctx {
    FILE *out;
    uint32_t tables; /* SAT_TABLE_BIT of those asked for */
    uint64_t rows;
} export_ctx;

/* One row as one JSON object on its line. */
static int export_row(void *vctx, int table, const void *row)
{
    export_ctx *x = (export_ctx *)vctx;
    const sat_table_def *d = sat_table_get(table);
    if (!d || !(x->tables & SAT_TABLE_BIT(table)))
        return SAT_OK;
    const unsigned char *r = (const unsigned char *)row;
    FILE *f = x->out;
    fprintf(f, "{\"table\":\"%s\"", d->name);
    for (size_t i = 0; i < d->ncolumns; i++) {
        const sat_column_def *c = &d->columns[i];
        const unsigned char *p = r + c->offset;
        int64_t v;
        switch (c->type) {
        case SAT_COL_STR: {
            sat_str s;
            memcpy(&s, p, sizeof s);
            if (!s.ptr)
                continue; /* absent */
            fprintf(f, ",\"%s\":", c->name);
            sat_json_write_string(f, s.ptr, s.len);
            continue;
        }
        case SAT_COL_TS:
        case SAT_COL_I64: {
            memcpy(&v, p, sizeof v);
            break;
        }
        case SAT_COL_I32: {
            int32_t w;
            memcpy(&w, p, sizeof w);
            v = w;
            break;
        }
        case SAT_COL_U16: {
            uint16_t w;
            memcpy(&w, p, sizeof w);
            v = w;
            break;
        }
        case SAT_COL_U8:
            v = *p;
            break;
        default:
            continue;
        }
        fprintf(f, ",\"%s\":%lld", c->name, (long long)v);
    }
    fputs("}\n", f);
    x->rows++;
    return ferror(f) ? SAT_E_IO : SAT_OK;
}

static int run_export(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_export, &c);
    const char *output = "-", *anon_key = NULL;
    uint32_t tables = 0;
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUTPUT: output = optarg; break;
        case OPT_ANON_KEY: anon_key = optarg; break;
        case OPT_TABLE: {
            const sat_table_def *d = sat_table_by_name(optarg);
            if (!d)
                return sat_cli_usage_error("export", "no table '%s'", optarg);
            tables |= SAT_TABLE_BIT(d->id);
            break;
        }
        }
    }
    if (a.exit >= 0)
        return a.exit;
    if (optind >= argc)
        return sat_cli_usage_error("export", "no input given");
    sat_anon *anon = NULL;
    int kcode = sat_cli_open_anon_key("export", anon_key, &anon);
    if (kcode)
        return kcode;
    char *const *paths = argv + optind;
    size_t npaths = (size_t)(argc - optind);
    sat_cli_out co;
    sat_cli_out_init(&co, paths, npaths, 0, "the export");
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_out *o = sat_out_open(output, &co.o, &d);
    sat_cli_out_free(&co);
    if (!o) {
        sat_anon_free(anon);
        sat_cli_path_error("export", output, d.where, d.msg);
        return d.code == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_FAILED;
    }
    export_ctx x = {sat_out_stream(o), tables ? tables : UINT32_MAX, 0};
    if (!x.out) {
        sat_out_discard(o);
        sat_anon_free(anon);
        return sat_cli_fail("export", SAT_E_NOMEM, NULL);
    }
    sat_event_sink rows = {&x, UINT32_MAX, export_row};
    sat_event_sink sink = anon ? sat_anon_sink(anon, &rows) : rows;
    int code = sat_cli_collect_run(&c, paths, npaths, &sink);
    if (c.failed || (anon && sat_anon_failed(anon))) {
        sat_out_discard(o);
        sat_anon_free(anon);
        return sat_cli_fail("export", SAT_E_NOMEM, NULL);
    }
    sat_anon_free(anon);
    if (code == SAT_EXIT_UNREADABLE && c.stats.lines == 0 && c.stats.traces == 0 &&
        c.stats.packets == 0 && c.stats.cores == 0) {
        sat_out_discard(o);
        fprintf(stderr, "satscope export: nothing could be read\n");
        return SAT_EXIT_UNREADABLE;
    }
    if (sat_out_commit(o, &d) != SAT_OK) {
        sat_cli_path_error("export", output, d.where, d.msg);
        return SAT_EXIT_FAILED;
    }
    return code;
}

const sat_command sat_cmd_export = {
    "export", "every row of the inputs as JSON lines (optionally pseudonymised)", run_export,
    "INPUT... [-o FILE.jsonl] [--table NAME]... [--anonymize-key KEYFILE]",
    "Every row the inputs give (logs, captures, cores, .sat traces), one JSON\n"
    "object per line: \"table\" and each column of the trace's schema by its\n"
    "name (trace/FORMAT.md), times and durations in ns, an absent string left\n"
    "out. With --anonymize-key, pseudonymised as collect --anonymize-key does.",
    export_opts, SAT_CLI_INPUT_OPTS,
    "exit: 0 ok, 1 some input rejected (the rest exported), 2 usage,\n"
    "      3 nothing could be read, or satscope could not finish (nothing written)",
    NULL};
