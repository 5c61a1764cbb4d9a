/*
 * ldap_join_conn.c - the joiner's connection table: connections in a slab
 * reused through a free list, found by number in a chained hash table; one
 * the log never showed opening is created on its first line. The joiner's
 * rules are in ldap_join.c.
 */
#include "ldap_join_int.h"

static int conn_rehash(sat_ldap_join *j)
{
    SAT_FORWARD_IF_ERROR(sat_lj_rehash_int32(&j->cbucket, &j->cnb, j->cnb * 2));
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
int32_t sat_lj_conn_find(const sat_ldap_join *j, int64_t conn)
{
    int32_t i = j->cbucket[sat_hash_u64((uint64_t)conn) & (j->cnb - 1)];
    while (i != NIL && (j->cv[i].conn != conn || j->cv[i].closed || j->cv[i].await_open))
        i = j->cv[i].hnext;
    return i;
}

int32_t sat_lj_conn_find_awaiting(const sat_ldap_join *j, int64_t conn)
{
    int32_t i = j->cbucket[sat_hash_u64((uint64_t)conn) & (j->cnb - 1)];
    while (i != NIL && (j->cv[i].conn != conn || !j->cv[i].await_open))
        i = j->cv[i].hnext;
    return i;
}

int32_t sat_lj_conn_new(sat_ldap_join *j, int64_t conn)
{
    /* at the bound, the oldest slots make room (an awaiting one may first
     * become a closed one: the loop takes it again) */
    while (j->ccount >= j->max_conns && j->ohead != NIL)
        if (sat_lj_conn_evict(j, j->ohead) < 0)
            return NIL;
    if (j->cfree == NIL) {
        /* the new slots go on the free list lowest first, so that which slot
         * a connection gets does not depend on the capacity */
        size_t old = j->ccap;
        if (SAT_GROW(j->cv, j->ccap, old + 1) != SAT_OK)
            return NIL;
        memset(j->cv + old, 0, (j->ccap - old) * sizeof *j->cv);
        for (size_t i = j->ccap; i-- > old;) {
            j->cv[i].hnext = j->cfree;
            j->cfree = (int32_t)i;
        }
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
    c->oprev = j->otail;
    c->onext = NIL;
    if (j->otail != NIL) j->cv[j->otail].onext = i; else j->ohead = i;
    j->otail = i;
    j->ccount++;
    return i;
}

void sat_lj_conn_unlink(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int32_t *pp = &j->cbucket[sat_hash_u64((uint64_t)c->conn) & (j->cnb - 1)];
    while (*pp != NIL && *pp != ci)
        pp = &j->cv[*pp].hnext;
    if (*pp == ci)
        *pp = c->hnext;
    if (c->oprev != NIL) j->cv[c->oprev].onext = c->onext; else j->ohead = c->onext;
    if (c->onext != NIL) j->cv[c->onext].oprev = c->oprev; else j->otail = c->oprev;
    c->in_use = 0;
    c->hnext = j->cfree;
    j->cfree = ci;
    j->ccount--;
}

/* Lazily create a connection that the log never showed opening. */
int32_t sat_lj_conn_get(sat_ldap_join *j, int64_t conn, int create)
{
    int32_t ci = sat_lj_conn_find(j, conn);
    if (ci == NIL && create) {
        ci = sat_lj_conn_new(j, conn);
        if (ci != NIL)
            j->cv[ci].row.flags |= SAT_CONNF_NO_OPEN;
    }
    return ci;
}
