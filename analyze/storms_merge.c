/*
 * storms_merge.c - sat_storms_merge: one storms analyzer's counts, windows and
 * kept rows added into another's (the client and peer ids are per analyzer: they
 * are mapped through the names).
 */
#include "storms_internal.h"

/* from's windows into into's, their heavy hitters' client ids mapped from
 * from's peers table to into's (ids are per analyzer) */
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
    uint32_t *map = (uint32_t *)calloc(from->peers.n + 1, sizeof *map);
    sat_strtab tmp;
    sat_strtab_init(&tmp, sizeof(st_win), 0);
    int rc = map ? SAT_OK : SAT_E_NOMEM;
    for (size_t i = 0; i < from->peers.n && rc == SAT_OK; i++) {
        int capped;
        uint32_t *id = st_intern(&into->peers, sat_strtab_key(&from->peers, i),
                                 sat_strtab_len(&from->peers, i), &capped);
        map[i] = id ? *id : UINT32_MAX;
    }
    for (size_t i = 0; i < fse->windows.n && rc == SAT_OK; i++) {
        st_win *w = (st_win *)sat_strtab_upsert(&tmp, sat_strtab_key(&fse->windows, i),
                                                sat_strtab_len(&fse->windows, i), NULL, NULL);
        if (!w) {
            rc = SAT_E_NOMEM;
            break;
        }
        *w = *(const st_win *)sat_strtab_val(&fse->windows, i);
        for (int k = 0; k < ST_MG; k++) {
            uint32_t to = w->mg_n[k] && w->mg_id[k] < from->peers.n ? map[w->mg_id[k]]
                                                                     : UINT32_MAX;
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
    free(map);
    return rc;
}

static sat_str client_of(const sat_storms *s, uint32_t id)
{
    sat_str c = SAT_STR_NONE;
    if (id < s->clients.n) {
        c.ptr = sat_strtab_key(&s->clients, id);
        c.len = sat_strtab_len(&s->clients, id);
    }
    return c;
}

/* The deduplication rules of storms_classify.c across the cut: a key (an LDAP
 * connection, a wire connection) with rows in both analyzers was counted once
 * in each, and one pass would have counted it once, or once per ABANDON:
 *  - LDAP: an A1 close counts only when its connection had no ABANDON, so an
 *    A1 counted on one side goes when the other side has an ABANDON (a key's
 *    mark is ABANDON exactly when it had one); the mark is the first
 *    ABANDON's, else the first row's;
 *  - wire: one failure per connection, of the most specific kind; the less
 *    specific count goes (into's when equal: its rows came first).
 * Run after the windows, kinds and client windows were added up, so that the
 * count taken back is where it was added. */
static void merge_dedup(sat_storms *into, const sat_storms *from, sat_strtab *it,
                        const sat_strtab *ft, int ldap)
{
    for (size_t i = 0; i < ft->n && !into->nomem; i++) {
        const st_dedup *f = (const st_dedup *)sat_strtab_val(ft, i);
        if (!f->has)
            continue;
        sat_str fc = client_of(from, f->client);
        const uint32_t *fid = fc.len ? (const uint32_t *)sat_strtab_find(&into->clients, fc.ptr,
                                                                         fc.len)
                                     : NULL;
        st_dedup fm = *f;
        fm.client = fid ? *fid : UINT32_MAX;
        int capped;
        st_dedup *d = (st_dedup *)sat_strtab_upsert(it, sat_strtab_key(ft, i),
                                                    sat_strtab_len(ft, i), NULL, &capped);
        if (!d) {
            into->nomem |= !capped; /* past the cap: counted without a dedup, as rows are */
            continue;
        }
        if (!d->has) {
            *d = fm;
            continue;
        }
        if (ldap) {
            if (d->kind == SAT_STORM_CLOSE_A1 && fm.kind == SAT_STORM_ABANDON) {
                st_uncount(into, d->ts, SAT_STORM_CLOSE_A1, client_of(into, d->client));
                into->deduped++;
                *d = fm;
            } else if (d->kind == SAT_STORM_ABANDON && fm.kind == SAT_STORM_CLOSE_A1) {
                st_uncount(into, fm.ts, SAT_STORM_CLOSE_A1, client_of(into, fm.client));
                into->deduped++;
            } else if (d->kind != SAT_STORM_ABANDON && fm.kind == SAT_STORM_ABANDON) {
                *d = fm;
            }
        } else if (st_wire_prio(fm.kind) > st_wire_prio(d->kind)) {
            st_uncount(into, d->ts, d->kind, client_of(into, d->client));
            into->deduped++;
            *d = fm;
        } else {
            st_uncount(into, fm.ts, fm.kind, client_of(into, fm.client));
            into->deduped++;
        }
    }
}

int sat_storms_merge(sat_storms *into, const sat_storms *from)
{
    if (!into || !from || into->nser != from->nser ||
        into->ser[0].base != from->ser[0].base)
        return SAT_E_USAGE; /* made with other options */
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        into->kinds[k] += from->kinds[k];
    into->events += from->events;
    into->deduped += from->deduped;
    into->ldap_ops += from->ldap_ops;
    into->ldap_conns += from->ldap_conns;
    into->tls_hs += from->tls_hs;
    into->tcp_conns += from->tcp_conns;
    if (from->first_ts && (!into->first_ts || from->first_ts < into->first_ts))
        into->first_ts = from->first_ts;
    if (from->last_ts > into->last_ts)
        into->last_ts = from->last_ts;
    for (int si = 0; si < into->nser; si++)
        if (!into->nomem && merge_windows(into, from, si) < 0)
            into->nomem = 1;
    for (size_t i = 0; i < from->sources.n; i++) {
        const st_src *r = (const st_src *)sat_strtab_val(&from->sources, i);
        st_keep_source(into, sat_strtab_key(&from->sources, i), sat_strtab_len(&from->sources, i),
                    r->first_ts, r->last_ts);
    }
    /* client ids are per analyzer: map them through the names */
    for (size_t i = 0; i < from->cw.n && !into->nomem; i++) {
        st_cwkey fk;
        memcpy(&fk, sat_strtab_key(&from->cw, i), sizeof fk);
        if (fk.id >= from->clients.n)
            continue;
        int capped;
        uint32_t *nid = st_intern(&into->clients, sat_strtab_key(&from->clients, fk.id),
                                  sat_strtab_len(&from->clients, fk.id), &capped);
        if (!nid) {
            into->nomem |= !capped;
            into->clients_lost = 1;
            continue;
        }
        sat_ts_ns ts = fk.widx * from->opts.window;
        uint64_t *n = st_client_window(&into->cw, *nid, st_window_of(ts, into->opts.window),
                                    &into->nomem);
        if (n)
            *n += *(const uint64_t *)sat_strtab_val(&from->cw, i);
        into->clients_lost |= !n;
    }
    into->clients_lost |= from->clients_lost;
    merge_dedup(into, from, &into->ldap_dedup, &from->ldap_dedup, 1);
    merge_dedup(into, from, &into->wire_dedup, &from->wire_dedup, 0);
    into->attempts_lost += from->attempts_lost;
    into->waiting_lost += from->waiting_lost;
    for (size_t i = 0; i < from->nwaiting && !into->nomem; i++) {
        const st_waiting *fw = &from->waiting[i];
        sat_ldap_op op; /* through st_keep_closed_waiting, for the client's id here */
        memset(&op, 0, sizeof op);
        op.server = fw->key.server;
        op.conn_epoch = fw->key.epoch;
        op.conn = fw->key.conn;
        op.ts_ns = fw->ts;
        if (fw->client != UINT32_MAX) {
            op.client_ip.ptr = sat_strtab_key(&from->peers, fw->client);
            op.client_ip.len = sat_strtab_len(&from->peers, fw->client);
        }
        st_keep_closed_waiting(into, &op);
    }
    for (size_t i = 0; i < from->wire_servers.n; i++) {
        int capped;
        if (!sat_strtab_upsert(&into->wire_servers, sat_strtab_key(&from->wire_servers, i),
                               sat_strtab_len(&from->wire_servers, i), NULL, &capped))
            into->nomem |= !capped;
    }
    for (size_t i = 0; i < from->nattempts && !into->nomem; i++) {
        const st_attempt *a = &from->attempts[i];
        if (into->nattempts == into->attempts_cap) {
            size_t ncap = into->attempts_cap ? into->attempts_cap * 2 : 1024;
            st_attempt *na = into->attempts_cap >= ST_ATTEMPTS_MAX
                                 ? NULL : (st_attempt *)realloc(into->attempts, ncap * sizeof *na);
            if (!na) {
                into->attempts_lost += from->nattempts - i;
                break;
            }
            into->attempts = na;
            into->attempts_cap = ncap;
        }
        int capped;
        uint32_t *nid = st_intern(&into->peers, sat_strtab_key(&from->peers, a->client),
                                  sat_strtab_len(&from->peers, a->client), &capped);
        if (!nid) {
            into->nomem |= !capped;
            into->attempts_lost++;
            continue;
        }
        into->attempts[into->nattempts] = *a;
        into->attempts[into->nattempts++].client = *nid;
    }
    for (int si = 0; si < into->nser; si++)
        while (!into->ser[si].dropped && into->ser[si].windows.n > ST_WINDOWS_MAX &&
               !into->nomem)
            st_widen(into, &into->ser[si], 2);
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}
