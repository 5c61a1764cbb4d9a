/*
 * handshakes_state.c - the handshakes analyzer's state in a partial
 * (analyze/state_io.h, `satscope partial`): its totals (with the duration
 * and RTT sketches), the window series at its step, the version and --by
 * tables, the connections and failures kept for the retry rule (matched
 * only at finish, once every part is in: so they are state), and the parts
 * of the HTTP access logs (handshakes_http.c) and of the directory-server
 * logs (handshakes_dirlog.c), each written by the file that keeps it. The
 * options that change what the state means (the window, --by) are written
 * and a partial made with others is refused; the rest (costs, the retry
 * window, the top) only shape finish and the result.
 */
#include <stdlib.h>

#include "handshakes_int.h"
#include "state_io.h"
#include "state_keys.h"

#define TRY_BYTES (8 * 4 + 4 + 1 + 4)

int hs_step_valid(sat_dur_ns width, sat_dur_ns base)
{
    if (base <= 0)
        return 0;
    while (base < width && base <= INT64_MAX / 2)
        base *= 2;
    return base == width;
}

/* The retry rule's connections, member by member (their padding is no state). */
static void save_tries(sat_sw *w, const sat_hs *h)
{
    sat_sw_u64(w, h->ntries);
    for (size_t i = 0; i < h->ntries; i++) {
        const hs_try *a = &h->tries[i];
        sat_sw_u64(w, a->t.peer);
        sat_sw_i64(w, a->t.syn_ts);
        sat_sw_i64(w, a->t.gave_up_ts);
        sat_sw_i64(w, a->t.conn);
        sat_sw_u32(w, a->t.flow);
        sat_sw_u8(w, a->t.failed);
        sat_sw_u32(w, a->source);
    }
    sat_sw_array(w, h->failed, h->nfailed, sizeof *h->failed);
    sat_sw_u64(w, h->tries_lost);
}

static int load_tries(sat_sr *r, sat_hs *h)
{
    uint64_t n = sat_sr_count(r, TRY_BYTES);
    if (sat_sr_ok(r) && n > HS_TRIES_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: %llu connections for the retry rule",
                           (unsigned long long)n);
    if (n && !(h->tries = calloc((size_t)n, sizeof *h->tries)))
        return sat_sr_fail(r, SAT_E_NOMEM, "out of memory");
    h->tries_cap = (size_t)n;
    for (uint64_t i = 0; i < n && sat_sr_ok(r); i++) {
        hs_try *a = &h->tries[h->ntries++];
        a->t.peer = sat_sr_u64(r);
        a->t.syn_ts = sat_sr_i64(r);
        a->t.gave_up_ts = sat_sr_i64(r);
        a->t.conn = sat_sr_i64(r);
        a->t.flow = sat_sr_u32(r);
        a->t.failed = sat_sr_u8(r);
        a->source = sat_sr_u32(r);
    }
    void *failed;
    size_t nfailed;
    if (sat_sr_array(r, &failed, &nfailed, sizeof *h->failed) != SAT_OK)
        return r->err;
    h->failed = failed;
    h->nfailed = h->failed_cap = nfailed;
    if (nfailed > HS_TRIES_MAX)
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: %zu failures for the retry rule",
                           nfailed);
    h->tries_lost = sat_sr_u64(r);
    return sat_sr_status(r);
}

int sat_hs_save(const sat_hs *h, sat_sw *w)
{
    if (!h)
        return SAT_E_USAGE;
    sat_sw_tag(w, "handshakes");
    sat_sw_i64(w, h->opts.window);
    sat_sw_u32(w, (uint32_t)h->opts.by);
    sat_sw_recs(w, &hs_totals_desc, &h->t, 1);
    sat_sw_i64(w, h->window);
    sat_sw_strtab(w, &h->windows, &hs_counts_desc);
    sat_sw_keyed(w, &h->versions);
    sat_sw_keyed(w, &h->groups);
    save_tries(w, h);
    hs_log_save(h->log, w);
    hs_dir_save(h->dir, w);
    sat_sw_u8(w, (uint8_t)(h->nomem != 0));
    return sat_sw_ok(w) ? SAT_OK : SAT_E_NOMEM;
}

int sat_hs_load(sat_hs *h, sat_sr *r)
{
    if (!h || h->ntries || h->nfailed || h->windows.n || sat_keyed_n(&h->versions))
        return SAT_E_USAGE; /* a fresh instance only */
    if (sat_sr_tag(r, "handshakes") != SAT_OK)
        return r->err;
    sat_dur_ns base = sat_sr_i64(r);
    uint32_t by = sat_sr_u32(r);
    if (sat_sr_ok(r) && base != h->opts.window)
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: made with windows of %lld ns, read "
                           "with %lld ns", (long long)base, (long long)h->opts.window);
    if (sat_sr_ok(r) && by != (uint32_t)h->opts.by)
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: made with --by %u, read with --by %d",
                           by, h->opts.by);
    if (sat_sr_recs(r, &hs_totals_desc, &h->t, 1) != SAT_OK)
        return r->err;
    sat_dur_ns window = sat_sr_i64(r);
    if (sat_sr_ok(r) && !hs_step_valid(window, h->opts.window))
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: windows of %lld ns", (long long)window);
    h->window = window;
    if (sat_sr_strtab(r, &h->windows, &hs_counts_desc) != SAT_OK ||
        sat_sr_win_keys(r, &h->windows, h->window, "handshakes: a window") != SAT_OK ||
        sat_sr_keyed(r, &h->versions) != SAT_OK ||
        sat_sr_keys_len(r, &h->versions.tab, sizeof(uint16_t), "handshakes: a version") !=
            SAT_OK ||
        sat_sr_keyed(r, &h->groups) != SAT_OK || load_tries(r, h) != SAT_OK ||
        hs_log_load(h->log, r) != SAT_OK || hs_dir_load(h->dir, r) != SAT_OK)
        return r->err;
    h->nomem = sat_sr_u8(r) != 0;
    return sat_sr_status(r);
}
