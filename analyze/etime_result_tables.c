/*
 * etime_result_tables.c - the etime result's lists, written from the
 * analyzer's state (etime_result_int.h): result codes (every one, by code)
 * and notes, the unindexed searches (the most frequent `top`), the top-N
 * lists (a keyed table's first rows by count, with how many keys it holds
 * and folded), the earliest abandons, the inputs and the sampled rejects.
 */
#include <string.h>

#include "etime_names.h"
#include "etime_result_int.h"

/* ---- result codes and notes ------------------------------------------------------------ */

typedef struct code_count {
    int32_t code;
    uint64_t count;
} code_count;

static int cmp_code(const void *a, const void *b)
{
    const code_count *x = (const code_count *)a, *y = (const code_count *)b;
    return (x->code > y->code) - (x->code < y->code);
}

int et_result_codes(sat_rnode *root, const sat_etime *e)
{
    const sat_keyed *eo = &e->err_other;
    size_t ncodes = sat_keyed_n(eo);
    for (int i = 0; i < ET_ERR_FAST; i++)
        ncodes += e->c.err_fast[i] ? 1 : 0;
    code_count *cc = (code_count *)malloc((ncodes ? ncodes : 1) * sizeof *cc);
    if (!cc)
        return SAT_E_NOMEM;
    size_t nc = 0;
    for (int i = 0; i < ET_ERR_FAST; i++)
        if (e->c.err_fast[i])
            cc[nc++] = (code_count){i, e->c.err_fast[i]};
    for (size_t i = 0; i < sat_keyed_n(eo); i++) {
        memcpy(&cc[nc].code, sat_keyed_key(eo, i), sizeof(int32_t));
        cc[nc++].count = ((const et_code *)sat_keyed_rec(eo, i))->count;
    }
    qsort(cc, nc, sizeof *cc, cmp_code);
    static const sat_col ecols[] = {{"result_code", SAT_UNIT_INT, 0, "err"},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"name", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "result_codes", ecols, 3);
    for (size_t i = 0; i < nc; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_int(o, "result_code", cc[i].code);
        sat_put_count(o, "count", cc[i].count);
        sat_put_text(o, "name", sat_ldap_result_name(cc[i].code));
    }
    free(cc);

    int notes_known = (sat_fields_known(&e->fields) & SAT_FIELD_BIT(SAT_FIELD_NOTES)) != 0;
    static const sat_col ncols[] = {{"note", SAT_UNIT_TEXT, 0, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(root, "note_counts", ncols, 3);
    for (int b = 0; b < 7; b++) {
        char k[2] = {SAT_NOTE_LETTERS[b], 0};
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "note", k);
        if (notes_known)
            sat_put_count(o, "count", e->c.notes[b]);
        else
            sat_put_absent(o, "count", SAT_UNIT_COUNT);
        sat_put_text(o, "meaning", sat_note_meaning(b));
    }
    return SAT_OK;
}

/* ---- unindexed searches ------------------------------------------------------------------ */

/* A search's record and the four parts of its key (base, filter, client,
 * bind DN: etime_int.h et_unidx). */
typedef struct unidx_ref {
    const et_unidx *s;
    const char *part[4];
    double emax; /* -1: none logged */
} unidx_ref;

/* Two parts as strcmp compares them once copied out. */
static int cmp_part(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static int cmp_unidx(const void *a, const void *b)
{
    const unidx_ref *x = (const unidx_ref *)a, *y = (const unidx_ref *)b;
    if (x->s->count != y->s->count)
        return x->s->count > y->s->count ? -1 : 1;
    if (x->emax != y->emax)
        return x->emax > y->emax ? -1 : 1;
    for (int p = 0; p < 4; p++) {
        int c = cmp_part(x->part[p], x->s->klen[p], y->part[p], y->s->klen[p]);
        if (c)
            return c;
    }
    return 0;
}

static void notes_str(uint64_t notes, char *buf)
{
    size_t o = 0;
    for (int b = 0; b < 7; b++)
        if (notes & (1u << b)) {
            if (o)
                buf[o++] = ',';
            buf[o++] = SAT_NOTE_LETTERS[b];
        }
    buf[o] = '\0';
}

int et_result_unindexed(sat_rnode *root, const sat_etime *e)
{
    const sat_keyed *uk = &e->unidx;
    size_t nu = sat_keyed_n(uk);
    int known = (sat_fields_known(&e->fields) & SAT_FIELD_BIT(SAT_FIELD_NOTES)) != 0;
    sat_rnode *u = sat_obj(root, "unindexed");
    const uint64_t figs[3] = {e->c.unidx_total, nu, uk->folded_rows};
    static const char *const keys[3] = {"total", "distinct", "folded"};
    for (int i = 0; i < 3; i++)
        if (known)
            sat_put_count(u, keys[i], figs[i]);
        else
            sat_put_absent(u, keys[i], SAT_UNIT_COUNT);
    static const sat_col ucols[] = {
        {"count", SAT_UNIT_COUNT, 0, NULL},    {"notes", SAT_UNIT_TEXT, 0, NULL},
        {"base", SAT_UNIT_TEXT, 0, NULL},      {"filter", SAT_UNIT_TEXT, 0, NULL},
        {"client", SAT_UNIT_TEXT, 0, NULL},    {"binddn", SAT_UNIT_TEXT, 0, NULL},
        {"max_s", SAT_UNIT_DURATION, ET_DUR, "etime max"},
        {"total_s", SAT_UNIT_DURATION, ET_DUR, "etime total"},
        {"nentries_max", SAT_UNIT_INT, 0, NULL},
        {"first_ts", SAT_UNIT_TIME, 0, NULL},  {"first_conn_id", SAT_UNIT_INT, 0, NULL},
        {"first_op_id", SAT_UNIT_INT, 0, NULL}};
    sat_rnode *t = sat_table(u, "searches", ucols, sizeof ucols / sizeof ucols[0]);
    if (!nu)
        return SAT_OK;
    unidx_ref *refs = (unidx_ref *)malloc(nu * sizeof *refs);
    if (!refs)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nu; i++) {
        const et_unidx *s = (const et_unidx *)sat_keyed_rec(uk, i);
        const char *k = sat_keyed_key(uk, i);
        refs[i].s = s;
        for (int p = 0; p < 4; p++) {
            refs[i].part[p] = k;
            k += s->klen[p] + 1;
        }
        refs[i].emax = s->timed ? (double)s->emax / 1e9 : -1;
    }
    qsort(refs, nu, sizeof *refs, cmp_unidx);
    size_t show = nu < e->opts.top ? nu : e->opts.top;
    for (size_t i = 0; i < show; i++) {
        const et_unidx *s = refs[i].s;
        char nb[16];
        notes_str(s->notes, nb);
        sat_rnode *o = sat_table_row(t);
        sat_put_count(o, "count", s->count);
        sat_put_text(o, "notes", nb);
        static const char *const parts[4] = {"base", "filter", "client", "binddn"};
        for (int p = 0; p < 4; p++)
            sat_put_textn(o, parts[p], refs[i].part[p], s->klen[p]);
        sat_put_dur(o, "max_s", s->timed ? (double)s->emax / 1e9 : NAN, ET_DUR);
        sat_put_dur(o, "total_s", s->timed ? sat_sum_d(s->esum) / 1e9 : NAN, ET_DUR);
        if (s->nentries_max >= 0)
            sat_put_int(o, "nentries_max", s->nentries_max);
        else
            sat_put_absent(o, "nentries_max", SAT_UNIT_INT);
        sat_put_time(o, "first_ts", s->first.ts);
        sat_put_int(o, "first_conn_id", s->first.conn);
        sat_put_int(o, "first_op_id", s->first.op);
    }
    free(refs);
    return SAT_OK;
}

/* ---- top-N lists, abandons ----------------------------------------------------------------- */

int et_result_top(sat_rnode *parent, const char *name, const char *keycol, const et_ktab *k,
                  size_t top, int with_total)
{
    sat_col cols[4] = {{keycol, SAT_UNIT_TEXT, 0, NULL}};
    size_t nc = 1 + sat_rec_cols(&et_kv_desc, cols + 1, 3);
    sat_rnode *t = sat_table(parent, name, cols, with_total ? nc : 2);
    size_t n;
    size_t *idx = et_kv_top(k, top, &n);
    if (!idx && sat_keyed_n(&k->k) && top)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const et_kv *v = (const et_kv *)sat_keyed_rec(&k->k, idx[i]);
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, keycol, sat_keyed_key(&k->k, idx[i]));
        if (with_total)
            sat_rec_row(&et_kv_desc, o, v, NULL);
        else
            sat_put_count(o, "count", v->count);
    }
    free(idx);
    if (!with_total)
        return SAT_OK;
    uint64_t folded = et_ktab_folded_keys(k);
    char key[96];
    snprintf(key, sizeof key, "%s_distinct", name);
    sat_put_count(parent, key, sat_keyed_n(&k->k) + folded);
    snprintf(key, sizeof key, "%s_folded", name);
    sat_put_count(parent, key, folded);
    return SAT_OK;
}

static int cmp_abandon(const void *a, const void *b)
{
    const et_abandon *x = (const et_abandon *)a, *y = (const et_abandon *)b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->conn != y->conn)
        return x->conn < y->conn ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

int et_result_abandons(sat_rnode *root, const sat_etime *e)
{
    static const sat_col acols[] = {{"ts", SAT_UNIT_TIME, 0, "time"},
                                    {"conn_id", SAT_UNIT_INT, 0, "conn"},
                                    {"op_id", SAT_UNIT_INT, 0, "op"},
                                    {"target_op_id", SAT_UNIT_INT, 0, "targetop"},
                                    {"client", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "abandon_requests", acols, 5);
    if (!e->naband)
        return SAT_OK;
    /* the earliest ones, in time order (a copy: the state may be merged again) */
    et_abandon *ab = (et_abandon *)malloc(e->naband * sizeof *ab);
    if (!ab)
        return SAT_E_NOMEM;
    memcpy(ab, e->aband, e->naband * sizeof *ab);
    qsort(ab, e->naband, sizeof *ab, cmp_abandon);
    for (size_t i = 0; i < e->naband; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_time(o, "ts", ab[i].ts);
        sat_put_int(o, "conn_id", ab[i].conn);
        sat_put_int(o, "op_id", ab[i].op);
        if (ab[i].target_op >= 0)
            sat_put_int(o, "target_op_id", ab[i].target_op);
        else
            sat_put_absent(o, "target_op_id", SAT_UNIT_INT);
        sat_put_text(o, "client", ab[i].client);
    }
    free(ab);
    return SAT_OK;
}

/* ---- inputs ---------------------------------------------------------------------------- */

uint64_t et_lines(const sat_etime *e)
{
    uint64_t lines = 0;
    for (size_t i = 0; i < e->nsrcs; i++)
        lines += e->srcs[i].lines;
    return lines;
}

void et_result_inputs(sat_rnode *root, const sat_etime *e)
{
    static const sat_col cols[] = {
        {"path", SAT_UNIT_TEXT, 0, NULL},          {"format", SAT_UNIT_TEXT, 0, NULL},
        {"compression", SAT_UNIT_TEXT, 0, NULL},   {"bytes", SAT_UNIT_BYTES, 0, NULL},
        {"lines", SAT_UNIT_COUNT, 0, NULL},        {"rejects", SAT_UNIT_COUNT, 0, "rejected"},
        {"truncated", SAT_UNIT_BOOL, 0, NULL}};
    sat_rnode *t = sat_table(root, "inputs", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < e->nsrcs; i++) {
        const et_src *s = &e->srcs[i];
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "path", s->path);
        sat_put_text(o, "format", s->format);
        sat_put_text(o, "compression", s->compression);
        sat_put_bytes(o, "bytes", s->bytes);
        sat_put_count(o, "lines", s->lines);
        sat_put_count(o, "rejects", s->rejects);
        sat_put_bool(o, "truncated", s->truncated);
    }
    static const sat_col rcols[] = {{"path", SAT_UNIT_TEXT, 0, NULL},
                                    {"line", SAT_UNIT_COUNT, 0, NULL},
                                    {"reason", SAT_UNIT_TEXT, 0, NULL},
                                    {"excerpt", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(root, "reject_samples", rcols, 4);
    for (size_t i = 0; i < e->nrej; i++) {
        const et_rej *r = &e->rej[i];
        const char *path = "?";
        for (size_t k = 0; k < e->nsrcs; k++)
            if (e->srcs[k].id == r->source)
                path = e->srcs[k].path;
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "path", path);
        sat_put_count(o, "line", r->line_no);
        sat_put_text(o, "reason", r->reason);
        sat_put_text(o, "excerpt", r->excerpt);
    }
}
