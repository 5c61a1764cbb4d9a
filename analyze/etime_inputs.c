/*
 * etime_inputs.c - the etime analyzer's inputs: one entry per source row
 * (path, format, compression, bytes, lines, rejects) and the first few
 * rejected lines as samples; merged as lists (ids are the collection's),
 * shown as they came. The rules are in etime.c.
 */
#include "etime_int.h"

static char *dup_str(sat_str s, const char *dflt)
{
    if (!s.ptr)
        s = sat_str_cstr(dflt);
    char *p = (char *)malloc((size_t)s.len + 1);
    if (p) {
        if (s.len)
            memcpy(p, s.ptr, s.len);
        p[s.len] = '\0';
    }
    return p;
}

static int add_source(sat_etime *e, uint32_t id, uint32_t server, sat_str path, sat_str format,
                      sat_str compression, uint64_t bytes, uint64_t lines,
                      uint64_t rejects, int truncated, int32_t utc_offset_s)
{
    if (SAT_GROW(e->srcs, e->srccap, e->nsrcs + 1) != SAT_OK)
        return SAT_E_NOMEM;
    et_src *s = &e->srcs[e->nsrcs];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->server = server;
    s->path = dup_str(path, "?");
    s->format = dup_str(format, "?");
    s->compression = dup_str(compression, "none");
    if (!s->path || !s->format || !s->compression) {
        free(s->path);
        free(s->format);
        free(s->compression);
        return SAT_E_NOMEM;
    }
    s->bytes = bytes;
    s->lines = lines;
    s->rejects = rejects;
    s->truncated = truncated;
    s->utc_offset_s = utc_offset_s;
    e->nsrcs++;
    e->rejects += rejects;
    return SAT_OK;
}

int et_on_source(void *ctx, const sat_source *s)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    /* which figures the inputs can hold: HTTP logs' apart, as their rows are */
    sat_fields_see((s->fields & SAT_FIELDS_HTTP_SOURCE) ? &e->http.fields : &e->fields, s);
    return add_source(e, s->id, s->server, s->path, s->format, s->compression, s->bytes,
                      s->lines, s->rejects, s->truncated, s->utc_offset_s);
}

static int add_reject(sat_etime *e, uint32_t source, uint64_t line_no,
                      sat_str reason, sat_str excerpt)
{
    e->rejects_sampled_seen++;
    if (e->nrej >= ET_REJECT_SAMPLES)
        return SAT_OK;
    et_rej *r = &e->rej[e->nrej];
    r->source = source;
    r->line_no = line_no;
    r->reason = dup_str(reason, "");
    r->excerpt = dup_str(excerpt, "");
    if (!r->reason || !r->excerpt) {
        free(r->reason);
        free(r->excerpt);
        return SAT_E_NOMEM;
    }
    e->nrej++;
    return SAT_OK;
}

int et_on_reject(void *ctx, const sat_reject *r)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    return add_reject(e, r->source, r->line_no, r->reason, r->excerpt);
}

/* Sources: ids are the collection's (parts of one collection, or inputs a
 * caller numbered as one collection would), so a reject sample points at
 * its file whichever part holds the source row. Two results numbered apart
 * (an id in both) have from's ids shifted past ours. */
int et_inputs_merge(sat_etime *e, const sat_etime *from)
{
    uint32_t off = 0, max = 0;
    int clash = 0;
    for (size_t i = 0; i < e->nsrcs; i++) {
        if (e->srcs[i].id + 1 > max)
            max = e->srcs[i].id + 1;
        for (size_t k = 0; k < from->nsrcs && !clash; k++)
            clash = from->srcs[k].id == e->srcs[i].id;
    }
    if (clash)
        off = max;
    for (size_t i = 0; i < from->nsrcs; i++) {
        const et_src *s = &from->srcs[i];
        if (add_source(e, s->id + off, s->server, sat_str_cstr(s->path), sat_str_cstr(s->format),
                       sat_str_cstr(s->compression), s->bytes, s->lines, s->rejects,
                       s->truncated, s->utc_offset_s) < 0)
            return SAT_E_NOMEM;
    }
    uint64_t seen = e->rejects_sampled_seen;
    for (size_t i = 0; i < from->nrej; i++)
        if (add_reject(e, from->rej[i].source + off, from->rej[i].line_no,
                       sat_str_cstr(from->rej[i].reason),
                       sat_str_cstr(from->rej[i].excerpt)) < 0)
            return SAT_E_NOMEM;
    e->rejects_sampled_seen = seen + from->rejects_sampled_seen;
    return SAT_OK;
}

void et_inputs_free(sat_etime *e)
{
    for (size_t i = 0; i < e->nsrcs; i++) {
        free(e->srcs[i].path);
        free(e->srcs[i].format);
        free(e->srcs[i].compression);
    }
    free(e->srcs);
    e->srcs = NULL;
    e->nsrcs = 0;
    for (size_t i = 0; i < e->nrej; i++) {
        free(e->rej[i].reason);
        free(e->rej[i].excerpt);
    }
    e->nrej = 0;
}
