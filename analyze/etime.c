/*
 * etime.c - the etime analyzer: where a directory server's time went.
 *
 * Spec: issue 2, "The etime analyzer and the first reports"; the sections of
 * logconv.pl's default report (389-ds-base) that can be computed from event
 * rows, done right where logconv.pl is wrong:
 *   - peak concurrency counts the opens and closes of ldap_conn rows (the
 *     joiner's running counts, or a sweep of their times for a 1.0 trace),
 *     so 2.1+ "Disconnect" close lines count like "closed" ones;
 *   - every note letter counts (notes=P,A is one P and one A);
 *   - timestamps come as ns from the parser, with or without a fraction;
 *   - every result code is kept (also > 97);
 *   - the root DN is compared case-insensitively (and blanks around ',' '='
 *     are ignored): "CN=Directory Manager" is a root DN bind;
 *   - an AUTOBIND and the BIND it introduces are one bind; SASL steps
 *     answered err=14 are folded into their final bind;
 *   - a slice without any etime reports nulls, never divides by zero.
 *
 * Rows are borrowed (event.h): every kept string is copied into a strtab's
 * arena on first insertion only. Memory is bounded whatever the span of the
 * input and the number of connections: per-group state is a quantile sketch
 * (sketch.h); high-cardinality tables are capped at max_keys (the rest folded
 * into "(other)" with an approximate count of the folded keys); the time
 * series keeps at most ET_BUCKETS_MAX buckets, one minute wide while that
 * covers the span, then merged into coarser ones (5, 15, 60 minutes, ...);
 * the peak of concurrent connections comes from the running counts that the
 * joiner puts on each ldap_conn row (event.h, SAT_CONNF_COUNTED), a few
 * bytes per server; LDAPI connections' bind bookkeeping is dropped once their
 * row has arrived. Only rows of a 1.0 trace (without those counts) still keep
 * 24 bytes per connection for a sweep of open/close times.
 *
 * The analyzer is one module over the files etime*.c, which share
 * etime_int.h (it says which file does what, and how the state is made of
 * accumulators). This file: create / free / merge, which walk the list of
 * accumulators below, and the per-row path of an operation.
 */
#include "etime_int.h"

/* ---- the counters ---------------------------------------------------------------- */

#define CNT(m) SAT_ACC(SAT_ACC_COUNT, et_counts, m),
#define RUN(m, ...) SAT_ACC_RUN(SAT_ACC_COUNT, et_counts, m),
#define REC(type, m) SAT_ACC_RUN(SAT_ACC_COUNT, et_counts, m),
static const sat_acc_field counts_fields[] = {
    ET_COUNTS(CNT, RUN, REC)
    SAT_ACC(SAT_ACC_MAX, et_counts, highest_fd),
    SAT_ACC(SAT_ACC_FIRST, et_counts, first_ts),
    SAT_ACC(SAT_ACC_LAST, et_counts, last_ts),
    SAT_ACC(SAT_ACC_FIRST, et_counts, cfirst_ts),
    SAT_ACC(SAT_ACC_LAST, et_counts, clast_ts),
};
#undef CNT
#undef RUN
#undef REC
const sat_rec_desc et_counts_desc = {sizeof(et_counts), counts_fields,
                                     sizeof counts_fields / sizeof counts_fields[0], NULL};

/* ---- the accumulators --------------------------------------------------------------
 * Every record and keyed table of the analyzer: create, free, merge, save
 * and load (etime_state.c) walk this list. The rest (the series, LDAPI
 * binds, 1.0 connection spans, abandons, inputs, internal operations) merge
 * in their own files. */

#define REC(m, n, d) {ET_ACC_REC, 0, (n), 0, offsetof(sat_etime, m), &(d)}
#define KEYED(m, cap, d, klen) {ET_ACC_KEYED, (cap), 1, (klen), offsetof(sat_etime, m), &(d)}
#define KTAB(m, d) {ET_ACC_KTAB, ET_CAP_KEYS, 1, 0, offsetof(sat_etime, m), &(d)}
const et_acc et_accs[] = {
    REC(c, 1, et_counts_desc),
    REC(optype, SAT_OP__COUNT, et_group_desc),
    REC(all, 1, et_group_desc),
    KTAB(groups, et_group_desc),
    KEYED(err_other, ET_CAP_NONE, et_code_desc, sizeof(int32_t)),
    KEYED(unidx, ET_CAP_UNINDEXED, et_unidx_desc, 0),
    KTAB(sasl_mechs, et_kv_desc),
    KTAB(failed_dn, et_kv_desc),
    KTAB(failed_client, et_kv_desc),
    KTAB(clients, et_use_desc),
    KTAB(bind_dns, et_kv_desc),
    KTAB(bases, et_use_desc),
    KTAB(filters, et_filt_desc),
    KTAB(shapes, et_use_desc),
    KTAB(users, et_use_desc),
    KTAB(ext_oids, et_kv_desc),
    KTAB(tls_versions, et_kv_desc),
    KTAB(attrs, et_kv_desc),
    KTAB(attr_lists, et_kv_desc),
    KEYED(peaks, ET_CAP_NONE, et_peak_desc, sizeof(uint32_t)),
    KEYED(epochs, ET_CAP_NONE, et_epoch_desc, sizeof(uint32_t)),
    KEYED(restart_kinds, ET_CAP_NONE, et_rkind_desc, 2 * sizeof(uint32_t)),
    REC(http.c, 1, et_hcounts_desc),
    REC(http.all, 1, et_group_desc),
    KTAB(http.methods, et_group_desc),
    KTAB(http.groups, et_group_desc),
    KTAB(http.clients, et_kv_desc),
    KTAB(http.not_found, et_kv_desc),
};
#undef REC
#undef KEYED
#undef KTAB
const size_t et_naccs = sizeof et_accs / sizeof et_accs[0];
#define NACCS (sizeof et_accs / sizeof et_accs[0])

static int accs_init(sat_etime *e)
{
    int st = SAT_OK;
    for (size_t i = 0; i < NACCS; i++) {
        const et_acc *a = &et_accs[i];
        size_t cap = et_acc_cap(e, a);
        unsigned char *p = (unsigned char *)et_acc_at(e, a);
        if (a->kind == ET_ACC_REC)
            for (size_t k = 0; k < a->n; k++)
                sat_rec_init(a->d, p + k * a->d->size);
        else if (a->kind == ET_ACC_KEYED ? sat_keyed_init((sat_keyed *)(void *)p, a->d, cap)
                                      : et_ktab_init((et_ktab *)(void *)p, a->d, cap))
            st = SAT_E_NOMEM;
    }
    return st;
}

static void accs_free(sat_etime *e)
{
    for (size_t i = 0; i < NACCS; i++) {
        const et_acc *a = &et_accs[i];
        unsigned char *p = (unsigned char *)et_acc_at(e, a);
        if (a->kind == ET_ACC_REC)
            for (size_t k = 0; k < a->n; k++)
                sat_rec_free(a->d, p + k * a->d->size);
        else if (a->kind == ET_ACC_KEYED)
            sat_keyed_free((sat_keyed *)(void *)p);
        else
            et_ktab_free((et_ktab *)(void *)p);
    }
}

static int accs_merge(sat_etime *into, const sat_etime *from)
{
    int st = SAT_OK;
    for (size_t i = 0; i < NACCS; i++) {
        const et_acc *a = &et_accs[i];
        unsigned char *p = (unsigned char *)et_acc_at(into, a);
        const unsigned char *q = (const unsigned char *)et_acc_at(from, a);
        int rc = SAT_OK;
        if (a->kind == ET_ACC_REC) {
            for (size_t k = 0; k < a->n; k++)
                if (sat_rec_merge(a->d, p + k * a->d->size, q + k * a->d->size) != SAT_OK)
                    rc = SAT_E_NOMEM;
        } else if (a->kind == ET_ACC_KEYED) {
            rc = sat_keyed_merge((sat_keyed *)(void *)p, (const sat_keyed *)(const void *)q);
        } else {
            rc = et_ktab_merge((et_ktab *)(void *)p, (const et_ktab *)(const void *)q);
        }
        if (rc != SAT_OK)
            st = SAT_E_NOMEM;
    }
    return st;
}

static size_t rec_bytes(const sat_rec_desc *d, const void *rec)
{
    size_t b = 0;
    for (size_t f = 0; f < d->nfields; f++)
        if (d->fields[f].kind == SAT_ACC_SKETCH)
            b += sat_qsketch_bytes(
                (const sat_qsketch *)(const void *)((const unsigned char *)rec + d->fields[f].off));
    return b;
}

static size_t keyed_bytes(const sat_keyed *k)
{
    size_t b = sat_strtab_bytes(&k->tab) + k->d->size + rec_bytes(k->d, k->other);
    int sketches = 0;
    for (size_t f = 0; f < k->d->nfields; f++)
        sketches |= k->d->fields[f].kind == SAT_ACC_SKETCH;
    for (size_t i = 0; sketches && i < sat_keyed_n(k); i++)
        b += rec_bytes(k->d, sat_keyed_rec(k, i));
    return b;
}

/* Heap bytes held (approximate; the peak is kept in mem_peak). */
size_t et_bytes(const sat_etime *e)
{
    size_t b = sizeof *e + sat_strtab_bytes(&e->minutes) + sat_strtab_bytes(&e->ldapi);
    for (size_t i = 0; i < e->minutes.n; i++)
        b += sat_qsketch_bytes(&((const et_group *)sat_strtab_val(&e->minutes, i))->q);
    for (size_t i = 0; i < NACCS; i++) {
        const et_acc *a = &et_accs[i];
        const unsigned char *p = (const unsigned char *)et_acc_at(e, a);
        if (a->kind == ET_ACC_REC) {
            for (size_t k = 0; k < a->n; k++)
                b += rec_bytes(a->d, p + k * a->d->size);
        } else {
            const sat_keyed *k = a->kind == ET_ACC_KEYED ? (const sat_keyed *)(const void *)p
                                                      : &((const et_ktab *)(const void *)p)->k;
            b += keyed_bytes(k);
        }
    }
    b += e->spancap * sizeof(et_connspan) + e->scratch_cap + sat_iops_bytes(e->iops);
    b += et_http_bytes(e) + et_during_bytes(e);
    return b;
}

/* ---- small helpers ---------------------------------------------------------------- */

int sat_etime_by_parse(const char *s)
{
    static const char *const names[] = {"none",   "op",       "base", "filter",
                                        "client", "binddn",   "conn", "minute",
                                        "internal", "path", "status", "method"};
    if (!s)
        return -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *sat_etime_by_name(int by)
{
    static const char *const names[] = {"op",     "op",       "base", "filter",
                                        "client", "binddn",   "conn", "minute",
                                        "internal", "path", "status", "method"};
    return (by >= 0 && by <= SAT_ETIME_BY_METHOD) ? names[by] : "?";
}

int et_scratch(sat_etime *e, size_t n)
{
    if (n <= e->scratch_cap)
        return 1;
    if (SAT_GROW(e->scratch, e->scratch_cap, n) != SAT_OK) {
        e->nomem = 1;
        return 0;
    }
    return 1;
}

/* DN normalised for comparisons and keys: ASCII lower case, blanks next to
 * ',' and '=' dropped, leading/trailing blanks dropped. Returns length. */
size_t et_norm_dn(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ') {
            /* drop if next to a separator, at the start or at the end */
            size_t j = i;
            while (j < n && s[j] == ' ')
                j++;
            if (o == 0 || j == n || s[j] == ',' || s[j] == '=' ||
                out[o - 1] == ',' || out[o - 1] == '=') {
                i = j - 1;
                continue;
            }
        }
        out[o++] = et_lower(c);
    }
    return o;
}

int et_is_root_dn(sat_etime *e, sat_str dn)
{
    if (!dn.ptr || dn.len == 0 || dn.len > 1024)
        return 0;
    char buf[1024];
    size_t n = et_norm_dn(dn.ptr, dn.len, buf);
    size_t rn = strlen(e->root_dn);
    return n == rn && memcmp(buf, e->root_dn, n) == 0;
}

int et_eq_nocase(sat_str s, const char *c)
{
    size_t n = strlen(c);
    if (!s.ptr || s.len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (et_lower(s.ptr[i]) != et_lower(c[i]))
            return 0;
    return 1;
}

/* ---- create / free / merge ------------------------------------------------------------ */

sat_etime *sat_etime_create(const sat_etime_opts *opts)
{
    sat_etime *e = (sat_etime *)calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (opts)
        e->opts = *opts;
    if (e->opts.by < 0 || e->opts.by > SAT_ETIME_BY_METHOD)
        e->opts.by = SAT_ETIME_BY_NONE;
    if (!e->opts.top)
        e->opts.top = ET_DEFAULT_TOP;
    if (!e->opts.max_keys)
        e->opts.max_keys = ET_DEFAULT_MAX_KEYS;
    const char *root = e->opts.root_dn ? e->opts.root_dn : "cn=directory manager";
    size_t rl = strlen(root);
    if (rl >= sizeof e->root_dn)
        rl = sizeof e->root_dn - 1;
    size_t n = et_norm_dn(root, rl, e->root_dn);
    e->root_dn[n] = '\0';
    e->opts.root_dn = NULL; /* not kept: the caller's string may go */

    int st = accs_init(e);
    e->c.highest_fd = SAT_ABSENT;
    sat_strtab_init(&e->minutes, sizeof(et_group), 0);
    sat_strtab_init(&e->during, ET_DSUM_SIZE, 0);
    e->mwidth = ET_MINUTE_NS;
    e->last_minute = INT64_MIN;
    sat_strtab_init(&e->ldapi, sizeof(et_ldapi), 0);
    e->iops = sat_iops_create(e->opts.max_keys);
    et_http_init(e);
    if (st != SAT_OK || !e->iops) {
        sat_etime_free(e);
        return NULL;
    }
    return e;
}

void sat_etime_free(sat_etime *e)
{
    if (!e)
        return;
    accs_free(e);
    et_minutes_free(e);
    et_during_free(e);
    et_conn_free(e);
    free(e->aband);
    et_inputs_free(e);
    free(e->scratch);
    sat_iops_free(e->iops);
    et_http_free(e);
    free(e);
}

int sat_etime_merge(sat_etime *into, const sat_etime *from)
{
    if (!into || !from || into == from)
        return SAT_E_USAGE;
    if (into->opts.by != from->opts.by)
        return SAT_E_USAGE;
    int was_finished = into->finished;
    into->finished = 0;
    int st = accs_merge(into, from);
    into->last_peak = NULL;
    if (et_minutes_merge(into, from) != SAT_OK || et_conn_merge(into, from) != SAT_OK ||
        et_abandons_merge(into, from) != SAT_OK || et_inputs_merge(into, from) != SAT_OK ||
        sat_iops_merge(into->iops, from->iops) != SAT_OK || et_http_merge(into, from) != SAT_OK ||
        et_during_merge(into, from) != SAT_OK)
        st = SAT_E_NOMEM;
    sat_fields_merge(&into->fields, &from->fields);
    sat_fields_merge(&into->http.fields, &from->http.fields);
    size_t b = et_bytes(into);
    if (b > into->mem_peak)
        into->mem_peak = b;
    if (st != SAT_OK || into->nomem) {
        into->nomem = 1;
        return SAT_E_NOMEM;
    }
    return was_finished ? sat_etime_finish(into) : SAT_OK;
}

/* After the last row (or merge): the attribute lists split into their
 * attributes; the result (etime_result.c) is written from the state. */
int sat_etime_finish(sat_etime *e)
{
    if (!e)
        return SAT_E_USAGE;
    e->finished = 0;
    et_flush_attr_lists(e);
    size_t b = et_bytes(e);
    if (b > e->mem_peak)
        e->mem_peak = b;
    if (e->nomem)
        return SAT_E_NOMEM;
    e->finished = 1;
    return SAT_OK;
}

/* ---- the per-row path ---------------------------------------------------------------- */
/* logconv.pl's counters that the row's flags and small numbers answer. Where
 * logconv.pl counts differently, this is the count it means:
 * - Total Results: it adds ABANDON lines to the RESULT lines; its Overall
 *   Performance divides that by its Total Operations, which leaves out
 *   the SASL steps (err=14) whose RESULTs it counted, counts an AUTOBIND
 *   and its BIND twice and a VLV search twice, so it reads low (and is cut
 *   at 100%). Here both sides count the same operations: every one that
 *   expects an answer (all but UNBIND and AUTOBIND), and those answered.
 * - Proxied Auth: it counts lines with " authzid=", so twice if the RESULT
 *   repeats it; here once per operation.
 * - VLV Operations: it counts VLV lines (one per operation, as here). */
static void count_more(et_more *m, const sat_ldap_op *op, int t, int has_result)
{
    if (t != SAT_OP_UNBIND && t != SAT_OP_AUTOBIND) {
        m->expect_result++;
        if (has_result || t == SAT_OP_ABANDON)
            m->answered++;
    }
    if (op->flags & SAT_OPF_PROXIED)
        m->proxied++;
    if (op->flags & SAT_OPF_VLV) {
        m->vlv++;
        if (op->notes & SAT_NOTE_A)
            m->vlv_unindexed++;
        if (op->notes & SAT_NOTE_U)
            m->vlv_unindexed_components++;
    }
    if (op->flags & SAT_OPF_SORT)
        m->sort++;
    m->entry_lines += op->entry_lines;
    m->referral_lines += op->referral_lines;
}

/* The next bucket width of the series: each divides the next, so buckets
 * merge whole, and all are aligned on the epoch (hours, UTC days). */

/* op's connection's slot of the memo (et_conn_memo), emptied when another
 * connection had it. */
static et_conn_memo *conn_memo_of(sat_etime *e, const sat_ldap_op *op)
{
    uint64_t h = (uint64_t)op->conn * 0x9e3779b97f4a7c15ULL ^
                 ((uint64_t)op->conn_epoch << 32 | op->server) * 0xc2b2ae3d27d4eb4fULL;
    et_conn_memo *m = &e->conn_memo[(h >> 40) & (ET_CONN_MEMO - 1)];
    if (m->conn != op->conn || m->server != op->server || m->epoch != op->conn_epoch)
        *m = (et_conn_memo){.conn = op->conn, .server = op->server, .epoch = op->conn_epoch};
    return m;
}

/* rec when the memo's key is key, else NULL */
static inline et_use *memo_hit(et_use *rec, const char *mkey, uint32_t mlen, sat_str key)
{
    return rec && key.len == mlen && memcmp(key.ptr, mkey, mlen) == 0 ? rec : NULL;
}

/* The usage record of key in k with op counted: hit (the memo's) counted
 * as a row of its key, else looked up by its hash h, and kept in the memo
 * (*mrec, *mkey, *mlen) when it is the key's own record. */
static et_use *memo_use(sat_etime *e, et_ktab *k, et_use *hit, sat_str key, uint64_t h,
                        const sat_ldap_op *op, et_use **mrec, const char **mkey, uint32_t *mlen)
{
    if (hit) {
        sat_keyed_again(hit);
        et_use_bump(hit, op);
        return hit;
    }
    et_use *u = et_ktab_use_h(e, k, key.ptr, key.len, h, op);
    if (u && u != (et_use *)k->k.other && key.len <= UINT32_MAX) {
        *mrec = u;
        *mkey = sat_keyed_last_key(&k->k);
        *mlen = (uint32_t)key.len;
    }
    return u;
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_etime *e = (sat_etime *)ctx;
    et_counts *c = &e->c;
    e->finished = 0;
    if (op->internal_depth > 0) {
        /* their time is inside their parent's etime: counting them again
         * would double the share of whatever triggered them; they are
         * attributed to it instead (internal_ops.c) */
        c->internal_ops++;
        if (sat_iops_internal(e->iops, op) < 0)
            e->nomem = 1;
        return SAT_OK;
    }
    if (sat_iops_external(e->iops, op) < 0)
        e->nomem = 1;
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    /* ABANDON, UNBIND and AUTOBIND are counted, never timed: 389 2.x writes
     * an etime on its ABANDON line, but that is the time to find the target,
     * not time the server spent on a client's request. */
    sat_ldap_op untimed;
    if ((t == SAT_OP_ABANDON || t == SAT_OP_UNBIND || t == SAT_OP_AUTOBIND) &&
        (op->etime >= 0 || op->wtime >= 0 || op->optime >= 0)) {
        untimed = *op;
        untimed.etime = untimed.wtime = untimed.optime = SAT_ABSENT;
        op = &untimed;
    }
    int has_result = op->err != SAT_ABSENT && !(op->flags & SAT_OPF_UNFINISHED);
    sat_ts_ns ts = op->ts_ns > 0 ? op->ts_ns : op->result_ts_ns;
    et_widen(&c->first_ts, &c->last_ts, ts);
    et_widen(&c->cfirst_ts, &c->clast_ts, ts);
    et_note_epoch(e, op->server, op->conn_epoch);

    /* The row's high-cardinality lookups (client, search base, filter, --by
     * key): hash them and prefetch their slots now, their entries after the
     * cheap work below, and use them last, so their cache misses overlap
     * instead of queueing (strtab.h). */
    sat_str kc = op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                        : sat_str_cstr("(unknown)");
    sat_str ku = !op->bind_dn.ptr ? sat_str_cstr("(unknown)")
                 : op->bind_dn.len ? op->bind_dn
                                   : sat_str_cstr("(anonymous)");
    et_conn_memo *cm = conn_memo_of(e, op);
    et_use *cu = memo_hit(cm->client, cm->ckey, cm->clen, kc);
    et_use *uu = memo_hit(cm->user, cm->ukey, cm->ulen, ku);
    uint64_t hc = 0, hu = 0;
    if (!cu) {
        hc = sat_strtab_hash(kc.ptr, kc.len);
        sat_strtab_prefetch(&e->clients.k.tab, hc);
    }
    if (!uu) {
        hu = sat_strtab_hash(ku.ptr, ku.len);
        sat_strtab_prefetch(&e->users.k.tab, hu);
    }
    sat_str kb = SAT_STR_NONE, kf = SAT_STR_NONE;
    uint64_t hb = 0, hf = 0;
    if (t == SAT_OP_SRCH) {
        if (op->dn.ptr)
            kb = op->dn.len ? op->dn : sat_str_cstr("(root DSE)");
        if (op->filter.ptr)
            kf = op->filter;
        if (kb.ptr) {
            hb = sat_strtab_hash(kb.ptr, kb.len);
            sat_strtab_prefetch(&e->bases.k.tab, hb);
        }
        if (kf.ptr) {
            hf = sat_strtab_hash(kf.ptr, kf.len);
            sat_strtab_prefetch(&e->filters.k.tab, hf);
        }
    }
    char kbuf[sizeof(et_connkey)];
    sat_str kg = SAT_STR_NONE;
    uint64_t hg = 0;
    if (e->opts.by != SAT_ETIME_BY_NONE && e->opts.by != SAT_ETIME_BY_OP &&
        e->opts.by != SAT_ETIME_BY_MINUTE && e->opts.by != SAT_ETIME_BY_INTERNAL &&
        e->opts.by < SAT_ETIME_BY_PATH) {
        kg = et_group_key(e, op, kbuf); /* may live in e->scratch: used before
                                           anything else writes there */
        hg = sat_strtab_hash(kg.ptr, kg.len);
        sat_strtab_prefetch(&e->groups.k.tab, hg);
    }

    c->ops++;
    int from_etime;
    if (et_work_of(op, &from_etime) >= 0) {
        c->worked++;
        c->work_etime += (uint64_t)from_etime;
    }
    if (op->flags & SAT_OPF_UNFINISHED)
        c->unfinished++;
    if (op->flags & SAT_OPF_NO_REQUEST)
        c->no_request++;
    et_grp_add(e, &e->optype[t], op, has_result);
    if (has_result) {
        c->results++;
        et_grp_add(e, &e->all, op, 1);
        if (op->err >= 0 && op->err < ET_ERR_FAST)
            c->err_fast[op->err]++;
        else
            et_count_err_other(e, op->err);
    }

    /* per-minute series (always: the text report draws it) */
    if (ts > 0) {
        int64_t w = ts / e->mwidth; /* window index */
        et_group *mg = w == e->last_minute ? e->last_minute_grp : et_minute_at(e, w);
        if (mg)
            et_grp_add(e, mg, op, has_result);
        if (e->minutes.n > ET_BUCKETS_MAX)
            et_minutes_bound(e);
    }

    if (!cu)
        sat_strtab_prefetch_entry(&e->clients.k.tab, hc);
    if (!uu)
        sat_strtab_prefetch_entry(&e->users.k.tab, hu);
    if (kb.ptr)
        sat_strtab_prefetch_entry(&e->bases.k.tab, hb);
    if (kf.ptr)
        sat_strtab_prefetch_entry(&e->filters.k.tab, hf);
    if (kg.ptr)
        sat_strtab_prefetch_entry(&e->groups.k.tab, hg);

    /* --by groups */
    if (kg.ptr) {
        et_group *g = (et_group *)et_ktab_at_h(e, &e->groups, kg.ptr, kg.len, hg);
        if (g)
            et_grp_add(e, g, op, has_result);
    }

    for (int b = 0; b < 7; b++)
        if (op->notes & (1u << b))
            c->notes[b]++;
    count_more(&c->more, op, t, has_result);
    if (op->flags & SAT_OPF_PERSISTENT)
        c->persistent++;
    if ((op->flags & SAT_OPF_PAGED) || (op->notes & SAT_NOTE_P))
        c->paged++;
    if (op->nentries > 0)
        c->entries += (uint64_t)op->nentries;

    /* the records of the usage tables: shapes, clients, users, bases */
    const void *urec[4] = {NULL, NULL, NULL, NULL};
    urec[1] = memo_use(e, &e->clients, cu, kc, hc, op, &cm->client, &cm->ckey, &cm->clen);
    urec[2] = memo_use(e, &e->users, uu, ku, hu, op, &cm->user, &cm->ukey, &cm->ulen);

    switch (t) {
    case SAT_OP_SRCH:
        if (kb.ptr)
            urec[3] = et_ktab_use_h(e, &e->bases, kb.ptr, kb.len, hb, op);
        if (kf.ptr) {
            et_filt *fv = (et_filt *)et_ktab_at_h(e, &e->filters, kf.ptr, kf.len, hf);
            if (fv) {
                et_kv_bump(&fv->v, op);
                urec[0] = et_shape_add(e, fv, hf, op);
            }
        }
        /* logconv.pl's Entire Search Base Queries. It matches
         * "objectclass=*" or "objectclass=top" anywhere in a scope=2 line,
         * so it also counts (&(objectClass=top)(uid=x)), which selects one
         * entry; here only the match-everything filters count. */
        if (op->scope == SAT_SCOPE_SUB &&
            (et_eq_nocase(op->filter, "(objectclass=*)") ||
             et_eq_nocase(op->filter, "(objectclass=top)")))
            c->whole_base++;
        if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
            et_on_unindexed(e, op);
        if (op->attrs.ptr && op->attrs.len)
            et_ktab_add(e, &e->attr_lists, op->attrs.ptr, op->attrs.len, op);
        break;
    case SAT_OP_BIND:
        et_on_bind(e, op);
        break;
    case SAT_OP_AUTOBIND:
        c->autobinds++;
        et_on_autobind(e, op);
        break;
    case SAT_OP_EXT:
        c->ext_ops++;
        et_count_ext(e, op);
        break;
    case SAT_OP_ABANDON:
        c->abandons++;
        et_keep_abandon(e, ts, op->conn, op->op, op->target_op, op->client_ip);
        break;
    case SAT_OP_UNBIND:
        c->unbinds++;
        break;
    default:
        break;
    }
    if (e->opts.during)
        et_during_add(e, op, urec);

    if (c->ops >= e->mem_check_at) {
        e->mem_check_at = c->ops + (1u << 20);
        size_t b = et_bytes(e);
        if (b > e->mem_peak)
            e->mem_peak = b;
    }
    return e->nomem ? SAT_E_NOMEM : SAT_OK;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return et_on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_REJECT:
        return et_on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return et_on_conn(ctx, (const sat_ldap_conn *)row);
    case SAT_TABLE_HTTP_REQ:
        return et_on_http(ctx, (const sat_http_req *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_etime_sink(sat_etime *e)
{
    sat_event_sink s = {e,
                        SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ),
                        on_row};
    return s;
}
