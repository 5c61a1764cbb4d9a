/*
 * storms_internal.h - (private to analyze/) what the files of the storms analyzer
 * share: its limits, its per-window counts (st_win) and series, the analyzer's
 * state (struct sat_storms), and the functions one file makes for another.
 * Each function's rule is written where it is defined.
 *
 * Counters named once: the analyzer's totals (ST_FAILURE_TOTALS, ST_ROWS_READ,
 * ST_HTTP_INPUTS), a window's load (ST_WIN_LOAD) and what a storm sums of
 * its windows (ST_STORM_COUNTS, storms_found.h) are X-macro lists that give
 * the records' fields, their merge and the result's values and columns.
 *
 * Ownership: struct sat_storms owns its tables, arrays and the arena of what
 * finish found (freed by sat_storms_free); the rows it is fed are borrowed
 * for the call only (event.h).
 *
 * Bounded memory: windows widen (doubling) past 4096 (a finer series of the
 * default steps is dropped instead: the 10 s one covers what needs that
 * many windows); distinct clients per
 * window are a 4096-bit linear count; failures per client and window (at
 * the --window step, so exact whatever the order of the rows) a table of at
 * most 250,000 pairs; the client and dedup tables are capped (their overflow
 * is still counted, only without a name or a dedup).
 */
#ifndef SAT_ANALYZE_STORMS_INTERNAL_H
#define SAT_ANALYZE_STORMS_INTERNAL_H

#include "satscope/analyze.h"

#include "acc.h"
#include "storms_found.h"
#include "retry_rule.h"
#include "strtab.h"
#include "winseries.h"

#define ST_WINDOWS_MAX 4096
#define ST_BITS 4096
#define ST_CW_MAX 250000
#define ST_HIST 80
#define ST_CLIENTS_MAX 100000
#define ST_DEDUP_MAX 1000000
#define ST_MG 4 /* heavy hitters kept per window (Misra-Gries: a count is within the
                    window's operations / 5 of the truth; 8 and 12 told the lab no better
                    and doubled the report's time in st_mg_add) */
#define ST_ATTEMPTS_MAX 2000000

#define ST_FLOOR 0.5 /* the detector's floor at most (storms_detect.c, storms_period.c) */
/* A period's step gives it this many windows when it can: the detector's
 * warm-up and each storm's look back (the result's baseline_windows). */
#define ST_BASELINE_WINDOWS 30
/* A silence this long (no row of any input) separates two periods, each
 * analysed on its own (the result's period_gap_s). */
#define ST_PERIOD_GAP_NS (3600LL * 1000000000LL)

/* ---- what the signals and the kinds of failure are (storms_signals.c) -------------------- */
/* Which words fit the inputs: what they hold of LDAP operations (or
 * connections) and HTTP requests. */
enum { ST_WORDS_LDAP, ST_WORDS_HTTP, ST_WORDS_BOTH };
typedef struct st_signal_info {
    const char *name;       /* its signal_name in the result */
    const char *label[3];   /* in a table ("etime p90"), by ST_WORDS_* (NULL: the LDAP one) */
    const char *meaning[3]; /* in a sentence ("the etime p90") */
    uint8_t unit;           /* of its values: SAT_UNIT_COUNT (per window), _DURATION
                               (seconds), _RATIO (a share) */
    uint8_t cause;          /* a cause (the load, what it asks), not an effect of the
                               server's state: a cause that rose names the trigger first */
    uint8_t ldap_only;      /* only directory servers' logs carry it */
    double floor;           /* the smallest rise that counts, above twice the base */
} st_signal_info;
extern const st_signal_info st_signals[SAT_SIG__COUNT];
const char *st_signal_label(int s, int words);
const char *st_signal_meaning(int s, int words);

typedef struct st_kind_info {
    const char *name;    /* "close_B1" */
    const char *meaning; /* "unclean client closes (B1)" */
    const char *one;     /* the same of one failure: "unclean client close (B1)" */
    const char *group;   /* the few groups a chart stacks: "abrupt closes" (the result's
                            failures table, column kind_group) */
} st_kind_info;
extern const st_kind_info st_kinds[SAT_STORM_KIND__COUNT];
/* The chain's look-back and smoothing (storms_chain.c): a trigger's onset may
 * fall this many windows into the storm; "back to usual" is read on the mean
 * of this many windows; a storm outlives its trigger only when its failures
 * go on longer than this after it is back (the queue's drain: a real slapd
 * with 2 workers whose batch ended recovered in 4-6 s) and 3 windows. */
#define ST_INTO 2
#define ST_LONG_SEARCH_NS ((sat_dur_ns)1000000000) /* a long search (SAT_SIG_LONG_SEARCHES) */
#define ST_SMOOTH 3
#define ST_DRAIN_S 10.0
#define ST_RETRY_SHARE 0.25 /* of the failures retried, for retries to have fed a storm */
#define ST_STARTUP_S 60.0   /* a client address's start-up: not read for its connection rate */
#define ST_CALM_S 60.0      /* the least calm time a client address's connection rate is read on */

/* What each mechanism (storms_found.h ST_MECH_*) is. */
typedef struct st_mech_info {
    const char *name;    /* "retries": the result's mechanism */
    const char *meaning; /* "clients retrying at once": in a sentence */
    uint8_t unit;        /* SAT_UNIT_COUNT (per window) or SAT_UNIT_RATIO */
    double floor;        /* the smallest rise that counts, above twice the base */
} st_mech_info;
extern const st_mech_info st_mechanisms[ST_MECH__COUNT];

/* A window's load and latency counts, what the chain's signals read
 * (X(field, key, heading, note); never written as they are): operations
 * (external LDAP operations + HTTP requests: the load), of them HTTP
 * requests, unindexed searches (notes A or U), operations in hist,
 * operations in wtime_sum_ns, ClientHellos in ans_hist. */
#define ST_WIN_LOAD(X)                                                                       \
    X(ops, NULL, NULL, NULL)                                                                 \
    X(reqs, NULL, NULL, NULL)                                                                \
    X(unindexed, NULL, NULL, NULL)                                                           \
    X(timed, NULL, NULL, NULL)                                                               \
    X(wtime_n, NULL, NULL, NULL)                                                             \
    X(optime_n, NULL, NULL, NULL)                                                            \
    X(long_searches, NULL, NULL, NULL)                                                       \
    X(answered, NULL, NULL, NULL)
typedef struct st_load {
    ST_WIN_LOAD(SAT_COUNTER_FIELD)
} st_load;

typedef struct st_win {
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    uint64_t events;
    st_counts sc;         /* what a storm sums of its windows (ST_STORM_COUNTS) */
    st_load ld;
    uint64_t bits[ST_BITS / 64];
    int64_t wtime_sum_ns; /* integer ns: a merge of parts sums to one pass exactly */
    int64_t optime_sum_ns; /* of the indexed operations (optime_n of them) */
    uint32_t hist[ST_HIST + 1]; /* etime; [ST_HIST]: never answered (its connection
                                   closed first) */
    uint32_t mg_id[ST_MG], mg_n[ST_MG]; /* busiest clients by operations: peers ids,
                                           Misra-Gries counts (a lower bound each) */
    uint32_t ans_hist[ST_HIST + 1]; /* ClientHello -> ServerHello; [ST_HIST]: never */
} st_win;

typedef struct st_connkey {
    uint32_t server, epoch;
    int64_t conn;
} st_connkey;

typedef struct st_waiting { /* st_keep_closed_waiting */
    st_connkey key;
    sat_ts_ns ts;
    uint32_t client, pad;   /* id in the peers table, UINT32_MAX none */
} st_waiting;

/* A connection, kept for the retry rule (sat_storms_opts.retry_window): a
 * TCP connection of a capture, or an LDAP connection of a log. */
typedef struct st_attempt {
    sat_try t;              /* the retry rule's (retry_rule.h): peer = hash of source, client,
                               server address and port (TCP), of client and server (LDAP);
                               gave_up_ts: its FIN or RST, else its end (+1 s for a SYN never
                               answered), LDAP: its close; flow: TCP's wire dedup key with
                               source, LDAP's conn_epoch; conn: LDAP's connection number */
    uint32_t source;        /* TCP: the wire dedup key; LDAP: server */
    uint32_t client;        /* id in the peers table */
    uint8_t unanswered;     /* the client sent bytes, the server none */
    uint8_t ldap;           /* an LDAP connection of a log */
} st_attempt;

/* A client's failures in one window (struct sat_storms.cw), keyed by the
 * window at the opts.window step (never widened: int64, first 8 bytes of the
 * key) and the client's address (the rest): by name, so that tables of
 * analyzers that merge add up key by key. */
typedef struct st_cw {
    uint64_t n;
} st_cw;
extern const sat_rec_desc st_cw_desc;

typedef struct st_dedup {
    sat_ts_ns ts;
    uint32_t client; /* id in the peers table of the counted row's client, UINT32_MAX none */
    uint8_t kind, has;
    uint8_t errs; /* an LDAP connection answered with an error of a failure kind (busy,
                     time limit...): counted apart (not deduplicated), but a failed
                     connection all the same for the retry rule */
} st_dedup;

/* One series of windows at one step (window). Without --window the rows are
 * counted at every step of st_auto_steps at once, each series exact, and each
 * period of the input is analysed at the step that suits its length
 * (choose_step); with --window, at that one step. */
typedef struct st_series {
    sat_dur_ns window;  /* the step, widened (doubling) past ST_WINDOWS_MAX windows */
    sat_dur_ns base;    /* the step it was created with */
    sat_strtab windows; /* int64 window index -> st_win */
    int dropped;        /* a finer series past ST_WINDOWS_MAX windows: no longer counted
                           (whatever needs that many windows of it is long enough for a
                           coarser step; widened it would only copy the next series) */
    /* the window the last row went to, at step last_step (payloads never move
     * while the step stays: strtab.h; a widening changes the step): rows come
     * in time order, most of them to the window of the row before */
    st_win *last;
    int64_t last_k;
    sat_dur_ns last_step;
} st_series;

#define ST_SERIES_MAX 4
extern const sat_dur_ns st_auto_steps[ST_SERIES_MAX]; /* storms.c */

typedef struct st_src { /* an input, for the periods it covers */
    sat_ts_ns first_ts; /* MIN */
    sat_ts_ns last_ts;  /* MAX */
} st_src;
extern const sat_rec_desc st_src_desc;

typedef struct st_server { /* a server whose LDAP rows come from captures; also a count
                              of rows (the addresses and capture sources of a sub) */
    uint64_t sources;      /* capture sources of it */
} st_server;
extern const sat_rec_desc st_server_desc;

/* An input as the router keeps it (struct sat_storms.src_ids, keyed by its
 * 4-byte id then its path): its time range and its server (input set). */
typedef struct st_srcid {
    sat_ts_ns first_ts;    /* MIN */
    sat_ts_ns last_ts;     /* MAX */
    int64_t server;        /* MAX: the same in every part */
} st_srcid;
extern const sat_rec_desc st_srcid_desc;

/* The servers (storms_servers.c): the analyzer a caller holds is a router
 * that sends each row to the sub-analyzer of its server key - a log's
 * rows (LDAP, HTTP) by their server (input set), a capture's TCP and TLS
 * rows by the server side's address and port -; at finish the subs of one
 * server (a capture whose address and port are the log's: st_groups) are
 * merged into one analyzer each, whose series of windows, storms and
 * chains are that server's alone. At most ST_SUBS_MAX keys; the rows of
 * further keys go to one sub of servers not told apart. */
#define ST_SUBS_MAX 64
typedef struct st_group {
    sat_storms *g;           /* the subs of one server merged, finished; the one sub itself
                                (not owned) when the server has one */
    int owned;               /* g is the group's own (freed with it) */
    const char *server;      /* "10.0.0.5:636", "10.0.0.5" (a log that logs no port),
                                NULL: the inputs cannot tell */
    const char **inputs;     /* the inputs of its rows, in the order read */
    size_t ninputs;
} st_group;

/* ---- the analyzer's totals -------------------------------------------------------- */
/* Its failures, X(field, key, heading, note), in the order the summary writes
 * them: client failures (deduplicated), rows folded into one already
 * counted, connections that retried an unanswered one, and the TCP
 * connections (retry rule) and requests left at a close past their tables'
 * caps, not looked at. */
#define ST_FAILURE_TOTALS(X)                                                                 \
    X(events, "events", NULL, "client failures, deduplicated")                               \
    X(deduped, "deduplicated", NULL, NULL)                                                   \
    X(retries, "retries", NULL, NULL)                                                        \
    X(not_examined, "retry_attempts_not_examined", NULL, NULL)
typedef struct st_failures {
    ST_FAILURE_TOTALS(SAT_COUNTER_FIELD)
} st_failures;

/* The rows read, by table (the summary's rows_read; http_req is written
 * only when some were read: by hand). */
#define ST_ROWS_READ(X)                                                                      \
    X(ldap_ops, "ldap_op", NULL, NULL)                                                       \
    X(ldap_conns, "ldap_conn", NULL, NULL)                                                   \
    X(tls_hs, "tls_hs", NULL, NULL)                                                          \
    X(tcp_conns, "tcp_conn", NULL, NULL)                                                     \
    X(http_reqs, NULL, NULL, NULL)
typedef struct st_rows {
    ST_ROWS_READ(SAT_COUNTER_FIELD)
} st_rows;

/* The HTTP logs read (their source rows), and of them those whose format
 * logs no response time, no request number on the connection (the
 * summary's http_inputs, when HTTP requests were read). */
#define ST_HTTP_INPUTS(X)                                                                    \
    X(count, "count", NULL, NULL)                                                            \
    X(no_rt, "without_response_time", NULL, NULL)                                            \
    X(no_conn, "without_connection_requests", NULL, NULL)
typedef struct st_http_inputs {
    ST_HTTP_INPUTS(SAT_COUNTER_FIELD)
} st_http_inputs;

extern const sat_rec_desc st_failures_desc, st_rows_desc, st_http_inputs_desc;

typedef struct st_totals {
    uint64_t kinds[SAT_STORM_KIND__COUNT]; /* failures by kind */
    st_failures f;
    st_rows rows;
    st_http_inputs http;
    uint64_t clients_lost; /* BITS: a client-window pair past its table's cap */
    sat_ts_ns first_ts;    /* FIRST */
    sat_ts_ns last_ts;     /* LAST */
} st_totals;

/* Every accumulator of a window and the analyzer's totals, described once:
 * adding a window into another and sat_storms_merge go by these. */
extern const sat_rec_desc st_win_desc, st_totals_desc;

/* ---- what finish found (storms_period.c) ------------------------------------------ */
/* Why a period was analysed at its window (st_period_found.why). */
enum st_window_why {
    ST_WIN_OPTION,   /* --window (sat_storms_opts.window) */
    ST_WIN_LONGEST,  /* 10 s, the longest step: the period has >= 30 windows of it */
    ST_WIN_SHORTER,  /* the longest step giving the period >= 30 windows (a baseline:
                        the detector's warm-up and each storm's look back are 30
                        windows) */
    ST_WIN_SHORTEST  /* 1 s: < 30 windows even so; clients give up after a second or
                        more, shorter windows would cut one wave of give-ups */
};

/* One window of a period at the step it was analysed at (the windows
 * table): its failures in all and by kind, then these counts, X(field, key,
 * heading, note): external LDAP operations, connections opened (LDAP, TCP,
 * first HTTP requests), TLS handshakes (full or resumed); then its HTTP
 * requests (a column only when some were read). */
#define ST_WIN_OUT(X)                                                                        \
    X(ldap_ops, "ldap_ops", "ops", NULL)                                                     \
    X(conn_opens, "conn_opens", "opened", NULL)                                              \
    X(handshakes, "handshakes", NULL, NULL)
typedef struct st_win_counts {
    ST_WIN_OUT(SAT_COUNTER_FIELD)
} st_win_counts;
extern const sat_rec_desc st_win_counts_desc;

typedef struct st_win_out {
    uint64_t events;
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    st_win_counts c;
    uint64_t http_requests;
} st_win_out;

typedef struct st_period_found {
    sat_ts_ns start_ts, end_ts; /* its first window's start, its last window's end (at
                                   the finest step counted) */
    sat_dur_ns window;       /* the step it was analysed at */
    sat_dur_ns chosen;       /* the step chosen (window is larger when that series was not
                                kept - a finer one past 4096 windows is dropped - or memory
                                widened it) */
    int why;                 /* enum st_window_why */
    size_t nwindows;
    int64_t windows_at_longest; /* windows it would have at 10 s (for the why) */
    uint64_t events;         /* failures in it */
    size_t first_storm, nstorms;
    uint64_t busiest_events; /* its window with the most failures */
    sat_ts_ns busiest_ts;
    const char *const *inputs; /* inputs whose time range meets it, in the order read */
    size_t ninputs;
    const st_win_out *windows; /* its nwindows windows, of `window` each, */
    sat_ts_ns windows_ts;      /* the first starting here */
    const char *server;        /* the server it is of (st_group.server) */
} st_period_found;

/* What finish found, in the arena (reset by each finish). */
typedef struct st_found {
    sat_storms_view storms;  /* in time order */
    const st_period_found *periods; /* in time order; storms of period p are
                                       [first_storm, +nstorms) */
    size_t nperiods;
    sat_dur_ns window;       /* the step used (of the first period, when several) */
    size_t nwindows;
    uint64_t busiest_events; /* the window with the most failures, storm or not */
    sat_ts_ns busiest_ts;    /* its start (0 if no failure) */
    sat_dur_ns busiest_window; /* its step */
    sat_arena arena;
} st_found;

struct sat_storms {
    sat_storms_opts opts;
    int auto_window;    /* no --window: the step follows each period */
    int nser;
    st_series ser[ST_SERIES_MAX]; /* finest first */
    sat_keyed sources;  /* path -> st_src */
    sat_keyed cw;       /* window + client -> st_cw (failures of that client then) */
    sat_strtab ldap_dedup, wire_dedup;
    sat_strtab peers;       /* client address -> uint32 id (insertion index): of the
                               attempts, the requests left at a close, the heavy
                               hitters */
    sat_keyed wire_servers; /* uint32 server -> st_server: LDAP rows of captures */
    st_attempt *attempts;
    size_t nattempts, attempts_cap;
    uint8_t *hs_unfinished; /* by peer id: whether its last handshake did not finish */
    size_t hs_unfinished_cap;
    st_waiting *waiting;
    size_t nwaiting, waiting_cap;
    st_totals t;
    int nomem;
    st_found found;
    /* the router (storms_servers.c); a sub keeps only addrs and wire_sources */
    int router;               /* routes rows to subs; t holds its own counts only */
    sat_storms_opts opts_in;  /* the options as given: the subs' */
    sat_strtab subkeys;       /* server key -> uint32 index into subs */
    sat_storms *last_log_sub; /* the sub of the last log row, of server last_log_server: rows
                                 of one input come in runs */
    uint32_t last_log_server;
    sat_storms **subs;
    size_t nsubs, subs_cap;
    sat_keyed src_ids;        /* id + path -> st_srcid: the inputs, in the order read */
    sat_keyed addrs;          /* a sub's: its connections' server addresses -> count */
    sat_keyed wire_sources;   /* a sub's: uint32 capture source ids of its rows -> count */
    st_group *groups;         /* after finish: one per server */
    size_t ngroups;
    st_totals tall;           /* after finish: its own counts and every server's */
};

/* The totals a result writes: a router's, of every server. */
#define ST_TOTALS(s) ((s)->router ? &(s)->tall : &(s)->t)

/* storms_windows.c */
int64_t st_window_of(sat_ts_ns ts, sat_dur_ns w);
void st_mg_add(st_win *w, uint32_t id, uint32_t n);
uint32_t st_mg_count(const st_win *w, uint32_t id);
void st_win_add(st_win *into, const st_win *from);
void st_win_add_v(void *into, const void *from);
void st_widen(sat_storms *s, st_series *se, int64_t f);
st_win *st_drop_series(st_series *se);
st_win *st_window_at(sat_storms *s, int i, sat_ts_ns ts);
int st_hist_bucket(sat_dur_ns d);

/* Every series' window that holds ts, in turn: a row counts at every step. */
#define FOR_EACH_WINDOW(s, ts, w)                                                            \
    for (int i_ = 0; i_ < (s)->nser; i_++)                                                   \
        for (st_win *w = st_window_at((s), i_, (ts)); w; w = NULL)

/* storms.c */
sat_storms *st_create(const sat_storms_opts *opts, int router);

/* storms_period.c, storms_merge.c: one server's analyzer (not a router) */
int st_finish_plain(sat_storms *s);
int st_merge_plain(sat_storms *into, const sat_storms *from);
/* storms_merge.c: the offsets of the keyed tables in struct sat_storms, which
 * merge adds key by key and a partial holds (storms_state.c) */
extern const size_t st_keyed_tables[];
extern const size_t st_nkeyed_tables;
/* storms_servers.c */
void st_free_groups(sat_storms *s);

/* storms_classify.c */
int st_on_row(void *ctx, int table, const void *row);
void st_count(sat_storms *s, sat_ts_ns ts, int kind, sat_str client);
/* a failure counted by st_count taken back (the same ts, kind and client) */
void st_uncount(sat_storms *s, sat_ts_ns ts, int kind, sat_str client);
/* whether a kind is a client leaving its connection (A1, B1 closes) */
int st_is_client_left(int kind);
uint32_t *st_intern(sat_strtab *t, const void *key, size_t len, int *capped);
uint64_t *st_client_window(sat_storms *s, int64_t widx, const char *client, size_t len);
void st_keep_closed_waiting(sat_storms *s, const sat_ldap_op *op);
void st_finish_closed_waiting(sat_storms *s);
void st_keep_source(sat_storms *s, const char *path, size_t len, sat_ts_ns first,
                    sat_ts_ns last);
void st_finish_retries(sat_storms *s);

/* storms_http.c */
void st_on_http(sat_storms *s, const sat_http_req *r);
void st_http_source(sat_storms *s, const sat_source *src);

/* storms_period.c */
double st_baseline_floor(sat_dur_ns step);

/* storms_chain.c */
int st_build_storm(sat_storms *s, sat_storm *st, const st_win *w, size_t n,
                   const sat_storm_span *sp, sat_ts_ns lo_ts, sat_dur_ns step);

#endif
