/*
 * etime_int.h - (private to etime*.c) the etime analyzer's state and what its
 * files share. The analyzer's rules are in etime.c's opening comment.
 *   etime.c          create/free, the sink and the per-row path, merge;
 *   etime_groups.c   groups (per type, --by key) and the per-minute series;
 *   etime_tables.c   top-N lists, attributes, unindexed searches, abandons,
 *                    result codes;
 *   etime_conn.c     connections, close codes, peak concurrency, restarts,
 *                    binds (LDAPI autobinds);
 *   etime_inputs.c   the inputs and the sampled rejects;
 *   etime_result*.c  the result, written from this state (etime_result_int.h);
 *   etime_http.c     HTTP requests (http_req rows): their groups, statuses,
 *                    clients and series;
 *   etime_usage.c    who used the server (work) and who waited (wtime), per
 *                    filter shape, client, bind DN and base.
 *
 * The state is made of accumulators (acc.h): records whose fields are
 * described by a sat_rec_desc, keyed tables (sat_keyed, capped with an
 * "(other)" row), the series (winseries.h). Init, free and merge walk the
 * list of them (et_accs in etime.c) and never name a field: a new counter is
 * one field in its record, one line in the record's descriptor, where it is
 * counted and where it is shown. The per-row path adds to the fields
 * directly.
 */
#ifndef SAT_ANALYZE_ETIME_INT_H
#define SAT_ANALYZE_ETIME_INT_H

#include <math.h>

#include "satscope/analyze.h"
#include "acc.h"
#include "internal_ops.h"
#include "sketch.h"
#include "state_io.h"
#include "strtab.h"
#include "winseries.h"

#define ET_DEFAULT_TOP 20
#define ET_DEFAULT_MAX_KEYS 100000
#define ET_SHAPE_MEMO 1024 /* slots of sat_etime.shape_memo (a power of 2) */
#define ET_CONN_MEMO 1024  /* slots of sat_etime.conn_memo (a power of 2) */
#define ET_UNINDEXED_MAX 10000
#define ET_REJECT_SAMPLES 10
#define ET_ERR_FAST 128
#define ET_FOLD_BITS (1u << 16) /* linear-counting bitmap for folded keys */
/* Time-series buckets kept at most: a day at one minute fits (1,440), and
 * with a sketch of a few KB (at most ~16 KB) each that is under 32 MB. */
#define ET_BUCKETS_MAX 2048
#define ET_MINUTE_NS 60000000000LL
/* LDAPI entries of closed connections tolerated before the table is rebuilt
 * without them */
#define ET_LDAPI_DONE_MAX 4096

/* ---- records ------------------------------------------------------------------- */

/* The figures of one group of operations (a type, a --by key, a minute), or
 * of HTTP requests (etime_http.c: results = requests with a status, errors =
 * statuses >= 400, etimes = response times, usum/un their upstream times),
 * in one list that gives the record's fields and its descriptor
 * (etime_groups.c): C(field, key) a count, S(field) a sum of ns, K(field)
 * the sketch of etimes; key: its column in a group's row (NULL: none). The
 * descriptor adds the row's derived columns (rate, percentiles, share, ...). */
#define ET_GROUP_FIELDS(C, S, K)                                                             \
    C(count, "count")     /* operations (with or without RESULT) */                         \
    C(results, "results") /* operations with a RESULT */                                    \
    C(timed, NULL)        /* operations with an etime */                                    \
    C(errors, "errors")   /* failed results: err != 0, except 5/6 (compare answers) and     \
                             14 (SASL bind in progress) */                                  \
    S(esum) S(wsum) S(osum)                                                                  \
    C(wn, NULL) C(on, NULL) /* operations with a wtime, an optime */                         \
    K(q)                                                                                     \
    S(usum)   /* HTTP upstream times */                                                      \
    C(un, NULL) /* requests with an upstream time */                                         \
    S(bsum)   /* HTTP response bytes (not ns) */                                             \
    C(bn, NULL) /* requests with a byte count */
#define ET_GROUP_COUNT_FIELD(f, key) uint64_t f;
#define ET_GROUP_SUM_FIELD(f) int64_t f;
#define ET_GROUP_SKETCH_FIELD(f) sat_qsketch f;
typedef struct et_group {
    ET_GROUP_FIELDS(ET_GROUP_COUNT_FIELD, ET_GROUP_SUM_FIELD, ET_GROUP_SKETCH_FIELD)
} et_group;
/* What a group row's derived columns are relative to: the total etime of
 * "all" (share) and the span (rate). */
typedef struct et_row_ctx {
    double all_ns, span_s;
} et_row_ctx;
extern const sat_rec_desc et_group_desc; /* its fields, merge and a row's columns */
/* A group's columns as HTTP requests' rows and as a window of a series show
 * it (written only: never merged by). */
extern const sat_rec_desc et_hrow_out, et_window_out;

/* A row of a top-N list (clients, bases, filters, ...): its operations and
 * their etimes. */
typedef struct et_kv {
    uint64_t count, timed;
    int64_t esum; /* ns */
} et_kv;
extern const sat_rec_desc et_kv_desc;

/* A row of a usage table (clients, bases, the bind DNs operations ran as,
 * filter shapes: etime_usage.c): its et_kv (first: read as one) and what its
 * operations cost the server split in two (ns): the work (the server's own
 * time on them: optime, else etime - wtime, else etime; it comes with an
 * etime, so `timed` says whether there is any) and the wait (wtime: time
 * queued before a worker took them, which the load of others caused). Only
 * these tables carry it: the others have a lean row per key. */
typedef struct et_use {
    et_kv v;
    uint64_t waited; /* operations with a wtime */
    int64_t work, wait;
} et_use;
extern const sat_rec_desc et_use_desc;

/* A row of the literal filters: its et_kv (first: read as one), and the
 * record of the filter's shape in `shapes` (payloads never move), a cache
 * set when the filter is first seen; never merged (NULL in a record a merge
 * made: looked up again on its next row). */
typedef struct et_filt {
    et_kv v;
    et_use *shape;
} et_filt;
extern const sat_rec_desc et_filt_desc; /* et_kv's fields */

/* A connection's client and bind DN records, left by its last operation.
 * The operations of a connection share both until it binds again, so most
 * rows find them here instead of hashing two keys and probing two tables
 * that grow with the log (a day of 50,000 users: every operation's miss).
 * Direct-mapped by (server, epoch, conn); the keys themselves are compared
 * with the tables' stable copies, so a slot another connection took or a
 * new BIND only misses. A record folded into "(other)" is never kept: it
 * has no copy of its key to compare. */
typedef struct et_conn_memo {
    int64_t conn;
    uint32_t server, epoch;
    const char *ckey, *ukey; /* the tables' copies of the keys */
    uint32_t clen, ulen;
    et_use *client, *user; /* NULL: none kept */
} et_conn_memo;

/* One distinct unindexed search (key: base \x1f filter \x1f client \x1f
 * binddn \x1f). */
typedef struct et_unidx {
    uint64_t count, timed, notes; /* notes: the bits seen */
    int64_t esum;                 /* ns */
    int64_t emax, nentries_max;   /* SAT_ABSENT: none logged */
    struct {
        sat_ts_ns ts; /* the first (FIRST field: the time, then what goes with it) */
        int64_t conn, op;
    } first;
    uint32_t klen[4]; /* lengths of base, filter, client, binddn in the key */
} et_unidx;
extern const sat_rec_desc et_unidx_desc;

typedef struct et_code {
    uint64_t count;
} et_code; /* result codes past ET_ERR_FAST (key int32) */
extern const sat_rec_desc et_code_desc;

/* Per server (key u32): the highest restart epoch seen. */
typedef struct et_epoch {
    int64_t max;
} et_epoch;
extern const sat_rec_desc et_epoch_desc;

/* What was taken for one restart (key {server, epoch ended} u32 x2): RK_*. */
enum { RK_START_LINE = 1, RK_NUMBER = 2 };
typedef struct et_rkind {
    uint64_t kind;
} et_rkind;
extern const sat_rec_desc et_rkind_desc;

/* Peak of concurrent connections of one server from counted rows (event.h:
 * open at a row's opening = concurrent + no_open - preopen_closed). */
typedef struct et_peak {
    uint64_t no_open;  /* counted rows without an open line */
    int64_t best;      /* max of concurrent - preopen_closed over rows with one */
    sat_ts_ns best_at; /* the earliest open_ts reaching it */
    int64_t has;       /* best is set */
} et_peak;
extern const sat_rec_desc et_peak_desc;

/* An LDAPI connection's binds, to pair each AUTOBIND with its BIND. */
typedef struct et_ldapi {
    uint64_t autobinds, autobinds_root, binds, binds_root;
    uint64_t done; /* its ldap_conn row arrived: counted in ldapi_extra* */
} et_ldapi;
extern const sat_rec_desc et_ldapi_desc;

/* logconv.pl's counters beyond the tables, counted from flags already on
 * the rows (etime.c count_more says where a count differs from logconv's):
 * X(field) a uint64_t counter. */
#define ET_MORE_COUNTS(X)                                                                    \
    /* Total Results / Overall Performance: operations that expect an answer    \
     * (all but UNBIND and AUTOBIND) and those answered (a RESULT, or an        \
     * ABANDON, which never gets one) */                                                     \
    X(expect_result) X(answered)                                                             \
    X(proxied)        /* authzid= (proxied authorization) */                                \
    X(entry_lines)    /* ENTRY lines (access log level 512) */                              \
    X(referral_lines) /* REFERRAL lines (smart referrals sent) */                           \
    X(vlv) X(vlv_unindexed) X(vlv_unindexed_components) /* VLV ops; of them notes=A, U */   \
    X(sort)           /* operations with a SORT line */                                     \
    X(binds_v2) X(binds_v3)           /* BIND version= */                                   \
    X(cert_binds) X(cert_map_failed)  /* connections: client certificate bound / not mapped */
#define ET_COUNT_FIELD(f) uint64_t f;
typedef struct et_more {
    ET_MORE_COUNTS(ET_COUNT_FIELD)
} et_more;

/* The analyzer's counters: every figure that is one number, in one list
 * that gives the record's fields and its descriptor (etime.c): X(field) a
 * uint64_t counter, A(field, n) a uint64_t[n] run of them, R(type, field) a
 * record of counters (a run too). */
#define ET_COUNTS(X, A, R)                                                                   \
    /* operations */                                                                         \
    X(ops) X(results) X(unfinished) X(internal_ops) X(no_request) X(persistent) X(paged)    \
    X(entries) X(ext_ops) X(abandons) X(unbinds) X(whole_base)                              \
    /* of the client operations: with a work time (of them taken from their                 \
     * etime for want of optime and wtime) */                                                \
    X(worked) X(work_etime)                                                                  \
    A(err_fast, ET_ERR_FAST) A(notes, 7)                                                     \
    X(unidx_total)                                                                           \
    /* binds */                                                                              \
    X(binds) X(binds_simple) X(binds_anon) X(binds_sasl) X(sasl_steps) X(autobinds)         \
    X(binds_root) X(binds_failed)                                                            \
    X(ldapi_extra) X(ldapi_extra_root) /* of done LDAPI entries (modulo 2^64) */            \
    R(et_more, more)                                                                         \
    /* connections */                                                                        \
    X(conns) X(conns_no_open) X(conns_unclosed) X(fds_taken) X(fds_returned)               \
    A(by_listener, SAT_LISTENER__COUNT) A(by_close, SAT_CLOSE__COUNT)                       \
    X(broken_pipe) X(reset_by_peer) X(resource_unavail) X(max_ber)
#define ET_COUNT_RUN_FIELD(f, n) uint64_t f[n];
#define ET_COUNT_REC_FIELD(type, f) type f;
typedef struct et_counts {
    ET_COUNTS(ET_COUNT_FIELD, ET_COUNT_RUN_FIELD, ET_COUNT_REC_FIELD)
    int64_t highest_fd; /* SAT_ABSENT if none */
    /* spans: of external operations, and of connections and operations */
    sat_ts_ns first_ts, last_ts, cfirst_ts, clast_ts;
} et_counts;
extern const sat_rec_desc et_counts_desc;

/* HTTP requests' counters (etime_http.c): statuses by code below
 * ET_HTTP_STATUS_MAX, the rest in status_other. */
#define ET_HTTP_STATUS_MAX 1000
#define ET_HTTP_COUNTS(X, A)                                                                 \
    X(requests) X(with_status) X(status_absent) X(status_other) X(no_request_line) X(tls)   \
    X(first_requests) X(conn_request_rows) X(bytes_rows)                                    \
    X(static_requests) X(static_timed) X(dynamic_timed)                                     \
    A(status, ET_HTTP_STATUS_MAX)
typedef struct et_hcounts {
    ET_HTTP_COUNTS(ET_COUNT_FIELD, ET_COUNT_RUN_FIELD)
    int64_t bytes;
    int64_t static_esum, dynamic_esum; /* response times (ns) of static files' requests
                                          (SAT_HTTPF_STATIC) and of the others */
    sat_ts_ns first_ts, last_ts;
} et_hcounts;
extern const sat_rec_desc et_hcounts_desc;

/* ---- other state --------------------------------------------------------------- */

/* A capped keyed table with an estimate of the distinct keys it folded. */
typedef struct et_ktab {
    sat_keyed k;
    uint8_t *foldbits; /* NULL until the first fold */
} et_ktab;

typedef struct et_connspan {
    uint32_t server;
    sat_ts_ns open_ts, close_ts; /* 0: not seen */
} et_connspan;

typedef struct et_src {
    uint32_t id;
    uint32_t server; /* its input set */
    char *path, *format, *compression;
    uint64_t bytes, lines, rejects;
    int truncated;
    int32_t utc_offset_s; /* the offset its times were written with */
} et_src;

typedef struct et_abandon {
    sat_ts_ns ts;
    int64_t conn, op, target_op;
    char client[48];
} et_abandon;

typedef struct et_rej {
    uint32_t source;
    uint64_t line_no;
    char *reason, *excerpt;
} et_rej;

typedef struct et_connkey {
    uint32_t server, epoch;
    int64_t conn;
} et_connkey;

/* The HTTP part of the analyzer: requests are not operations, so they have
 * groups, series and inputs of their own (a post-mortem may read a directory
 * server's log and its web front's together). */
typedef struct et_http {
    et_hcounts c;
    et_group all;
    et_ktab methods; /* method -> et_group */
    et_ktab groups;  /* --by key (path template, status, client, method) -> et_group */
    et_ktab clients; /* client -> et_kv */
    et_ktab not_found; /* path (query dropped) of a 404 -> et_kv */
    sat_strtab series; /* window index -> et_group (winseries.h) */
    sat_win_ns width;
    sat_fields_seen fields; /* of the HTTP inputs */
} et_http;

/* A span the result gives who used the server in (sat_etime_focus): its
 * time and the input sets (servers) of its inputs, all when `all`. */
typedef struct et_focus {
    sat_ts_ns from, to;
    uint32_t label;
    int all;
    uint32_t *servers;
    size_t nservers;
} et_focus;
int et_result_during(sat_rnode *root, const sat_etime *e);

struct sat_etime {
    sat_etime_opts opts;
    char root_dn[256];
    int nomem;

    et_counts c;
    et_group optype[SAT_OP__COUNT];
    et_group all;
    et_ktab groups; /* --by groups, of et_group (conn: packed et_connkey) */
    /* the series: windows of mwidth ns (a minute, then 5, 15, 60, ...), of
     * et_group (winseries.h) */
    sat_strtab minutes;
    sat_win_ns mwidth;
    int64_t last_minute;       /* window index of last_minute_grp */
    et_group *last_minute_grp; /* payloads never move (strtab.h) */

    sat_keyed err_other; /* result codes past ET_ERR_FAST */
    sat_keyed unidx;     /* unindexed searches, capped at ET_UNINDEXED_MAX */
    et_ktab sasl_mechs, failed_dn, failed_client, clients, bind_dns, bases, filters, ext_oids,
        tls_versions, attrs;
    /* who used the server and who waited (etime_usage.c): searches by filter
     * shape, every operation by the bind DN it ran as (as logged: folded by
     * et_norm_dn when written) */
    et_ktab shapes, users;
    /* the shapes of literal filters folded past the key cap, which have no
     * record to keep theirs in (et_filt.shape): a direct-mapped memo by the
     * filter's 64-bit hash and length (a wrong shape would need two filters
     * of one length with the same 64-bit hash), so a day of unique filters
     * is not parsed again for every search */
    struct {
        uint64_t hash;
        size_t len;
        et_use *shape;
    } shape_memo[ET_SHAPE_MEMO];
    et_conn_memo conn_memo[ET_CONN_MEMO];
    /* SRCH attrs lists as logged: counted whole per search (one lookup) and
     * split into `attrs` only at finish - applications ask for the same few
     * lists, so this saves a lookup per attribute of every search. */
    et_ktab attr_lists;
    et_abandon *aband; /* the earliest `top` abandons, unsorted */
    size_t naband;

    sat_strtab ldapi; /* key packed et_connkey, val et_ldapi */
    uint64_t ldapi_done;
    et_connspan *spans; /* rows without counts only (1.0 traces) */
    size_t nspans, spancap;
    sat_keyed peaks;    /* key server u32 (counted rows) */
    uint32_t last_peak_server;
    et_peak *last_peak; /* payloads never move */
    sat_keyed epochs;        /* key server u32 */
    sat_keyed restart_kinds; /* from the rows a restart ended (their close_reason,
                                parse/ldap_join.c) */

    /* which fields the inputs can carry (fields.h): OR over the inputs with
     * LDAP rows, and per field how many cannot and why (the first's format) */
    sat_fields_seen fields;

    /* who used the server in each 10 s of each server (etime_during.c), when
     * opts.during: key et_dkey, val et_dsum; the spans asked for */
    sat_strtab during;
    void *during_last;                 /* the summary of during_last_key */
    struct { int64_t window; uint32_t server, pad; } during_last_key;
    uint64_t during_lost;              /* rows of summaries past the cap */
    et_focus *focus;
    size_t nfocus;

    /* inputs */
    et_src *srcs;
    size_t nsrcs, srccap;
    uint64_t rejects, rejects_sampled_seen;
    et_rej rej[ET_REJECT_SAMPLES];
    size_t nrej;

    char *scratch; /* for composed / case-folded keys */
    size_t scratch_cap;
    uint64_t mem_check_at;
    size_t mem_peak;

    sat_iops *iops; /* internal operations by the client operation that ran them */

    et_http http;

    int finished; /* sat_etime_finish ran after the last row or merge */
};

/* ---- the accumulators (etime.c et_accs) ---------------------------------------------- */

/* One record (or a run of n), keyed table or capped table of sat_etime:
 * create, free, merge, save and load walk the list of them, et_accs. */
enum { ET_ACC_REC, ET_ACC_KEYED, ET_ACC_KTAB };
/* a table's cap: unlimited, opts.max_keys, ET_UNINDEXED_MAX */
enum { ET_CAP_NONE, ET_CAP_KEYS, ET_CAP_UNINDEXED };
typedef struct et_acc {
    uint8_t kind, cap;
    uint16_t n;    /* ET_ACC_REC: records in an array */
    uint16_t klen; /* a keyed table whose keys are of one length (a packed id): it; 0 any */
    size_t off;    /* in sat_etime */
    const sat_rec_desc *d;
} et_acc;
extern const et_acc et_accs[];
extern const size_t et_naccs;
static inline void *et_acc_at(const sat_etime *e, const et_acc *a)
{
    return (unsigned char *)(uintptr_t)e + a->off;
}
static inline size_t et_acc_cap(const sat_etime *e, const et_acc *a)
{
    return a->cap == ET_CAP_KEYS ? e->opts.max_keys : a->cap == ET_CAP_UNINDEXED ? ET_UNINDEXED_MAX : 0;
}

/* ---- per-row helpers ----------------------------------------------------------- */

static inline char et_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

static inline void et_widen(sat_ts_ns *first, sat_ts_ns *last, sat_ts_ns ts)
{
    if (ts <= 0)
        return;
    if (!*first || ts < *first)
        *first = ts;
    if (ts > *last)
        *last = ts;
}

/* A result that reports a failure. compareFalse (5) and compareTrue (6) are
 * a compare's answers and saslBindInProgress (14) a step of a bind that goes
 * on: none of them is an error to count against a group. */
static inline int et_result_is_error(int32_t err)
{
    return err != 0 && err != 5 && err != 6 && err != 14;
}

static inline void et_grp_add(sat_etime *e, et_group *g, const sat_ldap_op *op, int has_result)
{
    g->count++;
    if (has_result) {
        g->results++;
        if (et_result_is_error(op->err))
            g->errors++;
    }
    if (op->etime >= 0) {
        g->timed++;
        sat_sum_add(&g->esum, op->etime);
        if (sat_qsketch_add(&g->q, op->etime) < 0)
            e->nomem = 1;
    }
    if (op->wtime >= 0) {
        g->wn++;
        sat_sum_add(&g->wsum, op->wtime);
    }
    if (op->optime >= 0) {
        g->on++;
        sat_sum_add(&g->osum, op->optime);
    }
}

/* An operation's work (ns; etime_int.h et_kv), *from_etime set when it is
 * its etime for want of wtime and optime; < 0: none. */
static inline int64_t et_work_of(const sat_ldap_op *op, int *from_etime)
{
    *from_etime = 0;
    if (op->optime >= 0)
        return op->optime;
    if (op->etime >= 0 && op->wtime >= 0)
        return op->etime >= op->wtime ? op->etime - op->wtime : 0;
    *from_etime = op->etime >= 0;
    return op->etime;
}

static inline void et_kv_bump(et_kv *v, const sat_ldap_op *op)
{
    v->count++;
    if (op && op->etime >= 0) {
        v->timed++;
        sat_sum_add(&v->esum, op->etime);
    }
}

static inline void et_use_bump(et_use *u, const sat_ldap_op *op)
{
    et_kv_bump(&u->v, op);
    int fe;
    int64_t w = et_work_of(op, &fe);
    if (w >= 0)
        sat_sum_add(&u->work, w);
    if (op->wtime >= 0) {
        u->waited++;
        sat_sum_add(&u->wait, op->wtime);
    }
}

static inline et_connkey et_conn_key(uint32_t server, uint32_t epoch, int64_t conn)
{
    et_connkey k;
    memset(&k, 0, sizeof k);
    k.server = server;
    k.epoch = epoch;
    k.conn = conn;
    return k;
}

/* ---- across the files ----------------------------------------------------------- */

/* etime.c */
int et_scratch(sat_etime *e, size_t n); /* 0: no memory (e->nomem set) */
size_t et_norm_dn(const char *s, size_t n, char *out);
int et_is_root_dn(sat_etime *e, sat_str dn);
int et_eq_nocase(sat_str s, const char *c);
size_t et_bytes(const sat_etime *e);

/* etime_groups.c: capped tables with a folded-key estimate, groups, series */
int et_ktab_init(et_ktab *k, const sat_rec_desc *d, size_t max_keys);
void et_ktab_free(et_ktab *k);
/* A row folded into "(other)" or lost (rec NULL): counted there. */
void *et_ktab_missed(sat_etime *e, et_ktab *k, const void *key, size_t len, void *rec);
/* The record of key (hash h), or "(other)" past the cap; NULL: no memory. */
static inline void *et_ktab_at_h(sat_etime *e, et_ktab *k, const void *key, size_t len,
                                 uint64_t h)
{
    int folded;
    void *rec = sat_keyed_at_h(&k->k, key, len, h, &folded);
    return rec && !folded ? rec : et_ktab_missed(e, k, key, len, rec);
}
void *et_ktab_at(sat_etime *e, et_ktab *k, const void *key, size_t len);
int et_ktab_merge(et_ktab *into, const et_ktab *from);
uint64_t et_ktab_folded_keys(const et_ktab *k);
sat_str et_group_key(sat_etime *e, const sat_ldap_op *op, char *tbuf);
et_group *et_minute_at(sat_etime *e, int64_t w);
void et_minutes_bound(sat_etime *e);
int et_minutes_merge(sat_etime *into, const sat_etime *from);
void et_minutes_free(sat_etime *e);
/* Whether w is a width the series takes (a step of its ladder of widths). */
int et_minutes_width_ok(int64_t w);
/* The windows of a series (strtab: window index int64 -> et_group) in time
 * order, from the first to the last: every window (an empty group for those
 * without rows) unless they are too far apart, then only those with rows:
 * fn(ctx, window index, group) each. SAT_OK or SAT_E_NOMEM. */
int et_series_walk(const sat_strtab *series, void (*fn)(void *ctx, int64_t w, const et_group *g),
                   void *ctx);
/* The order of n groups (keys[i], groups[i]) in a table: by total etime
 * (those without any last), then count, descending, then key; a malloc'd
 * array of indices, NULL: no memory. */
size_t *et_group_order(const char *const *keys, const et_group *const *groups, size_t n);

/* etime_tables.c */
static inline void et_ktab_add_h(sat_etime *e, et_ktab *k, const char *key, size_t len,
                                 uint64_t h, const sat_ldap_op *op)
{
    et_kv *v = (et_kv *)et_ktab_at_h(e, k, key, len, h);
    if (v)
        et_kv_bump(v, op);
}
/* the same for a usage table (et_use rows) */
static inline et_use *et_ktab_use_h(sat_etime *e, et_ktab *k, const char *key, size_t len,
                                    uint64_t h, const sat_ldap_op *op)
{
    et_use *u = (et_use *)et_ktab_at_h(e, k, key, len, h);
    if (u)
        et_use_bump(u, op);
    return u;
}
static inline void et_ktab_add(sat_etime *e, et_ktab *k, const char *key, size_t len,
                               const sat_ldap_op *op)
{
    et_kv *v = (et_kv *)et_ktab_at(e, k, key, len);
    if (v)
        et_kv_bump(v, op);
}
void et_on_unindexed(sat_etime *e, const sat_ldap_op *op);
void et_count_ext(sat_etime *e, const sat_ldap_op *op);
void et_keep_abandon(sat_etime *e, sat_ts_ns ts, int64_t conn, int64_t opn, int64_t target,
                     sat_str client);
void et_count_err_other(sat_etime *e, int32_t code);
void et_flush_attr_lists(sat_etime *e);
int et_abandons_merge(sat_etime *into, const sat_etime *from);
/* The first `top` records of a table of et_kv by count descending, then
 * key: a malloc'd array of their indices (*n set); NULL: no memory (or an
 * empty table, *n = 0). */
size_t *et_kv_top(const et_ktab *k, size_t top, size_t *n);

/* etime_during.c: who used the server during a span (a storm) */
#define ET_DURING_K 16 /* keys a 10 s summary holds per dimension */
#define ET_DSUM_SIZE (4 * 8 + 8 + 4 * ET_DURING_K * 24) /* sizeof(et_dsum) (etime_during.c) */
/* recs: the op's records in shapes, clients, users, bases (NULL: none) */
void et_during_add(sat_etime *e, const sat_ldap_op *op, const void *const recs[4]);
int et_during_merge(sat_etime *into, const sat_etime *from);
void et_during_free(sat_etime *e);
size_t et_during_bytes(const sat_etime *e);
/* The summaries as a partial's state (etime_state.c; after the usage tables
 * on load). SAT_OK or SAT_E_NOMEM / the reader's status. */
int et_during_save(const sat_etime *e, sat_sw *w);
int et_during_load(sat_etime *e, sat_sr *r);

/* etime_usage.c: who used the server (work) and who waited */
/* A search's filter record (of `filters`, or its "(other)") and the row:
 * the shape's record bumped too. */
et_use *et_shape_add(sat_etime *e, et_filt *fv, uint64_t filter_hash, const sat_ldap_op *op);
int et_result_usage(sat_rnode *root, const sat_etime *e);

/* etime_conn.c */
int et_on_conn(void *ctx, const sat_ldap_conn *c);
void et_note_epoch_(sat_etime *e, uint32_t server, uint32_t epoch);
static inline void et_note_epoch(sat_etime *e, uint32_t server, uint32_t epoch)
{
    if (epoch) /* per row: most rows are of no restart */
        et_note_epoch_(e, server, epoch);
}
void et_on_bind(sat_etime *e, const sat_ldap_op *op);
void et_on_autobind(sat_etime *e, const sat_ldap_op *op);
int et_conn_merge(sat_etime *into, const sat_etime *from); /* spans, LDAPI binds */
void et_conn_free(sat_etime *e);
/* The figures of connections and binds made at output from several
 * accumulators (etime_conn.c). */
typedef struct et_conn_figs {
    uint64_t restarts, restarts_start_line, restarts_number;
    uint64_t peak;
    sat_ts_ns peak_at;
    uint64_t binds, binds_root; /* with the LDAPI AUTOBIND/BIND pairs counted once */
} et_conn_figs;
int et_conn_figures(const sat_etime *e, et_conn_figs *f); /* SAT_OK or SAT_E_NOMEM */

/* etime_http.c */
int et_on_http(void *ctx, const sat_http_req *r);
void et_http_init(sat_etime *e);
int et_http_merge(sat_etime *into, const sat_etime *from); /* the series */
void et_http_free(sat_etime *e);
size_t et_http_bytes(const sat_etime *e);
int et_http_by(int by); /* the dimension of the requests' groups */

/* etime_inputs.c */
int et_on_source(void *ctx, const sat_source *s);
int et_on_reject(void *ctx, const sat_reject *r);
int et_inputs_merge(sat_etime *into, const sat_etime *from);
void et_inputs_free(sat_etime *e);
void et_inputs_save(const sat_etime *e, sat_sw *w); /* a partial's state (etime_state.c) */
int et_inputs_load(sat_etime *e, sat_sr *r);        /* SAT_OK or the reader's status */

#endif
