/*
 * tcp_flow_table.c - the connection table of the flow table (tcp_flow.c): a
 * chained hash of a connection's two endpoints (symmetric: both directions
 * find the same flow), new flows with their client and server roles, the
 * oldest evicted at capacity, idle flows expired, flows released for reuse.
 */
#include "tcp_flow_int.h"

/* ---- lists and hash ---------------------------------------------------------------- */

static uint64_t endpoint_hash(const uint8_t *addr, uint16_t port)
{
    uint64_t a, b;
    memcpy(&a, addr, 8);
    memcpy(&b, addr + 8, 8);
    return sat_hash_u64(a ^ sat_hash_u64(b ^ ((uint64_t)port << 1)));
}

/* Symmetric: the same for both directions of a connection. */
uint64_t sat_tf_pkt_hash(const sat_packet *p)
{
    return sat_hash_u64(endpoint_hash(p->src, p->sport) + endpoint_hash(p->dst, p->dport) +
                        p->ip_version);
}

flow *sat_tf_lookup(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir)
{
    for (flow *f = t->buckets[h & (t->nbuckets - 1)]; f; f = f->hnext) {
        if (f->hash != h || f->ver != p->ip_version)
            continue;
        if (p->sport == f->row.client_port && p->dport == f->row.server_port &&
            !memcmp(p->src, f->caddr, 16) && !memcmp(p->dst, f->saddr, 16)) {
            *dir = SAT_DIR_C2S;
            return f;
        }
        if (p->sport == f->row.server_port && p->dport == f->row.client_port &&
            !memcmp(p->src, f->saddr, 16) && !memcmp(p->dst, f->caddr, 16)) {
            *dir = SAT_DIR_S2C;
            return f;
        }
    }
    return NULL;
}

static void hash_remove(sat_flow_table *t, flow *f)
{
    flow **pp = &t->buckets[f->hash & (t->nbuckets - 1)];
    while (*pp && *pp != f)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = f->hnext;
    f->hnext = NULL;
}

static void hash_grow(sat_flow_table *t)
{
    size_t nb = t->nbuckets * 2;
    flow **b = calloc(nb, sizeof *b);
    if (!b)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < t->nbuckets; i++) {
        flow *f = t->buckets[i];
        while (f) {
            flow *n = f->hnext;
            f->hnext = b[f->hash & (nb - 1)];
            b[f->hash & (nb - 1)] = f;
            f = n;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
}

/* ---- flows ------------------------------------------------------------------------------ */
static void format_ip(uint8_t ver, const uint8_t *a, char *out)
{
    if (!inet_ntop(ver == 6 ? AF_INET6 : AF_INET, a, out, INET6_ADDRSTRLEN))
        out[0] = '\0';
}

void sat_tf_release(sat_flow_table *t, flow *f)
{
    sat_tf_stop_dissector(f);
    for (int k = 0; k < 2; k++) {
        dir_state *d = &f->d[k];
        for (uint32_t i = 0; i < d->nooo; i++)
            seg_free(&d->ooo[i]);
        free(d->ooo);
        d->ooo = NULL;
        d->nooo = 0;
        d->ooo_bytes = 0;
    }
    hash_remove(t, f);
    list_remove(f->closed ? &t->closed : &t->open, f);
    f->hnext = t->free_list;
    t->free_list = f;
}

int sat_tf_expire(sat_flow_table *t, sat_ts_ns now)
{
    int rc = SAT_OK;
    sat_dur_ns linger = t->opts.idle_timeout < SAT_CLOSED_LINGER_NS ? t->opts.idle_timeout
                                                                     : SAT_CLOSED_LINGER_NS;
    while (t->closed.head && now - t->closed.head->last_ts > linger)
        sat_tf_release(t, t->closed.head);
    while (rc >= 0 && t->open.head && now - t->open.head->last_ts > t->opts.idle_timeout) {
        flow *f = t->open.head;
        t->stats.expired++;
        sat_tf_note_syn_unanswered(f, now, 0);
        rc = sat_tf_end_flow(t, f, SAT_TCP_END_IDLE, f->last_ts, 0);
    }
    return rc;
}

flow *sat_tf_new_flow(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir, int *rc)
{
    *rc = SAT_OK;
    if (t->open.n + t->closed.n >= t->opts.max_flows) {
        if (t->closed.head) {
            sat_tf_release(t, t->closed.head);
        } else if (t->open.head) {
            flow *old = t->open.head;
            t->stats.evicted++;
            sat_tf_note_syn_unanswered(old, p->ts, 0);
            *rc = sat_tf_end_flow(t, old, SAT_TCP_END_EVICTED, old->last_ts, 0);
            if (*rc < 0)
                return NULL;
        }
    }
    flow *f = t->free_list;
    if (f)
        t->free_list = f->hnext;
    else if (!(f = malloc(sizeof *f))) {
        *rc = SAT_E_NOMEM;
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->hash = h;
    f->ver = p->ip_version;
    f->first_fin = -1;
    int syn = (p->tcp_flags & SAT_TCP_SYN) != 0, ack = (p->tcp_flags & SAT_TCP_ACK) != 0;
    int src_is_client;
    if (syn && !ack)
        src_is_client = 1;
    else if (syn && ack)
        src_is_client = 0;
    else
        src_is_client = p->sport >= p->dport;
    if (!(syn && !ack))
        f->row.flags |= SAT_TCPF_NO_SYN;
    memcpy(f->caddr, src_is_client ? p->src : p->dst, 16);
    memcpy(f->saddr, src_is_client ? p->dst : p->src, 16);
    f->row.client_port = src_is_client ? p->sport : p->dport;
    f->row.server_port = src_is_client ? p->dport : p->sport;
    *dir = src_is_client ? SAT_DIR_C2S : SAT_DIR_S2C;
    format_ip(f->ver, f->caddr, f->cip);
    format_ip(f->ver, f->saddr, f->sip);
    f->row.syn_ts = p->ts;
    f->row.source = t->ctx ? t->ctx->source : 0;
    f->row.flow = ++t->next_flow;
    f->row.client_ip = sat_str_cstr(f->cip);
    f->row.server_ip = sat_str_cstr(f->sip);
    f->row.rtt = SAT_ABSENT;
    f->row.last_c2s_to_end = SAT_ABSENT;
    if (f->ver == 6)
        f->row.flags |= SAT_TCPF_IPV6;
    f->info.source = f->row.source;
    f->info.flow = f->row.flow;
    f->info.client_ip = f->row.client_ip;
    f->info.server_ip = f->row.server_ip;
    f->info.client_port = f->row.client_port;
    f->info.server_port = f->row.server_port;
    size_t b = h & (t->nbuckets - 1);
    f->hnext = t->buckets[b];
    t->buckets[b] = f;
    list_append(&t->open, f);
    t->stats.flows++;
    if (t->open.n + t->closed.n > t->nbuckets)
        hash_grow(t);
    return f;
}
