/*
 * filtered.c - an analyzer fed only the rows a predicate keeps
 * (analyze_split.h, sat_filtered_opts): one analyzer over a subset of a
 * collection, created, merged and rendered as the analyzer itself is.
 */
#include <stdlib.h>

#include "satscope/analyze.h"
#include "state_io.h"

typedef struct filtered {
    const sat_analyzer *a;
    int (*keep)(int table, const void *row);
    void *obj;
    sat_event_sink inner;
} filtered;

static void *f_create(const void *o)
{
    const sat_filtered_opts *fo = o;
    if (!fo || !fo->a)
        return NULL;
    filtered *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->a = fo->a;
    f->keep = fo->keep;
    if (!(f->obj = fo->a->create(fo->opts))) {
        free(f);
        return NULL;
    }
    f->inner = fo->a->sink(f->obj);
    return f;
}

static int f_row(void *ctx, int table, const void *row)
{
    filtered *f = ctx;
    if (f->keep && !f->keep(table, row))
        return SAT_OK;
    return sat_sink_emit(&f->inner, table, row);
}

static sat_event_sink f_sink(void *a)
{
    filtered *f = a;
    sat_event_sink s = {f, f->inner.on_row ? f->inner.tables : 0, f_row};
    return s;
}

static int f_finish(void *a) { return ((filtered *)a)->a->finish(((filtered *)a)->obj); }

static int f_merge(void *into, const void *from)
{
    filtered *x = into;
    const filtered *y = from;
    if (x->a != y->a)
        return SAT_E_USAGE;
    return x->a->merge(x->obj, y->obj);
}

static void f_free(void *a)
{
    filtered *f = a;
    if (!f)
        return;
    f->a->free(f->obj);
    free(f);
}

static int f_result(const void *a, sat_result *r)
{
    const filtered *f = a;
    return f->a->result ? f->a->result(f->obj, r) : SAT_E_USAGE;
}

/* The inner analyzer's state: the predicate is the plan's, not state. */
static int f_save(const void *a, sat_sw *w)
{
    const filtered *f = a;
    return f->a->save ? f->a->save(f->obj, w) : SAT_E_UNSUPPORTED;
}

static int f_load(void *a, sat_sr *r)
{
    filtered *f = a;
    return f->a->load ? f->a->load(f->obj, r) : SAT_E_UNSUPPORTED;
}

const sat_analyzer sat_filtered_analyzer = {
    "filtered", "an analyzer over the rows a predicate keeps", f_create, f_sink, f_finish,
    f_merge, f_free, f_result, NULL, NULL, NULL, f_save, f_load};
