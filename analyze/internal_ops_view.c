/*
 * internal_ops_view.c - the etime view's part for internal operations: the
 * groups of client operations by internal time, each with its rows as a tree
 * (depth first, siblings by time, then count, then key), their names, counts,
 * times and shares. The rules are in internal_ops.c.
 */
#include <math.h>

#include "internal_ops_int.h"

/* ---- the view ---------------------------------------------------------------------------- */
/* a sort entry: the order keys copied out, so qsort needs no context */
typedef struct isort {
    uint64_t time, count;
    const char *key;
    uint32_t len;
    int32_t idx;
} isort;

static int cmp_isort(const void *x, const void *y)
{
    const isort *a = (const isort *)x, *b = (const isort *)y;
    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len < b->len ? -1 : a->len > b->len);
}

static const char *adup(sat_arena *ar, const char *s, size_t n, int *nomem)
{
    char *p = sat_arena_strdup(ar, s, n);
    if (!p)
        *nomem = 1;
    return p ? p : "";
}

static double ns_s(uint64_t ns) { return (double)ns / 1e9; }

static const char *ptype_name(int t)
{
    if (t == PT_SERVER)
        return "(server)";
    if (t == PT_ORPHAN)
        return "(not in the input)";
    return sat_optype_name(t);
}

static const char *scope_name(int s)
{
    switch (s) {
    case SAT_SCOPE_BASE: return "base";
    case SAT_SCOPE_ONE: return "one";
    case SAT_SCOPE_SUB: return "sub";
    default: return "-";
    }
}

/* Pushes the rows of a list (first, then their next links) on the stack at
 * sp, reversed, so that they pop in the list's order; the new height. */
static size_t push_list(const sat_iops *a, int32_t *stack, size_t sp, int32_t first)
{
    size_t from = sp;
    for (int32_t c = first; c != NIL;
         c = ((irow_acc *)sat_strtab_val(&a->rows, (size_t)c))->next)
        stack[sp++] = c;
    for (size_t x = from, y = sp; x + 1 < y; x++, y--) {
        int32_t t = stack[x];
        stack[x] = stack[y - 1];
        stack[y - 1] = t;
    }
    return sp;
}

/* Attributes what still waits (as late rows, else "(not in the input)"),
 * then fills the view; a is spent (sat_iops_finish runs it on a copy). */
static int finish_view(sat_iops *a, sat_arena *ar, sat_etime_view *v)
{
    int rc = sat_iop_heads_resolve(a);
    if (rc == 0)
        rc = sat_iop_orphans_into(a, a);
    for (size_t i = 0; i < a->pcap; i++)
        if (a->pv[i].used)
            sat_iop_pend_release(a, (int32_t)i);
    if (rc < 0)
        return rc;
    v->internal_of_clients = a->of_clients;
    v->internal_of_server = a->of_server;
    v->internal_orphans = a->orphans;
    v->internal_unattributed = a->unattributed;
    v->iparents = NULL;
    v->niparents = 0;
    size_t np = a->pars.n, nr = a->rows.n;
    if (!np)
        return SAT_OK;
    isort *po = (isort *)malloc(np * sizeof *po);
    isort *ro = (isort *)malloc((nr ? nr : 1) * sizeof *ro);
    sat_etime_iparent *out = (sat_etime_iparent *)sat_arena_alloc(ar, np * sizeof *out);
    sat_etime_irow *rows = (sat_etime_irow *)sat_arena_alloc(ar, (nr ? nr : 1) * sizeof *rows);
    if (!po || !ro || !out || !rows) {
        free(po);
        free(ro);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < np; i++) {
        ipar_acc *g = (ipar_acc *)sat_strtab_val(&a->pars, i);
        g->first = g->last = NIL;
        po[i] = (isort){g->d1_sum, g->internal, sat_strtab_key(&a->pars, i),
                        sat_strtab_len(&a->pars, i), (int32_t)i};
    }
    for (size_t i = 0; i < nr; i++) {
        irow_acc *r = (irow_acc *)sat_strtab_val(&a->rows, i);
        r->first = r->last = r->next = NIL;
        r->idx = (int32_t)i;
        ro[i] = (isort){r->esum, r->count, sat_strtab_key(&a->rows, i),
                        sat_strtab_len(&a->rows, i), (int32_t)i};
    }
    qsort(ro, nr, sizeof *ro, cmp_isort);
    qsort(po, np, sizeof *po, cmp_isort);
    /* children lists in sorted order: each row under the row whose key is
     * its own up to the last segment, or under its parent group */
    for (size_t s = 0; s < nr; s++) {
        size_t i = (size_t)ro[s].idx;
        const char *key = sat_strtab_key(&a->rows, i);
        size_t len = sat_strtab_len(&a->rows, i);
        size_t cut = len;
        while (cut > 0 && key[cut - 1] != SEP_SEG)
            cut--;
        if (!cut)
            continue;
        cut--; /* the separator */
        irow_acc *up = (irow_acc *)sat_strtab_find(&a->rows, key, cut);
        int32_t *first, *last;
        if (up) {
            first = &up->first;
            last = &up->last;
        } else {
            ipar_acc *g = (ipar_acc *)sat_strtab_find(&a->pars, key, cut);
            if (!g)
                continue;
            first = &g->first;
            last = &g->last;
        }
        if (*last != NIL)
            ((irow_acc *)sat_strtab_val(&a->rows, (size_t)*last))->next = (int32_t)i;
        else
            *first = (int32_t)i;
        *last = (int32_t)i;
    }
    int nomem = 0;
    size_t nrows = 0;
    /* the depth-first stack: every row is pushed once */
    int32_t *stack = (int32_t *)malloc((nr ? nr : 1) * sizeof *stack);
    if (!stack) {
        free(po);
        free(ro);
        return SAT_E_NOMEM;
    }
    for (size_t s = 0; s < np; s++) {
        size_t gi = (size_t)po[s].idx;
        const ipar_acc *g = (const ipar_acc *)sat_strtab_val(&a->pars, gi);
        const char *key = sat_strtab_key(&a->pars, gi);
        size_t len = sat_strtab_len(&a->pars, gi);
        sat_etime_iparent *o = &out[s];
        o->type = ptype_name((unsigned char)key[0]);
        o->base = adup(ar, key + 1, len - 1, &nomem);
        o->parents = g->parents;
        o->internal = g->internal;
        o->parents_etime_s = g->parents_timed ? ns_s(g->pe_sum) : NAN;
        o->internal_s = ns_s(g->d1_sum);
        o->share = g->parents_timed && g->pe_sum ? (double)g->d1_sum_tp / (double)g->pe_sum : NAN;
        o->rows = rows + nrows;
        /* depth first, siblings in sorted order */
        size_t sp = push_list(a, stack, 0, g->first);
        while (sp > 0) {
            size_t i = (size_t)stack[--sp];
            const irow_acc *r = (const irow_acc *)sat_strtab_val(&a->rows, i);
            const char *rk = sat_strtab_key(&a->rows, i);
            size_t rl = sat_strtab_len(&a->rows, i);
            size_t b = rl;
            while (b > 0 && rk[b - 1] != SEP_SEG)
                b--;
            const char *seg = rk + b;
            size_t sl = rl - b;
            sat_etime_irow *w = &rows[nrows++];
            w->depth = sl > 2 ? (unsigned char)seg[2] - DEPTH_BIAS : 0;
            w->type = sat_optype_name(sl > 0 ? (unsigned char)seg[0] : 0);
            w->scope = scope_name(sl > 1 ? (unsigned char)seg[1] : SAT_SCOPE_NONE);
            const char *f = sl > 3 ? memchr(seg + 3, SEP_FLD, sl - 3) : NULL;
            size_t blen = f ? (size_t)(f - (seg + 3)) : (sl > 3 ? sl - 3 : 0);
            w->base = adup(ar, seg + 3, blen, &nomem);
            w->filter = f ? adup(ar, f + 1, (size_t)(seg + sl - f - 1), &nomem) : "-";
            w->count = r->count;
            w->timed = r->timed;
            w->errors = r->errors;
            w->per_parent = g->parents ? (double)r->count / (double)g->parents : NAN;
            w->total_s = r->timed ? ns_s(r->esum) : NAN;
            w->mean_s = r->timed ? ns_s(r->esum) / (double)r->timed : NAN;
            w->max_s = r->timed ? ns_s(r->emax) : NAN;
            /* none of its time inside a timed client operation (ran after the
             * RESULT, or under an operation without etime): no share */
            w->share = g->parents_timed && g->pe_sum && r->timed && (r->esum_tp || !r->esum)
                           ? (double)r->esum_tp / (double)g->pe_sum
                           : NAN;
            sp = push_list(a, stack, sp, r->first);
        }
        o->nrows = (size_t)(rows + nrows - o->rows);
    }
    free(stack);
    free(po);
    free(ro);
    v->iparents = out;
    v->niparents = np;
    return nomem ? SAT_E_NOMEM : SAT_OK;
}

/* On a copy (an empty one with a merged into it): a keeps its first
 * attributions and its waiting rows, so that it can still be merged with
 * the parts around it and finished again. */
int sat_iops_finish(sat_iops *a, sat_arena *ar, sat_etime_view *v)
{
    sat_iops *c = sat_iops_create(a->max_keys);
    if (!c)
        return SAT_E_NOMEM;
    int rc = sat_iops_merge(c, a);
    if (rc == SAT_OK)
        rc = finish_view(c, ar, v);
    sat_iops_free(c);
    return rc;
}
