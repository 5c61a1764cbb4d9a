/*
 * storms_internal.h - (private to analyze/) what the files of the storms analyzer
 * share: its limits, its per-window counts (st_win) and series, the analyzer's
 * state (struct sat_storms), and the functions one file makes for another.
 * Each function's rule is written where it is defined.
 *
 * Ownership: struct sat_storms owns its tables, arrays and view arena (freed by
 * sat_storms_free); the rows it is fed are borrowed for the call only (event.h).
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

#include "strtab.h"
#include "winseries.h"

#define ST_WINDOWS_MAX 4096
#define ST_BITS 4096
#define ST_CW_MAX 250000
#define ST_HIST 80
#define ST_CLIENTS_MAX 100000
#define ST_DEDUP_MAX 1000000
#define ST_MG 4 /* heavy hitters kept per window (Misra-Gries) */
#define ST_ATTEMPTS_MAX 2000000

#define ST_FLOOR 0.5 /* the detector's floor at most (storms_detect.c, storms_period.c) */

typedef struct st_win {
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    uint64_t events;
    uint64_t bits[ST_BITS / 64];
    uint64_t ops, unindexed, opens, hs_full, hs_resumed, timed, wtime_n;
    int64_t wtime_sum_ns; /* in ns: merged exactly, in any order */
    uint32_t hist[ST_HIST + 1]; /* etime; [ST_HIST]: never answered (its connection
                                   closed first) */
    uint64_t answered, retries;
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

/* A TCP connection, kept for the retry rule (sat_storms_opts.retry_window). */
typedef struct st_attempt {
    uint64_t peer;          /* hash of source, client, server address and port */
    sat_ts_ns syn_ts, end_ts;
    uint32_t source, flow;
    uint32_t client;        /* id in the peers table */
    uint8_t unanswered;     /* the client sent bytes, the server none */
} st_attempt;

typedef struct st_cwkey {
    uint32_t id, pad;
    int64_t widx; /* window at the opts.window step (never widened) */
} st_cwkey;

typedef struct st_dedup {
    sat_ts_ns ts;
    uint8_t kind, has;
    uint32_t client; /* of the row counted: id in the clients table, UINT32_MAX none */
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
} st_series;

#define ST_SERIES_MAX 4
extern const sat_dur_ns st_auto_steps[ST_SERIES_MAX]; /* storms.c */

typedef struct st_src { /* an input, for the periods it covers */
    sat_ts_ns first_ts, last_ts;
} st_src;

struct sat_storms {
    sat_storms_opts opts;
    int auto_window;    /* no --window: the step follows each period */
    int nser;
    st_series ser[ST_SERIES_MAX]; /* finest first */
    sat_strtab sources; /* path -> st_src */
    sat_strtab clients; /* client string -> uint32 id (= insertion index) */
    sat_strtab cw;      /* st_cwkey -> uint64 failures of that client in that window */
    sat_strtab ldap_dedup, wire_dedup;
    sat_strtab peers;       /* client address -> uint32 id (insertion index): of the
                               attempts, the requests left at a close, the heavy
                               hitters */
    sat_strtab wire_servers;/* uint32 server -> (nothing): LDAP rows of captures */
    st_attempt *attempts;
    size_t nattempts, attempts_cap;
    st_waiting *waiting;
    size_t nwaiting, waiting_cap;
    uint64_t waiting_lost;
    uint64_t attempts_lost, retries;
    uint64_t kinds[SAT_STORM_KIND__COUNT], events, deduped;
    uint64_t ldap_ops, ldap_conns, tls_hs, tcp_conns;
    sat_ts_ns first_ts, last_ts;
    int nomem;
    int clients_lost; /* a client or client-window pair past its table's cap */
    sat_storms_view view;
    sat_arena view_arena;
};

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

/* storms_classify.c */
uint32_t *st_intern(sat_strtab *t, const void *key, size_t len, int *capped);
uint64_t *st_client_window(sat_strtab *cw, uint32_t id, int64_t widx, int *nomem);
void st_keep_closed_waiting(sat_storms *s, const sat_ldap_op *op);
void st_finish_closed_waiting(sat_storms *s);
void st_keep_source(sat_storms *s, const char *path, size_t len, sat_ts_ns first,
                    sat_ts_ns last);
void st_finish_retries(sat_storms *s);
/* One failure of this kind at ts taken back (a more specific row of its key took
 * its place); the wire kinds' priority in that rule. */
void st_uncount(sat_storms *s, sat_ts_ns ts, int kind, sat_str client);
int st_wire_prio(int kind);

/* storms_chain.c */
int st_build_storm(sat_storms *s, sat_storm *st, const st_win *w, size_t n,
                   const sat_storm_span *sp, sat_ts_ns lo_ts, sat_dur_ns step);

#endif
