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
 *    answered: not flagged;
 *  - a SYN with another initial sequence number on a 4-tuple whose SYN was
 *    never answered is a new connection attempt (a client that gave up
 *    binds the same source port again: httperf does): the old attempt ends
 *    there as given up (SAT_TCPF_SYN_GAVE_UP, end idle: nothing more came of
 *    it, end_ts its last SYN) and the new one gets a row of its own, its rtt
 *    from its own SYN; only a SYN with the same ISN is a retransmission
 *    (syn_retrans).
 */
#include "tcp_flow_int.h"

/* ---- a connection's end ------------------------------------------------------------- */
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
void sat_tf_note_syn_unanswered(flow *f, sat_ts_ns now, int client_left)
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
int sat_tf_end_flow(sat_flow_table *t, flow *f, int how, sat_ts_ns ts, int keep)
{
    int rc = SAT_OK, r2;
    for (int k = 0; k < 2; k++) {
        r2 = sat_tf_flush(t, f, k, NULL, ts);
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
    sat_tf_stop_dissector(f);
    if (keep) {
        list_remove(&t->open, f);
        f->closed = 1;
        list_append(&t->closed, f);
    } else {
        sat_tf_release(t, f);
    }
    return rc;
}

/* ---- each packet ---------------------------------------------------------------------- */
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
                f->row.syn_retrans++; /* the same ISN (sat_flow_packet) */
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
            sat_tf_note_syn_unanswered(f, p->ts, 1);
        return sat_tf_end_flow(t, f, dir == SAT_DIR_C2S ? SAT_TCP_END_RST_CLIENT
                                                 : SAT_TCP_END_RST_SERVER, p->ts, 1);
    }

    int rc = SAT_OK;
    /* The other side acknowledges bytes past a hole: the capture lost them. */
    dir_state *o = &f->d[!dir];
    if ((fl & SAT_TCP_ACK) && o->nooo)
        rc = sat_tf_flush(t, f, !dir, &p->ack, p->ts);

    if (rc >= 0 && p->payload_wire_len)
        rc = sat_tf_segment(t, f, dir, p);
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
                sat_tf_note_syn_unanswered(f, p->ts, 1);
            if (f->dis && f->dst && f->dis->closed)
                rc = f->dis->closed(f->dst, dir, p->ts);
            if (rc < 0)
                return rc;
        }
        if (f->d[0].fin && f->d[1].fin)
            return sat_tf_end_flow(t, f, f->first_fin == SAT_DIR_C2S ? SAT_TCP_END_FIN_CLIENT
                                                              : SAT_TCP_END_FIN_SERVER,
                            p->ts, 1);
    }
    return SAT_OK;
}

/* A SYN on a 4-tuple whose SYN was never answered: the same initial
 * sequence number is a retransmission (a stack sends the same SYN again);
 * another one is a new connection attempt by a client that gave up on the
 * first and bound the same source port again (see the rules above). */
static int is_new_attempt(const flow *f, const sat_packet *p)
{
    return (p->tcp_flags & (SAT_TCP_SYN | SAT_TCP_ACK)) == SAT_TCP_SYN && f->syn_seen &&
           !f->synack_seen && p->seq != f->client_isn;
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
    int rc = sat_tf_expire(t, p->ts);
    if (rc < 0)
        return rc;
    uint64_t h = sat_tf_pkt_hash(p);
    int dir = 0;
    flow *f = sat_tf_lookup(t, p, h, &dir);
    if (f && !f->closed && dir == SAT_DIR_C2S && is_new_attempt(f, p)) {
        f->row.flags |= SAT_TCPF_SYN_GAVE_UP;
        rc = sat_tf_end_flow(t, f, SAT_TCP_END_IDLE, f->last_ts, 0);
        if (rc < 0)
            return rc;
        f = NULL;
    }
    if (f && f->closed) {
        if ((p->tcp_flags & (SAT_TCP_SYN | SAT_TCP_ACK)) != SAT_TCP_SYN) {
            /* The last ACK, a retransmitted FIN: the row is written already. */
            f->last_ts = p->ts;
            list_remove(&t->closed, f);
            list_append(&t->closed, f);
            return SAT_OK;
        }
        sat_tf_release(t, f); /* a new connection on the same ports */
        f = NULL;
    }
    if (!f) {
        if (p->tcp_flags & SAT_TCP_RST)
            return SAT_OK;
        f = sat_tf_new_flow(t, p, h, &dir, &rc);
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
        sat_tf_note_syn_unanswered(f, end_ts, 0);
        int r2 = sat_tf_end_flow(t, f, SAT_TCP_END_NONE, f->last_ts, 0);
        if (r2 < 0 && rc >= 0)
            rc = r2;
    }
    while (t->closed.head)
        sat_tf_release(t, t->closed.head);
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
        sat_tf_release(t, t->open.head);
    while (t->closed.head)
        sat_tf_release(t, t->closed.head);
    while (t->free_list) {
        flow *n = t->free_list->hnext;
        free(t->free_list);
        t->free_list = n;
    }
    free(t->buckets);
    free(t);
}
