/*
 * cmd_info.c - `satscope info TRACE.sat [--json|--csv]`: what a trace holds: format
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
    if (SAT_GROW(c->sources, c->cap, c->nsources + 1) != SAT_OK)
        return SAT_E_NOMEM;
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

/* ---- the result: sections every form renders -------------------------------- */

static const sat_col damaged_cols[] = {
    {"block", SAT_UNIT_COUNT, 0, NULL},       {"offset", SAT_UNIT_COUNT, 0, NULL},
    {"length_bytes", SAT_UNIT_BYTES, 0, NULL}, {"table", SAT_UNIT_TEXT, 0, NULL},
    {"rows", SAT_UNIT_COUNT, 0, NULL},        {"first_ts", SAT_UNIT_TIME, 0, "from"},
    {"last_ts", SAT_UNIT_TIME, 0, "to"},      {"reason", SAT_UNIT_TEXT, 0, NULL},
};
static const sat_col table_cols[] = {
    {"name", SAT_UNIT_TEXT, 0, "table"},      {"rows", SAT_UNIT_COUNT, 0, NULL},
    {"blocks", SAT_UNIT_COUNT, 0, NULL},      {"stored_bytes", SAT_UNIT_BYTES, 0, "stored"},
    {"first_ts", SAT_UNIT_TIME, 0, "from"},   {"last_ts", SAT_UNIT_TIME, 0, "to"},
};
static const sat_col column_cols[] = {
    {"table", SAT_UNIT_TEXT, 0, NULL},         {"name", SAT_UNIT_TEXT, 0, "column"},
    {"type", SAT_UNIT_TEXT, 0, NULL},          {"encoded_bytes", SAT_UNIT_BYTES, 0, "encoded"},
    {"stored_bytes", SAT_UNIT_BYTES, 0, "stored"},
};
static const sat_col source_cols[] = {
    {"id", SAT_UNIT_COUNT, 0, NULL},           {"server", SAT_UNIT_COUNT, 0, NULL},
    {"path", SAT_UNIT_TEXT, 0, NULL},          {"kind", SAT_UNIT_TEXT, 0, NULL},
    {"format", SAT_UNIT_TEXT, 0, NULL},        {"compression", SAT_UNIT_TEXT, 0, NULL},
    {"server_name", SAT_UNIT_TEXT, 0, NULL},   {"server_version", SAT_UNIT_TEXT, 0, NULL},
    {"bytes", SAT_UNIT_BYTES, 0, NULL},        {"lines", SAT_UNIT_COUNT, 0, NULL},
    {"rejects", SAT_UNIT_COUNT, 0, NULL},      {"first_ts", SAT_UNIT_TIME, 0, NULL},
    {"last_ts", SAT_UNIT_TIME, 0, NULL},       {"utc_offset_s", SAT_UNIT_DURATION, 0, NULL},
    {"truncated", SAT_UNIT_BOOL, 0, NULL},
};
static const sat_col reject_cols[] = {
    {"source", SAT_UNIT_TEXT, 0, NULL}, {"line", SAT_UNIT_COUNT, 0, NULL},
    {"reason", SAT_UNIT_TEXT, 0, NULL}, {"excerpt", SAT_UNIT_TEXT, 0, NULL},
};
#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

/* The CSV tables of info, the main one first (sat_result_tables' paths). */
static const char *const info_csv_tables[] = {"tables", "columns", "sources", "damaged",
                                              "reject_samples", NULL};

static void build_result(sat_result *res, const char *path, const sat_trace_stat *st,
                         const info_ctx *c, const char *warning)
{
    sat_rnode *root = sat_result_root(res);
    char ver[32];
    sat_put_text(root, "path", path);
    snprintf(ver, sizeof ver, "%u.%u", st->format_version >> 16, st->format_version & 0xffff);
    sat_put_text(root, "format_version", ver);
    sat_put_bool(root, "complete", st->complete);
    /* said only of a pseudonymised trace, so the others' output is unchanged */
    if (st->flags & SAT_TRACE_F_PSEUDONYMISED)
        sat_put_bool(root, "pseudonymised", 1);
    sat_put_text(root, "warning", warning);
    sat_put_bytes(root, "file_bytes", st->file_bytes);
    sat_ts_ns lo = 0, hi = 0;
    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        if (t->rows && t->min_ts && (!lo || t->min_ts < lo))
            lo = t->min_ts;
        if (t->rows && t->max_ts > hi)
            hi = t->max_ts;
    }
    sat_put_time(root, "first_ts", lo);
    sat_put_time(root, "last_ts", hi);
    /* blocks whose rows are lost; "tables" counts the intact ones */
    sat_rnode *dmg = sat_table(root, "damaged", damaged_cols, NCOLS(damaged_cols));
    for (size_t i = 0; i < st->ndamaged; i++) {
        const sat_trace_damage *d = &st->damaged[i];
        const sat_table_def *def = d->table_id >= 0 ? sat_table_get(d->table_id) : NULL;
        char what[600];
        sat_trace_damage_describe(d, what, sizeof what);
        sat_rnode *row = sat_table_row(dmg);
        sat_put_count(row, "block", d->block);
        sat_put_count(row, "offset", d->offset);
        sat_put_bytes(row, "length_bytes", d->length);
        sat_put_text(row, "table", def ? def->name : NULL);
        if (d->rows)
            sat_put_count(row, "rows", d->rows);
        else
            sat_put_absent(row, "rows", SAT_UNIT_COUNT);
        sat_put_time(row, "first_ts", d->min_ts);
        sat_put_time(row, "last_ts", d->max_ts);
        sat_put_text(row, "reason", what);
    }
    sat_rnode *tabs = sat_table(root, "tables", table_cols, NCOLS(table_cols));
    sat_result_set_main(res, tabs);
    sat_rnode *cols = sat_table(root, "columns", column_cols, NCOLS(column_cols));
    for (size_t i = 0; i < st->ntables; i++) {
        const sat_table_stat *t = &st->tables[i];
        sat_rnode *row = sat_table_row(tabs);
        sat_put_text(row, "name", t->name);
        sat_put_count(row, "rows", t->rows);
        sat_put_count(row, "blocks", t->blocks);
        sat_put_bytes(row, "stored_bytes", t->compressed_bytes);
        sat_put_time(row, "first_ts", t->min_ts);
        sat_put_time(row, "last_ts", t->max_ts);
        for (size_t k = 0; t->rows && k < t->ncolumns; k++) {
            sat_rnode *cr = sat_table_row(cols);
            sat_put_text(cr, "table", t->name);
            sat_put_text(cr, "name", t->columns[k].name);
            sat_put_text(cr, "type", col_type_name(t->columns[k].type));
            sat_put_bytes(cr, "encoded_bytes", t->columns[k].encoded_bytes);
            sat_put_bytes(cr, "stored_bytes", t->columns[k].compressed_bytes);
        }
    }
    sat_rnode *srcs = sat_table(root, "sources", source_cols, NCOLS(source_cols));
    for (size_t i = 0; i < c->nsources; i++) {
        const info_source *s = &c->sources[i];
        sat_rnode *row = sat_table_row(srcs);
        sat_put_count(row, "id", s->row.id);
        sat_put_count(row, "server", s->row.server);
        static const char *const keys[6] = {"path",        "kind",        "format",
                                            "compression", "server_name", "server_version"};
        for (int k = 0; k < 6; k++)
            sat_put_text(row, keys[k], s->strs[k]);
        sat_put_bytes(row, "bytes", s->row.bytes);
        sat_put_count(row, "lines", s->row.lines);
        sat_put_count(row, "rejects", s->row.rejects);
        sat_put_time(row, "first_ts", s->row.first_ts);
        sat_put_time(row, "last_ts", s->row.last_ts);
        sat_put_dur(row, "utc_offset_s", (double)s->row.utc_offset_s, 0);
        sat_put_bool(row, "truncated", s->row.truncated);
    }
    sat_put_count(root, "rejects", total_rejects(c));
    sat_rnode *sample = sat_table(root, "reject_samples", reject_cols, NCOLS(reject_cols));
    for (size_t i = 0; i < c->nrejects; i++) {
        sat_rnode *row = sat_table_row(sample);
        sat_put_text(row, "source", source_path(c, c->rejects[i].source));
        sat_put_count(row, "line", c->rejects[i].line_no);
        sat_put_text(row, "reason", c->rejects[i].reason);
        sat_put_text(row, "excerpt", c->rejects[i].excerpt);
    }
}

/* ---- text, from the result only ------------------------------------------------ */

static const char *text_of(const sat_rnode *n, const char *key, char *buf, size_t len)
{
    sat_fmt_value(buf, len, sat_rnode_val(n, key));
    return buf;
}

static int print_text(sat_result *res, sat_text *t)
{
    const sat_rnode *root = sat_result_root(res);
    char a[512], b[64], c[64];
    const sat_rnode *dmg = sat_rnode_get(root, "damaged");
    size_t nd = sat_rnode_count(dmg);
    const sat_value *complete = sat_rnode_val(root, "complete");
    sat_text_line(t, "trace      %s", text_of(root, "path", a, sizeof a));
    char dm[64] = "";
    if (nd)
        snprintf(dm, sizeof dm, ", DAMAGED (%zu %s unreadable)", nd,
                 sat_plural(nd, "block", "blocks"));
    sat_text_line(t, "format     %s, %s%s, %s", text_of(root, "format_version", b, sizeof b),
                  complete && complete->v.i ? "complete" : "INCOMPLETE", dm,
                  text_of(root, "file_bytes", c, sizeof c));
    const sat_value *ps = sat_rnode_val(root, "pseudonymised");
    if (ps && !ps->absent && ps->v.i)
        sat_text_line(t, "privacy    pseudonymised (collect --anonymize-key): DN and filter "
                      "values, addresses and names are keyed pseudonyms (docs/privacy.md)");
    const sat_value *w = sat_rnode_val(root, "warning");
    if (w && !w->absent)
        sat_text_line(t, "warning    %s", w->v.s);
    for (const sat_rnode *r = sat_rnode_first(dmg); r; r = sat_rnode_next(r)) {
        char blk[32], off[32];
        sat_fmt_value(blk, sizeof blk, sat_row_get(r, "block"));
        sat_fmt_value(off, sizeof off, sat_row_get(r, "offset"));
        sat_fmt_value(a, sizeof a, sat_row_get(r, "reason"));
        sat_text_line(t, "damaged    block %s (offset %s): %s", blk, off, a);
    }
    const sat_value *lo = sat_rnode_val(root, "first_ts");
    if (lo && !lo->absent)
        sat_text_line(t, "time range %s .. %s", text_of(root, "first_ts", b, sizeof b),
                      text_of(root, "last_ts", c, sizeof c));
    /* The tables count the intact blocks: what a read of the trace gives. */
    sat_text_title(t, "Tables");
    sat_text_table(t, sat_rnode_get(root, "tables"), NULL, 0, NULL);
    const sat_rnode *cols = sat_rnode_get(root, "columns");
    sat_text_title(t, "Columns (bytes encoded and stored)");
    sat_text_table(t, cols, NULL, 0, NULL);
    const sat_rnode *srcs = sat_rnode_get(root, "sources");
    size_t ns = sat_rnode_count(srcs);
    sat_text_title(t, "Sources (%zu)", ns);
    for (const sat_rnode *r = sat_rnode_first(srcs); r; r = sat_rnode_next(r)) {
        char v[8][256];
        static const char *const k[8] = {"id",    "path",    "server",  "format",
                                         "compression", "bytes", "lines", "rejects"};
        for (int i = 0; i < 8; i++)
            sat_fmt_value(v[i], sizeof v[i], sat_row_get(r, k[i]));
        const sat_value *tr = sat_row_get(r, "truncated");
        uint64_t lines = sat_row_get(r, "lines")->v.u;
        sat_text_line(t, "  #%s %s", v[0], v[1]);
        /* the server's name when the log or --server gave one */
        const sat_value *sn = sat_row_get(r, "server_name");
        char srv[320];
        snprintf(srv, sizeof srv, "%s%s%s%s", v[2], sn && !sn->absent ? " (" : "",
                 sn && !sn->absent ? sn->v.s : "", sn && !sn->absent ? ")" : "");
        sat_text_line(t, "     server %s, %s, %s, %s, %s %s, %s rejected%s", srv, v[3], v[4],
                      v[5], v[6], sat_plural(lines, "line", "lines"), v[7],
                      tr && tr->v.i ? ", TRUNCATED" : "");
        char f[64], l[64], ver[256];
        sat_fmt_value(f, sizeof f, sat_row_get(r, "first_ts"));
        sat_fmt_value(l, sizeof l, sat_row_get(r, "last_ts"));
        const sat_value *sv = sat_row_get(r, "server_version");
        snprintf(ver, sizeof ver, "%s%s", sv && !sv->absent ? ", " : "",
                 sv && !sv->absent ? sv->v.s : "");
        sat_text_line(t, "     %s .. %s%s", f, l, ver);
    }
    const sat_rnode *sample = sat_rnode_get(root, "reject_samples");
    size_t nr = sat_rnode_count(sample);
    char shown[64] = "";
    if (nr)
        snprintf(shown, sizeof shown, " (first %zu shown)", nr);
    sat_text_title(t, "Rejects    %s%s", text_of(root, "rejects", a, sizeof a), shown);
    for (const sat_rnode *r = sat_rnode_first(sample); r; r = sat_rnode_next(r)) {
        char src[512], ln[32], why[512], ex[1024];
        sat_fmt_value(src, sizeof src, sat_row_get(r, "source"));
        sat_fmt_value(ln, sizeof ln, sat_row_get(r, "line"));
        sat_fmt_value(why, sizeof why, sat_row_get(r, "reason"));
        sat_fmt_value(ex, sizeof ex, sat_row_get(r, "excerpt"));
        sat_text_line(t, "  %s:%s: %s: %s", src, ln, why, ex);
    }
    return SAT_OK;
}

static const sat_cli_opt info_opts[] = {
    {"json", SAT_OPT_JSON, 0, NULL, "JSON", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL, "CSV: one row per table (--csv NAME: another table)",
     NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR", "every CSV table as DIR/NAME.csv", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_info(int argc, char **argv)
{
    sat_cli_collect out; /* only its output options: --csv NAME, --csv-dir, --wide */
    memset(&out, 0, sizeof out);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_info, &out);
    while (sat_cli_args_next(&a, argc, argv) != -1)
        ;
    if (a.exit >= 0)
        return a.exit;
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
    /* read with a warning: a partial trace, a damaged file header */
    int partial = diag.code == SAT_E_TRUNCATED || diag.code == SAT_E_CORRUPT;
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
    } else {
        sat_result *res = sat_result_new("info");
        if (res)
            build_result(res, path, &st, &c, partial ? warning : NULL);
        if (sat_cli_render_result(&out, res, a.fmt, print_text) < 0)
            code = SAT_EXIT_UNREADABLE;
        sat_result_free(res);
    }
    if (code == SAT_EXIT_OK && st.ndamaged)
        code = SAT_EXIT_REJECTS;
    info_ctx_free(&c);
    sat_trace_reader_close(r);
    return code;
}

const sat_command sat_cmd_info = {
    "info", "what a trace holds: tables, columns, sizes, sources, rejects", run_info,
    "TRACE.sat [--json|--csv [NAME]|--csv-dir DIR] [--wide]",
    "What a trace holds: format version and whether it is complete,\n"
    "per table rows, blocks, time range and bytes on disk, per column\n"
    "bytes after encoding and after compression, the sources it was\n"
    "collected from, and the rejected lines (first ones shown).\n"
    "Damaged blocks (a checksum fails) are listed with the table,\n"
    "rows and time range they held; the tables count the intact ones.",
    info_opts, SAT_CLI_REPORT_OPTS,
    "exit: 0 ok, 1 the trace is incomplete or damaged (its intact\n"
    "      blocks are shown), 2 usage, 3 not readable as a trace",
    info_csv_tables};
