/*
 * cachesize_state.c - the cachesize analyzer's state in a partial
 * (analyze/state_io.h, `satscope partial`): the stream's counters (with
 * what the inputs can hold: state_fields.h), the references per hour, the
 * attributes the filters test, and the miss-ratio curve's stored reference
 * stream (each reference as kept, at its sampling threshold, with its runs
 * of hours). The curve itself is built at finish and not written; the
 * cn=monitor snapshots and the sizing inputs are options, not state. The
 * bound on stored references (an option that decides the sampling) is
 * written and a partial made with another is refused.
 */
#include <stdlib.h>

#include "cachesize_internal.h"
#include "state_fields.h"
#include "state_io.h"
#include "state_keys.h"

#define HOUR_NS (3600 * (int64_t)1000000000)

static void save_mrc(sat_sw *w, const cs_mrc *m)
{
    sat_sw_tag(w, "cachesize.mrc");
    sat_sw_u64(w, m->max_refs);
    sat_sw_u64(w, m->references);
    sat_sw_u64(w, m->keep_max);
    sat_sw_array(w, m->refs, m->nrefs, sizeof *m->refs);
    sat_sw_array(w, m->runs, m->nruns, sizeof *m->runs);
}

/* Into a fresh curve accumulator; the runs must cover the references in
 * order (the first at 0, none past the end), as the hours are read. */
static int load_mrc(sat_sr *r, cs_mrc *m)
{
    if (sat_sr_tag(r, "cachesize.mrc") != SAT_OK)
        return r->err;
    uint64_t max_refs = sat_sr_u64(r);
    if (sat_sr_ok(r) && max_refs != m->max_refs)
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "cachesize: made keeping %llu references, read keeping %llu",
                           (unsigned long long)max_refs, (unsigned long long)m->max_refs);
    m->references = sat_sr_u64(r);
    m->keep_max = sat_sr_u64(r);
    void *refs, *runs;
    size_t nrefs, nruns;
    if (sat_sr_array(r, &refs, &nrefs, sizeof *m->refs) != SAT_OK)
        return r->err;
    m->refs = refs;
    m->nrefs = m->cap = nrefs;
    if (sat_sr_array(r, &runs, &nruns, sizeof *m->runs) != SAT_OK)
        return r->err;
    m->runs = runs;
    m->nruns = m->runcap = nruns;
    if (nrefs > m->max_refs || nrefs > m->references)
        return sat_sr_fail(r, SAT_E_CORRUPT, "cachesize: %zu references kept of %llu (at most "
                           "%llu)", nrefs, (unsigned long long)m->references,
                           (unsigned long long)m->max_refs);
    if (nrefs && (!nruns || m->runs[0].at != 0))
        return sat_sr_fail(r, SAT_E_CORRUPT, "cachesize: references outside any hour");
    for (size_t i = 0; i < nruns; i++) {
        if (m->runs[i].at > nrefs || (i && m->runs[i].at < m->runs[i - 1].at))
            return sat_sr_fail(r, SAT_E_CORRUPT, "cachesize: hour %zu begins at reference %llu",
                               i, (unsigned long long)m->runs[i].at);
        int64_t h = m->runs[i].hour;
        if (h != INT64_MIN && (h > INT64_MAX / HOUR_NS - 1 || h < -(INT64_MAX / HOUR_NS - 1)))
            return sat_sr_fail(r, SAT_E_CORRUPT, "cachesize: hour %lld is no time", (long long)h);
    }
    return sat_sr_status(r);
}

int sat_cs_save(const sat_cs *c, sat_sw *w)
{
    if (!c)
        return SAT_E_USAGE;
    sat_sw_tag(w, "cachesize");
    cs_stream s = c->s; /* its reasons are pointers: written as texts after it */
    memset(s.fields.why, 0, sizeof s.fields.why);
    sat_sw_recs(w, &cs_stream_desc, &s, 1);
    sat_sw_fields_seen(w, &c->s.fields);
    sat_sw_keyed(w, &c->hours);
    sat_sw_keyed(w, &c->attrs);
    save_mrc(w, &c->mrc);
    sat_sw_u8(w, (uint8_t)(c->nomem != 0));
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

int sat_cs_load(sat_cs *c, sat_sr *r)
{
    if (!c || c->mrc.references || c->mrc.nrefs || sat_keyed_n(&c->hours))
        return SAT_E_USAGE; /* a fresh instance only */
    if (sat_sr_tag(r, "cachesize") != SAT_OK ||
        sat_sr_recs(r, &cs_stream_desc, &c->s, 1) != SAT_OK ||
        sat_sr_fields_seen(r, &c->s.fields) != SAT_OK || sat_sr_keyed(r, &c->hours) != SAT_OK ||
        sat_sr_win_keys(r, &c->hours.tab, HOUR_NS, "cachesize: an hour") != SAT_OK ||
        sat_sr_keyed(r, &c->attrs) != SAT_OK || load_mrc(r, &c->mrc) != SAT_OK)
        return r->err;
    c->nomem = sat_sr_u8(r) != 0;
    return sat_sr_status(r);
}
