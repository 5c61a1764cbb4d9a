/*
 * partial_columns.c - a partial's figures as plain columns (partial.h "a
 * partial's figures as plain columns"): per server-day and operation type,
 * etime's counts and its sketch as it is, for a database to merge and
 * finish with docs/clickhouse.md's SQL exactly as satscope does.
 */
#include <stdlib.h>
#include <string.h>

#include "satscope/analyze.h"
#include "satscope/partial.h"
#include "etime_int.h"

#define COL(S, f, ty) {#f, ty, (uint16_t)offsetof(S, f)}

static const sat_column_def op_cols[] = {
    COL(sat_partial_op_row, server, SAT_COL_STR),
    COL(sat_partial_op_row, day, SAT_COL_STR),
    COL(sat_partial_op_row, day_ts, SAT_COL_TS),
    COL(sat_partial_op_row, utc_offset_s, SAT_COL_I32),
    COL(sat_partial_op_row, op, SAT_COL_STR),
    COL(sat_partial_op_row, operations, SAT_COL_I64),
    COL(sat_partial_op_row, results, SAT_COL_I64),
    COL(sat_partial_op_row, errors, SAT_COL_I64),
    COL(sat_partial_op_row, timed, SAT_COL_I64),
    COL(sat_partial_op_row, vmin, SAT_COL_I64),
    COL(sat_partial_op_row, vmax, SAT_COL_I64),
    COL(sat_partial_op_row, exact_max, SAT_COL_I64),
    COL(sat_partial_op_row, bucketed, SAT_COL_U8),
};
static const sat_column_def key_cols[] = {
    COL(sat_partial_key_row, server, SAT_COL_STR),
    COL(sat_partial_key_row, day, SAT_COL_STR),
    COL(sat_partial_key_row, day_ts, SAT_COL_TS),
    COL(sat_partial_key_row, op, SAT_COL_STR),
    COL(sat_partial_key_row, kind, SAT_COL_U8),
    COL(sat_partial_key_row, key, SAT_COL_I64),
    COL(sat_partial_key_row, count, SAT_COL_I64),
    COL(sat_partial_key_row, vmin, SAT_COL_I64),
    COL(sat_partial_key_row, vmax, SAT_COL_I64),
    COL(sat_partial_key_row, exact_max, SAT_COL_I64),
};
static const sat_table_def tables[] = {
    {"partial_op", SAT_PARTIAL_TABLE_OP, sizeof(sat_partial_op_row), "day_ts", op_cols,
     sizeof op_cols / sizeof op_cols[0]},
    {"partial_key", SAT_PARTIAL_TABLE_KEY, sizeof(sat_partial_key_row), "day_ts", key_cols,
     sizeof key_cols / sizeof key_cols[0]},
};

const sat_table_def *sat_partial_table(int id)
{
    return id >= SAT_PARTIAL_TABLE_OP && id < SAT_PARTIAL_TABLE__END
               ? &tables[id - SAT_PARTIAL_TABLE_OP]
               : NULL;
}

const sat_table_def *sat_partial_table_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!strcmp(tables[i].name, name))
            return &tables[i];
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The sketch's keys: its values (sorted, each with its count), or its
 * values <= 0 and its non-empty buckets. */
static int sketch_rows(const sat_qsketch *q, sat_partial_key_row *k,
                       int (*row)(void *ctx, int table, const void *row), void *ctx)
{
    int rc = SAT_OK;
    if (!q->bucketed) {
        int64_t *v = malloc((q->nvals ? q->nvals : 1) * sizeof *v);
        if (!v)
            return SAT_E_NOMEM;
        if (q->nvals)
            memcpy(v, q->vals, q->nvals * sizeof *v);
        qsort(v, q->nvals, sizeof *v, cmp_i64);
        k->kind = SAT_PARTIAL_KEY_VALUE;
        for (uint32_t i = 0; i < q->nvals && rc >= 0;) {
            uint32_t j = i + 1;
            while (j < q->nvals && v[j] == v[i])
                j++;
            k->key = v[i];
            k->count = (int64_t)(j - i);
            rc = row(ctx, SAT_PARTIAL_TABLE_KEY, k);
            i = j;
        }
        free(v);
        return rc;
    }
    if (q->zeros) {
        k->kind = SAT_PARTIAL_KEY_ZEROS;
        k->key = 0;
        k->count = (int64_t)q->zeros;
        rc = row(ctx, SAT_PARTIAL_TABLE_KEY, k);
    }
    k->kind = SAT_PARTIAL_KEY_BUCKET;
    for (uint32_t b = 0; b < q->nbins && rc >= 0; b++) {
        if (!q->bins[b])
            continue;
        k->key = (int64_t)q->lo + b;
        k->count = q->bins[b];
        rc = row(ctx, SAT_PARTIAL_TABLE_KEY, k);
    }
    return rc;
}

int sat_partial_columns(const sat_multi *set, const sat_partial_day *day,
                        int (*row)(void *ctx, int table, const void *row), void *ctx)
{
    const sat_etime *e = sat_multi_member_named(set, "etime");
    if (!e)
        return SAT_OK; /* a plan without etime: no figures of it */
    int rc = SAT_OK;
    for (int t = 0; t < SAT_OP__COUNT && rc >= 0; t++) {
        const et_group *g = &e->optype[t];
        if (!g->count)
            continue;
        sat_partial_op_row o;
        memset(&o, 0, sizeof o);
        o.server = sat_str_cstr(day->server);
        o.day = sat_str_cstr(day->date);
        o.day_ts = day->start_ts;
        o.utc_offset_s = day->utc_offset_s;
        o.op = sat_str_cstr(sat_optype_name(t));
        o.operations = (int64_t)g->count;
        o.results = (int64_t)g->results;
        o.errors = (int64_t)g->errors;
        o.timed = (int64_t)g->q.n;
        o.vmin = g->q.n ? g->q.min : 0;
        o.vmax = g->q.n ? g->q.max : 0;
        o.exact_max = g->q.exact_max;
        o.bucketed = g->q.bucketed;
        if ((rc = row(ctx, SAT_PARTIAL_TABLE_OP, &o)) < 0)
            break;
        sat_partial_key_row k;
        memset(&k, 0, sizeof k);
        k.server = o.server;
        k.day = o.day;
        k.day_ts = o.day_ts;
        k.op = o.op;
        k.vmin = o.vmin;
        k.vmax = o.vmax;
        k.exact_max = o.exact_max;
        rc = sketch_rows(&g->q, &k, row, ctx);
    }
    return rc;
}
