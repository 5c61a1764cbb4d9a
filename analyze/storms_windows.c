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

void st_win_add(st_win *into, const st_win *from)
{
    for (int k = 0; k < SAT_STORM_KIND__COUNT; k++)
        into->kinds[k] += from->kinds[k];
    into->events += from->events;
    for (int i = 0; i < ST_BITS / 64; i++)
        into->bits[i] |= from->bits[i];
    into->ops += from->ops;
    into->unindexed += from->unindexed;
    into->opens += from->opens;
    into->hs_full += from->hs_full;
    into->hs_resumed += from->hs_resumed;
    into->timed += from->timed;
    into->wtime_n += from->wtime_n;
    into->wtime_sum_ns += from->wtime_sum_ns;
    for (int i = 0; i <= ST_HIST; i++) {
        into->hist[i] += from->hist[i];
        into->ans_hist[i] += from->ans_hist[i];
    }
    into->answered += from->answered;
    into->retries += from->retries;
    for (int i = 0; i < ST_MG; i++)
        if (from->mg_n[i])
            st_mg_add(into, from->mg_id[i], from->mg_n[i]);
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
    if (!s->first_ts || ts < s->first_ts)
        s->first_ts = ts;
    if (ts > s->last_ts)
        s->last_ts = ts;
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
