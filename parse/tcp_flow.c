/*
 * tcp_flow.c - the flow table of wire.h: TCP connections tracked in bounded
 * memory, each direction put back in sequence order for a stream dissector,
 * one tcp_conn row per connection when it ends. RFC 9293 (TCP): sequence
 * numbers compared modulo 2^32 (serial arithmetic, RFC 1982), SYN and FIN
 * each take one sequence number.
 *
 * Table: chained hash of the connection's two endpoints (symmetric: both
 * directions find the same flow); open flows on an LRU list by last packet
 * (idle expiry looks at its head only; at capacity its head is evicted);
 * closed flows linger on a second LRU list for a short while so that the
 * last ACK or a retransmitted FIN does not start a new "mid-stream" flow, and
 * are reused first at capacity (their row was already written).
 *
 * Roles: the sender of a SYN without ACK is the client; a flow first seen at
 * its SYN/ACK has the receiver as client; otherwise (capture started later)
 * SAT_TCPF_NO_SYN and the higher port is the client (ties: the first sender).
 *
 * Reassembly per direction: in-order bytes go straight to the dissector
 * (no copy); a segment ahead of the next expected byte is copied into a small
 * sorted list (SAT_OOO_SEGS segments, SAT_OOO_BYTES bytes). When the list is
 * full, when the other side acknowledges past a hole (the capture lost what the
 * receiver got) or when the connection ends, the hole is given to the
 * dissector as gap() and the stored bytes follow. Bytes behind the next
 * expected one are retransmissions: counted, never delivered twice.
 *
 * Decisions (documented here, asserted by tests/unit/test_tcp_flow.c):
 *  - packets are counted in pkts_* whatever they carry (retransmissions too);
 *    bytes_* count each sequence byte once (snaplen-cut bytes included, holes
 *    the capture never saw excluded);
 *  - rtt runs from the first SYN (syn_ts) to the client's ACK of the SYN/ACK,
 *    so SYN retransmissions show in it;
 *  - a connection half-closed by one FIN and still open at the end of the
 *    capture is reported as closed by that FIN's sender (idle and evicted
 *    stay so: they match the expired/evicted counts);
 *  - a RST of an unknown connection starts no flow (no row: nothing else is
 *    known of it);
 *  - on SAT_STREAM_UPGRADE_TLS the bytes after the upgrade point in the same
 *    delivery stay with the old dissector (StartTLS answers end a segment);
 *  - a SYN never answered by a SYN/ACK (or by one that came after the client
 *    had gone: it answers with a RST, having acknowledged nothing) is a
 *    client that gave up (SAT_TCPF_SYN_GAVE_UP) once it resets or closes, or
 *    once the capture has gone on past the retransmission it would have sent
 *    next (RFC 6298: 1 s after the first SYN, doubling) without one; a SYN
 *    still within that time when the capture ends may yet have been
 *    answered: not flagged.
 */
#include "satscope/wire.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#define SAT_OOO_SEGS 16
#define SAT_OOO_BYTES (256u * 1024u)
#define SAT_CLOSED_LINGER_NS (30LL * 1000000000LL)
/* Longest prefix a "maybe" may wait for: the dissectors here decide within
 * 6 bytes (a TLS record header and handshake type; an LDAP message's tag,
 * length and messageID), so 16 is a safe margin that costs 32 bytes a flow. */
#define SAT_SNIFF_WAIT_BYTES 16

typedef struct ooo_seg {
    uint32_t seq;      /* first sequence number */
    uint32_t wire_len; /* sequence bytes the segment covers */
    uint32_t len;      /* bytes present (copied into data) */
    sat_ts_ns ts;
    uint8_t *data;     /* malloc'd copy, NULL when len == 0 */
} ooo_seg;

typedef struct dir_state {
    uint8_t have_seq;  /* next_seq is known */
    uint8_t fin;       /* a FIN was seen */
    uint32_t next_seq; /* next sequence byte expected */
    sat_ts_ns last_payload_ts;
    ooo_seg *ooo;      /* SAT_OOO_SEGS slots, allocated on first need */
    uint32_t nooo;
    size_t ooo_bytes;
    uint8_t sniff_len;  /* first bytes kept while the sniff says "maybe" */
    uint8_t sniff[SAT_SNIFF_WAIT_BYTES];
    sat_ts_ns sniff_ts; /* the first kept byte's segment */
} dir_state;

typedef struct flow {
    struct flow *hnext;       /* hash chain */
    struct flow *prev, *next; /* open or closed LRU list */
    uint64_t hash;
    uint8_t ver;
    uint8_t caddr[16], saddr[16];
    uint8_t closed;
    uint8_t syn_seen, synack_seen, rtt_done;
    uint8_t tried[2];         /* deliveries per direction offered to sniff */
    int8_t first_fin;         /* direction of the first FIN, -1 none */
    uint32_t client_isn, server_isn;
    sat_ts_ns last_ts;
    sat_tcp_conn row;
    dir_state d[2];
    const sat_stream_dissector *dis;
    void *dst;
    sat_flow_info info;
    char cip[INET6_ADDRSTRLEN], sip[INET6_ADDRSTRLEN];
} flow;

typedef struct flow_list {
    flow *head, *tail;
    size_t n;
} flow_list;

struct sat_flow_table {
    sat_flow_opts opts;
    const sat_wire_ctx *ctx;
    const sat_stream_dissector *const *dis;
    flow **buckets;
    size_t nbuckets;          /* power of two */
    flow_list open, closed;
    flow *free_list;          /* flow structs kept for reuse */
    uint32_t next_flow;
    sat_flow_stats stats;
};

/* ---- lists and hash ---------------------------------------------------------------- */
static void list_remove(flow_list *l, flow *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else
        l->head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        l->tail = f->prev;
    f->prev = f->next = NULL;
    l->n--;
}

static void list_append(flow_list *l, flow *f)
{
    f->next = NULL;
    f->prev = l->tail;
    if (l->tail)
        l->tail->next = f;
    else
        l->head = f;
    l->tail = f;
    l->n++;
}

static uint64_t endpoint_hash(const uint8_t *addr, uint16_t port)
{
    uint64_t a, b;
    memcpy(&a, addr, 8);
    memcpy(&b, addr + 8, 8);
    return sat_hash_u64(a ^ sat_hash_u64(b ^ ((uint64_t)port << 1)));
}

/* Symmetric: the same for both directions of a connection. */
static uint64_t pkt_hash(const sat_packet *p)
{
    return sat_hash_u64(endpoint_hash(p->src, p->sport) + endpoint_hash(p->dst, p->dport) +
                        p->ip_version);
}

static flow *lookup(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir)
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

/* ---- dissector plumbing ------------------------------------------------------------- */
static const sat_stream_dissector *find_dis(const sat_flow_table *t, const char *name)
{
    for (const sat_stream_dissector *const *d = t->dis; *d; d++)
        if (strcmp((*d)->name, name) == 0)
            return *d;
    return NULL;
}

static void mark_protocol(flow *f)
{
    if (!f->dis)
        return;
    if (strcmp(f->dis->name, "tls") == 0)
        f->row.flags |= SAT_TCPF_TLS;
    else if (strcmp(f->dis->name, "ldap") == 0)
        f->row.flags |= SAT_TCPF_LDAP;
}

static int start_dissector(sat_flow_table *t, flow *f, const sat_stream_dissector *d)
{
    f->dst = d->create(&f->info, t->ctx);
    if (!f->dst)
        return SAT_E_NOMEM;
    f->dis = d;
    mark_protocol(f);
    return SAT_OK;
}

static void stop_dissector(flow *f)
{
    if (f->dis && f->dis->destroy)
        f->dis->destroy(f->dst);
    f->dis = NULL;
    f->dst = NULL;
}

/* The first payload bytes of a direction: which dissector, if any.
 * Content detection waits for enough bytes (wire.h's sniff contract): while
 * the best score is a "maybe" (1..29: a prefix of some protocol, too short to
 * tell, such as the lone 0x16 of a ClientHello cut into many segments), a
 * direction's first bytes are kept (SAT_SNIFF_WAIT_BYTES at most) and sniffed
 * again with the next delivery appended. The decision is taken at a claim
 * (30 or more), at a "no" from every dissector, at the bound, or at the
 * connection's end (nothing claimed then); a gap drops what was kept (the
 * next bytes do not follow it). The kept bytes go to the chosen dissector
 * first, with the time of their first segment, in arrival order across the
 * two directions. A wait that ends unclaimed counts as one delivery of the
 * SNIFF_DELIVERIES offered. */
#define SNIFF_DELIVERIES 8

/* The best claim (score 30 or more) on p, else NULL; *maybe: some
 * dissector answered 1..29 (wants more bytes before it can tell). */
static const sat_stream_dissector *sniff_best(const sat_flow_table *t, const flow *f, int dir,
                                              const uint8_t *p, size_t n, int *maybe)
{
    const sat_stream_dissector *best = NULL;
    int score = 29; /* below 30 nothing is claimed, as for log formats */
    *maybe = 0;
    for (const sat_stream_dissector *const *d = t->dis; *d; d++) {
        int s = (*d)->sniff(p, n, dir, f->row.server_port);
        if (s > score) {
            score = s;
            best = *d;
        } else if (s > 0 && s < 30) {
            *maybe = 1;
        }
    }
    return best;
}

static void keep_sniffed(dir_state *d, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    if (!d->sniff_len)
        d->sniff_ts = ts;
    memcpy(d->sniff + d->sniff_len, p, n);
    d->sniff_len = (uint8_t)(d->sniff_len + n);
}

/* Returns 1 while the bytes are kept to be sniffed again (no dissector yet). */
static int choose(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p,
                  size_t n, int *rc)
{
    /* Not only the first delivery: a protocol that upgrades in place after a
     * cleartext dialogue (SMTP/IMAP/XMPP STARTTLS) starts its TLS records
     * some segments in. Bounded, so that a long unknown stream is not sniffed
     * for ever (and a binary one not misread late). */
    *rc = SAT_OK;
    dir_state *d = &f->d[dir];
    if (f->dis)
        return 0;
    const sat_stream_dissector *best = NULL;
    int maybe = 0;
    if (d->sniff_len) {
        /* a wait in progress: the kept prefix with this delivery after it */
        uint8_t buf[SAT_SNIFF_WAIT_BYTES];
        size_t k = n < sizeof buf - d->sniff_len ? n : sizeof buf - d->sniff_len;
        memcpy(buf, d->sniff, d->sniff_len);
        memcpy(buf + d->sniff_len, p, k);
        best = sniff_best(t, f, dir, buf, d->sniff_len + k, &maybe);
        if (!best && maybe && d->sniff_len + n < sizeof buf) {
            keep_sniffed(d, ts, p, n);
            return 1;
        }
        if (!best) {
            d->sniff_len = 0; /* not a protocol known here: the bytes are dropped */
            f->tried[dir]++;
        }
    }
    if (!best) {
        if (f->tried[dir] >= SNIFF_DELIVERIES)
            return 0;
        if (t->opts.ldap_port && f->row.server_port == t->opts.ldap_port)
            best = find_dis(t, "ldap");
        if (!best)
            best = sniff_best(t, f, dir, p, n, &maybe);
        if (!best && maybe && n < SAT_SNIFF_WAIT_BYTES) {
            keep_sniffed(d, ts, p, n);
            return 1;
        }
        f->tried[dir]++;
    }
    if (best)
        *rc = start_dissector(t, f, best);
    return 0;
}

/* Bytes to the flow's dissector; the StartTLS switch. */
static int give(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    if (!f->dis)
        return SAT_OK; /* an upgrade found no "tls" dissector */
    int rc = f->dis->data(f->dst, dir, ts, p, n);
    if (rc == SAT_STREAM_UPGRADE_TLS) {
        /* StartTLS: the old dissector is done, TLS reads from the next byte. */
        rc = f->dis->end ? f->dis->end(f->dst, SAT_TCP_END_NONE, ts) : SAT_OK;
        stop_dissector(f);
        const sat_stream_dissector *tls = find_dis(t, "tls");
        if (rc >= 0 && tls)
            rc = start_dissector(t, f, tls);
        f->row.flags |= SAT_TCPF_TLS;
    }
    return rc < 0 ? rc : SAT_OK;
}

/* A dissector was just chosen: the bytes kept while sniffing come first,
 * the earlier direction's first. */
static int give_kept(sat_flow_table *t, flow *f)
{
    int rc = SAT_OK;
    dir_state *a = &f->d[SAT_DIR_C2S], *b = &f->d[SAT_DIR_S2C];
    int first = (a->sniff_len && (!b->sniff_len || a->sniff_ts <= b->sniff_ts)) ? SAT_DIR_C2S
                                                                                 : SAT_DIR_S2C;
    for (int i = 0; i < 2 && rc >= 0; i++) {
        int k = i ? !first : first;
        dir_state *d = &f->d[k];
        if (!d->sniff_len)
            continue;
        uint8_t kept[SAT_SNIFF_WAIT_BYTES];
        size_t n = d->sniff_len;
        memcpy(kept, d->sniff, n);
        d->sniff_len = 0;
        rc = give(t, f, k, d->sniff_ts, kept, n);
    }
    return rc;
}

static int feed(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    int rc;
    int had = f->dis != NULL;
    if (choose(t, f, dir, ts, p, n, &rc) || rc < 0 || !f->dis)
        return rc;
    if (!had && (f->d[0].sniff_len || f->d[1].sniff_len))
        rc = give_kept(t, f);
    return rc < 0 ? rc : give(t, f, dir, ts, p, n);
}

static int gap(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, size_t n)
{
    t->stats.gaps_bytes += n;
    f->row.flags |= SAT_TCPF_TRUNCATED;
    f->d[dir].sniff_len = 0; /* what follows a hole does not continue the kept bytes */
    if (!f->dis || !f->dis->gap)
        return SAT_OK;
    int rc = f->dis->gap(f->dst, dir, ts, n);
    return rc < 0 ? rc : SAT_OK;
}

/* ---- reassembly ------------------------------------------------------------------------ */
static int32_t seq_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

/* Bytes [next_seq, next_seq + wire) of which the first len are present. */
static int deliver(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p,
                   size_t len, size_t wire)
{
    dir_state *d = &f->d[dir];
    d->next_seq += (uint32_t)wire;
    if (dir == SAT_DIR_C2S)
        f->row.bytes_c2s += wire;
    else
        f->row.bytes_s2c += wire;
    d->last_payload_ts = ts;
    int rc = SAT_OK;
    if (len)
        rc = feed(t, f, dir, ts, p, len);
    if (rc >= 0 && wire > len)
        rc = gap(t, f, dir, ts, wire - len); /* cut by the snaplen */
    return rc;
}

static void seg_free(ooo_seg *s) { free(s->data); }

static void ooo_pop(dir_state *d)
{
    d->ooo_bytes -= d->ooo[0].len;
    d->nooo--;
    memmove(d->ooo, d->ooo + 1, d->nooo * sizeof *d->ooo);
}

/* Deliver the stored segments that have become in order. */
static int drain(sat_flow_table *t, flow *f, int dir)
{
    dir_state *d = &f->d[dir];
    int rc = SAT_OK;
    while (d->nooo && rc >= 0) {
        ooo_seg s = d->ooo[0];
        int32_t off = seq_diff(s.seq, d->next_seq);
        if (off > 0)
            break;
        ooo_pop(d);
        uint32_t back = (uint32_t)(-(int64_t)off);
        if (back >= s.wire_len) {
            f->row.retrans++; /* wholly covered by bytes delivered since */
        } else {
            if (back)
                f->row.retrans++;
            size_t skip = back < s.len ? back : s.len;
            rc = deliver(t, f, dir, s.ts, s.data ? s.data + skip : NULL, s.len - skip,
                         s.wire_len - back);
        }
        seg_free(&s);
    }
    return rc;
}

/* Give up waiting for the hole before the first stored segment (all of them
 * when upto is NULL, else those starting before *upto): gap, then deliver. */
static int flush(sat_flow_table *t, flow *f, int dir, const uint32_t *upto, sat_ts_ns ts)
{
    dir_state *d = &f->d[dir];
    int rc = SAT_OK;
    while (d->nooo && rc >= 0) {
        uint32_t first = d->ooo[0].seq;
        if (upto && seq_diff(first, *upto) >= 0)
            break;
        int32_t off = seq_diff(first, d->next_seq);
        if (off > 0) {
            rc = gap(t, f, dir, ts, (size_t)off);
            d->next_seq = first;
        }
        if (rc >= 0)
            rc = drain(t, f, dir);
    }
    return rc;
}

static int segment(sat_flow_table *t, flow *f, int dir, const sat_packet *p);

static int store(sat_flow_table *t, flow *f, int dir, const sat_packet *p, uint32_t seq,
                 const uint8_t *data, size_t len, size_t wire)
{
    dir_state *d = &f->d[dir];
    /* The same segment again (a retransmission of an out-of-order one). */
    for (uint32_t i = 0; i < d->nooo; i++) {
        if (d->ooo[i].seq == seq && d->ooo[i].wire_len >= wire) {
            f->row.retrans++;
            return SAT_OK;
        }
    }
    if (!d->ooo) {
        d->ooo = calloc(SAT_OOO_SEGS, sizeof *d->ooo);
        if (!d->ooo)
            return SAT_E_NOMEM;
    }
    if (d->nooo == SAT_OOO_SEGS || d->ooo_bytes + len > SAT_OOO_BYTES) {
        /* Full: the hole is not going to be filled in time. */
        int rc = flush(t, f, dir, NULL, p->ts);
        if (rc < 0)
            return rc;
        return segment(t, f, dir, p); /* now in order, old, or the list is empty */
    }
    f->row.out_of_order++;
    uint32_t i = d->nooo;
    while (i > 0 && seq_diff(d->ooo[i - 1].seq, seq) > 0)
        i--;
    ooo_seg s;
    s.seq = seq;
    s.wire_len = (uint32_t)wire;
    s.len = (uint32_t)len;
    s.ts = p->ts;
    s.data = NULL;
    if (len) {
        s.data = malloc(len);
        if (!s.data)
            return SAT_E_NOMEM;
        memcpy(s.data, data, len);
    }
    memmove(d->ooo + i + 1, d->ooo + i, (d->nooo - i) * sizeof *d->ooo);
    d->ooo[i] = s;
    d->nooo++;
    d->ooo_bytes += len;
    return SAT_OK;
}

/* One segment's payload (wire length > 0) into the direction's sequence. */
static int segment(sat_flow_table *t, flow *f, int dir, const sat_packet *p)
{
    dir_state *d = &f->d[dir];
    uint32_t seq = p->seq;
    const uint8_t *data = p->payload;
    size_t len = p->payload_len, wire = p->payload_wire_len;
    if (wire > UINT32_MAX / 2)
        wire = UINT32_MAX / 2; /* no TCP segment is this long; keeps the arithmetic sane */
    if (len > wire)
        len = wire;
    if (!d->have_seq) {
        d->next_seq = seq;
        d->have_seq = 1;
    }
    int32_t off = seq_diff(seq, d->next_seq);
    if (off < 0) {
        uint32_t back = (uint32_t)(-(int64_t)off);
        f->row.retrans++;
        if (back >= wire)
            return SAT_OK; /* all seen before */
        size_t skip = back < len ? back : len;
        data = data ? data + skip : NULL;
        len -= skip;
        wire -= back;
        seq += back;
        off = 0;
    }
    if (off == 0) {
        int rc = deliver(t, f, dir, p->ts, data, len, wire);
        return rc < 0 ? rc : drain(t, f, dir);
    }
    return store(t, f, dir, p, seq, data, len, wire);
}

/* ---- flows ------------------------------------------------------------------------------ */
static void format_ip(uint8_t ver, const uint8_t *a, char *out)
{
    if (!inet_ntop(ver == 6 ? AF_INET6 : AF_INET, a, out, INET6_ADDRSTRLEN))
        out[0] = '\0';
}

static void release(sat_flow_table *t, flow *f)
{
    stop_dissector(f);
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

/* The client closes first or resets: did it leave a request unanswered?
 * The dissector knows its protocol (an LDAP unbind or a TLS close_notify
 * expects no answer); without one, the last payload's direction decides. */
static void note_client_leaving(flow *f, sat_ts_ns ts)
{
    f->row.client_left_ts = ts;
    int waiting = -1;
    if (f->dis && f->dst && f->dis->awaiting)
        waiting = f->dis->awaiting(f->dst);
    if (waiting < 0) {
        sat_ts_ns c = f->d[SAT_DIR_C2S].last_payload_ts, sv = f->d[SAT_DIR_S2C].last_payload_ts;
        waiting = c && c >= sv;
    }
    if (waiting)
        f->row.flags |= SAT_TCPF_CLIENT_LEFT_WAITING;
}

/* A SYN never answered: did the client give up by `now` (see the rules above)?
 * A SYN/ACK the client answers with a RST, having acknowledged nothing, came
 * after it had gone (its socket was closed): not an answer either. */
static void note_syn_unanswered(flow *f, sat_ts_ns now, int client_left)
{
    if (!f->syn_seen || (f->synack_seen && !(client_left && !f->rtt_done &&
                                             !f->d[SAT_DIR_C2S].last_payload_ts)))
        return;
    unsigned k = f->row.syn_retrans < 6 ? f->row.syn_retrans : 6;
    sat_dur_ns next_rto = (sat_dur_ns)1000000000 << k;
    if (client_left || now - f->last_ts > next_rto)
        f->row.flags |= SAT_TCPF_SYN_GAVE_UP;
}

/* The connection ended: flush, let the dissector finish, write the row. The
 * flow moves to the closed list (keep) or is released. */
static int end_flow(sat_flow_table *t, flow *f, int how, sat_ts_ns ts, int keep)
{
    int rc = SAT_OK, r2;
    for (int k = 0; k < 2; k++) {
        r2 = flush(t, f, k, NULL, ts);
        if (r2 < 0 && rc >= 0)
            rc = r2;
    }
    if (how == SAT_TCP_END_NONE && f->first_fin >= 0)
        how = f->first_fin == SAT_DIR_C2S ? SAT_TCP_END_FIN_CLIENT : SAT_TCP_END_FIN_SERVER;
    if (f->dis && f->dis->end) {
        r2 = f->dis->end(f->dst, how, ts);
        if (r2 < 0 && rc >= 0)
            rc = r2;
    }
    f->row.end = (uint8_t)how;
    f->row.end_ts = ts;
    f->row.last_c2s_to_end = f->d[SAT_DIR_C2S].last_payload_ts
                                 ? ts - f->d[SAT_DIR_C2S].last_payload_ts
                                 : SAT_ABSENT;
    if (t->ctx && t->ctx->sink) {
        r2 = sat_sink_emit(t->ctx->sink, SAT_TABLE_TCP_CONN, &f->row);
        if (r2 < 0 && rc >= 0)
            rc = r2;
    }
    stop_dissector(f);
    if (keep) {
        list_remove(&t->open, f);
        f->closed = 1;
        list_append(&t->closed, f);
    } else {
        release(t, f);
    }
    return rc;
}

static int expire(sat_flow_table *t, sat_ts_ns now)
{
    int rc = SAT_OK;
    sat_dur_ns linger = t->opts.idle_timeout < SAT_CLOSED_LINGER_NS ? t->opts.idle_timeout
                                                                     : SAT_CLOSED_LINGER_NS;
    while (t->closed.head && now - t->closed.head->last_ts > linger)
        release(t, t->closed.head);
    while (rc >= 0 && t->open.head && now - t->open.head->last_ts > t->opts.idle_timeout) {
        flow *f = t->open.head;
        t->stats.expired++;
        note_syn_unanswered(f, now, 0);
        rc = end_flow(t, f, SAT_TCP_END_IDLE, f->last_ts, 0);
    }
    return rc;
}

static flow *new_flow(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir, int *rc)
{
    *rc = SAT_OK;
    if (t->open.n + t->closed.n >= t->opts.max_flows) {
        if (t->closed.head) {
            release(t, t->closed.head);
        } else if (t->open.head) {
            flow *old = t->open.head;
            t->stats.evicted++;
            note_syn_unanswered(old, p->ts, 0);
            *rc = end_flow(t, old, SAT_TCP_END_EVICTED, old->last_ts, 0);
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

static int process(sat_flow_table *t, flow *f, int dir, const sat_packet *p)
{
    uint8_t fl = p->tcp_flags;
    f->last_ts = p->ts;
    list_remove(&t->open, f);
    list_append(&t->open, f);
    if (dir == SAT_DIR_C2S)
        f->row.pkts_c2s++;
    else
        f->row.pkts_s2c++;
    dir_state *d = &f->d[dir];

    if (fl & SAT_TCP_SYN) {
        if (!(fl & SAT_TCP_ACK) && dir == SAT_DIR_C2S) {
            if (!f->syn_seen && !(f->row.flags & SAT_TCPF_NO_SYN)) {
                f->syn_seen = 1;
                f->client_isn = p->seq;
            } else if (f->syn_seen && !f->synack_seen) {
                f->row.syn_retrans++;
                f->client_isn = p->seq; /* a stack may pick a new ISN */
            } else {
                return SAT_OK; /* a late duplicate SYN */
            }
            d->next_seq = p->seq + 1;
            d->have_seq = 1;
            return SAT_OK;
        }
        if ((fl & SAT_TCP_ACK) && dir == SAT_DIR_S2C && !f->synack_seen) {
            f->synack_seen = 1;
            f->row.flags |= SAT_TCPF_SYNACK;
            f->server_isn = p->seq;
            d->next_seq = p->seq + 1;
            d->have_seq = 1;
            if (!f->d[SAT_DIR_C2S].have_seq) { /* the SYN was not captured */
                f->d[SAT_DIR_C2S].next_seq = p->ack;
                f->d[SAT_DIR_C2S].have_seq = 1;
            }
            return SAT_OK;
        }
        if (d->have_seq)
            return SAT_OK; /* a retransmitted SYN/ACK or a SYN the wrong way */
        d->next_seq = p->seq + 1;
        d->have_seq = 1;
        return SAT_OK;
    }

    if (dir == SAT_DIR_C2S && f->syn_seen && f->synack_seen && !f->rtt_done &&
        (fl & SAT_TCP_ACK) && p->ack == f->server_isn + 1) {
        f->rtt_done = 1;
        f->row.rtt = p->ts - f->row.syn_ts;
    }

    if (fl & SAT_TCP_RST) {
        if (dir == SAT_DIR_C2S && f->first_fin < 0)
            note_client_leaving(f, p->ts);
        if (dir == SAT_DIR_C2S)
            note_syn_unanswered(f, p->ts, 1);
        return end_flow(t, f, dir == SAT_DIR_C2S ? SAT_TCP_END_RST_CLIENT
                                                 : SAT_TCP_END_RST_SERVER, p->ts, 1);
    }

    int rc = SAT_OK;
    /* The other side acknowledges bytes past a hole: the capture lost them. */
    dir_state *o = &f->d[!dir];
    if ((fl & SAT_TCP_ACK) && o->nooo)
        rc = flush(t, f, !dir, &p->ack, p->ts);

    if (rc >= 0 && p->payload_wire_len)
        rc = segment(t, f, dir, p);
    if (rc < 0)
        return rc;

    if (fl & SAT_TCP_FIN) {
        if (!d->fin) {
            d->fin = 1;
            if (f->first_fin < 0) {
                f->first_fin = (int8_t)dir;
                if (dir == SAT_DIR_C2S)
                    note_client_leaving(f, p->ts);
            }
            if (dir == SAT_DIR_C2S)
                note_syn_unanswered(f, p->ts, 1);
            if (f->dis && f->dst && f->dis->closed)
                rc = f->dis->closed(f->dst, dir, p->ts);
            if (rc < 0)
                return rc;
        }
        if (f->d[0].fin && f->d[1].fin)
            return end_flow(t, f, f->first_fin == SAT_DIR_C2S ? SAT_TCP_END_FIN_CLIENT
                                                              : SAT_TCP_END_FIN_SERVER,
                            p->ts, 1);
    }
    return SAT_OK;
}

/* ---- API ---------------------------------------------------------------------------------- */
sat_flow_table *sat_flow_table_create(const sat_flow_opts *opts, const sat_wire_ctx *ctx)
{
    sat_flow_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (opts)
        t->opts = *opts;
    if (!t->opts.max_flows)
        t->opts.max_flows = 100000;
    if (t->opts.idle_timeout <= 0)
        t->opts.idle_timeout = 300LL * 1000000000LL;
    t->dis = t->opts.dissectors ? t->opts.dissectors : sat_stream_dissectors();
    t->ctx = ctx;
    t->nbuckets = 1024;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    if (!t->buckets) {
        free(t);
        return NULL;
    }
    return t;
}

int sat_flow_packet(sat_flow_table *t, const sat_packet *p)
{
    t->stats.packets++;
    int rc = expire(t, p->ts);
    if (rc < 0)
        return rc;
    uint64_t h = pkt_hash(p);
    int dir = 0;
    flow *f = lookup(t, p, h, &dir);
    if (f && f->closed) {
        if ((p->tcp_flags & (SAT_TCP_SYN | SAT_TCP_ACK)) != SAT_TCP_SYN) {
            /* The last ACK, a retransmitted FIN: the row is written already. */
            f->last_ts = p->ts;
            list_remove(&t->closed, f);
            list_append(&t->closed, f);
            return SAT_OK;
        }
        release(t, f); /* a new connection on the same ports */
        f = NULL;
    }
    if (!f) {
        if (p->tcp_flags & SAT_TCP_RST)
            return SAT_OK;
        f = new_flow(t, p, h, &dir, &rc);
        if (!f)
            return rc;
    }
    return process(t, f, dir, p);
}

int sat_flow_finish(sat_flow_table *t, sat_ts_ns end_ts)
{
    /* rows end at their last packet ("else the last packet"); end_ts, the
     * capture's end, says how long an unanswered SYN was seen not retried */
    int rc = SAT_OK;
    while (t->open.head) {
        flow *f = t->open.head;
        note_syn_unanswered(f, end_ts, 0);
        int r2 = end_flow(t, f, SAT_TCP_END_NONE, f->last_ts, 0);
        if (r2 < 0 && rc >= 0)
            rc = r2;
    }
    while (t->closed.head)
        release(t, t->closed.head);
    return rc;
}

void sat_flow_get_stats(const sat_flow_table *t, sat_flow_stats *out)
{
    *out = t->stats;
}

void sat_flow_table_free(sat_flow_table *t)
{
    if (!t)
        return;
    while (t->open.head)
        release(t, t->open.head);
    while (t->closed.head)
        release(t, t->closed.head);
    while (t->free_list) {
        flow *n = t->free_list->hnext;
        free(t->free_list);
        t->free_list = n;
    }
    free(t->buckets);
    free(t);
}
