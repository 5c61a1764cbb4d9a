/*
 * text_etime.h - (internal to report/) the text form of the etime result
 * (analyze/etime_result.c), in three files by section: text_etime.c (the
 * header, where the time went, operations, the minute series),
 * text_etime_logconv.c (the rest of logconv.pl's report: connections, codes,
 * notes, unindexed searches, binds, tops, abandons) and text_etime_internal.c
 * (internal operations), text_etime_http.c (HTTP requests), with the helpers
 * in text_etime_util.c. Every
 * figure is read from the result tree, never from the analyzer.
 */
#ifndef SAT_REPORT_TEXT_ETIME_H
#define SAT_REPORT_TEXT_ETIME_H

#include "satscope/report.h"
#include "satscope/result_out.h"

extern const sat_text_report sat_text_etime;

/* What every section reads: the result's root and scratch for notes. */
typedef struct etx {
    sat_text *t;
    const sat_rnode *root;
    double span_s; /* NAN when unknown */
    char note[32][512];
    int ni;
} etx;

/* The value at path under n (dotted), NULL if none. */
const sat_value *etx_val(const sat_rnode *n, const char *path);
/* A count or integer at path, 0 if absent. */
uint64_t etx_count(const sat_rnode *n, const char *path);
/* usual plus, when some input cannot log `field` (the not_logged table),
 * why: "(why)" when none can, "usual (partial: 1 of 2 inputs cannot log it:
 * why)" when some can. field NULL: usual. */
const char *etx_field_note(etx *x, const char *field, const char *usual);
/* 1 when no input can log field. */
int etx_not_logged(const etx *x, const char *field);
/* 1 when some input (or every one) cannot log field. */
int etx_some_cannot(const etx *x, const char *field);
/* "(1.92/s, 115/min)" for n over the span. */
const char *etx_rate(etx *x, uint64_t n);

/* "label  value  note" lines. */
typedef struct etx_kv {
    sat_tbl tb;
    etx *x;
} etx_kvs;
void etx_kv_init(etx_kvs *k, etx *x);
/* value: the value at path under obj, "not logged" when absent because no
 * input can log field, the note as etx_field_note says. */
void etx_kv(etx_kvs *k, const char *label, const sat_rnode *obj, const char *path,
            const char *field, const char *usual);
void etx_kv_text(etx_kvs *k, const char *label, const char *value, const char *note);
void etx_kv_print(etx_kvs *k, const char *indent);

/* Some rows of a table under the header of its columns "a,b=Title" (as
 * sat_text_table), fitted to the width. cell (NULL: none) may write a cell
 * of its own (returns 1) instead of the value's text form. */
typedef int (*etx_cell_fn)(const sat_rnode *row, const char *col, char *buf, size_t n);
void etx_rows(etx *x, const sat_rnode *table, const char *columns, const sat_rnode *const *rows,
              size_t n, const char *indent, etx_cell_fn cell);

/* A top-N list (table NAME with NAME_distinct, NAME_folded beside it). */
void etx_top(etx *x, const char *title, const sat_rnode *parent, const char *name,
             const char *keycol, const char *keytitle);

/* The sections. */
void etx_internal(etx *x);
/* The "windows" series under x->root, titled "<per_title> minute" (or "... N
 * minutes"); a series too long to read shows its slowest windows by p99. */
void etx_series(etx *x, const char *per_title);
void etx_connections(etx *x);
void etx_codes(etx *x);
void etx_unindexed(etx *x);
void etx_binds(etx *x);
void etx_tops(etx *x);
/* HTTP requests (text_etime_http.c), from the object x->root. */
void etx_http(etx *x);

#endif
