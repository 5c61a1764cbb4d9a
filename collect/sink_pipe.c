/*
 * sink_pipe.c - runs a sink on a second thread, so that parsing and joining
 * (the producer) and the consumer of the events (an analyzer, the trace
 * writer's encoder) use both cores of the machine instead of one.
 *
 * Rows handed to the pipe's sink are copied, with their strings, into the
 * current batch (a fixed buffer: pointers into it stay valid); a full batch
 * goes to the consumer thread, which replays its rows in order into the
 * inner sink. A few batches circulate, so memory stays bounded whatever the
 * input. The inner sink's first error is sticky and is returned to the
 * producer by its next call and by sat_sink_pipe_close.
 */
#include <pthread.h>

#include "satscope/collect.h"

/* 2 MiB in flight: sizes from 128 KiB to 1 MiB measured alike here. */
#define PIPE_BATCH_BYTES (512u << 10)
#define PIPE_BATCHES 4

/* Each batch on a cache line of its own: the producer bumps `used` on every
 * row, and a neighbour's line shared with the consumer would bounce between
 * the cores at each of them (it cost more than all the copying). */
typedef struct batch {
    _Alignas(64) unsigned char *buf;
    size_t cap, used;
    struct batch *next;
} batch;

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
};

/* ---- copying rows in ------------------------------------------------------------- */

typedef struct row_hdr {
    uint32_t table;
    uint32_t size; /* header + row + strings, rounded up to the alignment */
} row_hdr;

#define ALIGN_UP(n) (((n) + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t))

/* ldap_op rows, by far the most numerous, travel compact: the numbers (the
 * struct up to its first string), then the twelve string lengths, then their
 * bytes. A 304-byte row whose strings are mostly absent shrinks to about half,
 * and the hand-over's cost is its bytes (it crosses between the cores). */
#define COMPACT_OP 0x100u
#define OP_PREFIX offsetof(sat_ldap_op, dn)
#define OP_NSTR 12
#define STR_ABSENT UINT32_MAX
_Static_assert(offsetof(sat_ldap_op, entry_dns) - offsetof(sat_ldap_op, dn) ==
                   (OP_NSTR - 1) * sizeof(sat_str),
               "the compact ldap_op form needs its strings last, dn to entry_dns");

/* The strings of each table's row, as pointers into the struct (at most
 * ROW_MAX_STR: the callers' arrays). */
#define ROW_MAX_STR 16
static size_t row_strings(int table, void *row, sat_str **out)
{
    size_t n = 0;
    switch (table) {
    case SAT_TABLE_SOURCE: {
        sat_source *s = row;
        sat_str *v[] = {&s->path, &s->kind, &s->format, &s->compression,
                        &s->server_name, &s->server_version};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            out[n++] = v[i];
        break;
    }
    case SAT_TABLE_REJECT: {
        sat_reject *r = row;
        out[n++] = &r->reason;
        out[n++] = &r->excerpt;
        break;
    }
    case SAT_TABLE_LDAP_OP: {
        sat_ldap_op *o = row;
        sat_str *v[] = {&o->dn, &o->filter, &o->filter_shape, &o->attrs, &o->method,
                        &o->extra, &o->bind_dn, &o->client_ip, &o->text, &o->details,
                        &o->sid, &o->entry_dns};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            out[n++] = v[i];
        break;
    }
    case SAT_TABLE_LDAP_CONN: {
        sat_ldap_conn *c = row;
        sat_str *v[] = {&c->client_ip, &c->server_addr, &c->tls_version, &c->tls_cipher,
                        &c->client_cert, &c->close_reason, &c->bind_dn};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            out[n++] = v[i];
        break;
    }
    case SAT_TABLE_TCP_CONN: {
        sat_tcp_conn *c = row;
        out[n++] = &c->client_ip;
        out[n++] = &c->server_ip;
        break;
    }
    case SAT_TABLE_TLS_HS: {
        sat_tls_hs *h = row;
        out[n++] = &h->client_ip;
        out[n++] = &h->server_ip;
        out[n++] = &h->sni;
        break;
    }
    case SAT_TABLE_CRASH: {
        sat_crash *c = row;
        sat_str *v[] = {&c->host, &c->exe, &c->command, &c->build_id,
                        &c->fingerprint, &c->signature, &c->build_key, &c->missing};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            out[n++] = v[i];
        break;
    }
    case SAT_TABLE_FRAME: {
        sat_frame *f = row;
        out[n++] = &f->module;
        out[n++] = &f->build_id;
        out[n++] = &f->function;
        out[n++] = &f->file;
        break;
    }
    case SAT_TABLE_HTTP_REQ: {
        sat_http_req *h = row;
        sat_str *v[] = {&h->client_ip, &h->method,       &h->path,  &h->path_template,
                        &h->protocol,  &h->tls_protocol, &h->vhost, &h->user,
                        &h->user_agent};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            out[n++] = v[i];
        break;
    }
    default:
        break;
    }
    return n;
}

static size_t row_size(int table)
{
    switch (table) {
    case SAT_TABLE_SOURCE: return sizeof(sat_source);
    case SAT_TABLE_REJECT: return sizeof(sat_reject);
    case SAT_TABLE_LDAP_OP: return sizeof(sat_ldap_op);
    case SAT_TABLE_LDAP_CONN: return sizeof(sat_ldap_conn);
    case SAT_TABLE_TCP_CONN: return sizeof(sat_tcp_conn);
    case SAT_TABLE_TLS_HS: return sizeof(sat_tls_hs);
    case SAT_TABLE_CRASH: return sizeof(sat_crash);
    case SAT_TABLE_FRAME: return sizeof(sat_frame);
    case SAT_TABLE_HTTP_REQ: return sizeof(sat_http_req);
    default: return 0;
    }
}

/* ---- the consumer ------------------------------------------------------------------ */

static void replay_batch(sat_sink_pipe *p, batch *b)
{
    size_t off = 0, used = b->used;
    while (off < used) {
        row_hdr *h = (row_hdr *)(b->buf + off);
        if (!p->error) {
            const unsigned char *body = b->buf + off + ALIGN_UP(sizeof(row_hdr));
            int rc;
            if (h->table == (SAT_TABLE_LDAP_OP | COMPACT_OP)) {
                sat_ldap_op op;
                memcpy(&op, body, OP_PREFIX);
                sat_str *strs[ROW_MAX_STR];
                row_strings(SAT_TABLE_LDAP_OP, &op, strs);
                const unsigned char *lens = body + OP_PREFIX;
                const char *bytes = (const char *)lens + OP_NSTR * sizeof(uint32_t);
                for (size_t i = 0; i < OP_NSTR; i++) {
                    uint32_t len;
                    memcpy(&len, lens + i * sizeof len, sizeof len);
                    if (len == STR_ABSENT) {
                        *strs[i] = SAT_STR_NONE;
                    } else {
                        *strs[i] = sat_str_make(bytes, len);
                        bytes += len;
                    }
                }
                rc = sat_sink_emit(&p->inner, SAT_TABLE_LDAP_OP, &op);
            } else {
                rc = sat_sink_emit(&p->inner, (int)h->table, body);
            }
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

static int pipe_emit_op(sat_sink_pipe *p, const sat_ldap_op *op)
{
    sat_str *strs[ROW_MAX_STR] = {NULL};
    row_strings(SAT_TABLE_LDAP_OP, (void *)(uintptr_t)op, strs);
    size_t need = ALIGN_UP(sizeof(row_hdr)) + OP_PREFIX + OP_NSTR * sizeof(uint32_t);
    for (size_t i = 0; i < OP_NSTR; i++)
        if (strs[i]->ptr)
            need += strs[i]->len;
    need = ALIGN_UP(need);
    unsigned char *at;
    int rc = reserve(p, need, &at);
    if (rc)
        return rc;
    row_hdr *h = (row_hdr *)at;
    h->table = SAT_TABLE_LDAP_OP | COMPACT_OP;
    h->size = (uint32_t)need;
    unsigned char *body = at + ALIGN_UP(sizeof(row_hdr));
    memcpy(body, op, OP_PREFIX);
    unsigned char *lens = body + OP_PREFIX;
    char *bytes = (char *)lens + OP_NSTR * sizeof(uint32_t);
    for (size_t i = 0; i < OP_NSTR; i++) {
        uint32_t len = strs[i]->ptr ? strs[i]->len : STR_ABSENT;
        memcpy(lens + i * sizeof len, &len, sizeof len);
        if (strs[i]->ptr && strs[i]->len) {
            memcpy(bytes, strs[i]->ptr, strs[i]->len);
            bytes += strs[i]->len;
        }
    }
    return SAT_OK;
}

static int pipe_emit(sat_sink_pipe *p, int table, const void *row)
{
    size_t rsize = row_size(table);
    if (!rsize)
        return SAT_E_USAGE;
    /* The row's string fields, found once on the caller's row to size the
     * copy, then on the copy to point them at their bytes in the batch. */
    sat_str *strs[ROW_MAX_STR] = {NULL};
    size_t nstr = row_strings(table, (void *)(uintptr_t)row, strs);
    size_t need = ALIGN_UP(sizeof(row_hdr)) + ALIGN_UP(rsize);
    for (size_t i = 0; i < nstr; i++)
        if (strs[i]->ptr)
            need += strs[i]->len;
    need = ALIGN_UP(need);

    unsigned char *base;
    int rc = reserve(p, need, &base);
    if (rc)
        return rc;
    row_hdr *h = (row_hdr *)base;
    h->table = (uint32_t)table;
    h->size = (uint32_t)need;
    unsigned char *dst_row = base + ALIGN_UP(sizeof(row_hdr));
    memcpy(dst_row, row, rsize);
    sat_str *dst[ROW_MAX_STR] = {NULL};
    row_strings(table, dst_row, dst);
    char *str_area = (char *)dst_row + ALIGN_UP(rsize);
    for (size_t i = 0; i < nstr; i++) {
        if (!strs[i]->ptr)
            continue;
        if (strs[i]->len)
            memcpy(str_area, strs[i]->ptr, strs[i]->len);
        dst[i]->ptr = str_area; /* "" stays present: a non-NULL pointer */
        str_area += strs[i]->len;
    }
    return SAT_OK;
}

/* ldap_op rows in their compact form, every other table as it is. */
static int pipe_row(void *c, int table, const void *row)
{
    return table == SAT_TABLE_LDAP_OP ? pipe_emit_op(c, row) : pipe_emit(c, table, row);
}

sat_sink_pipe *sat_sink_pipe_create(const sat_event_sink *inner)
{
    sat_sink_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->inner = *inner;
    for (int i = 0; i < PIPE_BATCHES; i++) {
        p->all[i].buf = malloc(PIPE_BATCH_BYTES);
        if (!p->all[i].buf) {
            for (int k = 0; k < i; k++)
                free(p->all[k].buf);
            free(p);
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
        for (int i = 0; i < PIPE_BATCHES; i++)
            free(p->all[i].buf);
        free(p);
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
    for (int i = 0; i < PIPE_BATCHES; i++)
        free(p->all[i].buf);
    free(p);
    return err;
}
