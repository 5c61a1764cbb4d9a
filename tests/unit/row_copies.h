/*
 * row_copies.h - the rows of a collection, each copied with its strings
 * (sat_table_row_copy, trace schema), for tests that feed them again: in
 * parts, through an analyzer's state, in another order. Test-only: out of
 * memory aborts.
 */
#ifndef SAT_TEST_ROW_COPIES_H
#define SAT_TEST_ROW_COPIES_H

#include <stdlib.h>
#include <string.h>

#include "satscope/trace.h"

typedef struct row_copies {
    int *table;
    void **row; /* the event.h struct with its strings after it */
    size_t n, cap;
} row_copies;

/* A sink's on_row: ctx is a row_copies; a table the schema lacks is refused. */
static inline int row_copies_add(void *ctx, int table, const void *row)
{
    row_copies *rs = (row_copies *)ctx;
    if (!sat_table_get(table))
        return SAT_E_USAGE;
    char *copy = sat_table_row_copy(table, row);
    if (!copy)
        abort();
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 1024;
        rs->table = (int *)realloc(rs->table, rs->cap * sizeof *rs->table);
        rs->row = (void **)realloc(rs->row, rs->cap * sizeof *rs->row);
        if (!rs->table || !rs->row)
            abort();
    }
    rs->table[rs->n] = table;
    rs->row[rs->n++] = copy;
    return SAT_OK;
}

static inline void row_copies_free(row_copies *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        free(rs->row[i]);
    free(rs->row);
    free(rs->table);
    memset(rs, 0, sizeof *rs);
}

#endif
