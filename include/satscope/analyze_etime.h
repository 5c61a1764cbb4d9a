/*
 * analyze_etime.h - the etime analyzer (analyze/etime*.c, part of analyze.h).
 *
 * The etime analyzer ("where the server's time went"): per operation type, or
 * per --by key, count, rate, etime mean / p50 / p90 / p99 / p99.9 / max, total time and
 * share, wtime and optime means; plus everything logconv.pl's report gives
 * (connections by listener, peak concurrency, close codes, result codes,
 * notes, unindexed searches, binds, failed binds, top clients / bind DNs /
 * bases / filters, ...) and a per-minute series.
 *
 * On HTTP access logs (http_req rows) the same figures are the requests':
 * per method and per path template (or --by key), response time (etime:
 * fields.h) percentiles, upstream time where logged, errors = statuses >=
 * 400, every status by code, top clients and the series (sat_etime_http_view).
 *
 * Percentiles are nearest-rank (x[ceil(q n)] of the sorted etimes): exact for
 * groups of up to 2048 timed operations, within 0.5% above (analyze/sketch.h).
 *
 * Usage: create, feed rows through the sink, optionally merge other partial
 * results into it, finish, then read the view (or hand it to report.h).
 * Ownership: sat_etime owns everything it returns; views live until the next
 * merge/finish or free. No function prints, exits or aborts.
 */
#ifndef SATSCOPE_ANALYZE_ETIME_H
#define SATSCOPE_ANALYZE_ETIME_H

#include "satscope/event.h"
#include "satscope/fields.h"
#include "satscope/result.h"

enum sat_etime_by {
    SAT_ETIME_BY_NONE, /* default report: rows per operation type ("ops") */
    SAT_ETIME_BY_OP,
    SAT_ETIME_BY_BASE,   /* SRCH base, entry DN of ADD/MOD/DEL/MODRDN/CMP */
    SAT_ETIME_BY_FILTER, /* SRCH filter shape (values replaced) */
    SAT_ETIME_BY_CLIENT,
    SAT_ETIME_BY_BINDDN, /* ASCII case folded; "(anonymous)" for "" */
    SAT_ETIME_BY_CONN,
    SAT_ETIME_BY_MINUTE,
    SAT_ETIME_BY_INTERNAL, /* internal operations under the client operation
                              that ran them (sat_etime_iparent) */
    /* HTTP requests (http_req rows); their default is the path template, and
     * client and minute group them too. A key of the other kind of rows
     * leaves the groups of these empty. */
    SAT_ETIME_BY_PATH,   /* path template: query dropped, ids collapsed */
    SAT_ETIME_BY_STATUS, /* HTTP status */
    SAT_ETIME_BY_METHOD  /* HTTP method ("op" groups requests by method too) */
};
/* "op", "base", "filter", "client", "binddn", "conn", "minute", "internal", "path",
 * "status", "method" (also "none") -> enum; < 0 if unknown. */
int sat_etime_by_parse(const char *s);
const char *sat_etime_by_name(int by);

typedef struct sat_etime_opts {
    int by;              /* enum sat_etime_by */
    size_t top;          /* rows in top-N lists, 0 -> 20 */
    /* additions (zero = default): */
    size_t max_keys;     /* distinct keys per high-cardinality table, 0 -> 100000 */
    const char *root_dn; /* NULL -> "cn=directory manager" (compared ASCII
                            case-insensitively, blanks around ',' '=' ignored) */
} sat_etime_opts;

typedef struct sat_etime sat_etime; /* opaque */

sat_etime *sat_etime_create(const sat_etime_opts *opts); /* NULL: out of memory */
/* The sink consumes source, reject, ldap_op and ldap_conn rows; its ctx is e. */
sat_event_sink sat_etime_sink(sat_etime *e);
/* After the last row: computes the view. SAT_OK or SAT_E_NOMEM. */
int sat_etime_finish(sat_etime *e);
/* Adds `from`'s rows into `into` (several files / hosts). Both must have the
 * same `by`. As for every analyzer's merge: the two were fed rows of one
 * collection (source ids and server numbers are the collection's; results of
 * separate collections are numbered apart first, as cli/cli_parallel.c does),
 * and parts of it (cut anywhere) merged in order give the view of one pass
 * while no capped table (max_keys) overflowed (tests/unit/test_merge_property.c).
 * Quantiles keep their stated error (sketch merges equal the sketch of the
 * union). If `into` was finished, it is finished again. */
int sat_etime_merge(sat_etime *into, const sat_etime *from);
void sat_etime_free(sat_etime *e); /* NULL ok */

/* ---- the result, read by report/ ------------------------------------------------
 * Durations are seconds as doubles; NAN means "none" (JSON null): a group
 * without any timed operation, a share when no operation had any time, a
 * rate over a zero-length span. */
typedef struct sat_etime_row {
    const char *key;      /* op name, base, filter shape, client, ... */
    uint64_t count;       /* operations (with or without RESULT) */
    uint64_t results;     /* operations with a RESULT */
    uint64_t timed;       /* operations with an etime */
    uint64_t errors;      /* failed results: err != 0, except 5/6 (compare
                             answers) and 14 (SASL bind in progress) */
    double rate;          /* count per second of span */
    double mean_s, p50_s, p90_s, p99_s, p999_s, max_s, total_s;
    double share;         /* total_s / all.total_s */
    double wtime_mean_s, optime_mean_s;
    double upstream_mean_s; /* HTTP rows: the upstream's response time, NAN if none */
} sat_etime_row;

typedef struct sat_etime_kv {
    const char *key;
    uint64_t count;
    double total_s; /* summed etime of those operations, NAN if none */
} sat_etime_kv;

typedef struct sat_etime_kvlist {
    sat_etime_kv *rows; /* top rows, count desc then key asc */
    size_t n;
    uint64_t unique;    /* distinct keys seen (capped tables: plus folded) */
    uint64_t folded;    /* keys past the cap, counted in "(other)" */
} sat_etime_kvlist;

typedef struct sat_etime_unindexed {
    const char *base, *filter, *client, *binddn; /* "" when not logged */
    uint16_t notes;     /* union of the note bits seen (A and/or U, ...) */
    uint64_t count;
    double etime_max_s, etime_total_s; /* NAN when none logged */
    int64_t nentries_max;              /* SAT_ABSENT if never logged */
    sat_ts_ns first_ts;
    int64_t first_conn, first_op;
} sat_etime_unindexed;

typedef struct sat_etime_minute {
    sat_ts_ns start;        /* bucket start, UTC ns (minutes_width_min long) */
    uint64_t ops, errors, timed;
    double mean_s, p99_s, max_s; /* NAN when no timed op in the minute */
} sat_etime_minute;

typedef struct sat_etime_source_info {
    const char *path, *format, *compression;
    uint64_t bytes, lines, rejects;
    int truncated;
} sat_etime_source_info;

typedef struct sat_etime_reject_info {
    const char *path; /* of its source, "?" if unknown */
    uint64_t line_no;
    const char *reason, *excerpt;
} sat_etime_reject_info;

typedef struct sat_etime_code_count {
    int32_t code;
    uint64_t count;
} sat_etime_code_count;

typedef struct sat_etime_abandon {
    sat_ts_ns ts;
    int64_t conn, op;
    int64_t target_op; /* targetop=, SAT_ABSENT if not logged */
    const char *client;
} sat_etime_abandon;

/* Counters of logconv.pl's default report beyond the tables above. Only
 * uint64_t fields: the analyzer adds them up as an array when merging. */
typedef struct sat_etime_counts {
    /* Total Results / Overall Performance: operations that expect an answer
     * (all but UNBIND and AUTOBIND) and those answered (a RESULT, or an
     * ABANDON, which never gets one) */
    uint64_t expect_result, answered;
    uint64_t proxied;          /* authzid= (proxied authorization) */
    uint64_t entry_lines;      /* ENTRY lines (access log level 512) */
    uint64_t referral_lines;   /* REFERRAL lines (smart referrals sent) */
    uint64_t vlv, vlv_unindexed, vlv_unindexed_components; /* VLV ops; of them notes=A, notes=U */
    uint64_t sort;             /* operations with a SORT line */
    uint64_t binds_v2, binds_v3; /* BIND version=, SASL steps folded */
    uint64_t cert_binds, cert_map_failed; /* connections: client certificate bound / not mapped */
} sat_etime_counts;

/* Internal operations (389's plugin and server operations: conn=N (Internal)
 * op=M(X)(Y), conn=Internal(0)), attributed to the client operation that caused
 * them (analyze/internal_ops.c says how). One parent group per client operation
 * type and base; under it one row per kind of internal operation, nested ones
 * under the row of the operation around them (tree order: depth first, the
 * rows of one level by total etime). */
typedef struct sat_etime_irow {
    uint32_t depth;          /* 1 = run by the client operation itself */
    const char *type;        /* "SRCH", "MOD", ... */
    const char *base;        /* search base, or entry DN shape (first RDN's value *) */
    const char *scope;       /* "base", "one", "sub", "-" */
    const char *filter;      /* filter shape, "-" if none */
    uint64_t count, timed, errors;
    double per_parent;       /* count / the group's parents; NAN without parents */
    double total_s, mean_s, max_s; /* their etimes; NAN if none logged */
    double share;            /* total / the parents' etime; NAN if unknown */
} sat_etime_irow;

typedef struct sat_etime_iparent {
    const char *type;        /* the client operation's type, "(server)" for the
                                server's own, "(not in the input)" when the
                                client operation was never seen */
    const char *base;        /* its search base / entry DN shape, "-" if none */
    uint64_t parents;        /* client operations of the group that ran some */
    uint64_t internal;       /* internal operations, every depth */
    double parents_etime_s;  /* the parents' summed etime; NAN if none logged */
    double internal_s;       /* summed etime of their depth-1 internal
                                operations (nested ones run inside those) */
    double share;            /* internal_s / parents_etime_s; NAN if unknown */
    const sat_etime_irow *rows;
    size_t nrows;
} sat_etime_iparent;

/* HTTP requests (http_req rows): their own figures, beside the operations'.
 * A row's count is its requests, results those with a status, timed those
 * with a response time, errors those with a status >= 400; its etime
 * figures are response times. */
typedef struct sat_etime_http_view {
    uint64_t requests, with_status, status_absent, no_request_line, tls;
    uint64_t first_requests;    /* conn_request == 1 */
    uint64_t conn_request_rows; /* requests whose number on its connection was logged */
    uint64_t bytes, bytes_rows; /* response bytes, over the requests that logged them */
    sat_ts_ns first_ts, last_ts;
    double span_s;
    sat_etime_row all;            /* every request */
    const sat_etime_row *methods; /* by method, share desc */
    size_t nmethods;
    const sat_etime_row *groups;  /* by the --by key (path template by default) */
    size_t ngroups;
    const sat_ts_ns *group_ts;    /* --by minute: each group's window start */
    uint64_t groups_folded_keys;
    int by;                       /* the dimension of groups (enum sat_etime_by) */
    const sat_etime_code_count *statuses; /* every status by code ascending; those
                                             past 999 last, as code -1 */
    size_t nstatuses;
    sat_etime_kvlist clients;
    const sat_etime_minute *windows; /* from the first to the last window */
    size_t nwindows;
    sat_dur_ns window;
    /* which fields the HTTP inputs can carry (fields.h) */
    uint32_t fields_known, fields_inputs;
    uint32_t fields_without[SAT_FIELD__COUNT];
    const char *fields_why[SAT_FIELD__COUNT];
} sat_etime_http_view;

typedef struct sat_etime_view {
    int by;
    size_t top;
    /* inputs */
    const sat_etime_source_info *sources;
    size_t nsources;
    uint64_t rejects; /* sum of sat_source.rejects */
    const sat_etime_reject_info *reject_samples; /* the first few sampled */
    size_t nreject_samples;
    uint64_t reject_samples_seen;
    /* span of operation timestamps; first_ts == 0 when there were none */
    sat_ts_ns first_ts, last_ts;
    double span_s;
    /* operations */
    uint64_t ops, results, unfinished, internal_ops, no_request;
    uint64_t persistent, paged, entries, ext_ops, abandons, unbinds;
    uint64_t whole_base_searches; /* subtree searches for (objectclass=*|top) */
    uint64_t restarts;
    /* what was taken for them (the rest ended no open connection, which is
     * where the joiner says it): the server's start line, a connection
     * number opened again or far below the others */
    uint64_t restarts_start_line, restarts_number;
    const sat_etime_row *ops_rows; /* per op type, in enum order, types seen */
    size_t nops_rows;
    sat_etime_row all;             /* over every operation with a RESULT */
    const sat_etime_row *groups;   /* --by rows: share desc, key asc */
    size_t ngroups;
    uint64_t groups_folded_keys;   /* keys folded into "(other)" */
    /* connections */
    uint64_t conns, conns_no_open, conns_unclosed;
    uint64_t peak_concurrent;
    sat_ts_ns peak_at;
    uint64_t by_listener[SAT_LISTENER__COUNT];
    uint64_t by_close_code[SAT_CLOSE__COUNT];
    uint64_t fds_taken, fds_returned;
    int64_t highest_fd; /* SAT_ABSENT if none logged */
    uint64_t broken_pipe, reset_by_peer, resource_unavailable, max_ber_exceeded;
    uint64_t lost, lost_on_write; /* OpenLDAP's closes (event.h SAT_CLOSE_LOST*) */
    sat_etime_kvlist tls_versions;
    /* which figures the inputs can hold at all (fields.h): a figure counted
     * from a field outside fields_known is not 0 but "not logged" */
    uint32_t fields_known;   /* SAT_FIELD_BIT()s at least one input can carry */
    uint32_t fields_inputs;  /* inputs with LDAP rows that said what they carry */
    uint32_t fields_without[SAT_FIELD__COUNT]; /* of them, those that cannot: partial
                                                  when some can */
    const char *fields_why[SAT_FIELD__COUNT];  /* why (the first of those), NULL if none */
    /* results */
    const sat_etime_code_count *errors; /* by code ascending, every code */
    size_t nerrors;
    uint64_t notes[7];                  /* per letter of SAT_NOTE_LETTERS */
    /* unindexed searches (notes A or U), count desc */
    const sat_etime_unindexed *unindexed;
    size_t nunindexed;
    uint64_t unindexed_total, unindexed_distinct, unindexed_folded;
    /* binds: SASL in-progress steps (err=14) folded into their bind, an
     * AUTOBIND and the BIND it introduces counted once */
    uint64_t binds, binds_simple, binds_anonymous, binds_sasl, sasl_steps;
    uint64_t autobinds, binds_root_dn, binds_failed;
    sat_etime_kvlist sasl_mechs;
    sat_etime_kvlist failed_by_dn, failed_by_client;
    /* the rest of logconv.pl's default report (analyze/etime.c says where
     * and why a count differs from logconv's): */
    sat_etime_counts more;
    /* tops */
    sat_etime_kvlist clients, bind_dns, bases, filters, ext_oids;
    sat_etime_kvlist attributes; /* requested in SRCH attrs, ASCII case folded */
    /* the earliest abandon requests (up to top) */
    const sat_etime_abandon *abandon_list;
    size_t nabandon_list;
    /* the time series, one row per bucket from first to last (only the busy
     * ones if they are far apart): buckets of minutes_width_min minutes, 1
     * while at most 2048 of them cover the span, then 5, 15, 60, 360, 1440
     * and doublings, so that a year of log keeps the memory bounded */
    const sat_etime_minute *minutes;
    size_t nminutes;
    uint32_t minutes_width_min;
    const char *root_dn;
    uint64_t memory_bytes; /* approximate peak heap held by the analyzer */
    /* internal operations attributed (internal_ops = of_clients + of_server +
     * orphans + unattributed), groups by total internal time */
    const sat_etime_iparent *iparents;
    size_t niparents;
    uint64_t internal_of_clients, internal_of_server, internal_orphans;
    uint64_t internal_unattributed; /* past the pending or key cap */
    sat_etime_http_view http;       /* HTTP requests; http.requests == 0 if none */
} sat_etime_view;

/* The finished result; NULL before sat_etime_finish. */
const sat_etime_view *sat_etime_get_view(const sat_etime *e);
/* The finished analyzer's result sections (analyze/etime_result.c) put into
 * r's root; SAT_OK, SAT_E_NOMEM, or SAT_E_USAGE before sat_etime_finish. */
int sat_etime_result(const sat_etime *e, sat_result *r);

#endif /* SATSCOPE_ANALYZE_ETIME_H */
