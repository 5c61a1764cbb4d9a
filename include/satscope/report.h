/*
 * report.h - rendering analyzer results: aligned text tables (read at 3 a.m.),
 * JSON (units in key names: seconds in keys ending _s; null where there is
 * no value) and CSV (the grouped rows). Output is deterministic: sorted
 * orders with tie-breaks, fixed float formatting, no locale.
 *
 * Also the small JSON writer every command's --json uses, so escaping is
 * done once and right (RFC 8259: quotes, backslash, control bytes; invalid
 * UTF-8 replaced by U+FFFD).
 *
 * Functions write to a caller-owned FILE; they return SAT_OK or SAT_E_IO
 * (write failed) / SAT_E_USAGE with diag set. They never print elsewhere.
 */
#ifndef SATSCOPE_REPORT_H
#define SATSCOPE_REPORT_H

#include <stdio.h>

#include "satscope/analyze.h"
#include "satscope/result.h"

enum sat_report_fmt { SAT_REPORT_TEXT, SAT_REPORT_JSON, SAT_REPORT_CSV };
/* "text", "json", "csv" -> enum; < 0 if unknown. */
int sat_report_fmt_parse(const char *s);


/* CSV tables: the table sections of an analyzer's result one can ask for as
 * CSV (--csv NAME, --csv-dir), the main one (what --csv alone prints) first,
 * NULL terminated (its sat_text_report's csv_tables); NULL if no such
 * analyzer. */
const char *const *sat_csv_tables(const char *analyzer);

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
 * (sat_report_fmt_ts), or null when ts_ns is 0, the "not known" of every
 * view. */
void sat_json_ts(sat_json *j, const char *key, int64_t ts_ns);
/* Finishes the document (newline); SAT_OK or the sticky error. */
int sat_json_finish(sat_json *j);

/* Writes s as a JSON string literal (with quotes) to out. */
int sat_json_write_string(FILE *out, const char *s, size_t n);

/* Fixed-point formatting used by every renderer: `decimals` digits, trailing
 * zeros (and a trailing '.') trimmed, "-0" printed as "0". buf >= 64. */
void sat_report_fmt_num(char *buf, size_t n, double v, int decimals);
/* "2025-06-08T07:19:14.123456789Z": UTC, fraction trimmed of trailing zeros
 * (none when whole seconds). buf >= 40. */
void sat_report_fmt_ts(char *buf, size_t n, int64_t ts_ns);

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
/* Every table of r as DIR/PATH.csv (DIR made if missing). */
int sat_result_csv_dir(sat_result *r, const char *dir, sat_diag *diag);
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

#define SAT_TEXT_WIDTH 100
typedef struct sat_text {
    FILE *out;    /* borrowed */
    size_t width; /* SAT_TEXT_WIDTH, or 0 (--wide): no limit */
    size_t lines; /* written so far (a title after the first gets a blank line) */
    int err;
} sat_text;
void sat_text_init(sat_text *t, FILE *out, int wide);
/* A section title, after a blank line unless it is the first line. */
void sat_text_title(sat_text *t, const char *fmt, ...) SAT_PRINTF(2, 3);
/* One line of prose, wrapped at blanks to the width. */
void sat_text_line(sat_text *t, const char *fmt, ...) SAT_PRINTF(2, 3);
/* The values of an object as "label  value  note" lines: keys is the list
 * "a,b=Label,c" (NULL: every value, in order); a missing key is skipped. */
void sat_text_summary(sat_text *t, const sat_rnode *obj, const char *keys, const char *indent);
/* A table with a header line: columns "a,b=Title" (NULL: all), at most
 * max_rows rows (0: all; a line says how many more). */
void sat_text_table(sat_text *t, const sat_rnode *table, const char *columns, size_t max_rows,
                    const char *indent);
/* SAT_OK, SAT_E_NOMEM or SAT_E_IO. */
int sat_text_finish(sat_text *t);

/* The text form of one analyzer's result (report/report_registry.c), and
 * the paths of its result's tables (sat_result_tables), the main one first,
 * NULL-terminated: what `--csv NAME` accepts before the result exists (its
 * unit test checks them against a built result). */
typedef struct sat_text_report {
    const char *analyzer;
    int (*render)(sat_result *r, sat_text *t);
    const char *const *csv_tables;
} sat_text_report;
const sat_text_report *sat_text_report_find(const char *analyzer);

/* The JSON document of a finished analyzer `a` (obj), built from its result
 * sections as the commands write it (tests and tools use it). */
int sat_analyzer_json(const sat_analyzer *a, const void *obj, FILE *out, sat_diag *diag);

#endif /* SATSCOPE_REPORT_H */
