/*
 * etime_state.c - the etime analyzer's state in a partial (state_io.h,
 * `satscope partial`): what its rows and merges built, written after them
 * and before finish, and read back into a fresh instance created with the
 * same options, which then merges and finishes as the original would.
 *
 * The accumulators are walked as create and merge walk them (et_accs,
 * etime.c); then the two series, the LDAPI binds and 1.0 connection spans,
 * the earliest abandons, the inputs (etime_inputs.c), what the inputs can
 * hold (fields.h), the 10 s summaries of `during` when it is on
 * (etime_during.c) and the internal operations (internal_ops_state.c).
 * Caches are not written (the memos of shapes and connections, the last
 * minute, peak and summary hit, the scratch buffer, a filter's shape
 * pointer): load leaves them as create made them, and the rows after a
 * load find them empty as after a merge. The options that change what the
 * state means (by, top, max_keys, during, the root DN) are written and
 * checked: a partial made with others is refused.
 */
#include "etime_int.h"
#include "state_fields.h"

/* ---- the accumulators ------------------------------------------------------------------ */

static void accs_save(const sat_etime *e, sat_sw *w)
{
    sat_sw_tag(w, "etime.accs");
    sat_sw_u64(w, et_naccs);
    for (size_t i = 0; i < et_naccs; i++) {
        const et_acc *a = &et_accs[i];
        const void *p = et_acc_at(e, a);
        if (a->kind == ET_ACC_REC) {
            sat_sw_recs(w, a->d, p, a->n);
        } else if (a->kind == ET_ACC_KEYED) {
            sat_sw_keyed(w, (const sat_keyed *)p);
        } else {
            const et_ktab *k = (const et_ktab *)p;
            sat_sw_keyed(w, &k->k);
            sat_sw_u8(w, k->foldbits != NULL);
            if (k->foldbits)
                sat_sw_raw(w, k->foldbits, ET_FOLD_BITS / 8);
        }
    }
}

/* The keys of a table of packed ids (a server, a result code, a
 * connection): all of the one length the readers copy. */
static int keys_of_len(sat_sr *r, const sat_keyed *k, size_t len, const char *what)
{
    for (size_t i = 0; i < sat_keyed_n(k); i++)
        if (sat_keyed_len(k, i) != len)
            return sat_sr_fail(r, SAT_E_CORRUPT, "etime.accs: a key of %zu bytes in %s (%zu)",
                               sat_keyed_len(k, i), what, len);
    return SAT_OK;
}

/* An unindexed search's key holds its four parts, each followed by \x1f,
 * whose lengths its record says (the result cuts the key by them). */
static int unidx_keys_ok(sat_sr *r, const sat_keyed *k)
{
    for (size_t i = 0; i < sat_keyed_n(k); i++) {
        const et_unidx *u = (const et_unidx *)sat_keyed_rec(k, i);
        const char *key = sat_keyed_key(k, i);
        uint64_t at = 0;
        int ok = 1;
        for (int p = 0; p < 4 && ok; p++) {
            at += u->klen[p];
            ok = at < sat_keyed_len(k, i) && key[at] == '\x1f';
            at++;
        }
        if (!ok || at != sat_keyed_len(k, i))
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "etime.accs: an unindexed search whose key is not its parts");
    }
    return SAT_OK;
}

static int accs_load(sat_etime *e, sat_sr *r)
{
    if (sat_sr_tag(r, "etime.accs") != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_u64(r);
    if (sat_sr_ok(r) && n != et_naccs)
        return sat_sr_fail(r, SAT_E_CORRUPT, "etime.accs: %llu accumulators where %zu are known",
                           (unsigned long long)n, et_naccs);
    for (size_t i = 0; i < et_naccs && sat_sr_ok(r); i++) {
        const et_acc *a = &et_accs[i];
        void *p = et_acc_at(e, a);
        if (a->kind == ET_ACC_REC) {
            sat_sr_recs(r, a->d, p, a->n);
            continue;
        }
        et_ktab *kt = a->kind == ET_ACC_KTAB ? (et_ktab *)p : NULL;
        sat_keyed *k = kt ? &kt->k : (sat_keyed *)p;
        if (sat_sr_keyed(r, k) != SAT_OK)
            break;
        if (a->klen)
            keys_of_len(r, k, a->klen, "a table of ids");
        if (kt) {
            uint8_t has = sat_sr_u8(r);
            if (sat_sr_ok(r) && has > 1)
                return sat_sr_fail(r, SAT_E_CORRUPT, "etime.accs: a folded-key flag of %u", has);
            if (has && sat_sr_ok(r)) {
                if (!(kt->foldbits = (uint8_t *)malloc(ET_FOLD_BITS / 8)))
                    return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
                sat_sr_raw(r, kt->foldbits, ET_FOLD_BITS / 8);
            }
        }
    }
    if (sat_sr_ok(r) && e->opts.by == SAT_ETIME_BY_CONN)
        keys_of_len(r, &e->groups.k, sizeof(et_connkey), "the groups by connection");
    if (sat_sr_ok(r))
        unidx_keys_ok(r, &e->unidx);
    return sat_sr_status(r);
}

/* ---- the series -------------------------------------------------------------------------- */

static void series_save(sat_sw *w, const char *tag, const sat_strtab *t, int64_t width)
{
    sat_sw_tag(w, tag);
    sat_sw_i64(w, width);
    sat_sw_strtab(w, t, &et_group_desc);
}

/* A series into an empty one; width_ok says which widths it takes. */
static int series_load(sat_sr *r, const char *tag, sat_strtab *t, int64_t *width,
                       int (*width_ok)(int64_t))
{
    if (sat_sr_tag(r, tag) != SAT_OK)
        return r->err;
    int64_t wd = sat_sr_i64(r);
    if (sat_sr_ok(r) && !width_ok(wd))
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: windows of %lld ns", tag, (long long)wd);
    *width = wd;
    if (sat_sr_strtab(r, t, &et_group_desc) != SAT_OK)
        return r->err;
    for (size_t i = 0; i < t->n; i++)
        if (sat_strtab_len(t, i) != sizeof(int64_t))
            return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a window of a key of %zu bytes", tag,
                               (size_t)sat_strtab_len(t, i));
    return SAT_OK;
}

/* HTTP windows: a minute times a power of two (etime_http.c). */
static int http_width_ok(int64_t w)
{
    if (w < ET_MINUTE_NS || w % ET_MINUTE_NS)
        return 0;
    int64_t m = w / ET_MINUTE_NS;
    return (m & (m - 1)) == 0;
}

/* ---- connections: LDAPI binds and the spans of a 1.0 trace -------------------------------- */

static void conn_save(const sat_etime *e, sat_sw *w)
{
    sat_sw_tag(w, "etime.conn");
    sat_sw_strtab(w, &e->ldapi, NULL); /* et_ldapi: counters only */
    sat_sw_u64(w, e->ldapi_done);
    sat_sw_u64(w, e->nspans);
    for (size_t i = 0; i < e->nspans; i++) {
        sat_sw_u32(w, e->spans[i].server);
        sat_sw_i64(w, e->spans[i].open_ts);
        sat_sw_i64(w, e->spans[i].close_ts);
    }
}

static int conn_load(sat_etime *e, sat_sr *r)
{
    if (sat_sr_tag(r, "etime.conn") != SAT_OK || sat_sr_strtab(r, &e->ldapi, NULL) != SAT_OK)
        return r->err;
    for (size_t i = 0; i < e->ldapi.n; i++)
        if (sat_strtab_len(&e->ldapi, i) != sizeof(et_connkey) ||
            ((const et_ldapi *)sat_strtab_val(&e->ldapi, i))->done > 1)
            return sat_sr_fail(r, SAT_E_CORRUPT, "etime.conn: an LDAPI connection misread");
    e->ldapi_done = sat_sr_u64(r);
    if (sat_sr_ok(r) && e->ldapi_done > e->ldapi.n)
        return sat_sr_fail(r, SAT_E_CORRUPT, "etime.conn: %llu LDAPI connections over of %zu",
                           (unsigned long long)e->ldapi_done, e->ldapi.n);
    uint64_t n = sat_sr_count(r, 4 + 8 + 8);
    if (n && sat_sr_ok(r)) {
        if (!(e->spans = (et_connspan *)calloc((size_t)n, sizeof *e->spans)))
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        e->spancap = (size_t)n;
    }
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        et_connspan *s = &e->spans[e->nspans++];
        s->server = sat_sr_u32(r);
        s->open_ts = sat_sr_i64(r);
        s->close_ts = sat_sr_i64(r);
    }
    return sat_sr_status(r);
}

/* ---- abandons -------------------------------------------------------------------------------- */

static void abandons_save(const sat_etime *e, sat_sw *w)
{
    sat_sw_tag(w, "etime.abandons");
    sat_sw_u64(w, e->naband);
    for (size_t i = 0; i < e->naband; i++) {
        const et_abandon *a = &e->aband[i];
        sat_sw_i64(w, a->ts);
        sat_sw_i64(w, a->conn);
        sat_sw_i64(w, a->op);
        sat_sw_i64(w, a->target_op);
        sat_sw_str(w, a->client);
    }
}

/* Kept as the rows kept them: fewer than `top`, so each is appended in turn. */
static int abandons_load(sat_etime *e, sat_sr *r)
{
    if (sat_sr_tag(r, "etime.abandons") != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_count(r, 4 * 8 + 4);
    if (sat_sr_ok(r) && n > e->opts.top)
        return sat_sr_fail(r, SAT_E_CORRUPT, "etime.abandons: %llu kept of at most %zu",
                           (unsigned long long)n, e->opts.top);
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        int64_t ts = sat_sr_i64(r), conn = sat_sr_i64(r), op = sat_sr_i64(r),
                target = sat_sr_i64(r);
        char *client = sat_sr_str(r);
        if (sat_sr_ok(r) && (!client || strlen(client) >= sizeof e->aband[0].client))
            sat_sr_fail(r, SAT_E_CORRUPT, "etime.abandons: a client misread");
        if (sat_sr_ok(r)) {
            et_keep_abandon(e, ts, conn, op, target, sat_str_cstr(client));
            if (e->nomem)
                sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        }
        free(client);
    }
    return sat_sr_status(r);
}

/* ---- the analyzer ---------------------------------------------------------------------------- */

int sat_etime_save(const sat_etime *e, sat_sw *w)
{
    if (!e || !w)
        return SAT_E_USAGE;
    sat_sw_tag(w, "etime");
    sat_sw_u32(w, (uint32_t)e->opts.by);
    sat_sw_u64(w, e->opts.top);
    sat_sw_u64(w, e->opts.max_keys);
    sat_sw_u8(w, e->opts.during != 0);
    sat_sw_str(w, e->root_dn);
    sat_sw_u8(w, e->nomem != 0);
    sat_sw_u64(w, e->mem_peak);
    accs_save(e, w);
    series_save(w, "etime.minutes", &e->minutes, e->mwidth);
    conn_save(e, w);
    abandons_save(e, w);
    et_inputs_save(e, w);
    sat_sw_tag(w, "etime.fields");
    sat_sw_fields_seen(w, &e->fields);
    sat_sw_fields_seen(w, &e->http.fields);
    series_save(w, "etime.http", &e->http.series, e->http.width);
    int st = e->opts.during ? et_during_save(e, w) : SAT_OK;
    if (st == SAT_OK)
        st = sat_iops_save(e->iops, w);
    return st != SAT_OK ? st : sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

/* The options a partial was made with are this instance's. */
static int opts_check(const sat_etime *e, sat_sr *r)
{
    uint32_t by = sat_sr_u32(r);
    uint64_t top = sat_sr_u64(r), max_keys = sat_sr_u64(r);
    uint8_t during = sat_sr_u8(r);
    char *root = sat_sr_str(r);
    if (sat_sr_ok(r)) {
        if (by != (uint32_t)e->opts.by)
            sat_sr_fail(r, SAT_E_CORRUPT, "etime: made by %s, read by %s",
                        sat_etime_by_name((int)by), sat_etime_by_name(e->opts.by));
        else if (top != e->opts.top || max_keys != e->opts.max_keys)
            sat_sr_fail(r, SAT_E_CORRUPT,
                        "etime: made with top %llu and max_keys %llu, read with %zu and %zu",
                        (unsigned long long)top, (unsigned long long)max_keys, e->opts.top,
                        e->opts.max_keys);
        else if (during != (e->opts.during != 0))
            sat_sr_fail(r, SAT_E_CORRUPT, "etime: made %s the spans' summaries, read %s",
                        during ? "with" : "without", e->opts.during ? "with" : "without");
        else if (!root || strcmp(root, e->root_dn))
            sat_sr_fail(r, SAT_E_CORRUPT, "etime: made with the root DN '%.60s', read with '%.60s'",
                        root ? root : "(none)", e->root_dn);
    }
    free(root);
    return sat_sr_status(r);
}

int sat_etime_load(sat_etime *e, sat_sr *r)
{
    if (!e || !r)
        return SAT_E_USAGE;
    if (sat_sr_tag(r, "etime") != SAT_OK || opts_check(e, r) != SAT_OK)
        return r->err;
    uint8_t nomem = sat_sr_u8(r);
    uint64_t peak = sat_sr_u64(r);
    if (sat_sr_ok(r) && nomem > 1)
        return sat_sr_fail(r, SAT_E_CORRUPT, "etime: an out-of-memory flag of %u", nomem);
    e->nomem |= nomem;
    if (peak > e->mem_peak)
        e->mem_peak = (size_t)peak;
    e->finished = 0;
    if (accs_load(e, r) != SAT_OK ||
        series_load(r, "etime.minutes", &e->minutes, &e->mwidth, et_minutes_width_ok) != SAT_OK ||
        conn_load(e, r) != SAT_OK || abandons_load(e, r) != SAT_OK ||
        et_inputs_load(e, r) != SAT_OK || sat_sr_tag(r, "etime.fields") != SAT_OK ||
        sat_sr_fields_seen(r, &e->fields) != SAT_OK || sat_sr_fields_seen(r, &e->http.fields) != SAT_OK ||
        series_load(r, "etime.http", &e->http.series, &e->http.width, http_width_ok) != SAT_OK ||
        (e->opts.during && et_during_load(e, r) != SAT_OK) || sat_iops_load(e->iops, r) != SAT_OK)
        return sat_sr_status(r) ? r->err : sat_sr_fail(r, SAT_E_CORRUPT, "etime: misread");
    return sat_sr_status(r);
}
