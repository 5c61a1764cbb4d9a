/*
 * tcp_flow_reasm.c - reassembly of one direction of a flow (tcp_flow.c; RFC
 * 9293 sequence numbers compared modulo 2^32, RFC 1982): in-order bytes go to
 * the dissector without a copy, a segment ahead is copied into a small sorted
 * list, a hole given up on becomes a gap, bytes seen before are counted as
 * retransmissions and never delivered twice.
 */
#include "tcp_flow_int.h"

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
        rc = sat_tf_feed(t, f, dir, ts, p, len);
    if (rc >= 0 && wire > len)
        rc = sat_tf_gap(t, f, dir, ts, wire - len); /* cut by the snaplen */
    return rc;
}

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
int sat_tf_flush(sat_flow_table *t, flow *f, int dir, const uint32_t *upto, sat_ts_ns ts)
{
    dir_state *d = &f->d[dir];
    int rc = SAT_OK;
    while (d->nooo && rc >= 0) {
        uint32_t first = d->ooo[0].seq;
        if (upto && seq_diff(first, *upto) >= 0)
            break;
        int32_t off = seq_diff(first, d->next_seq);
        if (off > 0) {
            rc = sat_tf_gap(t, f, dir, ts, (size_t)off);
            d->next_seq = first;
        }
        if (rc >= 0)
            rc = drain(t, f, dir);
    }
    return rc;
}

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
        int rc = sat_tf_flush(t, f, dir, NULL, p->ts);
        if (rc < 0)
            return rc;
        return sat_tf_segment(t, f, dir, p); /* now in order, old, or the list is empty */
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
int sat_tf_segment(sat_flow_table *t, flow *f, int dir, const sat_packet *p)
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
