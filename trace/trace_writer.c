/*
 * trace_writer.c - the streaming .sat writer (trace/FORMAT.md; the version it
 * writes is SAT_FMT_MAJOR.SAT_FMT_MINOR of trace_internal.h).
 *
 * append() copies each row's fields into the per-table block being filled:
 * one int64 array per column, strings interned in a per-block, per-column
 * dictionary (copies in the block's arena). A full block is handed to one
 * background thread that picks an encoding per column, compresses each column
 * with zstd and appends the block to a temporary file beside PATH, so parsing
 * and compression overlap. At most 2 finished blocks wait for that thread:
 * memory is bounded by (tables + 2) blocks whatever the input size. close()
 * writes the footer and trailer, fsyncs and renames the temporary file to PATH.
 *
 * How the output is created (safely, or streamed to a descriptor) is in
 * trace_output.c; the block encoder the thread runs in trace_encode.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_internal.h"

/* ---- per-block string dictionary ---------------------------------------- */
static uint32_t str_hash(const char *p, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL;
    while (n >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        h = (h ^ x) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t x = 0;
        for (size_t k = 0; k < n; k++)
            x |= (uint64_t)(unsigned char)p[k] << (8 * k);
        h = (h ^ x) * 0xff51afd7ed558ccdULL;
    }
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 32;
    return (uint32_t)h;
}

static int dict_grow(strdict *d)
{
    uint32_t nc = d->cap ? d->cap * 2 : 256;
    uint32_t *ns = (uint32_t *)calloc(nc, sizeof *ns);
    if (!ns)
        return SAT_E_NOMEM;
    for (uint32_t i = 0; i < d->n; i++) {
        uint32_t s = d->ents[i].hash & (nc - 1);
        while (ns[s])
            s = (s + 1) & (nc - 1);
        ns[s] = i + 1;
    }
    free(d->slots);
    d->slots = ns;
    d->cap = nc;
    return 0;
}

/* Code of s in b's dictionary for column c (0 = absent), adding it if new. */
static int64_t intern(wblock *b, strdict *d, sat_str s)
{
    if (!s.ptr)
        return 0;
    if (s.len > SAT_MAX_STR) /* FORMAT.md: bounds what a reader must accept */
        s.len = SAT_MAX_STR;
    if (d->last) {
        const strent *e = &d->ents[d->last - 1];
        if (e->len == s.len && memcmp(e->p, s.ptr, s.len) == 0)
            return d->last;
    }
    uint32_t h = str_hash(s.ptr, s.len);
    if ((d->n + 1) * 2 > d->cap && dict_grow(d) != 0)
        return -1;
    uint32_t slot = h & (d->cap - 1);
    for (;;) {
        uint32_t k = d->slots[slot];
        if (!k)
            break;
        const strent *e = &d->ents[k - 1];
        if (e->hash == h && e->len == s.len && memcmp(e->p, s.ptr, s.len) == 0) {
            d->last = k;
            return k;
        }
        slot = (slot + 1) & (d->cap - 1);
    }
    if (SAT_GROW(d->ents, d->ecap, (size_t)d->n + 1) != SAT_OK)
        return -1;
    char *copy = sat_arena_strdup(&b->arena, s.ptr, s.len);
    if (!copy)
        return -1;
    d->ents[d->n].p = copy;
    d->ents[d->n].len = s.len;
    d->ents[d->n].hash = h;
    d->n++;
    d->slots[slot] = d->n;
    d->last = d->n;
    b->str_bytes += s.len + 8;
    return d->n;
}

static void block_free(wblock *b)
{
    if (!b)
        return;
    for (size_t c = 0; c < b->def->ncolumns; c++) {
        if (b->dicts) {
            free(b->dicts[c].slots);
            free(b->dicts[c].ents);
        }
    }
    free(b->rows);
    free(b->dicts);
    sat_arena_free(&b->arena);
    free(b);
}

static void block_reset(wblock *b)
{
    b->nrows = 0;
    b->str_bytes = 0;
    b->min_ts = b->max_ts = 0;
    for (size_t c = 0; c < b->def->ncolumns; c++) {
        strdict *d = &b->dicts[c];
        if (d->n && d->slots)
            memset(d->slots, 0, d->cap * sizeof *d->slots);
        d->n = 0;
        d->last = 0;
    }
    sat_arena_reset(&b->arena);
}

static wblock *block_new(int table, uint32_t rows)
{
    wblock *b = (wblock *)calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->table = table;
    b->def = sat_table_get(table);
    b->cap_rows = rows;
    b->arena.chunk_size = 256 * 1024;
    b->rows = (uint8_t *)malloc((size_t)rows * b->def->row_size);
    b->dicts = (strdict *)calloc(b->def->ncolumns, sizeof *b->dicts);
    if (!b->rows || !b->dicts) {
        block_free(b);
        return NULL;
    }
    return b;
}

static void *worker_main(void *arg)
{
    sat_trace_writer *w = (sat_trace_writer *)arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->q_head && !w->stop)
            pthread_cond_wait(&w->cv_work, &w->mu);
        wblock *b = w->q_head;
        if (!b) {
            pthread_mutex_unlock(&w->mu);
            break;
        }
        w->q_head = b->next;
        if (!w->q_head)
            w->q_tail = NULL;
        int failed = w->err;
        pthread_mutex_unlock(&w->mu);
        if (!failed)
            sat_trace_write_block(w, b);
        block_reset(b);
        pthread_mutex_lock(&w->mu);
        b->next = w->free_[b->table];
        w->free_[b->table] = b;
        w->q_len--;
        pthread_cond_signal(&w->cv_space);
        pthread_mutex_unlock(&w->mu);
    }
    return NULL;
}

/* Hands the filled block of table t to the worker; waits while 2 are pending. */
static int submit(sat_trace_writer *w, int t)
{
    wblock *b = w->cur[t];
    w->cur[t] = NULL;
    if (!b || b->nrows == 0) {
        w->cur[t] = b;
        return SAT_OK;
    }
    pthread_mutex_lock(&w->mu);
    while (w->q_len >= 2 && !w->err)
        pthread_cond_wait(&w->cv_space, &w->mu);
    int err = w->err;
    if (!err) {
        b->next = NULL;
        if (w->q_tail)
            w->q_tail->next = b;
        else
            w->q_head = b;
        w->q_tail = b;
        w->q_len++;
        pthread_cond_signal(&w->cv_work);
    }
    pthread_mutex_unlock(&w->mu);
    if (err)
        block_free(b);
    return err;
}

static wblock *take_block(sat_trace_writer *w, int t)
{
    pthread_mutex_lock(&w->mu);
    wblock *b = w->free_[t];
    if (b)
        w->free_[t] = b->next;
    pthread_mutex_unlock(&w->mu);
    if (!b)
        b = block_new(t, w->rows_per_block);
    w->cur[t] = b;
    return b;
}

static sat_trace_writer *writer_create(const char *path, int stream_fd,
                                       const sat_trace_write_opts *opts, sat_diag *diag);

sat_trace_writer *sat_trace_writer_create(const char *path,
                                          const sat_trace_write_opts *opts,
                                          sat_diag *diag)
{
    return writer_create(path, -1, opts, diag);
}

sat_trace_writer *sat_trace_writer_create_fd(int fd, const char *name,
                                             const sat_trace_write_opts *opts,
                                             sat_diag *diag)
{
    if (fd < 0) {
        sat_diag_set(diag, SAT_E_USAGE, name ? name : "", "no output descriptor");
        return NULL;
    }
    return writer_create(name ? name : "<stream>", fd, opts, diag);
}

const char *sat_trace_writer_partial_path(const sat_trace_writer *w)
{
    return w ? w->partial : NULL;
}

unsigned sat_trace_writer_mode(const sat_trace_writer *w)
{
    return w ? w->mode : 0;
}

static sat_trace_writer *writer_create(const char *path, int stream_fd,
                                       const sat_trace_write_opts *opts, sat_diag *diag)
{
    if (!path || !*path) {
        sat_diag_set(diag, SAT_E_USAGE, "", "no output path");
        return NULL;
    }
    sat_trace_writer *w = (sat_trace_writer *)calloc(1, sizeof *w);
    if (!w) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    w->fd = -1;
    w->rows_per_block = opts && opts->rows_per_block ? opts->rows_per_block
                                                     : SAT_DEFAULT_ROWS;
    if (w->rows_per_block > SAT_MAX_ROWS)
        w->rows_per_block = SAT_MAX_ROWS;
    w->level = opts && opts->zstd_level ? opts->zstd_level : SAT_DEFAULT_LEVEL;
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *d = sat_table_get(t);
        w->ts_col[t] = d->ts_column ? sat_col_index(d, d->ts_column,
                                                    strlen(d->ts_column))
                                    : -1;
    }
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *d = sat_table_get(t);
        for (size_t c = 0; c < d->ncolumns && c < SAT_MAX_COLS_TABLE; c++)
            if (d->columns[c].type == SAT_COL_STR)
                w->tab[t].str[w->tab[t].nstr++] = (uint16_t)c;
    }
    w->close_col = sat_col_index(sat_table_get(SAT_TABLE_LDAP_CONN), "close_ts", 8);
    w->cctx = ZSTD_createCCtx();
    if (!w->cctx) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        goto fail;
    }
    if (stream_fd >= 0) {
        w->fd = stream_fd;
        w->path = strdup(path);
        if (!w->path) {
            sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
            goto fail;
        }
    } else {
        sat_out_opts oo = {opts ? opts->mode : 0, opts ? opts->inputs : NULL,
                           opts ? opts->ninputs : 0, "the trace",
                           ", or to standard output with -o -"};
        if (!(w->out = sat_out_open(path, &oo, diag)) || !(w->path = strdup(path))) {
            if (w->out)
                sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
            goto fail;
        }
        w->fd = sat_out_fd(w->out);
        w->partial = sat_out_partial(w->out);
        w->mode = sat_out_mode(w->out);
    }
    uint8_t hdr[SAT_FILE_HDR_LEN];
    memcpy(hdr, "SATSCOPE", 8);
    sat_put_le16(hdr + 8, SAT_FMT_MAJOR);
    sat_put_le16(hdr + 10, SAT_FMT_MINOR);
    sat_put_le32(hdr + 12, opts ? opts->flags : 0);
    sat_put_le32(hdr + 16, sat_trace_crc32(hdr, 16));
    if (sat_trace_write_all(w->fd, hdr, sizeof hdr)) {
        sat_diag_set(diag, SAT_E_IO, w->partial ? w->partial : w->path, "write failed: %s",
                     strerror(errno));
        goto fail;
    }
    w->off = SAT_FILE_HDR_LEN;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv_work, NULL);
    pthread_cond_init(&w->cv_space, NULL);
    if (pthread_create(&w->thr, NULL, worker_main, w) != 0) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "cannot start compression thread");
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv_work);
        pthread_cond_destroy(&w->cv_space);
        goto fail;
    }
    w->thr_started = 1;
    return w;
fail:
    sat_out_discard(w->out);
    ZSTD_freeCCtx(w->cctx);
    free(w->path);
    free(w);
    return NULL;
}

int sat_trace_writer_append(sat_trace_writer *w, int table_id, const void *row)
{
    if (!w || !row || table_id < 0 || table_id >= SAT_TABLE__COUNT)
        return SAT_E_USAGE;
    wblock *b = w->cur[table_id];
    if (!b && !(b = take_block(w, table_id)))
        return SAT_E_NOMEM;
    const sat_table_def *def = b->def;
    const char *r = (const char *)row;
    uint32_t i = b->nrows;
    uint8_t *dst = b->rows + (size_t)i * def->row_size;
    memcpy(dst, r, def->row_size);
    const wtable *wt = &w->tab[table_id];
    for (size_t k = 0; k < wt->nstr; k++) {
        size_t c = wt->str[k];
        sat_str s;
        memcpy(&s, r + def->columns[c].offset, sizeof s);
        int64_t v = intern(b, &b->dicts[c], s);
        if (v < 0)
            return SAT_E_NOMEM;
        uint32_t code = (uint32_t)v;
        memcpy(dst + def->columns[c].offset, &code, 4);
    }
    int tsc = w->ts_col[table_id];
    if (tsc >= 0) {
        int64_t ts;
        memcpy(&ts, r + def->columns[tsc].offset, 8);
        if (ts == 0 && table_id == SAT_TABLE_LDAP_CONN)
            memcpy(&ts, r + def->columns[w->close_col].offset, 8);
        if (ts != 0) {
            if (b->min_ts == 0 && b->max_ts == 0)
                b->min_ts = b->max_ts = ts;
            else if (ts < b->min_ts)
                b->min_ts = ts;
            else if (ts > b->max_ts)
                b->max_ts = ts;
        }
    }
    b->nrows = i + 1;
    if (b->nrows >= b->cap_rows || b->str_bytes >= SAT_BLOCK_STR_BYTES)
        return submit(w, table_id);
    return SAT_OK;
}

static int sink_row(void *ctx, int table, const void *row)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, table, row);
}

/* Every table: a trace keeps all that was collected. */
sat_event_sink sat_trace_writer_sink(sat_trace_writer *w)
{
    sat_event_sink s = {w, SAT_TABLES_ALL, sink_row};
    return s;
}

/* Stops the worker and frees everything but the files. */
static void writer_teardown(sat_trace_writer *w)
{
    if (w->thr_started) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_signal(&w->cv_work);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thr, NULL);
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv_work);
        pthread_cond_destroy(&w->cv_space);
        w->thr_started = 0;
    }
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        block_free(w->cur[t]);
        w->cur[t] = NULL;
        while (w->free_[t]) {
            wblock *n = w->free_[t]->next;
            block_free(w->free_[t]);
            w->free_[t] = n;
        }
    }
    ZSTD_freeCCtx(w->cctx);
    w->cctx = NULL;
    free(w->enc.p);
    free(w->dir.p);
    free(w->data.p);
    free(w->cbuf.p);
    free(w->enc2.p);
    free(w->cbuf2.p);
    free(w->nums.p);
    for (size_t c = 0; c < SAT_MAX_COLS_TABLE; c++)
        free(w->wide[c]);
    free(w->foot);
}

static void writer_free(sat_trace_writer *w)
{
    sat_out_discard(w->out); /* NULL once committed */
    free(w->path);
    free(w);
}

int sat_trace_writer_close(sat_trace_writer *w, sat_diag *diag)
{
    if (!w)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no writer");
    int rc = SAT_OK;
    for (int t = 0; t < SAT_TABLE__COUNT && rc == SAT_OK; t++)
        rc = submit(w, t);
    /* Stop the worker: it drains the queue first. */
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv_work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thr, NULL);
    w->thr_started = 0;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv_work);
    pthread_cond_destroy(&w->cv_space);
    if (w->err) {
        if (diag)
            *diag = w->diag;
        rc = w->err;
    }
    if (rc == SAT_OK) {
        size_t flen = 8 + w->nfoot * SAT_FOOTER_ENTRY_LEN + 4;
        uint8_t *f = (uint8_t *)malloc(flen + SAT_TRAILER_LEN);
        if (!f) {
            rc = sat_diag_set(diag, SAT_E_NOMEM, w->path, "out of memory");
        } else {
            memcpy(f, "SATF", 4);
            sat_put_le32(f + 4, (uint32_t)w->nfoot);
            uint8_t *q = f + 8;
            for (size_t i = 0; i < w->nfoot; i++, q += SAT_FOOTER_ENTRY_LEN) {
                const footer_ent *e = &w->foot[i];
                sat_put_le16(q, e->table);
                sat_put_le16(q + 2, 0);
                sat_put_le32(q + 4, e->nrows);
                sat_put_le64(q + 8, e->off);
                sat_put_le64(q + 16, e->len);
                sat_put_le64(q + 24, (uint64_t)e->min_ts);
                sat_put_le64(q + 32, (uint64_t)e->max_ts);
            }
            sat_put_le32(q, sat_trace_crc32(f, flen - 4));
            q += 4;
            sat_put_le64(q, w->off);
            sat_put_le64(q + 8, flen);
            sat_put_le32(q + 16, sat_trace_crc32(q, 16));
            memcpy(q + 20, "SATE", 4);
            if (sat_trace_write_all(w->fd, f, flen + SAT_TRAILER_LEN))
                rc = sat_diag_set(diag, SAT_E_IO, w->partial ? w->partial : w->path,
                                  "write failed: %s", strerror(errno));
            free(f);
        }
    }
    /* a file: fsync'd and renamed onto PATH when complete, else removed (a
     * streamed one's descriptor is the caller's) */
    if (w->out && rc == SAT_OK)
        rc = sat_out_commit(w->out, diag);
    else
        sat_out_discard(w->out);
    w->out = NULL;
    w->partial = NULL;
    w->fd = -1;
    writer_teardown(w);
    writer_free(w);
    return rc;
}

void sat_trace_writer_abort(sat_trace_writer *w)
{
    if (!w)
        return;
    writer_teardown(w);
    sat_out_discard(w->out);
    w->out = NULL;
    w->fd = -1;
    writer_free(w);
}

int sat_trace_writer_flush(sat_trace_writer *w)
{
    int rc = SAT_OK;
    for (int t = 0; t < SAT_TABLE__COUNT && rc == SAT_OK; t++)
        rc = submit(w, t);
    if (!w)
        return SAT_E_USAGE;
    pthread_mutex_lock(&w->mu);
    while (w->q_len > 0)
        pthread_cond_wait(&w->cv_space, &w->mu);
    if (!rc)
        rc = w->err;
    pthread_mutex_unlock(&w->mu);
    return rc;
}
