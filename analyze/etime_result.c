/*
 * etime_result.c - the etime analyzer's results as result sections
 * (satscope/result.h), built once at the end from its view (analyze.h
 * sat_etime_view), which every form renders: JSON and CSV by the one writer,
 * text by report/sections/section_etime*.c. Key names follow docs/output.md: times in
 * *_ts, seconds in *_s, shares 0..1, a grouped table's key column named after
 * its dimension ("op", "client", ...; "start_ts" for minutes, which are a
 * time series) and "by" saying which.
 *
 * A figure counted from a field no input can carry (fields.h) is absent
 * (null), not 0; the "not_logged" table says which fields and why, and the
 * text notes come from it.
 *
 * Requests of HTTP logs have sections of their own (etime_http_result.c):
 * on HTTP logs alone they are the result, with the inputs; beside a
 * directory's logs, its "http" object.
 *
 * Building is linear in the view's rows and runs once, after the last row.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "etime_names.h"
#include "etime_result_int.h"

#define DUR 9   /* seconds: nanosecond resolution */
#define FRAC 6  /* shares, rates */

static void notes_str(uint16_t notes, char *buf)
{
    size_t o = 0;
    for (int b = 0; b < 7; b++)
        if (notes & (1u << b)) {
            if (o)
                buf[o++] = ',';
            buf[o++] = SAT_NOTE_LETTERS[b];
        }
    buf[o] = '\0';
}

/* ---- figures the inputs cannot hold (fields.h) -------------------------------------- */

static int fknown(const sat_etime_view *v, int field)
{
    return (v->fields_known & SAT_FIELD_BIT(field)) != 0;
}

/* A count from `field`: absent when no input can carry it. */
static void fcount(sat_rnode *o, const char *key, const sat_etime_view *v, int field, uint64_t n)
{
    if (fknown(v, field))
        sat_put_count(o, key, n);
    else
        sat_put_absent(o, key, SAT_UNIT_COUNT);
}

/* the first of two fields that is not known, else the first partial one */
static int fworst(const sat_etime_view *v, int a, int b)
{
    if (!fknown(v, a))
        return a;
    if (!fknown(v, b))
        return b;
    return v->fields_without[a] ? a : b;
}

/* ---- grouped rows ---------------------------------------------------------------- */

/* The columns of a row of "where the time went"; [0] is the key column, named
 * after the table's dimension. */
static const sat_col row_cols[] = {
    {"op", SAT_UNIT_TEXT, 0, NULL},
    {"count", SAT_UNIT_COUNT, 0, NULL},
    {"results", SAT_UNIT_COUNT, 0, NULL},
    {"errors", SAT_UNIT_COUNT, 0, NULL},
    {"rate_per_s", SAT_UNIT_RATE, FRAC, "rate"},
    {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
    {"p50_s", SAT_UNIT_DURATION, DUR, "p50"},
    {"p90_s", SAT_UNIT_DURATION, DUR, "p90"},
    {"p99_s", SAT_UNIT_DURATION, DUR, "p99"},
    {"p999_s", SAT_UNIT_DURATION, DUR, "p99.9"},
    {"max_s", SAT_UNIT_DURATION, DUR, "max"},
    {"total_s", SAT_UNIT_DURATION, DUR, "total"},
    {"share", SAT_UNIT_RATIO, FRAC, NULL},
    {"wtime_mean_s", SAT_UNIT_DURATION, DUR, "wtime"},
    {"optime_mean_s", SAT_UNIT_DURATION, DUR, "optime"},
};
#define NROW_COLS (sizeof row_cols / sizeof row_cols[0])

/* "2025-06-09T14:20:00Z" (the minute groups' keys) -> ns; 0 if not one. */
static int64_t parse_minute(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char z = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                     &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    /* days from the civil date (no timegm in C11) */
    int64_t y = tm.tm_year + 1900, m = tm.tm_mon + 1, d = tm.tm_mday;
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return ((days * 86400) + tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) * 1000000000LL;
}

void et_put_row_times(sat_rnode *o, const sat_etime_row *r)
{
    sat_put_rate(o, "rate_per_s", r->rate, FRAC);
    sat_put_dur(o, "mean_s", r->mean_s, DUR);
    sat_put_dur(o, "p50_s", r->p50_s, DUR);
    sat_put_dur(o, "p90_s", r->p90_s, DUR);
    sat_put_dur(o, "p99_s", r->p99_s, DUR);
    sat_put_dur(o, "p999_s", r->p999_s, DUR);
    sat_put_dur(o, "max_s", r->max_s, DUR);
    sat_put_dur(o, "total_s", r->total_s, DUR);
    sat_put_ratio(o, "share", r->share, FRAC);
}

static void put_row(sat_rnode *t, const char *keycol, int key_is_time, const sat_etime_row *r)
{
    sat_rnode *o = sat_table_row(t);
    if (key_is_time)
        sat_put_time(o, keycol, parse_minute(r->key));
    else
        sat_put_text(o, keycol, r->key);
    sat_put_count(o, "count", r->count);
    sat_put_count(o, "results", r->results);
    sat_put_count(o, "errors", r->errors);
    et_put_row_times(o, r);
    sat_put_dur(o, "wtime_mean_s", r->wtime_mean_s, DUR);
    sat_put_dur(o, "optime_mean_s", r->optime_mean_s, DUR);
}

static sat_rnode *row_table(sat_rnode *parent, const char *name, const char *keycol, int is_time)
{
    sat_col cols[NROW_COLS];
    memcpy(cols, row_cols, sizeof cols);
    cols[0].name = keycol;
    cols[0].unit = is_time ? SAT_UNIT_TIME : SAT_UNIT_TEXT;
    return sat_table(parent, name, cols, NROW_COLS);
}

/* A top-N list: table NAME (KEYCOL, count, total_s) and NAME_distinct,
 * NAME_folded beside it. */
static void kv_table(sat_rnode *parent, const char *name, const char *keycol,
                     const sat_etime_kvlist *l, int with_total)
{
    const sat_col cols[] = {{keycol, SAT_UNIT_TEXT, 0, NULL},
                            {"count", SAT_UNIT_COUNT, 0, NULL},
                            {"total_s", SAT_UNIT_DURATION, DUR, "etime total"}};
    sat_rnode *t = sat_table(parent, name, cols, with_total ? 3 : 2);
    for (size_t i = 0; i < l->n; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, keycol, l->rows[i].key);
        sat_put_count(o, "count", l->rows[i].count);
        if (with_total)
            sat_put_dur(o, "total_s", l->rows[i].total_s, DUR);
    }
    if (!with_total)
        return;
    char k[96];
    snprintf(k, sizeof k, "%s_distinct", name);
    sat_put_count(parent, k, l->unique);
    snprintf(k, sizeof k, "%s_folded", name);
    sat_put_count(parent, k, l->folded);
}

/* ---- sections ------------------------------------------------------------------------ */

static void inputs(sat_rnode *root, const sat_etime_view *v)
{
    static const sat_col cols[] = {
        {"path", SAT_UNIT_TEXT, 0, NULL},          {"format", SAT_UNIT_TEXT, 0, NULL},
        {"compression", SAT_UNIT_TEXT, 0, NULL},   {"bytes", SAT_UNIT_BYTES, 0, NULL},
        {"lines", SAT_UNIT_COUNT, 0, NULL},        {"rejects", SAT_UNIT_COUNT, 0, "rejected"},
        {"truncated", SAT_UNIT_BOOL, 0, NULL}};
    sat_rnode *t = sat_table(root, "inputs", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < v->nsources; i++) {
        const sat_etime_source_info *s = &v->sources[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "path", s->path);
        sat_put_text(o, "format", s->format);
        sat_put_text(o, "compression", s->compression);
        sat_put_bytes(o, "bytes", s->bytes);
        sat_put_count(o, "lines", s->lines);
        sat_put_count(o, "rejects", s->rejects);
        sat_put_bool(o, "truncated", s->truncated);
    }
    static const sat_col rcols[] = {{"path", SAT_UNIT_TEXT, 0, NULL},
                                    {"line", SAT_UNIT_COUNT, 0, NULL},
                                    {"reason", SAT_UNIT_TEXT, 0, NULL},
                                    {"excerpt", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(root, "reject_samples", rcols, 4);
    for (size_t i = 0; i < v->nreject_samples; i++) {
        const sat_etime_reject_info *r = &v->reject_samples[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "path", r->path);
        sat_put_count(o, "line", r->line_no);
        sat_put_text(o, "reason", r->reason);
        sat_put_text(o, "excerpt", r->excerpt);
    }
}

static void internal_ops(sat_rnode *root, const sat_etime_view *v)
{
    if (!v->internal_ops && v->by != SAT_ETIME_BY_INTERNAL)
        return;
    sat_rnode *io = sat_obj(root, "internal_operations");
    sat_put_count(io, "total", v->internal_ops);
    sat_put_count(io, "of_clients", v->internal_of_clients);
    sat_put_count(io, "of_server", v->internal_of_server);
    sat_put_count(io, "of_operations_not_in_input", v->internal_orphans);
    sat_put_count(io, "unattributed", v->internal_unattributed);
    uint64_t by_type[SAT_OP__COUNT] = {0}, nested = 0;
    for (size_t g = 0; g < v->niparents; g++)
        for (size_t i = 0; i < v->iparents[g].nrows; i++) {
            const sat_etime_irow *r = &v->iparents[g].rows[i];
            for (int k = 0; k < SAT_OP__COUNT; k++)
                if (!strcmp(r->type, sat_optype_name(k)))
                    by_type[k] += r->count;
            if (r->depth >= 2)
                nested += r->count;
        }
    sat_rnode *bt = sat_obj(io, "by_type");
    sat_set_compact(bt);
    for (int k = 0; k < SAT_OP__COUNT; k++)
        if (by_type[k])
            sat_put_count(bt, sat_optype_name(k), by_type[k]);
    sat_put_count(io, "nested", nested);

    static const sat_col gcols[] = {
        {"op", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},
        {"operations", SAT_UNIT_COUNT, 0, NULL},
        {"internal", SAT_UNIT_COUNT, 0, NULL},
        {"operations_etime_s", SAT_UNIT_DURATION, DUR, NULL},
        {"internal_s", SAT_UNIT_DURATION, DUR, NULL},
        {"share", SAT_UNIT_RATIO, FRAC, NULL}};
    sat_rnode *gt = sat_table(io, "groups", gcols, sizeof gcols / sizeof gcols[0]);
    for (size_t g = 0; g < v->niparents; g++) {
        const sat_etime_iparent *p = &v->iparents[g];
        sat_rnode *o = sat_table_row(gt);
        sat_put_text(o, "op", p->type);
        sat_put_text(o, "base", p->base);
        sat_put_count(o, "operations", p->parents);
        sat_put_count(o, "internal", p->internal);
        sat_put_dur(o, "operations_etime_s", p->parents_etime_s, DUR);
        sat_put_dur(o, "internal_s", p->internal_s, DUR);
        sat_put_ratio(o, "share", p->share, FRAC);
    }
    /* every row of every group, its group's op and base first (one CSV) */
    static const sat_col rcols[] = {
        {"parent_op", SAT_UNIT_TEXT, 0, NULL},
        {"parent_base", SAT_UNIT_TEXT, 0, NULL},
        {"parent_operations", SAT_UNIT_COUNT, 0, NULL},
        {"depth", SAT_UNIT_COUNT, 0, NULL},
        {"op", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},
        {"scope", SAT_UNIT_TEXT, 0, NULL},
        {"filter", SAT_UNIT_TEXT, 0, NULL},
        {"count", SAT_UNIT_COUNT, 0, NULL},
        {"per_operation", SAT_UNIT_NUMBER, FRAC, "per op"},
        {"errors", SAT_UNIT_COUNT, 0, NULL},
        {"total_s", SAT_UNIT_DURATION, DUR, "total"},
        {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
        {"max_s", SAT_UNIT_DURATION, DUR, "max"},
        {"share", SAT_UNIT_RATIO, FRAC, NULL}};
    sat_rnode *rt = sat_table(io, "ops", rcols, sizeof rcols / sizeof rcols[0]);
    for (size_t g = 0; g < v->niparents; g++) {
        const sat_etime_iparent *p = &v->iparents[g];
        for (size_t i = 0; i < p->nrows; i++) {
            const sat_etime_irow *r = &p->rows[i];
            sat_rnode *o = sat_table_row(rt);
            sat_put_text(o, "parent_op", p->type);
            sat_put_text(o, "parent_base", p->base);
            sat_put_count(o, "parent_operations", p->parents);
            sat_put_count(o, "depth", r->depth);
            sat_put_text(o, "op", r->type);
            sat_put_text(o, "base", r->base);
            sat_put_text(o, "scope", r->scope);
            sat_put_text(o, "filter", r->filter);
            sat_put_count(o, "count", r->count);
            sat_put_num(o, "per_operation", r->per_parent, FRAC);
            sat_put_count(o, "errors", r->errors);
            sat_put_dur(o, "total_s", r->total_s, DUR);
            sat_put_dur(o, "mean_s", r->mean_s, DUR);
            sat_put_dur(o, "max_s", r->max_s, DUR);
            sat_put_ratio(o, "share", r->share, FRAC);
        }
    }
}

static void operations(sat_rnode *root, const sat_etime_view *v)
{
    sat_rnode *o = sat_obj(root, "operation_stats");
    sat_put_count(o, "total", v->ops);
    sat_put_count(o, "answered", v->more.answered);
    sat_put_count(o, "expecting_result", v->more.expect_result);
    /* logconv's "Overall Performance": answered / expecting an answer */
    sat_put_ratio(o, "answered_ratio",
                  v->more.expect_result ? (double)v->more.answered / (double)v->more.expect_result
                                        : NAN,
                  FRAC);
    sat_put_count(o, "results", v->results);
    sat_put_count(o, "unfinished", v->unfinished);
    sat_put_count(o, "no_request", v->no_request);
    sat_put_count(o, "internal", v->internal_ops);
    sat_put_count(o, "persistent_searches", v->persistent);
    fcount(o, "paged_searches", v, SAT_FIELD_CONTROLS, v->paged);
    sat_put_count(o, "whole_subtree_searches", v->whole_base_searches);
    sat_put_count(o, "proxied_auth", v->more.proxied);
    fcount(o, "vlv", v, SAT_FIELD_CONTROLS, v->more.vlv);
    int vf = fworst(v, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES);
    fcount(o, "vlv_unindexed", v, vf, v->more.vlv_unindexed);
    fcount(o, "vlv_unindexed_components", v, vf, v->more.vlv_unindexed_components);
    fcount(o, "sort", v, SAT_FIELD_CONTROLS, v->more.sort);
    sat_put_count(o, "entries_returned", v->entries);
    sat_put_count(o, "entry_lines", v->more.entry_lines);
    sat_put_count(o, "referral_lines", v->more.referral_lines);
    sat_put_count(o, "extended", v->ext_ops);
    sat_put_count(o, "abandons", v->abandons);
    sat_put_count(o, "unbinds", v->unbinds);
    sat_put_count(o, "restarts", v->restarts);
    if (v->restarts) {
        sat_put_count(o, "restarts_start_line", v->restarts_start_line);
        sat_put_count(o, "restarts_connection_number", v->restarts_number);
    }
    sat_put_dur(o, "etime_mean_s", fknown(v, SAT_FIELD_ETIME) ? v->all.mean_s : NAN, DUR);
    sat_put_dur(o, "wtime_mean_s", fknown(v, SAT_FIELD_WTIME) ? v->all.wtime_mean_s : NAN, DUR);
    sat_put_dur(o, "optime_mean_s", fknown(v, SAT_FIELD_WTIME) ? v->all.optime_mean_s : NAN,
                DUR);
}

static void connections(sat_rnode *root, const sat_etime_view *v)
{
    sat_rnode *c = sat_obj(root, "connection_stats");
    sat_put_count(c, "total", v->conns);
    sat_put_count(c, "opened", v->conns - v->conns_no_open);
    sat_put_count(c, "no_open_line", v->conns_no_open);
    sat_rnode *bl = sat_obj(c, "by_listener");
    sat_set_compact(bl);
    for (int l = SAT_LISTENER_LDAP; l < SAT_LISTENER__COUNT; l++)
        sat_put_count(bl, sat_listener_name(l), v->by_listener[l]);
    if (v->by_listener[SAT_LISTENER_UNKNOWN])
        sat_put_count(bl, "unknown", v->by_listener[SAT_LISTENER_UNKNOWN]);
    sat_put_count(c, "peak_concurrent", v->peak_concurrent);
    sat_put_time(c, "peak_ts", v->peak_concurrent ? v->peak_at : 0);
    sat_put_text(c, "peak_method",
                 "connections open at once per server, counted in log order as they "
                 "open and close; a connection without an open line counts from the "
                 "start of the input, one never closed to its end (rows of a 1.0 "
                 "trace: a sweep of their open and close times)");
    sat_put_count(c, "unclosed", v->conns_unclosed);
    fcount(c, "fds_taken", v, SAT_FIELD_FD, v->fds_taken);
    fcount(c, "fds_returned", v, SAT_FIELD_FD, v->fds_returned);
    if (v->highest_fd >= 0 && fknown(v, SAT_FIELD_FD))
        sat_put_int(c, "highest_fd", v->highest_fd);
    else
        sat_put_absent(c, "highest_fd", SAT_UNIT_INT);
    fcount(c, "broken_pipe", v, SAT_FIELD_CLOSE_ERRNO, v->broken_pipe);
    fcount(c, "reset_by_peer", v, SAT_FIELD_CLOSE_ERRNO, v->reset_by_peer);
    fcount(c, "resource_unavailable", v, SAT_FIELD_CLOSE_ERRNO, v->resource_unavailable);
    fcount(c, "max_ber_exceeded", v, SAT_FIELD_CLOSE_CODE, v->max_ber_exceeded);
    fcount(c, "lost", v, SAT_FIELD_CLOSE_LOST, v->lost);
    fcount(c, "lost_on_write", v, SAT_FIELD_CLOSE_LOST, v->lost_on_write);
    static const sat_col tcols[] = {{"version", SAT_UNIT_TEXT, 0, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *t = sat_table(c, "tls_versions", tcols, 2);
    for (size_t i = 0; i < v->tls_versions.n; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "version", v->tls_versions.rows[i].key);
        sat_put_count(o, "count", v->tls_versions.rows[i].count);
    }

    static const sat_col ccols[] = {{"close_code", SAT_UNIT_TEXT, 0, "code"},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(root, "close_codes", ccols, 3);
    for (int k = 1; k < SAT_CLOSE__COUNT; k++) {
        if (!v->by_close_code[k])
            continue;
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "close_code", sat_close_code_name(k));
        sat_put_count(o, "count", v->by_close_code[k]);
        sat_put_text(o, "meaning", sat_close_code_meaning(k));
    }
}

static void codes_notes(sat_rnode *root, const sat_etime_view *v)
{
    static const sat_col ecols[] = {{"result_code", SAT_UNIT_INT, 0, "err"},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"name", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "result_codes", ecols, 3);
    for (size_t i = 0; i < v->nerrors; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_int(o, "result_code", v->errors[i].code);
        sat_put_count(o, "count", v->errors[i].count);
        sat_put_text(o, "name", sat_ldap_result_name(v->errors[i].code));
    }
    static const sat_col ncols[] = {{"note", SAT_UNIT_TEXT, 0, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(root, "note_counts", ncols, 3);
    for (int b = 0; b < 7; b++) {
        char k[2] = {SAT_NOTE_LETTERS[b], 0};
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "note", k);
        fcount(o, "count", v, SAT_FIELD_NOTES, v->notes[b]);
        sat_put_text(o, "meaning", sat_note_meaning(b));
    }

    sat_rnode *u = sat_obj(root, "unindexed");
    fcount(u, "total", v, SAT_FIELD_NOTES, v->unindexed_total);
    fcount(u, "distinct", v, SAT_FIELD_NOTES, v->unindexed_distinct);
    fcount(u, "folded", v, SAT_FIELD_NOTES, v->unindexed_folded);
    static const sat_col ucols[] = {
        {"count", SAT_UNIT_COUNT, 0, NULL},    {"notes", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},      {"filter", SAT_UNIT_TEXT, 0, NULL},
        {"client", SAT_UNIT_TEXT, 0, NULL},    {"binddn", SAT_UNIT_TEXT, 0, NULL},
        {"max_s", SAT_UNIT_DURATION, DUR, "etime max"},
        {"total_s", SAT_UNIT_DURATION, DUR, "etime total"},
        {"nentries_max", SAT_UNIT_INT, 0, NULL},
        {"first_ts", SAT_UNIT_TIME, 0, NULL},  {"first_conn_id", SAT_UNIT_INT, 0, NULL},
        {"first_op_id", SAT_UNIT_INT, 0, NULL}};
    t = sat_table(u, "searches", ucols, sizeof ucols / sizeof ucols[0]);
    for (size_t i = 0; i < v->nunindexed; i++) {
        const sat_etime_unindexed *x = &v->unindexed[i];
        char nb[16];
        notes_str(x->notes, nb);
        sat_rnode *o = sat_table_row(t);
        sat_put_count(o, "count", x->count);
        sat_put_text(o, "notes", nb);
        sat_put_text(o, "base", x->base);
        sat_put_text(o, "filter", x->filter);
        sat_put_text(o, "client", x->client);
        sat_put_text(o, "binddn", x->binddn);
        sat_put_dur(o, "max_s", x->etime_max_s, DUR);
        sat_put_dur(o, "total_s", x->etime_total_s, DUR);
        if (x->nentries_max >= 0)
            sat_put_int(o, "nentries_max", x->nentries_max);
        else
            sat_put_absent(o, "nentries_max", SAT_UNIT_INT);
        sat_put_time(o, "first_ts", x->first_ts);
        sat_put_int(o, "first_conn_id", x->first_conn);
        sat_put_int(o, "first_op_id", x->first_op);
    }
}

static void binds(sat_rnode *root, const sat_etime_view *v)
{
    sat_rnode *b = sat_obj(root, "binds");
    sat_put_count(b, "total", v->binds);
    fcount(b, "ldap_v2", v, SAT_FIELD_BIND_VERSION, v->more.binds_v2);
    fcount(b, "ldap_v3", v, SAT_FIELD_BIND_VERSION, v->more.binds_v3);
    sat_put_count(b, "simple", v->binds_simple);
    sat_put_count(b, "anonymous", v->binds_anonymous);
    sat_put_count(b, "sasl", v->binds_sasl);
    kv_table(b, "sasl_mechs", "mech", &v->sasl_mechs, 0);
    sat_put_count(b, "autobind", v->autobinds);
    sat_put_count(b, "sasl_steps_folded", v->sasl_steps);
    sat_put_count(b, "root_dn", v->binds_root_dn);
    sat_put_text(b, "root_dn_name", v->root_dn);
    sat_put_count(b, "failed", v->binds_failed);
    sat_put_count(b, "ssl_client", v->more.cert_binds);
    sat_put_count(b, "ssl_client_failed", v->more.cert_map_failed);
    kv_table(b, "failed_by_dn", "binddn", &v->failed_by_dn, 1);
    kv_table(b, "failed_by_client", "client", &v->failed_by_client, 1);

    sat_rnode *top = sat_obj(root, "top");
    kv_table(top, "clients", "client", &v->clients, 1);
    kv_table(top, "bind_dns", "binddn", &v->bind_dns, 1);
    kv_table(top, "bases", "base", &v->bases, 1);
    kv_table(top, "filters", "filter", &v->filters, 1);
    kv_table(top, "extended_ops", "oid", &v->ext_oids, 1);
    kv_table(top, "attributes", "attribute", &v->attributes, 1);

    static const sat_col acols[] = {{"ts", SAT_UNIT_TIME, 0, "time"},
                                    {"conn_id", SAT_UNIT_INT, 0, "conn"},
                                    {"op_id", SAT_UNIT_INT, 0, "op"},
                                    {"target_op_id", SAT_UNIT_INT, 0, "targetop"},
                                    {"client", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "abandon_requests", acols, 5);
    for (size_t i = 0; i < v->nabandon_list; i++) {
        const sat_etime_abandon *a = &v->abandon_list[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_time(o, "ts", a->ts);
        sat_put_int(o, "conn_id", a->conn);
        sat_put_int(o, "op_id", a->op);
        if (a->target_op >= 0)
            sat_put_int(o, "target_op_id", a->target_op);
        else
            sat_put_absent(o, "target_op_id", SAT_UNIT_INT);
        sat_put_text(o, "client", a->client);
    }
}

static void windows(sat_rnode *root, const sat_etime_view *v)
{
    /* buckets of minutes_width_min minutes (analyze.h: coarser on a long span) */
    int64_t w_ns = (int64_t)v->minutes_width_min * 60 * 1000000000LL;
    sat_put_dur(root, "window_s", (double)v->minutes_width_min * 60.0, 0);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, "minute (UTC)"},
                                   {"count", SAT_UNIT_COUNT, 0, "ops"},
                                   {"errors", SAT_UNIT_COUNT, 0, NULL},
                                   {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
                                   {"p99_s", SAT_UNIT_DURATION, DUR, "p99"},
                                   {"max_s", SAT_UNIT_DURATION, DUR, "max"}};
    sat_rnode *t = sat_table(root, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, w_ns);
    for (size_t i = 0; i < v->nminutes; i++) {
        const sat_etime_minute *m = &v->minutes[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_time(o, "start_ts", m->start);
        sat_put_count(o, "count", m->ops);
        sat_put_count(o, "errors", m->errors);
        sat_put_dur(o, "mean_s", m->mean_s, DUR);
        sat_put_dur(o, "p99_s", m->p99_s, DUR);
        sat_put_dur(o, "max_s", m->max_s, DUR);
    }
}

void et_put_not_logged(sat_rnode *p, uint32_t known, uint32_t inputs,
                       const uint32_t without[SAT_FIELD__COUNT],
                       const char *const why[SAT_FIELD__COUNT])
{
    /* the fields some input cannot carry: the figures from them are absent
     * (none can) or partial (some can) */
    static const sat_col cols[] = {{"field", SAT_UNIT_TEXT, 0, NULL},
                                   {"partial", SAT_UNIT_BOOL, 0, NULL},
                                   {"of_inputs", SAT_UNIT_COUNT, 0, NULL},
                                   {"inputs_without", SAT_UNIT_COUNT, 0, NULL},
                                   {"why", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(p, "not_logged", cols, 5);
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        if (!without[k])
            continue;
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "field", sat_field_name(k));
        sat_put_bool(o, "partial", (known & SAT_FIELD_BIT(k)) != 0);
        sat_put_count(o, "of_inputs", inputs);
        sat_put_count(o, "inputs_without", without[k]);
        sat_put_text(o, "why", why[k]);
    }
}

/* HTTP logs alone: the span, the lines read, the HTTP sections and the inputs. */
static int http_only(sat_result *r, sat_rnode *root, const sat_etime_view *v)
{
    const sat_etime_http_view *h = &v->http;
    uint64_t lines = 0;
    for (size_t i = 0; i < v->nsources; i++)
        lines += v->sources[i].lines;
    sat_put_count(root, "top_n", v->top ? v->top : 20);
    sat_put_time(root, "first_ts", h->first_ts);
    sat_put_time(root, "last_ts", h->first_ts ? h->last_ts : 0);
    sat_put_dur(root, "span_s", h->span_s, DUR);
    sat_put_count(root, "lines", lines);
    sat_put_count(root, "rejects", v->rejects);
    const sat_rnode *main = et_http_result(root, v);
    inputs(root, v);
    if (main)
        sat_result_set_main(r, main);
    return sat_result_status(r);
}


int sat_etime_result(const sat_etime *e, sat_result *r)
{
    const sat_etime_view *v = sat_etime_get_view(e);
    sat_rnode *root = sat_result_root(r);
    if (!v || !root)
        return SAT_E_USAGE;
    int http = v->http.requests || v->http.fields_inputs, ldap = v->ops || v->conns;
    if (http && !ldap)
        return http_only(r, root, v);
    int by = v->by == SAT_ETIME_BY_NONE ? SAT_ETIME_BY_OP : v->by;
    sat_put_text(root, "by", sat_etime_by_name(by));
    sat_put_count(root, "top_n", v->top ? v->top : 20);
    sat_put_time(root, "first_ts", v->first_ts);
    sat_put_time(root, "last_ts", v->first_ts ? v->last_ts : 0);
    sat_put_dur(root, "span_s", v->span_s, DUR);
    uint64_t lines = 0;
    for (size_t i = 0; i < v->nsources; i++)
        lines += v->sources[i].lines;
    sat_put_count(root, "lines", lines);
    sat_put_count(root, "rejects", v->rejects);
    sat_put_count(root, "operations", v->ops);
    sat_put_count(root, "connections", v->conns);

    /* where the time went: per operation type, then "all" (every operation
     * with a RESULT) as its last row */
    sat_rnode *ops = row_table(root, "ops", "op", 0);
    for (size_t i = 0; i < v->nops_rows; i++)
        put_row(ops, "op", 0, &v->ops_rows[i]);
    sat_etime_row all = v->all;
    all.key = "all";
    put_row(ops, "op", 0, &all);
    const sat_rnode *main = ops;
    if (by != SAT_ETIME_BY_OP && by != SAT_ETIME_BY_INTERNAL) {
        int is_time = by == SAT_ETIME_BY_MINUTE;
        const char *kc = is_time ? "start_ts" : sat_etime_by_name(by);
        sat_rnode *g = row_table(root, "groups", kc, is_time);
        if (is_time)
            sat_table_set_window(g, (int64_t)v->minutes_width_min * 60 * 1000000000LL);
        for (size_t i = 0; i < v->ngroups; i++)
            put_row(g, kc, is_time, &v->groups[i]);
        sat_put_count(root, "groups_folded_keys", v->groups_folded_keys);
        main = g;
    }
    internal_ops(root, v);
    if (by == SAT_ETIME_BY_INTERNAL)
        main = sat_rnode_get(root, "internal_operations.ops");
    operations(root, v);
    connections(root, v);
    codes_notes(root, v);
    binds(root, v);
    windows(root, v);
    et_put_not_logged(root, v->fields_known, v->fields_inputs, v->fields_without,
                      v->fields_why);
    if (http) { /* beside the operations: the requests' own span */
        sat_rnode *h = sat_obj(root, "http");
        sat_put_time(h, "first_ts", v->http.first_ts);
        sat_put_time(h, "last_ts", v->http.first_ts ? v->http.last_ts : 0);
        sat_put_dur(h, "span_s", v->http.span_s, DUR);
        et_http_result(h, v);
    }
    inputs(root, v);
    if (main)
        sat_result_set_main(r, main);
    return sat_result_status(r);
}
