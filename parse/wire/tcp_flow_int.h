/*
 * tcp_flow_int.h - (private to the flow table, parse/wire/tcp_flow*.c) the state
 * its files share: the table, its flows and their per-direction reassembly
 * state, the bounds, and the functions one file calls in another.
 *   tcp_flow.c         the API, each packet's TCP state (SYN, RST, FIN, rtt),
 *                      a connection's end and its tcp_conn row;
 *   tcp_flow_table.c   the connection table: the symmetric hash, new flows,
 *                      eviction at capacity, idle expiry, release;
 *   tcp_flow_sniff.c   choosing a stream dissector by content and feeding it
 *                      (the StartTLS switch);
 *   tcp_flow_reasm.c   reassembly: in-order delivery, the out-of-order list,
 *                      holes given as gaps.
 * The rules are in tcp_flow.c's opening comment (RFC 9293, RFC 1982).
 *
 * Ownership: the table owns every flow, its out-of-order copies and its
 * dissector state; rows and flow info handed out borrow them.
 */
#ifndef SAT_PARSE_TCP_FLOW_INT_H
#define SAT_PARSE_TCP_FLOW_INT_H

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

/* ---- tcp_flow_table.c: the connection table ------------------------------------ */
uint64_t sat_tf_pkt_hash(const sat_packet *p);
flow *sat_tf_lookup(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir);
void sat_tf_release(sat_flow_table *t, flow *f);
int sat_tf_expire(sat_flow_table *t, sat_ts_ns now);
flow *sat_tf_new_flow(sat_flow_table *t, const sat_packet *p, uint64_t h, int *dir, int *rc);

/* ---- tcp_flow_sniff.c: choosing and feeding the stream dissector ---------------- */
void sat_tf_stop_dissector(flow *f);
int sat_tf_feed(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p, size_t n);
int sat_tf_gap(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, size_t n);

/* ---- tcp_flow_reasm.c: each direction put back in sequence order ---------------- */
int sat_tf_flush(sat_flow_table *t, flow *f, int dir, const uint32_t *upto, sat_ts_ns ts);
int sat_tf_segment(sat_flow_table *t, flow *f, int dir, const sat_packet *p);

/* ---- tcp_flow.c: a connection's end --------------------------------------------- */
void sat_tf_note_syn_unanswered(flow *f, sat_ts_ns now, int client_left);
int sat_tf_end_flow(sat_flow_table *t, flow *f, int how, sat_ts_ns ts, int keep);

/* ---- the LRU lists -------------------------------------------------------------- */
static inline void list_remove(flow_list *l, flow *f)
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

static inline void list_append(flow_list *l, flow *f)
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

static inline void seg_free(ooo_seg *s) { free(s->data); }

#endif
