/*
 * storms_merge.c - st_merge_plain: another storms analyzer's state added into
 * this one (one server's; the router merges its subs by server:
 * storms_servers.c), as a walk over its accumulators, each merged by the rule
 * of its kind (acc.h, winseries.h), described once:
 *
 *   the counters      struct sat_storms.t (st_totals)       st_totals_desc
 *   the windows       every series' st_win                  st_win_desc, sat_win_merge
 *   keyed tables      sources, cw (failures per client and   sat_keyed_merge
 *                     window), wire_servers
 *   kept rows         requests left at a close, TCP          appended
 *                     connections for the retry rule
 *   dedup tables      ldap_dedup, wire_dedup                 union (merge_dedup)
 *
 * A new counter is a line in one of the counters' lists (storms_internal.h,
 * storms_found.h) and nothing here. The only ids are the peers' (heavy hitters of a
 * window, the clients of kept rows): they are per analyzer, so they are
 * mapped through the peers' addresses. The dedup tables are a union: the
 * rows of one connection come from one input, so from one part, and a key in
 * both keeps into's (the retry rule, at finish, asks them which connections
 * failed).
 */
#include "storms_internal.h"

/* from's peer id as into's (UINT32_MAX: none, or into's peers table full) */
static uint32_t map_peer(sat_storms *into, const sat_storms *from, uint32_t id)
{
    if (id >= from->peers.n)
        return UINT32_MAX;
    int capped;
    uint32_t *nid = st_intern(&into->peers, sat_strtab_key(&from->peers, id),
                              sat_strtab_len(&from->peers, id), &capped);
    if (!nid && !capped)
        into->nomem = 1;
    return nid ? *nid : UINT32_MAX;
}

/* from's windows of series si into into's, their heavy hitters' ids mapped */
static int merge_windows(sat_storms *into, const sat_storms *from, int si)
{
    st_series *ise = &into->ser[si];
    const st_series *fse = &from->ser[si];
    int droppable = si < into->nser - 1;
    if (ise->dropped || fse->dropped) {
        if (!ise->dropped)
            st_drop_series(ise);
        return SAT_OK;
    }
    sat_strtab tmp;
    sat_strtab_init(&tmp, sizeof(st_win), 0);
    int rc = SAT_OK;
    for (size_t i = 0; i < fse->windows.n && rc == SAT_OK; i++) {
        st_win *w = (st_win *)sat_strtab_upsert(&tmp, sat_strtab_key(&fse->windows, i),
                                                sat_strtab_len(&fse->windows, i), NULL, NULL);
        if (!w) {
            rc = SAT_E_NOMEM;
            break;
        }
        *w = *(const st_win *)sat_strtab_val(&fse->windows, i);
        for (int k = 0; k < ST_MG; k++) {
            uint32_t to = w->mg_n[k] ? map_peer(into, from, w->mg_id[k]) : UINT32_MAX;
            if (to == UINT32_MAX)
                w->mg_n[k] = 0; /* a client past the cap: its count is left out */
            else
                w->mg_id[k] = to;
        }
    }
    if (rc == SAT_OK)
        rc = sat_win_merge(&ise->windows, &ise->window, &tmp, fse->window,
                           droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win), st_win_add_v);
    if (rc == SAT_OK && droppable && ise->windows.n > ST_WINDOWS_MAX)
        st_drop_series(ise);
    sat_strtab_free(&tmp);
    return rc;
}

/* from's failures already counted, by connection, added to into's; a close
 * by the client leaving (A1, B1) in one part of a connection answered with
 * an error in the other is taken back, as one pass does (storms_classify.c
 * ldap_keyed) */
static void merge_dedup(sat_storms *into, const sat_storms *from_s, sat_strtab *t,
                        const sat_strtab *from)
{
    for (size_t i = 0; i < from->n; i++) {
        int is_new, capped;
        st_dedup *d = (st_dedup *)sat_strtab_upsert(t, sat_strtab_key(from, i),
                                                    sat_strtab_len(from, i), &is_new, &capped);
        const st_dedup *f = (const st_dedup *)sat_strtab_val(from, i);
        if (!d) {
            into->nomem |= !capped;
            continue;
        }
        int both = !is_new && (d->errs != f->errs || d->has != f->has);
        if (is_new) {
            *d = *f;
            d->client = map_peer(into, from_s, f->client);
        } else {
            if (!d->has && f->has) { /* a connection with only an error here */
                d->ts = f->ts;
                d->kind = f->kind;
                d->client = map_peer(into, from_s, f->client);
                d->has = 1;
            }
            d->errs |= f->errs;
        }
        if (both && d->errs && d->has && st_is_client_left(d->kind)) {
            sat_str client = SAT_STR_NONE;
            if (d->client < into->peers.n) {
                client.ptr = sat_strtab_key(&into->peers, d->client);
                client.len = sat_strtab_len(&into->peers, d->client);
            }
            st_uncount(into, d->ts, d->kind, client);
            into->t.f.deduped++;
            d->has = 0;
        }
    }
}

/* The keyed tables of the analyzer, merged key by key (and written so:
 * storms_state.c). */
const size_t st_keyed_tables[] = {offsetof(struct sat_storms, sources),
                                  offsetof(struct sat_storms, cw),
                                  offsetof(struct sat_storms, wire_servers),
                                  offsetof(struct sat_storms, addrs),
                                  offsetof(struct sat_storms, wire_sources)};
const size_t st_nkeyed_tables = sizeof st_keyed_tables / sizeof st_keyed_tables[0];

static int keep_attempt_row(sat_storms *into, const st_attempt *a, uint32_t client)
{
    if (into->nattempts == into->attempts_cap &&
        (into->attempts_cap >= ST_ATTEMPTS_MAX ||
         SAT_GROW(into->attempts, into->attempts_cap, into->nattempts + 1) != SAT_OK))
        return -1;
    into->attempts[into->nattempts] = *a;
    into->attempts[into->nattempts++].client = client;
    return 0;
}

/* The kept rows: requests left waiting at a close (through
 * st_keep_closed_waiting, for into's own bounds) and TCP connections. */
static void merge_kept_rows(sat_storms *into, const sat_storms *from)
{
    for (size_t i = 0; i < from->nwaiting && !into->nomem; i++) {
        const st_waiting *fw = &from->waiting[i];
        sat_ldap_op op;
        memset(&op, 0, sizeof op);
        op.server = fw->key.server;
        op.conn_epoch = fw->key.epoch;
        op.conn = fw->key.conn;
        op.ts_ns = fw->ts;
        if (fw->client != UINT32_MAX && fw->client < from->peers.n) {
            op.client_ip.ptr = sat_strtab_key(&from->peers, fw->client);
            op.client_ip.len = sat_strtab_len(&from->peers, fw->client);
        }
        st_keep_closed_waiting(into, &op);
    }
    for (size_t i = 0; i < from->nattempts && !into->nomem; i++) {
        const st_attempt *a = &from->attempts[i];
        uint32_t client = map_peer(into, from, a->client);
        if (client == UINT32_MAX) {
            into->t.f.not_examined++;
            continue;
        }
        if (keep_attempt_row(into, a, client) < 0) {
            into->t.f.not_examined += from->nattempts - i;
            break;
        }
    }
}

/* Two plain analyzers (a router merges its subs by server key: storms_servers.c). */
int st_merge_plain(sat_storms *into, const sat_storms *from)
{
    if (!into || !from || into->nser != from->nser ||
        into->ser[0].base != from->ser[0].base || into->opts.slow != from->opts.slow)
        return SAT_E_USAGE; /* made with other options */
    sat_rec_merge(&st_totals_desc, &into->t, &from->t); /* counts and times: never out of memory */
    for (int si = 0; si < into->nser; si++)
        if (!into->nomem && merge_windows(into, from, si) < 0)
            into->nomem = 1;
    for (size_t i = 0; i < st_nkeyed_tables; i++)
        if (sat_keyed_merge((sat_keyed *)(void *)((char *)into + st_keyed_tables[i]),
                            (const sat_keyed *)(const void *)((const char *)from +
                                                              st_keyed_tables[i])) < 0)
            into->nomem = 1;
    merge_dedup(into, from, &into->ldap_dedup, &from->ldap_dedup);
    merge_dedup(into, from, &into->wire_dedup, &from->wire_dedup);
    if (sat_keyed_has_other(&into->cw))
        into->t.clients_lost = 1; /* a client-window pair past the cap */
    merge_kept_rows(into, from);
    for (int si = 0; si < into->nser; si++)
        while (!into->ser[si].dropped && into->ser[si].windows.n > ST_WINDOWS_MAX &&
               !into->nomem)
            st_widen(into, &into->ser[si], 2);
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}
