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

/* ---- as a partial's state (etime_state.c) ---------------------------------------------- */

void et_inputs_save(const sat_etime *e, sat_sw *w)
{
    sat_sw_tag(w, "etime.inputs");
    sat_sw_u64(w, e->nsrcs);
    for (size_t i = 0; i < e->nsrcs; i++) {
        const et_src *s = &e->srcs[i];
        sat_sw_u32(w, s->id);
        sat_sw_u32(w, s->server);
        sat_sw_str(w, s->path);
        sat_sw_str(w, s->format);
        sat_sw_str(w, s->compression);
        sat_sw_u64(w, s->bytes);
        sat_sw_u64(w, s->lines);
        sat_sw_u64(w, s->rejects);
        sat_sw_u8(w, (uint8_t)(s->truncated != 0));
        sat_sw_u32(w, (uint32_t)s->utc_offset_s);
    }
    sat_sw_u64(w, e->rejects_sampled_seen);
    sat_sw_u64(w, e->nrej);
    for (size_t i = 0; i < e->nrej; i++) {
        sat_sw_u32(w, e->rej[i].source);
        sat_sw_u64(w, e->rej[i].line_no);
        sat_sw_str(w, e->rej[i].reason);
        sat_sw_str(w, e->rej[i].excerpt);
    }
}

/* A string the state must hold (an input's path, a reject's reason). */
static char *need_str(sat_sr *r, const char *what)
{
    char *s = sat_sr_str(r);
    if (!s && sat_sr_ok(r))
        sat_sr_fail(r, SAT_E_CORRUPT, "etime.inputs: no %s", what);
    return s;
}

/* The inputs as add_source and add_reject took them (the rejects' total is
 * the sum over the inputs, as for rows). */
int et_inputs_load(sat_etime *e, sat_sr *r)
{
    if (sat_sr_tag(r, "etime.inputs") != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_count(r, 4 + 4 + 3 * 4 + 3 * 8 + 1 + 4);
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        uint32_t id = sat_sr_u32(r), server = sat_sr_u32(r);
        char *path = need_str(r, "path"), *format = need_str(r, "format"),
             *compression = need_str(r, "compression");
        uint64_t bytes = sat_sr_u64(r), lines = sat_sr_u64(r), rejects = sat_sr_u64(r);
        uint8_t truncated = sat_sr_u8(r);
        int32_t off = (int32_t)sat_sr_u32(r);
        if (sat_sr_ok(r) && truncated > 1)
            sat_sr_fail(r, SAT_E_CORRUPT, "etime.inputs: a truncation flag of %u", truncated);
        if (sat_sr_ok(r) &&
            add_source(e, id, server, sat_str_cstr(path), sat_str_cstr(format),
                       sat_str_cstr(compression), bytes, lines, rejects, truncated, off) != SAT_OK)
            sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        free(path);
        free(format);
        free(compression);
    }
    uint64_t seen = sat_sr_u64(r);
    uint64_t nrej = sat_sr_count(r, 4 + 8 + 4 + 4);
    if (sat_sr_ok(r) && (nrej > ET_REJECT_SAMPLES || seen < nrej))
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "etime.inputs: %llu sampled rejects of %llu seen (at most %d)",
                           (unsigned long long)nrej, (unsigned long long)seen,
                           ET_REJECT_SAMPLES);
    for (uint64_t i = 0; i < nrej && sat_sr_ok(r); i++) {
        uint32_t source = sat_sr_u32(r);
        uint64_t line_no = sat_sr_u64(r);
        char *reason = need_str(r, "reason"), *excerpt = need_str(r, "excerpt");
        if (sat_sr_ok(r) && add_reject(e, source, line_no, sat_str_cstr(reason),
                                       sat_str_cstr(excerpt)) != SAT_OK)
            sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        free(reason);
        free(excerpt);
    }
    e->rejects_sampled_seen = seen;
    return sat_sr_status(r);
}
