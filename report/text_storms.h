/*
 * text_storms.h - (internal to report/) what the two files of the storms text
 * report share: reading values of result rows and objects (absent: 0, NAN,
 * NULL), wrapped lines with a hanging indent, and one storm's block.
 */
#ifndef SAT_REPORT_TEXT_STORMS_H
#define SAT_REPORT_TEXT_STORMS_H

#include <stdarg.h>

#include "satscope/report.h"

/* the hanging indent of a storm's lines ("  size       ...") */
#define ST_CONT "             "

const sat_value *st_get(const sat_rnode *o, const char *key);
uint64_t st_u64(const sat_rnode *o, const char *key);
int64_t st_i64(const sat_rnode *o, const char *key);
double st_dbl(const sat_rnode *o, const char *key);
const char *st_str(const sat_rnode *o, const char *key);
void st_dur(char *b, size_t n, double s);
void st_ts(char *b, size_t n, int64_t ts); /* "-" for 0 */
void st_wrap(sat_text *t, const char *first, const char *cont, const char *text);
/* "  label      text", wrapped under ST_CONT */
void st_item(sat_text *t, const char *label, const char *fmt, ...) SAT_PRINTF(3, 4);
/* a paragraph starting with indent, next lines indented two more */
void st_para(sat_text *t, const char *indent, const char *fmt, ...) SAT_PRINTF(3, 4);

/* One storm (a row of the storms table) with its signals and clients. */
int st_storm_text(sat_text *t, const sat_rnode *root, const sat_rnode *storm, int periods);

extern const sat_text_report sat_text_storms;

#endif
