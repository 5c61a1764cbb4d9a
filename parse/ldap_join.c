/*
 * ldap_join.c - the stateful half of LDAP log decoding, shared by every log
 * format (389 text, 389 JSON, OpenLDAP stats): pairs each request with its
 * RESULT however far apart they are logged, carries the connection's client,
 * listener and bind DN onto each operation, keeps server restarts apart
 * (connection numbers start again) and emits sat_ldap_op / sat_ldap_conn rows.
 * The semantics are those written in include/satscope/parse.h.
 *
 * Memory: connections and pending requests live in two slabs (arrays reused
 * through free lists) indexed by chained hash tables. Their strings are owned
 * growable buffers that stay with the slab slot when it is recycled, so in a
 * steady state nothing is malloc'd per line or per field.
 *
 * Op rows take the connection's bind DN and client at emit time (for a BIND,
 * after the bind DN it sets): the joiner copies no connection strings into
 * pending requests, and concurrent binds on one connection are rare.
 *
 * Concurrency: the joiner sees opens and closes in log order anyway, so it
 * keeps the two running counts that ldap_conn.concurrent / preopen_closed
 * carry (event.h): an analyzer then has the exact peak from the rows without
 * sorting every connection's open and close times (which grows with the
 * number of connections, i.e. with the span of the input). Log order is also
 * the finest order there is: two lines with the same timestamp (whole seconds
 * in older logs) keep the order the server wrote them in.
 */
#include "satscope/parse.h"

#define NIL (-1)
#define STARTTLS_OID "1.3.6.1.4.1.1466.20037"

/* ---- owned string ------------------------------------------------------------ */
typedef struct jstr {
    char *p;
    uint32_t len, cap;
    uint8_t set;
} jstr;

static int jstr_set(jstr *s, sat_str v)
{
    if (!v.ptr) {
        s->set = 0;
        s->len = 0;
        return 0;
    }
    if (v.len + 1 > s->cap) {
        uint32_t cap = s->cap ? s->cap : 32;
        while (cap < v.len + 1)
            cap = cap > UINT32_MAX / 2 ? v.len + 1 : cap * 2;
        char *np = (char *)realloc(s->p, cap);
        if (!np)
            return SAT_E_NOMEM;
        s->p = np;
        s->cap = cap;
    }
    if (v.len)
        memcpy(s->p, v.ptr, v.len);
    s->p[v.len] = '\0';
    s->len = v.len;
    s->set = 1;
    return 0;
}
/* Appends v after a '\n' (the first one alone), while the whole stays
 * within max bytes: a DN that does not fit is left out. */
static int jstr_append_line(jstr *s, sat_str v, uint32_t max)
{
    if (!v.ptr)
        return 0;
    if (!s->set || !s->len)
        return v.len <= max ? jstr_set(s, v) : 0;
    if ((uint64_t)s->len + 1 + v.len > max)
        return 0;
    uint32_t need = s->len + 1 + (uint32_t)v.len + 1;
    if (need > s->cap) {
        uint32_t cap = s->cap;
        while (cap < need)
            cap *= 2;
        char *np = (char *)realloc(s->p, cap);
        if (!np)
            return SAT_E_NOMEM;
        s->p = np;
        s->cap = cap;
    }
    s->p[s->len] = '\n';
    memcpy(s->p + s->len + 1, v.ptr, v.len);
    s->len += 1 + (uint32_t)v.len;
    s->p[s->len] = '\0';
    return 0;
}

/* Set only when v is present (merge semantics). */
static int jstr_merge(jstr *s, sat_str v) { return v.ptr ? jstr_set(s, v) : 0; }
static sat_str jstr_view(const jstr *s)
{
    if (!s->set)
        return SAT_STR_NONE;
    return sat_str_make(s->p ? s->p : "", s->len);
}
static void jstr_free(jstr *s)
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
    int32_t cfree;
    int32_t *cbucket;
    size_t cnb;

    int32_t zhead, ztail; /* closed connections awaiting late RESULTs */
    int32_t ahead, atail; /* closed connections awaiting their open line */

    char *shape;
    size_t shape_cap;

    sat_join_stats st;
};

/* A pending request is keyed by (conn, op, internal id X, nesting depth Y) of
 * 389's "op=M(X)(Y)": an operation nested in an internal one (a plugin's
 * search run inside another plugin's search) has the same X as the one
 * around it and a deeper Y, and must not close it. */
static uint64_t pkey_hash(int64_t conn, int64_t op, int32_t iop, int internal, uint8_t depth)
{
    uint64_t x = (uint64_t)conn * 0x9e3779b97f4a7c15ULL;
    x ^= (uint64_t)op * 0xc2b2ae3d27d4eb4fULL;
    x ^= ((uint64_t)(uint32_t)iop << 9 | (uint64_t)depth << 1 | (uint64_t)(internal != 0)) *
         0x165667b19e3779f9ULL;
    return sat_hash_u64(x);
}

sat_ldap_join *sat_ldap_join_create(uint32_t server, const sat_event_sink *sink,
                                    size_t max_pending)
{
    sat_ldap_join *j = (sat_ldap_join *)calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->server = server;
    j->sink = sink;
    j->max_pending = max_pending ? max_pending : 1000000;
    j->max_conn_opened = -1;
    j->pfree = j->cfree = NIL;
    j->fhead = j->ftail = NIL;
    j->zhead = j->ztail = NIL;
    j->ahead = j->atail = NIL;
    j->pnb = 1024;
    j->cnb = 1024;
    j->pbucket = (int32_t *)malloc(j->pnb * sizeof(int32_t));
    j->cbucket = (int32_t *)malloc(j->cnb * sizeof(int32_t));
    if (!j->pbucket || !j->cbucket) {
        sat_ldap_join_free(j);
        return NULL;
    }
    for (size_t i = 0; i < j->pnb; i++)
        j->pbucket[i] = NIL;
    for (size_t i = 0; i < j->cnb; i++)
        j->cbucket[i] = NIL;
    return j;
}

void sat_ldap_join_free(sat_ldap_join *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->pcap; i++)
        for (int k = 0; k < PS__COUNT; k++)
            jstr_free(&j->pv[i].s[k]);
    for (size_t i = 0; i < j->ccap; i++)
        for (int k = 0; k < CS__COUNT; k++)
            jstr_free(&j->cv[i].s[k]);
    free(j->pv);
    free(j->cv);
    free(j->pbucket);
    free(j->cbucket);
    free(j->stack);
    free(j->shape);
    free(j->holes);
    free(j);
}

void sat_ldap_join_set_filter_shapes(sat_ldap_join *j, int on)
{
    if (j)
        j->no_shapes = !on;
}

void sat_ldap_join_set_restart_detection(sat_ldap_join *j, int on)
{
    if (j)
        j->no_restarts = !on;
}

void sat_ldap_join_stats(const sat_ldap_join *j, sat_join_stats *out)
{
    if (out)
        *out = j ? j->st : (sat_join_stats){0};
}

/* ---- hash helpers -------------------------------------------------------------- */
static int rehash_int32(int32_t **bucket, size_t *nb, size_t newnb)
{
    int32_t *nbk = (int32_t *)malloc(newnb * sizeof(int32_t));
    if (!nbk)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < newnb; i++)
        nbk[i] = NIL;
    free(*bucket);
    *bucket = nbk;
    *nb = newnb;
    return 0;
}

static int pend_rehash(sat_ldap_join *j)
{
    SAT_FORWARD_IF_ERROR(rehash_int32(&j->pbucket, &j->pnb, j->pnb * 2));
    for (size_t i = 0; i < j->pcap; i++) {
        pend *p = &j->pv[i];
        if (!p->in_use || p->stacked)
            continue;
        size_t b = pkey_hash(p->conn, p->op, p->internal_op, p->internal, p->depth) & (j->pnb - 1);
        p->hnext = j->pbucket[b];
        j->pbucket[b] = (int32_t)i;
    }
    return 0;
}

static int conn_rehash(sat_ldap_join *j)
{
    SAT_FORWARD_IF_ERROR(rehash_int32(&j->cbucket, &j->cnb, j->cnb * 2));
    for (size_t i = 0; i < j->ccap; i++) {
        jconn *c = &j->cv[i];
        if (!c->in_use)
            continue;
        size_t b = sat_hash_u64((uint64_t)c->conn) & (j->cnb - 1);
        c->hnext = j->cbucket[b];
        j->cbucket[b] = (int32_t)i;
    }
    return 0;
}

/* ---- connections ------------------------------------------------------------------ */
/* Open connections only: a closed one waiting for late RESULTs is reached
 * through its pending requests, never by number. */
static int32_t conn_find(const sat_ldap_join *j, int64_t conn)
{
    int32_t i = j->cbucket[sat_hash_u64((uint64_t)conn) & (j->cnb - 1)];
    while (i != NIL && (j->cv[i].conn != conn || j->cv[i].closed || j->cv[i].await_open))
        i = j->cv[i].hnext;
    return i;
}

static int32_t conn_find_awaiting(const sat_ldap_join *j, int64_t conn)
{
    int32_t i = j->cbucket[sat_hash_u64((uint64_t)conn) & (j->cnb - 1)];
    while (i != NIL && (j->cv[i].conn != conn || !j->cv[i].await_open))
        i = j->cv[i].hnext;
    return i;
}

static int32_t conn_new(sat_ldap_join *j, int64_t conn)
{
    if (j->cfree == NIL) {
        size_t ncap = j->ccap ? j->ccap * 2 : 256;
        jconn *nv = (jconn *)realloc(j->cv, ncap * sizeof *nv);
        if (!nv)
            return NIL;
        memset(nv + j->ccap, 0, (ncap - j->ccap) * sizeof *nv);
        for (size_t i = ncap; i-- > j->ccap;) {
            nv[i].hnext = j->cfree;
            j->cfree = (int32_t)i;
        }
        j->cv = nv;
        j->ccap = ncap;
    }
    if (j->ccount + 1 > j->cnb && conn_rehash(j) < 0)
        return NIL;
    int32_t i = j->cfree;
    jconn *c = &j->cv[i];
    j->cfree = c->hnext;
    c->in_use = 1;
    c->closed = 0;
    c->await_open = 0;
    c->zprev = c->znext = NIL;
    c->conn = conn;
    c->first_ts = j->cur_ts;
    c->phead = c->ptail = NIL;
    for (int k = 0; k < CS__COUNT; k++)
        c->s[k].set = 0;
    memset(&c->row, 0, sizeof c->row);
    c->row.server = j->server;
    c->row.conn_epoch = j->epoch;
    c->row.conn = conn;
    c->row.fd = SAT_ABSENT;
    c->row.flags = SAT_CONNF_COUNTED;
    size_t b = sat_hash_u64((uint64_t)conn) & (j->cnb - 1);
    c->hnext = j->cbucket[b];
    j->cbucket[b] = i;
    j->ccount++;
    return i;
}

static void conn_unlink(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int32_t *pp = &j->cbucket[sat_hash_u64((uint64_t)c->conn) & (j->cnb - 1)];
    while (*pp != NIL && *pp != ci)
        pp = &j->cv[*pp].hnext;
    if (*pp == ci)
        *pp = c->hnext;
    c->in_use = 0;
    c->hnext = j->cfree;
    j->cfree = ci;
    j->ccount--;
}

/* Lazily create a connection that the log never showed opening. */
static int32_t conn_get(sat_ldap_join *j, int64_t conn, int create)
{
    int32_t ci = conn_find(j, conn);
    if (ci == NIL && create) {
        ci = conn_new(j, conn);
        if (ci != NIL)
            j->cv[ci].row.flags |= SAT_CONNF_NO_OPEN;
    }
    return ci;
}

/* ---- pending requests ------------------------------------------------------------ */
static int32_t pend_find(const sat_ldap_join *j, int64_t conn, int64_t op,
                         int32_t iop, int internal, uint8_t depth)
{
    int32_t i = j->pbucket[pkey_hash(conn, op, iop, internal, depth) & (j->pnb - 1)];
    while (i != NIL) {
        const pend *p = &j->pv[i];
        if (p->conn == conn && p->op == op && p->internal_op == iop &&
            p->internal == (internal != 0) && p->depth == depth)
            return i;
        i = p->hnext;
    }
    return NIL;
}

static void pend_unlink(sat_ldap_join *j, int32_t pi)
{
    pend *p = &j->pv[pi];
    if (p->stacked) {
        for (size_t k = j->stack_len; k-- > 0;) {
            if (j->stack[k] == pi) {
                memmove(j->stack + k, j->stack + k + 1,
                        (j->stack_len - k - 1) * sizeof(int32_t));
                j->stack_len--;
                break;
            }
        }
    } else {
        int32_t *pp = &j->pbucket[pkey_hash(p->conn, p->op, p->internal_op,
                                            p->internal, p->depth) & (j->pnb - 1)];
        while (*pp != NIL && *pp != pi)
            pp = &j->pv[*pp].hnext;
        if (*pp == pi)
            *pp = p->hnext;
    }
    /* age list */
    if (p->fprev != NIL) j->pv[p->fprev].fnext = p->fnext; else j->fhead = p->fnext;
    if (p->fnext != NIL) j->pv[p->fnext].fprev = p->fprev; else j->ftail = p->fprev;
    /* owner list */
    if (p->owner != NIL) {
        jconn *c = &j->cv[p->owner];
        if (p->cprev != NIL) j->pv[p->cprev].cnext = p->cnext; else c->phead = p->cnext;
        if (p->cnext != NIL) j->pv[p->cnext].cprev = p->cprev; else c->ptail = p->cprev;
    }
    p->in_use = 0;
    p->hnext = j->pfree;
    j->pfree = pi;
    j->pcount--;
}

/* ---- emission ------------------------------------------------------------------------ */
static sat_str shape_of(sat_ldap_join *j, sat_str filter)
{
    if (!filter.ptr)
        return SAT_STR_NONE;
    /* a shape grows by at most one '*' per empty value: 2x+16 always fits */
    size_t need = (size_t)filter.len * 2 + 16;
    if (need > j->shape_cap) {
        char *np = (char *)realloc(j->shape, need);
        if (!np)
            return SAT_STR_NONE;
        j->shape = np;
        j->shape_cap = need;
    }
    size_t n = sat_filter_shape(filter.ptr, filter.len, j->shape, j->shape_cap);
    if (n >= j->shape_cap)
        n = j->shape_cap - 1;
    return sat_str_make(j->shape, n);
}

static void fill_conn_view(const sat_ldap_join *j, sat_ldap_op *row, int32_t ci)
{
    if (ci != NIL && j->cv[ci].in_use) {
        row->bind_dn = jstr_view(&j->cv[ci].s[CS_BINDDN]);
        row->client_ip = jstr_view(&j->cv[ci].s[CS_IP]);
        if (!row->sid.ptr)
            row->sid = jstr_view(&j->cv[ci].s[CS_SID]);
    }
}

static int emit_op(sat_ldap_join *j, sat_ldap_op *row, int32_t ci)
{
    row->server = j->server;
    /* internal searches always: their shapes group them (etime --by internal) */
    if (row->type == SAT_OP_SRCH && row->filter.ptr && !row->filter_shape.ptr &&
        (!j->no_shapes || row->internal_depth))
        row->filter_shape = shape_of(j, row->filter);
    fill_conn_view(j, row, ci);
    j->st.ops++;
    return sat_sink_emit(j->sink, SAT_TABLE_LDAP_OP, row);
}

/* Emit pending slot pi (finished or not) and free it. */
static int pend_emit(sat_ldap_join *j, int32_t pi)
{
    pend *p = &j->pv[pi];
    sat_ldap_op row = p->row;
    row.dn = jstr_view(&p->s[PS_DN]);
    row.filter = jstr_view(&p->s[PS_FILTER]);
    row.attrs = jstr_view(&p->s[PS_ATTRS]);
    row.method = jstr_view(&p->s[PS_METHOD]);
    row.extra = jstr_view(&p->s[PS_EXTRA]);
    row.text = jstr_view(&p->s[PS_TEXT]);
    row.details = jstr_view(&p->s[PS_DETAILS]);
    row.sid = jstr_view(&p->s[PS_SID]);
    row.entry_dns = jstr_view(&p->s[PS_ENTRY_DNS]);
    int32_t owner = p->owner;
    /* strings stay valid: the slot is recycled only after the callback */
    int rc = emit_op(j, &row, owner);
    pend_unlink(j, pi);
    return rc;
}

static int pend_emit_unfinished(sat_ldap_join *j, int32_t pi, int conn_closed)
{
    pend *p = &j->pv[pi];
    p->row.flags |= SAT_OPF_UNFINISHED;
    if (conn_closed)
        p->row.flags |= SAT_OPF_CONN_CLOSED;
    p->row.err = SAT_ABSENT;
    j->st.unfinished++;
    return pend_emit(j, pi);
}

/* A closed connection's last pending request is gone (answered or given
 * up): the slot is free. */
static void zombie_release(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    if (c->zprev != NIL) j->cv[c->zprev].znext = c->znext; else j->zhead = c->znext;
    if (c->znext != NIL) j->cv[c->znext].zprev = c->zprev; else j->ztail = c->zprev;
    conn_unlink(j, ci);
}

/* Its requests will never be answered now: emit them as unfinished. */
static int zombie_expire(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int rc = 0, r;
    while (c->phead != NIL) {
        r = pend_emit_unfinished(j, c->phead, 1); /* a zombie: its close was logged */
        if (r < 0 && rc >= 0)
            rc = r;
    }
    zombie_release(j, ci);
    return rc;
}

static int emit_unfinished_of(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int rc = 0;
    /* a close line, not the end of the input or a restart */
    int closed = c->row.close_ts > 0 && !(c->row.flags & (SAT_CONNF_UNCLOSED | SAT_CONNF_RESTART));
    while (c->phead != NIL && rc >= 0)
        rc = pend_emit_unfinished(j, c->phead, closed);
    /* pending requests are emitted even if a sink failed; the row too */
    while (c->phead != NIL)
        pend_unlink(j, c->phead);
    return rc;
}

/* Emits the connection's row. With keep_pending, requests still awaiting a
 * RESULT keep the slot alive as a closed connection: 389 2.x may log an
 * operation's RESULT after its connection's Disconnect line, and that RESULT
 * must still meet its request (and the connection's client and bind DN).
 * Otherwise they are emitted as unfinished and the slot is freed. */
static int conn_emit_ex(sat_ldap_join *j, int32_t ci, int keep_pending)
{
    jconn *c = &j->cv[ci];
    int rc = keep_pending ? 0 : emit_unfinished_of(j, ci);
    sat_ldap_conn row = c->row;
    row.client_ip = jstr_view(&c->s[CS_IP]);
    row.server_addr = jstr_view(&c->s[CS_SADDR]);
    row.tls_version = jstr_view(&c->s[CS_TLSV]);
    row.tls_cipher = jstr_view(&c->s[CS_CIPHER]);
    row.client_cert = jstr_view(&c->s[CS_CERT]);
    row.bind_dn = jstr_view(&c->s[CS_BINDDN]);
    j->st.conns++;
    int rc2 = sat_sink_emit(j->sink, SAT_TABLE_LDAP_CONN, &row);
    if (keep_pending && c->phead != NIL) {
        c->closed = 1;
        c->zprev = j->ztail;
        c->znext = NIL;
        if (j->ztail != NIL) j->cv[j->ztail].znext = ci; else j->zhead = ci;
        j->ztail = ci;
    } else {
        conn_unlink(j, ci);
    }
    return rc < 0 ? rc : rc2;
}

static int conn_emit(sat_ldap_join *j, int32_t ci) { return conn_emit_ex(j, ci, 0); }

/* How long (log time) a closed connection waits for late RESULTs. */
#define LATE_RESULT_GRACE_NS (60LL * 1000000000LL)

static int expire_zombies(sat_ldap_join *j, sat_ts_ns now)
{
    int rc = 0, r;
    while (j->zhead != NIL && now - j->cv[j->zhead].row.close_ts > LATE_RESULT_GRACE_NS) {
        r = zombie_expire(j, j->zhead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

static void await_unlink(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    if (c->zprev != NIL) j->cv[c->zprev].znext = c->znext; else j->ahead = c->znext;
    if (c->znext != NIL) j->cv[c->znext].zprev = c->zprev; else j->atail = c->zprev;
    c->zprev = c->znext = NIL;
    c->await_open = 0;
}

/* No open line came: a connection without one after all, closed when its
 * close line said (counted now, as it would have been then). */
static int await_expire(sat_ldap_join *j, int32_t ci)
{
    await_unlink(j, ci);
    j->preopen_closed++;
    j->cv[ci].row.close_reason = jstr_view(&j->cv[ci].s[CS_REASON]);
    return conn_emit_ex(j, ci, 1);
}

static int expire_awaiting(sat_ldap_join *j, sat_ts_ns now, int all)
{
    int rc = 0, r;
    while (j->ahead != NIL &&
           (all || now - j->cv[j->ahead].row.close_ts > LATE_OPEN_NS)) {
        r = await_expire(j, j->ahead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

/* Everything of the current epoch ends: pending → unfinished, conns →
 * unclosed (with extra flags). */
static int flush_all(sat_ldap_join *j, uint8_t conn_flags)
{
    int rc = 0, r;
    /* pending requests not owned by a connection (internal ops, orphans) */
    int32_t pi = j->fhead;
    while (pi != NIL) {
        int32_t next = j->pv[pi].fnext;
        if (j->pv[pi].owner == NIL) {
            r = pend_emit_unfinished(j, pi, 0);
            if (r < 0 && rc >= 0)
                rc = r;
        }
        pi = next;
    }
    r = expire_awaiting(j, 0, 1);
    if (r < 0 && rc >= 0)
        rc = r;
    while (j->zhead != NIL) {
        r = zombie_expire(j, j->zhead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    for (size_t i = 0; i < j->ccap; i++) {
        if (!j->cv[i].in_use)
            continue;
        j->cv[i].row.flags |= conn_flags;
        if ((conn_flags & SAT_CONNF_RESTART) && j->restart_why[0] && !j->cv[i].closed)
            j->cv[i].row.close_reason = sat_str_cstr(j->restart_why);
        r = conn_emit(j, (int32_t)i);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

/* The depth a record's request is keyed by: 0 for a client's operation (a
 * parser may leave internal_depth unset for those), the logged Y otherwise. */
static uint8_t rec_depth(const sat_ldap_record *rec)
{
    return rec->internal ? rec->internal_depth : 0;
}

static int32_t pend_new(sat_ldap_join *j, const sat_ldap_record *rec, int32_t owner,
                        int *rc)
{
    *rc = 0;
    while (j->pcount >= j->max_pending && j->fhead != NIL) {
        j->st.evicted++;
        int r = pend_emit_unfinished(j, j->fhead, 0);
        if (r < 0)
            *rc = r;
    }
    if (j->pfree == NIL) {
        size_t ncap = j->pcap ? j->pcap * 2 : 256;
        pend *nv = (pend *)realloc(j->pv, ncap * sizeof *nv);
        if (!nv) {
            *rc = SAT_E_NOMEM;
            return NIL;
        }
        memset(nv + j->pcap, 0, (ncap - j->pcap) * sizeof *nv);
        for (size_t i = ncap; i-- > j->pcap;) {
            nv[i].hnext = j->pfree;
            j->pfree = (int32_t)i;
        }
        j->pv = nv;
        j->pcap = ncap;
    }
    if (j->pcount + 1 > j->pnb && pend_rehash(j) < 0) {
        *rc = SAT_E_NOMEM;
        return NIL;
    }
    int32_t pi = j->pfree;
    pend *p = &j->pv[pi];
    j->pfree = p->hnext;
    p->in_use = 1;
    p->conn = rec->conn;
    p->op = rec->op;
    p->internal_op = rec->internal_op;
    p->internal = rec->internal != 0;
    p->depth = rec_depth(rec);
    p->stacked = rec->internal && rec->internal_op == SAT_ABSENT;
    for (int k = 0; k < PS__COUNT; k++)
        p->s[k].set = 0;
    if (p->stacked) {
        if (j->stack_len == j->stack_cap) {
            size_t ncap = j->stack_cap ? j->stack_cap * 2 : 64;
            int32_t *ns = (int32_t *)realloc(j->stack, ncap * sizeof(int32_t));
            if (!ns) {
                p->in_use = 0;
                p->hnext = j->pfree;
                j->pfree = pi;
                *rc = SAT_E_NOMEM;
                return NIL;
            }
            j->stack = ns;
            j->stack_cap = ncap;
        }
        j->stack[j->stack_len++] = pi;
        p->hnext = NIL;
    } else {
        size_t b = pkey_hash(p->conn, p->op, p->internal_op, p->internal, p->depth) & (j->pnb - 1);
        p->hnext = j->pbucket[b];
        j->pbucket[b] = pi;
    }
    p->fnext = NIL;
    p->fprev = j->ftail;
    if (j->ftail != NIL) j->pv[j->ftail].fnext = pi; else j->fhead = pi;
    j->ftail = pi;
    p->owner = owner;
    p->cnext = NIL;
    if (owner != NIL) {
        jconn *c = &j->cv[owner];
        p->cprev = c->ptail;
        if (c->ptail != NIL) j->pv[c->ptail].cnext = pi; else c->phead = pi;
        c->ptail = pi;
    } else {
        p->cprev = NIL;
    }
    j->pcount++;
    return pi;
}

/* ---- record handling -------------------------------------------------------------- */
static void row_from_record(sat_ldap_join *j, sat_ldap_op *row, const sat_ldap_record *rec)
{
    *row = rec->op_fields;
    row->ts_ns = rec->ts;
    row->result_ts_ns = 0;
    row->server = j->server;
    row->conn_epoch = j->epoch;
    row->conn = rec->conn;
    row->op = rec->op;
    row->internal_op = rec->internal_op;
    row->internal_depth = rec->internal_depth;
    row->filter_shape = SAT_STR_NONE;
    row->bind_dn = SAT_STR_NONE;
    row->client_ip = SAT_STR_NONE;
}

static int type_from_tag(int32_t tag)
{
    switch (tag) {
    case 97: return SAT_OP_BIND;
    case 101: return SAT_OP_SRCH;
    case 103: return SAT_OP_MOD;
    case 105: return SAT_OP_ADD;
    case 107: return SAT_OP_DEL;
    case 109: return SAT_OP_MODRDN;
    case 111: return SAT_OP_CMP;
    case 120: return SAT_OP_EXT;
    default: return SAT_OP_UNKNOWN;
    }
}

/* The connection a record's op belongs to: external ops create it lazily,
 * internal ops only borrow their parent's if it is known. */
static int32_t op_conn(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (rec->internal)
        return rec->conn > 0 ? conn_find(j, rec->conn) : NIL;
    return conn_get(j, rec->conn, 1);
}

static int set_pend_strings(pend *p, const sat_ldap_op *f)
{
    int rc = 0;
    rc |= jstr_merge(&p->s[PS_DN], f->dn);
    rc |= jstr_merge(&p->s[PS_FILTER], f->filter);
    rc |= jstr_merge(&p->s[PS_ATTRS], f->attrs);
    rc |= jstr_merge(&p->s[PS_METHOD], f->method);
    rc |= jstr_merge(&p->s[PS_EXTRA], f->extra);
    rc |= jstr_merge(&p->s[PS_TEXT], f->text);
    rc |= jstr_merge(&p->s[PS_DETAILS], f->details);
    rc |= jstr_merge(&p->s[PS_SID], f->sid);
    return rc ? SAT_E_NOMEM : 0;
}

static int on_request(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t ci = op_conn(j, rec);
    int type = rec->op_fields.type;
    if (ci != NIL && !rec->internal)
        j->cv[ci].row.ops++;
    if (type == SAT_OP_ABANDON || type == SAT_OP_UNBIND) {
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        return emit_op(j, &row, ci);
    }
    int rc = 0;
    /* the same key again (op number reuse, repeated lines): the first one
     * never got its RESULT */
    if (!(rec->internal && rec->internal_op == SAT_ABSENT)) {
        int32_t old = pend_find(j, rec->conn, rec->op, rec->internal_op, rec->internal,
                            rec_depth(rec));
        if (old != NIL)
            rc = pend_emit_unfinished(j, old, 0);
    }
    int r2;
    int32_t pi = pend_new(j, rec, ci, &r2);
    if (pi == NIL)
        return r2 < 0 ? r2 : rc;
    pend *p = &j->pv[pi];
    row_from_record(j, &p->row, rec);
    p->row.dn = p->row.filter = p->row.attrs = p->row.method = SAT_STR_NONE;
    int r3 = set_pend_strings(p, &rec->op_fields);
    if (r3 < 0)
        return r3;
    return rc < 0 ? rc : r2;
}

static int32_t find_for(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (rec->internal && rec->internal_op == SAT_ABSENT)
        return j->stack_len ? j->stack[j->stack_len - 1] : NIL;
    return pend_find(j, rec->conn, rec->op, rec->internal_op, rec->internal,
                            rec_depth(rec));
}

static void merge_numbers(sat_ldap_op *dst, const sat_ldap_op *f, int additive_nentries)
{
    if (f->type != SAT_OP_UNKNOWN && dst->type == SAT_OP_UNKNOWN)
        dst->type = f->type;
    if (f->scope != SAT_SCOPE_NONE) dst->scope = f->scope;
    dst->flags |= f->flags;
    dst->notes |= f->notes;
    if (f->err != SAT_ABSENT) dst->err = f->err;
    if (f->tag != SAT_ABSENT) dst->tag = f->tag;
    if (f->nentries != SAT_ABSENT) {
        if (additive_nentries && dst->nentries != SAT_ABSENT)
            dst->nentries += f->nentries;
        else
            dst->nentries = f->nentries;
    }
    if (f->etime != SAT_ABSENT) dst->etime = f->etime;
    if (f->wtime != SAT_ABSENT) dst->wtime = f->wtime;
    if (f->optime != SAT_ABSENT) dst->optime = f->optime;
    if (f->wbusy != SAT_ABSENT) dst->wbusy = f->wbusy;
    if (f->wbusy_max != SAT_ABSENT) dst->wbusy_max = f->wbusy_max;
    if (f->wqdepth != SAT_ABSENT) dst->wqdepth = f->wqdepth;
    if (f->target_op != SAT_ABSENT) dst->target_op = f->target_op;
    /* one per ENTRY / REFERRAL line: they add up */
    dst->entry_lines += f->entry_lines;
    dst->referral_lines += f->referral_lines;
}

static int on_detail(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t pi = find_for(j, rec);
    if (pi == NIL)
        return 0; /* its request is not in this input: nothing to amend */
    pend *p = &j->pv[pi];
    merge_numbers(&p->row, &rec->op_fields, 1);
    if (jstr_append_line(&p->s[PS_ENTRY_DNS], rec->op_fields.entry_dns, SAT_ENTRY_DNS_MAX) < 0)
        return SAT_E_NOMEM;
    return set_pend_strings(p, &rec->op_fields);
}

/* A BIND's outcome on its connection, and StartTLS's. */
static int apply_result_to_conn(sat_ldap_join *j, int32_t ci, sat_ldap_op *row,
                                sat_str result_dn, sat_str request_dn)
{
    if (row->type == SAT_OP_BIND && row->err == 14)
        row->flags |= SAT_OPF_SASL_INPROGRESS;
    if (ci == NIL || row->internal_depth)
        return 0;
    jconn *c = &j->cv[ci];
    if (row->type == SAT_OP_BIND && row->err == 0) {
        sat_str dn = result_dn.ptr ? result_dn : request_dn;
        if (!dn.ptr)
            dn = sat_str_make("", 0);
        /* dn may point into c's own buffer only if equal; copy via the row */
        if (jstr_set(&c->s[CS_BINDDN], dn) < 0)
            return SAT_E_NOMEM;
    }
    if (row->type == SAT_OP_EXT && row->err == 0 && row->method.ptr &&
        row->method.len == sizeof STARTTLS_OID - 1 &&
        memcmp(row->method.ptr, STARTTLS_OID, row->method.len) == 0) {
        if (c->row.listener == SAT_LISTENER_LDAP ||
            c->row.listener == SAT_LISTENER_UNKNOWN)
            c->row.listener = SAT_LISTENER_STARTTLS;
        c->row.flags |= SAT_CONNF_TLS;
    }
    return 0;
}

static int on_result(sat_ldap_join *j, const sat_ldap_record *rec)
{
    const sat_ldap_op *f = &rec->op_fields;
    int32_t pi = find_for(j, rec);
    if (pi == NIL) {
        int32_t ci = op_conn(j, rec);
        if (ci != NIL && !rec->internal)
            j->cv[ci].row.ops++;
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        row.result_ts_ns = rec->ts;
        if (row.type == SAT_OP_UNKNOWN)
            row.type = (uint8_t)type_from_tag(f->tag);
        row.flags |= SAT_OPF_NO_REQUEST;
        j->st.results_without_request++;
        SAT_FORWARD_IF_ERROR(apply_result_to_conn(j, ci, &row, f->dn, SAT_STR_NONE));
        return emit_op(j, &row, ci);
    }
    pend *p = &j->pv[pi];
    merge_numbers(&p->row, f, 0);
    if (p->row.type == SAT_OP_UNKNOWN)
        p->row.type = (uint8_t)type_from_tag(p->row.tag);
    p->row.result_ts_ns = rec->ts;
    if (jstr_merge(&p->s[PS_TEXT], f->text) < 0 ||
        jstr_merge(&p->s[PS_DETAILS], f->details) < 0 ||
        jstr_merge(&p->s[PS_SID], f->sid) < 0 ||
        (!p->s[PS_DN].set && jstr_merge(&p->s[PS_DN], f->dn) < 0))
        return SAT_E_NOMEM;
    sat_ldap_op tmp = p->row;
    tmp.method = jstr_view(&p->s[PS_METHOD]);
    SAT_FORWARD_IF_ERROR(apply_result_to_conn(j, p->owner, &tmp, f->dn,
                                              jstr_view(&p->s[PS_DN])));
    p->row.flags = tmp.flags;
    int32_t owner = p->owner;
    int rc = pend_emit(j, pi);
    if (owner != NIL && j->cv[owner].closed && j->cv[owner].phead == NIL)
        zombie_release(j, owner);
    return rc;
}

/* ---- connection order ---------------------------------------------------------------
 * See the opening comment: a window of holes below the highest number opened
 * tells disorder from numbers that start again. */
#define CONN_WINDOW 65536 /* numbers; 8 KiB of bits */

static size_t hole_bit(int64_t n) { return (size_t)((uint64_t)n % CONN_WINDOW); }
static int hole_get(const sat_ldap_join *j, int64_t n)
{
    size_t b = hole_bit(n);
    return (int)((j->holes[b / 64] >> (b % 64)) & 1u);
}
static void hole_put(sat_ldap_join *j, int64_t n, int v)
{
    size_t b = hole_bit(n);
    if (v)
        j->holes[b / 64] |= (uint64_t)1 << (b % 64);
    else
        j->holes[b / 64] &= ~((uint64_t)1 << (b % 64));
}
static void holes_fill(sat_ldap_join *j)
{
    memset(j->holes, 0xff, CONN_WINDOW / 8);
}

/* The open line for number n in this epoch: 1 when it is disorder or new
 * (the window is updated), 0 when it is evidence of a restart (n was opened
 * already in this epoch, or lies below what disorder can explain). */
static int conn_number_fits(sat_ldap_join *j, int64_t n, sat_ts_ns ts)
{
    if (!j->holes) {
        j->holes = (uint64_t *)malloc(CONN_WINDOW / 8);
        if (!j->holes)
            return 1; /* without the window, no restart by number */
    }
    if (j->max_conn_opened < 0) {
        /* the epoch's first: what lies just below may still come */
        holes_fill(j);
        hole_put(j, n, 0);
        j->max_conn_opened = n;
        j->first_conn = n;
        j->first_conn_ts = ts;
        return 1;
    }
    int64_t max = j->max_conn_opened;
    if (n > max) {
        if (n - max >= CONN_WINDOW)
            holes_fill(j);
        else
            for (int64_t k = max + 1; k < n; k++)
                hole_put(j, k, 1);
        hole_put(j, n, 0);
        j->max_conn_opened = n;
        return 1;
    }
    if (n <= max - CONN_WINDOW || !hole_get(j, n))
        return 0;
    if (n < j->first_conn && (ts <= 0 || j->first_conn_ts <= 0 ||
                              ts - j->first_conn_ts > LATE_OPEN_NS ||
                              j->first_conn_ts - ts > LATE_OPEN_NS))
        return 0;
    hole_put(j, n, 0);
    j->st.opens_out_of_order++;
    return 1;
}

/* A connection closed without an open line may get one yet: its number is
 * above every number opened in this epoch, or a hole inside their range. */
static int open_may_follow(const sat_ldap_join *j, int64_t n)
{
    if (j->no_restarts || !j->holes || j->max_conn_opened < 0)
        return 0;
    int64_t max = j->max_conn_opened;
    return n > max || (n > j->first_conn && n > max - CONN_WINDOW && hole_get(j, n));
}

static int restart(sat_ldap_join *j, const char *why)
{
    /* "slapd starting" at the top of a log is a start, not a restart */
    if (j->max_conn_opened < 0 && j->ccount == 0 && j->pcount == 0) {
        j->max_conn_opened = -1;
        return 0;
    }
    snprintf(j->restart_why, sizeof j->restart_why, "%s", why);
    int rc = flush_all(j, SAT_CONNF_UNCLOSED | SAT_CONNF_RESTART);
    j->restart_why[0] = '\0';
    j->epoch++;
    j->max_conn_opened = -1;
    j->st.restarts++;
    return rc;
}

static int on_connect(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int rc = 0, restart_open = 0;
    int32_t ci = NIL;
    if (!j->no_restarts && !conn_number_fits(j, rec->conn, rec->ts)) {
        char why[sizeof j->restart_why];
        if (rec->conn > j->max_conn_opened - CONN_WINDOW)
            snprintf(why, sizeof why,
                     "server restart: conn=%lld opened again after conn=%lld",
                     (long long)rec->conn, (long long)j->max_conn_opened);
        else
            snprintf(why, sizeof why,
                     "server restart: conn=%lld far below conn=%lld (numbers started again)",
                     (long long)rec->conn, (long long)j->max_conn_opened);
        rc = restart(j, why);
        j->st.restarts_by_number++;
        conn_number_fits(j, rec->conn, rec->ts);
        restart_open = 1;
    } else {
        ci = conn_find(j, rec->conn);
        if (ci != NIL && (!(j->cv[ci].row.flags & SAT_CONNF_NO_OPEN) ||
                          (rec->ts > 0 && j->cv[ci].first_ts > 0 &&
                           rec->ts - j->cv[ci].first_ts > LATE_OPEN_NS))) {
            /* an earlier view of this number that is not this connection's:
             * it ends here */
            rc = conn_emit(j, ci);
            ci = NIL;
        }
    }
    if (j->no_restarts && rec->conn > j->max_conn_opened)
        j->max_conn_opened = rec->conn;
    int done = 0; /* closed already: its close line came first */
    if (ci == NIL && (ci = conn_find_awaiting(j, rec->conn)) != NIL) {
        await_unlink(j, ci);
        done = 1;
    }
    int late = ci != NIL; /* its lines came before its open line */
    if (!late)
        ci = conn_new(j, rec->conn);
    if (ci == NIL)
        return SAT_E_NOMEM;
    jconn *c = &j->cv[ci];
    const sat_ldap_conn *f = &rec->conn_fields;
    c->row.open_ts = rec->ts;
    if (late) {
        j->st.opens_after_lines++;
        if (c->first_ts > 0 && (rec->ts <= 0 || c->first_ts < rec->ts))
            c->row.open_ts = c->first_ts;
    }
    c->row.fd = f->fd;
    c->row.client_port = f->client_port;
    c->row.listener = f->listener;
    c->row.flags = (uint8_t)(SAT_CONNF_COUNTED | (f->flags & SAT_CONNF_TLS) |
                             (late ? c->row.flags & (SAT_CONNF_TLS | SAT_CONNF_CERT_BOUND |
                                                     SAT_CONNF_CERT_MAP_FAILED)
                                   : 0));
    if (f->listener == SAT_LISTENER_LDAPS)
        c->row.flags |= SAT_CONNF_TLS;
    if (restart_open)
        c->row.flags |= SAT_CONNF_RESTART_OPEN;
    /* a connection whose open line carries no time counts as one without
     * an open line (open from the start), as analyzers read open_ts == 0 */
    if (rec->ts > 0) {
        /* one closed already is not open now: it adds to no count */
        c->row.concurrent = done ? j->open_opened : ++j->open_opened;
        c->row.preopen_closed = j->preopen_closed;
    }
    /* a connection seen opening is anonymous until a BIND succeeds (one
     * whose BIND was answered before its open line keeps that bind) */
    if ((!late || !c->s[CS_BINDDN].set) &&
        jstr_set(&c->s[CS_BINDDN], sat_str_make("", 0)) < 0)
        return SAT_E_NOMEM;
    if (jstr_set(&c->s[CS_IP], f->client_ip) < 0 ||
        jstr_set(&c->s[CS_SADDR], f->server_addr) < 0)
        return SAT_E_NOMEM;
    if (done) {
        c->row.close_reason = jstr_view(&c->s[CS_REASON]);
        int r = conn_emit_ex(j, ci, 1);
        return rc < 0 ? rc : r;
    }
    return rc;
}

static int on_close(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t ci = conn_get(j, rec->conn, 1);
    if (ci == NIL)
        return SAT_E_NOMEM;
    jconn *c = &j->cv[ci];
    const sat_ldap_conn *f = &rec->conn_fields;
    c->row.close_ts = rec->ts;
    c->row.close_code = f->close_code ? f->close_code : SAT_CLOSE_OTHER;
    if ((c->row.flags & SAT_CONNF_NO_OPEN) && rec->ts > 0 && open_may_follow(j, rec->conn)) {
        /* its open line may still come (written late by another thread):
         * the row waits for it, a bounded time */
        if (c->row.fd == SAT_ABSENT)
            c->row.fd = f->fd;
        if (jstr_set(&c->s[CS_REASON], f->close_reason) < 0)
            return SAT_E_NOMEM;
        c->await_open = 1;
        c->zprev = j->atail;
        c->znext = NIL;
        if (j->atail != NIL) j->cv[j->atail].znext = ci; else j->ahead = ci;
        j->atail = ci;
        return 0;
    }
    /* only a close with a time leaves the count: analyzers take a row
     * without close_ts as open to the end */
    if (rec->ts > 0) {
        if (c->row.open_ts > 0) {
            if (j->open_opened)
                j->open_opened--;
        } else {
            j->preopen_closed++;
        }
    }
    if (c->row.fd == SAT_ABSENT)
        c->row.fd = f->fd;
    /* close_reason is borrowed from the record: valid during conn_emit */
    c->row.close_reason = f->close_reason;
    return conn_emit_ex(j, ci, 1);
}

int sat_ldap_join_record(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (!j || !rec)
        return SAT_E_USAGE;
    j->finished = 0;
    j->cur_ts = rec->ts;
    if (j->ahead != NIL)
        SAT_FORWARD_IF_ERROR(expire_awaiting(j, rec->ts, 0));
    if (j->zhead != NIL)
        SAT_FORWARD_IF_ERROR(expire_zombies(j, rec->ts));
    switch (rec->kind) {
    case SAT_REC_CONNECT:
        return on_connect(j, rec);
    case SAT_REC_TLS: {
        int32_t ci = conn_get(j, rec->conn, 1);
        if (ci == NIL)
            return SAT_E_NOMEM;
        jconn *c = &j->cv[ci];
        c->row.flags |= SAT_CONNF_TLS;
        if (jstr_merge(&c->s[CS_TLSV], rec->conn_fields.tls_version) < 0 ||
            jstr_merge(&c->s[CS_CIPHER], rec->conn_fields.tls_cipher) < 0 ||
            jstr_merge(&c->s[CS_CERT], rec->conn_fields.client_cert) < 0)
            return SAT_E_NOMEM;
        return 0;
    }
    case SAT_REC_CLIENT_CERT: {
        int32_t ci = conn_get(j, rec->conn, 1);
        if (ci == NIL)
            return SAT_E_NOMEM;
        j->cv[ci].row.flags |= (uint8_t)(SAT_CONNF_TLS |
                                         (rec->conn_fields.flags & (SAT_CONNF_CERT_BOUND |
                                                                    SAT_CONNF_CERT_MAP_FAILED)));
        return jstr_merge(&j->cv[ci].s[CS_CERT], rec->conn_fields.client_cert);
    }
    case SAT_REC_REQUEST:
        return on_request(j, rec);
    case SAT_REC_DETAIL:
        return on_detail(j, rec);
    case SAT_REC_RESULT:
        return on_result(j, rec);
    case SAT_REC_AUTOBIND: {
        int32_t ci = op_conn(j, rec);
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        row.type = SAT_OP_AUTOBIND;
        if (ci != NIL && !rec->internal && rec->op_fields.dn.ptr &&
            jstr_set(&j->cv[ci].s[CS_BINDDN], rec->op_fields.dn) < 0)
            return SAT_E_NOMEM;
        return emit_op(j, &row, ci);
    }
    case SAT_REC_SESSION: {
        int32_t ci = op_conn(j, rec);
        if (ci != NIL && jstr_merge(&j->cv[ci].s[CS_SID], rec->op_fields.sid) < 0)
            return SAT_E_NOMEM;
        if (rec->op != SAT_ABSENT) {
            int32_t pi = find_for(j, rec);
            if (pi != NIL && jstr_merge(&j->pv[pi].s[PS_SID], rec->op_fields.sid) < 0)
                return SAT_E_NOMEM;
        }
        return 0;
    }
    case SAT_REC_CLOSE:
        return on_close(j, rec);
    case SAT_REC_RESTART: {
        uint64_t before = j->st.restarts;
        int rc = restart(j, "server restart: the server's start line");
        if (j->st.restarts != before)
            j->st.restarts_by_start_line++;
        return rc;
    }
    default:
        return SAT_E_USAGE;
    }
}

int sat_ldap_join_finish(sat_ldap_join *j)
{
    if (!j)
        return SAT_E_USAGE;
    if (j->finished)
        return 0;
    j->finished = 1;
    return flush_all(j, SAT_CONNF_UNCLOSED);
}
