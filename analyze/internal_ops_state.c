/*
 * internal_ops_state.c - the attribution of internal operations as a
 * partial's state (state_io.h, for the etime analyzer: etime_state.c) and
 * back: its groups and rows, its counters, the ring of operations attributed
 * lately, the part's first attributions kept for a merge (heads) and every
 * list of rows still waiting for its client operation.
 *
 * The waiting lists live in a slab found through a hash (internal_ops_wait.c):
 * a merge and the end walk the slab in its order, and new lists take the
 * slots of the free list in its order, so the slab is written slot by slot
 * (its free list as it is) and read back into the same slots; the rows of a
 * list are written in their order, the hash is rebuilt. What a merge or
 * finish reads of them is then as in the original. The scratch buffers of
 * one resolution are not state.
 */
#include "internal_ops_int.h"
#include "state_io.h"

static void key_save(sat_sw *w, const ipkey *k)
{
    sat_sw_u32(w, k->server);
    sat_sw_u32(w, k->epoch);
    sat_sw_i64(w, k->conn);
    sat_sw_i64(w, k->op);
    sat_sw_u32(w, (uint32_t)k->x);
}

static void key_load(sat_sr *r, ipkey *k)
{
    memset(k, 0, sizeof *k);
    k->server = sat_sr_u32(r);
    k->epoch = sat_sr_u32(r);
    k->conn = sat_sr_i64(r);
    k->op = sat_sr_i64(r);
    k->x = (int32_t)sat_sr_u32(r);
}
#define KEY_BYTES (4 + 4 + 8 + 8 + 4)

/* A group key (malloc'd copy of a blob, at least one byte allocated). */
static char *pkey_load(sat_sr *r, size_t *len)
{
    const void *p = sat_sr_blob(r, len);
    if (!sat_sr_ok(r))
        return NULL;
    if (!p) {
        sat_sr_fail(r, SAT_E_CORRUPT, "iops: a group without its key");
        return NULL;
    }
    char *s = (char *)malloc(*len ? *len : 1);
    if (!s) {
        sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(s, p, *len);
    return s;
}

/* ---- writing ------------------------------------------------------------------------- */

static void pending_save(const sat_iops *a, sat_sw *w)
{
    sat_sw_tag(w, "iops.pending");
    sat_sw_u64(w, a->pcap);
    sat_sw_u32(w, (uint32_t)a->pfree);
    for (size_t i = 0; i < a->pcap; i++) {
        const ipend *p = &a->pv[i];
        sat_sw_u8(w, p->used);
        if (!p->used) {
            sat_sw_u32(w, (uint32_t)p->hnext); /* the free list */
            continue;
        }
        key_save(w, &p->k);
        sat_sw_u64(w, p->n);
        uint32_t k = 0;
        for (int32_t c = p->head; c != NIL && k < p->n; c = a->cv[c].next, k++) {
            const ichild *ch = &a->cv[c];
            sat_sw_blob(w, ch->seg, ch->seglen);
            sat_sw_u8(w, ch->depth);
            sat_sw_u8(w, ch->is_error);
            sat_sw_i64(w, ch->etime);
            sat_sw_u32(w, (uint32_t)ch->err);
        }
        if (k != p->n)
            w->nomem = 1; /* a list shorter than it says: no state to keep */
    }
}

int sat_iops_save(const sat_iops *a, sat_sw *w)
{
    sat_sw_tag(w, "iops");
    sat_sw_u64(w, a->max_keys);
    sat_sw_u64(w, a->recent_next);
    for (size_t i = 0; i < IOPS_RECENT; i++) {
        const irecent *r = &a->recent[i];
        sat_sw_u8(w, r->pkey != NULL);
        if (r->pkey) {
            key_save(w, &r->k);
            sat_sw_blob(w, r->pkey, r->pklen);
        }
    }
    sat_sw_strtab(w, &a->pars, &sat_iop_par_desc);
    sat_sw_strtab(w, &a->rows, &sat_iop_row_desc);
    sat_sw_u64(w, a->serial);
    sat_sw_u64(w, a->of_clients);
    sat_sw_u64(w, a->of_server);
    sat_sw_u64(w, a->orphans);
    sat_sw_u64(w, a->unattributed);
    sat_sw_u8(w, (uint8_t)(a->nomem != 0));
    pending_save(a, w);
    sat_sw_tag(w, "iops.heads");
    sat_sw_u8(w, (uint8_t)(a->heads_closed != 0));
    sat_sw_u64(w, a->nheads);
    for (size_t i = 0; i < a->nheads; i++) {
        const ihead *h = &a->heads[i];
        key_save(w, &h->k);
        sat_sw_blob(w, h->pkey, h->pklen);
        sat_sw_u32(w, (uint32_t)h->list);
        sat_sw_i64(w, h->etime);
        sat_sw_u32(w, h->flags);
        sat_sw_u8(w, h->server);
    }
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

/* ---- reading ------------------------------------------------------------------------- */

/* The rows of the waiting list in slot i, in their order. */
static int rows_load(sat_iops *a, sat_sr *r, int32_t i)
{
    ipend *p = &a->pv[i];
    uint32_t n = (uint32_t)sat_sr_count(r, 4 + 1 + 1 + 8 + 4);
    p->head = p->tail = NIL;
    for (uint32_t k = 0; k < n && sat_sr_ok(r); k++) {
        size_t len;
        const void *seg = sat_sr_blob(r, &len);
        uint8_t depth = sat_sr_u8(r), is_error = sat_sr_u8(r);
        int64_t etime = sat_sr_i64(r);
        int32_t err = (int32_t)sat_sr_u32(r);
        if (!sat_sr_ok(r))
            break;
        if (!seg || is_error > 1)
            return sat_sr_fail(r, SAT_E_CORRUPT, "iops.pending: a waiting row misread");
        char *copy = (char *)malloc(len ? len : 1);
        int32_t c = copy ? sat_iop_child_new(a) : NIL;
        if (c == NIL) {
            free(copy);
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        }
        memcpy(copy, seg, len);
        ichild *ch = &a->cv[c];
        ch->seg = copy;
        ch->seglen = (uint32_t)len;
        ch->depth = depth;
        ch->is_error = is_error;
        ch->etime = etime;
        ch->err = err;
        ipend_append(a, p, c);
    }
    return sat_sr_status(r);
}

static int pending_load(sat_iops *a, sat_sr *r)
{
    if (sat_sr_tag(r, "iops.pending") != SAT_OK)
        return r->err;
    uint64_t pcap = sat_sr_count(r, 1 + 4);
    int32_t pfree = (int32_t)sat_sr_u32(r);
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    if (pcap > INT32_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops.pending: %llu slots",
                           (unsigned long long)pcap);
    if (pcap && !(a->pv = (ipend *)calloc((size_t)pcap, sizeof *a->pv)))
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    a->pcap = (size_t)pcap;
    size_t nfree = 0;
    for (size_t i = 0; i < a->pcap && sat_sr_ok(r); i++) {
        ipend *p = &a->pv[i];
        p->used = sat_sr_u8(r);
        p->head = p->tail = p->hnext = NIL;
        if (!sat_sr_ok(r))
            break;
        if (p->used > 2)
            return sat_sr_fail(r, SAT_E_CORRUPT, "iops.pending: a slot used as %u", p->used);
        if (!p->used) {
            p->hnext = (int32_t)sat_sr_u32(r);
            nfree++;
            continue;
        }
        key_load(r, &p->k);
        rows_load(a, r, (int32_t)i);
        a->npend++;
    }
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    /* the free list: every free slot once, ending */
    size_t steps = 0;
    for (int32_t f = pfree; f != NIL; f = a->pv[f].hnext, steps++)
        if (f < 0 || (size_t)f >= a->pcap || a->pv[f].used || steps >= nfree)
            return sat_sr_fail(r, SAT_E_CORRUPT, "iops.pending: the free slots misread");
    if (steps != nfree)
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops.pending: the free slots misread");
    a->pfree = pfree;
    size_t nb = 64;
    while (nb < a->npend + 1)
        nb *= 2;
    if (a->pcap && sat_iop_pend_rehash(a, nb) < 0)
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    return SAT_OK;
}

/* The part's first attributions; each list kept apart (used 2) is one's. */
static int heads_load(sat_iops *a, sat_sr *r)
{
    if (sat_sr_tag(r, "iops.heads") != SAT_OK)
        return r->err;
    uint8_t closed = sat_sr_u8(r);
    uint64_t n = sat_sr_count(r, KEY_BYTES + 4 + 4 + 8 + 4 + 1);
    if (sat_sr_ok(r) && (closed > 1 || n > IOPS_HEAD || (closed && n)))
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops.heads: %llu first attributions%s",
                           (unsigned long long)n, closed ? " after the end" : "");
    a->heads_closed = closed;
    if (n && !(a->heads = (ihead *)malloc(IOPS_HEAD * sizeof *a->heads)))
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        ihead *h = &a->heads[a->nheads];
        key_load(r, &h->k);
        size_t len = 0;
        char *pkey = pkey_load(r, &len);
        int32_t list = (int32_t)sat_sr_u32(r);
        int64_t etime = sat_sr_i64(r);
        uint32_t flags = sat_sr_u32(r);
        uint8_t server = sat_sr_u8(r);
        if (!pkey)
            break;
        h->pkey = pkey;
        h->pklen = len;
        a->nheads++;
        if (!sat_sr_ok(r))
            break;
        if (flags > UINT16_MAX || server > 1 ||
            (list != NIL && (list < 0 || (size_t)list >= a->pcap || a->pv[list].used != 2)))
            return sat_sr_fail(r, SAT_E_CORRUPT, "iops.heads: a first attribution misread");
        if (list != NIL)
            a->pv[list].used = 3; /* seen: a second head of it is refused */
        h->list = list;
        h->etime = etime;
        h->flags = (uint16_t)flags;
        h->server = server;
    }
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    size_t apart = 0;
    for (size_t i = 0; i < a->pcap; i++)
        if (a->pv[i].used >= 2) {
            apart += a->pv[i].used == 2;
            a->pv[i].used = 2;
        }
    if (apart)
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops.heads: %zu lists kept apart for none", apart);
    return SAT_OK;
}

int sat_iops_load(sat_iops *a, sat_sr *r)
{
    if (sat_sr_tag(r, "iops") != SAT_OK)
        return r->err;
    uint64_t max_keys = sat_sr_u64(r);
    if (sat_sr_ok(r) && max_keys != a->max_keys)
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops: made with max_keys %llu, read with %zu",
                           (unsigned long long)max_keys, a->max_keys);
    a->recent_next = (size_t)sat_sr_u64(r);
    for (size_t i = 0; i < IOPS_RECENT && sat_sr_ok(r); i++) {
        uint8_t has = sat_sr_u8(r);
        if (sat_sr_ok(r) && has > 1)
            return sat_sr_fail(r, SAT_E_CORRUPT, "iops: a recent attribution misread");
        if (!has)
            continue;
        irecent *rc = &a->recent[i];
        key_load(r, &rc->k);
        rc->pkey = pkey_load(r, &rc->pklen);
    }
    if (!sat_sr_ok(r) || sat_sr_strtab(r, &a->pars, &sat_iop_par_desc) != SAT_OK ||
        sat_sr_strtab(r, &a->rows, &sat_iop_row_desc) != SAT_OK)
        return sat_sr_status(r);
    a->serial = sat_sr_u64(r);
    a->of_clients = sat_sr_u64(r);
    a->of_server = sat_sr_u64(r);
    a->orphans = sat_sr_u64(r);
    a->unattributed = sat_sr_u64(r);
    uint8_t nomem = sat_sr_u8(r);
    if (sat_sr_ok(r) && nomem > 1)
        return sat_sr_fail(r, SAT_E_CORRUPT, "iops: an out-of-memory flag of %u", nomem);
    a->nomem |= nomem;
    if (!sat_sr_ok(r) || pending_load(a, r) != SAT_OK || heads_load(a, r) != SAT_OK)
        return sat_sr_status(r);
    return SAT_OK;
}
