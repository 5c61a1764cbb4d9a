/*
 * report_pm.h - (internal to report/) what the two files of the post-mortem
 * builder share: the results it reads (one per analyzer, NULL when that
 * analyzer did not run), the clock its sentences write times on, and the
 * storm it tells the chain of.
 */
#ifndef SAT_REPORT_PM_H
#define SAT_REPORT_PM_H

#include "doc_int.h"
#include "sections.h"

typedef struct pm_ctx {
    sat_report *rep;
    const sat_report_input *in;
    const sat_rnode *timeline, *etime, *handshakes, *storms, *saturation, *cachesize, *crashes;
    rd_clock clock;
    /* the storm the summary tells (the one with the most failures), NULL if none */
    const sat_rnode *storm;
    /* what the inputs hold: LDAP operations, HTTP requests (both, one, or neither);
     * the sentences name what is there (operations or requests, etime or response time) */
    int ldap, http;
    /* etime's HTTP requests: its root on HTTP logs alone, its "http" object
     * beside a directory's logs; NULL without HTTP requests */
    const sat_rnode *http_etime;
} pm_ctx;

/* The sections of an analyzer's result (root) as parts of the report's
 * section s, as its command prints them (report/sections/), on the report's
 * clock; only: the ids wanted (NULL: all). */
void pm_embed(const pm_ctx *p, sat_rnode *s, const char *analyzer, const sat_rnode *root,
              const char *const *only);

/* The findings: what happened, when, the likely chain (report_pm_findings.c). */
void pm_findings(pm_ctx *p);
/* The findings the operations tell: failed binds, internal operations, the
 * throughput collapse (postmortem_findings_ops.c), after pm_findings'. */
void pm_findings_ops(pm_ctx *p);
/* Who used the server during the storm told (etime's "during"): a finding
 * when one key of a dimension had a tenth of its work or more; 1 if given. */
int pm_finding_who_used(const pm_ctx *p, sat_rnode *list);

/* A failure kind of storms ("abandon", "close_B1") in words: its meaning in
 * storms' failures table. */
/* a kind of failure in words, of n failures ("1 busy answer", "2 busy answers") */
const char *pm_kind_words(const pm_ctx *p, const char *kind, double n);
/* A signal of storms ("unindexed", "wtime_mean_s") in words, as storms'
 * signals table says it (in the words of what the inputs hold: operations,
 * requests, or both). */
const char *pm_signal_words(const pm_ctx *p, const char *signal);
/* A value of a signal (a row of storms' signals table) in the row's unit: a
 * count per window, a duration, a share. */
void pm_signal_value(char *buf, size_t n, const sat_rnode *signal_row, double v);
/* The signals row of storm `storm` (its number) for `signal`, NULL if none. */
const sat_rnode *pm_signal_row(const pm_ctx *p, double storm, const char *signal);
/* Handshakes of [from, to) of the handshakes windows: full, resumed, all. */
void pm_handshakes_in(const pm_ctx *p, int64_t from, int64_t to, double *full, double *resumed,
                      double *all);
/* Why no input logs `field` of HTTP requests (etime's not_logged table:
 * "etime", "tls_session", "conn_request", "upstream"), NULL when some do. */
const char *pm_not_logged(const pm_ctx *p, const char *field);
/* "4.33 min" */
void pm_dur(char *buf, size_t n, double s);
/* a time on the report's clock */
void pm_time(const pm_ctx *p, char *buf, size_t n, int64_t ts);

#endif
