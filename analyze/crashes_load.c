/*
 * crashes_load.c - the load before each crash (crashes_internal.h): the
 * operations, connections and handshakes of the inputs kept as a compact
 * stream of (time in microseconds, kind), delta-coded varints of about 2
 * bytes each, since crash rows may come before or after the rows of their
 * period (cores first, a trace's crash table last); at finish, one pass over
 * the stream counts the load of every crash's minute before and of the same
 * length before that ("usual").
 *
 * The minute before a crash is [ts - context, ts]: it ends at the crash
 * itself, not at a window boundary (a kill 6.7 s after one would leave out
 * the busiest seconds). "Usual" is the same length of time just before it,
 * [ts - 2 context, ts - context), scaled up from the part the inputs cover
 * when they start later (and the report says so), never the whole input.
 */
#include <stdlib.h>

#include "crashes_internal.h"

void cr_load_put(cr_load *l, cr_tally *t, sat_ts_ns ts, unsigned kind)
{
    /* a row takes at most 11 bytes; the stream stops at CR_LOAD_BYTES (a
     * power of two: the doubling reaches it exactly) */
    if (l->len + 11 > CR_LOAD_BYTES || SAT_GROW(l->b, l->cap, l->len + 11) < 0) {
        t->load_cut++;
        return;
    }
    int64_t us = ts / 1000;
    int64_t d = us - l->prev_us;
    uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
    uint64_t v = (z << 3) | kind;
    if (z >> 60) { /* a delta too wide for the kind bits: never for real times */
        t->load_cut++;
        return;
    }
    while (v >= 0x80) {
        l->b[l->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    l->b[l->len++] = (uint8_t)v;
    l->prev_us = us;
    sat_acc_first(&t->load_first, ts, NULL, 0);
    sat_acc_last(&t->load_last, ts, NULL, 0);
}

int cr_load_next(const cr_load *l, size_t *pos, int64_t *us, unsigned *kind)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (*pos < l->len && shift < 64) {
        uint8_t b = l->b[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            *kind = (unsigned)(v & 7);
            uint64_t z = v >> 3;
            *us += (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
            return 1;
        }
    }
    return 0;
}



typedef struct cr_when {
    int64_t to_us, from_us, from2_us; /* ts, ts - context, ts - 2 context */
    size_t i;                         /* the crash */
    uint64_t usual;                   /* operations in [from2, from) */
} cr_when;

static int cmp_when(const void *a, const void *b)
{
    const cr_when *x = a, *y = b;
    return x->to_us < y->to_us ? -1 : x->to_us > y->to_us;
}

int cr_contexts(sat_crashes *c, cr_info *ci, size_t n, const sat_storms_view *sv)
{
    for (size_t i = 0; i < n; i++)
        ci[i].ctx.storm = -1;
    if (!c->t.have_load)
        return SAT_OK;
    sat_dur_ns ctx = c->opts.context;
    cr_when *w = (cr_when *)calloc(n + 1, sizeof *w);
    if (!w)
        return SAT_E_NOMEM;
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        sat_ts_ns ts = ci[i].row.ts;
        if (ts <= 0)
            continue;
        w[nw].to_us = ts / 1000;
        w[nw].from_us = (ts - ctx) / 1000;
        w[nw].from2_us = (ts - 2 * ctx) / 1000;
        w[nw].i = i;
        nw++;
    }
    qsort(w, nw, sizeof *w, cmp_when);
    size_t pos = 0;
    int64_t us = 0;
    unsigned kind;
    while (nw && cr_load_next(&c->load, &pos, &us, &kind)) {
        /* the crashes whose two periods hold us: to >= us and from2 <= us
         * (every period has the same length, so from2 grows with to) */
        size_t lo = 0, hi = nw;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (w[mid].to_us < us)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < nw && w[k].from2_us <= us; k++) {
            if (us < w[k].from_us) {
                w[k].usual += kind == LK_OP || kind == LK_OP_ERR;
                continue;
            }
            cr_context *x = &ci[w[k].i].ctx;
            x->have = 1;
            x->ops += kind == LK_OP || kind == LK_OP_ERR;
            x->errors += kind == LK_OP_ERR;
            x->conn_opens += kind == LK_OPEN;
            x->handshakes += kind == LK_HS || kind == LK_HS_FULL;
            x->hs_full += kind == LK_HS_FULL;
        }
    }
    for (size_t k = 0; k < nw; k++) {
        cr_info *info = &ci[w[k].i];
        cr_context *x = &info->ctx;
        sat_ts_ns ts = info->row.ts;
        x->from_ts = ts - ctx;
        x->to_ts = ts;
        /* the inputs cover the period when their load rows run across it */
        if (c->t.load_first <= ts && c->t.load_last >= x->from_ts)
            x->have = 1;
        x->usual_from_ts = ts - 2 * ctx;
        if (c->t.load_first > x->usual_from_ts)
            x->usual_from_ts = c->t.load_first;
        sat_dur_ns covered = x->from_ts - x->usual_from_ts;
        /* scaled from what the inputs hold of it; a sliver (under a tenth of
         * the period, or a second) says nothing */
        if (covered >= ctx / 10 && covered >= 1000000000)
            x->usual_ops = (double)w[k].usual * (double)ctx / (double)covered;
        else
            x->usual_ops = -1;
        for (size_t i = 0; sv && i < sv->nstorms; i++) {
            const sat_storm *st = &sv->storms[i];
            if (st->start_ts <= ts && st->end_ts >= x->from_ts) {
                x->storm = (int)i;
                break;
            }
        }
    }
    free(w);
    return SAT_OK;
}

