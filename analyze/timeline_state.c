/*
 * timeline_state.c - the timeline analyzer's state in a partial
 * (analyze/state_io.h, `satscope partial`): its totals, its two series at
 * their steps, the cores' times and the inputs, written before finish and
 * read back into a fresh instance (created with the same options), which
 * then merges and finishes as the original would. Every member of struct
 * sat_timeline (timeline_int.h) is state; the window's bound (an option)
 * is written to refuse a partial made with another.
 */
#include <stdlib.h>

#include "state_io.h"
#include "state_keys.h"
#include "timeline_int.h"

int sat_timeline_save(const sat_timeline *t, sat_sw *w)
{
    if (!t)
        return SAT_E_USAGE;
    sat_sw_tag(w, "timeline");
    sat_sw_u64(w, t->max_windows);
    sat_sw_recs(w, &tl_tot_desc, &t->t, 1);
    sat_sw_i64(w, t->step);
    sat_sw_strtab(w, &t->win, &tl_win_desc);
    sat_sw_i64(w, t->hstep);
    sat_sw_strtab(w, &t->hrs, &tl_win_desc);
    sat_sw_strtab(w, &t->cores, &tl_core_desc);
    sat_sw_u64(w, t->nsrc);
    for (size_t i = 0; i < t->nsrc; i++) {
        const tl_src *s = &t->src[i];
        sat_sw_u32(w, s->id);
        sat_sw_i64(w, s->first_ts);
        sat_sw_i64(w, s->last_ts);
        sat_sw_u64(w, s->lines);
        sat_sw_u64(w, s->bytes);
        sat_sw_u64(w, s->rejects);
        sat_sw_u32(w, (uint32_t)s->utc_offset_s);
        sat_sw_u8(w, s->truncated);
        sat_sw_str(w, s->path);
        sat_sw_str(w, s->kind);
        sat_sw_str(w, s->format);
    }
    sat_sw_u8(w, (uint8_t)(t->nomem != 0));
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

/* A series' step, then its windows (int64 indices at that step). */
static int load_series(sat_sr *r, sat_strtab *tab, int64_t *step, int hour)
{
    int64_t s = sat_sr_i64(r);
    if (sat_sr_ok(r) && !tl_step_valid(s, hour))
        return sat_sr_fail(r, SAT_E_CORRUPT, "timeline: a %s step of %lld ns",
                           hour ? "local hours'" : "window", (long long)s);
    *step = s;
    if (sat_sr_strtab(r, tab, &tl_win_desc) != SAT_OK)
        return r->err;
    return sat_sr_win_keys(r, tab, s, "timeline: a window");
}

int sat_timeline_load(sat_timeline *t, sat_sr *r)
{
    if (!t || t->nsrc || t->win.n || t->hrs.n || t->cores.n)
        return SAT_E_USAGE; /* a fresh instance only */
    if (sat_sr_tag(r, "timeline") != SAT_OK)
        return r->err;
    uint64_t max = sat_sr_u64(r);
    if (sat_sr_ok(r) && max != t->max_windows)
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "timeline: made with at most %llu windows, read with %zu",
                           (unsigned long long)max, t->max_windows);
    if (sat_sr_recs(r, &tl_tot_desc, &t->t, 1) != SAT_OK ||
        load_series(r, &t->win, &t->step, 0) != SAT_OK ||
        load_series(r, &t->hrs, &t->hstep, 1) != SAT_OK ||
        sat_sr_strtab(r, &t->cores, &tl_core_desc) != SAT_OK ||
        sat_sr_keys_len(r, &t->cores, sizeof(uint32_t), "timeline: a core") != SAT_OK)
        return r->err;
    /* each input: at least its fixed fields and three string lengths */
    uint64_t n = sat_sr_count(r, 4 + 8 * 5 + 4 + 1 + 3 * 4);
    if (n && SAT_GROW(t->src, t->capsrc, (size_t)n) < 0)
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        tl_src *s = &t->src[t->nsrc];
        memset(s, 0, sizeof *s);
        s->id = sat_sr_u32(r);
        s->first_ts = sat_sr_i64(r);
        s->last_ts = sat_sr_i64(r);
        s->lines = sat_sr_u64(r);
        s->bytes = sat_sr_u64(r);
        s->rejects = sat_sr_u64(r);
        s->utc_offset_s = (int32_t)sat_sr_u32(r);
        s->truncated = sat_sr_u8(r);
        s->path = sat_sr_str(r);
        s->kind = sat_sr_str(r);
        s->format = sat_sr_str(r);
        t->nsrc++; /* its strings are freed with the instance, read or not */
    }
    t->nomem = sat_sr_u8(r) != 0;
    return sat_sr_status(r);
}
