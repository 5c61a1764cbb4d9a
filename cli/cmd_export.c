/*
 * cmd_export.c - `satscope export INPUT... [-o FILE] [--as F]`: every row
 * the inputs give (logs, captures, cores, traces) by the columns of the trace
 * schema (trace/schema.c), numbers as they are stored (times and durations
 * in ns), an absent string apart from "". Formats (one const table):
 * jsonl, one JSON object per line with its "table", an absent string left
 * out; and ClickHouse's TabSeparated (absent: \N) and RowBinary (Nullable
 * strings), one table at a time (--table), the columns in the schema's
 * order: `INSERT INTO t (columns) FORMAT TabSeparated`. --ddl prints the
 * tables' CREATE TABLE for ClickHouse (18.16 and later): MergeTree by day,
 * ordered by server and time, the time in ns beside a DEFAULT DateTime.
 * What a vendor's support or another tool reads without satscope.
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

enum { OPT_OUTPUT = 'o', OPT_ANON_KEY = 0x300, OPT_TABLE, OPT_FORMAT_OUT, OPT_DDL };

static const sat_cli_opt export_opts[] = {
    {"output", OPT_OUTPUT, 'o', "FILE",
     "the rows as JSON lines to FILE (default: standard\n"
     "output); FILE must be absent or a regular file", NULL},
    {"table", OPT_TABLE, 0, "NAME",
     "only this table's rows (ldap_op, ldap_conn, tls_hs,\n"
     "tcp_conn, http_req, crash, frame, source, reject);\n"
     "may be given again", NULL},
    {"as", OPT_FORMAT_OUT, 0, "F",
     "the rows as jsonl (default), or ClickHouse's tsv\n"
     "(TabSeparated) or rowbinary (RowBinary), one --table\n"
     "at a time (--format names the inputs' format)", "jsonl tsv rowbinary"},
    {"ddl", OPT_DDL, 0, NULL,
     "print ClickHouse's CREATE TABLE of the --table tables\n"
     "(all without it) in database satscope; no input read", NULL},
    {"anonymize-key", OPT_ANON_KEY, 0, "KEYFILE",
     "pseudonymise as collect --anonymize-key does\n"
     "(docs/privacy.md)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

typedef struct export_ctx {
    FILE *out;
    uint32_t tables; /* SAT_TABLE_BIT of those asked for */
    uint64_t rows;
    const struct export_format *fmt;
} export_ctx;

/* A column's value of a row: a number (as an int64), or a string (absent:
 * s.ptr NULL). 0 number, 1 string, -1 a type this build does not export. */
static int column_value(const sat_column_def *c, const unsigned char *row, int64_t *v, sat_str *s)
{
    const unsigned char *p = row + c->offset;
    switch (c->type) {
    case SAT_COL_STR:
        memcpy(s, p, sizeof *s);
        return 1;
    case SAT_COL_TS:
    case SAT_COL_I64:
        memcpy(v, p, sizeof *v);
        return 0;
    case SAT_COL_I32: {
        int32_t w;
        memcpy(&w, p, sizeof w);
        *v = w;
        return 0;
    }
    case SAT_COL_U16: {
        uint16_t w;
        memcpy(&w, p, sizeof w);
        *v = w;
        return 0;
    }
    case SAT_COL_U8:
        *v = *p;
        return 0;
    default:
        return -1;
    }
}

/* jsonl: one JSON object per line, its "table" first. */
static void row_jsonl(FILE *f, const sat_table_def *d, const unsigned char *r)
{
    fprintf(f, "{\"table\":\"%s\"", d->name);
    for (size_t i = 0; i < d->ncolumns; i++) {
        int64_t v;
        sat_str s;
        int k = column_value(&d->columns[i], r, &v, &s);
        if (k < 0 || (k == 1 && !s.ptr))
            continue; /* absent */
        fprintf(f, ",\"%s\":", d->columns[i].name);
        if (k == 1)
            sat_json_write_string(f, s.ptr, s.len);
        else
            fprintf(f, "%lld", (long long)v);
    }
    fputs("}\n", f);
}

/* TabSeparated: ClickHouse's escapes (\t \n \\ and the other controls
 * it names), an absent string \N. */
static void row_tsv(FILE *f, const sat_table_def *d, const unsigned char *r)
{
    for (size_t i = 0; i < d->ncolumns; i++) {
        int64_t v;
        sat_str s;
        int k = column_value(&d->columns[i], r, &v, &s);
        if (k < 0)
            continue;
        if (i)
            fputc('\t', f);
        if (k == 0) {
            fprintf(f, "%lld", (long long)v);
            continue;
        }
        if (!s.ptr) {
            fputs("\\N", f);
            continue;
        }
        for (size_t j = 0; j < s.len; j++) {
            char e = 0;
            switch (s.ptr[j]) {
            case '\\': e = '\\'; break;
            case '\t': e = 't'; break;
            case '\n': e = 'n'; break;
            case '\r': e = 'r'; break;
            case '\b': e = 'b'; break;
            case '\f': e = 'f'; break;
            case '\0': e = '0'; break;
            default: break;
            }
            if (e) {
                fputc('\\', f);
                fputc(e, f);
            } else {
                fputc(s.ptr[j], f);
            }
        }
    }
    fputc('\n', f);
}

/* RowBinary: little-endian integers of the column's width, a string as a
 * LEB128 length and its bytes, Nullable strings behind a 0/1 byte. */
static void put_le(FILE *f, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        fputc((int)(v >> (8 * i) & 0xff), f);
}

static void row_rowbinary(FILE *f, const sat_table_def *d, const unsigned char *r)
{
    for (size_t i = 0; i < d->ncolumns; i++) {
        int64_t v;
        sat_str s;
        int k = column_value(&d->columns[i], r, &v, &s);
        if (k < 0)
            continue;
        if (k == 1) {
            fputc(s.ptr ? 0 : 1, f);
            if (!s.ptr)
                continue;
            uint64_t n = s.len;
            do {
                fputc((int)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)), f);
                n >>= 7;
            } while (n);
            fwrite(s.ptr, 1, s.len, f);
            continue;
        }
        static const int width[] = {[SAT_COL_TS] = 8, [SAT_COL_I64] = 8, [SAT_COL_I32] = 4,
                                    [SAT_COL_U16] = 2, [SAT_COL_U8] = 1};
        put_le(f, (uint64_t)v, width[d->columns[i].type]);
    }
}

typedef struct export_format {
    const char *name;
    int one_table; /* 1: a stream of one table's rows (--table NAME) */
    void (*row)(FILE *f, const sat_table_def *d, const unsigned char *r);
} export_format;

static const export_format formats[] = {
    {"jsonl", 0, row_jsonl},
    {"tsv", 1, row_tsv},
    {"rowbinary", 1, row_rowbinary},
};

static int export_row(void *vctx, int table, const void *row)
{
    export_ctx *x = (export_ctx *)vctx;
    const sat_table_def *d = sat_table_get(table);
    if (!d || !(x->tables & SAT_TABLE_BIT(table)))
        return SAT_OK;
    x->fmt->row(x->out, d, (const unsigned char *)row);
    x->rows++;
    return ferror(x->out) ? SAT_E_IO : SAT_OK;
}

/* ClickHouse's CREATE TABLE of a table of the schema: its columns in order
 * (strings Nullable: absent is not ""), and for a table with a time column
 * a DateTime derived from it (DEFAULT, not MATERIALIZED: inserts through a
 * Distributed table carry it), partitioned by that day and ordered by
 * server and time. */
static void print_ddl(FILE *f, const sat_table_def *d, const char *db)
{
    static const char *const types[] = {[SAT_COL_TS] = "Int64",  [SAT_COL_I64] = "Int64",
                                         [SAT_COL_I32] = "Int32", [SAT_COL_U16] = "UInt16",
                                         [SAT_COL_U8] = "UInt8",  [SAT_COL_STR] = "Nullable(String)"};
    int has_server = 0;
    fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s\n(\n", db, d->name);
    for (size_t i = 0; i < d->ncolumns; i++) {
        const sat_column_def *c = &d->columns[i];
        if (c->type < SAT_COL_TS || c->type > SAT_COL_STR)
            continue;
        has_server |= !strcmp(c->name, "server");
        fprintf(f, "    %s %s,\n", c->name, types[c->type]);
    }
    if (d->ts_column)
        fprintf(f, "    day_time DateTime DEFAULT toDateTime(intDiv(%s, 1000000000))\n",
                d->ts_column);
    else
        fprintf(f, "    exported UInt8 DEFAULT 1\n");
    fprintf(f, ") ENGINE = MergeTree\n");
    if (d->ts_column)
        fprintf(f, "PARTITION BY toYYYYMMDD(day_time)\nORDER BY (%s%s)\n",
                has_server ? "server, " : "", d->ts_column);
    else
        fprintf(f, "ORDER BY %s\n", has_server ? "server" : "tuple()");
    fprintf(f, ";\n\n");
}

static int run_export(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_export, &c);
    const char *output = "-", *anon_key = NULL;
    const export_format *fmt = &formats[0];
    uint32_t tables = 0;
    int ddl = 0, ntables = 0;
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUTPUT: output = optarg; break;
        case OPT_ANON_KEY: anon_key = optarg; break;
        case OPT_TABLE: {
            const sat_table_def *d = sat_table_by_name(optarg);
            if (!d)
                return sat_cli_usage_error("export", "no table '%s'", optarg);
            ntables += !(tables & SAT_TABLE_BIT(d->id));
            tables |= SAT_TABLE_BIT(d->id);
            break;
        }
        case OPT_FORMAT_OUT: {
            fmt = NULL;
            for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
                if (!strcmp(formats[i].name, optarg))
                    fmt = &formats[i];
            if (!fmt)
                return sat_cli_usage_error("export", "--as %s: not jsonl, tsv or rowbinary",
                                           optarg);
            break;
        }
        case OPT_DDL: ddl = 1; break;
        }
    }
    if (a.exit >= 0)
        return a.exit;
    if (ddl) { /* the schema's tables, no input */
        printf("CREATE DATABASE IF NOT EXISTS satscope;\n\n");
        for (int t = 0; t < SAT_TABLE__COUNT; t++)
            if (sat_table_get(t) && (!tables || (tables & SAT_TABLE_BIT(t))))
                print_ddl(stdout, sat_table_get(t), "satscope");
        return fflush(stdout) || ferror(stdout) ? SAT_EXIT_FAILED : SAT_EXIT_OK;
    }
    if (fmt->one_table && ntables != 1)
        return sat_cli_usage_error("export", "--as %s writes one table's rows: give --table "
                                             "NAME once (ldap_op, ldap_conn, tls_hs, tcp_conn, "
                                             "http_req, crash, frame, source, reject)",
                                   fmt->name);
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
    export_ctx x = {sat_out_stream(o), tables ? tables : UINT32_MAX, 0, fmt};
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
    "export", "every row of the inputs as JSON lines or for ClickHouse (optionally pseudonymised)",
    run_export,
    "INPUT... [-o FILE] [--as F] [--table NAME]... [--anonymize-key KEYFILE]\n"
    "       satscope export --ddl [--table NAME]...",
    "Every row the inputs give (logs, captures, cores, .sat traces), one JSON\n"
    "object per line: \"table\" and each column of the trace's schema by its\n"
    "name (trace/FORMAT.md), times and durations in ns, an absent string left\n"
    "out; or one table's rows in ClickHouse's TabSeparated or RowBinary, the\n"
    "columns in the order of --ddl's CREATE TABLE. With --anonymize-key,\n"
    "pseudonymised as collect --anonymize-key does.",
    export_opts, SAT_CLI_INPUT_OPTS,
    "exit: 0 ok, 1 some input rejected (the rest exported), 2 usage,\n"
    "      3 nothing could be read, or satscope could not finish (nothing written)",
    NULL};
