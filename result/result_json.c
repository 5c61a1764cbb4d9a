/*
 * result_json.c - the one JSON writer of every command's results
 * (satscope/result.h, docs/output.md): the document opens with "schema" and
 * "command" (which report it is), then the root's sections in the order the analyzer built them. Objects are
 * one key per line; table rows (but those that nest tables) and objects marked compact go on one line; a
 * column named "a.b" is field b of a nested object a.
 */
#include <string.h>

#include "satscope/result_out.h"


void sat_json_value(sat_json *j, const char *key, const sat_value *v)
{
    if (v->absent) {
        sat_json_null(j, key);
        return;
    }
    switch (v->unit) {
    case SAT_UNIT_TEXT: sat_json_str(j, key, v->v.s); break;
    case SAT_UNIT_COUNT:
    case SAT_UNIT_BYTES: sat_json_u64(j, key, v->v.u); break;
    case SAT_UNIT_INT: sat_json_i64(j, key, v->v.i); break;
    case SAT_UNIT_TIME: sat_json_ts(j, key, v->v.i); break;
    case SAT_UNIT_BOOL: sat_json_bool(j, key, (int)v->v.i); break;
    case SAT_UNIT_DURATION:
    case SAT_UNIT_RATIO:
    case SAT_UNIT_RATE:
    case SAT_UNIT_NUMBER: sat_json_num(j, key, v->v.d, v->decimals); break;
    default: sat_json_null(j, key); break;
    }
}

static void write_node(sat_json *j, const sat_rnode *n, const char *key);

/* The fields of an object, children in order (rows: by column). */
static void write_children(sat_json *j, const sat_rnode *o)
{
    for (const sat_rnode *c = sat_rnode_first(o); c; c = sat_rnode_next(c))
        write_node(j, c, sat_rnode_key(c));
}

/* Columns [from, to) of a row whose names all start with prefix (length pl),
 * nesting those that share the next dotted component. */
static void write_row_cols(sat_json *j, const sat_rnode *row, const sat_col *cols, size_t from,
                           size_t to, size_t pl)
{
    size_t i = from;
    while (i < to) {
        const char *rest = cols[i].name + pl;
        const char *dot = strchr(rest, '.');
        if (!dot) {
            const sat_value *v = sat_row_get(row, cols[i].name);
            if (v)
                sat_json_value(j, rest, v);
            else
                sat_json_null(j, rest);
            i++;
            continue;
        }
        size_t gl = (size_t)(dot - rest) + 1; /* "sender." */
        size_t k = i + 1;
        while (k < to && strncmp(cols[k].name + pl, rest, gl) == 0)
            k++;
        char name[128];
        size_t nl = gl - 1 < sizeof name - 1 ? gl - 1 : sizeof name - 1;
        memcpy(name, rest, nl);
        name[nl] = '\0';
        sat_json_object(j, name);
        write_row_cols(j, row, cols, i, k, pl + gl);
        sat_json_end(j);
        i = k;
    }
}

static void write_row(sat_json *j, const sat_rnode *table, const sat_rnode *row)
{
    size_t ncols;
    const sat_col *cols = sat_table_cols(table, &ncols);
    sat_json_object(j, NULL);
    write_row_cols(j, row, cols, 0, ncols, 0);
    /* nested sections of the row (lists, objects) after its columns */
    for (const sat_rnode *c = sat_rnode_first(row); c; c = sat_rnode_next(c))
        if (sat_rnode_kind_of(c) != SAT_RN_VALUE)
            write_node(j, c, sat_rnode_key(c));
    sat_json_end(j);
}

static int row_nests(const sat_rnode *row)
{
    for (const sat_rnode *c = sat_rnode_first(row); c; c = sat_rnode_next(c))
        if (sat_rnode_kind_of(c) == SAT_RN_TABLE)
            return 1;
    return 0;
}

static void open_compact(sat_json *j, const sat_rnode *n, int *saved)
{
    *saved = j->compact_from;
    if (sat_rnode_compact(n) && (!j->compact_from || j->compact_from > j->depth + 1))
        j->compact_from = (unsigned char)(j->depth + 1);
}

static void write_node(sat_json *j, const sat_rnode *n, const char *key)
{
    int saved;
    switch (sat_rnode_kind_of(n)) {
    case SAT_RN_VALUE: sat_json_value(j, key, sat_rnode_value(n)); return;
    case SAT_RN_OBJECT:
        open_compact(j, n, &saved);
        sat_json_object(j, key);
        write_children(j, n);
        sat_json_end(j);
        j->compact_from = (unsigned char)saved;
        return;
    case SAT_RN_LIST:
        open_compact(j, n, &saved);
        sat_json_array(j, key);
        write_children(j, n);
        sat_json_end(j);
        j->compact_from = (unsigned char)saved;
        return;
    case SAT_RN_TABLE:
        /* a row on one line, unless it nests tables of its own (a crash's
         * frames): then one key per line, its nested rows on one line each */
        sat_json_array(j, key);
        saved = j->compact_from;
        for (const sat_rnode *r = sat_rnode_first(n); r; r = sat_rnode_next(r)) {
            if (!row_nests(r) && (!j->compact_from || j->compact_from > j->depth + 1))
                j->compact_from = (unsigned char)(j->depth + 1);
            write_row(j, n, r);
            j->compact_from = (unsigned char)saved;
        }
        sat_json_end(j);
        return;
    }
}

int sat_result_json(sat_result *r, FILE *out, sat_diag *diag)
{
    int st = sat_result_status(r);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "building the %s result: %s", sat_result_command(r),
                            sat_strerror(st));
    sat_json j;
    sat_json_init(&j, out);
    sat_json_object(&j, NULL);
    sat_json_str(&j, "schema", SAT_RESULT_SCHEMA);
    sat_json_str(&j, "command", sat_result_command(r));
    write_children(&j, sat_result_root(r));
    sat_json_end(&j);
    st = sat_json_finish(&j);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "writing JSON: %s", sat_strerror(st));
    return SAT_OK;
}
