/*
 * internal_ops_nest.c - one client operation's internal rows, in the order
 * they were logged, become rows of its group: the nesting is rebuilt from
 * the log order and the depths alone, each row keyed under the row that
 * encloses it, and counts and times are added up (a nested row's time is
 * inside its enclosing row's, so only outermost rows add to the group's
 * share). The rules are in internal_ops.c.
 */
#include "internal_ops_int.h"

static int scratch(sat_iops *a, size_t n)
{
    if (n <= a->scap)
        return 0;
    /* four arrays of one length: each grown from the same capacity, so they
     * end alike; one that did not grow leaves scap as it was */
    size_t c1 = a->scap, c2 = a->scap, c3 = a->scap, c4 = a->scap;
    if (SAT_GROW(a->idx, c1, n) != SAT_OK || SAT_GROW(a->encl, c2, n) != SAT_OK ||
        SAT_GROW(a->koff, c3, n) != SAT_OK || SAT_GROW(a->klen, c4, n) != SAT_OK)
        return SAT_E_NOMEM;
    a->scap = c1;
    return 0;
}

/* The waiting rows of src's list pi become dst's rows under the parent key
 * pkey (ptype byte + base); parent is the client operation's row, or NULL
 * for the server's own and for orphans. */
int sat_iop_resolve(sat_iops *dst, const sat_iops *src, int32_t pi, const char *pkey,
                    size_t pklen, const sat_ldap_op *parent, uint64_t *counter, int late)
{
    const ipend *p = &src->pv[pi];
    size_t n = p->n;
    if (scratch(dst, n) < 0)
        return SAT_E_NOMEM;
    size_t k = 0;
    for (int32_t c = p->head; c != NIL && k < n; c = src->cv[c].next)
        dst->idx[k++] = c;
    n = k;
    /* nesting: a row of depth d encloses the rows of depth d + 1 since the
     * previous row of depth <= d (log order = RESULT order) */
    for (size_t i = 0; i < n; i++) {
        dst->encl[i] = NIL;
        uint8_t d = src->cv[dst->idx[i]].depth;
        for (size_t j = i; j-- > 0;) {
            uint8_t dj = src->cv[dst->idx[j]].depth;
            if (dj <= d)
                break;
            if (dj == d + 1 && dst->encl[j] == NIL)
                dst->encl[j] = (int32_t)i;
        }
    }
    /* keys, outermost first (an enclosing row comes after what it encloses) */
    size_t used = 0;
    for (size_t i = n; i-- > 0;) {
        const ichild *ch = &src->cv[dst->idx[i]];
        const char *pre = pkey;
        size_t plen = pklen;
        if (dst->encl[i] != NIL) {
            plen = dst->klen[dst->encl[i]];
            pre = NULL; /* in kbuf, which may move: copied below by offset */
        }
        size_t need = used + plen + 1 + ch->seglen;
        if (sat_iop_grow(&dst->kbuf, &dst->kcap, need) < 0)
            return SAT_E_NOMEM;
        if (pre)
            memcpy(dst->kbuf + used, pre, plen);
        else
            memmove(dst->kbuf + used, dst->kbuf + dst->koff[dst->encl[i]], plen);
        dst->kbuf[used + plen] = SEP_SEG;
        memcpy(dst->kbuf + used + plen + 1, ch->seg, ch->seglen);
        dst->koff[i] = (uint32_t)used;
        dst->klen[i] = (uint32_t)(plen + 1 + ch->seglen);
        used = need;
    }
    int capped = 0;
    ipar_acc *g = (ipar_acc *)sat_strtab_upsert(&dst->pars, pkey, pklen, NULL, &capped);
    if (!g) {
        if (!capped)
            return SAT_E_NOMEM;
        dst->unattributed += n;
        return 0;
    }
    int timed = parent && parent->etime >= 0 && !(parent->flags & SAT_OPF_UNFINISHED);
    if (!late && (parent || counter == &dst->of_server)) {
        g->parents++;
        if (timed) {
            g->parents_timed++;
            sat_sum_add(&g->pe_sum, parent->etime);
        }
    }
    dst->serial++;
    for (size_t i = 0; i < n; i++) {
        const ichild *ch = &src->cv[dst->idx[i]];
        irow_acc *r = (irow_acc *)sat_strtab_upsert(&dst->rows, dst->kbuf + dst->koff[i],
                                                    dst->klen[i], NULL, &capped);
        if (!r) {
            if (!capped)
                return SAT_E_NOMEM;
            dst->unattributed++;
            continue;
        }
        g->internal++;
        (*counter)++;
        r->count++;
        r->errors += ch->is_error;
        if (ch->is_error && ch->err >= 0 && ch->err < IOPS_ERR_BITS)
            r->err_bits[ch->err / 64] |= 1ull << (ch->err % 64);
        else if (ch->is_error)
            r->err_other = 1;
        if (r->last_serial != dst->serial) {
            r->last_serial = dst->serial;
            r->parents_with++;
        }
        if (ch->etime >= 0) {
            uint64_t e = (uint64_t)ch->etime;
            r->timed++;
            sat_sum_add(&r->esum, ch->etime);
            if (timed)
                sat_sum_add(&r->esum_tp, ch->etime);
            if (e > r->emax)
                r->emax = e;
            if (dst->encl[i] == NIL && !late) { /* late ones ran after its etime */
                sat_sum_add(&g->d1_sum, ch->etime);
                if (timed)
                    sat_sum_add(&g->d1_sum_tp, ch->etime);
            }
        }
    }
    return 0;
}
