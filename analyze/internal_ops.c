/*
 * internal_ops.c - what a directory server's internal operations were, and
 * which client operation they were for (389 Directory Server: plugins such as
 * memberOf, referential integrity, attribute uniqueness, DNA or schema-compat
 * run searches and modifies of their own inside a client's ADD or MOD).
 *
 * How 389-ds-base 2.x logs them (access-log level 4, nsslapd-plugin-logging
 * on), as a real 2.3.1 log has them:
 *   conn=14 (Internal) op=1(3)(1) SRCH ...   run for conn=14's op=1: X = 3 is
 *                                            its number among op=1's internal
 *                                            operations, Y = 1 its depth;
 *   conn=14 (Internal) op=1(3)(2) SRCH ...   nested in the one above: same X,
 *                                            Y + 1 (memberOf searching while
 *                                            it searches);
 *   conn=Internal(0) op=0(188)(1) SRCH ...   the server's own (start-up,
 *                                            its threads): no client operation.
 * Each one's RESULT is logged before the RESULT of the operation around it,
 * so the joiner emits a nested row before the row of the one around it and
 * every internal row before its client operation's row. The rules here:
 *   - an internal row with a connection (conn > 0) waits for the client row
 *     of the same (server, epoch, conn, op); when that arrives, the waiting
 *     rows are its internal operations; rows still waiting at the end belong
 *     to "(not in the input)" (the client operation was cut off by the start
 *     or the end of the input);
 *   - a server row (conn 0) waits, by its X, for the depth-1 row of the same
 *     X: together they are one operation of "(server)";
 *   - among the rows of one client operation, in the order they arrive, a row
 *     of depth d encloses the rows of depth d + 1 that arrived after the
 *     previous row of depth <= d: the nesting is rebuilt from the log order
 *     and the depths alone (the operations of one client operation run one at
 *     a time on its thread); a nested row whose enclosing row is not in the
 *     input hangs directly under its client operation with its own depth;
 *   - a client operation is grouped by type and base: its search base (the
 *     entry's DN shape for a scope=base search), or for ADD/MOD/DEL/MODRDN/
 *     CMP the shape of its entry's DN: the first RDN's value replaced by '*'
 *     (uid=*,ou=people,dc=example,dc=com), since every entry's DN is its own
 *     and plugins are configured per subtree; internal rows are grouped the
 *     same way, plus their scope and filter shape, under the row enclosing
 *     them;
 *   - time: an internal operation's etime is inside its client operation's
 *     (plugins run within the operation), so the share of a group is the
 *     summed etime of its outermost internal operations over the summed
 *     etime of the client operations that ran them; nested rows' times are
 *     inside their enclosing row's and are shown, never added again.
 * Memory: waiting rows are one small allocation each until their client
 * operation arrives (the next few lines of the log), at most
 * IOPS_PENDING_MAX of them; rows and groups are capped by max_keys. Past a
 * cap an internal operation is counted as unattributed.
 * Merging parts of one input: the first IOPS_HEAD attributions of a part
 * (client operations, whether rows waited for them or not, and the server's
 * own) keep their rows unresolved until the part is finished or merged, so
 * that rows the part before it still holds for the same operation join
 * them in log order (nesting and counts as one pass); rows waiting at a
 * part's end carry over into the merged result (internal_ops_int.h).
 */
#include "internal_ops_int.h"
#include "acc.h"

/* ---- create / free ------------------------------------------------------------ */
sat_iops *sat_iops_create(size_t max_keys)
{
    sat_iops *a = (sat_iops *)calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->max_keys = max_keys;
    sat_strtab_init(&a->rows, sizeof(irow_acc), max_keys);
    sat_strtab_init(&a->pars, sizeof(ipar_acc), max_keys);
    a->cfree = a->pfree = NIL;
    return a;
}

void sat_iops_free(sat_iops *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ccap; i++)
        free(a->cv[i].seg);
    for (size_t i = 0; i < IOPS_RECENT; i++)
        free(a->recent[i].pkey);
    for (size_t i = 0; i < a->nheads; i++)
        free(a->heads[i].pkey);
    free(a->heads);
    free(a->cv);
    free(a->pv);
    free(a->bucket);
    free(a->idx);
    free(a->encl);
    free(a->koff);
    free(a->klen);
    free(a->kbuf);
    free(a->seg);
    sat_strtab_free(&a->rows);
    sat_strtab_free(&a->pars);
    free(a);
}

size_t sat_iops_bytes(const sat_iops *a)
{
    if (!a)
        return 0;
    return sizeof *a + sat_strtab_bytes(&a->rows) + sat_strtab_bytes(&a->pars) +
           a->ccap * sizeof(ichild) + a->pcap * sizeof(ipend) + a->nb * sizeof(int32_t) +
           a->scap * 4 * sizeof(int32_t) + a->kcap + a->segcap +
           (a->heads ? IOPS_HEAD * sizeof(ihead) : 0);
}

/* ---- attribution --------------------------------------------------------------------- */
static size_t parent_key(sat_iops *a, int ptype, const sat_ldap_op *op)
{
    if (sat_iop_grow(&a->seg, &a->segcap, 2) < 0)
        return 0;
    a->seg[0] = (char)ptype;
    if (!op) {
        a->seg[1] = '-';
        return 2;
    }
    size_t bl;
    if (sat_iop_base_of(a, op, 1, &bl) < 0)
        return 0;
    return 1 + bl;
}

/* Remembers the group of an operation just attributed; the one it replaces
 * in the ring gets the rows that came for it since (they had as long as
 * IOPS_RECENT attributions to arrive). */
static int remember(sat_iops *a, const ipkey *k, const char *pkey, size_t pklen)
{
    irecent *r = &a->recent[a->recent_next++ % IOPS_RECENT];
    if (r->pkey) {
        int32_t pi = sat_iop_pend_find(a, &r->k);
        if (pi != NIL) {
            int rc = sat_iop_resolve(a, a, pi, r->pkey, r->pklen, NULL,
                             r->k.conn ? &a->of_clients : &a->of_server, 1);
            sat_iop_pend_release(a, pi);
            if (rc < 0)
                return rc;
        }
    }
    char *p = (char *)realloc(r->pkey, pklen ? pklen : 1);
    if (!p) {
        free(r->pkey); /* only late rows would miss it: they count as orphans */
        r->pkey = NULL;
        return 0;
    }
    memcpy(p, pkey, pklen);
    r->pkey = p;
    r->pklen = pklen;
    r->k = *k;
    return 0;
}

static const irecent *recall(const sat_iops *a, const ipkey *k)
{
    for (size_t i = 0; i < IOPS_RECENT; i++)
        if (a->recent[i].pkey && sat_iop_pk_eq(&a->recent[i].k, k))
            return &a->recent[i];
    return NULL;
}

/* Keeps one of the part's first attributions with its rows (list pi, or
 * NIL), detached from the waiting table so that later rows of the same key
 * wait apart, as they would after an attribution. */
static int head_keep(sat_iops *a, const ipkey *k, int32_t pi, const char *pkey, size_t pklen,
                     const sat_ldap_op *parent)
{
    if (!a->heads && !(a->heads = (ihead *)malloc(IOPS_HEAD * sizeof *a->heads)))
        return SAT_E_NOMEM;
    char *p = (char *)malloc(pklen ? pklen : 1);
    if (!p)
        return SAT_E_NOMEM;
    memcpy(p, pkey, pklen);
    if (pi != NIL)
        sat_iop_pend_detach(a, pi);
    ihead *h = &a->heads[a->nheads++];
    h->k = *k;
    h->pkey = p;
    h->pklen = pklen;
    h->list = pi;
    h->etime = parent ? parent->etime : SAT_ABSENT;
    h->flags = parent ? parent->flags : 0;
    h->server = parent == NULL;
    return SAT_OK;
}

static int keeping_heads(const sat_iops *a) { return !a->heads_closed && a->nheads < IOPS_HEAD; }

/* Attributes the rows of list pi of src (a head's own, or a list they were
 * joined to) to dst, under head h. */
static int head_resolve(sat_iops *dst, const sat_iops *src, const ihead *h, int32_t pi)
{
    sat_ldap_op parent;
    memset(&parent, 0, sizeof parent);
    parent.etime = h->etime;
    parent.flags = h->flags;
    return sat_iop_resolve(dst, src, pi, h->pkey, h->pklen, h->server ? NULL : &parent,
                           h->server ? &dst->of_server : &dst->of_clients, 0);
}

int sat_iop_heads_resolve(sat_iops *a)
{
    int rc = 0;
    for (size_t i = 0; i < a->nheads; i++) {
        ihead *h = &a->heads[i];
        if (h->list != NIL) {
            if (rc == 0)
                rc = head_resolve(a, a, h, h->list);
            sat_iop_pend_release(a, h->list);
        }
        free(h->pkey);
    }
    a->nheads = 0;
    a->heads_closed = 1;
    return rc;
}

int sat_iops_internal(sat_iops *a, const sat_ldap_op *op)
{
    if (a->npending_children >= IOPS_PENDING_MAX) {
        a->unattributed++;
        return SAT_OK;
    }
    ipkey k = {op->server, op->conn_epoch, op->conn > 0 ? op->conn : 0,
               op->conn > 0 ? op->op : 0, op->conn > 0 ? INT32_MIN : op->internal_op};
    /* the segment: [type][scope][depth] base SEP_FLD filter shape */
    if (sat_iop_grow(&a->seg, &a->segcap, 3) < 0)
        return SAT_E_NOMEM;
    a->seg[0] = (char)(op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN);
    a->seg[1] = (char)op->scope;
    a->seg[2] = (char)depth_byte(op->internal_depth);
    size_t bl;
    if (sat_iop_base_of(a, op, 3, &bl) < 0)
        return SAT_E_NOMEM;
    size_t at = 3 + bl;
    sat_str f = op->filter_shape.ptr ? op->filter_shape : op->filter;
    size_t fl = f.ptr ? f.len : 1;
    if (sat_iop_grow(&a->seg, &a->segcap, at + 1 + fl) < 0)
        return SAT_E_NOMEM;
    a->seg[at++] = SEP_FLD;
    if (f.ptr)
        at += sat_iop_put_clean(a->seg + at, f.ptr, f.len);
    else
        a->seg[at++] = '-';
    char *seg = (char *)malloc(at);
    int32_t pi = seg ? sat_iop_pend_get(a, &k) : NIL;
    int32_t c = pi != NIL ? sat_iop_child_new(a) : NIL;
    if (c == NIL) {
        free(seg);
        return SAT_E_NOMEM;
    }
    memcpy(seg, a->seg, at);
    ichild *ch = &a->cv[c];
    ch->seg = seg;
    ch->seglen = (uint32_t)at;
    ch->depth = op->internal_depth;
    ch->is_error = op->err != SAT_ABSENT && op->err != 0;
    ch->err = ch->is_error ? op->err : 0;
    ch->etime = (op->flags & SAT_OPF_UNFINISHED) ? SAT_ABSENT : op->etime;
    ipend_append(a, &a->pv[pi], c);
    /* the server's own: complete with its outermost row */
    if (k.conn == 0 && op->internal_depth <= 1) {
        size_t pl = parent_key(a, PT_SERVER, NULL);
        if (!pl)
            return SAT_E_NOMEM;
        if (keeping_heads(a)) {
            int rc = head_keep(a, &k, pi, a->seg, pl, NULL);
            int r2 = remember(a, &k, a->seg, pl);
            return rc < 0 ? rc : r2;
        }
        int rc = sat_iop_resolve(a, a, pi, a->seg, pl, NULL, &a->of_server, 0);
        sat_iop_pend_release(a, pi);
        int r2 = remember(a, &k, a->seg, pl);
        return rc < 0 ? rc : r2;
    }
    return SAT_OK;
}

int sat_iops_external(sat_iops *a, const sat_ldap_op *op)
{
    int head = keeping_heads(a);
    if ((!a->npend && !head) || op->conn <= 0)
        return SAT_OK;
    ipkey k = {op->server, op->conn_epoch, op->conn, op->op, INT32_MIN};
    int32_t pi = a->npend ? sat_iop_pend_find(a, &k) : NIL;
    if (pi == NIL && !head)
        return SAT_OK;
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    size_t pl = parent_key(a, t, op);
    if (!pl)
        return SAT_E_NOMEM;
    if (head) { /* also without rows: an earlier part may hold some */
        int rc = head_keep(a, &k, pi, a->seg, pl, op);
        int r2 = pi != NIL ? remember(a, &k, a->seg, pl) : 0;
        return rc < 0 ? rc : r2;
    }
    int rc = sat_iop_resolve(a, a, pi, a->seg, pl, op, &a->of_clients, 0);
    sat_iop_pend_release(a, pi);
    int r2 = remember(a, &k, a->seg, pl);
    return rc < 0 ? rc : r2;
}

/* Every list still waiting in src, into dst: under the operation that ran
 * them when it was attributed before them (late rows), else as orphans. */
int sat_iop_orphans_into(sat_iops *dst, const sat_iops *src)
{
    char pk[2] = {(char)PT_ORPHAN, '-'};
    for (size_t i = 0; i < src->pcap; i++) {
        if (src->pv[i].used != 1)
            continue;
        const irecent *r = recall(src, &src->pv[i].k);
        int rc = r ? sat_iop_resolve(dst, src, (int32_t)i, r->pkey, r->pklen, NULL,
                             src->pv[i].k.conn ? &dst->of_clients : &dst->of_server, 1)
                   : sat_iop_resolve(dst, src, (int32_t)i, pk, sizeof pk, NULL, &dst->orphans, 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The figures of groups and rows, merged by kind (acc.h). Their ns sums and
 * max are uint64_t, added and compared as the int64_t they equal. The tree
 * links and serials are set by one part and left alone. */
static const sat_acc_field par_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, ipar_acc, parents),
    SAT_ACC(SAT_ACC_COUNT, ipar_acc, parents_timed),
    SAT_ACC(SAT_ACC_COUNT, ipar_acc, internal),
    SAT_ACC(SAT_ACC_SUM, ipar_acc, pe_sum),
    SAT_ACC(SAT_ACC_SUM, ipar_acc, d1_sum),
    SAT_ACC(SAT_ACC_SUM, ipar_acc, d1_sum_tp),
};
const sat_rec_desc sat_iop_par_desc = {sizeof(ipar_acc), par_fields,
                                      sizeof par_fields / sizeof par_fields[0], NULL};
static const sat_acc_field row_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, irow_acc, count),
    SAT_ACC(SAT_ACC_COUNT, irow_acc, timed),
    SAT_ACC(SAT_ACC_COUNT, irow_acc, errors),
    SAT_ACC(SAT_ACC_COUNT, irow_acc, parents_with),
    SAT_ACC(SAT_ACC_SUM, irow_acc, esum),
    SAT_ACC(SAT_ACC_SUM, irow_acc, esum_tp),
    SAT_ACC(SAT_ACC_MAX, irow_acc, emax),
    SAT_ACC_N(SAT_ACC_BITS, irow_acc, err_bits, 2),
    SAT_ACC(SAT_ACC_BITS, irow_acc, err_other),
};
const sat_rec_desc sat_iop_row_desc = {sizeof(irow_acc), row_fields,
                                      sizeof row_fields / sizeof row_fields[0], NULL};

/* Appends copies of src's rows of list si to dst's list di. */
static int append_rows(sat_iops *dst, int32_t di, const sat_iops *src, int32_t si)
{
    for (int32_t c = src->pv[si].head; c != NIL; c = src->cv[c].next) {
        const ichild *from = &src->cv[c];
        char *seg = (char *)malloc(from->seglen ? from->seglen : 1);
        int32_t nc = seg ? sat_iop_child_new(dst) : NIL;
        if (nc == NIL) {
            free(seg);
            return SAT_E_NOMEM;
        }
        memcpy(seg, from->seg, from->seglen);
        ichild *ch = &dst->cv[nc];
        ch->seg = seg;
        ch->seglen = from->seglen;
        ch->depth = from->depth;
        ch->is_error = from->is_error;
        ch->err = from->err;
        ch->etime = from->etime;
        ipend_append(dst, &dst->pv[di], nc);
    }
    return 0;
}

/* What a cut between two parts separated, joined: rows of ours still
 * waiting for an operation that was one of from's first attributions go
 * with it (ours came first); rows still waiting in from are late rows of an
 * operation either part attributed lately, or wait on in ours (for the next
 * part, else "(not in the input)" at finish). */
static int pending_merge(sat_iops *into, const sat_iops *from)
{
    for (size_t i = 0; i < from->nheads; i++) {
        const ihead *h = &from->heads[i];
        int32_t pi = into->npend ? sat_iop_pend_find(into, &h->k) : NIL;
        int rc = 0;
        if (pi != NIL) {
            if (h->list != NIL)
                rc = append_rows(into, pi, from, h->list);
            if (rc == 0)
                rc = head_resolve(into, into, h, pi);
            sat_iop_pend_release(into, pi);
            if (rc == 0 && h->list == NIL)
                rc = remember(into, &h->k, h->pkey, h->pklen); /* as one pass would */
        } else if (h->list != NIL) {
            rc = head_resolve(into, from, h, h->list);
        }
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < from->pcap; i++) {
        if (from->pv[i].used != 1)
            continue;
        const ipkey *k = &from->pv[i].k;
        const irecent *r = recall(from, k);
        if (!r)
            r = recall(into, k);
        int rc;
        if (r) {
            rc = sat_iop_resolve(into, from, (int32_t)i, r->pkey, r->pklen, NULL,
                                 k->conn ? &into->of_clients : &into->of_server, 1);
        } else {
            int32_t di = sat_iop_pend_get(into, k);
            rc = di == NIL ? SAT_E_NOMEM : append_rows(into, di, from, (int32_t)i);
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sat_iops_merge(sat_iops *into, const sat_iops *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    int capped;
    for (size_t i = 0; i < from->pars.n; i++) {
        ipar_acc *g = (ipar_acc *)sat_strtab_upsert(&into->pars, sat_strtab_key(&from->pars, i),
                                                    sat_strtab_len(&from->pars, i), NULL, &capped);
        if (!g) {
            if (!capped)
                return SAT_E_NOMEM;
            continue; /* its rows are counted unattributed below */
        }
        sat_rec_merge(&sat_iop_par_desc, g, sat_strtab_val(&from->pars, i));
    }
    for (size_t i = 0; i < from->rows.n; i++) {
        const irow_acc *s = (const irow_acc *)sat_strtab_val(&from->rows, i);
        const char *key = sat_strtab_key(&from->rows, i);
        size_t len = sat_strtab_len(&from->rows, i);
        const char *sep = memchr(key, SEP_SEG, len);
        irow_acc *r = NULL;
        if (sep && sat_strtab_find(&into->pars, key, (size_t)(sep - key)))
            r = (irow_acc *)sat_strtab_upsert(&into->rows, key, len, NULL, &capped);
        else
            capped = 1;
        if (!r) {
            if (!capped)
                return SAT_E_NOMEM;
            into->unattributed += s->count;
            continue;
        }
        sat_rec_merge(&sat_iop_row_desc, r, s);
    }
    into->of_clients += from->of_clients;
    into->of_server += from->of_server;
    into->orphans += from->orphans;
    into->unattributed += from->unattributed;
    if (pending_merge(into, from) < 0)
        return SAT_E_NOMEM;
    /* from's ring is the more recent: it goes in after ours */
    for (size_t j = 0; j < IOPS_RECENT; j++) {
        const irecent *r = &from->recent[(from->recent_next + j) % IOPS_RECENT];
        if (r->pkey && remember(into, &r->k, r->pkey, r->pklen) < 0)
            return SAT_E_NOMEM;
    }
    return SAT_OK;
}
