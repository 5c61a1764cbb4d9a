/*
 * etime_result_int.h - (private to analyze/) what the etime result's files
 * share: etime_result.c builds the result from the analyzer's state (the
 * root, the groups and series, operations, connections, binds),
 * etime_result_tables.c its lists (result codes, notes, unindexed
 * searches, the top-N lists, abandons, the inputs), etime_http_result.c
 * the sections of HTTP requests it puts at the root (HTTP logs only) or in
 * "http".
 */
#ifndef SAT_ANALYZE_ETIME_RESULT_INT_H
#define SAT_ANALYZE_ETIME_RESULT_INT_H

#include "etime_int.h"

#define ET_DUR 9  /* seconds: nanosecond resolution */
#define ET_FRAC 6 /* shares, rates */

/* The HTTP sections under p; returns the groups table (the main one).
 * *status becomes SAT_E_NOMEM when a table lacks rows for want of memory. */
const sat_rnode *et_http_result(sat_rnode *p, const sat_etime *e, int *status);

/* A table of group rows: the key column (keycol, of unit keyunit, titled
 * keytitle) then the columns of desc (et_group_desc, et_hrow_out,
 * et_window_out; count_title: another heading for the count, NULL: its
 * own). */
sat_rnode *et_group_table(sat_rnode *parent, const char *name, const char *keycol, int keyunit,
                          const char *keytitle, const sat_rec_desc *desc,
                          const char *count_title);

/* The "not_logged" table under p: each field some input cannot carry, partial
 * when another can (known), and why (the first such input's reason). */
void et_put_not_logged(sat_rnode *p, const sat_fields_seen *f);

/* etime_result_tables.c: result codes and notes, unindexed searches (under
 * root), binds' lists, the tops and abandons, the inputs and rejects. */
int et_result_codes(sat_rnode *root, const sat_etime *e);
int et_result_unindexed(sat_rnode *root, const sat_etime *e);
/* A top-N list: table NAME (KEYCOL, count, total_s; without with_total:
 * KEYCOL, count) of the first `top` keys, and NAME_distinct, NAME_folded
 * beside it (with_total only). */
int et_result_top(sat_rnode *parent, const char *name, const char *keycol, const et_ktab *k,
                  size_t top, int with_total);
int et_result_abandons(sat_rnode *root, const sat_etime *e);
void et_result_inputs(sat_rnode *root, const sat_etime *e);
/* Lines read over every input. */
uint64_t et_lines(const sat_etime *e);

#endif
