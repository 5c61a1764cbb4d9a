/*
 * internal_ops_result.c - the etime result's internal operations (its
 * "internal_operations" object, analyze/etime_result.c): the groups of
 * client operations by internal time, each with its rows as a tree (depth
 * first, siblings by time, then count, then key), their names, counts,
 * times and shares, written from the attribution's state. The rules are in
 * internal_ops.c.
 */
#include <math.h>
#include <string.h>

#include "etime_names.h"
#include "internal_ops_int.h"

#define DUR 9  /* seconds: nanosecond resolution */
#define FRAC 6 /* shares, per operation */

/* ---- the result -------------------------------------------------------------------------- */
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

/* ns as seconds; a saturated sum (acc.h) is NAN: absent */
static double ns_s(int64_t ns) { return sat_sum_d(ns) / 1e9; }

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

/* The rows of the groups in the order shown: group after group (by
 * internal time), each its rows depth first, siblings in sorted order. */
typedef struct iorder {
    size_t *groups;    /* np group indices, sorted */
    size_t *rows;      /* the rows shown, group after group */
    size_t *row_start; /* np + 1: group s's rows are rows[row_start[s] .. row_start[s+1]) */
    size_t nrows;
} iorder;

static void iorder_free(iorder *o)
{
    free(o->groups);
    free(o->rows);
    free(o->row_start);
}

/* Attributes what still waits (as late rows, else "(not in the input)"),
 * then puts the groups and their rows in order; a is spent (the result is
 * written from a copy). */
static int order_rows(sat_iops *a, iorder *o)
{
    memset(o, 0, sizeof *o);
    int rc = sat_iop_heads_resolve(a);
    if (rc == 0)
        rc = sat_iop_orphans_into(a, a);
    for (size_t i = 0; i < a->pcap; i++)
        if (a->pv[i].used)
            sat_iop_pend_release(a, (int32_t)i);
    if (rc < 0)
        return rc;
    size_t np = a->pars.n, nr = a->rows.n;
    if (!np)
        return SAT_OK;
    isort *po = (isort *)malloc(np * sizeof *po);
    isort *ro = (isort *)malloc((nr ? nr : 1) * sizeof *ro);
    int32_t *stack = (int32_t *)malloc((nr ? nr : 1) * sizeof *stack);
    o->groups = (size_t *)malloc(np * sizeof *o->groups);
    o->rows = (size_t *)malloc((nr ? nr : 1) * sizeof *o->rows);
    o->row_start = (size_t *)malloc((np + 1) * sizeof *o->row_start);
    if (!po || !ro || !stack || !o->groups || !o->rows || !o->row_start) {
        free(po);
        free(ro);
        free(stack);
        iorder_free(o);
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
    /* depth first, siblings in sorted order: every row is pushed once */
    for (size_t s = 0; s < np; s++) {
        size_t gi = (size_t)po[s].idx;
        const ipar_acc *g = (const ipar_acc *)sat_strtab_val(&a->pars, gi);
        o->groups[s] = gi;
        o->row_start[s] = o->nrows;
        size_t sp = push_list(a, stack, 0, g->first);
        while (sp > 0) {
            size_t i = (size_t)stack[--sp];
            o->rows[o->nrows++] = i;
            sp = push_list(a, stack, sp, ((const irow_acc *)sat_strtab_val(&a->rows, i))->first);
        }
    }
    o->row_start[np] = o->nrows;
    free(stack);
    free(po);
    free(ro);
    return SAT_OK;
}

/* A row's segment (its own part of the key): type, scope, depth, base and
 * filter. */
typedef struct iseg {
    uint32_t depth;
    const char *type, *scope, *base, *filter;
    size_t blen, flen;
} iseg;

/* The error codes a row's operations were answered with, in order, each
 * with its name ("65 objectClassViolation, 19 constraintViolation"); NULL
 * without errors. */
static const char *error_codes(const irow_acc *r, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = '\0';
    for (int c = 0; c < IOPS_ERR_BITS && l < n; c++)
        if (r->err_bits[c / 64] >> (c % 64) & 1) {
            snprintf(buf + l, n - l, "%s%d %s", l ? ", " : "", c, sat_ldap_result_name(c));
            l = strlen(buf);
        }
    if (r->err_other && l < n)
        snprintf(buf + l, n - l, "%sother", l ? ", " : "");
    return buf[0] ? buf : NULL;
}

static iseg seg_of(const sat_iops *a, size_t i)
{
    const char *rk = sat_strtab_key(&a->rows, i);
    size_t rl = sat_strtab_len(&a->rows, i), b = rl;
    while (b > 0 && rk[b - 1] != SEP_SEG)
        b--;
    const char *seg = rk + b;
    size_t sl = rl - b;
    iseg x;
    x.depth = sl > 2 ? (unsigned char)seg[2] - DEPTH_BIAS : 0;
    x.type = sat_optype_name(sl > 0 ? (unsigned char)seg[0] : 0);
    x.scope = scope_name(sl > 1 ? (unsigned char)seg[1] : SAT_SCOPE_NONE);
    const char *f = sl > 3 ? memchr(seg + 3, SEP_FLD, sl - 3) : NULL;
    x.base = seg + 3;
    x.blen = f ? (size_t)(f - (seg + 3)) : (sl > 3 ? sl - 3 : 0);
    x.filter = f ? f + 1 : "-";
    x.flen = f ? (size_t)(seg + sl - f - 1) : 1;
    return x;
}

static void put_groups_rows(const sat_iops *a, const iorder *o, sat_rnode *io)
{
    static const sat_col gcols[] = {
        {"op", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},
        {"operations", SAT_UNIT_COUNT, 0, NULL},
        {"internal", SAT_UNIT_COUNT, 0, NULL},
        {"operations_etime_s", SAT_UNIT_DURATION, DUR, NULL},
        {"internal_s", SAT_UNIT_DURATION, DUR, NULL},
        {"share", SAT_UNIT_RATIO, FRAC, NULL}};
    size_t np = a->pars.n;
    sat_rnode *gt = sat_table(io, "groups", gcols, sizeof gcols / sizeof gcols[0]);
    for (size_t s = 0; s < np; s++) {
        size_t gi = o->groups[s];
        const ipar_acc *g = (const ipar_acc *)sat_strtab_val(&a->pars, gi);
        const char *key = sat_strtab_key(&a->pars, gi);
        size_t len = sat_strtab_len(&a->pars, gi);
        sat_rnode *r = sat_table_row(gt);
        sat_put_text(r, "op", ptype_name((unsigned char)key[0]));
        sat_put_textn(r, "base", key + 1, len - 1);
        sat_put_count(r, "operations", g->parents);
        sat_put_count(r, "internal", g->internal);
        sat_put_dur(r, "operations_etime_s", g->parents_timed ? ns_s(g->pe_sum) : NAN, DUR);
        sat_put_dur(r, "internal_s", ns_s(g->d1_sum), DUR);
        sat_put_ratio(r, "share",
                      g->parents_timed && g->pe_sum ? sat_sum_d(g->d1_sum_tp) / sat_sum_d(g->pe_sum)
                                                    : NAN,
                      FRAC);
    }
    /* every row of every group, its group's op and base first (one CSV) */
    static const sat_col rcols[] = {
        {"parent_op", SAT_UNIT_TEXT, 0, NULL},
        {"parent_base", SAT_UNIT_TEXT, 0, NULL},
        {"parent_operations", SAT_UNIT_COUNT, 0, NULL},
        {"depth", SAT_UNIT_COUNT, 0, NULL},
        {"op", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},
        {"scope", SAT_UNIT_TEXT, 0, NULL},
        {"filter", SAT_UNIT_TEXT, 0, NULL},
        {"count", SAT_UNIT_COUNT, 0, NULL},
        {"per_operation", SAT_UNIT_NUMBER, FRAC, "per op"},
        {"errors", SAT_UNIT_COUNT, 0, NULL},
        {"error_codes", SAT_UNIT_TEXT, 0, NULL},
        {"total_s", SAT_UNIT_DURATION, DUR, "total"},
        {"mean_s", SAT_UNIT_DURATION, DUR, "mean"},
        {"max_s", SAT_UNIT_DURATION, DUR, "max"},
        {"share", SAT_UNIT_RATIO, FRAC, NULL}};
    sat_rnode *rt = sat_table(io, "ops", rcols, sizeof rcols / sizeof rcols[0]);
    for (size_t s = 0; s < np; s++) {
        size_t gi = o->groups[s];
        const ipar_acc *g = (const ipar_acc *)sat_strtab_val(&a->pars, gi);
        const char *key = sat_strtab_key(&a->pars, gi);
        size_t len = sat_strtab_len(&a->pars, gi);
        for (size_t k = o->row_start[s]; k < o->row_start[s + 1]; k++) {
            const irow_acc *r = (const irow_acc *)sat_strtab_val(&a->rows, o->rows[k]);
            iseg x = seg_of(a, o->rows[k]);
            sat_rnode *w = sat_table_row(rt);
            sat_put_text(w, "parent_op", ptype_name((unsigned char)key[0]));
            sat_put_textn(w, "parent_base", key + 1, len - 1);
            sat_put_count(w, "parent_operations", g->parents);
            sat_put_count(w, "depth", x.depth);
            sat_put_text(w, "op", x.type);
            sat_put_textn(w, "base", x.base, x.blen);
            sat_put_text(w, "scope", x.scope);
            sat_put_textn(w, "filter", x.filter, x.flen);
            sat_put_count(w, "count", r->count);
            sat_put_num(w, "per_operation",
                        g->parents ? (double)r->count / (double)g->parents : NAN, FRAC);
            sat_put_count(w, "errors", r->errors);
            char codes[512];
            sat_put_text(w, "error_codes", error_codes(r, codes, sizeof codes));
            sat_put_dur(w, "total_s", r->timed ? ns_s(r->esum) : NAN, DUR);
            sat_put_dur(w, "mean_s", r->timed ? ns_s(r->esum) / (double)r->timed : NAN, DUR);
            sat_put_dur(w, "max_s", r->timed ? (double)r->emax / 1e9 : NAN, DUR);
            /* none of its time inside a timed client operation (ran after the
             * RESULT, or under an operation without etime): no share */
            sat_put_ratio(w, "share",
                          g->parents_timed && g->pe_sum && r->timed && (r->esum_tp || !r->esum)
                              ? sat_sum_d(r->esum_tp) / sat_sum_d(g->pe_sum)
                              : NAN,
                          FRAC);
        }
    }
}

/* On a copy (an empty one with a merged into it): a keeps its first
 * attributions and its waiting rows, so that it can still be merged with
 * the parts around it and its result written again. */
int sat_iops_result(const sat_iops *a, sat_rnode *io)
{
    sat_iops *c = sat_iops_create(a->max_keys);
    if (!c)
        return SAT_E_NOMEM;
    iorder o;
    int rc = sat_iops_merge(c, a);
    if (rc == SAT_OK)
        rc = order_rows(c, &o);
    if (rc == SAT_OK) {
        sat_put_count(io, "of_clients", c->of_clients);
        sat_put_count(io, "of_server", c->of_server);
        sat_put_count(io, "of_operations_not_in_input", c->orphans);
        sat_put_count(io, "unattributed", c->unattributed);
        uint64_t by_type[SAT_OP__COUNT] = {0}, nested = 0;
        for (size_t k = 0; k < o.nrows; k++) {
            const irow_acc *r = (const irow_acc *)sat_strtab_val(&c->rows, o.rows[k]);
            iseg x = seg_of(c, o.rows[k]);
            for (int t = 0; t < SAT_OP__COUNT; t++)
                if (!strcmp(x.type, sat_optype_name(t)))
                    by_type[t] += r->count;
            if (x.depth >= 2)
                nested += r->count;
        }
        sat_rnode *bt = sat_obj(io, "by_type");
        sat_set_compact(bt);
        for (int t = 0; t < SAT_OP__COUNT; t++)
            if (by_type[t])
                sat_put_count(bt, sat_optype_name(t), by_type[t]);
        sat_put_count(io, "nested", nested);
        put_groups_rows(c, &o, io); /* without groups: the tables, empty */
        iorder_free(&o);
    }
    sat_iops_free(c);
    return rc;
}
