/*
 * text_table.h - (internal to report/) aligned text tables for the reports:
 * columns left- or right-aligned (numbers), widths from the widest cell (UTF-8
 * aware), control bytes shown as '?', no trailing blanks.
 */
#ifndef SAT_REPORT_TEXT_TABLE_H
#define SAT_REPORT_TEXT_TABLE_H

#include <stdio.h>

#define TBL_MAXCOL 32

typedef struct tbl {
    int ncol;
    char right[TBL_MAXCOL]; /* 1: right-aligned (numbers) */
    char keep[TBL_MAXCOL];  /* 1: never cut to fit the width (times) */
    char **cells;           /* row-major, malloc'd strings */
    size_t nrows, cap;
    size_t width;           /* 0: unlimited; else rows fit this many columns */
    int err;
} tbl;

/* spec: one char per column, 'l' or 'r' (right-aligned), 'L' left-aligned
 * and never cut to fit (times). Numbers are never cut either. */
void sat_tbl_init(tbl *t, const char *spec);
/* Copies one row of ncol cells (NULL = empty); on no memory t->err is set. */
void sat_tbl_row(tbl *t, const char *const *vals);
/* Rows printed by sat_tbl_print fit `width` display columns (0: no limit):
 * the widest left-aligned columns are narrowed (to 12 at least) and their
 * longer cells cut, ending in "...". */
void sat_tbl_set_width(tbl *t, size_t width);
/* Prints every row with `indent` before it, then empties the table. */
void sat_tbl_print(tbl *t, FILE *out, const char *indent);

/* sat_csv_field (one CSV field) lives in the CSV writer. */
#include "csv_writer.h"

#endif
