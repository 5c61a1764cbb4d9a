/*
 * storms_state.c - the storms analyzer's state as bytes and back (state_io.h:
 * what a partial keeps of it), sat_storms_save / sat_storms_load.
 *
 * One analyzer's part (a server's sub, or the router itself) is, in order:
 *   the options that give the state its meaning (checked: a partial made
 *   with another window is refused), its totals, the peers (client address
 *   -> id, written in id order and interned again in that order, so every id
 *   the other parts hold - heavy hitters of a window, clients of the dedup
 *   tables and of the kept rows - means the same address), every series of
 *   windows with its step as widened, the keyed tables (the list merge walks:
 *   storms_merge.c), the dedup tables, the kept rows (TCP and LDAP
 *   connections for the retry rule, requests left at a close) and whose last
 *   handshake did not finish.
 * The router then writes its inputs (src_ids) and each sub: its server key
 * and its part, in the order the subs were made (their index in subs).
 *
 * Not written: the caches (a series' last window, the router's last log
 * sub: load leaves them as create made them) and what only finish makes
 * (found, groups, tall). Load checks every id against its table, every enum
 * and flag against its range and every count against its cap, so a partial
 * read back can do nothing one pass could not.
 */
#include "state_io.h"
#include "storms_internal.h"

/* ---- save --------------------------------------------------------------------------- */

static void save_options(const sat_storms *s, sat_sw *w)
{
    sat_sw_u8(w, (uint8_t)s->router);
    sat_sw_u8(w, (uint8_t)s->auto_window);
    sat_sw_u32(w, (uint32_t)s->nser);
    for (int i = 0; i < s->nser; i++)
        sat_sw_i64(w, s->ser[i].base);
    sat_sw_i64(w, s->opts.slow);
    sat_sw_i64(w, s->opts.retry_window);
}

/* One analyzer's own state (a sub's, or the router's). */
static void save_plain(const sat_storms *s, sat_sw *w)
{
    sat_sw_tag(w, "storms");
    save_options(s, w);
    sat_sw_u8(w, (uint8_t)(s->nomem != 0));
    sat_sw_recs(w, &st_totals_desc, &s->t, 1);

    sat_sw_tag(w, "storms.peers");
    sat_sw_u64(w, s->peers.n);
    for (size_t i = 0; i < s->peers.n; i++) /* index i holds id i (st_intern) */
        sat_sw_blob(w, sat_strtab_key(&s->peers, i), sat_strtab_len(&s->peers, i));

    sat_sw_tag(w, "storms.windows");
    for (int i = 0; i < s->nser; i++) {
        sat_sw_i64(w, s->ser[i].window);
        sat_sw_u8(w, (uint8_t)s->ser[i].dropped);
        sat_sw_strtab(w, &s->ser[i].windows, &st_win_desc);
    }

    sat_sw_tag(w, "storms.tables");
    for (size_t i = 0; i < st_nkeyed_tables; i++)
        sat_sw_keyed(w, (const sat_keyed *)(const void *)((const char *)s + st_keyed_tables[i]));
    sat_sw_strtab(w, &s->ldap_dedup, NULL);
    sat_sw_strtab(w, &s->wire_dedup, NULL);

    sat_sw_tag(w, "storms.kept");
    sat_sw_array(w, s->attempts, s->nattempts, sizeof *s->attempts);
    sat_sw_array(w, s->waiting, s->nwaiting, sizeof *s->waiting);
    /* by peer id; the bytes past the last peer are never set */
    size_t nhs = s->hs_unfinished_cap < s->peers.n ? s->hs_unfinished_cap : s->peers.n;
    sat_sw_array(w, s->hs_unfinished, nhs, 1);
}

int sat_storms_save(const sat_storms *s, sat_sw *w)
{
    if (!s || !w)
        return SAT_E_USAGE;
    save_plain(s, w);
    if (s->router) {
        sat_sw_tag(w, "storms.servers");
        sat_sw_keyed(w, &s->src_ids);
        sat_sw_u64(w, s->nsubs);
        for (size_t i = 0; i < s->subkeys.n; i++) { /* index i is subs[i] (sub_at) */
            sat_sw_blob(w, sat_strtab_key(&s->subkeys, i), sat_strtab_len(&s->subkeys, i));
            save_plain(s->subs[*(const uint32_t *)sat_strtab_val(&s->subkeys, i)], w);
        }
    }
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

/* ---- load --------------------------------------------------------------------------- */

static int load_options(sat_storms *s, sat_sr *r)
{
    int router = sat_sr_u8(r), auto_window = sat_sr_u8(r);
    uint32_t nser = sat_sr_u32(r);
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    if (router != s->router || auto_window != s->auto_window || nser != (uint32_t)s->nser)
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "storms: made with other options (%s, %u series where this one "
                           "counts %d)", auto_window ? "windows by period" : "one window",
                           nser, s->nser);
    for (int i = 0; i < s->nser; i++) {
        sat_dur_ns base = sat_sr_i64(r);
        if (sat_sr_ok(r) && base != s->ser[i].base)
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "storms: counted in windows of %lld ns where this one counts "
                               "%lld ns (another --window)", (long long)base,
                               (long long)s->ser[i].base);
    }
    sat_dur_ns slow = sat_sr_i64(r), retry = sat_sr_i64(r);
    if (sat_sr_ok(r) && (slow != s->opts.slow || retry != s->opts.retry_window))
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "storms: made with another slow request time or retry window");
    return sat_sr_status(r);
}

static int load_peers(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms.peers") != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_count(r, 4);
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        size_t len;
        const void *key = sat_sr_blob(r, &len);
        if (!sat_sr_ok(r))
            break;
        int capped = 0;
        uint32_t *id = st_intern(&s->peers, key ? key : "", len, &capped);
        if (!id)
            return sat_sr_fail(r, capped ? SAT_E_CORRUPT : SAT_E_NOMEM,
                               capped ? "storms.peers: more clients than the table holds"
                                      : "out of memory");
        if (*id != i)
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms.peers: a client written twice");
    }
    return sat_sr_status(r);
}

/* Whether id names a peer (or, none_ok, is UINT32_MAX: none). */
static int peer_ok(const sat_storms *s, uint32_t id, int none_ok)
{
    return id < s->peers.n || (none_ok && id == UINT32_MAX);
}

static int load_windows(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms.windows") != SAT_OK)
        return r->err;
    for (int i = 0; i < s->nser && sat_sr_ok(r); i++) {
        st_series *se = &s->ser[i];
        sat_dur_ns width = sat_sr_i64(r);
        int dropped = sat_sr_u8(r);
        if (!sat_sr_ok(r))
            break;
        sat_dur_ns step = se->base; /* widened: the step it was made with, doubled */
        while (step < width && step <= INT64_MAX / 2)
            step *= 2;
        if (step != width || dropped > 1 || (dropped && i == s->nser - 1))
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "storms.windows: series %d: a step of %lld ns that is not its "
                               "own widened, or dropped when it cannot be", i, (long long)width);
        se->window = width;
        se->dropped = dropped;
        if (sat_sr_strtab(r, &se->windows, &st_win_desc) != SAT_OK)
            break;
        if (se->windows.n > ST_WINDOWS_MAX || (dropped && se->windows.n))
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms.windows: series %d: %zu windows", i,
                               se->windows.n);
        for (size_t k = 0; k < se->windows.n; k++) {
            const st_win *win = (const st_win *)sat_strtab_val(&se->windows, k);
            int ok = sat_strtab_len(&se->windows, k) == sizeof(int64_t);
            for (int m = 0; m < ST_MG && ok; m++)
                ok = !win->mg_n[m] || peer_ok(s, win->mg_id[m], 0);
            if (!ok)
                return sat_sr_fail(r, SAT_E_CORRUPT,
                                   "storms.windows: series %d: a window whose key or busiest "
                                   "client is not one", i);
        }
    }
    return sat_sr_status(r);
}

/* A key of at least min bytes in every row of a keyed table (what reads its
 * keys takes that many apart). */
static int keys_at_least(sat_sr *r, const sat_keyed *k, size_t min, const char *what)
{
    for (size_t i = 0; i < sat_keyed_n(k); i++)
        if (sat_keyed_len(k, i) < min)
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms: %s: a key of %zu bytes", what,
                               sat_keyed_len(k, i));
    return SAT_OK;
}

static int load_dedup(sat_storms *s, sat_sr *r, sat_strtab *t)
{
    if (sat_sr_strtab(r, t, NULL) != SAT_OK)
        return r->err;
    for (size_t i = 0; i < t->n; i++) {
        const st_dedup *d = (const st_dedup *)sat_strtab_val(t, i);
        if (d->kind >= SAT_STORM_KIND__COUNT || d->has > 1 || d->errs > 1 ||
            !peer_ok(s, d->client, 1))
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms.tables: a failure of a connection "
                               "with a kind, flag or client out of range");
    }
    return SAT_OK;
}

static int load_tables(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms.tables") != SAT_OK)
        return r->err;
    for (size_t i = 0; i < st_nkeyed_tables && sat_sr_ok(r); i++)
        sat_sr_keyed(r, (sat_keyed *)(void *)((char *)s + st_keyed_tables[i]));
    if (!sat_sr_ok(r) || keys_at_least(r, &s->cw, 8, "failures per client and window"))
        return sat_sr_status(r);
    if (load_dedup(s, r, &s->ldap_dedup) != SAT_OK)
        return r->err;
    return load_dedup(s, r, &s->wire_dedup);
}

static int load_kept(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms.kept") != SAT_OK)
        return r->err;
    void *p;
    size_t n;
    if (sat_sr_array(r, &p, &n, sizeof *s->attempts) != SAT_OK)
        return r->err;
    s->attempts = (st_attempt *)p;
    s->nattempts = s->attempts_cap = n;
    if (n > ST_ATTEMPTS_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "storms.kept: %zu connections", n);
    for (size_t i = 0; i < n; i++) {
        const st_attempt *a = &s->attempts[i];
        if (!peer_ok(s, a->client, 0) || a->unanswered > 1 || a->ldap > 1 || a->t.failed > 1)
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "storms.kept: a connection whose client or flags are not one");
    }
    if (sat_sr_array(r, &p, &n, sizeof *s->waiting) != SAT_OK)
        return r->err;
    s->waiting = (st_waiting *)p;
    s->nwaiting = s->waiting_cap = n;
    if (n > ST_DEDUP_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "storms.kept: %zu requests left at a close", n);
    for (size_t i = 0; i < n; i++)
        if (!peer_ok(s, s->waiting[i].client, 1))
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "storms.kept: a request left at a close whose client is not one");
    if (sat_sr_array(r, &p, &n, 1) != SAT_OK)
        return r->err;
    s->hs_unfinished = (uint8_t *)p;
    s->hs_unfinished_cap = n;
    if (n > s->peers.n)
        return sat_sr_fail(r, SAT_E_CORRUPT, "storms.kept: handshakes of %zu clients", n);
    for (size_t i = 0; i < n; i++)
        if (s->hs_unfinished[i] > 1)
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "storms.kept: a handshake neither finished nor not");
    return SAT_OK;
}

/* One analyzer's own state into s, fresh from st_create. */
static int load_plain(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms") != SAT_OK || load_options(s, r) != SAT_OK)
        return r->err;
    uint8_t nomem = sat_sr_u8(r);
    if (sat_sr_ok(r) && nomem > 1)
        return sat_sr_fail(r, SAT_E_CORRUPT, "storms: a flag of %u", nomem);
    s->nomem = nomem;
    if (sat_sr_recs(r, &st_totals_desc, &s->t, 1) != SAT_OK || load_peers(s, r) != SAT_OK ||
        load_windows(s, r) != SAT_OK || load_tables(s, r) != SAT_OK)
        return r->err;
    return load_kept(s, r);
}

/* The router's subs: each server key and its part, in the order written. */
static int load_subs(sat_storms *s, sat_sr *r)
{
    if (sat_sr_tag(r, "storms.servers") != SAT_OK || sat_sr_keyed(r, &s->src_ids) != SAT_OK ||
        keys_at_least(r, &s->src_ids, 4, "inputs"))
        return sat_sr_status(r);
    uint64_t n = sat_sr_count(r, 4);
    if (sat_sr_ok(r) && n > ST_SUBS_MAX + 1) /* the keys told apart, and servers not ("O") */
        return sat_sr_fail(r, SAT_E_CORRUPT, "storms.servers: %llu servers",
                           (unsigned long long)n);
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        size_t len;
        const char *key = (const char *)sat_sr_blob(r, &len);
        if (!sat_sr_ok(r))
            break;
        if (!key || !len || (key[0] != 'L' && key[0] != 'W' && key[0] != 'O') ||
            (key[0] == 'L' && len != 5))
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms.servers: a server key that is not one");
        sat_storms *sub = NULL;
        int is_new = 0;
        uint32_t *id = NULL;
        if (SAT_GROW(s->subs, s->subs_cap, s->nsubs + 1) != SAT_OK ||
            !(sub = st_create(&s->opts_in, 0)) ||
            !(id = (uint32_t *)sat_strtab_upsert(&s->subkeys, key, len, &is_new, NULL))) {
            sat_storms_free(sub);
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        }
        if (!is_new) {
            sat_storms_free(sub);
            return sat_sr_fail(r, SAT_E_CORRUPT, "storms.servers: a server written twice");
        }
        *id = (uint32_t)s->nsubs;
        s->subs[s->nsubs++] = sub; /* owned by s from here, loaded or not */
        load_plain(sub, r);
    }
    return sat_sr_status(r);
}

int sat_storms_load(sat_storms *s, sat_sr *r)
{
    if (!s || !r)
        return SAT_E_USAGE;
    if (load_plain(s, r) == SAT_OK && s->router)
        load_subs(s, r);
    return sat_sr_status(r);
}
