/*
 * ldap_join_int.h - (private to the joiner, parse/join/ldap_join*.c) the state the
 * request/RESULT joiner's files share: its owned strings, the pending-request
 * and connection slabs, and the functions one file calls in another.
 *   ldap_join.c        the joiner's life cycle and each record's handling;
 *   ldap_join_pend.c   the pending-request table (keys, hash, age lists);
 *   ldap_join_conn.c   the connection table;
 *   ldap_join_emit.c   emitting rows, closed connections kept for late
 *                      RESULTs or awaiting their open line, flushing;
 *   ldap_join_order.c  open and close lines: connection-number order,
 *                      restarts taken on evidence.
 * The semantics are those written in include/satscope/parse.h and in
 * ldap_join.c's opening comment.
 *
 * Ownership: the joiner owns every slab and string here; rows handed to the
 * sink borrow them for the callback only.
 */
#ifndef SAT_PARSE_LDAP_JOIN_INT_H
#define SAT_PARSE_LDAP_JOIN_INT_H

#include "satscope/parse.h"

#define NIL (-1)

/* ---- owned string ------------------------------------------------------------ */
typedef struct jstr {
    char *p;
    size_t cap;
    uint32_t len;
    uint8_t set;
} jstr;

static inline int jstr_set(jstr *s, sat_str v)
{
    if (!v.ptr) {
        s->set = 0;
        s->len = 0;
        return 0;
    }
    if (SAT_GROW(s->p, s->cap, v.len + 1) != SAT_OK)
        return SAT_E_NOMEM;
    if (v.len)
        memcpy(s->p, v.ptr, v.len);
    s->p[v.len] = '\0';
    s->len = v.len;
    s->set = 1;
    return 0;
}
/* Appends v after a '\n' (the first one alone), while the whole stays
 * within max bytes: a DN that does not fit is left out. */
static inline int jstr_append_line(jstr *s, sat_str v, uint32_t max)
{
    if (!v.ptr)
        return 0;
    if (!s->set || !s->len)
        return v.len <= max ? jstr_set(s, v) : 0;
    if ((uint64_t)s->len + 1 + v.len > max)
        return 0;
    if (SAT_GROW(s->p, s->cap, (size_t)s->len + 1 + v.len + 1) != SAT_OK)
        return SAT_E_NOMEM;
    s->p[s->len] = '\n';
    memcpy(s->p + s->len + 1, v.ptr, v.len);
    s->len += 1 + (uint32_t)v.len;
    s->p[s->len] = '\0';
    return 0;
}

/* Set only when v is present (merge semantics). */
static inline int jstr_merge(jstr *s, sat_str v) { return v.ptr ? jstr_set(s, v) : 0; }
static inline sat_str jstr_view(const jstr *s)
{
    if (!s->set)
        return SAT_STR_NONE;
    return sat_str_make(s->p ? s->p : "", s->len);
}
static inline void jstr_free(jstr *s)
{
    free(s->p);
    s->p = NULL;
    s->cap = s->len = 0;
    s->set = 0;
}

/* How late (log time) an open line may come after its connection's own
 * lines, or after the epoch's first open line for a number just below it:
 * open lines written late by another thread come within milliseconds
 * (syslog copies have whole seconds). */
#define LATE_OPEN_NS (2LL * 1000000000LL)

/* ---- tables ---------------------------------------------------------------------- */
enum { PS_DN, PS_FILTER, PS_ATTRS, PS_METHOD, PS_EXTRA, PS_TEXT, PS_DETAILS,
       PS_SID, PS_ENTRY_DNS, PS__COUNT };

typedef struct pend {
    int64_t conn, op;
    int32_t internal_op;
    uint8_t internal, in_use, stacked;
    uint8_t depth;            /* the Y of 389's op=M(X)(Y): part of the key */
    int32_t hnext;            /* hash chain */
    int32_t fprev, fnext;     /* global age list (eviction order) */
    int32_t cprev, cnext;     /* owning connection's list */
    int32_t owner;            /* connection slot or NIL */
    sat_ldap_op row;          /* numeric fields; strings in s[] */
    jstr s[PS__COUNT];
} pend;

enum { CS_IP, CS_SADDR, CS_TLSV, CS_CIPHER, CS_CERT, CS_BINDDN, CS_SID,
       CS_REASON, CS__COUNT };

typedef struct jconn {
    int64_t conn;
    sat_ts_ns first_ts;       /* time of the first line seen for it */
    uint8_t in_use;
    uint8_t closed;           /* row emitted; kept only for late RESULTs */
    uint8_t await_open;       /* closed before any open line, row not emitted:
                                 its open line may still follow */
    int32_t hnext;
    int32_t zprev, znext;     /* closed-connection list (or the awaiting
                                 one), in close order */
    int32_t phead, ptail;     /* pending requests of this connection */
    int32_t oprev, onext;     /* every slot in use, oldest first (eviction order) */
    sat_ldap_conn row;
    jstr s[CS__COUNT];
} jconn;

struct sat_ldap_join {
    uint32_t server;
    const sat_event_sink *sink;
    size_t max_pending;
    uint32_t epoch;
    int64_t max_conn_opened; /* highest CONNECT in this epoch, -1 none */
    int64_t first_conn;      /* first CONNECT of this epoch */
    sat_ts_ns first_conn_ts;
    sat_ts_ns cur_ts;        /* the record being joined */
    char restart_why[128];   /* close_reason of rows a restart ends, or "" */
    uint64_t *holes;         /* CONN_WINDOW bits, by number mod CONN_WINDOW */
    int finished;
    int no_shapes;           /* sat_ldap_join_set_filter_shapes(j, 0) */
    int no_restarts;         /* sat_ldap_join_set_restart_detection(j, 0) */
    /* connections with an open line not yet closed (a row emitted without a
     * close time stays: it is open to the end for the peak), and those
     * without an open line closed so far */
    uint32_t open_opened, preopen_closed;

    pend *pv;
    size_t pcap, pcount;
    int32_t pfree;
    int32_t *pbucket;
    size_t pnb; /* power of two */
    int32_t fhead, ftail;

    int32_t *stack; /* old-style internal ops without ids, by slot */
    size_t stack_len, stack_cap;

    jconn *cv;
    size_t ccap, ccount;
    size_t max_conns;     /* slots in use at most; past it the oldest is evicted */
    int32_t ohead, otail; /* the slots in use, oldest first */
    int32_t cfree;
    int32_t *cbucket;
    size_t cnb;

    int32_t zhead, ztail; /* closed connections awaiting late RESULTs */
    int32_t ahead, atail; /* closed connections awaiting their open line */

    char *shape;
    size_t shape_cap;

    sat_join_stats st;
};

/* The depth a record's request is keyed by: 0 for a client's operation (a
 * parser may leave internal_depth unset for those), the logged Y otherwise. */
static inline uint8_t rec_depth(const sat_ldap_record *rec)
{
    return rec->internal ? rec->internal_depth : 0;
}

/* ---- ldap_join_pend.c ------------------------------------------------------------ */
int sat_lj_rehash_int32(int32_t **bucket, size_t *nb, size_t newnb);
int32_t sat_lj_pend_find(const sat_ldap_join *j, int64_t conn, int64_t op,
                         int32_t iop, int internal, uint8_t depth);
void sat_lj_pend_unlink(sat_ldap_join *j, int32_t pi);
/* NIL with *rc < 0 on allocation failure; *rc < 0 also when an evicted
 * request's emission failed. */
int32_t sat_lj_pend_new(sat_ldap_join *j, const sat_ldap_record *rec, int32_t owner,
                        int *rc);

/* ---- ldap_join_conn.c ------------------------------------------------------------ */
int32_t sat_lj_conn_find(const sat_ldap_join *j, int64_t conn);
int32_t sat_lj_conn_find_awaiting(const sat_ldap_join *j, int64_t conn);
int32_t sat_lj_conn_new(sat_ldap_join *j, int64_t conn);
void sat_lj_conn_unlink(sat_ldap_join *j, int32_t ci);
int32_t sat_lj_conn_get(sat_ldap_join *j, int64_t conn, int create);

/* ---- ldap_join_emit.c ------------------------------------------------------------ */
int sat_lj_emit_op(sat_ldap_join *j, sat_ldap_op *row, int32_t ci);
int sat_lj_pend_emit(sat_ldap_join *j, int32_t pi);
int sat_lj_pend_emit_unfinished(sat_ldap_join *j, int32_t pi, int conn_closed);
void sat_lj_zombie_release(sat_ldap_join *j, int32_t ci);
int sat_lj_conn_emit_ex(sat_ldap_join *j, int32_t ci, int keep_pending);
int sat_lj_conn_emit(sat_ldap_join *j, int32_t ci);
int sat_lj_expire_zombies(sat_ldap_join *j, sat_ts_ns now);
/* Ends connection ci before its time, to make room (max_conns): its row as
 * unclosed, its pending requests unfinished; counted in conns_evicted. */
int sat_lj_conn_evict(sat_ldap_join *j, int32_t ci);
void sat_lj_await_unlink(sat_ldap_join *j, int32_t ci);
int sat_lj_expire_awaiting(sat_ldap_join *j, sat_ts_ns now, int all);
int sat_lj_flush_all(sat_ldap_join *j, uint8_t conn_flags);

/* ---- ldap_join_order.c ----------------------------------------------------------- */
int sat_lj_restart(sat_ldap_join *j, const char *why);
int sat_lj_on_connect(sat_ldap_join *j, const sat_ldap_record *rec);
int sat_lj_on_close(sat_ldap_join *j, const sat_ldap_record *rec);

#endif
