/*
 * retry_rule.c - which connection retried which failed one (the rule is in
 * retry_rule.h): the records sorted by peer and SYN, each peer's failures by
 * the time the client gave up on them, then one walk per peer.
 */
#include <stdlib.h>
#include <string.h>

#include "retry_rule.h"
#include "strtab.h"

void sat_try_of_tcp(sat_try *t, const sat_tcp_conn *c)
{
    uint64_t h = sat_strtab_hash(c->client_ip.ptr, c->client_ip.len) * 0x9e3779b97f4a7c15ULL;
    h ^= sat_strtab_hash(c->server_ip.ptr, c->server_ip.len);
    h ^= sat_hash_u64((uint64_t)c->source << 32 | c->server_port);
    sat_ts_ns end = c->end_ts > c->syn_ts ? c->end_ts : c->syn_ts;
    memset(t, 0, sizeof *t);
    t->peer = h;
    t->syn_ts = c->syn_ts;
    t->gave_up_ts = c->client_left_ts > 0                 ? c->client_left_ts
                    : (c->flags & SAT_TCPF_SYN_GAVE_UP) ? end + (sat_dur_ns)1000000000
                                                          : end;
    t->flow = c->flow;
}

static int cmp_try(const void *a, const void *b)
{
    const sat_try *x = a, *y = b; /* a sat_try begins each record */
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    if (x->syn_ts != y->syn_ts)
        return x->syn_ts < y->syn_ts ? -1 : 1;
    if (x->flow != y->flow)
        return x->flow < y->flow ? -1 : 1;
    return x->conn < y->conn ? -1 : x->conn > y->conn;
}

/* A failure: when it was given up, and which record it is. */
typedef struct gave_up {
    sat_ts_ns ts;
    uint32_t flow;
    int64_t conn;
    size_t i;
} gave_up;

static int cmp_gave_up(const void *a, const void *b)
{
    const gave_up *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->flow != y->flow)
        return x->flow < y->flow ? -1 : 1;
    return x->conn < y->conn ? -1 : x->conn > y->conn;
}

#define AT(i) ((sat_try *)((char *)base + (i) * stride))

int sat_try_match(void *base, size_t n, size_t stride, sat_dur_ns window,
                  sat_try_retry_fn on_retry, sat_try_peer_fn on_peer, void *ctx)
{
    if (!n)
        return SAT_OK;
    qsort(base, n, stride, cmp_try);
    /* the most failures of one peer: the size of the lists below (most
     * connections never failed) */
    size_t most = 0;
    for (size_t g = 0, e; g < n; g = e) {
        size_t nf = 0;
        for (e = g; e < n && AT(e)->peer == AT(g)->peer; e++)
            nf += AT(e)->failed != 0;
        most = nf > most ? nf : most;
    }
    gave_up *fail = malloc((most ? most : 1) * sizeof *fail);
    sat_ts_ns *ts = malloc((most ? most : 1) * sizeof *ts);
    uint8_t *retried = calloc(most ? most : 1, 1);
    if (!fail || !ts || !retried) {
        free(fail);
        free(ts);
        free(retried);
        return SAT_E_NOMEM;
    }
    for (size_t g = 0, e; g < n; g = e) {
        /* one peer: [g, e) in SYN order; its failures by give-up */
        size_t nf = 0;
        for (e = g; e < n && AT(e)->peer == AT(g)->peer; e++) {
            const sat_try *a = AT(e);
            if (a->failed)
                fail[nf++] = (gave_up){a->gave_up_ts, a->flow, a->conn, e};
        }
        qsort(fail, nf, sizeof *fail, cmp_gave_up);
        size_t k = 0; /* failures given up at or before cur's SYN: fail[0, k) */
        for (size_t i = g; i < e && nf; i++) {
            const sat_try *cur = AT(i);
            while (k < nf && fail[k].ts <= cur->syn_ts)
                k++;
            if (!k || retried[k - 1])
                continue;
            const sat_try *prev = AT(fail[k - 1].i);
            if (prev == cur || cur->syn_ts - prev->gave_up_ts > window)
                continue;
            retried[k - 1] = 1;
            on_retry(ctx, i, fail[k - 1].i);
        }
        if (on_peer) {
            for (size_t f = 0; f < nf; f++)
                ts[f] = fail[f].ts;
            on_peer(ctx, g, e - g, ts, nf);
        }
        for (size_t f = 0; f < nf; f++)
            retried[f] = 0;
    }
    free(fail);
    free(ts);
    free(retried);
    return SAT_OK;
}
