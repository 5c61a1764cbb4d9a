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
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_export.h"
#include "satscope/anonymize.h"
#include "satscope/result_out.h"
#include "satscope/trace.h"

extern const sat_command sat_cmd_export;

enum { OPT_OUTPUT = 'o', OPT_ANON_KEY = 0x300, OPT_TABLE, OPT_FORMAT_OUT, OPT_DDL,
       OPT_CLICKHOUSE, OPT_USER, OPT_PASSWORD_FILE, OPT_TIMEOUT, OPT_DATABASE, OPT_CLUSTER,
       OPT_SHARD_DB, OPT_CHUNK_ROWS };

static const sat_cli_opt export_opts[] = {
    {"output", OPT_OUTPUT, 'o', "FILE",
     "the rows as JSON lines to FILE (default: standard\n"
     "output); FILE must be absent or a regular file", NULL},
    {"table", OPT_TABLE, 0, "NAME",
     "only this table's rows (ldap_op, ldap_conn, tls_hs,\n"
     "tcp_conn, http_req, crash, frame, source, reject;\n"
     "of partials: partial_op, partial_key); may be given\n"
     "again", NULL},
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
    {"clickhouse", OPT_CLICKHOUSE, 0, "URL",
     "insert the rows into ClickHouse over HTTP\n"
     "(http://host:8123/), creating what is missing; the\n"
     "same inputs exported again are not inserted twice", NULL},
    {"user", OPT_USER, 0, "NAME", "ClickHouse's user (default: its default user);\n"
     "the password: $SATSCOPE_CLICKHOUSE_PASSWORD", NULL},
    {"password-file", OPT_PASSWORD_FILE, 0, "FILE",
     "ClickHouse's password: FILE's first line", NULL},
    {"timeout", OPT_TIMEOUT, 0, "SEC",
     "give up a request to ClickHouse after SEC seconds\n(default 300)", NULL},
    {"database", OPT_DATABASE, 0, "DB", "ClickHouse's database (default satscope)", NULL},
    {"cluster", OPT_CLUSTER, 0, "NAME",
     "--ddl: Distributed tables over cluster NAME's\n"
     "shards (remote_servers), whose tables --ddl\n"
     "--database makes", NULL},
    {"shard-database", OPT_SHARD_DB, 0, "DB",
     "--cluster: the shards' database (default: each\n"
     "replica's default_database)", NULL},
    {"chunk-rows", OPT_CHUNK_ROWS, 0, "N",
     "--clickhouse: rows per request (default 1000000;\n"
     "a request also ends at 64 MB)", NULL},
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
void sat_export_put_le(FILE *f, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        fputc((int)(v >> (8 * i) & 0xff), f);
}

void sat_export_put_len(FILE *f, uint64_t n)
{
    do {
        fputc((int)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)), f);
        n >>= 7;
    } while (n);
}

void sat_export_row_rowbinary(FILE *f, const sat_table_def *d, const unsigned char *r)
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
            sat_export_put_len(f, s.len);
            fwrite(s.ptr, 1, s.len, f);
            continue;
        }
        static const int width[] = {[SAT_COL_TS] = 8, [SAT_COL_I64] = 8, [SAT_COL_I32] = 4,
                                    [SAT_COL_U16] = 2, [SAT_COL_U8] = 1};
        sat_export_put_le(f, (uint64_t)v, width[d->columns[i].type]);
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
    {"rowbinary", 1, sat_export_row_rowbinary},
};

static int export_row(void *vctx, int table, const void *row)
{
    export_ctx *x = (export_ctx *)vctx;
    const sat_table_def *d = sat_export_table(table);
    if (!d || !(x->tables & SAT_TABLE_BIT(table)))
        return SAT_OK;
    x->fmt->row(x->out, d, (const unsigned char *)row);
    x->rows++;
    return ferror(x->out) ? SAT_E_IO : SAT_OK;
}

static int exported_column(const sat_column_def *c)
{
    return c->type >= SAT_COL_TS && c->type <= SAT_COL_STR;
}

void sat_export_columns(FILE *f, const sat_table_def *d)
{
    int first = 1;
    for (size_t i = 0; i < d->ncolumns; i++)
        if (exported_column(&d->columns[i])) {
            fprintf(f, "%s%s", first ? "" : ", ", d->columns[i].name);
            first = 0;
        }
}

/* The engine of a table: MergeTree, or Distributed over the cluster's
 * tables of the same name (rows spread at random: any shard may hold any
 * server's rows, and every query reads them all). */
static void print_engine(FILE *f, const char *table, const char *cluster, const char *shard_db)
{
    if (cluster)
        fprintf(f, ") ENGINE = Distributed(%s, '%s', %s, rand())\n", cluster,
                shard_db ? shard_db : "", table);
    else
        fprintf(f, ") ENGINE = MergeTree\n");
}

/* ClickHouse's CREATE TABLE of a table of the schema: its columns in order
 * (strings Nullable: absent is not ""), the export's fingerprint (DEFAULT 0:
 * rows inserted without it), and for a table with a time column a DateTime
 * derived from it (DEFAULT, not MATERIALIZED: inserts through a Distributed
 * table carry it), partitioned by that day and ordered by server and time. */
void sat_export_print_ddl(FILE *f, const sat_table_def *d, const char *db, const char *cluster,
                          const char *shard_db)
{
    static const char *const types[] = {[SAT_COL_TS] = "Int64",  [SAT_COL_I64] = "Int64",
                                         [SAT_COL_I32] = "Int32", [SAT_COL_U16] = "UInt16",
                                         [SAT_COL_U8] = "UInt8",  [SAT_COL_STR] = "Nullable(String)"};
    int has_server = 0;
    fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s\n(\n", db, d->name);
    for (size_t i = 0; i < d->ncolumns; i++) {
        const sat_column_def *c = &d->columns[i];
        if (!exported_column(c))
            continue;
        /* a server's number orders the rows; a name is Nullable, which no
         * sorting key may hold */
        has_server |= !strcmp(c->name, "server") && c->type != SAT_COL_STR;
        fprintf(f, "    %s %s,\n", c->name, types[c->type]);
    }
    fprintf(f, "    %s UInt64 DEFAULT 0,\n", SAT_EXPORT_FP_COLUMN);
    if (d->ts_column)
        fprintf(f, "    day_time DateTime DEFAULT toDateTime(intDiv(%s, 1000000000))\n",
                d->ts_column);
    else
        fprintf(f, "    exported UInt8 DEFAULT 1\n");
    print_engine(f, d->name, cluster, shard_db);
    if (cluster)
        return;
    if (d->ts_column)
        fprintf(f, "PARTITION BY toYYYYMMDD(day_time)\nORDER BY (%s%s)\n",
                has_server ? "server, " : "", d->ts_column);
    else
        fprintf(f, "ORDER BY %s\n", has_server ? "server" : "tuple()");
}

/* The record of finished exports (cli_export_ch.c): one row per export and
 * table, written once the table's rows are all in. */
void sat_export_print_ddl_exports(FILE *f, const char *db, const char *cluster,
                                  const char *shard_db)
{
    fprintf(f, "CREATE TABLE IF NOT EXISTS %s.exports\n(\n"
               "    fingerprint UInt64,\n"
               "    table String,\n"
               "    rows UInt64,\n"
               "    files Array(UInt64),\n"
               "    inputs String,\n"
               "    exported DateTime DEFAULT now()\n",
            db);
    print_engine(f, "exports", cluster, shard_db);
    if (!cluster)
        fprintf(f, "ORDER BY (fingerprint, table)\n");
}

/* A database or cluster name goes into statements unquoted: letters,
 * digits and '_' only. */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

/* ClickHouse's password: the first line of --password-file, else
 * $SATSCOPE_CLICKHOUSE_PASSWORD, else none (""); never an argument, which
 * any user of the machine can read in ps. */
static int read_password(const char *file, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!file) {
        const char *env = getenv("SATSCOPE_CLICKHOUSE_PASSWORD");
        if (env && strlen(env) >= n)
            return sat_cli_usage_error("export", "$SATSCOPE_CLICKHOUSE_PASSWORD: too long");
        if (env)
            snprintf(buf, n, "%s", env);
        return 0;
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        sat_cli_path_error("export", file, NULL, strerror(errno));
        return SAT_EXIT_USAGE;
    }
    if (!fgets(buf, (int)n, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
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
    sat_export_ch ch = {{NULL, NULL, NULL, 300}, "satscope", 0, 0, NULL};
    const char *password_file = NULL, *cluster = NULL, *shard_db = NULL;
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUTPUT: output = optarg; break;
        case OPT_ANON_KEY: anon_key = optarg; break;
        case OPT_TABLE: {
            const sat_table_def *d = sat_export_table_by_name(optarg);
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
        case OPT_CLICKHOUSE: ch.http.url = optarg; break;
        case OPT_USER: ch.http.user = optarg; break;
        case OPT_PASSWORD_FILE: password_file = optarg; break;
        case OPT_DATABASE: ch.db = optarg; break;
        case OPT_CLUSTER: cluster = optarg; break;
        case OPT_SHARD_DB: shard_db = optarg; break;
        case OPT_TIMEOUT:
        case OPT_CHUNK_ROWS: {
            double v;
            if (sat_cli_parse_number(optarg, 1, opt == OPT_TIMEOUT ? 86400 : 1e9, &v) ||
                v != (double)(uint64_t)v)
                return sat_cli_usage_error("export", "--%s %s: not a whole number in 1 .. %s",
                                           opt == OPT_TIMEOUT ? "timeout" : "chunk-rows", optarg,
                                           opt == OPT_TIMEOUT ? "86400" : "10^9");
            if (opt == OPT_TIMEOUT)
                ch.http.timeout_s = (long)v;
            else
                ch.chunk_rows = (uint64_t)v;
            break;
        }
        }
    }
    if (a.exit >= 0)
        return a.exit;
    if (!valid_name(ch.db) || (cluster && !valid_name(cluster)) ||
        (shard_db && *shard_db && !valid_name(shard_db)))
        return sat_cli_usage_error("export", "--database, --cluster and --shard-database take "
                                             "a name of letters, digits and '_'");
    if (ddl) { /* the schema's tables, no input */
        printf("CREATE DATABASE IF NOT EXISTS %s;\n\n", ch.db);
        for (int t = 0; t < SAT_EXPORT_TABLES; t++)
            if (sat_export_table(t) && (!tables || (tables & SAT_TABLE_BIT(t)))) {
                sat_export_print_ddl(stdout, sat_export_table(t), ch.db, cluster, shard_db);
                printf(";\n\n");
            }
        if (!tables) {
            sat_export_print_ddl_exports(stdout, ch.db, cluster, shard_db);
            printf(";\n\n");
        }
        return fflush(stdout) || ferror(stdout) ? SAT_EXIT_FAILED : SAT_EXIT_OK;
    }
    if (cluster || shard_db)
        return sat_cli_usage_error("export", "--cluster and --shard-database go with --ddl");
    if (optind >= argc)
        return sat_cli_usage_error("export", "no input given");
    int partials = sat_cli_are_partials("export", argv + optind, (size_t)(argc - optind));
    if (partials < 0)
        return SAT_EXIT_USAGE;
    if (partials && anon_key)
        return sat_cli_usage_error("export", "partials are pseudonymised when they are made "
                                             "(satscope partial --anonymize-key)");
    if (ch.http.url) {
        if (output[0] != '-' || output[1] || fmt != &formats[0])
            return sat_cli_usage_error("export", "--clickhouse sends the rows to ClickHouse: "
                                                 "no -o or --as with it");
        char password[512];
        int pcode = read_password(password_file, password, sizeof password);
        if (pcode)
            return pcode;
        ch.http.password = password[0] || password_file ? password : NULL;
        sat_anon *anon = NULL;
        int kcode = sat_cli_open_anon_key("export", anon_key, &anon);
        if (kcode)
            return kcode;
        ch.tables = tables ? tables : UINT32_MAX;
        ch.anon = anon;
        int code = sat_cli_export_clickhouse(&c, argv + optind, (size_t)(argc - optind), &ch);
        memset(password, 0, sizeof password);
        sat_anon_free(anon);
        return code;
    }
    if (fmt->one_table && ntables != 1)
        return sat_cli_usage_error("export", "--as %s writes one table's rows: give --table "
                                             "NAME once (ldap_op, ldap_conn, tls_hs, tcp_conn, "
                                             "http_req, crash, frame, source, reject; of "
                                             "partials: partial_op, partial_key)",
                                   fmt->name);
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
    int none;
    int code = sat_export_source_run(&c, paths, npaths, &sink, &none);
    if (c.failed || (anon && sat_anon_failed(anon))) {
        sat_out_discard(o);
        sat_anon_free(anon);
        return sat_cli_fail("export", SAT_E_NOMEM, NULL);
    }
    sat_anon_free(anon);
    if (none) {
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
    "       satscope export INPUT... --clickhouse URL [--user NAME] [--table NAME]...\n"
    "       satscope export --ddl [--table NAME]... [--database DB] [--cluster NAME]",
    "Every row the inputs give (logs, captures, cores, .sat traces), one JSON\n"
    "object per line: \"table\" and each column of the trace's schema by its\n"
    "name (trace/FORMAT.md), times and durations in ns, an absent string left\n"
    "out; or one table's rows in ClickHouse's TabSeparated or RowBinary, the\n"
    "columns in the order of --ddl's CREATE TABLE. With --anonymize-key,\n"
    "pseudonymised as collect --anonymize-key does. Partials (.satp, satscope\n"
    "partial) give their figures as plain columns instead: per server-day and\n"
    "operation type, the counts and the latency sketch (partial_op, partial_key).\n\n"
    "With --clickhouse, every table's rows (or --table's) go into ClickHouse\n"
    "over its HTTP interface, in RowBinary, a bounded number of rows per\n"
    "request; each row carries the fingerprint of its export's inputs, so\n"
    "that exporting them again inserts nothing and an export that failed\n"
    "half-way is replaced whole (docs/clickhouse.md).",
    export_opts, SAT_CLI_INPUT_OPTS,
    "exit: 0 ok, 1 some input rejected (the rest exported), 2 usage,\n"
    "      3 nothing could be read, or satscope could not finish (nothing written),\n"
    "      or ClickHouse refused or could not be reached (said)",
    NULL};
