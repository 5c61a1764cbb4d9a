/*
 * internal_ops_wait.c - internal operations' rows waiting for their client
 * operation (or, for the server's own, for their outermost row): one list
 * per (server, epoch, conn, op) or server X, in a slab reused through a free
 * list and found in a chained hash table. The rules are in internal_ops.c.
 */
#include "internal_ops_int.h"

/* ---- waiting rows ------------------------------------------------------------------ */
static uint64_t pk_hash(const ipkey *k)
{
    uint64_t x = (uint64_t)k->conn * 0x9e3779b97f4a7c15ULL;
    x ^= (uint64_t)k->op * 0xc2b2ae3d27d4eb4fULL;
    x ^= ((uint64_t)k->server << 32 | k->epoch) * 0x165667b19e3779f9ULL;
    x ^= (uint64_t)(uint32_t)k->x * 0x27d4eb2f165667c5ULL;
    return sat_hash_u64(x);
}

int sat_iop_pk_eq(const ipkey *a, const ipkey *b)
{
    return a->server == b->server && a->epoch == b->epoch && a->conn == b->conn &&
           a->op == b->op && a->x == b->x;
}

int32_t sat_iop_pend_find(const sat_iops *a, const ipkey *k)
{
    if (!a->nb)
        return NIL;
    int32_t i = a->bucket[pk_hash(k) & (a->nb - 1)];
    while (i != NIL && !sat_iop_pk_eq(&a->pv[i].k, k))
        i = a->pv[i].hnext;
    return i;
}

/* The hash of the waiting lists rebuilt with nb buckets (a power of two). */
int sat_iop_pend_rehash(sat_iops *a, size_t nb)
{
    int32_t *b = (int32_t *)malloc(nb * sizeof *b);
    if (!b)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nb; i++)
        b[i] = NIL;
    for (size_t i = 0; i < a->pcap; i++) {
        if (a->pv[i].used != 1)
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

int32_t sat_iop_pend_get(sat_iops *a, const ipkey *k)
{
    int32_t i = sat_iop_pend_find(a, k);
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
    if (a->npend + 1 > a->nb && sat_iop_pend_rehash(a, a->nb ? a->nb * 2 : 64) < 0)
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

void sat_iop_pend_release(sat_iops *a, int32_t pi)
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

void sat_iop_pend_detach(sat_iops *a, int32_t pi)
{
    ipend *p = &a->pv[pi];
    int32_t *pp = &a->bucket[pk_hash(&p->k) & (a->nb - 1)];
    while (*pp != NIL && *pp != pi)
        pp = &a->pv[*pp].hnext;
    if (*pp == pi)
        *pp = p->hnext;
    p->hnext = NIL;
    p->used = 2;
}

int32_t sat_iop_child_new(sat_iops *a)
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
