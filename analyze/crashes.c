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
 * The load rows are kept as a compact stream and counted per crash at
 * finish (crashes_load.c); what finish finds (crashes_finish.c) is what the
 * result is written from (crashes_result.c). Merging walks the accumulators
 * of crashes_internal.h.
 *
 * Bounded memory: at most CR_MAX crashes are kept in detail (the rest are
 * counted), at most opts.max_frames frames per thread, at most CR_LOAD_BYTES
 * of load stream (past it the later load rows are counted as left out and
 * the report says the figures are partial).
 */
#include "crashes_internal.h"

/* The tallies: a new counter is one field and one line here. */
static const sat_acc_field cr_tally_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, cr_tally, dropped),  SAT_ACC(SAT_ACC_COUNT, cr_tally, frames_cut),
    SAT_ACC(SAT_ACC_COUNT, cr_tally, load_cut), SAT_ACC(SAT_ACC_BITS, cr_tally, have_load),
    SAT_ACC(SAT_ACC_FIRST, cr_tally, load_first), SAT_ACC(SAT_ACC_LAST, cr_tally, load_last),
    SAT_ACC(SAT_ACC_FIRST, cr_tally, capture_first),
    SAT_ACC(SAT_ACC_LAST, cr_tally, capture_last),
};
const sat_rec_desc cr_tally_desc = {sizeof(cr_tally), cr_tally_fields,
                                    sizeof cr_tally_fields / sizeof cr_tally_fields[0], NULL};

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

static int on_crash(void *ctx, const sat_crash *r);
static int on_frame(void *ctx, const sat_frame *f);

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
    if (SAT_GROW(c->entries, c->cap, c->nentries + 1) < 0) {
        c->nomem = 1;
        return NULL;
    }
    *idx = (uint32_t)c->nentries;
    cr_entry *e = &c->entries[c->nentries++];
    memset(e, 0, sizeof *e);
    e->key[0] = source;
    e->key[1] = crash;
    return e;
}

/* An entry of another instance (a part merged, or one read from a partial)
 * added again: the entry itself (one whose frames were all cut still is
 * one), its frames, then its row. */
void cr_add_entry(sat_crashes *c, const uint32_t key[2], const sat_crash *row,
                  const sat_frame *frames, size_t n)
{
    if (!entry_of(c, key[0], key[1]))
        return;
    for (size_t f = 0; f < n; f++)
        on_frame(c, &frames[f]);
    if (row)
        on_crash(c, row);
}

static int on_crash(void *ctx, const sat_crash *r)
{
    sat_crashes *c = (sat_crashes *)ctx;
    cr_entry *e = entry_of(c, r->source, r->crash);
    if (!e) {
        c->t.dropped++;
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
        c->t.frames_cut++;
        return SAT_OK;
    }
    if (SAT_GROW(e->frames, e->cap, e->nframes + 1) < 0) {
        c->nomem = 1;
        return SAT_OK;
    }
    sat_frame *k = &e->frames[e->nframes++];
    *k = *f;
    k->module = keep(c, f->module);
    k->build_id = keep(c, f->build_id);
    k->function = keep(c, f->function);
    k->file = keep(c, f->file);
    return SAT_OK;
}

static void load(sat_crashes *c, sat_ts_ns ts, unsigned kind)
{
    if (ts <= 0)
        return;
    c->t.have_load = 1;
    cr_load_put(&c->load, &c->t, ts, kind);
}

/* The row to the storms analyzer run on the same rows, when it is c's own
 * (a borrowed one is fed by its set). */
static void feed_storms(sat_crashes *c, int table, const void *row)
{
    if (c->storms_borrowed)
        return;
    sat_event_sink k = sat_storms_sink(c->storms);
    sat_sink_emit(&k, table, row);
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_crashes *c = (sat_crashes *)ctx;
    feed_storms(c, SAT_TABLE_LDAP_OP, op);
    if (op->internal_depth || op->type == SAT_OP_ABANDON || op->type == SAT_OP_UNBIND)
        return SAT_OK;
    load(c, op->ts_ns, op->err > 0 && op->err != 5 && op->err != 6 && op->err != 14 ? LK_OP_ERR
                                                                                     : LK_OP);
    return SAT_OK;
}

static int on_conn(void *ctx, const sat_ldap_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    feed_storms(c, SAT_TABLE_LDAP_CONN, x);
    load(c, x->open_ts, LK_OPEN);
    return SAT_OK;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    sat_crashes *c = (sat_crashes *)ctx;
    feed_storms(c, SAT_TABLE_TLS_HS, h);
    load(c, h->ts, h->outcome == SAT_TLS_FULL ? LK_HS_FULL : LK_HS);
    return SAT_OK;
}

static int on_tcp(void *ctx, const sat_tcp_conn *x)
{
    sat_crashes *c = (sat_crashes *)ctx;
    feed_storms(c, SAT_TABLE_TCP_CONN, x);
    if (!(x->flags & SAT_TCPF_NO_SYN))
        load(c, x->syn_ts, LK_OPEN);
    return SAT_OK;
}

/* A capture's span: the handshakes of a crash's minute are known only
 * where a capture ran. */
static int on_source(void *ctx, const sat_source *s)
{
    sat_crashes *c = (sat_crashes *)ctx;
    if (s->kind.ptr && s->kind.len == 4 && memcmp(s->kind.ptr, "pcap", 4) == 0 && s->first_ts > 0) {
        sat_acc_first(&c->t.capture_first, s->first_ts, NULL, 0);
        sat_acc_last(&c->t.capture_last, s->last_ts > s->first_ts ? s->last_ts : s->first_ts,
                     NULL, 0);
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
    c->arena.chunk_size = (size_t)64 << 10;
    sat_strtab_init(&c->index, sizeof(uint32_t), CR_MAX);
    c->storms = sat_storms_create(NULL);
    if (!c->storms) {
        sat_crashes_free(c);
        return NULL;
    }
    return c;
}

void sat_crashes_borrow_storms(sat_crashes *c, sat_storms *s)
{
    if (!c || !s || c->storms_borrowed)
        return;
    sat_storms_free(c->storms);
    c->storms = s;
    c->storms_borrowed = 1;
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
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
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
                            SAT_TABLE_BIT(SAT_TABLE_TLS_HS) | SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_SOURCE),
                        on_row};
    return k;
}

/* A walk over the accumulators (crashes_internal.h): from's crash and frame
 * rows added again to the join, the tallies merged by their description,
 * from's load stream appended, the storms merged. */
int sat_crashes_merge(sat_crashes *into, const sat_crashes *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    for (size_t i = 0; i < from->nentries; i++) {
        const cr_entry *e = &from->entries[i];
        cr_add_entry(into, e->key, e->have_row ? &e->row : NULL, e->frames, e->nframes);
    }
    /* the stream's rows are counted in from's tally already: appending them
     * only adds the rows that no longer fit */
    cr_tally appended;
    memset(&appended, 0, sizeof appended);
    size_t pos = 0;
    int64_t us = 0;
    unsigned kind;
    while (cr_load_next(&from->load, &pos, &us, &kind))
        cr_load_put(&into->load, &appended, (sat_ts_ns)us * 1000, kind);
    if (sat_rec_merge(&cr_tally_desc, &into->t, &from->t) < 0)
        into->nomem = 1;
    into->t.load_cut += appended.load_cut;
    if (!into->storms_borrowed && sat_storms_merge(into->storms, from->storms) < 0)
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
    if (!c->storms_borrowed)
        sat_storms_free(c->storms);
    sat_arena_free(&c->arena);
    free(c);
}

