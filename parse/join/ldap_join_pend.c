/*
 * ldap_join_pend.c - the joiner's pending-request table: requests awaiting
 * their RESULT in a slab reused through a free list, found by key in a
 * chained hash table (old-style internal operations without ids on a stack
 * instead), on a global age list (eviction order, past max_pending) and on
 * their connection's list. The joiner's rules are in ldap_join.c.
 */
#include "ldap_join_int.h"


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

/* ---- hash helpers -------------------------------------------------------------- */
int sat_lj_rehash_int32(int32_t **bucket, size_t *nb, size_t newnb)
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
    SAT_FORWARD_IF_ERROR(sat_lj_rehash_int32(&j->pbucket, &j->pnb, j->pnb * 2));
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

/* ---- pending requests ------------------------------------------------------------ */
int32_t sat_lj_pend_find(const sat_ldap_join *j, int64_t conn, int64_t op,
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

void sat_lj_pend_unlink(sat_ldap_join *j, int32_t pi)
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

int32_t sat_lj_pend_new(sat_ldap_join *j, const sat_ldap_record *rec, int32_t owner,
                        int *rc)
{
    *rc = 0;
    while (j->pcount >= j->max_pending && j->fhead != NIL) {
        j->st.evicted++;
        int r = sat_lj_pend_emit_unfinished(j, j->fhead, 0);
        if (r < 0)
            *rc = r;
    }
    if (j->pfree == NIL) {
        /* new slots on the free list lowest first (as for connections) */
        size_t old = j->pcap;
        if (SAT_GROW(j->pv, j->pcap, old + 1) != SAT_OK) {
            *rc = SAT_E_NOMEM;
            return NIL;
        }
        memset(j->pv + old, 0, (j->pcap - old) * sizeof *j->pv);
        for (size_t i = j->pcap; i-- > old;) {
            j->pv[i].hnext = j->pfree;
            j->pfree = (int32_t)i;
        }
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
        if (SAT_GROW(j->stack, j->stack_cap, j->stack_len + 1) != SAT_OK) {
            p->in_use = 0;
            p->hnext = j->pfree;
            j->pfree = pi;
            *rc = SAT_E_NOMEM;
            return NIL;
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
