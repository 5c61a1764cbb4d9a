/*
 * parse_parallel.c - one log parsed on two threads, joined in order.
 *
 * Why: on a raw 389 log, parsing the lines is most of the work of `satscope
 * etime`, while joining requests to their RESULTs must see the lines in file
 * order. So the file is cut into chunks of whole lines (sat_input_read_lines),
 * a chunk is parsed on whichever thread is free - the calling thread or one
 * worker - into the records and rejects it yields (strings that do not point
 * into the chunk's own bytes are copied to the chunk's arena), and the calling
 * thread joins the chunks one after the other in file order, replaying each
 * chunk's rejects at their place with their absolute line numbers and merging
 * its share of the source's facts. The joiner and the sink thus see the very
 * sequence a one-thread parse gives.
 *
 * Slots: a ring of PP_SLOTS chunks. The calling thread owns the reading
 * (FREE -> READ) and the joining (PARSED -> FREE); parsing (READ -> PARSING ->
 * PARSED) is taken by either thread under the mutex. The calling thread parses
 * only when the next chunk to join is not parsed yet, so the worker parses
 * most chunks while the caller reads and joins.
 */
#include "parse_parallel.h"
#include "satscope/trace.h"

#include <pthread.h>

#define PP_SLOTS 16
#define PP_CHUNK_DEFAULT ((size_t)64 << 10) /* records of a chunk stay in L2 */
#define PP_LINE_MAX ((size_t)1 << 20) /* as sat_input_next_line's cut */
#define PP_HDR_MAX 256
#define PP_PROGRESS_EVERY 8 /* chunks between progress calls */

enum slot_state { SLOT_FREE, SLOT_READ, SLOT_PARSING, SLOT_PARSED };

typedef struct pp_reject {
    size_t after;   /* records and rows of the chunk emitted before this reject */
    sat_reject row; /* line_no relative to the chunk; strings in the arena */
} pp_reject;

typedef struct chunk {
    int state;      /* enum slot_state, under pp->mu */
    uint64_t index; /* position in the file, counting from 0 */
    char *buf;
    size_t len, cap;
    /* what parsing yielded */
    int rc;
    sat_ldap_record *recs;
    size_t nrec, caprec;
    /* rows a format emits itself (http_req, parse.h ctx.rows): a format emits
     * records or such rows, not both, so the rows come after the records in
     * the order of emission (reject `after` counts both) */
    sat_http_req *hreqs;
    size_t nh, caph;
    pp_reject *rej;
    size_t nrej, caprej;
    sat_arena arena;
    sat_source delta; /* this chunk's share of the source's facts */
    uint64_t lines, cut;
} chunk;

/* One parsing thread's format state and context. */
typedef struct pworker {
    struct sat_pp *pp;
    sat_parse_ctx ctx; /* the caller's, with its own source, sink and emit */
    sat_source src;
    sat_event_sink capture;
    sat_event_sink capture_rows;
    void *state;
    chunk *cur;
} pworker;

struct sat_pp {
    const sat_log_format *fmt;
    sat_parse_ctx *ctx;
    size_t want;
    chunk slots[PP_SLOTS];
    pworker w[2]; /* [0] the calling thread, [1] the worker */

    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* a chunk to parse, or quit */
    pthread_cond_t done_cv; /* a chunk parsed */
    uint64_t next_join, next_read;
    int quit;
    int sync_ok;
    int named; /* a chunk has named the source's format */

    char version[PP_HDR_MAX], name[PP_HDR_MAX];
};

/* ---- parsing one chunk (either thread) ------------------------------------------ */
int sat_pp_keep_strings(int table, void *row, const char *buf, size_t len, sat_arena *arena)
{
    size_t n;
    const uint16_t *off = sat_table_str_offsets(table, &n);
    if (!off)
        return SAT_E_USAGE;
    for (size_t i = 0; i < n; i++) {
        sat_str *s = (sat_str *)(void *)((char *)row + off[i]);
        if (!s->ptr || (s->ptr >= buf && s->ptr + s->len <= buf + len))
            continue;
        char *p = sat_arena_strdup(arena, s->ptr, s->len);
        if (!p)
            return SAT_E_NOMEM;
        s->ptr = p;
    }
    return SAT_OK;
}

static int keep_strings(chunk *c, int table, void *row)
{
    return sat_pp_keep_strings(table, row, c->buf, c->len, &c->arena);
}

/* The parser builds its record right in the chunk's array when it can. */
static sat_ldap_record *record_slot(void *u)
{
    pworker *w = (pworker *)u;
    chunk *c = w->cur;
    if (SAT_GROW(c->recs, c->caprec, c->nrec + 1))
        return NULL;
    return &c->recs[c->nrec];
}

static int capture_record(void *u, const sat_ldap_record *rec)
{
    pworker *w = (pworker *)u;
    chunk *c = w->cur;
    sat_ldap_record *d = record_slot(u);
    if (!d)
        return SAT_E_NOMEM;
    if (rec != d)
        *d = *rec;
    if (keep_strings(c, SAT_TABLE_LDAP_OP, &d->op_fields) ||
        keep_strings(c, SAT_TABLE_LDAP_CONN, &d->conn_fields))
        return SAT_E_NOMEM;
    c->nrec++;
    return SAT_OK;
}

/* The rows a format emits itself (http_req), kept in the chunk. */
static int capture_row(void *u, int table, const void *row)
{
    pworker *w = (pworker *)u;
    chunk *c = w->cur;
    if (table != SAT_TABLE_HTTP_REQ)
        return SAT_OK;
    if (SAT_GROW(c->hreqs, c->caph, c->nh + 1))
        return SAT_E_NOMEM;
    sat_http_req *d = &c->hreqs[c->nh];
    *d = *(const sat_http_req *)row;
    if (keep_strings(c, SAT_TABLE_HTTP_REQ, d))
        return SAT_E_NOMEM;
    c->nh++;
    return SAT_OK;
}

/* The worker's sink takes rejects only (the parser's other rows go to emit). */
static int capture_reject(void *u, int table, const void *row)
{
    pworker *w = (pworker *)u;
    const sat_reject *x = (const sat_reject *)row;
    (void)table;
    chunk *c = w->cur;
    if (SAT_GROW(c->rej, c->caprej, c->nrej + 1))
        return SAT_E_NOMEM;
    pp_reject *d = &c->rej[c->nrej];
    d->after = c->nrec + c->nh;
    d->row = *x;
    /* the reason may live in the parser's state and the excerpt on its stack */
    if (keep_strings(c, SAT_TABLE_REJECT, &d->row))
        return SAT_E_NOMEM;
    c->nrej++;
    return SAT_OK;
}

static void parse_chunk(pworker *w, chunk *c)
{
    const sat_source *real = w->pp->ctx->source;
    c->nrec = c->nrej = c->nh = 0;
    c->lines = c->cut = 0;
    c->rc = SAT_OK;
    sat_arena_reset(&c->arena);

    memset(&w->src, 0, sizeof w->src);
    w->src.id = real->id;
    w->src.server = real->server;
    w->src.server_name = SAT_STR_NONE;
    w->src.server_version = SAT_STR_NONE;
    /* utc_offset_s stays 0: the joining thread owns the real one and takes
     * the chunk's only if the chunk had a timestamp */
    w->cur = c;

    const char *p = c->buf, *end = c->buf + c->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t n = (size_t)(e - p);
        if (n > PP_LINE_MAX) {
            n = PP_LINE_MAX;
            c->cut++;
        }
        c->lines++;
        int rc = w->pp->fmt->line(w->state, p, n, c->lines);
        if (rc < 0) {
            c->rc = rc;
            break;
        }
        p = e + 1;
    }
    c->delta = w->src;
    w->cur = NULL;
}

/* ---- joining one chunk (calling thread, file order) ------------------------------ */
static void keep_header(char *dst, sat_str s, sat_str *out)
{
    size_t n = s.len < PP_HDR_MAX - 1 ? s.len : PP_HDR_MAX - 1;
    memcpy(dst, s.ptr, n);
    dst[n] = '\0';
    *out = sat_str_make(dst, n);
}

static int join_chunk(sat_pp *pp, chunk *c, uint64_t line_base)
{
    sat_parse_ctx *ctx = pp->ctx;
    sat_source *src = ctx->source;
    int rc = SAT_OK;
    size_t r = 0;
    uint64_t sampled_before = src->rejects;
    const sat_event_sink *rows = ctx->rows ? ctx->rows : ctx->sink;
    size_t items = c->nrec + c->nh;
    for (size_t i = 0; i <= items && rc >= 0; i++) {
        /* The rejects met before record i, in their place. The parser kept at
         * most reject_sample_max per chunk; the source's sample limit is
         * applied here, across chunks. */
        for (; r < c->nrej && c->rej[r].after == i && rc >= 0; r++) {
            if (sampled_before + r >= ctx->reject_sample_max ||
                !sat_sink_wants(ctx->sink, SAT_TABLE_REJECT))
                continue;
            sat_reject x = c->rej[r].row;
            x.line_no += line_base;
            rc = sat_sink_emit(ctx->sink, SAT_TABLE_REJECT, &x);
        }
        if (i < c->nrec && rc >= 0)
            rc = sat_ldap_join_record(ctx->join, &c->recs[i]);
        else if (i < items && rc >= 0)
            rc = sat_sink_emit(rows, SAT_TABLE_HTTP_REQ, &c->hreqs[i - c->nrec]);
    }
    if (rc >= 0 && c->rc < 0)
        rc = c->rc; /* parsing stopped early (no memory) */

    const sat_source *d = &c->delta;
    src->rejects += d->rejects;
    src->fields |= d->fields; /* the generational fields a chunk saw (fields.h) */
    if (sat_str_present(d->format) && !pp->named) {
        /* a format that names the source by its lines (fmt_http.c): the first
         * chunk that did, as one thread would (the name outlives the run) */
        src->format = d->format;
        pp->named = 1;
    }
    if (d->first_ts && (!src->first_ts || d->first_ts < src->first_ts))
        src->first_ts = d->first_ts;
    if (d->last_ts > src->last_ts)
        src->last_ts = d->last_ts;
    if (d->first_ts || d->last_ts)
        src->utc_offset_s = d->utc_offset_s;
    if (sat_str_present(d->server_version))
        keep_header(pp->version, d->server_version, &src->server_version);
    if (sat_str_present(d->server_name))
        keep_header(pp->name, d->server_name, &src->server_name);
    return rc;
}

/* ---- threads ---------------------------------------------------------------------- */
/* Lowest-index chunk waiting to be parsed, or NULL. Under mu. */
static chunk *claimable(sat_pp *pp)
{
    for (uint64_t k = pp->next_join; k < pp->next_read; k++) {
        chunk *c = &pp->slots[k % PP_SLOTS];
        if (c->state == SLOT_READ)
            return c;
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    sat_pp *pp = (sat_pp *)arg;
    pthread_mutex_lock(&pp->mu);
    while (!pp->quit) {
        chunk *c = claimable(pp);
        if (!c) {
            pthread_cond_wait(&pp->work_cv, &pp->mu);
            continue;
        }
        c->state = SLOT_PARSING;
        pthread_mutex_unlock(&pp->mu);
        parse_chunk(&pp->w[1], c);
        pthread_mutex_lock(&pp->mu);
        c->state = SLOT_PARSED;
        pthread_cond_signal(&pp->done_cv);
    }
    pthread_mutex_unlock(&pp->mu);
    return NULL;
}

static int worker_init(sat_pp *pp, pworker *w)
{
    w->pp = pp;
    w->ctx = *pp->ctx;
    w->ctx.source = &w->src;
    w->capture.ctx = w;
    w->capture.tables = SAT_TABLE_BIT(SAT_TABLE_REJECT);
    w->capture.on_row = capture_reject;
    w->ctx.sink = &w->capture;
    w->capture_rows.ctx = w;
    w->capture_rows.tables = SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ);
    w->capture_rows.on_row = capture_row;
    w->ctx.rows = &w->capture_rows;
    w->ctx.emit = capture_record;
    w->ctx.emit_ctx = w;
    w->ctx.record_slot = record_slot;
    w->ctx.join = NULL;
    w->state = pp->fmt->create(&w->ctx);
    return w->state ? 0 : -1;
}

sat_pp *sat_pp_create(const sat_log_format *fmt, sat_parse_ctx *ctx, size_t chunk_bytes)
{
    sat_pp *pp = (sat_pp *)calloc(1, sizeof *pp);
    if (!pp)
        return NULL;
    pp->fmt = fmt;
    pp->ctx = ctx;
    pp->want = chunk_bytes ? chunk_bytes : PP_CHUNK_DEFAULT;
    for (int i = 0; i < PP_SLOTS; i++) {
        chunk *c = &pp->slots[i];
        c->cap = pp->want + PP_LINE_MAX + 1;
        c->buf = (char *)malloc(c->cap);
        c->arena.chunk_size = (size_t)64 << 10;
        if (!c->buf)
            goto fail;
    }
    if (worker_init(pp, &pp->w[0]) || worker_init(pp, &pp->w[1]))
        goto fail;
    if (pthread_mutex_init(&pp->mu, NULL))
        goto fail;
    if (pthread_cond_init(&pp->work_cv, NULL)) {
        pthread_mutex_destroy(&pp->mu);
        goto fail;
    }
    if (pthread_cond_init(&pp->done_cv, NULL)) {
        pthread_cond_destroy(&pp->work_cv);
        pthread_mutex_destroy(&pp->mu);
        goto fail;
    }
    pp->sync_ok = 1;
    return pp;
fail:
    sat_pp_free(pp);
    return NULL;
}

int sat_pp_run(sat_pp *pp, sat_input *in, void (*progress)(void *u, uint64_t lines),
               void *progress_ctx, sat_pp_result *res, sat_diag *diag)
{
    memset(res, 0, sizeof *res);
    pthread_t tid;
    /* Without a second thread the same loop parses every chunk itself. */
    int threaded = pthread_create(&tid, NULL, worker_main, pp) == 0;
    int rc = SAT_OK, eof = 0;
    uint64_t line_base = 0;

    pthread_mutex_lock(&pp->mu);
    for (;;) {
        chunk *next = &pp->slots[pp->next_join % PP_SLOTS];
        int have_next = pp->next_join < pp->next_read;
        /* 1. Join the next chunk once it is parsed (file order). */
        if (have_next && next->state == SLOT_PARSED) {
            pthread_mutex_unlock(&pp->mu);
            rc = join_chunk(pp, next, line_base);
            line_base += next->lines;
            res->cut_lines += next->cut;
            if (progress && next->index % PP_PROGRESS_EVERY == PP_PROGRESS_EVERY - 1)
                progress(progress_ctx, line_base);
            pthread_mutex_lock(&pp->mu);
            next->state = SLOT_FREE;
            pp->next_join++;
            if (rc < 0)
                break;
            continue;
        }
        /* 2. Keep the ring full, so the worker always has a chunk: reading
         * is this thread's alone. */
        if (!eof && pp->next_read - pp->next_join < PP_SLOTS) {
            chunk *c = &pp->slots[pp->next_read % PP_SLOTS];
            pthread_mutex_unlock(&pp->mu);
            int irc = sat_input_read_lines(in, c->buf, c->cap, pp->want, &c->len, diag);
            pthread_mutex_lock(&pp->mu);
            if (irc == 1) {
                c->index = pp->next_read++;
                c->state = SLOT_READ;
                pthread_cond_signal(&pp->work_cv);
            } else {
                eof = 1;
                if (irc < 0)
                    res->input_rc = irc;
            }
            continue;
        }
        if (!have_next)
            break; /* everything read and joined */
        /* 3. Parse: the next chunk if nobody has it, else one further on,
         * else wait for the worker. */
        chunk *mine = next->state == SLOT_READ ? next : claimable(pp);
        if (!mine) {
            pthread_cond_wait(&pp->done_cv, &pp->mu);
            continue;
        }
        mine->state = SLOT_PARSING;
        pthread_mutex_unlock(&pp->mu);
        parse_chunk(&pp->w[0], mine);
        pthread_mutex_lock(&pp->mu);
        mine->state = SLOT_PARSED;
    }
    pp->quit = 1;
    pthread_cond_broadcast(&pp->work_cv);
    pthread_mutex_unlock(&pp->mu);
    if (threaded)
        pthread_join(tid, NULL);
    res->lines = line_base;

    /* The format's end of file, on this thread, straight to the joiner. */
    for (int i = 0; i < 2 && rc >= 0; i++) {
        pworker *w = &pp->w[i];
        w->ctx.emit = NULL;
        w->ctx.record_slot = NULL;
        w->ctx.join = pp->ctx->join;
        w->ctx.sink = pp->ctx->sink;
        w->ctx.rows = pp->ctx->rows;
        w->ctx.source = pp->ctx->source;
        rc = pp->fmt->finish(w->state);
    }
    return rc;
}

void sat_pp_free(sat_pp *pp)
{
    if (!pp)
        return;
    for (int i = 0; i < 2; i++)
        if (pp->w[i].state)
            pp->fmt->destroy(pp->w[i].state);
    for (int i = 0; i < PP_SLOTS; i++) {
        chunk *c = &pp->slots[i];
        free(c->buf);
        free(c->recs);
        free(c->hreqs);
        free(c->rej);
        sat_arena_free(&c->arena);
    }
    if (pp->sync_ok) {
        pthread_cond_destroy(&pp->done_cv);
        pthread_cond_destroy(&pp->work_cv);
        pthread_mutex_destroy(&pp->mu);
    }
    free(pp);
}
