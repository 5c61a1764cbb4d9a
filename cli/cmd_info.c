/*
 * cmd_info.c - `satscope info TRACE.sat [--json]`: what a trace holds: format
 * version and completeness, per table rows, blocks, time range and size, per
 * column encoded and compressed bytes, the sources it was collected from and
 * the rejected lines (counted per source, the first few shown).
 */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/report.h"
#include "satscope/trace.h"

extern const sat_command sat_cmd_info;

#define INFO_REJECTS_SHOWN 20

static const char *col_type_name(int t)
{
    switch (t) {
    case SAT_COL_TS: return "ts";
    case SAT_COL_I64: return "i64";
    case SAT_COL_I32: return "i32";
    case SAT_COL_U16: return "u16";
    case SAT_COL_U8: return "u8";
    case SAT_COL_STR: return "str";
    default: return "?";
    }
}

/* Sources and the first rejects, copied out of the replay (rows are borrowed). */
typedef struct info_source {
    sat_source row;
    char *strs[7];
} info_source;

typedef struct info_reject {
    uint32_t source;
    uint64_t line_no;
    char *reason, *excerpt;
} info_reject;

typedef struct info_ctx {
    info_source *sources;
    size_t nsources, cap;
    info_reject rejects[INFO_REJECTS_SHOWN];
    size_t nrejects;
    uint64_t reject_rows;
} info_ctx;

static char *copy_str(sat_str s)
{
    if (!s.ptr)
        return NULL;
    char *p = malloc((size_t)s.len + 1);
    if (p) {
        memcpy(p, s.ptr, s.len);
        p[s.len] = '\0';
    }
    return p;
}

static int on_source(info_ctx *c, const sat_source *s)
{
    if (c->nsources == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        info_source *n = realloc(c->sources, ncap * sizeof *n);
        if (!n)
            return SAT_E_NOMEM;
        c->sources = n;
        c->cap = ncap;
    }
    info_source *d = &c->sources[c->nsources++];
    d->row = *s;
    const sat_str strs[7] = {s->path, s->kind, s->format, s->compression,
                             s->server_name, s->server_version, SAT_STR_NONE};
    for (int i = 0; i < 7; i++)
        d->strs[i] = copy_str(strs[i]);
    return SAT_OK;
}

static int on_reject(info_ctx *c, const sat_reject *r)
{
    c->reject_rows++;
    if (c->nrejects < INFO_REJECTS_SHOWN) {
        info_reject *d = &c->rejects[c->nrejects++];
        d->source = r->source;
        d->line_no = r->line_no;
        d->reason = copy_str(r->reason);
        d->excerpt = copy_str(r->excerpt);
    }
    return SAT_OK;
}

/* The sink takes sources and rejects only (all the trace reader decodes). */
static int info_row(void *vctx, int table, const void *row)
{
    if (table == SAT_TABLE_SOURCE)
        return on_source(vctx, row);
    return table == SAT_TABLE_REJECT ? on_reject(vctx, row) : SAT_OK;
}

static void info_ctx_free(info_ctx *c)
{
    for (size_t i = 0; i < c->nsources; i++)
        for (int k = 0; k < 7; k++)
            free(c->sources[i].strs[k]);
    free(c->sources);
    for (size_t i = 0; i < c->nrejects; i++) {
        free(c->rejects[i].reason);
        free(c->rejects[i].excerpt);
    }
}

static const char *source_path(const info_ctx *c, uint32_t id)
{
    for (size_t i = 0; i < c->nsources; i++)
        if (c->sources[i].row.id == id && c->sources[i].strs[0])
            return c->sources[i].strs[0];
    return "?";
}

static uint64_t total_rejects(const info_ctx *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->nsources; i++)
        n += c->sources[i].row.rejects;
    return n;
}

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

static void print_text(const char *path, const sat_trace_stat *st, const info_ctx *c,
                       const char *warning)
{
    char a[64], b[64];
    printf("trace      %s\n", path);
    char dmg[64] = "";
    if (st->ndamaged)
        snprintf(dmg, sizeof dmg, ", DAMAGED (%zu block%s unreadable)", st->ndamaged,
                 st->ndamaged == 1 ? "" : "s");
    printf("format     %u.%u, %s%s, %llu bytes\n", st->format_version >> 16,
           st->format_version & 0xffff, st->complete ? "complete" : "INCOMPLETE", dmg,
           (unsigned long long)st->file_bytes);
    if (warning)
        printf("warning    %s\n", warning);
    /* The tables below count the intact blocks: what a read of the trace gives. */
    for (size_t i = 0; i < st->ndamaged; i++) {
        char what[600];
        sat_trace_damage_describe(&st->damaged[i], what, sizeof what);
        printf("damaged    block %llu (offset %llu): %s\n",
               (unsigned long long)st->damaged[i].block,
               (unsigned long long)st->damaged[i].offset, what);
    }

    sat_ts_ns lo = 0, hi = 0;
    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        if (t->rows && t->min_ts && (!lo || t->min_ts < lo))
            lo = t->min_ts;
        if (t->rows && t->max_ts > hi)
            hi = t->max_ts;
    }
    if (lo) {
        sat_report_fmt_ts(a, sizeof a, lo);
        sat_report_fmt_ts(b, sizeof b, hi);
        printf("time range %s .. %s\n", a, b);
    }

    printf("\n%-10s %12s %7s %12s  %-30s  %s\n", "table", "rows", "blocks", "bytes",
           "from", "to");
    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        a[0] = b[0] = '\0';
        if (t->min_ts)
            sat_report_fmt_ts(a, sizeof a, t->min_ts);
        if (t->max_ts)
            sat_report_fmt_ts(b, sizeof b, t->max_ts);
        printf("%-10s %12llu %7llu %12llu  %-30s  %s\n", t->name,
               (unsigned long long)t->rows, (unsigned long long)t->blocks,
               (unsigned long long)t->compressed_bytes, or_dash(a), or_dash(b));
    }

    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        if (!t->rows)
            continue;
        printf("\ncolumns of %s (bytes encoded -> stored)\n", t->name);
        for (size_t k = 0; k < t->ncolumns; k++) {
            const sat_column_stat *col = &t->columns[k];
            printf("  %-16s %-4s %12llu -> %10llu\n", col->name, col_type_name(col->type),
                   (unsigned long long)col->encoded_bytes,
                   (unsigned long long)col->compressed_bytes);
        }
    }

    printf("\nsources (%zu)\n", c->nsources);
    for (size_t i = 0; i < c->nsources; i++) {
        const info_source *s = &c->sources[i];
        a[0] = b[0] = '\0';
        if (s->row.first_ts)
            sat_report_fmt_ts(a, sizeof a, s->row.first_ts);
        if (s->row.last_ts)
            sat_report_fmt_ts(b, sizeof b, s->row.last_ts);
        printf("  #%u %s\n     server %u, %s, %s, %llu bytes, %llu lines, %llu rejected%s\n"
               "     %s .. %s%s%s\n",
               s->row.id, or_dash(s->strs[0]), s->row.server, or_dash(s->strs[2]),
               or_dash(s->strs[3]), (unsigned long long)s->row.bytes,
               (unsigned long long)s->row.lines, (unsigned long long)s->row.rejects,
               s->row.truncated ? ", TRUNCATED" : "", or_dash(a), or_dash(b),
               s->strs[5] ? ", " : "", s->strs[5] ? s->strs[5] : "");
    }

    uint64_t total = total_rejects(c);
    printf("\nrejects    %llu", (unsigned long long)total);
    if (c->nrejects)
        printf(" (first %zu shown)", c->nrejects);
    printf("\n");
    for (size_t i = 0; i < c->nrejects; i++)
        printf("  %s:%llu: %s: %s\n", source_path(c, c->rejects[i].source),
               (unsigned long long)c->rejects[i].line_no, or_dash(c->rejects[i].reason),
               or_dash(c->rejects[i].excerpt));
}

static int print_json(const char *path, const sat_trace_stat *st, const info_ctx *c,
                      const char *warning)
{
    sat_json j;
    char ver[32];
    sat_json_init(&j, stdout);
    sat_json_document(&j);
    sat_json_str(&j, "path", path);
    snprintf(ver, sizeof ver, "%u.%u", st->format_version >> 16, st->format_version & 0xffff);
    sat_json_str(&j, "format_version", ver);
    sat_json_bool(&j, "complete", st->complete);
    sat_json_str(&j, "warning", warning);
    /* blocks whose rows are lost; "tables" counts the intact ones */
    sat_json_array(&j, "damaged");
    for (size_t i = 0; i < st->ndamaged; i++) {
        const sat_trace_damage *d = &st->damaged[i];
        const sat_table_def *def = d->table_id >= 0 ? sat_table_get(d->table_id) : NULL;
        sat_json_object(&j, NULL);
        sat_json_u64(&j, "block", d->block);
        sat_json_u64(&j, "offset", d->offset);
        sat_json_u64(&j, "bytes", d->length);
        sat_json_str(&j, "table", def ? def->name : NULL);
        if (d->rows)
            sat_json_u64(&j, "rows", d->rows);
        else
            sat_json_null(&j, "rows");
        sat_json_ts(&j, "first", d->min_ts);
        sat_json_ts(&j, "last", d->max_ts);
        sat_json_str(&j, "reason", d->reason);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_u64(&j, "bytes", st->file_bytes);
    sat_json_array(&j, "tables");
    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        sat_json_object(&j, NULL);
        sat_json_str(&j, "name", t->name);
        sat_json_u64(&j, "rows", t->rows);
        sat_json_u64(&j, "blocks", t->blocks);
        sat_json_u64(&j, "bytes", t->compressed_bytes);
        sat_json_ts(&j, "first", t->min_ts);
        sat_json_ts(&j, "last", t->max_ts);
        sat_json_array(&j, "columns");
        sat_json_set_compact_depth(&j, 5);
        for (size_t k = 0; k < t->ncolumns; k++) {
            sat_json_object(&j, NULL);
            sat_json_str(&j, "name", t->columns[k].name);
            sat_json_str(&j, "type", col_type_name(t->columns[k].type));
            sat_json_u64(&j, "encoded_bytes", t->columns[k].encoded_bytes);
            sat_json_u64(&j, "stored_bytes", t->columns[k].compressed_bytes);
            sat_json_end(&j);
        }
        sat_json_set_compact_depth(&j, 0);
        sat_json_end(&j);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_array(&j, "sources");
    for (size_t i = 0; i < c->nsources; i++) {
        const info_source *s = &c->sources[i];
        sat_json_object(&j, NULL);
        sat_json_u64(&j, "id", s->row.id);
        sat_json_u64(&j, "server", s->row.server);
        sat_json_str(&j, "path", s->strs[0]);
        sat_json_str(&j, "kind", s->strs[1]);
        sat_json_str(&j, "format", s->strs[2]);
        sat_json_str(&j, "compression", s->strs[3]);
        sat_json_str(&j, "server_name", s->strs[4]);
        sat_json_str(&j, "server_version", s->strs[5]);
        sat_json_u64(&j, "bytes", s->row.bytes);
        sat_json_u64(&j, "lines", s->row.lines);
        sat_json_u64(&j, "rejects", s->row.rejects);
        sat_json_ts(&j, "first", s->row.first_ts);
        sat_json_ts(&j, "last", s->row.last_ts);
        sat_json_i64(&j, "utc_offset_s", s->row.utc_offset_s);
        sat_json_bool(&j, "truncated", s->row.truncated);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_object(&j, "rejects");
    sat_json_u64(&j, "total", total_rejects(c));
    sat_json_array(&j, "sample");
    sat_json_set_compact_depth(&j, 3);
    for (size_t i = 0; i < c->nrejects; i++) {
        sat_json_object(&j, NULL);
        sat_json_str(&j, "source", source_path(c, c->rejects[i].source));
        sat_json_u64(&j, "line", c->rejects[i].line_no);
        sat_json_str(&j, "reason", c->rejects[i].reason);
        sat_json_str(&j, "excerpt", c->rejects[i].excerpt);
        sat_json_end(&j);
    }
    sat_json_set_compact_depth(&j, 0);
    sat_json_end(&j);
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

static const sat_cli_opt info_opts[] = {
    {"json", SAT_OPT_JSON, 0, NULL, "JSON", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_info(int argc, char **argv)
{
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_info, NULL);
    while (sat_cli_args_next(&a, argc, argv) != -1)
        ;
    if (a.exit >= 0)
        return a.exit;
    int json = a.fmt == SAT_REPORT_JSON;
    if (optind != argc - 1)
        return sat_cli_usage_error("info", "give exactly one trace");
    const char *path = argv[optind];

    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    sat_trace_reader *r = sat_trace_reader_open(path, &diag);
    if (!r) {
        sat_cli_path_error("info", path, diag.where, diag.msg);
        return SAT_EXIT_UNREADABLE;
    }
    char warning[sizeof diag.msg];
    int partial = diag.code == SAT_E_TRUNCATED;
    snprintf(warning, sizeof warning, "%s", diag.msg);

    int code = partial ? SAT_EXIT_REJECTS : SAT_EXIT_OK;
    info_ctx c;
    memset(&c, 0, sizeof c);
    sat_event_sink sink = {&c, SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                           info_row};
    sat_trace_read_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.tables = sink.tables;
    sat_trace_stat st;
    memset(&diag, 0, sizeof diag);
    int rc = sat_trace_read(r, &ro, &sink, &diag);
    if (rc < 0) {
        sat_cli_path_error("info", path, diag.where, diag.msg);
        code = SAT_EXIT_REJECTS;
    }
    memset(&diag, 0, sizeof diag);
    if (sat_trace_reader_stat(r, &st, &diag) < 0) {
        sat_cli_path_error("info", path, diag.where, diag.msg);
        code = SAT_EXIT_UNREADABLE;
    } else if (json) {
        if (print_json(path, &st, &c, partial ? warning : NULL) < 0)
            code = SAT_EXIT_UNREADABLE;
    } else {
        print_text(path, &st, &c, partial ? warning : NULL);
    }
    if (code == SAT_EXIT_OK && st.ndamaged)
        code = SAT_EXIT_REJECTS;
    info_ctx_free(&c);
    sat_trace_reader_close(r);
    return code;
}

const sat_command sat_cmd_info = {
    "info", "what a trace holds: tables, columns, sizes, sources, rejects", run_info,
    "TRACE.sat [--json]",
    "What a trace holds: format version and whether it is complete,\n"
    "per table rows, blocks, time range and bytes on disk, per column\n"
    "bytes after encoding and after compression, the sources it was\n"
    "collected from, and the rejected lines (first ones shown).\n"
    "Damaged blocks (a checksum fails) are listed with the table,\n"
    "rows and time range they held; the tables count the intact ones.",
    info_opts, 0,
    "exit: 0 ok, 1 the trace is incomplete or damaged (its intact\n"
    "      blocks are shown), 2 usage, 3 not readable as a trace"};
