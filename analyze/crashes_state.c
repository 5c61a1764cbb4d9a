/*
 * crashes_state.c - the crashes analyzer's state in a partial
 * (analyze/state_io.h, `satscope partial`): its entries (each {source,
 * crash} with its crash row and frames, through the trace schema:
 * state_rows.h), its load stream as bytes, its tallies, and its own storms
 * analyzer's state (sat_storms_save). A borrowed storms instance is not its
 * state (the set saves the lender as its own member): that it borrowed is
 * written and must be so again on load. Read back, the entries are added
 * to the fresh instance as a merge adds them (cr_add_entry), so that the
 * join, its index and the rows' strings in its arena are rebuilt, not
 * copied. What finish finds (the entries' matches, cr_found) comes after:
 * nothing of it is written. The frames bound (an option) is written and a
 * partial made with another is refused.
 */
#include <stdlib.h>

#include "crashes_internal.h"
#include "state_io.h"
#include "state_rows.h"

int sat_crashes_save(const sat_crashes *c, sat_sw *w)
{
    if (!c)
        return SAT_E_USAGE;
    sat_sw_tag(w, "crashes");
    sat_sw_u64(w, c->opts.max_frames);
    sat_sw_row_layout(w, SAT_TABLE_CRASH);
    sat_sw_row_layout(w, SAT_TABLE_FRAME);
    sat_sw_u64(w, c->nentries);
    for (size_t i = 0; i < c->nentries; i++) {
        const cr_entry *e = &c->entries[i];
        sat_sw_u32(w, e->key[0]);
        sat_sw_u32(w, e->key[1]);
        sat_sw_u8(w, (uint8_t)(e->have_row != 0));
        if (e->have_row)
            sat_sw_row(w, SAT_TABLE_CRASH, &e->row);
        sat_sw_u64(w, e->nframes);
        for (size_t f = 0; f < e->nframes; f++)
            sat_sw_row(w, SAT_TABLE_FRAME, &e->frames[f]);
    }
    sat_sw_tag(w, "crashes.load");
    sat_sw_blob(w, c->load.b, c->load.len);
    sat_sw_i64(w, c->load.prev_us);
    sat_sw_recs(w, &cr_tally_desc, &c->t, 1);
    sat_sw_u8(w, (uint8_t)(c->storms_borrowed != 0));
    if (!c->storms_borrowed) {
        int rc = sat_storms_save(c->storms, w);
        if (rc < 0)
            return rc;
    }
    sat_sw_u8(w, (uint8_t)(c->nomem != 0));
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

/* Entry i: its key, row and frames, added as a merge adds them. */
static int load_entry(sat_sr *r, sat_crashes *c, uint64_t i, sat_frame **frames, size_t *cap)
{
    uint32_t key[2];
    key[0] = sat_sr_u32(r);
    key[1] = sat_sr_u32(r);
    uint8_t have_row = sat_sr_u8(r);
    sat_crash row;
    if (sat_sr_ok(r) && have_row > 1)
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: entry %llu: a row flag of %u",
                           (unsigned long long)i, have_row);
    if (have_row && sat_sr_row(r, SAT_TABLE_CRASH, &row) == SAT_OK &&
        (row.source != key[0] || row.crash != key[1]))
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: entry %llu holds the row of another crash",
                           (unsigned long long)i);
    uint64_t n = sat_sr_count(r, 13 * 4); /* a frame's columns take more than that */
    if (sat_sr_ok(r) && n > CR_FRAMES_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: entry %llu: %llu frames",
                           (unsigned long long)i, (unsigned long long)n);
    if (n > *cap) {
        sat_frame *p = realloc(*frames, (size_t)n * sizeof *p);
        if (!p)
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        *frames = p;
        *cap = (size_t)n;
    }
    for (uint64_t f = 0; f < n && sat_sr_ok(r); f++)
        if (sat_sr_row(r, SAT_TABLE_FRAME, &(*frames)[f]) == SAT_OK &&
            ((*frames)[f].source != key[0] || (*frames)[f].crash != key[1]))
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "crashes: entry %llu holds a frame of another crash",
                               (unsigned long long)i);
    if (!sat_sr_ok(r))
        return sat_sr_status(r);
    cr_add_entry(c, key, have_row ? &row : NULL, *frames, (size_t)n);
    if (c->nomem)
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    if (c->nentries != i + 1 || (c->entries[i].have_row != 0) != have_row ||
        c->entries[i].nframes != n)
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "crashes: entry %llu is a crash already read, or one past the bound",
                           (unsigned long long)i);
    return SAT_OK;
}

int sat_crashes_load(sat_crashes *c, sat_sr *r)
{
    if (!c || c->nentries || c->load.len)
        return SAT_E_USAGE; /* a fresh instance only */
    if (sat_sr_tag(r, "crashes") != SAT_OK)
        return r->err;
    uint64_t max_frames = sat_sr_u64(r);
    if (sat_sr_ok(r) && max_frames != c->opts.max_frames)
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "crashes: made keeping %llu frames a thread, read keeping %zu",
                           (unsigned long long)max_frames, c->opts.max_frames);
    if (sat_sr_row_layout(r, SAT_TABLE_CRASH) != SAT_OK ||
        sat_sr_row_layout(r, SAT_TABLE_FRAME) != SAT_OK)
        return r->err;
    uint64_t n = sat_sr_count(r, 4 + 4 + 1 + 8);
    if (sat_sr_ok(r) && n > CR_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: %llu crashes (the most kept is %d)",
                           (unsigned long long)n, CR_MAX);
    sat_frame *frames = NULL;
    size_t cap = 0;
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++)
        load_entry(r, c, i, &frames, &cap);
    free(frames);
    if (sat_sr_tag(r, "crashes.load") != SAT_OK)
        return r->err;
    size_t len;
    const void *b = sat_sr_blob(r, &len);
    int64_t prev_us = sat_sr_i64(r);
    if (sat_sr_ok(r) && len > CR_LOAD_BYTES)
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: a load stream of %zu bytes", len);
    if (sat_sr_ok(r) && len) {
        if (!(c->load.b = malloc(len)))
            return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
        memcpy(c->load.b, b, len);
        c->load.len = c->load.cap = len;
    }
    c->load.prev_us = prev_us;
    /* after the entries: adding them counted nothing the tallies do not hold */
    if (sat_sr_recs(r, &cr_tally_desc, &c->t, 1) != SAT_OK)
        return r->err;
    uint8_t borrowed = sat_sr_u8(r);
    if (sat_sr_ok(r) && borrowed != (c->storms_borrowed != 0))
        return sat_sr_fail(r, SAT_E_CORRUPT, "crashes: made %s the storms analyzer of its set, "
                           "read %s", borrowed ? "reading" : "without",
                           c->storms_borrowed ? "reading it" : "without it");
    if (sat_sr_ok(r) && !borrowed) {
        int rc = sat_storms_load(c->storms, r);
        if (rc < 0)
            return sat_sr_ok(r) ? sat_sr_fail(r, rc, "crashes: its storms: %s", sat_strerror(rc))
                                : r->err;
    }
    c->nomem = sat_sr_u8(r) != 0;
    return sat_sr_status(r);
}
