/*
 * tcp_flow_sniff.c - the stream dissector of a flow (tcp_flow.c, wire.h's
 * sniff contract): chosen by content from a direction's first bytes (kept
 * while every answer is a "maybe"), fed the reassembled bytes and gaps, and
 * replaced by the TLS one on a StartTLS upgrade.
 */
#include "tcp_flow_int.h"

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

void sat_tf_stop_dissector(flow *f)
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
        sat_tf_stop_dissector(f);
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

int sat_tf_feed(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    int rc;
    int had = f->dis != NULL;
    if (choose(t, f, dir, ts, p, n, &rc) || rc < 0 || !f->dis)
        return rc;
    if (!had && (f->d[0].sniff_len || f->d[1].sniff_len))
        rc = give_kept(t, f);
    return rc < 0 ? rc : give(t, f, dir, ts, p, n);
}

int sat_tf_gap(sat_flow_table *t, flow *f, int dir, sat_ts_ns ts, size_t n)
{
    t->stats.gaps_bytes += n;
    f->row.flags |= SAT_TCPF_TRUNCATED;
    f->d[dir].sniff_len = 0; /* what follows a hole does not continue the kept bytes */
    if (!f->dis || !f->dis->gap)
        return SAT_OK;
    int rc = f->dis->gap(f->dst, dir, ts, n);
    return rc < 0 ? rc : SAT_OK;
}
