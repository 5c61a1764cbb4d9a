/*
 * etime_conn.c - the etime analyzer's connections (ldap_conn rows): by
 * listener and close code, file descriptors, TLS versions, peak concurrency
 * (the joiner's running counts, or a sweep of open/close times for a 1.0
 * trace), restarts; and binds, whose LDAPI AUTOBIND/BIND pairing needs the
 * connection's end. The rules are in etime.c.
 */
#include "etime_int.h"

static const sat_acc_field epoch_fields[] = {SAT_ACC(SAT_ACC_MAX, et_epoch, max)};
const sat_rec_desc et_epoch_desc = {sizeof(et_epoch), epoch_fields, 1, NULL};

/* The kind a later part of the input took for a restart is the one kept,
 * as one pass over the rows in order keeps the last row's. */
static int rkind_merge_extra(void *into, const void *from)
{
    if (((const et_rkind *)from)->kind)
        ((et_rkind *)into)->kind = ((const et_rkind *)from)->kind;
    return SAT_OK;
}
/* no field of a kind acc.h knows: an empty list (not NULL: acc.c walks it) */
static const sat_acc_field rkind_none[1] = {SAT_ACC(SAT_ACC_BITS, et_rkind, kind)};
const sat_rec_desc et_rkind_desc = {sizeof(et_rkind), rkind_none, 0, rkind_merge_extra};

/* The best opening: the highest count, at equal counts the earliest. Exact
 * when the two results are of different servers (several hosts). Two parts
 * of one server's log were joined apart, and neither joiner saw the other's
 * connections: the result is then an estimate, at least the larger part's
 * peak (each part's connections without an open line count from the
 * start). */
static int peak_merge_extra(void *into, const void *from)
{
    et_peak *p = (et_peak *)into;
    const et_peak *s = (const et_peak *)from;
    if (s->has &&
        (!p->has || s->best > p->best || (s->best == p->best && s->best_at < p->best_at))) {
        p->best = s->best;
        p->best_at = s->best_at;
        p->has = 1;
    }
    return SAT_OK;
}
static const sat_acc_field peak_fields[] = {SAT_ACC(SAT_ACC_COUNT, et_peak, no_open)};
const sat_rec_desc et_peak_desc = {sizeof(et_peak), peak_fields, 1, peak_merge_extra};

/* `done` is not merged as a field: it moves the entry's contribution into
 * the totals (et_conn_merge). */
static const sat_acc_field ldapi_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, et_ldapi, autobinds),
    SAT_ACC(SAT_ACC_COUNT, et_ldapi, autobinds_root),
    SAT_ACC(SAT_ACC_COUNT, et_ldapi, binds),
    SAT_ACC(SAT_ACC_COUNT, et_ldapi, binds_root),
};
const sat_rec_desc et_ldapi_desc = {sizeof(et_ldapi), ldapi_fields,
                                    sizeof ldapi_fields / sizeof ldapi_fields[0], NULL};

static int contains(sat_str h, const char *needle)
{
    size_t nl = strlen(needle);
    if (!h.ptr || h.len < nl)
        return 0;
    for (size_t i = 0; i + nl <= h.len; i++)
        if (h.ptr[i] == needle[0] && memcmp(h.ptr + i, needle, nl) == 0)
            return 1;
    return 0;
}

/* ---- restarts ---------------------------------------------------------------------- */

void et_note_epoch_(sat_etime *e, uint32_t server, uint32_t epoch)
{
    et_epoch *m = (et_epoch *)sat_keyed_at(&e->epochs, &server, sizeof server, NULL);
    if (!m) {
        e->nomem = 1;
        return;
    }
    sat_acc_max(&m->max, epoch);
}

static void note_restart_kind(sat_etime *e, uint32_t server, uint32_t epoch, uint8_t kind)
{
    uint32_t key[2] = {server, epoch};
    et_rkind *k = (et_rkind *)sat_keyed_at(&e->restart_kinds, key, sizeof key, NULL);
    if (!k) {
        e->nomem = 1;
        return;
    }
    k->kind = kind;
}

/* A row a restart ended says what was taken for it, and so does the row
 * whose open line was taken for one. */
static void note_restart_row(sat_etime *e, const sat_ldap_conn *c)
{
    static const char start[] = "server restart: the server's start line";
    static const char number[] = "server restart: conn=";
    if ((c->flags & SAT_CONNF_RESTART_OPEN) && c->conn_epoch > 0)
        note_restart_kind(e, c->server, c->conn_epoch - 1, RK_NUMBER);
    if (!(c->flags & SAT_CONNF_RESTART) || !c->close_reason.ptr)
        return;
    if (c->close_reason.len >= sizeof start - 1 &&
        memcmp(c->close_reason.ptr, start, sizeof start - 1) == 0)
        note_restart_kind(e, c->server, c->conn_epoch, RK_START_LINE);
    else if (c->close_reason.len >= sizeof number - 1 &&
             memcmp(c->close_reason.ptr, number, sizeof number - 1) == 0)
        note_restart_kind(e, c->server, c->conn_epoch, RK_NUMBER);
}

/* ---- LDAPI binds ---------------------------------------------------------------------- */

static uint64_t ldapi_contrib(const et_ldapi *l, int root)
{
    uint64_t a = root ? l->autobinds_root : l->autobinds, b = root ? l->binds_root : l->binds;
    return a > b ? a - b : 0;
}

/* Drops the LDAPI entries of connections whose row has arrived (their
 * contribution is in ldapi_extra*), so the table holds open connections. */
static void ldapi_compact(sat_etime *e)
{
    sat_strtab nt;
    sat_strtab_init(&nt, sizeof(et_ldapi), 0);
    for (size_t i = 0; i < e->ldapi.n; i++) {
        const et_ldapi *l = (const et_ldapi *)sat_strtab_val(&e->ldapi, i);
        if (l->done)
            continue;
        et_ldapi *d = (et_ldapi *)sat_strtab_upsert(&nt, sat_strtab_key(&e->ldapi, i),
                                                    sat_strtab_len(&e->ldapi, i), NULL, NULL);
        if (!d) {
            e->nomem = 1;
            sat_strtab_free(&nt);
            return;
        }
        *d = *l;
    }
    sat_strtab_free(&e->ldapi);
    e->ldapi = nt;
    e->ldapi_done = 0;
}

/* The connection is over: its AUTOBIND/BIND pairing is final (a RESULT
 * logged after the close still adjusts it while the entry is kept). */
static void ldapi_conn_done(sat_etime *e, const sat_ldap_conn *c)
{
    et_connkey k = et_conn_key(c->server, c->conn_epoch, c->conn);
    et_ldapi *l = (et_ldapi *)sat_strtab_find(&e->ldapi, &k, sizeof k);
    if (!l || l->done)
        return;
    l->done = 1;
    e->c.ldapi_extra += ldapi_contrib(l, 0);
    e->c.ldapi_extra_root += ldapi_contrib(l, 1);
    if (++e->ldapi_done > ET_LDAPI_DONE_MAX && e->ldapi_done > e->ldapi.n / 2)
        ldapi_compact(e);
}

static void ldapi_note(sat_etime *e, const sat_ldap_op *op, int autobind, int root)
{
    et_connkey k = et_conn_key(op->server, op->conn_epoch, op->conn);
    int is_local = op->client_ip.ptr && op->client_ip.len == 5 &&
                   memcmp(op->client_ip.ptr, "local", 5) == 0;
    et_ldapi *l;
    if (autobind || is_local)
        l = (et_ldapi *)sat_strtab_upsert(&e->ldapi, &k, sizeof k, NULL, NULL);
    else
        l = (et_ldapi *)sat_strtab_find(&e->ldapi, &k, sizeof k);
    if (!l) {
        if (autobind || is_local)
            e->nomem = 1;
        return;
    }
    if (l->done) { /* a RESULT after the close: its contribution changes */
        e->c.ldapi_extra -= ldapi_contrib(l, 0);
        e->c.ldapi_extra_root -= ldapi_contrib(l, 1);
    }
    if (autobind) {
        l->autobinds++;
        l->autobinds_root += root ? 1u : 0u;
    } else {
        l->binds++;
        l->binds_root += root ? 1u : 0u;
    }
    if (l->done) {
        e->c.ldapi_extra += ldapi_contrib(l, 0);
        e->c.ldapi_extra_root += ldapi_contrib(l, 1);
    }
}

/* Entries of both parts add up; the contributions of done ones left the
 * totals with the counters' merge, and re-enter for the sum. */
static int ldapi_merge(sat_etime *e, const sat_etime *from)
{
    et_counts *c = &e->c;
    for (size_t i = 0; i < from->ldapi.n; i++) {
        const et_ldapi *s = (const et_ldapi *)sat_strtab_val(&from->ldapi, i);
        et_ldapi *l = (et_ldapi *)sat_strtab_upsert(&e->ldapi, sat_strtab_key(&from->ldapi, i),
                                                    sat_strtab_len(&from->ldapi, i), NULL, NULL);
        if (!l)
            return SAT_E_NOMEM;
        if (l->done) {
            c->ldapi_extra -= ldapi_contrib(l, 0);
            c->ldapi_extra_root -= ldapi_contrib(l, 1);
        }
        if (s->done) {
            c->ldapi_extra -= ldapi_contrib(s, 0);
            c->ldapi_extra_root -= ldapi_contrib(s, 1);
        }
        sat_rec_merge(&et_ldapi_desc, l, s);
        if (s->done && !l->done) {
            l->done = 1;
            e->ldapi_done++;
        }
        if (l->done) {
            c->ldapi_extra += ldapi_contrib(l, 0);
            c->ldapi_extra_root += ldapi_contrib(l, 1);
        }
    }
    return SAT_OK;
}

/* ---- binds ------------------------------------------------------------------------------ */

static sat_str dn_key(sat_etime *e, sat_str dn)
{
    if (!dn.ptr)
        return sat_str_cstr("(unknown)");
    if (dn.len == 0)
        return sat_str_cstr("(anonymous)");
    if (!et_scratch(e, dn.len + 1))
        return sat_str_cstr("(unknown)");
    return sat_str_make(e->scratch, et_norm_dn(dn.ptr, dn.len, e->scratch));
}

void et_on_autobind(sat_etime *e, const sat_ldap_op *op)
{
    ldapi_note(e, op, 1, et_is_root_dn(e, op->dn));
}

void et_on_bind(sat_etime *e, const sat_ldap_op *op)
{
    et_counts *c = &e->c;
    if ((op->flags & SAT_OPF_SASL_INPROGRESS) || op->err == 14) {
        c->sasl_steps++; /* folded into the final step of the same bind */
        return;
    }
    c->binds++;
    /* logconv.pl counts version=3 lines and takes the SASL steps off, but
     * also counts an AUTOBIND's BIND: the same rule as binds here */
    if (op->flags & SAT_OPF_BIND_V3)
        c->more.binds_v3++;
    else if (op->flags & SAT_OPF_BIND_V2)
        c->more.binds_v2++;
    int root = et_is_root_dn(e, op->dn);
    if (!op->method.ptr || et_eq_nocase(op->method, "SIMPLE")) {
        if (op->dn.ptr && op->dn.len == 0)
            c->binds_anon++;
        else
            c->binds_simple++;
    } else {
        c->binds_sasl++;
        char mech[64];
        size_t n = op->method.len < sizeof mech ? op->method.len : sizeof mech;
        for (size_t i = 0; i < n; i++) {
            char ch = op->method.ptr[i];
            mech[i] = (ch >= 'a' && ch <= 'z') ? (char)(ch - 32) : ch;
        }
        et_ktab_add(e, &e->sasl_mechs, mech, n, op);
    }
    if (root)
        c->binds_root++;
    sat_str dk = dn_key(e, op->dn);
    et_ktab_add(e, &e->bind_dns, dk.ptr, dk.len, op);
    if (op->err == 49) {
        c->binds_failed++;
        dk = dn_key(e, op->dn);
        et_ktab_add(e, &e->failed_dn, dk.ptr, dk.len, op);
        sat_str cl = op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                            : sat_str_cstr("(unknown)");
        et_ktab_add(e, &e->failed_client, cl.ptr, cl.len, op);
    }
    ldapi_note(e, op, 0, root);
}

/* ---- connections ---------------------------------------------------------------------- */

static void peak_note(et_peak *p, const sat_ldap_conn *c)
{
    if (c->open_ts <= 0) {
        p->no_open++;
        return;
    }
    int64_t d = (int64_t)c->concurrent - (int64_t)c->preopen_closed;
    if (!p->has || d > p->best || (d == p->best && c->open_ts < p->best_at)) {
        p->best = d;
        p->best_at = c->open_ts;
        p->has = 1;
    }
}

int et_on_conn(void *ctx, const sat_ldap_conn *c)
{
    sat_etime *e = (sat_etime *)ctx;
    et_counts *n = &e->c;
    e->finished = 0;
    n->conns++;
    n->by_listener[c->listener < SAT_LISTENER__COUNT ? c->listener : 0]++;
    int closed = c->close_ts > 0 || (c->close_code != SAT_CLOSE_NONE &&
                                     !(c->flags & SAT_CONNF_UNCLOSED));
    if (c->close_code < SAT_CLOSE__COUNT && c->close_code != SAT_CLOSE_NONE)
        n->by_close[c->close_code]++;
    else if (closed)
        n->by_close[SAT_CLOSE_OTHER]++;
    if (!closed)
        n->conns_unclosed++;
    if (!c->open_ts)
        n->conns_no_open++;
    if (c->fd >= 0) {
        n->fds_taken++;
        if (closed)
            n->fds_returned++;
        sat_acc_max(&n->highest_fd, c->fd);
    }
    if (contains(c->close_reason, "error 32") || contains(c->close_reason, "Broken pipe"))
        n->broken_pipe++;
    if (contains(c->close_reason, "error 104") ||
        contains(c->close_reason, "reset by peer"))
        n->reset_by_peer++;
    if (contains(c->close_reason, "error 11 ") || contains(c->close_reason, "error 11)") ||
        contains(c->close_reason, "Resource temporarily unavailable"))
        n->resource_unavail++;
    if (c->close_code == SAT_CLOSE_B2)
        n->max_ber++;
    if (c->flags & SAT_CONNF_CERT_BOUND)
        n->more.cert_binds++;
    if (c->flags & SAT_CONNF_CERT_MAP_FAILED)
        n->more.cert_map_failed++;
    /* "TLS1.3 256-bit AES-GCM", as logconv.pl's Secure Protocol Versions;
     * it counts TLS lines, this counts connections (a connection logs its
     * TLS line once, so the two agree) */
    if (c->tls_version.ptr && c->tls_version.len) {
        size_t vl = c->tls_version.len, cl = c->tls_cipher.ptr ? c->tls_cipher.len : 0;
        if (cl && et_scratch(e, vl + 1 + cl)) {
            memcpy(e->scratch, c->tls_version.ptr, vl);
            e->scratch[vl] = ' ';
            memcpy(e->scratch + vl + 1, c->tls_cipher.ptr, cl);
            et_ktab_add(e, &e->tls_versions, e->scratch, vl + 1 + cl, NULL);
        } else {
            et_ktab_add(e, &e->tls_versions, c->tls_version.ptr, vl, NULL);
        }
    }
    et_note_epoch(e, c->server, c->conn_epoch);
    note_restart_row(e, c);
    et_widen(&n->cfirst_ts, &n->clast_ts, c->open_ts);
    et_widen(&n->cfirst_ts, &n->clast_ts, c->close_ts);
    if (e->ldapi.n)
        ldapi_conn_done(e, c);

    if (c->flags & SAT_CONNF_COUNTED) {
        /* the joiner counted it: a few bytes per server, not per connection */
        et_peak *p = e->last_peak;
        if (!p || c->server != e->last_peak_server) {
            p = (et_peak *)sat_keyed_at(&e->peaks, &c->server, sizeof c->server, NULL);
            if (!p)
                return SAT_E_NOMEM;
            e->last_peak = p;
            e->last_peak_server = c->server;
        }
        peak_note(p, c);
        return e->nomem ? SAT_E_NOMEM : SAT_OK;
    }
    /* a row of a 1.0 trace: kept for the sweep at finish */
    if (SAT_GROW(e->spans, e->spancap, e->nspans + 1) != SAT_OK)
        return SAT_E_NOMEM;
    et_connspan *s = &e->spans[e->nspans++];
    s->server = c->server;
    s->open_ts = c->open_ts > 0 ? c->open_ts : 0;
    s->close_ts = closed && c->close_ts > 0 ? c->close_ts : 0;
    return e->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* The spans of a 1.0 trace's rows, and the LDAPI binds. */
int et_conn_merge(sat_etime *into, const sat_etime *from)
{
    if (from->nspans) {
        if (SAT_GROW(into->spans, into->spancap, into->nspans + from->nspans) != SAT_OK)
            return SAT_E_NOMEM;
        memcpy(into->spans + into->nspans, from->spans, from->nspans * sizeof(et_connspan));
        into->nspans += from->nspans;
    }
    return ldapi_merge(into, from);
}

void et_conn_free(sat_etime *e)
{
    sat_strtab_free(&e->ldapi);
    free(e->spans);
    e->spans = NULL;
}

/* ---- figures made at output: restarts, the peak, binds ------------------------------------ */

static int cmp_i64v(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_span_server(const void *a, const void *b)
{
    const et_connspan *x = (const et_connspan *)a, *y = (const et_connspan *)b;
    return (x->server > y->server) - (x->server < y->server);
}

/* Peak concurrent connections per server, the max over servers. A
 * connection whose open line is not in the input was open when the input
 * began; one not closed is open until its end. At equal times closes come
 * before opens, so a connection closing as another opens is not a peak. */
static int sweep_peak(const sat_etime *e, uint64_t *peak, sat_ts_ns *peak_at)
{
    *peak = 0;
    *peak_at = 0;
    if (!e->nspans)
        return SAT_OK;
    /* a copy: the state stays as it is (it may be merged, and finished again) */
    et_connspan *spans = (et_connspan *)malloc(e->nspans * sizeof *spans);
    int64_t *ev = (int64_t *)malloc(e->nspans * 2 * sizeof *ev);
    if (!ev || !spans) {
        free(ev);
        free(spans);
        return SAT_E_NOMEM;
    }
    memcpy(spans, e->spans, e->nspans * sizeof *spans);
    qsort(spans, e->nspans, sizeof *spans, cmp_span_server);
    size_t i = 0;
    while (i < e->nspans) {
        size_t j = i, n = 0;
        while (j < e->nspans && spans[j].server == spans[i].server) {
            const et_connspan *s = &spans[j];
            int64_t o = s->open_ts > 0 ? s->open_ts * 2 + 1 : INT64_MIN + 1;
            int64_t c = s->close_ts > 0 ? s->close_ts * 2 : INT64_MAX - 1;
            if (c < o - 1 && s->open_ts > 0 && s->close_ts > 0)
                c = o - 1; /* closed before opened: bad clock, zero length */
            ev[n++] = o;
            ev[n++] = c;
            j++;
        }
        qsort(ev, n, sizeof *ev, cmp_i64v);
        uint64_t cur = 0;
        for (size_t k = 0; k < n; k++) {
            int open = ev[k] == INT64_MIN + 1 || (ev[k] != INT64_MAX - 1 && (ev[k] & 1));
            if (open) {
                cur++;
                if (cur > *peak) {
                    *peak = cur;
                    *peak_at = ev[k] == INT64_MIN + 1 ? e->c.cfirst_ts : ev[k] / 2;
                }
            } else if (cur) {
                cur--;
            }
        }
        i = j;
    }
    free(ev);
    free(spans);
    return SAT_OK;
}

/* The peak from counted rows (event.h): per server, the connections
 * without an open line are open from the start, so the count at a row's
 * opening is its concurrent - preopen_closed plus all of them; the peak is
 * at the start when no opening rises above them. The same figure as the
 * sweep above gives over the same rows (closes and opens at one timestamp in
 * the order logged rather than closes first), without keeping the rows.
 * Servers as in the sweep: the max, ties to the lower server index. */
static void counted_peak(const sat_etime *e, uint64_t *peak, sat_ts_ns *peak_at)
{
    uint32_t best_server = UINT32_MAX;
    int from_sweep = *peak > 0;
    for (size_t i = 0; i < sat_keyed_n(&e->peaks); i++) {
        const et_peak *p = (const et_peak *)sat_keyed_rec(&e->peaks, i);
        uint32_t server;
        memcpy(&server, sat_keyed_key(&e->peaks, i), sizeof server);
        int rises = p->has && p->best > 0;
        uint64_t pk = p->no_open + (rises ? (uint64_t)p->best : 0);
        if (pk > *peak || (pk == *peak && pk > 0 && !from_sweep && server < best_server)) {
            *peak = pk;
            *peak_at = rises ? p->best_at : e->c.cfirst_ts;
            best_server = server;
            from_sweep = 0;
        }
    }
}

/* Connections, peak concurrency, restarts, what the inputs can hold, binds. */
int et_conn_figures(const sat_etime *e, et_conn_figs *f)
{
    memset(f, 0, sizeof *f);
    const et_counts *c = &e->c;
    for (size_t i = 0; i < sat_keyed_n(&e->epochs); i++)
        f->restarts += (uint64_t)((const et_epoch *)sat_keyed_rec(&e->epochs, i))->max;
    for (size_t i = 0; i < sat_keyed_n(&e->restart_kinds); i++) {
        uint64_t k = ((const et_rkind *)sat_keyed_rec(&e->restart_kinds, i))->kind;
        if (k == RK_START_LINE)
            f->restarts_start_line++;
        else if (k == RK_NUMBER)
            f->restarts_number++;
    }
    if (sweep_peak(e, &f->peak, &f->peak_at) < 0)
        return SAT_E_NOMEM;
    counted_peak(e, &f->peak, &f->peak_at);

    /* binds: an AUTOBIND not followed by a BIND on its connection is a bind
     * of its own; with one, the pair is one bind */
    uint64_t extra = c->ldapi_extra, extra_root = c->ldapi_extra_root;
    for (size_t i = 0; i < e->ldapi.n; i++) {
        const et_ldapi *l = (const et_ldapi *)sat_strtab_val(&e->ldapi, i);
        if (!l->done) {
            extra += ldapi_contrib(l, 0);
            extra_root += ldapi_contrib(l, 1);
        }
    }
    f->binds = c->binds + extra;
    f->binds_root = c->binds_root + extra_root;
    return SAT_OK;
}
