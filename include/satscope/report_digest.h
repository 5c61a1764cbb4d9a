/*
 * report_digest.h - the nightly digest (`satscope report --kind digest`):
 * one page per server per day (analyze_split.h makes the days), each against
 * the same servers' days in --baseline, a fleet summary first; and the
 * regression rules, one const table (report/report_digest_rules.c; written
 * for users in docs/digest.md).
 *
 * A server of the inputs is matched with the baseline's by its name: the
 * host name its log or trace gives, else its rotated set's path without
 * rotation and compression suffixes. Each baseline day of the server is one
 * sample of its normal: several days give the day-to-day range, one day its
 * hour-to-hour range (timeline `hours`).
 */
#ifndef SATSCOPE_REPORT_DIGEST_H
#define SATSCOPE_REPORT_DIGEST_H

#include "satscope/report_doc.h"

extern const sat_report_kind sat_report_kind_digest;

/* The analyzers of each (server, day), in this order (a member the registry
 * lacks is left out: its result is NULL). */
enum sat_dg_member {
    SAT_DG_ETIME,      /* volumes, latency by op, result codes, clients, binds, TLS */
    SAT_DG_UNINDEXED,  /* etime by filter shape over notes=A/U searches only */
    SAT_DG_CLIENTS,    /* etime by client: every client's operations and time */
    SAT_DG_STORMS,
    SAT_DG_CRASHES,
    SAT_DG_CACHESIZE,
    SAT_DG_HANDSHAKES,
    SAT_DG_TIMELINE,   /* hours: sparklines and the one-day hourly range */
    SAT_DG__N
};

/* One (server, day): its results by member (NULL: none). Borrowed. */
typedef struct sat_dg_day {
    const char *server;  /* its name */
    char date[16];       /* "2026-11-03", local */
    int64_t start_ts;    /* its local midnight, UTC ns */
    int32_t utc_offset_s;
    uint64_t rows;
    sat_result *res[SAT_DG__N];
    int set;             /* the report's set of its results (page `set`), -1 none */
    int quiet;           /* sat_report_day's: 1 no page, 0 a page, -1 not decided */
} sat_dg_day;

/* ---- the rules ------------------------------------------------------------------ */
typedef struct sat_dg_ctx sat_dg_ctx;
typedef struct sat_digest_rule {
    const char *id;       /* "latency.p90" */
    const char *severity; /* "critical", "warning", "notice" */
    const char *section;  /* the page section its findings point at */
    /* Writes the rule's findings for ctx's day; the count written. */
    int (*check)(const struct sat_digest_rule *r, sat_dg_ctx *c);
    const char *pct;      /* latency: the ops column ("p90_s") */
    uint64_t min_count;   /* latency: operations on each side; others: occurrences */
    double ratio;         /* latency: new / baseline at least this */
    double margin;        /* latency: beyond the baseline's range widened by this share */
    double floor_s;       /* latency: an absolute rise at least this */
    size_t rank;          /* heavy clients: the day's top ranks looked at */
    double share;         /* heavy clients: at least this share of the day's
                             operations or of its time */
    double base_share;    /* heavy clients: and below this share in every baseline day */
    int regression;       /* counted in the fleet summary's regressions */
} sat_digest_rule;
const sat_digest_rule *sat_digest_rules(size_t *n);

/* The latency rule on figures (unit tests): the day's percentile cur over
 * cur_n operations against the baseline's base over base_n (the median of
 * its days), whose own variation reaches hi (several days: the highest day;
 * one day: its worst hour scaled to the day; NAN: unknown, base taken).
 * 1: regressed (every condition of the rule holds), 0: not. */
typedef struct sat_dg_latency {
    double cur, base, lo, hi; /* seconds */
    uint64_t cur_n, base_n;
} sat_dg_latency;
int sat_digest_latency_regressed(const sat_digest_rule *r, const sat_dg_latency *x);

/* The digest's document from days (the inputs' and the baseline's, each
 * sorted by server then day), in rep (the pages' sets already added). */
int sat_digest_write(sat_report *rep, const sat_dg_day *days, size_t ndays,
                     const sat_dg_day *base, size_t nbase, const char *title,
                     uint64_t dropped_days, unsigned days_kept);

#endif /* SATSCOPE_REPORT_DIGEST_H */
