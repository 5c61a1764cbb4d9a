/*
 * section_etime.h - (internal to report/sections/) what the files of the
 * etime builder share: section_etime.c (the lead, what was read, where
 * the time went, the operations, the series, the order of it all),
 * section_etime_usage.c (who used the server, who waited),
 * section_etime_logconv.c (the rest of logconv.pl's report: connections,
 * codes, notes, unindexed searches, binds, tops, abandons),
 * section_etime_internal.c (internal operations) and section_etime_http.c
 * (HTTP requests). Every figure is read from the etime result
 * (analyze/etime_result.c) with the typed readers.
 */
#ifndef SAT_REPORT_SECTION_ETIME_H
#define SAT_REPORT_SECTION_ETIME_H

#include "sections.h"

/* What every part reads: the object that holds the figures (the result's
 * root, or its "http" object for the requests beside a directory's logs)
 * and its span, for the rates. */
typedef struct etb {
    const sec_ctx *c;
    const sat_rnode *root;
    double span_s; /* NAN when unknown */
} etb;

/* 1 when no input can log field (the not_logged table), 1 when some input
 * (or every one) cannot. */
int etb_not_logged(const etb *x, const char *field);
int etb_some_cannot(const etb *x, const char *field);
/* usual plus, when some input cannot log field, why: "(why)" when none can,
 * "usual (partial: 1 of 2 inputs cannot log it: why)" when some can, into
 * buf. field NULL: usual. */
const char *etb_field_note(const etb *x, const char *field, const char *usual, char *buf,
                           size_t n);
/* "(1.92/s, 115/min)" for n over the span, into buf. */
const char *etb_rate(const etb *x, uint64_t n, char *buf, size_t n_buf);

/* A value of the values object vals: the value at path of obj under key,
 * shown with label; "not logged" when it is absent because no input can log
 * field; its note as etb_field_note says (usual: the note of the value in
 * any case, NULL: none). Nothing when obj has no such value. */
void etb_value(const etb *x, sat_rnode *vals, const sat_rnode *obj, const char *path,
               const char *key, const char *label, const char *field, const char *usual);

/* A top-N list: table name of parent (with name_distinct, name_folded beside
 * it) as a section id of parent_section, titled title ("(top N of M)" added
 * when some are left out). keycol shown as keytitle. Nothing with
 * skip_empty when the list is empty. */
void etb_top(const etb *x, sat_rnode *parent_section, const char *id, const char *title,
             const sat_rnode *parent, const char *name, const char *keycol, const char *keytitle,
             int skip_empty);
/* The "windows" series of x->root as section id, titled "<per_title>
 * minute" (or "... N minutes"); a series too long to read shows its slowest
 * windows by p99. */
void etb_series(const etb *x, sat_rnode *parent, const char *id, const char *per_title);

/* The parts. */
void etb_internal(const etb *x, sat_rnode *parent);
void etb_connections(const etb *x, sat_rnode *parent);
void etb_codes(const etb *x, sat_rnode *parent);
void etb_unindexed(const etb *x, sat_rnode *parent);
void etb_binds(const etb *x, sat_rnode *parent);
void etb_tops(const etb *x, sat_rnode *parent);
/* Who used the server (work) and who waited (section_etime_usage.c). */
void etb_usage(const etb *x, sat_rnode *parent);
/* Who used the server during each storm the result was focused on
 * (sections during_storm_N). */
void etb_usage_during(const etb *x, sat_rnode *parent);
/* HTTP requests, from the object x->root: each part a section of parent. */
void etb_http(const etb *x, sat_rnode *parent);

#endif
