/*
 * sink_pipe.c - runs a sink on a second thread, so that parsing and joining
 * (the producer) and the consumer of the events (an analyzer, the trace
 * writer's encoder) use both cores of the machine instead of one.
 *
 * Rows handed to the pipe's sink are copied, with their strings, into the
 * current batch; a full batch goes to the consumer thread, which rebuilds its
 * rows one by one (their strings point into the batch) and replays them in
 * order into the inner sink. A few batches circulate, so memory stays bounded
 * whatever the input. The inner sink's first error is sticky and is returned
 * to the producer by its next call and by sat_sink_pipe_close.
 */
#include <pthread.h>

#include "satscope/collect.h"
#include "satscope/trace.h"

/* 4 MiB in flight: batch sizes from 128 KiB to 1 MiB measured alike here;
 * eight batches rather than four let the producer run ahead while the
 * consumer (faster than it on the 389 logs) catches up, instead of one of
 * the two cores idling at each hand-over (etime on 1 GB: 0.92x the wall of
 * four, the same CPU). */
#define PIPE_BATCH_BYTES (512u << 10)
#define PIPE_BATCHES 8

/* Each batch on a cache line of its own: the producer bumps `used` on every
 * row, and a neighbour's line shared with the consumer would bounce between
 * the cores at each of them (it cost more than all the copying). */
typedef struct batch {
    _Alignas(64) unsigned char *buf;
    size_t cap, used;
    struct batch *next;
} batch;

/* ---- copying rows in -------------------------------------------------------------
 * A row travels compact: the bytes of its fields that are not strings (packed),
 * then the length of each string (STR_ABSENT for an absent one), then the
 * strings' bytes. An ldap_op row (320 bytes, twelve strings of 16 bytes each,
 * most absent) shrinks to about half, and the hand-over's cost is its bytes
 * (they cross between the cores). Which fields are strings is the trace schema's word
 * (sat_table_str_offsets): a string field added to event.h and schema.c
 * crosses here with its bytes, with no edit in this file. */

typedef struct row_hdr {
    uint32_t table;
    uint32_t size; /* header + packed row + lengths + strings, rounded up to the alignment */
} row_hdr;

#define ALIGN_UP(n) (((n) + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t))
#define STR_ABSENT UINT32_MAX

/* Bytes [off, off + len) of a row struct that hold no string. */
typedef struct span {
    uint32_t off, len;
} span;

/* How one table's rows travel, worked out from the schema at create. */
typedef struct row_form {
    size_t size;         /* sizeof the row struct; 0: no such table */
    size_t packed;       /* bytes of its spans */
    const uint16_t *str; /* offsets of its sat_str fields (schema, static) */
    size_t nstr, nspan;
    span *spans;         /* every byte that is not a string's, in struct order */
} row_form;

/* The form of `table`'s rows: its spans are the bytes outside its strings. */
static int form_make(row_form *f, int table)
{
    const sat_table_def *def = sat_table_get(table);
    memset(f, 0, sizeof *f);
    if (!def)
        return SAT_OK;
    f->str = sat_table_str_offsets(table, &f->nstr);
    unsigned char *is_str = calloc(def->row_size, 1);
    f->spans = malloc((f->nstr + 1) * sizeof *f->spans); /* n strings leave n + 1 gaps */
    if (!is_str || !f->spans) {
        free(is_str);
        free(f->spans);
        f->spans = NULL;
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < f->nstr; i++)
        memset(is_str + f->str[i], 1, sizeof(sat_str));
    for (size_t b = 0; b < def->row_size;) {
        if (is_str[b]) {
            b++;
            continue;
        }
        size_t e = b;
        while (e < def->row_size && !is_str[e])
            e++;
        f->spans[f->nspan++] = (span){(uint32_t)b, (uint32_t)(e - b)};
        f->packed += e - b;
        b = e;
    }
    free(is_str);
    f->size = def->row_size;
    return SAT_OK;
}

struct sat_sink_pipe {
    sat_event_sink inner;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    batch *full_head, *full_tail; /* waiting for the consumer, in order */
    batch *free_list;
    batch *cur;                   /* the producer's batch */
    int closing;
    int error;                    /* the inner sink's first failure */
    batch all[PIPE_BATCHES];
    row_form form[SAT_TABLE__COUNT];
    void *row;                    /* the consumer's rebuilt row (the largest size) */
};

/* ---- the consumer ------------------------------------------------------------------ */

/* The row of table h->table rebuilt from its compact form into p->row. */
static const void *unpack(sat_sink_pipe *p, const row_hdr *h)
{
    const row_form *f = &p->form[h->table];
    const unsigned char *in = (const unsigned char *)h + ALIGN_UP(sizeof(row_hdr));
    unsigned char *row = p->row;
    for (size_t i = 0; i < f->nspan; i++) {
        memcpy(row + f->spans[i].off, in, f->spans[i].len);
        in += f->spans[i].len;
    }
    const unsigned char *lens = in;
    const char *bytes = (const char *)lens + f->nstr * sizeof(uint32_t);
    for (size_t i = 0; i < f->nstr; i++) {
        uint32_t len;
        memcpy(&len, lens + i * sizeof len, sizeof len);
        sat_str *s = (sat_str *)(void *)(row + f->str[i]);
        if (len == STR_ABSENT) {
            *s = SAT_STR_NONE;
        } else {
            *s = sat_str_make(bytes, len);
            bytes += len;
        }
    }
    return row;
}

static void replay_batch(sat_sink_pipe *p, batch *b)
{
    size_t off = 0, used = b->used;
    while (off < used) {
        const row_hdr *h = (const row_hdr *)(b->buf + off);
        if (!p->error) {
            int rc = sat_sink_emit(&p->inner, (int)h->table, unpack(p, h));
            if (rc < 0) {
                pthread_mutex_lock(&p->mu);
                p->error = rc;
                pthread_mutex_unlock(&p->mu);
            }
        }
        off += h->size;
    }
    b->used = 0;
}

static void *consumer(void *arg)
{
    sat_sink_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->full_head && !p->closing)
            pthread_cond_wait(&p->cond, &p->mu);
        batch *b = p->full_head;
        if (!b)
            break; /* closing and drained */
        p->full_head = b->next;
        if (!p->full_head)
            p->full_tail = NULL;
        pthread_mutex_unlock(&p->mu);
        replay_batch(p, b);
        pthread_mutex_lock(&p->mu);
        b->next = p->free_list;
        p->free_list = b;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the producer ------------------------------------------------------------------ */

/* Hands the current batch over and takes a free one (waiting if needed). */
/* Under p->mu: queue the producer's batch for the consumer, if it holds rows. */
static void enqueue_current(sat_sink_pipe *p)
{
    batch *b = p->cur;
    if (!b || !b->used)
        return;
    b->next = NULL;
    if (p->full_tail)
        p->full_tail->next = b;
    else
        p->full_head = b;
    p->full_tail = b;
    p->cur = NULL;
    pthread_cond_broadcast(&p->cond);
}

static int hand_over(sat_sink_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    enqueue_current(p);
    while (!p->cur) {
        if (p->free_list) {
            p->cur = p->free_list;
            p->free_list = p->cur->next;
        } else {
            pthread_cond_wait(&p->cond, &p->mu);
        }
    }
    int err = p->error;
    pthread_mutex_unlock(&p->mu);
    return err;
}

/* Room for `need` bytes in the current batch (handing it over if full). */
static int reserve(sat_sink_pipe *p, size_t need, unsigned char **at)
{
    batch *b = p->cur;
    if (b->cap - b->used < need) {
        int err = hand_over(p);
        if (err)
            return err;
        b = p->cur;
        if (b->cap < need) { /* one huge row (a 1 MiB filter): a bigger buffer */
            unsigned char *nb = realloc(b->buf, need);
            if (!nb)
                return SAT_E_NOMEM;
            b->buf = nb;
            b->cap = need;
        }
    }
    *at = b->buf + b->used;
    b->used += need;
    return SAT_OK;
}

/* One row into the current batch, in its compact form. */
static int pipe_row(void *c, int table, const void *row)
{
    sat_sink_pipe *p = c;
    if ((unsigned)table >= SAT_TABLE__COUNT || !p->form[table].size)
        return SAT_E_USAGE;
    const row_form *f = &p->form[table];
    const unsigned char *src = row;
    size_t need = ALIGN_UP(sizeof(row_hdr)) + f->packed + f->nstr * sizeof(uint32_t);
    for (size_t i = 0; i < f->nstr; i++) {
        const sat_str *s = (const sat_str *)(const void *)(src + f->str[i]);
        if (s->ptr)
            need += s->len;
    }
    need = ALIGN_UP(need);
    unsigned char *at;
    int rc = reserve(p, need, &at);
    if (rc)
        return rc;
    row_hdr *h = (row_hdr *)at;
    h->table = (uint32_t)table;
    h->size = (uint32_t)need;
    unsigned char *out = at + ALIGN_UP(sizeof(row_hdr));
    for (size_t i = 0; i < f->nspan; i++) {
        memcpy(out, src + f->spans[i].off, f->spans[i].len);
        out += f->spans[i].len;
    }
    unsigned char *lens = out;
    char *bytes = (char *)lens + f->nstr * sizeof(uint32_t);
    for (size_t i = 0; i < f->nstr; i++) {
        const sat_str *s = (const sat_str *)(const void *)(src + f->str[i]);
        uint32_t len = s->ptr ? s->len : STR_ABSENT; /* "" stays present */
        memcpy(lens + i * sizeof len, &len, sizeof len);
        if (s->ptr && s->len) {
            memcpy(bytes, s->ptr, s->len);
            bytes += s->len;
        }
    }
    return SAT_OK;
}

/* What create allocated (the thread and its locks apart). */
static void pipe_free(sat_sink_pipe *p)
{
    for (int i = 0; i < PIPE_BATCHES; i++)
        free(p->all[i].buf);
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        free(p->form[t].spans);
    free(p->row);
    free(p);
}

sat_sink_pipe *sat_sink_pipe_create(const sat_event_sink *inner)
{
    sat_sink_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->inner = *inner;
    size_t row_max = 0;
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        if (form_make(&p->form[t], t) < 0) {
            pipe_free(p);
            return NULL;
        }
        if (p->form[t].size > row_max)
            row_max = p->form[t].size;
    }
    p->row = malloc(row_max ? row_max : 1); /* malloc's alignment suits any row */
    if (!p->row) {
        pipe_free(p);
        return NULL;
    }
    for (int i = 0; i < PIPE_BATCHES; i++) {
        p->all[i].buf = malloc(PIPE_BATCH_BYTES);
        if (!p->all[i].buf) {
            pipe_free(p);
            return NULL;
        }
        p->all[i].cap = PIPE_BATCH_BYTES;
        p->all[i].next = i + 1 < PIPE_BATCHES ? &p->all[i + 1] : NULL;
    }
    p->cur = &p->all[0];
    p->free_list = &p->all[1];
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cond, NULL);
    if (pthread_create(&p->thread, NULL, consumer, p) != 0) {
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cond);
        pipe_free(p);
        return NULL;
    }
    return p;
}

sat_event_sink sat_sink_pipe_sink(sat_sink_pipe *p)
{
    /* the tables of the inner sink, no more: the others are not copied */
    sat_event_sink s = {p, p->inner.on_row ? p->inner.tables : 0, pipe_row};
    return s;
}

int sat_sink_pipe_close(sat_sink_pipe *p)
{
    if (!p)
        return SAT_OK;
    pthread_mutex_lock(&p->mu);
    enqueue_current(p);
    p->closing = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    int err = p->error;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cond);
    pipe_free(p);
    return err;
}
