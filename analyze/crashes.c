/*
 * crashes.c - the crashes analyzer (issue 5 "satscope crashes"): crash and
 * frame rows (event.h) joined on (source, crash), whatever order they come
 * in (a collector emits the frames first, a trace may give the crash table
 * first); per crash the crashing thread's frames and every thread grouped by
 * identical stacks (a pool of 63 idle workers is one line); crashes grouped
 * by the fingerprint their producer computed (include/satscope/crash.h); and
 * what the server was doing in the minute before each crash, when the inputs
 * hold operations, connections or handshakes of the same period: the load
 * against its usual level, the errors, and the storms of client failures
 * (the storms analyzer, run on the same rows).
 *
 * Bounded memory: at most CR_MAX crashes are kept in detail (the rest are
 * counted), at most opts.max_frames frames per thread; the load is kept in
 * 10 s windows that widen (winseries.c) past CR_WINDOWS_MAX.
 */
#include "satscope/analyze.h"

#include "strtab.h"
#include "winseries.h"

#define CR_MAX 10000
#define CR_FRAMES_MAX 100000 /* frames of one crash, all threads */
#define CR_WINDOWS_MAX 8192
#define CR_STEP (10 * (sat_dur_ns)1000000000)

typedef struct cr_win {
    uint64_t ops, errors, opens, hs, hs_full;
} cr_win;

typedef struct cr_entry {
    sat_crash row;       /* strings in the arena */
    int have_row;
    sat_frame *frames;   /* every thread, as they came */
    size_t nframes, cap;
} cr_entry;

struct sat_crashes {
    sat_crashes_opts opts;
    sat_arena arena;     /* row strings, view */
    sat_strtab index;    /* {source, crash} -> uint32 entry index */
    cr_entry *entries;
    size_t nentries, cap;
    uint64_t dropped, frames_cut;
    sat_strtab windows;  /* int64 window -> cr_win */
    sat_dur_ns step;
    int have_load;
    sat_storms *storms;
    int nomem;
    sat_crashes_view view;
};

/* ---- rows -------------------------------------------------------------------- */
static sat_str keep(sat_crashes *c, sat_str s)
{
    if (!s.ptr)
        return SAT_STR_NONE;
    char *p = sat_arena_strdup(&c->arena, s.ptr, s.len);
    if (!p) {
        c->nomem = 1;
        return SAT_STR_NONE;
    }
    sat_str r = {p, s.len};
    return r;
}

static cr_entry *entry_of(sat_crashes *c, uint32_t source, uint32_t crash)
{
    uint32_t key[2] = {source, crash};
    int is_new, capped;
    uint32_t *idx = (uint32_t *)sat_strtab_upsert(&c->index, key, sizeof key, &is_new, &capped);
    if (!idx) {
        c->nomem |= !capped;
        return NULL;
    }
    if (!is_new)
        return &c->entries[*idx];
    if (c->nentries == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        cr_entry *ne = (cr_entry *)realloc(c->entries, ncap * sizeof *ne);
        if (!ne) {
            c->nomem = 1;
            return NULL;
        }
        c->entries = ne;
        c->cap = ncap;
    }
    *idx = (uint32_t)c->nentries;
    cr_entry *e = &c->entries[c->nentries++];
    memset(e, 0, sizeof *e);
    return e;
}

static int on_crash(void *ctx, const sat_crash *r)
{
    sat_crashes *c = (sat_crashes *)ctx;
    cr_entry *e = entry_of(c, r->source, r->crash);
    if (!e) {
        c->dropped++;
        return SAT_OK;
    }
    if (e->have_row)
        return SAT_OK; /* the same crash twice (a trace and its log): the first counts */
    e->have_row = 1;
    e->row = *r;
    e->row.host = keep(c, r->host);
    e->row.exe = keep(c, r->exe);
    e->row.command = keep(c, r->command);
    e->row.build_id = keep(c, r->build_id);
    e->row.fingerprint = keep(c, r->fingerprint);
    e->row.signature = keep(c, r->signature);
    e->row.build_key = keep(c, r->build_key);
    e->row.missing = keep(c, r->missing);
    return SAT_OK;
}

static int on_frame(void *ctx, const sat_frame *f)
{
    sat_crashes *c = (sat_crashes *)ctx;
    cr_entry *e = entry_of(c, f->source, f->crash);
    if (!e)
        return SAT_OK;
    if (f->depth < 0 || (size_t)f->depth >= c->opts.max_frames || e->nframes >= CR_FRAMES_MAX) {
        c->frames_cut++;
        return SAT_OK;
    }
    if (e->nframes == e->cap) {
        size_t ncap = e->cap ? e->cap * 2 : 32;
        sat_frame *nf = (sat_frame *)realloc(e->frames, ncap * sizeof *nf);
        if (!nf) {
            c->nomem = 1;
            return SAT_OK;
        }
        e->frames = nf;
        e->cap = ncap;
    }
    sat_frame *k = &e->frames[e->nframes++];
    *k = *f;
    k->module = keep(c, f->module);
    k->build_id = keep(c, f->build_id);
    k->function = keep(c, f->function);
    k->file = keep(c, f->file);
    return SAT_OK;
}

static void win_add(void *into, const void *from)
{
    cr_win *a = (cr_win *)into;
    const cr_win *b = (const cr_win *)from;
    a->ops += b->ops;
    a->errors += b->errors;
    a->opens += b->opens;
    a->hs += b->hs;
    a->hs_full += b->hs_full;
}

static cr_win *win(sat_crashes *c, sat_ts_ns ts)
{
    if (ts <= 0 || c->nomem)
        return NULL;
    c->have_load = 1;
    cr_win *w = (cr_win *)sat_win_at(&c->windows, &c->step, ts, CR_WINDOWS_MAX, sizeof(cr_win),
                                     win_add);
    if (!w)
        c->nomem = 1;
    return w;
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    k.on_ldap_op(k.ctx, op);
    if (op->internal_depth || op->type == SAT_OP_ABANDON || op->type == SAT_OP_UNBIND)
        return SAT_OK;
    cr_win *w = win(c, op->ts_ns);
    if (w) {
        w->ops++;
        w->errors += op->err > 0 && op->err != 5 && op->err != 6 && op->err != 14;
    }
    return SAT_OK;
}

static int on_conn(void *ctx, const sat_ldap_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    k.on_ldap_conn(k.ctx, x);
    cr_win *w = win(c, x->open_ts);
    if (w)
        w->opens++;
    return SAT_OK;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    k.on_tls_hs(k.ctx, h);
    cr_win *w = win(c, h->ts);
    if (w) {
        w->hs++;
        w->hs_full += h->outcome == SAT_TLS_FULL;
    }
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    k.on_tcp_conn(k.ctx, x);
    if (!(x->flags & SAT_TCPF_NO_SYN)) {
        cr_win *w = win(c, x->syn_ts);
        if (w)
            w->opens++;
    }
    return SAT_OK;
}

/* ---- lifecycle ----------------------------------------------------------------- */
sat_crashes *sat_crashes_create(const sat_crashes_opts *opts)
{
    sat_crashes *c = (sat_crashes *)calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (opts)
        c->opts = *opts;
    if (c->opts.context <= 0)
        c->opts.context = 60 * (sat_dur_ns)1000000000;
    if (!c->opts.max_frames)
        c->opts.max_frames = 128;
    c->step = CR_STEP;
    c->arena.chunk_size = (size_t)64 << 10;
    sat_strtab_init(&c->index, sizeof(uint32_t), CR_MAX);
    sat_strtab_init(&c->windows, sizeof(cr_win), 0);
    c->storms = sat_storms_create(NULL);
    if (!c->storms) {
        sat_crashes_free(c);
        return NULL;
    }
    return c;
}

sat_event_sink sat_crashes_sink(sat_crashes *c)
{
    sat_event_sink k;
    memset(&k, 0, sizeof k);
    k.ctx = c;
    k.on_crash = on_crash;
    k.on_frame = on_frame;
    k.on_ldap_op = on_op;
    k.on_ldap_conn = on_conn;
    k.on_tls_hs = on_tls;
    k.on_tcp_conn = on_tcp;
    return k;
}

int sat_crashes_merge(sat_crashes *into, const sat_crashes *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    for (size_t i = 0; i < from->nentries; i++) {
        const cr_entry *e = &from->entries[i];
        for (size_t f = 0; f < e->nframes; f++)
            on_frame(into, &e->frames[f]);
        if (e->have_row)
            on_crash(into, &e->row);
    }
    into->dropped += from->dropped;
    into->frames_cut += from->frames_cut;
    into->have_load |= from->have_load;
    if (sat_win_merge(&into->windows, &into->step, &from->windows, from->step, CR_WINDOWS_MAX,
                      sizeof(cr_win), win_add) < 0)
        into->nomem = 1;
    if (sat_storms_merge(into->storms, from->storms) < 0)
        into->nomem = 1;
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}

void sat_crashes_free(sat_crashes *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nentries; i++)
        free(c->entries[i].frames);
    free(c->entries);
    sat_strtab_free(&c->index);
    sat_strtab_free(&c->windows);
    sat_storms_free(c->storms);
    sat_arena_free(&c->arena);
    free(c);
}

/* ---- finish -------------------------------------------------------------------- */
static int cmp_frame(const void *a, const void *b)
{
    const sat_frame *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int str_same(sat_str a, sat_str b)
{
    return a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Two threads' stacks are the same when every frame names the same place:
 * module and function, or module and offset when there is no name. */
static int same_stack(const sat_frame *a, size_t na, const sat_frame *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (!str_same(a[i].module, b[i].module) || !str_same(a[i].function, b[i].function))
            return 0;
        if (!a[i].function.len && a[i].offset != b[i].offset)
            return 0;
    }
    return 1;
}

typedef struct cr_thread {
    int32_t tid;
    size_t first, n; /* frames [first, first + n) of the sorted array */
} cr_thread;

/* The threads of one crash grouped by identical stacks, the crashing one's
 * group first, then by size. */
static int build_stacks(sat_crashes *c, sat_crash_info *ci, cr_entry *e)
{
    if (!e->nframes)
        return SAT_OK;
    qsort(e->frames, e->nframes, sizeof *e->frames, cmp_frame);
    size_t nt = 0;
    for (size_t i = 0; i < e->nframes; i++)
        if (!i || e->frames[i].thread != e->frames[i - 1].thread)
            nt++;
    cr_thread *th = (cr_thread *)calloc(nt, sizeof *th);
    int *grp = (int *)calloc(nt, sizeof *grp);
    sat_crash_stack *st = (sat_crash_stack *)sat_arena_alloc(&c->arena, nt * sizeof *st);
    int32_t *tids = (int32_t *)sat_arena_alloc(&c->arena, nt * sizeof *tids);
    if (!th || !grp || !st || !tids) {
        free(th);
        free(grp);
        return SAT_E_NOMEM;
    }
    nt = 0;
    for (size_t i = 0; i < e->nframes; i++) {
        if (!i || e->frames[i].thread != e->frames[i - 1].thread) {
            th[nt].tid = e->frames[i].thread;
            th[nt].first = i;
            nt++;
        }
        th[nt - 1].n++;
    }
    /* the crashing thread: the row's, else the first the producer listed */
    size_t crashing = 0;
    for (size_t t = 0; t < nt; t++)
        if (e->row.crashing_tid != SAT_ABSENT && th[t].tid == e->row.crashing_tid)
            crashing = t;
    ci->frames = &e->frames[th[crashing].first];
    ci->nframes = th[crashing].n;
    ci->threads_seen = nt;
    /* group: the crashing thread alone first (its stack is the crash), then
     * the others by identical stacks */
    size_t ns = 0, ntid = 0;
    for (size_t t = 0; t < nt; t++)
        grp[t] = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t t = 0; t < nt; t++) {
            if ((pass == 0) != (t == crashing) || grp[t] >= 0)
                continue;
            sat_crash_stack *s = &st[ns];
            memset(s, 0, sizeof *s);
            s->frames = &e->frames[th[t].first];
            s->nframes = th[t].n;
            s->crashing = t == crashing;
            s->tids = &tids[ntid];
            tids[ntid++] = th[t].tid;
            s->ntids = 1;
            grp[t] = (int)ns;
            for (size_t u = t + 1; u < nt && pass == 1; u++) {
                if (grp[u] >= 0 || u == crashing ||
                    !same_stack(s->frames, s->nframes, &e->frames[th[u].first], th[u].n))
                    continue;
                grp[u] = (int)ns;
                tids[ntid++] = th[u].tid;
                s->ntids++;
            }
            ns++;
        }
    }
    /* the largest groups of the others first (stable: by first tid otherwise) */
    for (size_t i = 2; i < ns; i++) {
        sat_crash_stack x = st[i];
        size_t j = i;
        while (j > 1 && st[j - 1].ntids < x.ntids) {
            st[j] = st[j - 1];
            j--;
        }
        st[j] = x;
    }
    ci->stacks = st;
    ci->nstacks = ns;
    free(th);
    free(grp);
    return SAT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The windows of [ts - context, ts) and the usual load over windows of that
 * length (the median of every such run of the input). */
static void context_of(sat_crashes *c, sat_crash_info *ci, const sat_storms_view *sv)
{
    sat_crash_context *x = &ci->ctx;
    x->storm = -1;
    sat_ts_ns ts = ci->row.ts;
    if (!c->have_load || ts <= 0)
        return;
    int64_t hi = sat_win_index(ts, c->step); /* the crash's window is not "before" */
    int64_t span = (c->opts.context + c->step - 1) / c->step;
    if (span < 1)
        span = 1;
    int64_t lo = hi - span;
    x->from_ts = lo * c->step;
    x->to_ts = hi * c->step;
    for (int64_t k = lo; k < hi; k++) {
        const cr_win *w = (const cr_win *)sat_strtab_find(&c->windows, &k, sizeof k);
        if (!w)
            continue;
        x->have = 1;
        x->ops += w->ops;
        x->errors += w->errors;
        x->conn_opens += w->opens;
        x->handshakes += w->hs;
        x->hs_full += w->hs_full;
    }
    /* usual: operations per `span` windows, the median over the input */
    int64_t wlo = INT64_MAX, whi = INT64_MIN;
    for (size_t i = 0; i < c->windows.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&c->windows, i), sizeof k);
        wlo = k < wlo ? k : wlo;
        whi = k > whi ? k : whi;
    }
    size_t nruns = whi >= wlo ? (size_t)((whi - wlo + 1 + span - 1) / span) : 0;
    uint64_t *runs = nruns ? (uint64_t *)calloc(nruns, sizeof *runs) : NULL;
    if (runs) {
        for (size_t i = 0; i < c->windows.n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&c->windows, i), sizeof k);
            runs[(k - wlo) / span] += ((const cr_win *)sat_strtab_val(&c->windows, i))->ops;
        }
        qsort(runs, nruns, sizeof *runs, cmp_u64);
        x->usual_ops = nruns % 2 ? (double)runs[nruns / 2]
                                 : ((double)runs[nruns / 2 - 1] + (double)runs[nruns / 2]) / 2;
        free(runs);
    }
    /* failures in the period: from the storms analyzer's windows is not
     * exposed, so count the storms overlapping it and their failures */
    for (size_t i = 0; sv && i < sv->nstorms; i++) {
        const sat_storm *s = &sv->storms[i];
        if (s->start_ts <= ts && s->end_ts >= x->from_ts) {
            x->storm = (int)i;
            break;
        }
    }
}

static int cmp_info(const void *a, const void *b)
{
    const sat_crash_info *x = a, *y = b;
    sat_ts_ns tx = x->row.ts > 0 ? x->row.ts : INT64_MAX, ty = y->row.ts > 0 ? y->row.ts : INT64_MAX;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    if (x->row.source != y->row.source)
        return x->row.source < y->row.source ? -1 : 1;
    return x->row.crash < y->row.crash ? -1 : x->row.crash > y->row.crash;
}

static int cmp_group(const void *a, const void *b)
{
    const sat_crash_group *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int sat_crashes_finish(sat_crashes *c)
{
    if (!c)
        return SAT_E_USAGE;
    sat_crashes_view *v = &c->view;
    memset(v, 0, sizeof *v);
    int rc = sat_storms_finish(c->storms);
    const sat_storms_view *sv = c->have_load ? sat_storms_get_view(c->storms) : NULL;
    v->storms = sv;
    v->have_load = c->have_load;
    v->dropped = c->dropped;
    v->frames_cut = c->frames_cut;
    size_t n = 0;
    for (size_t i = 0; i < c->nentries; i++) {
        if (c->entries[i].have_row)
            n++;
        else
            v->orphan_frames += c->entries[i].nframes;
    }
    sat_crash_info *ci = (sat_crash_info *)sat_arena_alloc(&c->arena, (n + 1) * sizeof *ci);
    sat_crash_group *gr = (sat_crash_group *)sat_arena_alloc(&c->arena, (n + 1) * sizeof *gr);
    if (!ci || !gr)
        return SAT_E_NOMEM;
    n = 0;
    for (size_t i = 0; i < c->nentries && rc >= 0; i++) {
        cr_entry *e = &c->entries[i];
        if (!e->have_row)
            continue;
        memset(&ci[n], 0, sizeof ci[n]);
        ci[n].row = e->row;
        if (e->row.origin < SAT_CRASH_ORIGIN__COUNT)
            v->origins[e->row.origin]++;
        rc = build_stacks(c, &ci[n], e);
        n++;
    }
    if (rc < 0)
        return rc;
    qsort(ci, n, sizeof *ci, cmp_info);
    /* groups by fingerprint, in order of their first crash, then by size */
    size_t ng = 0;
    sat_strtab fps, builds;
    sat_strtab_init(&fps, sizeof(uint32_t), 0);
    sat_strtab_init(&builds, sizeof(uint32_t), 0);
    for (size_t i = 0; i < n; i++) {
        sat_str fp = ci[i].row.fingerprint;
        if (!fp.len)
            fp = sat_str_cstr("fp:?");
        int is_new, capped;
        uint32_t *g = (uint32_t *)sat_strtab_upsert(&fps, fp.ptr, fp.len, &is_new, &capped);
        if (!g) {
            rc = SAT_E_NOMEM;
            break;
        }
        if (is_new) {
            *g = (uint32_t)ng;
            memset(&gr[ng], 0, sizeof gr[ng]);
            gr[ng].fingerprint = sat_strtab_key(&fps, fps.n - 1);
            gr[ng].signature = ci[i].row.signature.len ? ci[i].row.signature.ptr : "?";
            gr[ng].first = i;
            gr[ng].first_ts = ci[i].row.ts;
            ng++;
        }
        sat_crash_group *G = &gr[*g];
        G->count++;
        if (ci[i].row.ts > 0 && (!G->first_ts || ci[i].row.ts < G->first_ts))
            G->first_ts = ci[i].row.ts;
        if (ci[i].row.ts > G->last_ts)
            G->last_ts = ci[i].row.ts;
        /* distinct builds per group: key = group + build key */
        char bk[96];
        int bl = snprintf(bk, sizeof bk, "%u|%.*s", *g, (int)ci[i].row.build_key.len,
                          ci[i].row.build_key.ptr ? ci[i].row.build_key.ptr : "");
        if (bl > 0 && sat_strtab_upsert(&builds, bk, (size_t)bl < sizeof bk ? (size_t)bl
                                                                              : sizeof bk - 1,
                                        &is_new, &capped) && is_new)
            G->builds++;
        ci[i].group = *g;
    }
    /* the fingerprint strings live in fps: copy them before it goes */
    for (size_t g = 0; g < ng && rc >= 0; g++) {
        sat_str s = sat_str_cstr(gr[g].fingerprint);
        sat_str k = keep(c, s);
        gr[g].fingerprint = k.ptr ? k.ptr : "fp:?";
    }
    sat_strtab_free(&fps);
    sat_strtab_free(&builds);
    if (rc < 0)
        return rc;
    /* groups by size (then by their first crash); crashes follow their group */
    qsort(gr, ng, sizeof *gr, cmp_group);
    size_t *remap = (size_t *)calloc(ng + 1, sizeof *remap);
    if (!remap)
        return SAT_E_NOMEM;
    for (size_t g = 0; g < ng; g++) /* a group's first crash still holds its old index */
        remap[ci[gr[g].first].group] = g;
    for (size_t i = 0; i < n; i++)
        ci[i].group = remap[ci[i].group];
    free(remap);
    for (size_t i = 0; i < n; i++)
        context_of(c, &ci[i], sv);
    v->crashes = ci;
    v->ncrashes = n;
    v->groups = gr;
    v->ngroups = ng;
    if (rc < 0)
        return rc;
    return c->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_crashes_view *sat_crashes_get_view(const sat_crashes *c) { return c ? &c->view : NULL; }
