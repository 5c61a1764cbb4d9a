/*
 * report_digest_int.h - what the digest's files share (digest.c the kind,
 * the days and the fleet summary, digest_page.c a server-day's page,
 * digest_rules.c the rules): the context a rule
 * checks a day in, and the readers of the days' results.
 */
#ifndef SAT_REPORT_DIGEST_INT_H
#define SAT_REPORT_DIGEST_INT_H

#include <math.h>

#include "satscope/report_digest.h"

struct sat_dg_ctx {
    const sat_dg_day *day;
    const sat_dg_day *const *base; /* the baseline's days of the same server */
    size_t nbase;
    sat_rnode *findings;           /* the page's */
    unsigned regressions;          /* findings of rules that are regressions */
};

/* The node at path in member m's result of d (NULL if none). */
const sat_rnode *sat_dg_get(const sat_dg_day *d, int m, const char *path);
/* The baseline of op's percentile pct (an etime ops column) in the days
 * base: x->base the median of the days that have it, x->lo..x->hi their
 * range (one day: its hours with min_hour_n operations, scaled to the day;
 * NAN without hours), x->base_n their operations. The days that have it. */
size_t sat_dg_baseline(const sat_dg_day *const *base, size_t nbase, const char *op,
                       const char *pct, uint64_t min_hour_n, sat_dg_latency *x);
/* Where member m's result of d holds HTTP requests (etime's sections of
 * them: the root on HTTP logs alone, its "http" object beside a directory's
 * logs): "" or "http.", NULL when the day has none. */
const char *sat_dg_http_prefix(const sat_dg_day *d, int m);
/* The median of the baseline days' value of column col in the row of their
 * HTTP table `table` (member m) whose `key` column is k; NAN when none has it. */
double sat_dg_http_base(const sat_dg_day *const *b, size_t nb, int m, const char *table,
                        const char *key, const char *k, const char *col);
/* 31,000 */
void sat_dg_fmt_count(char *buf, size_t n, double v);
/* The operations of type op ("SRCH") in words: "search" / "searches". */
const char *sat_dg_op_noun(const char *op, uint64_t n);

/* digest_page.c: the errors of a day (results other than 0, 5, 6, 14),
 * and the page of one server-day, its findings written already. */
uint64_t sat_dg_day_errors(const sat_dg_day *d);
void sat_dg_day_page(sat_report *rep, sat_rnode *page, const sat_dg_day *d,
                     const sat_dg_day *const *b, size_t nb);

#endif /* SAT_REPORT_DIGEST_INT_H */
