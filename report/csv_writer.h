/*
 * csv_writer.h - (internal to report/) the CSV writer behind every --csv
 * (RFC 4180, docs/output.md): fields separated by ',', rows ended by LF, a
 * field quoted only when it holds ',', '"', CR or LF, quotes doubled inside.
 * Points in time are RFC 3339 UTC like the JSON (sat_report_fmt_ts, the same
 * formatter as sat_json_ts); an absent value is an empty field.
 */
#ifndef SAT_REPORT_CSV_WRITER_H
#define SAT_REPORT_CSV_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sat_csv {
    FILE *out;  /* borrowed */
    int nfield; /* fields written in the current row */
} sat_csv;

void sat_csv_init(sat_csv *c, FILE *out);
/* One CSV field (RFC 4180) written as is, no separator. */
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

#endif
