/*
 * internal_ops.c - what a directory server's internal operations were, and
 * which client operation they were for (389 Directory Server: plugins such as
 * memberOf, referential integrity, attribute uniqueness, DNA or schema-compat
 * run searches and modifies of their own inside a client's ADD or MOD).
 *
 * How 389-ds-base 2.x logs them (access-log level 4, nsslapd-plugin-logging
 * on), as a real 2.3.1 log has them:
 *   conn=14 (Internal) op=1(3)(1) SRCH ...   run for conn=14's op=1: X = 3 is
 *                                            its number among op=1's internal
 *                                            operations, Y = 1 its depth;
 *   conn=14 (Internal) op=1(3)(2) SRCH ...   nested in the one above: same X,
 *                                            Y + 1 (memberOf searching while
 *                                            it searches);
 *   conn=Internal(0) op=0(188)(1) SRCH ...   the server's own (start-up,
 *                                            its threads): no client operation.
 * Each one's RESULT is logged before the RESULT of the operation around it,
 * so the joiner emits a nested row before the row of the one around it and
 * every internal row before its client operation's row. The rules here:
 *   - an internal row with a connection (conn > 0) waits for the client row
 *     of the same (server, epoch, conn, op); when that arrives, the waiting
 *     rows are its internal operations; rows still waiting at the end belong
 *     to "(not in the input)" (the client operation was cut off by the start
 *     or the end of the input);
 *   - a server row (conn 0) waits, by its X, for the depth-1 row of the same
 *     X: together they are one operation of "(server)";
 *   - among the rows of one client operation, in the order they arrive, a row
 *     of depth d encloses the rows of depth d + 1 that arrived after the
 *     previous row of depth <= d: the nesting is rebuilt from the log order
 *     and the depths alone (the operations of one client operation run one at
 *     a time on its thread); a nested row whose enclosing row is not in the
 *     input hangs directly under its client operation with its own depth;
 *   - a client operation is grouped by type and base: its search base (the
 *     entry's DN shape for a scope=base search), or for ADD/MOD/DEL/MODRDN/
 *     CMP the shape of its entry's DN: the first RDN's value replaced by '*'
 *     (uid=*,ou=people,dc=example,dc=com), since every entry's DN is its own
 *     and plugins are configured per subtree; internal rows are grouped the
 *     same way, plus their scope and filter shape, under the row enclosing
 *     them;
 *   - time: an internal operation's etime is inside its client operation's
 *     (plugins run within the operation), so the share of a group is the
 *     summed etime of its outermost internal operations over the summed
 *     etime of the client operations that ran them; nested rows' times are
 *     inside their enclosing row's and are shown, never added again.
 * Memory: waiting rows are one small allocation each until their client
 * operation arrives (the next few lines of the log), at most
 * IOPS_PENDING_MAX of them; rows and groups are capped by max_keys. Past a
 * cap an internal operation is counted as unattributed.
 */
#include <math.h>

#include "internal_ops.h"
#include "strtab.h"

#define IOPS_PENDING_MAX (1u << 20)
#define IOPS_RECENT 1024 /* operations attributed lately, for late rows */
#define NIL (-1)
#define SEP_SEG '\x1e' /* between the parent and each nesting level in a key */
#define SEP_FLD '\x1f' /* between base and filter in a segment */
/* A depth is kept in a key as depth + DEPTH_BIAS (at most 255), so that no
 * depth byte is a separator; types (< SAT_OP__COUNT + 2) and scopes (0, 1,
 * 2, 255) are not either. */
#define DEPTH_BIAS 0x20
static unsigned depth_byte(unsigned d) { return d > 255 - DEPTH_BIAS ? 255 : d + DEPTH_BIAS; }
/* parent "types" past the LDAP ones */
#define PT_SERVER (SAT_OP__COUNT + 0)
#define PT_ORPHAN (SAT_OP__COUNT + 1)

typedef struct ichild {
    char *seg; /* [type][scope][depth] base SEP_FLD filter, malloc'd */
    uint32_t seglen;
    uint8_t depth, is_error;
    int64_t etime; /* SAT_ABSENT if not logged */
    int32_t next;  /* in its list, or the free list */
} ichild;

typedef struct ipkey {
    uint32_t server, epoch;
    int64_t conn, op;
    int32_t x; /* server rows only; INT32_MIN otherwise */
} ipkey;

typedef struct ipend {
    ipkey k;
    int32_t head, tail, hnext;
    uint32_t n;
    uint8_t used;
} ipend;

typedef struct irow_acc {
    uint64_t count, timed, errors, parents_with, last_serial;
    uint64_t esum, esum_tp, emax; /* ns; esum_tp: of parents with an etime */
    int32_t first, last, next, idx; /* the tree, built at finish */
} irow_acc;

typedef struct ipar_acc {
    uint64_t parents, parents_timed, internal;
    uint64_t pe_sum, d1_sum, d1_sum_tp; /* ns */
    int32_t first, last;
} ipar_acc;

/* An operation whose internal ones were attributed: rows of the same key that
 * come after it (a post-operation plugin runs after the RESULT was logged,
 * as 389 does for a task entry's ADD) belong to its group too. */
typedef struct irecent {
    ipkey k;
    char *pkey; /* its group's key, malloc'd */
    size_t pklen;
} irecent;

struct sat_iops {
    size_t max_keys;
    irecent recent[IOPS_RECENT];
    size_t recent_next;
    sat_strtab rows, pars;
    uint64_t serial;
    uint64_t of_clients, of_server, orphans, unattributed;

    ichild *cv;
    size_t ccap, npending_children;
    int32_t cfree;
    ipend *pv;
    size_t pcap, npend;
    int32_t pfree;
    int32_t *bucket;
    size_t nb;

    /* scratch for one resolution */
    int32_t *idx, *encl;
    uint32_t *koff, *klen;
    size_t scap;
    char *kbuf;
    size_t kcap;
    char *seg;
    size_t segcap;
    int nomem;
};

/* ---- create / free ------------------------------------------------------------ */
sat_iops *sat_iops_create(size_t max_keys)
{
    sat_iops *a = (sat_iops *)calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->max_keys = max_keys;
    sat_strtab_init(&a->rows, sizeof(irow_acc), max_keys);
    sat_strtab_init(&a->pars, sizeof(ipar_acc), max_keys);
    a->cfree = a->pfree = NIL;
    return a;
}

void sat_iops_free(sat_iops *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ccap; i++)
        free(a->cv[i].seg);
    for (size_t i = 0; i < IOPS_RECENT; i++)
        free(a->recent[i].pkey);
    free(a->cv);
    free(a->pv);
    free(a->bucket);
    free(a->idx);
    free(a->encl);
    free(a->koff);
    free(a->klen);
    free(a->kbuf);
    free(a->seg);
    sat_strtab_free(&a->rows);
    sat_strtab_free(&a->pars);
    free(a);
}

size_t sat_iops_bytes(const sat_iops *a)
{
    if (!a)
        return 0;
    return sizeof *a + sat_strtab_bytes(&a->rows) + sat_strtab_bytes(&a->pars) +
           a->ccap * sizeof(ichild) + a->pcap * sizeof(ipend) + a->nb * sizeof(int32_t) +
           a->scap * 4 * sizeof(int32_t) + a->kcap + a->segcap;
}

/* ---- shapes --------------------------------------------------------------------- */
static int grow(char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *np = (char *)realloc(*p, c);
    if (!np)
        return SAT_E_NOMEM;
    *p = np;
    *cap = c;
    return 0;
}

/* Bytes below 0x20 (the key separators among them) are shown as '?'. */
static size_t put_clean(char *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    return n;
}

/* A DN with its first RDN's value(s) replaced by '*' ("uid=*,ou=people,...",
 * "cn=*+sn=*,..."); a DN of one RDN (cn=config) is kept whole. It grows by
 * at most one byte per '=' (an empty value): out holds 2n + 8 bytes. */
static size_t dn_shape(const char *dn, size_t n, char *out)
{
    size_t comma = n;
    for (size_t i = 0; i < n; i++) {
        if (dn[i] == '\\') {
            i++;
            continue;
        }
        if (dn[i] == ',') {
            comma = i;
            break;
        }
    }
    if (comma == n)
        return put_clean(out, dn, n);
    size_t o = 0;
    int in_value = 0;
    for (size_t i = 0; i < comma; i++) {
        char c = dn[i];
        if (in_value) {
            if (c == '\\') {
                i++;
                continue;
            }
            if (c == '+') {
                in_value = 0;
                out[o++] = '+';
            }
            continue;
        }
        if (c == '=') {
            in_value = 1;
            out[o++] = '=';
            out[o++] = '*';
            continue;
        }
        out[o++] = (unsigned char)c < 0x20 ? '?' : c;
    }
    return o + put_clean(out + o, dn + comma, n - comma);
}

/* The base an operation is grouped by (the rule in the opening comment). */
static int base_of(sat_iops *a, const sat_ldap_op *op, size_t at, size_t *len)
{
    *len = 0;
    if (!op->dn.ptr)
        return grow(&a->seg, &a->segcap, at + 1) < 0 ? SAT_E_NOMEM
                                                    : (a->seg[at] = '-', *len = 1, 0);
    if (op->dn.len == 0) {
        static const char root[] = "(root DSE)";
        if (grow(&a->seg, &a->segcap, at + sizeof root) < 0)
            return SAT_E_NOMEM;
        memcpy(a->seg + at, root, sizeof root - 1);
        *len = sizeof root - 1;
        return 0;
    }
    if (grow(&a->seg, &a->segcap, at + 2 * (size_t)op->dn.len + 8) < 0)
        return SAT_E_NOMEM;
    if (op->type == SAT_OP_SRCH && op->scope != SAT_SCOPE_BASE)
        *len = put_clean(a->seg + at, op->dn.ptr, op->dn.len);
    else
        *len = dn_shape(op->dn.ptr, op->dn.len, a->seg + at);
    return 0;
}

/* ---- waiting rows ------------------------------------------------------------------ */
static uint64_t pk_hash(const ipkey *k)
{
    uint64_t x = (uint64_t)k->conn * 0x9e3779b97f4a7c15ULL;
    x ^= (uint64_t)k->op * 0xc2b2ae3d27d4eb4fULL;
    x ^= ((uint64_t)k->server << 32 | k->epoch) * 0x165667b19e3779f9ULL;
    x ^= (uint64_t)(uint32_t)k->x * 0x27d4eb2f165667c5ULL;
    return sat_hash_u64(x);
}

static int pk_eq(const ipkey *a, const ipkey *b)
{
    return a->server == b->server && a->epoch == b->epoch && a->conn == b->conn &&
           a->op == b->op && a->x == b->x;
}

static int32_t pend_find(const sat_iops *a, const ipkey *k)
{
    if (!a->nb)
        return NIL;
    int32_t i = a->bucket[pk_hash(k) & (a->nb - 1)];
    while (i != NIL && !pk_eq(&a->pv[i].k, k))
        i = a->pv[i].hnext;
    return i;
}

static int rehash(sat_iops *a)
{
    size_t nb = a->nb ? a->nb * 2 : 64;
    int32_t *b = (int32_t *)malloc(nb * sizeof *b);
    if (!b)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nb; i++)
        b[i] = NIL;
    for (size_t i = 0; i < a->pcap; i++) {
        if (!a->pv[i].used)
            continue;
        size_t h = pk_hash(&a->pv[i].k) & (nb - 1);
        a->pv[i].hnext = b[h];
        b[h] = (int32_t)i;
    }
    free(a->bucket);
    a->bucket = b;
    a->nb = nb;
    return 0;
}

static int32_t pend_get(sat_iops *a, const ipkey *k)
{
    int32_t i = pend_find(a, k);
    if (i != NIL)
        return i;
    if (a->pfree == NIL) {
        size_t ncap = a->pcap ? a->pcap * 2 : 64;
        ipend *nv = (ipend *)realloc(a->pv, ncap * sizeof *nv);
        if (!nv)
            return NIL;
        memset(nv + a->pcap, 0, (ncap - a->pcap) * sizeof *nv);
        for (size_t j = ncap; j-- > a->pcap;) {
            nv[j].hnext = a->pfree;
            a->pfree = (int32_t)j;
        }
        a->pv = nv;
        a->pcap = ncap;
    }
    if (a->npend + 1 > a->nb && rehash(a) < 0)
        return NIL;
    i = a->pfree;
    ipend *p = &a->pv[i];
    a->pfree = p->hnext;
    p->k = *k;
    p->head = p->tail = NIL;
    p->n = 0;
    p->used = 1;
    size_t h = pk_hash(k) & (a->nb - 1);
    p->hnext = a->bucket[h];
    a->bucket[h] = i;
    a->npend++;
    return i;
}

static void pend_release(sat_iops *a, int32_t pi)
{
    ipend *p = &a->pv[pi];
    int32_t *pp = &a->bucket[pk_hash(&p->k) & (a->nb - 1)];
    while (*pp != NIL && *pp != pi)
        pp = &a->pv[*pp].hnext;
    if (*pp == pi)
        *pp = p->hnext;
    for (int32_t c = p->head; c != NIL;) {
        int32_t next = a->cv[c].next;
        free(a->cv[c].seg);
        a->cv[c].seg = NULL;
        a->cv[c].next = a->cfree;
        a->cfree = c;
        a->npending_children--;
        c = next;
    }
    p->used = 0;
    p->hnext = a->pfree;
    a->pfree = pi;
    a->npend--;
}

static int32_t child_new(sat_iops *a)
{
    if (a->cfree == NIL) {
        size_t ncap = a->ccap ? a->ccap * 2 : 256;
        ichild *nv = (ichild *)realloc(a->cv, ncap * sizeof *nv);
        if (!nv)
            return NIL;
        memset(nv + a->ccap, 0, (ncap - a->ccap) * sizeof *nv);
        for (size_t j = ncap; j-- > a->ccap;) {
            nv[j].next = a->cfree;
            a->cfree = (int32_t)j;
        }
        a->cv = nv;
        a->ccap = ncap;
    }
    int32_t c = a->cfree;
    a->cfree = a->cv[c].next;
    a->cv[c].next = NIL;
    a->npending_children++;
    return c;
}

/* ---- attribution --------------------------------------------------------------------- */
static int scratch(sat_iops *a, size_t n)
{
    if (n <= a->scap)
        return 0;
    size_t c = a->scap ? a->scap : 64;
    while (c < n)
        c *= 2;
    int32_t *i1 = (int32_t *)realloc(a->idx, c * sizeof *i1);
    if (i1)
        a->idx = i1;
    int32_t *i2 = (int32_t *)realloc(a->encl, c * sizeof *i2);
    if (i2)
        a->encl = i2;
    uint32_t *i3 = (uint32_t *)realloc(a->koff, c * sizeof *i3);
    if (i3)
        a->koff = i3;
    uint32_t *i4 = (uint32_t *)realloc(a->klen, c * sizeof *i4);
    if (i4)
        a->klen = i4;
    if (!i1 || !i2 || !i3 || !i4)
        return SAT_E_NOMEM;
    a->scap = c;
    return 0;
}

/* The waiting rows of src's list pi become dst's rows under the parent key
 * pkey (ptype byte + base); parent is the client operation's row, or NULL
 * for the server's own and for orphans. */
static int resolve(sat_iops *dst, const sat_iops *src, int32_t pi, const char *pkey,
                   size_t pklen, const sat_ldap_op *parent, uint64_t *counter, int late)
{
    const ipend *p = &src->pv[pi];
    size_t n = p->n;
    if (scratch(dst, n) < 0)
        return SAT_E_NOMEM;
    size_t k = 0;
    for (int32_t c = p->head; c != NIL && k < n; c = src->cv[c].next)
        dst->idx[k++] = c;
    n = k;
    /* nesting: a row of depth d encloses the rows of depth d + 1 since the
     * previous row of depth <= d (log order = RESULT order) */
    for (size_t i = 0; i < n; i++) {
        dst->encl[i] = NIL;
        uint8_t d = src->cv[dst->idx[i]].depth;
        for (size_t j = i; j-- > 0;) {
            uint8_t dj = src->cv[dst->idx[j]].depth;
            if (dj <= d)
                break;
            if (dj == d + 1 && dst->encl[j] == NIL)
                dst->encl[j] = (int32_t)i;
        }
    }
    /* keys, outermost first (an enclosing row comes after what it encloses) */
    size_t used = 0;
    for (size_t i = n; i-- > 0;) {
        const ichild *ch = &src->cv[dst->idx[i]];
        const char *pre = pkey;
        size_t plen = pklen;
        if (dst->encl[i] != NIL) {
            plen = dst->klen[dst->encl[i]];
            pre = NULL; /* in kbuf, which may move: copied below by offset */
        }
        size_t need = used + plen + 1 + ch->seglen;
        if (grow(&dst->kbuf, &dst->kcap, need) < 0)
            return SAT_E_NOMEM;
        if (pre)
            memcpy(dst->kbuf + used, pre, plen);
        else
            memmove(dst->kbuf + used, dst->kbuf + dst->koff[dst->encl[i]], plen);
        dst->kbuf[used + plen] = SEP_SEG;
        memcpy(dst->kbuf + used + plen + 1, ch->seg, ch->seglen);
        dst->koff[i] = (uint32_t)used;
        dst->klen[i] = (uint32_t)(plen + 1 + ch->seglen);
        used = need;
    }
    int capped = 0;
    ipar_acc *g = (ipar_acc *)sat_strtab_upsert(&dst->pars, pkey, pklen, NULL, &capped);
    if (!g) {
        if (!capped)
            return SAT_E_NOMEM;
        dst->unattributed += n;
        return 0;
    }
    int timed = parent && parent->etime >= 0 && !(parent->flags & SAT_OPF_UNFINISHED);
    if (!late && (parent || counter == &dst->of_server)) {
        g->parents++;
        if (timed) {
            g->parents_timed++;
            g->pe_sum += (uint64_t)parent->etime;
        }
    }
    dst->serial++;
    for (size_t i = 0; i < n; i++) {
        const ichild *ch = &src->cv[dst->idx[i]];
        irow_acc *r = (irow_acc *)sat_strtab_upsert(&dst->rows, dst->kbuf + dst->koff[i],
                                                    dst->klen[i], NULL, &capped);
        if (!r) {
            if (!capped)
                return SAT_E_NOMEM;
            dst->unattributed++;
            continue;
        }
        g->internal++;
        (*counter)++;
        r->count++;
        r->errors += ch->is_error;
        if (r->last_serial != dst->serial) {
            r->last_serial = dst->serial;
            r->parents_with++;
        }
        if (ch->etime >= 0) {
            uint64_t e = (uint64_t)ch->etime;
            r->timed++;
            r->esum += e;
            if (timed)
                r->esum_tp += e;
            if (e > r->emax)
                r->emax = e;
            if (dst->encl[i] == NIL && !late) { /* late ones ran after its etime */
                g->d1_sum += e;
                if (timed)
                    g->d1_sum_tp += e;
            }
        }
    }
    return 0;
}

static size_t parent_key(sat_iops *a, int ptype, const sat_ldap_op *op)
{
    if (grow(&a->seg, &a->segcap, 2) < 0)
        return 0;
    a->seg[0] = (char)ptype;
    if (!op) {
        a->seg[1] = '-';
        return 2;
    }
    size_t bl;
    if (base_of(a, op, 1, &bl) < 0)
        return 0;
    return 1 + bl;
}

static int resolve(sat_iops *dst, const sat_iops *src, int32_t pi, const char *pkey,
                   size_t pklen, const sat_ldap_op *parent, uint64_t *counter, int late);

/* Remembers the group of an operation just attributed; the one it replaces
 * in the ring gets the rows that came for it since (they had as long as
 * IOPS_RECENT attributions to arrive). */
static int remember(sat_iops *a, const ipkey *k, const char *pkey, size_t pklen)
{
    irecent *r = &a->recent[a->recent_next++ % IOPS_RECENT];
    if (r->pkey) {
        int32_t pi = pend_find(a, &r->k);
        if (pi != NIL) {
            int rc = resolve(a, a, pi, r->pkey, r->pklen, NULL,
                             r->k.conn ? &a->of_clients : &a->of_server, 1);
            pend_release(a, pi);
            if (rc < 0)
                return rc;
        }
    }
    char *p = (char *)realloc(r->pkey, pklen ? pklen : 1);
    if (!p) {
        free(r->pkey); /* only late rows would miss it: they count as orphans */
        r->pkey = NULL;
        return 0;
    }
    memcpy(p, pkey, pklen);
    r->pkey = p;
    r->pklen = pklen;
    r->k = *k;
    return 0;
}

static const irecent *recall(const sat_iops *a, const ipkey *k)
{
    for (size_t i = 0; i < IOPS_RECENT; i++)
        if (a->recent[i].pkey && pk_eq(&a->recent[i].k, k))
            return &a->recent[i];
    return NULL;
}

int sat_iops_internal(sat_iops *a, const sat_ldap_op *op)
{
    if (a->npending_children >= IOPS_PENDING_MAX) {
        a->unattributed++;
        return SAT_OK;
    }
    ipkey k = {op->server, op->conn_epoch, op->conn > 0 ? op->conn : 0,
               op->conn > 0 ? op->op : 0, op->conn > 0 ? INT32_MIN : op->internal_op};
    /* the segment: [type][scope][depth] base SEP_FLD filter shape */
    if (grow(&a->seg, &a->segcap, 3) < 0)
        return SAT_E_NOMEM;
    a->seg[0] = (char)(op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN);
    a->seg[1] = (char)op->scope;
    a->seg[2] = (char)depth_byte(op->internal_depth);
    size_t bl;
    if (base_of(a, op, 3, &bl) < 0)
        return SAT_E_NOMEM;
    size_t at = 3 + bl;
    sat_str f = op->filter_shape.ptr ? op->filter_shape : op->filter;
    size_t fl = f.ptr ? f.len : 1;
    if (grow(&a->seg, &a->segcap, at + 1 + fl) < 0)
        return SAT_E_NOMEM;
    a->seg[at++] = SEP_FLD;
    if (f.ptr)
        at += put_clean(a->seg + at, f.ptr, f.len);
    else
        a->seg[at++] = '-';
    char *seg = (char *)malloc(at);
    int32_t pi = seg ? pend_get(a, &k) : NIL;
    int32_t c = pi != NIL ? child_new(a) : NIL;
    if (c == NIL) {
        free(seg);
        return SAT_E_NOMEM;
    }
    memcpy(seg, a->seg, at);
    ichild *ch = &a->cv[c];
    ch->seg = seg;
    ch->seglen = (uint32_t)at;
    ch->depth = op->internal_depth;
    ch->is_error = op->err != SAT_ABSENT && op->err != 0;
    ch->etime = (op->flags & SAT_OPF_UNFINISHED) ? SAT_ABSENT : op->etime;
    ipend *p = &a->pv[pi];
    if (p->tail != NIL)
        a->cv[p->tail].next = c;
    else
        p->head = c;
    p->tail = c;
    p->n++;
    /* the server's own: complete with its outermost row */
    if (k.conn == 0 && op->internal_depth <= 1) {
        size_t pl = parent_key(a, PT_SERVER, NULL);
        if (!pl)
            return SAT_E_NOMEM;
        int rc = resolve(a, a, pi, a->seg, pl, NULL, &a->of_server, 0);
        pend_release(a, pi);
        int r2 = remember(a, &k, a->seg, pl);
        return rc < 0 ? rc : r2;
    }
    return SAT_OK;
}

int sat_iops_external(sat_iops *a, const sat_ldap_op *op)
{
    if (!a->npend || op->conn <= 0)
        return SAT_OK;
    ipkey k = {op->server, op->conn_epoch, op->conn, op->op, INT32_MIN};
    int32_t pi = pend_find(a, &k);
    if (pi == NIL)
        return SAT_OK;
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    size_t pl = parent_key(a, t, op);
    if (!pl)
        return SAT_E_NOMEM;
    int rc = resolve(a, a, pi, a->seg, pl, op, &a->of_clients, 0);
    pend_release(a, pi);
    int r2 = remember(a, &k, a->seg, pl);
    return rc < 0 ? rc : r2;
}

/* Every list still waiting in src, into dst: under the operation that ran
 * them when it was attributed before them (late rows), else as orphans. */
static int orphans_into(sat_iops *dst, const sat_iops *src)
{
    char pk[2] = {(char)PT_ORPHAN, '-'};
    for (size_t i = 0; i < src->pcap; i++) {
        if (!src->pv[i].used)
            continue;
        const irecent *r = recall(src, &src->pv[i].k);
        int rc = r ? resolve(dst, src, (int32_t)i, r->pkey, r->pklen, NULL,
                             src->pv[i].k.conn ? &dst->of_clients : &dst->of_server, 1)
                   : resolve(dst, src, (int32_t)i, pk, sizeof pk, NULL, &dst->orphans, 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sat_iops_merge(sat_iops *into, const sat_iops *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    int capped;
    for (size_t i = 0; i < from->pars.n; i++) {
        const ipar_acc *s = (const ipar_acc *)sat_strtab_val(&from->pars, i);
        ipar_acc *g = (ipar_acc *)sat_strtab_upsert(&into->pars, sat_strtab_key(&from->pars, i),
                                                    sat_strtab_len(&from->pars, i), NULL, &capped);
        if (!g) {
            if (!capped)
                return SAT_E_NOMEM;
            continue; /* its rows are counted unattributed below */
        }
        g->parents += s->parents;
        g->parents_timed += s->parents_timed;
        g->internal += s->internal;
        g->pe_sum += s->pe_sum;
        g->d1_sum += s->d1_sum;
        g->d1_sum_tp += s->d1_sum_tp;
    }
    for (size_t i = 0; i < from->rows.n; i++) {
        const irow_acc *s = (const irow_acc *)sat_strtab_val(&from->rows, i);
        const char *key = sat_strtab_key(&from->rows, i);
        size_t len = sat_strtab_len(&from->rows, i);
        const char *sep = memchr(key, SEP_SEG, len);
        irow_acc *r = NULL;
        if (sep && sat_strtab_find(&into->pars, key, (size_t)(sep - key)))
            r = (irow_acc *)sat_strtab_upsert(&into->rows, key, len, NULL, &capped);
        else
            capped = 1;
        if (!r) {
            if (!capped)
                return SAT_E_NOMEM;
            into->unattributed += s->count;
            continue;
        }
        r->count += s->count;
        r->timed += s->timed;
        r->errors += s->errors;
        r->parents_with += s->parents_with;
        r->esum += s->esum;
        r->esum_tp += s->esum_tp;
        if (s->emax > r->emax)
            r->emax = s->emax;
    }
    into->of_clients += from->of_clients;
    into->of_server += from->of_server;
    into->orphans += from->orphans;
    into->unattributed += from->unattributed;
    return orphans_into(into, from);
}

/* ---- the view ---------------------------------------------------------------------------- */
/* a sort entry: the order keys copied out, so qsort needs no context */
typedef struct isort {
    uint64_t time, count;
    const char *key;
    uint32_t len;
    int32_t idx;
} isort;

static int cmp_isort(const void *x, const void *y)
{
    const isort *a = (const isort *)x, *b = (const isort *)y;
    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len < b->len ? -1 : a->len > b->len);
}

static const char *adup(sat_arena *ar, const char *s, size_t n, int *nomem)
{
    char *p = sat_arena_strdup(ar, s, n);
    if (!p)
        *nomem = 1;
    return p ? p : "";
}

static double ns_s(uint64_t ns) { return (double)ns / 1e9; }

static const char *ptype_name(int t)
{
    if (t == PT_SERVER)
        return "(server)";
    if (t == PT_ORPHAN)
        return "(not in the input)";
    return sat_optype_name(t);
}

static const char *scope_name(int s)
{
    switch (s) {
    case SAT_SCOPE_BASE: return "base";
    case SAT_SCOPE_ONE: return "one";
    case SAT_SCOPE_SUB: return "sub";
    default: return "-";
    }
}

int sat_iops_finish(sat_iops *a, sat_arena *ar, sat_etime_view *v)
{
    int rc = orphans_into(a, a);
    for (size_t i = 0; i < a->pcap; i++)
        if (a->pv[i].used)
            pend_release(a, (int32_t)i);
    if (rc < 0)
        return rc;
    v->internal_of_clients = a->of_clients;
    v->internal_of_server = a->of_server;
    v->internal_orphans = a->orphans;
    v->internal_unattributed = a->unattributed;
    v->iparents = NULL;
    v->niparents = 0;
    size_t np = a->pars.n, nr = a->rows.n;
    if (!np)
        return SAT_OK;
    isort *po = (isort *)malloc(np * sizeof *po);
    isort *ro = (isort *)malloc((nr ? nr : 1) * sizeof *ro);
    sat_etime_iparent *out = (sat_etime_iparent *)sat_arena_alloc(ar, np * sizeof *out);
    sat_etime_irow *rows = (sat_etime_irow *)sat_arena_alloc(ar, (nr ? nr : 1) * sizeof *rows);
    if (!po || !ro || !out || !rows) {
        free(po);
        free(ro);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < np; i++) {
        ipar_acc *g = (ipar_acc *)sat_strtab_val(&a->pars, i);
        g->first = g->last = NIL;
        po[i] = (isort){g->d1_sum, g->internal, sat_strtab_key(&a->pars, i),
                        sat_strtab_len(&a->pars, i), (int32_t)i};
    }
    for (size_t i = 0; i < nr; i++) {
        irow_acc *r = (irow_acc *)sat_strtab_val(&a->rows, i);
        r->first = r->last = r->next = NIL;
        r->idx = (int32_t)i;
        ro[i] = (isort){r->esum, r->count, sat_strtab_key(&a->rows, i),
                        sat_strtab_len(&a->rows, i), (int32_t)i};
    }
    qsort(ro, nr, sizeof *ro, cmp_isort);
    qsort(po, np, sizeof *po, cmp_isort);
    /* children lists in sorted order: each row under the row whose key is
     * its own up to the last segment, or under its parent group */
    for (size_t s = 0; s < nr; s++) {
        size_t i = (size_t)ro[s].idx;
        const char *key = sat_strtab_key(&a->rows, i);
        size_t len = sat_strtab_len(&a->rows, i);
        size_t cut = len;
        while (cut > 0 && key[cut - 1] != SEP_SEG)
            cut--;
        if (!cut)
            continue;
        cut--; /* the separator */
        irow_acc *up = (irow_acc *)sat_strtab_find(&a->rows, key, cut);
        int32_t *first, *last;
        if (up) {
            first = &up->first;
            last = &up->last;
        } else {
            ipar_acc *g = (ipar_acc *)sat_strtab_find(&a->pars, key, cut);
            if (!g)
                continue;
            first = &g->first;
            last = &g->last;
        }
        if (*last != NIL)
            ((irow_acc *)sat_strtab_val(&a->rows, (size_t)*last))->next = (int32_t)i;
        else
            *first = (int32_t)i;
        *last = (int32_t)i;
    }
    int nomem = 0;
    size_t nrows = 0;
    /* the depth-first stack: every row is pushed once */
    int32_t *stack = (int32_t *)malloc((nr ? nr : 1) * sizeof *stack);
    if (!stack) {
        free(po);
        free(ro);
        return SAT_E_NOMEM;
    }
    for (size_t s = 0; s < np; s++) {
        size_t gi = (size_t)po[s].idx;
        const ipar_acc *g = (const ipar_acc *)sat_strtab_val(&a->pars, gi);
        const char *key = sat_strtab_key(&a->pars, gi);
        size_t len = sat_strtab_len(&a->pars, gi);
        sat_etime_iparent *o = &out[s];
        o->type = ptype_name((unsigned char)key[0]);
        o->base = adup(ar, key + 1, len - 1, &nomem);
        o->parents = g->parents;
        o->internal = g->internal;
        o->parents_etime_s = g->parents_timed ? ns_s(g->pe_sum) : NAN;
        o->internal_s = ns_s(g->d1_sum);
        o->share = g->parents_timed && g->pe_sum ? (double)g->d1_sum_tp / (double)g->pe_sum : NAN;
        o->rows = rows + nrows;
        /* depth first, siblings in sorted order */
        /* a list is pushed reversed, so that it pops in its order */
        size_t sp = 0, base_sp = 0;
        for (int32_t c = g->first; c != NIL;
             c = ((irow_acc *)sat_strtab_val(&a->rows, (size_t)c))->next)
            stack[sp++] = c;
        for (size_t x = base_sp, y = sp; x + 1 < y; x++, y--) {
            int32_t t = stack[x];
            stack[x] = stack[y - 1];
            stack[y - 1] = t;
        }
        while (sp > 0) {
            size_t i = (size_t)stack[--sp];
            const irow_acc *r = (const irow_acc *)sat_strtab_val(&a->rows, i);
            const char *rk = sat_strtab_key(&a->rows, i);
            size_t rl = sat_strtab_len(&a->rows, i);
            size_t b = rl;
            while (b > 0 && rk[b - 1] != SEP_SEG)
                b--;
            const char *seg = rk + b;
            size_t sl = rl - b;
            sat_etime_irow *w = &rows[nrows++];
            w->depth = sl > 2 ? (unsigned char)seg[2] - DEPTH_BIAS : 0;
            w->type = sat_optype_name(sl > 0 ? (unsigned char)seg[0] : 0);
            w->scope = scope_name(sl > 1 ? (unsigned char)seg[1] : SAT_SCOPE_NONE);
            const char *f = sl > 3 ? memchr(seg + 3, SEP_FLD, sl - 3) : NULL;
            size_t blen = f ? (size_t)(f - (seg + 3)) : (sl > 3 ? sl - 3 : 0);
            w->base = adup(ar, seg + 3, blen, &nomem);
            w->filter = f ? adup(ar, f + 1, (size_t)(seg + sl - f - 1), &nomem) : "-";
            w->count = r->count;
            w->timed = r->timed;
            w->errors = r->errors;
            w->per_parent = g->parents ? (double)r->count / (double)g->parents : NAN;
            w->total_s = r->timed ? ns_s(r->esum) : NAN;
            w->mean_s = r->timed ? ns_s(r->esum) / (double)r->timed : NAN;
            w->max_s = r->timed ? ns_s(r->emax) : NAN;
            /* none of its time inside a timed client operation (ran after the
             * RESULT, or under an operation without etime): no share */
            w->share = g->parents_timed && g->pe_sum && r->timed && (r->esum_tp || !r->esum)
                           ? (double)r->esum_tp / (double)g->pe_sum
                           : NAN;
            size_t from = sp;
            for (int32_t c = r->first; c != NIL;
                 c = ((irow_acc *)sat_strtab_val(&a->rows, (size_t)c))->next)
                stack[sp++] = c;
            for (size_t x = from, y = sp; x + 1 < y; x++, y--) {
                int32_t t = stack[x];
                stack[x] = stack[y - 1];
                stack[y - 1] = t;
            }
        }
        o->nrows = (size_t)(rows + nrows - o->rows);
    }
    free(stack);
    free(po);
    free(ro);
    v->iparents = out;
    v->niparents = np;
    return nomem ? SAT_E_NOMEM : SAT_OK;
}
