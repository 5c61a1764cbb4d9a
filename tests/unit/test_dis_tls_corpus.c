/*
 * test_dis_tls_corpus.c - conformance of the TLS dissector (parse/wire/dis_tls.c)
 * with the public Zeek and Wireshark captures in $SAT_CORPUS/tls: per file,
 * the counts of connections, full, resumed and "no ServerHello" handshakes
 * must equal the table of $SAT_CORPUS/tls/README.md.
 *
 * Self-contained on purpose (the real pcap reader and flow table are written
 * elsewhere): a minimal classic-pcap reader (both byte orders, us/ns), link
 * types Ethernet (802.1Q/QinQ), Linux cooked v1, raw IP and BSD null, IPv4
 * and IPv6 down to TCP, and a naive per-direction reassembly in sequence
 * order (out-of-order segments held until the hole fills, overlaps trimmed).
 * A flow gets the dissector on the first segment that sniffs as TLS, from
 * there on in both directions, which also covers SMTP STARTTLS. pcapng files
 * and DTLS (UDP) are skipped with a note. Exit 77 when the corpus is absent.
 *
 * Counting (the README's convention): a row whose ServerHello was seen is
 * "resumed" if its outcome is resumed, else "full"; a row without one is
 * "no SH" (incomplete, or failed by an alert before any ServerHello).
 */
#include <dirent.h>
#include <errno.h>

#include "check.h"
#include "parse/wire/dissectors.h"

/* ---- pcap reading ----------------------------------------------------------------- */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            uint8_t *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
        }
        size_t k = fread(b + n, 1, cap - n, f);
        if (k == 0)
            break;
        n += k;
    }
    fclose(f);
    *len = n;
    return b;
}

static uint32_t rd32(const uint8_t *p, int swap)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                 ((uint32_t)p[3] << 24);
    return swap ? __builtin_bswap32(v) : v;
}
static uint16_t be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

typedef struct seg {
    uint8_t ip_len; /* 4 or 16 */
    uint8_t src[16], dst[16];
    uint16_t sport, dport;
    uint32_t seq;
    uint8_t flags;
    const uint8_t *pl;
    size_t pl_len;
} seg;

/* frame -> TCP segment; 0 if not TCP over IP */
static int decode(int linktype, const uint8_t *f, size_t n, seg *s)
{
    size_t off = 0;
    unsigned et = 0;
    switch (linktype) {
    case 1:
        if (n < 14)
            return 0;
        et = be16(f + 12);
        off = 14;
        while ((et == 0x8100 || et == 0x88a8) && n >= off + 4) {
            et = be16(f + off + 2);
            off += 4;
        }
        break;
    case 113:
        if (n < 16)
            return 0;
        et = be16(f + 14);
        off = 16;
        break;
    case 101: case 12: case 14:
        if (n < 1)
            return 0;
        et = (f[0] >> 4) == 6 ? 0x86dd : 0x0800;
        break;
    case 0:
        if (n < 5)
            return 0;
        off = 4;
        et = (f[4] >> 4) == 6 ? 0x86dd : 0x0800;
        break;
    default:
        return 0;
    }
    const uint8_t *ip = f + off;
    size_t iplen = n - off, hl, total;
    unsigned proto;
    if (et == 0x0800) {
        if (iplen < 20 || (ip[0] >> 4) != 4)
            return 0;
        hl = (size_t)(ip[0] & 15) * 4;
        total = be16(ip + 2);
        proto = ip[9];
        if ((be16(ip + 6) & 0x1fff) || hl < 20)
            return 0; /* non-first fragment */
        s->ip_len = 4;
        memcpy(s->src, ip + 12, 4);
        memcpy(s->dst, ip + 16, 4);
    } else if (et == 0x86dd) {
        if (iplen < 40)
            return 0;
        hl = 40;
        total = 40 + (size_t)be16(ip + 4);
        proto = ip[6];
        while ((proto == 0 || proto == 43 || proto == 60) && iplen >= hl + 8) {
            proto = ip[hl];
            hl += 8 + (size_t)ip[hl + 1] * 8;
        }
        s->ip_len = 16;
        memcpy(s->src, ip + 8, 16);
        memcpy(s->dst, ip + 24, 16);
    } else {
        return 0;
    }
    if (proto != 6)
        return 0;
    if (total > iplen)
        total = iplen; /* snaplen */
    if (total < hl + 20)
        return 0;
    const uint8_t *t = ip + hl;
    size_t thl = (size_t)(t[12] >> 4) * 4;
    if (thl < 20 || hl + thl > total)
        return 0;
    s->sport = be16(t);
    s->dport = be16(t + 2);
    s->seq = be32(t + 4);
    s->flags = t[13];
    s->pl = t + thl;
    s->pl_len = total - hl - thl;
    return 1;
}

/* ---- naive flows ---------------------------------------------------------------------- */
typedef struct pend {
    uint32_t seq;
    sat_ts_ns ts;
    size_t len;
    uint8_t *data;
} pend;

typedef struct half {
    int have_seq;
    uint32_t next;
    pend *pend;
    int npend, cappend;
} half;

typedef struct flow {
    uint8_t ip_len;
    uint8_t a[16], b[16]; /* a = client */
    uint16_t ap, bp;
    half h[2];
    void *dis;
    int fin;
} flow;

typedef struct run_ctx {
    flow *flows;
    int nflows, capflows;
    sat_wire_ctx wctx;
    sat_event_sink sink;
    int conns, full, resumed, nosh;
    int flags_or, last_alert;
} run_ctx;

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    run_ctx *r = (run_ctx *)ctx;
    r->conns++;
    r->flags_or |= h->flags;
    if (h->outcome == SAT_TLS_FAILED)
        r->last_alert = h->alert;
    if (getenv("SAT_TEST_VERBOSE"))
        printf("  flow %u port %u: %s by %u offered %#x/%#x version %#x cipher %#x flags %#x "
               "alert %d sni %.*s dur %.3f ms\n",
               h->flow, h->server_port, sat_tls_outcome_name(h->outcome), h->resumed_by,
               h->offered, h->offered_version, h->version, h->cipher, h->flags, h->alert,
               h->sni.ptr ? (int)h->sni.len : 1, h->sni.ptr ? h->sni.ptr : "-",
               h->duration >= 0 ? h->duration / 1e6 : -1.0);
    if (!h->server_hello_ts)
        r->nosh++;
    else if (h->outcome == SAT_TLS_RESUMED)
        r->resumed++;
    else
        r->full++;
    return 0;
}

static int rows_tls(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    default:
        return 0;
    }
}

static void deliver(run_ctx *r, flow *fl, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    if (!n)
        return;
    if (!fl->dis) {
        if (sat_dissect_tls.sniff(p, n, dir, fl->bp) < 50)
            return;
        static const char ip[] = "-";
        sat_flow_info fi = {0, (uint32_t)(fl - r->flows) + 1, sat_str_cstr(ip), sat_str_cstr(ip),
                            fl->ap, fl->bp};
        fl->dis = sat_dissect_tls.create(&fi, &r->wctx);
        if (!fl->dis)
            return;
    }
    sat_dissect_tls.data(fl->dis, dir, ts, p, n);
}

/* in-order delivery of direction dir: what is at or beyond h->next */
static void push(run_ctx *r, flow *fl, int dir, sat_ts_ns ts, uint32_t seq, const uint8_t *p,
                 size_t n)
{
    half *h = &fl->h[dir];
    if (!h->have_seq) {
        h->have_seq = 1;
        h->next = seq;
    }
    int32_t d = (int32_t)(seq - h->next);
    if (d > 0) { /* ahead of a hole: hold a copy */
        if (h->npend == h->cappend) {
            h->cappend = h->cappend ? h->cappend * 2 : 8;
            h->pend = realloc(h->pend, (size_t)h->cappend * sizeof *h->pend);
        }
        pend *q = &h->pend[h->npend++];
        q->seq = seq;
        q->ts = ts;
        q->len = n;
        q->data = malloc(n);
        memcpy(q->data, p, n);
        return;
    }
    if ((size_t)(-d) >= n)
        return; /* retransmission */
    p += -d;
    n -= (size_t)-d;
    deliver(r, fl, dir, ts, p, n);
    h->next += (uint32_t)n;
    for (int again = 1; again;) { /* the hole may be filled now */
        again = 0;
        for (int i = 0; i < h->npend; i++) {
            pend q = h->pend[i];
            int32_t dd = (int32_t)(q.seq - h->next);
            if (dd > 0)
                continue;
            h->pend[i] = h->pend[--h->npend];
            if ((size_t)(-dd) < q.len) {
                deliver(r, fl, dir, q.ts, q.data + -dd, q.len - (size_t)-dd);
                h->next += (uint32_t)(q.len - (size_t)-dd);
            }
            free(q.data);
            again = 1;
            break;
        }
    }
}

static void end_flow(flow *fl, sat_ts_ns ts)
{
    if (fl->dis) {
        sat_dissect_tls.end(fl->dis, SAT_TCP_END_NONE, ts);
        sat_dissect_tls.destroy(fl->dis);
        fl->dis = NULL;
    }
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < fl->h[d].npend; i++)
            free(fl->h[d].pend[i].data);
        free(fl->h[d].pend);
        memset(&fl->h[d], 0, sizeof fl->h[d]);
    }
}

static void packet(run_ctx *r, const seg *s, sat_ts_ns ts)
{
    flow *fl = NULL;
    int dir = 0;
    for (int i = 0; i < r->nflows && !fl; i++) {
        flow *f = &r->flows[i];
        if (f->ip_len != s->ip_len)
            continue;
        if (f->ap == s->sport && f->bp == s->dport && !memcmp(f->a, s->src, s->ip_len) &&
            !memcmp(f->b, s->dst, s->ip_len))
            fl = f, dir = SAT_DIR_C2S;
        else if (f->bp == s->sport && f->ap == s->dport && !memcmp(f->b, s->src, s->ip_len) &&
                 !memcmp(f->a, s->dst, s->ip_len))
            fl = f, dir = SAT_DIR_S2C;
    }
    int syn = (s->flags & 0x02) && !(s->flags & 0x10);
    if (fl && syn && fl->fin) { /* the 4-tuple is reused: a new connection */
        end_flow(fl, ts);
        fl = NULL;
    }
    if (!fl) {
        if (r->nflows == r->capflows) {
            r->capflows = r->capflows ? r->capflows * 2 : 16;
            r->flows = realloc(r->flows, (size_t)r->capflows * sizeof *r->flows);
        }
        fl = &r->flows[r->nflows++];
        memset(fl, 0, sizeof *fl);
        fl->ip_len = s->ip_len;
        /* client: the SYN's sender; without a SYN (late capture), the higher port */
        int swap = (s->flags & 0x02) ? ((s->flags & 0x10) != 0) : s->sport < s->dport;
        memcpy(fl->a, swap ? s->dst : s->src, s->ip_len);
        memcpy(fl->b, swap ? s->src : s->dst, s->ip_len);
        fl->ap = swap ? s->dport : s->sport;
        fl->bp = swap ? s->sport : s->dport;
        dir = swap ? SAT_DIR_S2C : SAT_DIR_C2S;
    }
    if (s->flags & 0x02) { /* SYN: data starts at seq + 1 */
        fl->h[dir].have_seq = 1;
        fl->h[dir].next = s->seq + 1;
    }
    if (s->flags & 0x05)
        fl->fin = 1;
    if (s->pl_len)
        push(r, fl, dir, ts, s->seq + ((s->flags & 0x02) ? 1u : 0u), s->pl, s->pl_len);
}

static int run_pcap(const char *path, run_ctx *r)
{
    size_t len;
    uint8_t *b = slurp(path, &len);
    if (!b || len < 24) {
        free(b);
        return -1;
    }
    uint32_t magic = rd32(b, 0);
    int swap, nano;
    if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
        swap = 0, nano = magic == 0xa1b23c4d;
    else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
        swap = 1, nano = magic == 0x4d3cb2a1;
    else {
        free(b);
        return -1;
    }
    int linktype = (int)(rd32(b + 20, swap) & 0x0fffffff);
    memset(r, 0, sizeof *r);
    r->sink.ctx = r;
    r->sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    r->sink.on_row = rows_tls;
    r->wctx.sink = &r->sink;
    size_t off = 24;
    sat_ts_ns ts = 0;
    while (off + 16 <= len) {
        uint32_t sec = rd32(b + off, swap), frac = rd32(b + off + 4, swap);
        uint32_t caplen = rd32(b + off + 8, swap);
        off += 16;
        if (caplen > len - off)
            break;
        ts = (sat_ts_ns)sec * 1000000000LL + (sat_ts_ns)frac * (nano ? 1 : 1000);
        seg s;
        if (decode(linktype, b + off, caplen, &s))
            packet(r, &s, ts);
        off += caplen;
    }
    for (int i = 0; i < r->nflows; i++)
        end_flow(&r->flows[i], ts);
    free(r->flows);
    free(b);
    return 0;
}

/* ---- the README's table ---------------------------------------------------------------- */
int main(void)
{
    const char *corpus = getenv("SAT_CORPUS");
    char dir[2048], path[2600];
    snprintf(dir, sizeof dir, "%s/tls", corpus ? corpus : "");
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = corpus ? fopen(path, "r") : NULL;
    if (!f) {
        printf("SKIP: no TLS corpus (%s): conformance not checked\n", path);
        return 77;
    }
    char line[1024], sub[64] = "";
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        /* "## zeek/ - ..." names the directory of the table rows that follow */
        if (!strncmp(line, "## ", 3)) {
            sscanf(line + 3, "%63[^/ ]", sub);
            continue;
        }
        char name[256];
        int conns, full, resumed, nosh;
        if (sscanf(line, "| %255[^ |] | %d | %d | %d | %d |", name, &conns, &full, &resumed,
                   &nosh) != 5)
            continue;
        if (strstr(name, ".pcapng")) {
            printf("note: %s/%s skipped: pcapng (this test reads classic pcap only)\n", sub, name);
            continue;
        }
        if (strstr(name, "dtls")) {
            printf("note: %s/%s skipped: DTLS runs over UDP, out of the TCP dissector's scope\n",
                   sub, name);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
        run_ctx r;
        if (run_pcap(path, &r) != 0) {
            fprintf(stderr, "%s: cannot read (%s)\n", path, strerror(errno));
            CHECK(0);
            continue;
        }
        printf("%-34s conns %d/%d full %d/%d resumed %d/%d noSH %d/%d\n", name, r.conns, conns,
               r.full, full, r.resumed, resumed, r.nosh, nosh);
        CHECK_EQ_INT(r.conns, conns);
        CHECK_EQ_INT(r.full, full);
        CHECK_EQ_INT(r.resumed, resumed);
        CHECK_EQ_INT(r.nosh, nosh);
        /* what the README's "covers" column says besides the counts */
        if (!strcmp(name, "hrr.pcap"))
            CHECK(r.flags_or & SAT_TLSF_HRR);
        if (!strcmp(name, "tls-1.2-handshake-failure.pcap"))
            CHECK_EQ_INT(r.last_alert, 40); /* handshake_failure */
        if (!strcmp(name, "tls-renegotiation.pcap"))
            CHECK(r.flags_or & SAT_TLSF_RENEGOTIATED);
        if (!strcmp(name, "rsasnakeoil2.pcap"))
            CHECK((r.flags_or & (SAT_TLSF_SSL2_HELLO | SAT_TLSF_RENEGOTIATED)) ==
                  (SAT_TLSF_SSL2_HELLO | SAT_TLSF_RENEGOTIATED));
        checked++;
    }
    fclose(f);
    CHECK(checked >= 10);
    return CHECK_DONE();
}
