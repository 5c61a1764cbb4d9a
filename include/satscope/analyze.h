/*
 * analyze.h - analyzers: streaming consumers of event rows that derive
 * results, mergeable across files and hosts (DESIGN.md "analyze/").
 *
 * The etime analyzer ("where the server's time went", issue 2 section "The
 * etime analyzer and the first reports"): per operation type, or per --by key,
 * count, rate, etime mean / p50 / p90 / p99 / p99.9 / max, total time and
 * share, wtime and optime means; plus everything logconv.pl's report gives
 * (connections by listener, peak concurrency, close codes, result codes,
 * notes, unindexed searches, binds, failed binds, top clients / bind DNs /
 * bases / filters, ...) and a per-minute series.
 *
 * Percentiles are nearest-rank (x[ceil(q n)] of the sorted etimes): exact for
 * groups of up to 2048 timed operations, within 0.5% above (analyze/sketch.h).
 *
 * Usage: create, feed rows through the sink, optionally merge other partial
 * results into it, finish, then read the view (or hand it to report.h).
 * Ownership: sat_etime owns everything it returns; views live until the next
 * merge/finish or free. No function prints, exits or aborts.
 */
#ifndef SATSCOPE_ANALYZE_H
#define SATSCOPE_ANALYZE_H

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
    SAT_ETIME_BY_INTERNAL /* internal operations under the client operation
                             that ran them (sat_etime_iparent) */
};
/* "op", "base", "filter", "client", "binddn", "conn", "minute", "internal" (also "none")
 * -> enum; < 0 if unknown. */
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
} sat_etime_view;

/* The finished result; NULL before sat_etime_finish. */
const sat_etime_view *sat_etime_get_view(const sat_etime *e);
/* The finished analyzer's result sections (analyze/etime_result.c) put into
 * r's root; SAT_OK, SAT_E_NOMEM, or SAT_E_USAGE before sat_etime_finish. */
int sat_etime_result(const sat_etime *e, sat_result *r);

/* ---- the handshakes analyzer (analyze/handshakes.c, issue 3) --------------------
 * TLS handshakes seen on the wire (tls_hs rows): full / resumed / failed /
 * incomplete, the resumed ratio, when (fixed windows), from whom (--by), how
 * long they took, what they cost the server, and how often a client that
 * failed or gave up came back within retry_window (a retry). */
enum sat_hs_by { SAT_HS_BY_NONE, SAT_HS_BY_CLIENT, SAT_HS_BY_SERVER, SAT_HS_BY_SNI };
int sat_hs_by_parse(const char *s); /* "client", "server", "sni" (also "none"); < 0 if unknown */

/* Server CPU per handshake, defaults measured on this project's machine with
 * `openssl speed` (bench/RESULTS.md): a full handshake = an RSA-2048 signature
 * (268 us) + an X25519 exchange (2 x 28 us); a TLS <= 1.2 resumption = the PRF
 * and record keys only; a TLS 1.3 PSK resumption = psk_dhe_ke (OpenSSL's
 * default): one X25519 exchange. */
#define SAT_HS_FULL_COST_US_DEFAULT 330.0
#define SAT_HS_RESUMED_COST_US_DEFAULT 3.0
#define SAT_HS_PSK_COST_US_DEFAULT 60.0

typedef struct sat_hs_opts {
    sat_dur_ns window;        /* time series step; 0 = 10 s */
    sat_dur_ns retry_window;  /* a retry = the same client to the same server
                                 within this after a failed/incomplete one; 0 = 10 s */
    int by;                   /* enum sat_hs_by */
    size_t top;               /* rows in the --by table; 0 = 20 */
    double full_cost_us, resumed_cost_us, psk_cost_us; /* 0 = the defaults */
} sat_hs_opts;

enum { SAT_HS_NOUT = SAT_TLS_OUTCOME__COUNT }; /* counts[] index = enum sat_tls_outcome */

/* Counts only (merged exactly); cpu_s is made from them by sat_hs_finish. */
typedef struct sat_hs_counts {
    uint64_t n[SAT_HS_NOUT]; /* [SAT_TLS_FULL] ... [SAT_TLS_INCOMPLETE]; [0] unused */
    uint64_t connections;    /* rows */
    uint64_t failed_after_server_hello; /* of n[SAT_TLS_FAILED]: the server had
                                           answered (certificate, key exchange) before
                                           the alert; charged as full handshakes */
    uint64_t resumed_psk;    /* of n[SAT_TLS_RESUMED]: by a TLS 1.3 PSK (its cost) */
    double cpu_s;            /* estimated server CPU (in the view) */
} sat_hs_counts;

typedef struct sat_hs_window {
    sat_ts_ns start_ts;
    sat_hs_counts c;
} sat_hs_window;

typedef struct sat_hs_group {
    const char *key;
    sat_hs_counts c;
} sat_hs_group;

typedef struct sat_hs_version {
    uint16_t version;        /* as the ServerHello chose; 0 = no ServerHello */
    uint64_t count;
} sat_hs_version;

typedef struct sat_hs_view {
    sat_hs_counts all;
    double resumed_ratio;    /* resumed / (full + resumed); -1 if neither */
    sat_ts_ns first_ts, last_ts;
    double span_s;
    double rate_per_s;       /* handshakes per second over the span */
    double peak_rate_per_s;  /* the busiest window's */
    sat_ts_ns peak_ts;
    uint64_t resumed_by[3];  /* session id, ticket, PSK */
    uint64_t offered[3];     /* clients offering session id, ticket, PSK */
    uint64_t hrr, renegotiated, ssl2_hello, late_start; /* flags */
    uint64_t retries;        /* failed/incomplete followed by a retry */
    double retry_gap_mean_s;
    /* handshake durations (ClientHello -> done), seconds; -1 if none */
    double full_p50_s, full_p99_s, resumed_p50_s, resumed_p99_s;
    const sat_hs_version *versions; size_t nversions;
    const sat_hs_window *windows; size_t nwindows;
    sat_dur_ns window;       /* the step actually used (widened for long spans) */
    const sat_hs_group *groups; size_t ngroups, groups_total;
    int by;
    uint64_t tcp_conns;      /* tcp_conn rows seen (0 from a trace without them) */
    uint64_t tcp_no_tls;     /* of them, connections without any TLS */
    uint64_t tcp_by_end[SAT_TCP_END__COUNT]; /* how they ended (event.h sat_tcp_end) */
    uint64_t tcp_syn_retrans; /* SYNs the clients had to send again */
    uint64_t tcp_no_synack;  /* connection attempts the server never answered */
    double tcp_rtt_p50_s, tcp_rtt_p99_s; /* SYN -> the client's ACK; -1 if none */
    double full_cost_us, resumed_cost_us, psk_cost_us;
    uint64_t full_measured, resumed_measured; /* handshakes with a duration */
} sat_hs_view;

typedef struct sat_hs sat_hs;
sat_hs *sat_hs_create(const sat_hs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_hs_sink(sat_hs *h);          /* takes tls_hs and tcp_conn rows */
int sat_hs_finish(sat_hs *h);                   /* SAT_OK or SAT_E_NOMEM */
int sat_hs_merge(sat_hs *into, const sat_hs *from);
const sat_hs_view *sat_hs_get_view(const sat_hs *h); /* after finish; lives until free */
void sat_hs_free(sat_hs *h); /* NULL ok */
/* The finished analyzer's sections (analyze/handshakes_result.c): totals,
 * cost, versions, resumption, durations, retries, tcp, the --by table and
 * the windows. SAT_OK or SAT_E_NOMEM. */
int sat_hs_result(const sat_hs *h, sat_result *r);

/* ---- the saturation analyzer (analyze/saturation.c, issue 4) --------------------
 * Per window: throughput X (operations answered per second) and concurrency N
 * by Little's law (the answered operations' summed etime / window length),
 * queue wait (wtime) vs service time (optime), and the TLS handshake mix; then
 * the Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N
 * (N-1)) fitted to those points (or to measured points a caller adds, e.g.
 * from a load test's CSV). */
typedef struct sat_saturation_opts {
    sat_dur_ns window;       /* 0 = 60 s (widened, doubling, past 4096 windows) */
    uint64_t min_ops;        /* windows answering fewer are not points; 0 = 10 */
    double cpus;             /* what-if: K times the CPUs; 0 = none */
    double resumed_share;    /* what-if: resumed share of handshakes, 0..1; < 0 = none */
    double full_cost_us, resumed_cost_us; /* 0 = SAT_HS_*_COST_US_DEFAULT */
} sat_saturation_opts;

typedef struct sat_saturation_point {
    sat_ts_ns start_ts;      /* window start; 0 for a measured (added) point */
    double n, x;             /* concurrency, throughput (ops/s) */
    uint64_t ops;            /* answered operations (0 for an added point) */
    double wtime_mean_s, optime_mean_s; /* NAN when not logged */
    uint64_t hs_full, hs_resumed;       /* TLS handshakes in the window */
    double length_s;         /* the window's part inside the operations' span,
                                over which X and N are rates (0 for an added point) */
    int used;                /* 1: in the fit (not: windows less than half inside
                                the span, or with fewer than min_ops operations) */
} sat_saturation_point;

enum sat_usl_knee {
    SAT_USL_KNEE_NONE,         /* kappa ~ 0: no retrograde region, no N* */
    SAT_USL_KNEE_OBSERVED,     /* N* within the observed concurrency */
    SAT_USL_KNEE_EXTRAPOLATED, /* N* above it, within SAT_USL_EXTRAPOLATE_MAX x */
    SAT_USL_KNEE_TOO_FAR       /* beyond: N* and X_max not reported */
};
#define SAT_USL_MIN_POINTS 5
#define SAT_USL_EXTRAPOLATE_MAX 4.0

typedef struct sat_usl_fit {
    int ok;                  /* 0: no fit, `why` says why */
    const char *why;         /* static text, NULL when ok */
    double sigma, kappa, lambda; /* contention, coherency, ops/s at N = 1 */
    double n_star, x_max;    /* NAN when none or refused (see knee) */
    double n_star_raw;       /* sqrt((1 - sigma) / kappa) even if refused; NAN if kappa ~ 0 */
    double x_ceiling;        /* lambda / sigma when kappa ~ 0 and sigma > 0, else NAN */
    double r2;               /* NAN when the throughputs are all equal */
    double n_min, n_max;     /* observed concurrency range of the points */
    int knee;                /* enum sat_usl_knee */
    size_t npoints;
    unsigned iterations;
} sat_usl_fit;

/* X(N) of the law; NAN if the denominator is not positive. */
double sat_usl_x(double sigma, double kappa, double lambda, double n);
/* Nonlinear least squares (Levenberg-Marquardt, sigma in [0, 1], kappa >= 0)
 * over `count` points; fills *fit (ok = 0 with why on too few points or too
 * narrow a range of N). Never allocates. */
void sat_usl_fit_points(const double *n, const double *x, size_t count, sat_usl_fit *fit);

/* What a capture says of the TLS handshakes a server can take (saturation.c):
 * per second, connections offered against handshakes answered; a second that
 * turned attempts away (a SYN or ClientHello never answered before the
 * client gave up) is saturated. Rates are per second over those seconds;
 * NAN when none. */
typedef struct sat_hs_second { /* one step of the capture's series */
    sat_ts_ns start_ts;
    uint64_t offered, gave_up, hello_unanswered, full, resumed, failed_after_server_hello;
    int saturated;             /* turned attempts away (gave_up or hello_unanswered) */
} sat_hs_second;

typedef struct sat_hs_capacity {
    uint64_t tcp_conns;        /* tcp_conn rows seen (0: no capture) */
    sat_dur_ns step;           /* 1 s, widened past 4096 windows */
    uint64_t offered;          /* new connections (first SYNs) */
    uint64_t gave_up;          /* of them, never answered before the client gave up */
    uint64_t hello_unanswered; /* ClientHellos not answered before the client left */
    uint64_t full, resumed;    /* handshakes answered */
    uint64_t failed_after_server_hello; /* answered too, then failed: costed as full, in
                                           the sustained and full rates */
    size_t saturated;          /* saturated windows */
    sat_ts_ns saturated_first_ts, saturated_end_ts;
    double offered_rate;       /* connections offered a second, while saturated */
    double sustained_rate, sustained_full_rate; /* handshakes answered a second then */
    double peak_rate;          /* the most answered in one window, a second */
    sat_ts_ns peak_ts;
    double cpu_model;          /* CPU seconds a second they cost, by full/resumed_cost_us */
    double cost_bound_s;       /* 1 / sustained_rate: what each cost one saturated worker */
    const sat_hs_second *seconds; size_t nseconds; /* dense, in time order */
} sat_hs_capacity;

typedef struct sat_saturation_view {
    const sat_saturation_point *points; size_t npoints; /* windows in time order, then added */
    sat_dur_ns window;       /* the step used; 0 when only added points */
    uint64_t min_ops;        /* the option in effect */
    sat_ts_ns first_ts, last_ts;
    uint64_t ops, timed, skipped; /* answered, with a latency, not counted (internal,
                                     persistent, no RESULT) */
    uint64_t added;          /* measured points added */
    double wtime_mean_s, optime_mean_s; /* NAN if not logged */
    double n_now, x_now;     /* the last full window's (NAN if none) */
    double n_p95;            /* 95th percentile of the points' N (NAN if none) */
    sat_usl_fit usl;
    /* what-if (NAN when not asked or not computable) */
    double cpus, cpus_x_max, cpus_lambda;
    uint64_t hs_full, hs_resumed;
    uint64_t hs_failed_after_server_hello; /* costed as full, outside the share;
                                              among hs_per_op */
    double hs_per_op;        /* handshakes per answered operation */
    double resumed_share, whatif_share, whatif_lambda, whatif_x_max;
    double full_cost_us, resumed_cost_us;
    sat_hs_capacity capacity; /* captures: handshakes answered against offered */
} sat_saturation_view;

typedef struct sat_saturation sat_saturation;
sat_saturation *sat_saturation_create(const sat_saturation_opts *opts); /* NULL: no memory */
sat_event_sink sat_saturation_sink(sat_saturation *s); /* ldap_op, tls_hs, tcp_conn rows */
/* A measured point (concurrency, throughput ops/s); SAT_E_USAGE if not finite
 * and positive, SAT_E_NOMEM. At most 100000 are kept. */
int sat_saturation_add_point(sat_saturation *s, double n, double x);
int sat_saturation_finish(sat_saturation *s); /* SAT_OK or SAT_E_NOMEM */
int sat_saturation_merge(sat_saturation *into, const sat_saturation *from);
const sat_saturation_view *sat_saturation_get_view(const sat_saturation *s); /* after finish */
void sat_saturation_free(sat_saturation *s); /* NULL ok */
/* The finished analyzer's sections (analyze/saturation_result.c): the totals,
 * the USL fit, where the server runs now, the what-ifs, the TLS capacity of
 * captures and the points. SAT_OK or SAT_E_NOMEM. */
int sat_saturation_result(const sat_saturation *s, sat_result *r);

/* ---- the storms analyzer (analyze/storms.c, issue 4) ----------------------------
 * Client failures (abandons, timeouts, busy answers, abrupt closes, abandoned
 * TLS handshakes, client resets, SYN retries) counted per window, a Poisson
 * CUSUM against the series' own robust baseline (the detector is documented
 * in analyze/storms.c), adjacent alarmed windows merged into storms, and per
 * storm what rose before it and whether it outlived its trigger. */
enum sat_storm_kind {
    SAT_STORM_ABANDON,        /* ldap_op ABANDON */
    SAT_STORM_ERR_TIMELIMIT,  /* result err=3 */
    SAT_STORM_ERR_ADMINLIMIT, /* err=11 */
    SAT_STORM_ERR_BUSY,       /* err=51 */
    SAT_STORM_ERR_UNAVAILABLE,/* err=52 */
    SAT_STORM_ERR_OTHER,      /* err=80 */
    SAT_STORM_CLOSE_A1, SAT_STORM_CLOSE_B1, SAT_STORM_CLOSE_B4,
    SAT_STORM_CLOSE_T1, SAT_STORM_CLOSE_T2, SAT_STORM_CLOSE_T3,
    SAT_STORM_TLS_INCOMPLETE, /* ClientHello never answered before the client left */
    SAT_STORM_TLS_FAILED,     /* an alert ended the handshake */
    SAT_STORM_RST_CLIENT,     /* the client reset the connection */
    SAT_STORM_SYN_RETRY,      /* the client had to send its SYN again, and sent nothing on
                                 the connection (answered too late, it gave up at once) */
    SAT_STORM_FIN_WAITING,    /* the client closed (FIN) with a request unanswered */
    SAT_STORM_RETRIED,        /* the client gave up on a connection the server had not
                                 answered and connected again within opts.retry_window
                                 (counted on the connection given up) */
    SAT_STORM_CLOSED_WAITING, /* a log's connection closed while a request of it had no
                                 RESULT (OpenLDAP's "closed (connection lost)" after a
                                 BIND the frozen server never answered) */
    SAT_STORM_SYN_UNANSWERED, /* a connection attempt the server never answered (no
                                 SYN/ACK: a full listen queue drops SYNs) before the
                                 client gave up (tcp_conn SAT_TCPF_SYN_GAVE_UP) */
    SAT_STORM_KIND__COUNT
};
const char *sat_storm_kind_name(int k); /* "abandon", "time_limit", ... "syn_retry" */

/* Signals looked at before each storm (the chain of issue 4). */
enum sat_storm_signal {
    SAT_SIG_UNINDEXED,     /* unindexed searches (notes A or U) per window */
    SAT_SIG_OPS,           /* external operations per window (the load) */
    SAT_SIG_FULL_HS_SHARE, /* full / (full + resumed) TLS handshakes */
    SAT_SIG_ETIME_P90,     /* seconds, nearest rank over a log histogram (+-12%) */
    SAT_SIG_WTIME_MEAN,    /* seconds (queue wait) */
    SAT_SIG_CONN_OPENS,    /* LDAP connections opened + TCP connections per window */
    SAT_SIG_HS_ANSWER_P90, /* seconds from ClientHello to ServerHello, p90 (log histogram,
                              +-12%); a ClientHello never answered counts as the longest */
    SAT_SIG_HEAVY_CLIENT,  /* operations per window of the busiest client of the lead-up
                              (sat_storm.heavy_client; a cause, like the load) */
    SAT_SIG__COUNT
};
const char *sat_storm_signal_name(int s); /* "unindexed", "ops", ... */

typedef struct sat_storms_opts {
    sat_dur_ns window;   /* 0 = chosen per period of the input (1, 2, 5 or 10 s:
                            sat_storms_period.why); widened (doubling) past 4096 windows */
    size_t top_clients;  /* clients listed per storm, 0 = 5 */
    sat_dur_ns retry_window; /* a new connection this soon after an unanswered one
                                from the same client to the same server is its retry;
                                0 = 10 s (as sat_hs_opts) */
} sat_storms_opts;

/* The detector on a bare series of counts (one per window): fills up to
 * `cap` spans, returns how many storms it found (may exceed cap). */
typedef struct sat_storm_span {
    size_t start, end, peak; /* window indexes, end inclusive */
    double expected;         /* the baseline per window when it began */
} sat_storm_span;
/* floor: the least baseline a window is measured against (<= 0: 0.5) */
size_t sat_storms_detect(const uint64_t *counts, size_t n, double floor, sat_storm_span *spans,
                         size_t cap);

typedef struct sat_storm_sig {
    int rose;                /* above max(2 x base, base + a floor) before/at the start */
    double base;             /* median of the 30 windows before the lead-up; NAN: none */
    double before;           /* the highest of the 3 windows before the start + the first */
    double during;           /* the highest during the storm; NAN if no value */
    sat_ts_ns onset_ts;      /* first window above the threshold (0 none) */
    sat_ts_ns back_ts;       /* first of 3 windows in a row back at or below it (0 never) */
} sat_storm_sig;

typedef struct sat_storm_client {
    const char *client;
    uint64_t events;         /* failures of this client during the storm */
} sat_storm_client;

typedef struct sat_storm {
    sat_ts_ns start_ts, end_ts, peak_ts; /* window starts; end_ts = end of the last */
    uint64_t events, peak_events;
    uint64_t clients;        /* distinct; estimated (4096-bit linear count) past 100,000
                                clients or 250,000 client-windows */
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    double expected;         /* baseline failures per window */
    const sat_storm_client *top; size_t ntop;
    sat_storm_sig sig[SAT_SIG__COUNT];
    int trigger;             /* the risen cause (UNINDEXED, OPS, FULL_HS_SHARE) with the
                                earliest onset, else the earliest risen effect; -1 none */
    int sustained;           /* failures stayed high >= 3 windows after the trigger's back_ts */
    double sustained_s;      /* how long they stayed high past it (0 if not) */
    uint64_t conn_opens;     /* during the storm: reconnect amplification */
    uint64_t hs_full, hs_total;
    uint64_t retries;        /* connections that retried an unanswered one (captures) */
    int ongoing;             /* still high in the last window of the input */
    const char *heavy_client;/* the busiest client of the lead-up (SAT_SIG_HEAVY_CLIENT),
                                NULL if none */
    sat_dur_ns window;       /* the step of its period */
    size_t period;           /* index into sat_storms_view.periods */
} sat_storm;

/* Why a period was analysed at its window (sat_storms_period.why). */
enum sat_storm_window_why {
    SAT_STORM_WIN_OPTION,   /* --window (sat_storms_opts.window) */
    SAT_STORM_WIN_LONGEST,  /* 10 s, the longest step: the period has >= 30 windows of it */
    SAT_STORM_WIN_SHORTER,  /* the longest step giving the period >= 30 windows (a
                               baseline: the detector's warm-up and each storm's look
                               back are 30 windows) */
    SAT_STORM_WIN_SHORTEST  /* 1 s: < 30 windows even so; clients give up after a second
                               or more, shorter windows would cut one wave of give-ups */
};
#define SAT_STORM_BASELINE_WINDOWS 30
#define SAT_STORM_PERIOD_GAP_NS (3600LL * 1000000000LL) /* a silence this long (no row of
                               any input) separates two periods, each analysed on its own */

/* One window of a period at the step it was analysed at. */
typedef struct sat_storms_window {
    uint64_t events;         /* client failures */
    uint64_t ops;            /* external LDAP operations (the load) */
    uint64_t conn_opens;     /* LDAP connections opened + TCP connections */
    uint64_t handshakes;     /* TLS handshakes, full or resumed */
} sat_storms_window;

typedef struct sat_storms_period {
    sat_ts_ns start_ts, end_ts; /* its first window's start, its last window's end (at
                                   the finest step counted) */
    sat_dur_ns window;       /* the step it was analysed at */
    sat_dur_ns chosen;       /* the step chosen (window is larger when that series was not
                                kept - a finer one past 4096 windows is dropped - or memory
                                widened it) */
    int why;                 /* enum sat_storm_window_why */
    size_t nwindows;
    int64_t windows_at_longest; /* windows it would have at 10 s (for the why) */
    uint64_t events;         /* failures in it */
    size_t first_storm, nstorms;
    uint64_t busiest_events; /* its window with the most failures */
    sat_ts_ns busiest_ts;
    const char *const *inputs; size_t ninputs; /* inputs whose time range meets it, in the
                                                 order read; paths as given */
    const sat_storms_window *windows; /* its nwindows windows, of `window` each, */
    sat_ts_ns windows_ts;             /* the first starting here */
} sat_storms_period;

typedef struct sat_storms_view {
    sat_dur_ns window;       /* step used (of the first period, when several) */
    sat_ts_ns first_ts, last_ts;
    size_t nwindows;
    uint64_t events;         /* all failures, deduplicated */
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    uint64_t deduped;        /* rows folded into a failure already counted */
    uint64_t retries;        /* connections that retried an unanswered one (captures) */
    uint64_t attempts_lost;  /* TCP connections (retry rule) and requests left at a close
                                past their tables' caps: not looked at */
    uint64_t ldap_ops, ldap_conns, tls_hs, tcp_conns; /* rows seen */
    const sat_storm *storms; size_t nstorms;
    uint64_t busiest_events; /* the window with the most failures, storm or not */
    sat_ts_ns busiest_ts;    /* its start (0 if no failure) */
    sat_dur_ns busiest_window; /* its step */
    int window_auto;         /* 1: no --window, each period's step was chosen */
    const sat_storms_period *periods; size_t nperiods; /* in time order; storms of period
                                                          p are [first_storm, +nstorms) */
} sat_storms_view;

typedef struct sat_storms sat_storms;
sat_storms *sat_storms_create(const sat_storms_opts *opts); /* NULL: out of memory */
sat_event_sink sat_storms_sink(sat_storms *s); /* ldap_op, ldap_conn, tls_hs, tcp_conn */
int sat_storms_finish(sat_storms *s);          /* SAT_OK or SAT_E_NOMEM */
int sat_storms_merge(sat_storms *into, const sat_storms *from);
const sat_storms_view *sat_storms_get_view(const sat_storms *s); /* after finish */
void sat_storms_free(sat_storms *s); /* NULL ok */
/* The finished analyzer's sections (analyze/storms_result.c names them). */
int sat_storms_result(const sat_storms *s, sat_result *r);

/* ---- the cachesize analyzer (analyze/cachesize.c, issue 6) ----------------------
 * The entry reference stream of the logs (the DNs the operations name, see
 * cachesize.c for the exact definition), its LRU miss-ratio curve (exact
 * Mattson stack distances, or SHARDS sampling in bounded memory), the working
 * set per hour, and the entry / DN / DB cache sizes for target hit ratios,
 * compared with cn=monitor snapshots when given. */
#define SAT_CS_MAX_TARGETS 8

/* One cn=monitor snapshot of an ldbm backend ("ldapsearch -b cn=monitor,cn=NAME,
 * cn=ldbm database,cn=plugins,cn=config" LDIF). Numbers SAT_ABSENT when absent. */
typedef struct sat_cs_monitor {
    char backend[64];        /* NAME from the entry's dn, "" if not of that form */
    int64_t entry_hits, entry_tries, entry_cur_bytes, entry_max_bytes;
    int64_t entry_cur_count, entry_max_count;
    int64_t dn_hits, dn_tries, dn_cur_bytes, dn_max_bytes, dn_cur_count, dn_max_count;
} sat_cs_monitor;
/* Reads the entries of an LDIF buffer (folded lines, comments, base64 values
 * skipped); each entry carrying at least one of the counters above fills one
 * snapshot, up to cap. Returns the number filled (0: none found). Never
 * allocates; any bytes are safe. */
size_t sat_cs_monitor_parse(const char *buf, size_t len, sat_cs_monitor *out, size_t cap);

enum sat_cs_db { SAT_CS_DB_NONE, SAT_CS_DB_BDB, SAT_CS_DB_LMDB };
enum sat_cs_method { SAT_CS_EXACT, SAT_CS_SHARDS };

typedef struct sat_cs_opts {
    double targets[SAT_CS_MAX_TARGETS]; /* hit ratios in (0, 1); none -> 0.95, 0.99 */
    size_t ntargets;
    uint64_t max_refs;       /* references kept before spatial sampling starts;
                                0 -> 16 Mi (8 bytes each) */
    size_t shards_smax;      /* SHARDS sample set size; 0 -> 32768 */
    int force_shards;        /* SHARDS even when every reference was kept */
    double entry_bytes;      /* --entry-size; 0 unknown */
    uint64_t ldif_entries, ldif_bytes; /* --ldif: entries and their bytes; 0 none */
    const sat_cs_monitor *monitor; size_t nmonitor; /* copied at create (first two) */
    int db_kind;             /* enum sat_cs_db: --db-dir given and what it held */
    uint64_t db_index_bytes, db_id2entry_bytes; /* BDB: index .db files, id2entry.db */
    uint32_t db_files;
    /* BDB: each index file (name without ".db", bytes), borrowed until finish */
    const struct sat_cs_dbfile { const char *name; uint64_t bytes; } *db_list;
    size_t db_nlist;
} sat_cs_opts;

typedef struct sat_cs_point {
    uint64_t entries;
    double bytes;            /* NAN without an entry size */
    double hit_ratio;
} sat_cs_point;

typedef struct sat_cs_target {
    double target;
    int reachable;           /* 0: above the curve's maximum (cold misses) */
    uint64_t entries;        /* the least cache size reaching it (all entries if not) */
    double bytes;            /* NAN without an entry size */
} sat_cs_target;

typedef struct sat_cs_hour {
    sat_ts_ns start;         /* UTC hour */
    uint64_t refs;           /* references in the hour */
    double distinct;         /* entries touched (estimated from the sample when sampled) */
} sat_cs_hour;

typedef struct sat_cs_view {
    int method;              /* enum sat_cs_method */
    uint64_t references;     /* entry references read */
    uint64_t kept;           /* of them stored (all when not sampled) */
    double keep_rate;        /* spatial sampling rate of the stored stream (1 = all) */
    double shards_rate;      /* SHARDS: the final sampling rate (NAN when exact) */
    size_t shards_smax;
    double unique;           /* distinct entries (exact, or estimated under SHARDS) */
    double max_hit_ratio;    /* 1 - cold misses / references (NAN if no reference) */
    uint64_t refs_by_type[SAT_OP__COUNT]; /* references per operation type */
    uint64_t modrdn_new;     /* MODRDN new DNs among the references */
    uint64_t internal_refs;  /* references by internal operations */
    /* operations that touch entries the log does not name */
    uint64_t ops;            /* ldap_op rows read */
    uint64_t naming_ops;     /* of them, operations that named at least one entry */
    uint64_t unseen_ops;     /* one-level and subtree searches */
    uint64_t unseen_onelevel, unseen_subtree, unseen_unindexed; /* of them; notes A/U */
    uint64_t unseen_entries; /* entries those searches returned (nentries sum) */
    uint64_t entry_lines;    /* 389 ENTRY lines (access-log level 512) */
    uint64_t entry_refs;     /* references from their DNs: the entries one-level and
                                subtree searches returned, seen that way only */
    double unseen_share;     /* unseen_ops / (naming_ops + unseen_ops); NAN if none */
    uint64_t outside;        /* DNs outside any database backend (root DSE, cn=config,
                                cn=schema, cn=monitor, the root DN): not references */
    uint64_t no_dn;          /* BINDs without a DN (anonymous, SASL steps) */
    uint64_t missing;        /* operations answered "no such entry" (err=32, a BIND err=49
                                "No such entry"): their DNs are no cache entries */
    sat_fields_seen fields;  /* what the inputs can hold (fields.h); unseen_unindexed
                                needs SAT_FIELD_NOTES */
    uint32_t fields_known;   /* sat_fields_known(&fields), at finish */
    sat_ts_ns first_ts, last_ts;
    const sat_cs_point *mrc; size_t nmrc;
    const sat_cs_target *targets; size_t ntargets;
    const sat_cs_hour *hours; size_t nhours;
    double dn_mean_len;      /* normalized DN bytes, mean over distinct entries (NAN none) */
    /* from entries to bytes */
    double entry_bytes;      /* NAN when unknown */
    const char *entry_bytes_from; /* "--entry-size", "cn=monitor", "LDIF export", NULL */
    double dn_entry_bytes;   /* DN cache bytes per entry */
    const char *dn_bytes_from;    /* "cn=monitor" or "estimate" */
    /* the suggestion (0 when not computable: no entry size / no reference) */
    uint64_t cachememsize, dncachememsize, dbcachesize;
    const char *backend;     /* from cn=monitor, else "userRoot" */
    int db_kind;
    uint64_t db_index_bytes, db_id2entry_bytes;
    uint32_t db_files;
    /* the DB cache from the index reference rate: the index files the logged
     * filters use (and entryrdn, ancestorid for subtree searches), the part of
     * id2entry the working set reads */
    uint32_t db_indexes_used;     /* of db_nlist */
    uint64_t db_used_index_bytes, db_id2entry_part;
    char db_used_names[256];      /* "entryrdn cn uid" */
    /* cn=monitor comparison */
    size_t nmonitor;
    const sat_cs_monitor *monitor;
    int measured_interval;   /* 1: hit ratios from the difference of two snapshots */
    double measured_hit, measured_dn_hit; /* NAN when not given */
    double current_entries;  /* current cache capacity in entries (NAN unknown) */
    double predicted_hit;    /* the curve's hit ratio at current_entries (NAN) */
    /* how much of the server's entry reads the log names (cachesize.c) */
    double server_reads;     /* entry cache lookups between the two snapshots, else the
                                references + the reads of the unseen searches (estimate);
                                NAN when neither */
    const char *reads_from;  /* "cn=monitor" or "estimate" */
    double seen_reads_share; /* references / server_reads (NAN when unknown) */
    int most_reads_unseen;   /* seen_reads_share < 0.5: the curve is not the server's */
    uint64_t memory_bytes;
} sat_cs_view;

typedef struct sat_cs sat_cs;
sat_cs *sat_cs_create(const sat_cs_opts *opts); /* NULL: out of memory */
sat_event_sink sat_cs_sink(sat_cs *c);           /* ldap_op rows */
/* One reference to the entry `dn` (normalized here) at ts (0: unknown hour);
 * what the sink does per DN, for tests and benches. SAT_OK or SAT_E_NOMEM. */
int sat_cs_add_ref(sat_cs *c, const char *dn, size_t len, sat_ts_ns ts);
int sat_cs_finish(sat_cs *c);                    /* SAT_OK or SAT_E_NOMEM */
/* Appends from's reference stream after into's (days in order, or servers),
 * sampled at the lower of the two rates: the result is the curve of the
 * concatenated stream. */
int sat_cs_merge(sat_cs *into, const sat_cs *from);
const sat_cs_view *sat_cs_get_view(const sat_cs *c); /* after finish */
/* The finished analyzer's sections (cachesize_result.c): SAT_OK or SAT_E_NOMEM. */
int sat_cs_result(const sat_cs *c, sat_result *r);
/* After finish: LRU hits (estimated under SHARDS) with a cache of `entries`,
 * and its hit ratio (NAN when no reference). */
double sat_cs_hits(const sat_cs *c, uint64_t entries);
double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries);
void sat_cs_free(sat_cs *c); /* NULL ok */

/* ---- analyzer registry (analyze/registry.c) -----------------------------------
 * Every analyzer as a table, so the CLI and the report assembler can drive
 * them alike. `opts` is the analyzer's own options struct (may be NULL). */
/* ---- the crashes analyzer (analyze/crashes.c, issue 5) --------------------------
 * Crash and frame rows joined on (source, crash); per crash its crashing
 * thread's frames, the other threads grouped by identical stacks, the
 * groups of crashes by fingerprint, and, when operations, connections or
 * handshakes of the same period were read too, the load and the storms in
 * the minute before each crash. */
typedef struct sat_crashes_opts {
    sat_dur_ns context;      /* looked at before each crash; 0 = 60 s */
    size_t max_frames;       /* frames kept per thread; 0 = 128 */
} sat_crashes_opts;

typedef struct sat_crash_stack {  /* threads whose stacks are identical */
    const int32_t *tids; size_t ntids;
    const sat_frame *frames; size_t nframes; /* of the first of them, innermost first */
    int crashing;                 /* holds the crashing thread (then listed first) */
} sat_crash_stack;

typedef struct sat_crash_context { /* [ts - context, ts]: up to the crash itself */
    int have;                /* the inputs' load rows cover that period (else nothing below) */
    sat_ts_ns from_ts, to_ts;/* ts - context, ts */
    uint64_t ops, errors, conn_opens, handshakes, hs_full;
    double usual_ops;        /* operations in the same length of time just before,
                                [ts - 2 context, from_ts), scaled up to that length from
                                usual_from_ts when the inputs start later; < 0 when they
                                hold too little of it (under a tenth, or 1 s) to say */
    sat_ts_ns usual_from_ts; /* ts - 2 context, or the inputs' first load row if later */
    int storm;               /* index into `storms` of a storm overlapping it, -1 none */
} sat_crash_context;

typedef struct sat_crash_info {
    sat_crash row;           /* strings owned by the analyzer */
    const sat_frame *frames; size_t nframes; /* crashing thread, innermost first */
    const sat_crash_stack *stacks; size_t nstacks; /* every thread, grouped */
    size_t threads_seen;     /* threads with frames */
    size_t group;            /* index into groups */
    sat_crash_context ctx;
} sat_crash_info;

typedef struct sat_crash_group {
    const char *fingerprint, *signature;
    uint64_t count;
    sat_ts_ns first_ts, last_ts;
    size_t first;            /* index into crashes of its first crash */
    uint64_t builds;         /* distinct exact-build keys */
    size_t unnamed_;         /* private: unnamed frames of the signature shown */
} sat_crash_group;

typedef struct sat_crashes_view {
    const sat_crash_info *crashes; size_t ncrashes;   /* in time order (ts 0 last) */
    const sat_crash_group *groups; size_t ngroups;    /* most crashes first */
    uint64_t origins[SAT_CRASH_ORIGIN__COUNT];
    uint64_t dropped;        /* crashes past the cap (counted, not detailed) */
    uint64_t orphan_frames;  /* frame rows of no crash row */
    uint64_t frames_cut;     /* frames past max_frames */
    int have_load;           /* operations or wire rows were read */
    sat_ts_ns load_first_ts, load_last_ts; /* the period those rows cover */
    uint64_t load_cut;       /* load rows past the analyzer's bound, not counted */
    uint64_t log_lines_matched; /* crash reports in logs (kernel / systemd-coredump
                                   lines, backtraces) merged into the core of the same
                                   crash, or a kernel line into the backtrace (not listed
                                   on their own) */
    sat_dur_ns context;      /* the length of "before it" (opts.context) */
    const sat_storms_view *storms; /* of the same inputs (NULL without load rows) */
} sat_crashes_view;

typedef struct sat_crashes sat_crashes;
sat_crashes *sat_crashes_create(const sat_crashes_opts *opts); /* NULL: out of memory */
sat_event_sink sat_crashes_sink(sat_crashes *c); /* crash, frame; ldap_op, ldap_conn,
                                                    tls_hs, tcp_conn for the context */
int sat_crashes_finish(sat_crashes *c);          /* SAT_OK or SAT_E_NOMEM */
int sat_crashes_merge(sat_crashes *into, const sat_crashes *from);
const sat_crashes_view *sat_crashes_get_view(const sat_crashes *c); /* after finish */
/* The finished analyzer's sections (crashes_result.c): SAT_OK or SAT_E_NOMEM. */
int sat_crashes_result(const sat_crashes *c, sat_result *r);
void sat_crashes_free(sat_crashes *c); /* NULL ok */

typedef struct sat_analyzer {
    const char *name;    /* "etime" */
    const char *summary; /* one line for --help */
    void *(*create)(const void *opts);
    sat_event_sink (*sink)(void *a);
    int (*finish)(void *a);
    int (*merge)(void *into, const void *from);
    void (*free)(void *a);
    /* Puts the finished analyzer's sections into r's root (satscope/result.h),
     * which every form renders from (report.h: one JSON writer, one CSV
     * writer, the analyzer's text layout); SAT_OK or SAT_E_NOMEM. */
    int (*result)(const void *a, sat_result *r);
} sat_analyzer;

const sat_analyzer *sat_analyzer_find(const char *name); /* NULL if none */
const sat_analyzer *const *sat_analyzer_list(size_t *n);

#endif /* SATSCOPE_ANALYZE_H */
