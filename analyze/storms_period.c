/*
 * storms_period.c - st_finish_plain (one server's rows: storms_servers.c): the
 * periods of the input, the step each is read at, and each period's windows
 * through the detector into storms.
 *
 * Windows: with --window, that step; without, every row is counted at 1, 2,
 * 5 and 10 s at once, the input is cut into periods at silences of an hour
 * or more (find_periods: last month's log and today's capture are two), and
 * each period is read at the longest step that gives it 30 windows, else 1 s
 * (choose_step). A storm, its baseline and its look back belong to one period.
 */
#include "storms_internal.h"

typedef struct st_period {
    sat_ts_ns start_ts, end_ts;
} st_period;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted window indexes of a series (malloc'd; NULL when out of memory). */
static int64_t *sorted_keys(const st_series *se)
{
    int64_t *k = (int64_t *)malloc((se->windows.n + 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < se->windows.n; i++)
        memcpy(&k[i], sat_strtab_key(&se->windows, i), sizeof *k);
    qsort(k, se->windows.n, sizeof *k, cmp_i64);
    return k;
}

/* The periods of the input: runs of the finest series' windows (any row of
 * any table makes a window) separated by a silence of at least
 * ST_PERIOD_GAP_NS, and at least twice the widest step counted (so
 * that no window of any step holds rows of two periods). Inputs from
 * different times (last month's log and today's capture) are then analysed
 * each on its own: one baseline across a month of nothing would mean nothing,
 * and a step to span both would drown the storms. */
static const st_series *finest(const sat_storms *s)
{
    int i = 0;
    while (i < s->nser - 1 && s->ser[i].dropped)
        i++;
    return &s->ser[i];
}

static st_period *find_periods(sat_storms *s, size_t *np)
{
    const st_series *f = finest(s);
    int64_t *k = sorted_keys(f);
    st_period *p = (st_period *)malloc((f->windows.n + 1) * sizeof *p);
    if (!k || !p) {
        free(k);
        free(p);
        return NULL;
    }
    sat_dur_ns widest = 0;
    for (int i = 0; i < s->nser; i++)
        if (!s->ser[i].dropped)
            widest = s->ser[i].window > widest ? s->ser[i].window : widest;
    sat_dur_ns gap = ST_PERIOD_GAP_NS > 2 * widest ? ST_PERIOD_GAP_NS : 2 * widest;
    size_t n = 0;
    for (size_t i = 0; i < f->windows.n; i++) {
        sat_ts_ns a = k[i] * f->window, b = a + f->window;
        if (n && a - p[n - 1].end_ts < gap) {
            p[n - 1].end_ts = b;
            continue;
        }
        p[n].start_ts = a;
        p[n++].end_ts = b;
    }
    free(k);
    *np = n;
    return p;
}

/* windows of step w over [a, b) */
static int64_t windows_over(sat_ts_ns a, sat_ts_ns b, sat_dur_ns w)
{
    return sat_win_index(b - 1, w) - sat_win_index(a, w) + 1;
}

/* The step of a period: the option's; else the longest of st_auto_steps
 * that gives it at least ST_BASELINE_WINDOWS windows (the
 * detector's warm-up and each storm's look back at what rose are 30
 * windows: fewer and there is no baseline to stand out from), else the
 * shortest, 1 s (a client gives up after a second or more: shorter windows
 * would only cut one wave of give-ups into pieces). 10 s, the longest, is
 * what a log of an hour or more gets. Returns the series' index. */
static int choose_step(const sat_storms *s, st_period_found *pp)
{
    int si = 0;
    pp->windows_at_longest = windows_over(pp->start_ts, pp->end_ts, st_auto_steps[ST_SERIES_MAX - 1]);
    if (!s->auto_window) {
        pp->why = ST_WIN_OPTION;
    } else {
        pp->why = ST_WIN_SHORTEST;
        for (int i = s->nser - 1; i >= 0; i--)
            if (windows_over(pp->start_ts, pp->end_ts, s->ser[i].base) >=
                ST_BASELINE_WINDOWS) {
                si = i;
                pp->why = i == s->nser - 1 ? ST_WIN_LONGEST : ST_WIN_SHORTER;
                break;
            }
    }
    pp->chosen = s->ser[si].base;
    while (si < s->nser - 1 && s->ser[si].dropped)
        si++; /* a long input beside this period: the finest step still counted */
    return si;
}

/* The floor of a period's baseline: half a failure per 10 s (a handful
 * stands out from none), less in shorter windows, at most ST_FLOOR a window. */
double st_baseline_floor(sat_dur_ns step)
{
    double floor = 0.05 * (double)step / 1e9;
    return floor < ST_FLOOR ? floor : ST_FLOOR;
}

/* The inputs whose time range meets the period, in the order read. */
static int period_inputs(sat_storms *s, st_period_found *pp)
{
    const char **in = (const char **)sat_arena_alloc(&s->found.arena,
                                                     (sat_keyed_n(&s->sources) + 1) * sizeof *in);
    if (!in)
        return SAT_E_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < sat_keyed_n(&s->sources); i++) { /* in the order read */
        const st_src *r = (const st_src *)sat_keyed_rec(&s->sources, i);
        if (r->first_ts < pp->end_ts && r->last_ts >= pp->start_ts)
            in[n++] = sat_keyed_key(&s->sources, i);
    }
    pp->inputs = in;
    pp->ninputs = n;
    return SAT_OK;
}

/* One period at one series: its dense windows (a period longer than
 * 4 x ST_WINDOWS_MAX of them is read at a power-of-two multiple of the
 * step, so the dense array stays bounded too), the detector, its storms. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Storms with only silence between them are one storm: windows in which the
 * log holds under half the usual operations (the median of the 30 windows
 * before the first storm) are a server not answering, not a calm that ended
 * the storm - a real slapd whose threads a batch holds writes neither the
 * clients' failures nor their reconnects until a thread is free. Returns
 * the spans left. */
static size_t join_across_silence(const st_win *w, sat_storm_span *sp, size_t found)
{
    if (found < 2 || sp[0].start < 4)
        return found;
    uint64_t ops[30];
    size_t nb = 0;
    for (size_t t = sp[0].start >= 30 ? sp[0].start - 30 : 0; t < sp[0].start; t++)
        ops[nb++] = w[t].ld.ops;
    qsort(ops, nb, sizeof *ops, cmp_u64);
    double usual = (double)ops[(nb - 1) / 2];
    if (!(usual > 0))
        return found;
    size_t k = 0;
    for (size_t i = 1; i < found; i++) {
        int silent = 1;
        for (size_t t = sp[k].end + 1; t < sp[i].start && silent; t++)
            silent = (double)w[t].ld.ops < 0.5 * usual;
        if (!silent) {
            sp[++k] = sp[i];
            continue;
        }
        if (w[sp[i].peak].events > w[sp[k].peak].events)
            sp[k].peak = sp[i].peak;
        sp[k].end = sp[i].end;
    }
    return k + 1;
}

static int analyse_period(sat_storms *s, const st_series *se, const int64_t *keys,
                          st_period_found *pp, size_t pidx, sat_storm **all, size_t *ns,
                          size_t *cap)
{
    int64_t lo = sat_win_index(pp->start_ts, se->window);
    int64_t hi = sat_win_index(pp->end_ts - 1, se->window);
    int64_t f = 1;
    while ((hi / f - lo / f) >= 4 * ST_WINDOWS_MAX)
        f *= 2;
    sat_dur_ns step = se->window * f;
    int64_t dlo = sat_win_index(lo * se->window, step);
    size_t n = (size_t)(sat_win_index(hi * se->window, step) - dlo + 1);
    pp->window = step;
    pp->nwindows = n;
    st_win *w = (st_win *)calloc(n, sizeof *w);
    uint64_t *x = (uint64_t *)calloc(n, sizeof *x);
    sat_storm_span *sp = (sat_storm_span *)calloc(n, sizeof *sp);
    int rc = w && x && sp ? SAT_OK : SAT_E_NOMEM;
    size_t a = 0, b = se->windows.n; /* the first key >= lo (keys: sorted) */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (keys[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    for (size_t i = a; i < se->windows.n && keys[i] <= hi && rc == SAT_OK; i++) {
        const st_win *sw = (const st_win *)sat_strtab_find(&se->windows, &keys[i], sizeof keys[i]);
        if (sw)
            st_win_add(&w[sat_win_index(keys[i] * se->window, step) - dlo], sw);
    }
    st_win_out *vw = rc == SAT_OK ? (st_win_out *)sat_arena_alloc(&s->found.arena,
                                                                   (n ? n : 1) * sizeof *vw)
                                  : NULL;
    if (!vw)
        rc = SAT_E_NOMEM;
    pp->windows = vw;
    pp->windows_ts = dlo * step;
    for (size_t t = 0; t < n && rc == SAT_OK; t++) {
        vw[t].events = w[t].events;
        vw[t].c.ldap_ops = w[t].ld.ops - w[t].ld.reqs;
        vw[t].c.conn_opens = w[t].sc.opens;
        vw[t].c.handshakes = w[t].sc.hs;
        vw[t].http_requests = w[t].ld.reqs;
        memcpy(vw[t].kinds, w[t].kinds, sizeof vw[t].kinds);
        x[t] = w[t].events;
        pp->events += x[t];
        if (x[t] > pp->busiest_events) {
            pp->busiest_events = x[t];
            pp->busiest_ts = (dlo + (int64_t)t) * step;
        }
    }
    size_t found = rc == SAT_OK ? sat_storms_detect(x, n, st_baseline_floor(step), sp, n) : 0;
    if (found > n)
        found = n;
    found = join_across_silence(w, sp, found);
    for (size_t i = 0; i < found && rc == SAT_OK; i++) {
        if (SAT_GROW(*all, *cap, *ns + 1) != SAT_OK) {
            rc = SAT_E_NOMEM;
            break;
        }
        rc = st_build_storm(s, &(*all)[*ns], w, n, &sp[i], dlo * step, step);
        if (rc == SAT_OK) {
            (*all)[*ns].period = pidx;
            (*ns)++;
            pp->nstorms++;
        }
    }
    free(w);
    free(x);
    free(sp);
    return rc;
}

/* One server's analyzer finished (a router finishes each server's: storms_servers.c). */
int st_finish_plain(sat_storms *s)
{
    if (!s)
        return SAT_E_USAGE;
    st_finish_closed_waiting(s); /* before the retries: they yield to what a key holds */
    st_finish_retries(s);
    st_found *fd = &s->found;
    sat_arena_free(&fd->arena);
    memset(fd, 0, sizeof *fd);
    fd->arena.chunk_size = (size_t)64 << 10;
    fd->window = finest(s)->window;
    if (!finest(s)->windows.n)
        return s->nomem ? SAT_E_NOMEM : SAT_OK;
    int rc = SAT_OK;
    size_t nper = 0;
    st_period *per = find_periods(s, &nper);
    if (!per)
        return SAT_E_NOMEM;
    st_period_found *vp = (st_period_found *)sat_arena_alloc(&fd->arena, nper * sizeof *vp);
    size_t cap = 0, ns = 0;
    sat_storm *all = NULL;
    int64_t *keys[ST_SERIES_MAX] = {NULL};
    if (!vp)
        rc = SAT_E_NOMEM;
    for (size_t p = 0; p < nper && rc == SAT_OK; p++) {
        st_period_found *pp = &vp[p];
        memset(pp, 0, sizeof *pp);
        pp->start_ts = per[p].start_ts;
        pp->end_ts = per[p].end_ts;
        int si = choose_step(s, pp);
        pp->first_storm = ns;
        if (!keys[si] && !(keys[si] = sorted_keys(&s->ser[si]))) {
            rc = SAT_E_NOMEM;
            break;
        }
        rc = analyse_period(s, &s->ser[si], keys[si], pp, p, &all, &ns, &cap);
        if (rc == SAT_OK)
            rc = period_inputs(s, pp);
        fd->nwindows += pp->nwindows;
        if (pp->busiest_events > fd->busiest_events) {
            fd->busiest_events = pp->busiest_events;
            fd->busiest_ts = pp->busiest_ts;
            fd->busiest_window = pp->window;
        }
    }
    free(per);
    for (int i = 0; i < ST_SERIES_MAX; i++)
        free(keys[i]);
    sat_storm *st = rc == SAT_OK ? (sat_storm *)sat_arena_alloc(&fd->arena, (ns + 1) * sizeof *st)
                                 : NULL;
    if (rc == SAT_OK && !st)
        rc = SAT_E_NOMEM;
    if (rc == SAT_OK) {
        if (ns)
            memcpy(st, all, ns * sizeof *st);
        fd->storms.storms = st;
        fd->storms.nstorms = ns;
        fd->periods = vp;
        fd->nperiods = nper;
        fd->window = vp[0].window;
    }
    free(all);
    if (rc < 0)
        return rc;
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}
