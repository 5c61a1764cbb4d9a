/*
 * handshakes_int.h - (private to analyze/handshakes*.c) the handshakes
 * analyzer's state and what its files share: the counts' record, named
 * once in an X-macro list that gives its fields, its merge and its result
 * columns (acc.h), the cost model, and the part that reads handshakes from
 * HTTP access logs (handshakes_http.c).
 *   handshakes.c         create/free, the rows, merge;
 *   handshakes_result.c  the result's sections from the state;
 *   handshakes_http.c    handshakes an HTTP access log tells of;
 *   handshakes_dirlog.c  the TLS connections a directory server's log tells of.
 */
#ifndef SAT_ANALYZE_HANDSHAKES_INT_H
#define SAT_ANALYZE_HANDSHAKES_INT_H

#include "retry_rule.h"
#include "satscope/analyze.h"

#include "acc.h"
#include "winseries.h"

#define HS_WINDOWS_MAX 4096
#define HS_TRIES_MAX 2000000 /* connections kept for the retry rule (48 B each) */

/* The counts of a set of handshakes (everything, a window, a group, the
 * first requests of access logs), X(field, key, text heading, note), in the
 * order the result writes them; then the derived resumed_ratio and cpu_s
 * (hs_counts_desc, whose derived figures take the sat_hs_opts as ctx). */
#define HS_COUNTS(X)                                                                         \
    X(connections, "connections", "conns", NULL)                                             \
    X(full, "full", NULL, "certificate / key exchange: the expensive kind")                 \
    X(resumed, "resumed", NULL, "session id, ticket or PSK accepted")                       \
    X(failed, "failed", NULL, "an alert ended the handshake")                               \
    X(failed_after_server_hello, "failed_after_server_hello", "failed after SH",            \
      "of the failed: the server had answered (costed as full)")                            \
    X(incomplete, "incomplete", "incompl.", "ClientHello never answered before the client left") \
    X(no_sni, "no_sni", "no SNI", "ClientHellos naming no server (no SNI): old clients, IP URLs") \
    X(resumed_psk, NULL, NULL, NULL) /* of resumed: by a TLS 1.3 PSK (its cost) */
typedef struct hs_counts {
    HS_COUNTS(SAT_COUNTER_FIELD)
} hs_counts;
extern const sat_rec_desc hs_counts_desc;
/* The server CPU of a set of handshakes, from its counts (handshakes.c). */
double hs_cpu_s(const sat_hs_opts *o, const hs_counts *c);

/* What else is counted of TLS handshakes, X(field, key, heading, note): */
#define HS_FLAGS(X)                                                                          \
    X(hrr, "hello_retry_requests", "HelloRetryRequests", NULL)                               \
    X(renegotiated, "renegotiated", NULL, "renegotiations, each connection counted once")    \
    X(ssl2_hello, "ssl2_client_hellos", "SSLv2 ClientHellos", NULL)                          \
    X(late_start, "started_before_capture", "started before the capture", NULL)
typedef struct hs_flags {
    HS_FLAGS(SAT_COUNTER_FIELD)
} hs_flags;
extern const sat_rec_desc hs_flags_desc;

/* Everything counted of the captures, in one record. */
typedef struct hs_totals {
    hs_counts all;
    sat_ts_ns first_ts, last_ts;
    uint64_t resumed_by[3], offered[3]; /* session id, ticket, PSK */
    hs_flags flags;
    uint64_t retries;                   /* failed/incomplete followed by a retry */
    int64_t retry_gap_ns;               /* from the give-up to the retry's SYN */
    uint64_t tcp_conns, tcp_no_tls, tcp_by_end[SAT_TCP_END__COUNT], tcp_syn_retrans,
        tcp_no_synack;
    sat_qsketch dur_full, dur_resumed, rtt; /* ns */
    sat_ts_ns capture_first, capture_last;  /* the captures' span (their source rows):
                                               outside it handshakes are not known */
} hs_totals;
extern const sat_rec_desc hs_totals_desc;

/* Handshakes from HTTP access logs: create (window: the series' step) / free
 * (NULL ok), one source or http_req row, merge a later part, and the "logs"
 * object of the result (nothing when no HTTP input was read). */
typedef struct hs_log hs_log;
hs_log *hs_log_create(sat_dur_ns window);
void hs_log_free(hs_log *l);
void hs_log_source(hs_log *l, const sat_source *s);
int hs_log_row(hs_log *l, const sat_http_req *r); /* SAT_OK or SAT_E_NOMEM */
int hs_log_merge(hs_log *into, const hs_log *from);
/* 1 when the logs held requests or HTTP inputs. */
int hs_log_any(const hs_log *l);
/* Puts the "logs" object into root; its series becomes r's main table when
 * `main` (the logs alone). SAT_OK or SAT_E_NOMEM. */
int hs_log_result(const hs_log *l, const sat_hs_opts *o, sat_result *r, sat_rnode *root, int main);

/* Their state in a partial (handshakes_state.c says whose part it is); load
 * reads it into a fresh one. */
struct sat_sw;
struct sat_sr;
void hs_log_save(const hs_log *l, struct sat_sw *w);
int hs_log_load(hs_log *l, struct sat_sr *r);

/* TLS connections from directory-server access logs (ldap_conn rows),
 * X(field, key, text heading, note): */
#define HS_DIR_COUNTS(X)                                                                     \
    X(connections, "connections", "conns", "LDAP connections in the logs")                  \
    X(tls, "tls_connections", "TLS conns", "over TLS: each did a TLS handshake")            \
    X(ldaps, "ldaps", "LDAPS", "on an LDAPS port")                                           \
    X(starttls, "starttls", "StartTLS", "plain LDAP upgraded by StartTLS")
typedef struct hs_dir_counts {
    HS_DIR_COUNTS(SAT_COUNTER_FIELD)
} hs_dir_counts;

/* create / free (NULL ok), a source or ldap_conn row, merge, whether any
 * connection was read, and the "dirlogs" object of the result. */
typedef struct hs_dir hs_dir;
hs_dir *hs_dir_create(void);
void hs_dir_free(hs_dir *d);
void hs_dir_source(hs_dir *d, const sat_source *s);
void hs_dir_conn(hs_dir *d, const sat_ldap_conn *x);
int hs_dir_merge(hs_dir *into, const hs_dir *from); /* SAT_OK or SAT_E_NOMEM */
int hs_dir_any(const hs_dir *d);
void hs_dir_result(const hs_dir *d, sat_rnode *root);
void hs_dir_save(const hs_dir *d, struct sat_sw *w);
int hs_dir_load(hs_dir *d, struct sat_sr *r);
/* Whether width is base doubled 0 or more times (a series' step after widening). */
int hs_step_valid(sat_dur_ns width, sat_dur_ns base);

/* A TCP connection for the retry rule. */
typedef struct hs_try {
    sat_try t;            /* first (retry_rule.h) */
    uint32_t source;
} hs_try;

struct sat_hs {
    sat_hs_opts opts;
    sat_dur_ns window;   /* current step (>= opts.window) */
    hs_totals t;
    sat_strtab windows;  /* key int64 window index -> hs_counts */
    sat_keyed versions;  /* uint16 version -> hs_vcount, "(other)" past the cap */
    sat_keyed groups;    /* --by key -> hs_counts */
    hs_try *tries;       /* the captures' TCP connections, for the retry rule (retry_rule.h) */
    size_t ntries, tries_cap;
    uint64_t *failed;    /* source << 32 | flow of each failed or incomplete handshake */
    size_t nfailed, failed_cap;
    uint64_t tries_lost; /* connections past HS_TRIES_MAX: not looked at for retries */
    hs_log *log;         /* handshakes read from HTTP access logs */
    hs_dir *dir;         /* TLS connections read from directory-server logs */
    int nomem;
};

/* Handshakes by the version the server chose (key: the 2 bytes). */
typedef struct hs_vcount {
    uint64_t count;
} hs_vcount;

#endif
