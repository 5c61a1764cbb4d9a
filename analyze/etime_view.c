/*
 * etime_view.c - the etime analyzer's finish: the view (analyze.h) built in
 * the view arena from the accumulators, each file giving its part. The
 * rules are in etime.c.
 */
#include "etime_int.h"

int sat_etime_finish(sat_etime *e)
{
    if (!e)
        return SAT_E_USAGE;
    sat_arena_free(&e->view_arena);
    e->view_arena.chunk_size = 64 * 1024;
    sat_etime_view *v = &e->view;
    memset(v, 0, sizeof *v);
    e->finished = 0;
    v->by = e->opts.by;
    v->top = e->opts.top;
    v->root_dn = e->root_dn;
    et_flush_attr_lists(e);
    if (et_view_inputs(e, v) != SAT_OK)
        return SAT_E_NOMEM;

    /* span */
    const et_counts *c = &e->c;
    v->first_ts = c->first_ts;
    v->last_ts = c->last_ts;
    v->span_s = c->first_ts ? (double)(c->last_ts - c->first_ts) / 1e9 : 0;

    v->ops = c->ops;
    v->results = c->results;
    v->unfinished = c->unfinished;
    v->internal_ops = c->internal_ops;
    v->no_request = c->no_request;
    v->persistent = c->persistent;
    v->paged = c->paged;
    v->entries = c->entries;
    v->ext_ops = c->ext_ops;
    v->abandons = c->abandons;
    v->unbinds = c->unbinds;
    v->whole_base_searches = c->whole_base;

    if (et_view_groups(e, v, (double)e->all.esum, v->span_s) != SAT_OK ||
        et_view_conn(e, v) != SAT_OK || et_view_tables(e, v) != SAT_OK ||
        et_view_http(e, v) != SAT_OK)
        return SAT_E_NOMEM;

    if (sat_iops_finish(e->iops, &e->view_arena, v) < 0)
        e->nomem = 1;
    size_t b = et_bytes(e) + e->view_arena.total;
    if (b > e->mem_peak)
        e->mem_peak = b;
    v->memory_bytes = e->mem_peak;
    if (e->nomem)
        return SAT_E_NOMEM;
    e->finished = 1;
    return SAT_OK;
}

const sat_etime_view *sat_etime_get_view(const sat_etime *e)
{
    return e && e->finished ? &e->view : NULL;
}
