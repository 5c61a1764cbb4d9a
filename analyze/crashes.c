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
 * The minute before a crash is [ts - context, ts]: it ends at the crash
 * itself, not at a window boundary (a kill 6.7 s after one would leave out
 * the busiest seconds). "Usual" is the same length of time just before it,
 * [ts - 2 context, ts - context), scaled up from the part the inputs cover
 * when they start later (and the report says so), never the whole input. As
 * crash rows may come before or after the rows of their period (cores first,
 * a trace's crash table last), the load rows are kept as a compact stream of
 * (time in microseconds, kind), delta-coded varints of about 2 bytes each,
 * and counted per crash at the end.
 *
 * Crashes are grouped by fingerprint, and two groups are one when a crash of
 * each has the same exact-build key: the same core read with and without its
 * executable (named frames, then module+offset frames) is one bug.
 *
 * Bounded memory: at most CR_MAX crashes are kept in detail (the rest are
 * counted), at most opts.max_frames frames per thread, at most CR_LOAD_BYTES
 * of load stream (past it the later load rows are counted as left out and
 * the report says the figures are partial).
 */
#include "satscope/analyze.h"

#include "strtab.h"

#define CR_MAX 10000
#define CR_FRAMES_MAX 100000 /* frames of one crash, all threads */
#define CR_LOAD_BYTES ((size_t)64 << 20)

/* kinds of load rows in the stream (3 bits) */
enum { LK_OP, LK_OP_ERR, LK_OPEN, LK_HS, LK_HS_FULL };

typedef struct cr_load {
    uint8_t *b;
    size_t len, cap;
    int64_t prev_us;     /* the previous row's time, the base of the next delta */
    uint64_t rows, cut;  /* rows kept / left out past CR_LOAD_BYTES */
    sat_ts_ns first, last;
} cr_load;

typedef struct cr_entry {
    sat_crash row;       /* strings in the arena */
    int have_row;
    int matched;         /* a log line about a core's crash, merged into it */
    int time_by_kernel;  /* its time is a kernel line's */
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
    cr_load load;
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

static void load_put(cr_load *l, sat_ts_ns ts, unsigned kind)
{
    if (l->len + 11 > l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : (size_t)64 << 10;
        if (ncap > CR_LOAD_BYTES)
            ncap = CR_LOAD_BYTES;
        uint8_t *nb = ncap > l->cap ? (uint8_t *)realloc(l->b, ncap) : NULL;
        if (!nb) {
            l->cut++;
            return;
        }
        l->b = nb;
        l->cap = ncap;
    }
    int64_t us = ts / 1000;
    int64_t d = us - l->prev_us;
    uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
    uint64_t v = (z << 3) | kind;
    if (z >> 60) { /* a delta too wide for the kind bits: never for real times */
        l->cut++;
        return;
    }
    while (v >= 0x80) {
        l->b[l->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    l->b[l->len++] = (uint8_t)v;
    l->prev_us = us;
    l->rows++;
    if (!l->first || ts < l->first)
        l->first = ts;
    if (ts > l->last)
        l->last = ts;
}

/* The next row of a stream from *pos: its time in microseconds (running from
 * *us) and its kind; 0 at the end. */
static int load_next(const cr_load *l, size_t *pos, int64_t *us, unsigned *kind)
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

static void load(sat_crashes *c, sat_ts_ns ts, unsigned kind)
{
    if (ts <= 0)
        return;
    c->have_load = 1;
    load_put(&c->load, ts, kind);
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, op);
    if (op->internal_depth || op->type == SAT_OP_ABANDON || op->type == SAT_OP_UNBIND)
        return SAT_OK;
    load(c, op->ts_ns, op->err > 0 && op->err != 5 && op->err != 6 && op->err != 14 ? LK_OP_ERR
                                                                                     : LK_OP);
    return SAT_OK;
}

static int on_conn(void *ctx, const sat_ldap_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, x);
    load(c, x->open_ts, LK_OPEN);
    return SAT_OK;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    sat_sink_emit(&k, SAT_TABLE_TLS_HS, h);
    load(c, h->ts, h->outcome == SAT_TLS_FULL ? LK_HS_FULL : LK_HS);
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    sat_event_sink k = sat_storms_sink(c->storms);
    sat_sink_emit(&k, SAT_TABLE_TCP_CONN, x);
    if (!(x->flags & SAT_TCPF_NO_SYN))
        load(c, x->syn_ts, LK_OPEN);
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
    c->arena.chunk_size = (size_t)64 << 10;
    sat_strtab_init(&c->index, sizeof(uint32_t), CR_MAX);
    c->storms = sat_storms_create(NULL);
    if (!c->storms) {
        sat_crashes_free(c);
        return NULL;
    }
    return c;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_crashes_sink(sat_crashes *c)
{
    sat_event_sink k = {c,
                        SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_TLS_HS) | SAT_TABLE_BIT(SAT_TABLE_TCP_CONN),
                        on_row};
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
    size_t pos = 0;
    int64_t us = 0;
    unsigned kind;
    /* the bounds in ns, not the microseconds the stream holds: load_put would
     * take the replayed times for bounds when `into` had none */
    sat_ts_ns first = into->load.first, last = into->load.last;
    while (load_next(&from->load, &pos, &us, &kind))
        load_put(&into->load, (sat_ts_ns)us * 1000, kind);
    into->load.cut += from->load.cut;
    into->load.first = first;
    into->load.last = last;
    if (from->load.first && (!into->load.first || from->load.first < into->load.first))
        into->load.first = from->load.first;
    if (from->load.last > into->load.last)
        into->load.last = from->load.last;
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
    free(c->load.b);
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

/* The load of [ts - context, ts] and of the same length before it, for every
 * crash with a time, in one pass over the load stream. */
static int contexts(sat_crashes *c, sat_crash_info *ci, size_t n, const sat_storms_view *sv)
{
    for (size_t i = 0; i < n; i++)
        ci[i].ctx.storm = -1;
    if (!c->have_load)
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
    while (nw && load_next(&c->load, &pos, &us, &kind)) {
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
            sat_crash_context *x = &ci[w[k].i].ctx;
            x->have = 1;
            x->ops += kind == LK_OP || kind == LK_OP_ERR;
            x->errors += kind == LK_OP_ERR;
            x->conn_opens += kind == LK_OPEN;
            x->handshakes += kind == LK_HS || kind == LK_HS_FULL;
            x->hs_full += kind == LK_HS_FULL;
        }
    }
    for (size_t k = 0; k < nw; k++) {
        sat_crash_info *info = &ci[w[k].i];
        sat_crash_context *x = &info->ctx;
        sat_ts_ns ts = info->row.ts;
        x->from_ts = ts - ctx;
        x->to_ts = ts;
        /* the inputs cover the period when their load rows run across it */
        if (c->load.first <= ts && c->load.last >= x->from_ts)
            x->have = 1;
        x->usual_from_ts = ts - 2 * ctx;
        if (c->load.first > x->usual_from_ts)
            x->usual_from_ts = c->load.first;
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

static sat_str base_of(sat_str s)
{
    size_t b = 0;
    for (size_t i = 0; i < s.len; i++)
        if (s.ptr[i] == '/')
            b = i + 1;
    return sat_str_make(s.ptr + b, s.len - b);
}

/* A log line's command (the kernel's comm: the first 15 bytes of the
 * executable's name) names the process of a core when it starts the core's
 * executable name or the first word of its command line. */
static int same_command(const sat_crash *core, sat_str comm)
{
    if (!comm.len)
        return 0;
    sat_str cands[2] = {base_of(core->exe), core->command};
    if (cands[1].len) {
        size_t w = 0;
        while (w < cands[1].len && cands[1].ptr[w] != ' ')
            w++;
        cands[1] = base_of(sat_str_make(cands[1].ptr, w));
    }
    for (int i = 0; i < 2; i++)
        if (cands[i].len >= comm.len && !memcmp(cands[i].ptr, comm.ptr, comm.len))
            return 1;
    return 0;
}

/* A crash report in the logs and the core of the same crash are one crash:
 * same pid, same command (the kernel's 15-byte comm, or the executable the
 * text names), and the report not later than the core's file was last
 * written (plus a minute). The reports: the kernel's or systemd-coredump's
 * line, and a backtrace the process wrote (its pid from a syslog prefix). The
 * core keeps its facts; it takes the report's time unless --crash-time or its
 * name gave one, and the kernel line's fault address when it has none. A
 * kernel line about a process whose backtrace is in the logs is that crash
 * too. */
static void match_log_lines(sat_crashes *c, sat_crashes_view *v)
{
    for (size_t i = 0; i < c->nentries; i++) {
        cr_entry *k = &c->entries[i];
        if (!k->have_row || k->row.origin == SAT_CRASH_CORE || k->row.pid <= 0)
            continue;
        int kernel = k->row.origin == SAT_CRASH_TEXT_KERNEL;
        sat_str comm = k->row.command.len && kernel ? k->row.command : base_of(k->row.exe);
        if (!comm.len)
            comm = k->row.command;
        for (size_t j = 0; j < c->nentries; j++) {
            cr_entry *e = &c->entries[j];
            if (j == i || !e->have_row || e->matched || e->row.origin == SAT_CRASH_TEXT_KERNEL ||
                (!kernel && e->row.origin != SAT_CRASH_CORE) || e->row.pid != k->row.pid ||
                !same_command(&e->row, comm))
                continue;
            int core = e->row.origin == SAT_CRASH_CORE;
            int dated = e->row.time_source == SAT_CRASH_TIME_OPTION ||
                        e->row.time_source == SAT_CRASH_TIME_CORE_NAME;
            const sat_ts_ns minute = 60 * (sat_ts_ns)1000000000;
            if (!kernel && k->row.ts <= 0)
                continue; /* a backtrace of no known time: maybe another process */
            /* a core dated by its mtime crashed before it; any other time is
             * the crash's own, and the report must be of then */
            if (k->row.ts > 0 && e->row.ts > 0 &&
                (k->row.ts > e->row.ts + minute ||
                 (e->row.time_source != SAT_CRASH_TIME_MTIME && k->row.ts < e->row.ts - minute)))
                continue; /* another process with the same pid, or another time */
            if (kernel && e->row.signal == k->row.signal && e->row.fault_addr == SAT_ABSENT)
                e->row.fault_addr = k->row.fault_addr;
            /* the kernel's line (written at the fault) before a backtrace */
            if (core && !dated && k->row.ts > 0 &&
                (e->row.time_source != SAT_CRASH_TIME_LOG || (kernel && !e->time_by_kernel))) {
                e->row.ts = k->row.ts;
                e->row.time_source = SAT_CRASH_TIME_LOG;
                e->time_by_kernel = kernel;
            }
            if (!k->matched)
                v->log_lines_matched++;
            k->matched = 1;
        }
    }
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
    match_log_lines(c, v);
    size_t n = 0;
    for (size_t i = 0; i < c->nentries; i++) {
        if (c->entries[i].matched)
            continue;
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
        if (!e->have_row || e->matched)
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
    /* Groups: crashes with the same fingerprint, and those linked by the same
     * exact-build key (one build, one place: the same bug whether its frames
     * were named or not), in order of their first crash, then by size. */
    size_t ng = 0;
    size_t *root = (size_t *)calloc(n + 1, sizeof *root);
    if (!root)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        root[i] = i;
    sat_strtab firsts, builds;
    sat_strtab_init(&firsts, sizeof(uint32_t), 0);
    sat_strtab_init(&builds, sizeof(uint32_t), 0);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        for (int k = 0; k < 2; k++) {
            sat_str key = k ? ci[i].row.build_key : ci[i].row.fingerprint;
            if (!key.len)
                key = k ? SAT_STR_NONE : sat_str_cstr("fp:?");
            if (!key.len)
                continue;
            char kb[128];
            int kl = snprintf(kb, sizeof kb, "%c%.*s", k ? 'b' : 'f', (int)key.len, key.ptr);
            int is_new, capped;
            uint32_t *first = (uint32_t *)sat_strtab_upsert(
                &firsts, kb, (size_t)kl < sizeof kb ? (size_t)kl : sizeof kb - 1, &is_new,
                &capped);
            if (!first) {
                rc = SAT_E_NOMEM;
                break;
            }
            if (is_new) {
                *first = (uint32_t)i;
                continue;
            }
            /* union: the later root points at the earlier one */
            size_t a = *first, b = i;
            while (root[a] != a)
                a = root[a];
            while (root[b] != b)
                b = root[b];
            if (a < b)
                root[b] = a;
            else if (b < a)
                root[a] = b;
        }
    }
    sat_strtab_free(&firsts);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        size_t r = i;
        while (root[r] != r)
            r = root[r];
        root[i] = r;
        if (r == i) { /* roots come in index (time) order */
            memset(&gr[ng], 0, sizeof gr[ng]);
            gr[ng].first = i;
            gr[ng].first_ts = ci[i].row.ts;
            ci[i].group = ng++;
        } else {
            ci[i].group = ci[r].group;
        }
        sat_crash_group *G = &gr[ci[i].group];
        G->count++;
        if (ci[i].row.ts > 0 && (!G->first_ts || ci[i].row.ts < G->first_ts))
            G->first_ts = ci[i].row.ts;
        if (ci[i].row.ts > G->last_ts)
            G->last_ts = ci[i].row.ts;
        /* the group's name: the fingerprint of its crash with the most named
         * frames (the fewest "+0x" offsets in its signature), the first on a tie */
        sat_str sig = ci[i].row.signature;
        size_t unnamed = 0;
        for (size_t p = 0; sig.len && p + 3 <= sig.len; p++)
            unnamed += !memcmp(sig.ptr + p, "+0x", 3);
        if (r == i || unnamed < G->unnamed_) {
            G->unnamed_ = unnamed;
            G->fingerprint = ci[i].row.fingerprint.len ? ci[i].row.fingerprint.ptr : "fp:?";
            G->signature = sig.len ? sig.ptr : "?";
        }
        /* distinct builds per group: key = group + build key */
        char bk[96];
        int bl = snprintf(bk, sizeof bk, "%zu|%.*s", ci[i].group, (int)ci[i].row.build_key.len,
                          ci[i].row.build_key.ptr ? ci[i].row.build_key.ptr : "");
        int is_new, capped;
        if (bl > 0 && sat_strtab_upsert(&builds, bk, (size_t)bl < sizeof bk ? (size_t)bl
                                                                              : sizeof bk - 1,
                                        &is_new, &capped) && is_new)
            G->builds++;
    }
    sat_strtab_free(&builds);
    free(root);
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
    rc = contexts(c, ci, n, sv);
    v->load_first_ts = c->load.first;
    v->load_last_ts = c->load.last;
    v->load_cut = c->load.cut;
    v->context = c->opts.context;
    v->crashes = ci;
    v->ncrashes = n;
    v->groups = gr;
    v->ngroups = ng;
    if (rc < 0)
        return rc;
    return c->nomem ? SAT_E_NOMEM : SAT_OK;
}

const sat_crashes_view *sat_crashes_get_view(const sat_crashes *c) { return c ? &c->view : NULL; }
