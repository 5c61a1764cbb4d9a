/*
 * result_out.h - the forms a result is written in (result/, docs/output.md):
 * the one JSON writer (RFC 8259: quotes, backslash, control bytes escaped,
 * invalid UTF-8 replaced by U+FFFD), the one CSV writer (RFC 4180), and the
 * text layer every human form is printed through (values in human units with
 * three significant figures, titles, prose wrapped to 100 columns, aligned
 * tables). Output is deterministic: sorted orders with tie-breaks, fixed float
 * formatting, no locale.
 *
 * Functions write to a caller-owned FILE; they return SAT_OK or SAT_E_IO
 * (write failed) / SAT_E_USAGE with diag set. They never print elsewhere.
 */
#ifndef SATSCOPE_RESULT_OUT_H
#define SATSCOPE_RESULT_OUT_H

#include <stdio.h>

#include "satscope/result.h"
#include "satscope/safe_out.h"

/* ---- JSON writer ----------------------------------------------------------------
 * Pretty-printed (two-space indent), one key per line; keys in the order
 * written. Errors are sticky: check sat_json_end's result once. */
#define SAT_JSON_MAX_DEPTH 32
typedef struct sat_json {
    FILE *out;
    int depth;
    int err;                          /* sticky: SAT_E_IO / SAT_E_USAGE */
    unsigned char n[SAT_JSON_MAX_DEPTH]; /* items written at each depth (capped at 1) */
    char close[SAT_JSON_MAX_DEPTH];      /* '}' or ']' for each open container */
    unsigned char compact_from;       /* depth from which containers go on one line (0: never) */
} sat_json;

void sat_json_init(sat_json *j, FILE *out);
/* key is NULL inside arrays and at the top level. */
void sat_json_object(sat_json *j, const char *key);
void sat_json_array(sat_json *j, const char *key);
void sat_json_end(sat_json *j); /* closes the innermost object/array */
/* Containers opened at this depth or deeper are written on one line. */
void sat_json_set_compact_depth(sat_json *j, int depth);
void sat_json_str(sat_json *j, const char *key, const char *s); /* NULL -> null */
void sat_json_strn(sat_json *j, const char *key, const char *s, size_t n);
void sat_json_u64(sat_json *j, const char *key, uint64_t v);
void sat_json_i64(sat_json *j, const char *key, int64_t v);
/* Fixed notation with `decimals` digits, trailing zeros trimmed; NAN or
 * infinity -> null. */
void sat_json_num(sat_json *j, const char *key, double v, int decimals);
void sat_json_bool(sat_json *j, const char *key, int v);
void sat_json_null(sat_json *j, const char *key);
/* The version of every command's JSON document, written as its first key by
 * sat_json_document (docs/output.md): bumped when a key changes meaning or
 * goes away. */
#define SAT_JSON_SCHEMA "satscope/1"
/* Opens the top-level object of a command's document and writes "schema". */
void sat_json_document(sat_json *j);
/* A point in time: an RFC 3339 UTC string with the precision known
 * (sat_fmt_ts), or null when ts_ns is 0, the "not known" of every
 * view. */
void sat_json_ts(sat_json *j, const char *key, int64_t ts_ns);
/* Finishes the document (newline); SAT_OK or the sticky error. */
int sat_json_finish(sat_json *j);

/* Writes s as a JSON string literal (with quotes) to out. */
int sat_json_write_string(FILE *out, const char *s, size_t n);

/* Fixed-point formatting used by every renderer: `decimals` digits, trailing
 * zeros (and a trailing '.') trimmed, "-0" printed as "0". buf >= 64. */
void sat_fmt_fixed(char *buf, size_t n, double v, int decimals);
/* "2025-06-08T07:19:14.123456789Z": UTC, fraction trimmed of trailing zeros
 * (none when whole seconds). buf >= 40. */
void sat_fmt_ts(char *buf, size_t n, int64_t ts_ns);

/* ---- results (satscope/result.h): one JSON writer, one CSV writer, one table
 * printer for every command ---------------------------------------------------- */

/* The version of the documents written from results: key names follow
 * docs/output.md everywhere (times in *_ts, durations in *_s, ...). */
#define SAT_RESULT_SCHEMA "satscope/2"
/* The whole result as a JSON document: "schema" (SAT_RESULT_SCHEMA), then
 * "command", then the sections. */
int sat_result_json(sat_result *r, FILE *out, sat_diag *diag);
/* One value as a JSON member (key NULL in arrays), by its unit. */
void sat_json_value(sat_json *j, const char *key, const sat_value *v);
/* Table `name` (a path of sat_result_tables; NULL: the main table) as CSV:
 * a header of the column names, one line per row. SAT_E_USAGE naming the
 * tables there are when there is no such table. */
int sat_result_csv(sat_result *r, const char *name, FILE *out, sat_diag *diag);
/* Every table of r as DIR/PATH.csv (DIR made if missing, refused when it is not
 * a directory: a symlink to elsewhere), each through the safe writer. */
int sat_result_csv_dir(sat_result *r, const char *dir, const sat_out_opts *oo, sat_diag *diag);
int sat_result_csv_table(const sat_rnode *table, FILE *out);

/* Text: human units with three significant figures. buf >= 64. */
void sat_fmt_sig3(char *buf, size_t n, double v);        /* 0.000784, 4.46, 161, 12346 */
void sat_fmt_duration(char *buf, size_t n, double s);    /* 161 us, 4.46 s, 16.7 min */
void sat_fmt_bytes(char *buf, size_t n, uint64_t bytes); /* 512 B, 1.23 MiB */
/* Any value by its unit ("-" when absent): ratios as 45.5%, rates as 2.50/s,
 * times as RFC 3339 UTC. */
void sat_fmt_value(char *buf, size_t n, const sat_value *v);
/* one when n == 1, else many: "1 connection", "0 connections". */
const char *sat_plural(uint64_t n, const char *one, const char *many);

/* The label a person reads for a key: the unit's suffix of the JSON
 * conventions (_ts, _s, _bytes, _ratio, _per_s) dropped and '_' and '.' read
 * as blanks ("p99_s" -> "p99", "trigger.onset_ts" -> "trigger onset"). buf >= 64. */
void sat_key_label(char *buf, size_t n, const char *key);

/* 1 when values of a unit are right-aligned in columns (numbers), 0 for text,
 * times and yes/no. */
int sat_unit_right(int unit);

/* Formats a value for a person (sat_fmt_value, or a clock's times). */
typedef void (*sat_fmt_fn)(char *buf, size_t n, const sat_value *v, const void *ctx);

#define SAT_TEXT_WIDTH 100
typedef struct sat_text {
    FILE *out;    /* borrowed */
    size_t width; /* SAT_TEXT_WIDTH, or 0 (--wide): no limit */
    size_t lines; /* written so far (a title after the first gets a blank line) */
    int err;
    sat_fmt_fn fmt;      /* how values are shown; NULL: sat_fmt_value */
    const void *fmt_ctx; /* borrowed */
} sat_text;
void sat_text_init(sat_text *t, FILE *out, int wide);
/* A value as t shows it (its fmt). */
void sat_text_value(const sat_text *t, char *buf, size_t n, const sat_value *v);
/* The values of an object as aligned "label  value  note" lines at indent:
 * each value's label (sat_put_label, else its key as words), numbers
 * right-aligned on the widest, text from the same column; a line too long
 * for the width wraps, its value or note going on under itself. */
void sat_text_values(sat_text *t, const sat_rnode *obj, const char *indent);
/* A line as it is, never wrapped (preformatted text: LDIF, a formula). */
void sat_text_pre(sat_text *t, const char *indent, const char *line);
/* A section title, after a blank line unless it is the first line. */
void sat_text_title(sat_text *t, const char *fmt, ...) SAT_PRINTF(2, 3);
/* One line of prose, wrapped at blanks to the width. */
void sat_text_line(sat_text *t, const char *fmt, ...) SAT_PRINTF(2, 3);
/* A table with a header line: columns "a,b=Title" (NULL: all), at most
 * max_rows rows (0: all; saying how many more is the caller's). */
void sat_text_table(sat_text *t, const sat_rnode *table, const char *columns, size_t max_rows,
                    const char *indent);
/* The same, its text cells wrapped on further lines rather than cut to fit
 * the width (names a reader needs whole: a backtrace's functions and source
 * lines). */
void sat_text_table_wrapped(sat_text *t, const sat_rnode *table, const char *columns,
                            size_t max_rows, const char *indent);
/* SAT_OK, SAT_E_NOMEM or SAT_E_IO. */
int sat_text_finish(sat_text *t);

/* ---- CSV writer (RFC 4180) ------------------------------------------------------
 * Fields separated by ',', rows ended by LF, a field quoted only when it holds
 * ',', '"' or LF, quotes doubled inside; controls other than TAB and LF, and
 * bytes that are not UTF-8, escaped (satscope/escape.h). A text field starting with '=',
 * '+', '-', '@', TAB or CR (and more than that character) gets a single
 * quote before it (a spreadsheet runs it as a formula otherwise); numbers
 * written by the number writers never do.
 * Points in time are RFC 3339 UTC like the JSON (sat_fmt_ts); an absent
 * value is an empty field. */
typedef struct sat_csv {
    FILE *out;  /* borrowed */
    int nfield; /* fields written in the current row */
} sat_csv;

void sat_csv_init(sat_csv *c, FILE *out);
/* One CSV text field (RFC 4180, a formula made text), no separator. */
void sat_csv_field(FILE *out, const char *s);
/* The next field of the row: text (NULL: empty), integers, a number with at
 * most `decimals` decimals, trailing zeros trimmed (not finite: empty), a
 * point in time in ns since the epoch (0 = not known: empty). */
void sat_csv_str(sat_csv *c, const char *s);
/* n bytes of s (NULL or n == 0: empty); a NUL byte ends the field early. */
void sat_csv_strn(sat_csv *c, const char *s, size_t n);
void sat_csv_u64(sat_csv *c, uint64_t v);
void sat_csv_i64(sat_csv *c, int64_t v);
void sat_csv_num(sat_csv *c, double v, int decimals);
void sat_csv_ts(sat_csv *c, int64_t ts_ns);
/* A header row: every name of a NULL-terminated list. */
void sat_csv_header(sat_csv *c, const char *const *names);
/* Ends the row (LF). */
void sat_csv_end_row(sat_csv *c);

/* ---- aligned text tables ---------------------------------------------------------
 * Columns left- or right-aligned (numbers), widths from the widest cell (UTF-8
 * aware), controls and bytes that are not UTF-8 escaped (satscope/escape.h),
 * no trailing blanks. A row too wide for
 * the width narrows its widest text columns: their cells are cut ("...") or,
 * in a column that wraps, go on under themselves on further lines, broken
 * after a blank or a '/' and never inside a word. */
#define TBL_MAXCOL 32

typedef struct sat_tbl {
    int ncol;
    char right[TBL_MAXCOL]; /* 1: right-aligned (numbers) */
    char keep[TBL_MAXCOL];  /* 1: never cut to fit the width (times) */
    char wrap[TBL_MAXCOL];  /* 1: wrapped rather than cut to fit the width */
    char **cells;           /* row-major, malloc'd strings */
    size_t nrows, cap;      /* rows; cells allocated */
    size_t width;           /* 0: unlimited; else rows fit this many columns */
    int err;
} sat_tbl;

/* spec: one char per column, 'l' or 'r' (right-aligned), 'L' left-aligned
 * and never cut to fit (times), 'w' left-aligned and wrapped rather than cut.
 * Numbers are never cut either. */
void sat_tbl_init(sat_tbl *t, const char *spec);
/* Copies one row of ncol cells (NULL = empty); on no memory t->err is set. */
void sat_tbl_row(sat_tbl *t, const char *const *vals);
/* Rows printed by sat_tbl_print fit `width` display columns (0: no limit):
 * the widest left-aligned columns are narrowed (to 12 at least) and their
 * longer cells cut, ending in "...". */
void sat_tbl_set_width(sat_tbl *t, size_t width);
/* Prints every row with `indent` before it, then empties the table; the
 * lines printed (a wrapped row takes several). */
size_t sat_tbl_print(sat_tbl *t, FILE *out, const char *indent);

#endif /* SATSCOPE_RESULT_OUT_H */
