/*
 * storms_windows.c - the storms analyzer's windows (st_win): the window of a
 * series that holds a time, adding one window into another (with its heavy
 * hitters), widening and dropping a series, the log histogram of durations.
 */
#include <math.h>

#include "storms_internal.h"

int64_t st_window_of(sat_ts_ns ts, sat_dur_ns w)
{
    return sat_win_index(ts, w);
}

/* Misra-Gries over a window's operations: n more of client id. A full table
 * takes the newcomer in place of its smallest entry if it is larger (merge),
 * else every count goes down by n (the classic decrement). */
void st_mg_add(st_win *w, uint32_t id, uint32_t n)
{
    int free_slot = -1, min = 0;
    for (int i = 0; i < ST_MG; i++) {
        if (w->mg_n[i] && w->mg_id[i] == id) {
            w->mg_n[i] += n;
            return;
        }
        if (!w->mg_n[i] && free_slot < 0)
            free_slot = i;
        if (w->mg_n[i] < w->mg_n[min])
            min = i;
    }
    if (free_slot >= 0) {
        w->mg_id[free_slot] = id;
        w->mg_n[free_slot] = n;
    } else if (n > w->mg_n[min]) {
        w->mg_id[min] = id;
        w->mg_n[min] = n;
    } else {
        for (int i = 0; i < ST_MG; i++)
            w->mg_n[i] -= w->mg_n[i] < n ? w->mg_n[i] : n;
    }
}

uint32_t st_mg_count(const st_win *w, uint32_t id)
{
    for (int i = 0; i < ST_MG; i++)
        if (w->mg_n[i] && w->mg_id[i] == id)
            return w->mg_n[i];
    return 0;
}

/* A window's accumulators: the counts (failures by kind and in all, what a
 * storm sums, the load), the distinct-client bits, the wait sum; the 32-bit
 * histograms and the heavy hitters are the few fields merged by hand. */
static int win_merge_extra(void *into_v, const void *from_v)
{
    st_win *into = (st_win *)into_v;
    const st_win *from = (const st_win *)from_v;
    for (int i = 0; i <= ST_HIST; i++) {
        into->hist[i] += from->hist[i];
        into->ans_hist[i] += from->ans_hist[i];
    }
    for (int i = 0; i < ST_MG; i++)
        if (from->mg_n[i])
            st_mg_add(into, from->mg_id[i], from->mg_n[i]);
    return SAT_OK;
}

static const sat_acc_field win_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, st_win, kinds),
    SAT_ACC(SAT_ACC_COUNT, st_win, events),
    SAT_ACC_RUN(SAT_ACC_COUNT, st_win, sc),
    SAT_ACC_RUN(SAT_ACC_COUNT, st_win, ld),
    SAT_ACC_RUN(SAT_ACC_BITS, st_win, bits),
    SAT_ACC(SAT_ACC_SUM, st_win, wtime_sum_ns),
    SAT_ACC(SAT_ACC_SUM, st_win, optime_sum_ns)};
const sat_rec_desc st_win_desc = {sizeof(st_win), win_fields,
                                  sizeof win_fields / sizeof win_fields[0], win_merge_extra};

void st_win_add(st_win *into, const st_win *from)
{
    sat_rec_merge(&st_win_desc, into, from); /* no sketch: never out of memory */
}

void st_win_add_v(void *into, const void *from)
{
    st_win_add((st_win *)into, (const st_win *)from);
}

void st_widen(sat_storms *s, st_series *se, int64_t f)
{
    if (sat_win_widen(&se->windows, &se->window, f, sizeof(st_win), st_win_add_v) < 0)
        s->nomem = 1;
}

/* Stops counting a finer series (st_series.dropped): NULL. Whether it
 * happens depends only on how many windows the input fills, not on the
 * order of the rows nor on merges. */
st_win *st_drop_series(st_series *se)
{
    sat_strtab_free(&se->windows);
    sat_strtab_init(&se->windows, sizeof(st_win), 0);
    se->dropped = 1;
    return NULL;
}

/* The window of series i that holds ts (NULL: no time, out of memory, or a
 * series dropped). */
st_win *st_window_at(sat_storms *s, int i, sat_ts_ns ts)
{
    if (ts <= 0)
        return NULL;
    if (!s->t.first_ts || ts < s->t.first_ts)
        s->t.first_ts = ts;
    if (ts > s->t.last_ts)
        s->t.last_ts = ts;
    st_series *se = &s->ser[i];
    if (se->dropped || s->nomem)
        return NULL;
    int droppable = i < s->nser - 1;
    st_win *w = (st_win *)sat_win_at(&se->windows, &se->window, ts,
                                     droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win),
                                     st_win_add_v);
    if (!w)
        s->nomem = 1;
    else if (droppable && se->windows.n > ST_WINDOWS_MAX)
        w = st_drop_series(se);
    return w;
}

/* Log histogram of durations: bucket 0 up to 10 us, then factors of 1.25
 * (+-12%); the last bucket takes everything from about 6 minutes on. */
int st_hist_bucket(sat_dur_ns d)
{
    double us = (double)d / 1e3;
    int b = us <= 10.0 ? 0 : 1 + (int)(log(us / 10.0) / log(1.25));
    return b < 0 ? 0 : b >= ST_HIST ? ST_HIST - 1 : b;
}
