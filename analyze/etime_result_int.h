/*
 * etime_result_int.h - (private to analyze/) what the etime result's files
 * share: etime_result.c builds the result, etime_http_result.c the sections
 * of HTTP requests it puts at the root (HTTP logs only) or in "http".
 */
#ifndef SAT_ANALYZE_ETIME_RESULT_INT_H
#define SAT_ANALYZE_ETIME_RESULT_INT_H

#include "satscope/analyze.h"

/* The HTTP sections under p; returns the groups table (the main one). */
const sat_rnode *et_http_result(sat_rnode *p, const sat_etime_view *v);

/* A group row's rate, time percentiles, total and share, in the column order
 * every etime group table has after its counts. */
void et_put_row_times(sat_rnode *o, const sat_etime_row *r);

/* The "not_logged" table under p: each field some input cannot carry, partial
 * when another can (known), and why (the first such input's reason). */
void et_put_not_logged(sat_rnode *p, uint32_t known, uint32_t inputs,
                       const uint32_t without[SAT_FIELD__COUNT],
                       const char *const why[SAT_FIELD__COUNT]);

#endif
