/*
 * multi.c - several analyzers fed by one pass over the inputs (analyze.h,
 * "multi"): the report and chart commands read each row once and hand it to
 * every analyzer that takes its table. The set is itself an analyzer (the
 * same create / sink / finish / merge / free), so the CLI's parallel
 * collection (one instance per input, merged in input order) works for it
 * unchanged: merging two sets merges member by member.
 *
 * Stopping: a member whose sink returns SAT_E_STOP gets no more rows; the
 * producer is told to stop only when every member has. Another error of a
 * member is returned once every member has had the row, so that one
 * analyzer out of memory does not starve the others of it.
 */
#include <stdlib.h>
#include <string.h>

#include "satscope/analyze.h"
#include "state_io.h"

struct sat_multi {
    size_t n;
    const sat_multi_member *members; /* = own */
    sat_multi_member *own;
    void **objs;
    sat_event_sink *sinks;
    unsigned char *stopped;
    size_t nstopped;
};

sat_multi *sat_multi_create(const sat_multi_opts *o)
{
    if (!o || !o->n)
        return NULL;
    sat_multi *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->n = o->n;
    m->own = calloc(o->n, sizeof *m->own);
    m->objs = calloc(o->n, sizeof *m->objs);
    m->sinks = calloc(o->n, sizeof *m->sinks);
    m->stopped = calloc(o->n, 1);
    if (!m->own || !m->objs || !m->sinks || !m->stopped) {
        sat_multi_free(m);
        return NULL;
    }
    memcpy(m->own, o->members, o->n * sizeof *m->own);
    m->members = m->own;
    for (size_t i = 0; i < o->n; i++) {
        if (!(m->objs[i] = m->members[i].a->create(m->members[i].opts))) {
            sat_multi_free(m);
            return NULL;
        }
        m->sinks[i] = m->members[i].a->sink(m->objs[i]);
    }
    /* a member that reads another's finished instance borrows it (analyze.h) */
    for (size_t i = 0; i < m->n; i++) {
        const sat_analyzer *a = m->members[i].a;
        for (size_t j = 0; a->reads && a->borrow && j < m->n; j++)
            if (j != i && !strcmp(m->members[j].a->name, a->reads)) {
                a->borrow(m->objs[i], m->objs[j]);
                break;
            }
    }
    return m;
}

void sat_multi_free(sat_multi *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->objs && i < m->n; i++)
        if (m->objs[i])
            m->members[i].a->free(m->objs[i]);
    free(m->objs);
    free(m->sinks);
    free(m->stopped);
    free(m->own);
    free(m);
}

static int multi_row(void *ctx, int table, const void *row)
{
    sat_multi *m = ctx;
    int rc = SAT_OK;
    for (size_t i = 0; i < m->n; i++) {
        if (m->stopped[i] || !sat_sink_wants(&m->sinks[i], table))
            continue;
        int r = m->sinks[i].on_row(m->sinks[i].ctx, table, row);
        if (r == SAT_E_STOP) {
            m->stopped[i] = 1;
            m->nstopped++;
        } else if (r < 0 && rc == SAT_OK) {
            rc = r;
        }
    }
    if (rc == SAT_OK && m->nstopped == m->n)
        rc = SAT_E_STOP;
    return rc;
}

sat_event_sink sat_multi_sink(sat_multi *m)
{
    sat_event_sink s = {m, 0, multi_row};
    for (size_t i = 0; m && i < m->n; i++)
        if (m->sinks[i].on_row)
            s.tables |= m->sinks[i].tables;
    return s;
}

/* Those that read another's instance last: what they read is finished. */
int sat_multi_finish(sat_multi *m)
{
    int rc = SAT_OK;
    for (int readers = 0; readers < 2; readers++)
        for (size_t i = 0; m && i < m->n; i++) {
            if ((m->members[i].a->reads != NULL) != readers)
                continue;
            int r = m->members[i].a->finish(m->objs[i]);
            if (r < 0 && rc == SAT_OK)
                rc = r;
        }
    return rc;
}

int sat_multi_merge(sat_multi *into, const sat_multi *from)
{
    if (!into || !from || into->n != from->n)
        return SAT_E_USAGE;
    int rc = SAT_OK;
    for (size_t i = 0; i < into->n; i++) {
        if (into->members[i].a != from->members[i].a)
            return SAT_E_USAGE;
        int r = into->members[i].a->merge(into->objs[i], from->objs[i]);
        if (r < 0 && rc == SAT_OK)
            rc = r;
    }
    return rc;
}

int sat_multi_focus(sat_multi *m, const sat_span *spans, size_t n)
{
    int rc = SAT_OK;
    for (size_t i = 0; m && i < m->n; i++) {
        if (!m->members[i].a->focus)
            continue;
        int r = m->members[i].a->focus(m->objs[i], spans, n);
        if (r < 0 && rc == SAT_OK)
            rc = r;
    }
    return rc;
}

size_t sat_multi_count(const sat_multi *m) { return m ? m->n : 0; }

void *sat_multi_member_named(const sat_multi *m, const char *name)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (!strcmp(m->members[i].name ? m->members[i].name : m->members[i].a->name, name))
            return m->objs[i];
    return NULL;
}

void *sat_multi_member_obj(const sat_multi *m, size_t i)
{
    return m && i < m->n ? m->objs[i] : NULL;
}

int sat_multi_results(const sat_multi *m, sat_result **results)
{
    int rc = SAT_OK;
    for (size_t i = 0; m && i < m->n; i++) {
        const sat_analyzer *a = m->members[i].a;
        results[i] = sat_result_new(m->members[i].name ? m->members[i].name : a->name);
        int r = results[i] ? a->result(m->objs[i], results[i]) : SAT_E_NOMEM;
        if (r == SAT_OK && results[i])
            r = sat_result_status(results[i]);
        if (r < 0 && rc == SAT_OK)
            rc = r;
    }
    return rc;
}

/* Member by member, each under its role's name (a partial of another plan
 * is refused by name, not misread), with whether it stopped taking rows. */
int sat_multi_save(const sat_multi *m, sat_sw *w)
{
    sat_sw_u32(w, (uint32_t)m->n);
    for (size_t i = 0; i < m->n; i++) {
        const sat_analyzer *a = m->members[i].a;
        if (!a->save)
            return SAT_E_UNSUPPORTED;
        sat_sw_tag(w, m->members[i].name ? m->members[i].name : a->name);
        sat_sw_u8(w, m->stopped[i]);
        int rc = a->save(m->objs[i], w);
        if (rc < 0)
            return rc;
    }
    return w->nomem ? SAT_E_NOMEM : SAT_OK;
}

int sat_multi_load(sat_multi *m, sat_sr *r)
{
    uint32_t n = sat_sr_u32(r);
    if (sat_sr_ok(r) && n != m->n)
        return sat_sr_fail(r, SAT_E_CORRUPT, "a set of %u analyzers where %zu are expected", n,
                           m->n);
    for (size_t i = 0; i < m->n && sat_sr_ok(r); i++) {
        const sat_analyzer *a = m->members[i].a;
        if (sat_sr_tag(r, m->members[i].name ? m->members[i].name : a->name) != SAT_OK)
            break;
        if (!a->load)
            return sat_sr_fail(r, SAT_E_UNSUPPORTED, "%s cannot be read from a partial",
                               a->name);
        uint8_t stopped = sat_sr_u8(r);
        if (stopped && !m->stopped[i]) {
            m->stopped[i] = 1;
            m->nstopped++;
        }
        int rc = a->load(m->objs[i], r);
        if (rc < 0 && sat_sr_ok(r))
            sat_sr_fail(r, rc, "%s: %s", a->name, sat_strerror(rc));
    }
    return sat_sr_status(r);
}

static void *multi_create(const void *opts) { return sat_multi_create(opts); }
static sat_event_sink multi_sink(void *a) { return sat_multi_sink(a); }
static int multi_finish(void *a) { return sat_multi_finish(a); }
static int multi_merge(void *into, const void *from) { return sat_multi_merge(into, from); }
static void multi_free(void *a) { sat_multi_free(a); }
static int multi_save(const void *a, sat_sw *w) { return sat_multi_save(a, w); }
static int multi_load(void *a, sat_sr *r) { return sat_multi_load(a, r); }
/* The set has no result of its own (sat_multi_results gives one per member),
 * so the table is for the collection, which creates, feeds, merges and frees. */
const sat_analyzer sat_multi_analyzer = {
    "multi", "several analyzers fed by one pass", multi_create, multi_sink, multi_finish,
    multi_merge, multi_free, NULL, NULL, NULL, NULL, multi_save, multi_load};
