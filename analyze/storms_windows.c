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
    if (se->last && se->last_step == se->window && sat_win_index(ts, se->window) == se->last_k)
        return se->last;
    int droppable = i < s->nser - 1;
    st_win *w = (st_win *)sat_win_at(&se->windows, &se->window, ts,
                                     droppable ? SIZE_MAX : ST_WINDOWS_MAX, sizeof(st_win),
                                     st_win_add_v);
    if (!w)
        s->nomem = 1;
    else if (droppable && se->windows.n > ST_WINDOWS_MAX)
        w = st_drop_series(se);
    se->last = w;
    se->last_k = w ? sat_win_index(ts, se->window) : 0;
    se->last_step = se->window;
    return w;
}

/* Log histogram of durations: bucket 0 up to 10 us, then factors of 1.25
 * (+-12%); the last bucket takes everything from about 6 minutes on. */
/* The least duration (ns) of each bucket b = 1 .. ST_HIST - 1: bucket b
 * holds 10 us x 1.25^(b-1) .. 10 us x 1.25^b, i.e. the rule
 *     us <= 10 ? 0 : 1 + floor(log(us / 10) / log(1.25)), at most ST_HIST - 1
 * taken to the nanosecond (each threshold the least d the rule puts in b,
 * so the table gives the rule's buckets exactly: tests/unit/test_storms.c),
 * and looked up by bisection: a log per operation was 3% of a report. */
static const int64_t hist_lo[ST_HIST - 1] = {
    10001LL, 12500LL, 15625LL, 19532LL, 24415LL,
    30518LL, 38147LL, 47684LL, 59605LL, 74506LL,
    93133LL, 116416LL, 145520LL, 181899LL, 227374LL,
    284218LL, 355272LL, 444090LL, 555112LL, 693890LL,
    867362LL, 1084203LL, 1355253LL, 1694066LL, 2117583LL,
    2646978LL, 3308723LL, 4135904LL, 5169879LL, 6462349LL,
    8077936LL, 10097420LL, 12621775LL, 15777219LL, 19721523LL,
    24651904LL, 30814880LL, 38518599LL, 48148249LL, 60185311LL,
    75231639LL, 94039549LL, 117549436LL, 146936794LL, 183670993LL,
    229588741LL, 286985926LL, 358732407LL, 448415509LL, 560519386LL,
    700649233LL, 875811541LL, 1094764426LL, 1368455532LL, 1710569415LL,
    2138211769LL, 2672764711LL, 3340955888LL, 4176194860LL, 5220243575LL,
    6525304468LL, 8156630585LL, 10195788232LL, 12744735290LL, 15930919112LL,
    19913648890LL, 24892061112LL, 31115076390LL, 38893845487LL, 48617306859LL,
    60771633573LL, 75964541967LL, 94955677458LL, 118694596822LL, 148368246028LL,
    185460307535LL, 231825384418LL, 289781730523LL, 362227163154LL,
};

int st_hist_bucket(sat_dur_ns d)
{
    int lo = 0, hi = ST_HIST - 1; /* the number of thresholds <= d */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (hist_lo[mid] <= d)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
