/*
 * test_pcapng.c - pcapng read by satscope's own block reader (parse/wire/pcapng.c,
 * collect/capture.c).
 *
 *  1. The fixtures of fixtures/pcapng (made by make-fixtures.sh with tcpdump, editcap
 *     and mergecap): one section with three link types (Ethernet, Linux cooked v2,
 *     raw IP) and the same packets in two sections give the same tcp_conn, tls_hs and
 *     LDAP rows as the three classic pcap files read apart by libpcap (flow and
 *     connection numbers aside: they count within a capture); also gzip-compressed.
 *  2. The reader on pcapng byte strings built here: both byte orders, if_tsresol
 *     (the default 10^-6, 10^-9, 2^-10, 10^0) and if_tsoffset, simple packet blocks
 *     (interface 0, dated with the packet before them), obsolete packet blocks,
 *     skipped blocks (name resolution, statistics, secrets, custom, one of 17 MiB as
 *     it streams), a section of version 2 skipped, a new section resetting the
 *     interfaces, the interface cap; every malformed-block reason, rejected with
 *     reading going on, or stopping. Every case is read whole and fed 1 and 7 bytes at
 *     a time: the same steps.
 *  3. Malformed files through sat_collect_run: rejects name the packet (packet blocks)
 *     or the block number, the excerpt the block and its offset; a stop marks the
 *     source truncated.
 * With SAT_WRITE_SEEDS=DIR it writes the built files there (the seeds of
 * tests/fuzz/corpus/fuzz_pcapng).
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "satscope/collect.h"
#include "satscope/wire.h"

/* ---- building pcapng bytes ------------------------------------------------------------ */
typedef struct bb {
    uint8_t *b;
    size_t n, cap;
    int big;
    size_t base; /* where the block being built began: padding is relative to it */
} bb;

static void put(bb *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->b = realloc(b->b, b->cap);
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void u8(bb *b, uint8_t v) { put(b, &v, 1); }
static void u16(bb *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    if (b->big) {
        x[0] = (uint8_t)(v >> 8);
        x[1] = (uint8_t)v;
    }
    put(b, x, 2);
}
static void u32at(bb *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->b[at + (size_t)i] = (uint8_t)(b->big ? v >> (24 - 8 * i) : v >> (8 * i));
}
static void u32(bb *b, uint32_t v)
{
    uint8_t z[4] = {0};
    put(b, z, 4);
    u32at(b, b->n - 4, v);
}
static void pad4(bb *b)
{
    while ((b->n - b->base) & 3)
        u8(b, 0);
}
static size_t begin(bb *b, uint32_t type)
{
    size_t at = b->n;
    b->base = at;
    u32(b, type);
    u32(b, 0);
    return at;
}
static void end(bb *b, size_t at)
{
    pad4(b);
    uint32_t len = (uint32_t)(b->n - at + 4);
    u32at(b, at + 4, len);
    u32(b, len);
}
static void shb(bb *b, uint16_t major)
{
    size_t at = b->n;
    b->base = at;
    u32(b, 0x0A0D0D0A);
    u32(b, 0);
    u32(b, 0x1A2B3C4D);
    u16(b, major);
    u16(b, 0);
    u32(b, 0xffffffff);
    u32(b, 0xffffffff); /* section length unknown */
    end(b, at);
}
/* tsresol < 0: no option; tsoffset written when non-zero */
static void idb(bb *b, uint16_t lt, uint32_t snaplen, int tsresol, int64_t tsoffset)
{
    size_t at = begin(b, 1);
    u16(b, lt);
    u16(b, 0);
    u32(b, snaplen);
    if (tsresol >= 0) {
        u16(b, 9);
        u16(b, 1);
        u8(b, (uint8_t)tsresol);
        pad4(b);
    }
    if (tsoffset) {
        u16(b, 14);
        u16(b, 8);
        uint64_t u = (uint64_t)tsoffset;
        if (b->big) {
            u32(b, (uint32_t)(u >> 32));
            u32(b, (uint32_t)u);
        } else {
            u32(b, (uint32_t)u);
            u32(b, (uint32_t)(u >> 32));
        }
    }
    if (tsresol >= 0 || tsoffset) {
        u16(b, 0);
        u16(b, 0);
    }
    end(b, at);
}
static void epb(bb *b, uint32_t iface, uint64_t ts, const uint8_t *d, uint32_t caplen,
                uint32_t origlen)
{
    size_t at = begin(b, 6);
    u32(b, iface);
    u32(b, (uint32_t)(ts >> 32));
    u32(b, (uint32_t)ts);
    u32(b, caplen);
    u32(b, origlen);
    put(b, d, caplen);
    end(b, at);
}
static void spb(bb *b, const uint8_t *d, uint32_t len)
{
    size_t at = begin(b, 3);
    u32(b, len);
    put(b, d, len);
    end(b, at);
}
static void pb(bb *b, uint16_t iface, uint64_t ts, const uint8_t *d, uint32_t len)
{
    size_t at = begin(b, 2);
    u16(b, iface);
    u16(b, 0);
    u32(b, (uint32_t)(ts >> 32));
    u32(b, (uint32_t)ts);
    u32(b, len);
    u32(b, len);
    put(b, d, len);
    end(b, at);
}
static void other(bb *b, uint32_t type, size_t body)
{
    size_t at = begin(b, type);
    for (size_t i = 0; i < body; i++)
        u8(b, (uint8_t)i);
    end(b, at);
}

/* An Ethernet frame: IPv4 TCP SYN 10.0.0.1:40000 -> 10.0.0.2:389 (54 bytes); the
 * same from the IP header on for raw IP. */
static const uint8_t frame_eth[54] = {
    0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,
    0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    0x9c, 0x40, 0x01, 0x85, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0x72, 0x10, 0, 0, 0, 0};

/* ---- reading a whole byte string, chunk bytes at a time ------------------------------------ */
typedef struct ev {
    int what;
    uint64_t block;
    const char *why;
    sat_ts_ns ts;
    int linktype, dated;
    uint32_t caplen, iface, section;
    uint8_t first; /* the packet's first byte */
} ev;

typedef struct evs {
    ev e[64];
    int n;
    sat_pcapng_counts counts;
} evs;

static void read_all(const uint8_t *p, size_t n, size_t chunk, evs *out)
{
    memset(out, 0, sizeof *out);
    sat_pcapng *r = sat_pcapng_create();
    size_t start = 0, end = chunk ? (chunk < n ? chunk : n) : n;
    for (int steps = 0; steps < 100000; steps++) {
        sat_pcapng_step s;
        size_t used;
        int w = sat_pcapng_next(r, p + start, end - start, end == n, &used, &s);
        CHECK(used <= end - start);
        start += used;
        if (w == SAT_PCAPNG_MORE) {
            CHECK(s.need > end - start);
            end += chunk ? chunk : n;
            if (end < start + s.need && !chunk)
                end = start + s.need;
            if (end > n)
                end = n;
            continue;
        }
        if (w == SAT_PCAPNG_READ)
            continue;
        if (out->n < 64) {
            ev *e = &out->e[out->n++];
            e->what = w;
            e->block = s.block;
            e->why = s.why;
            e->ts = s.ts;
            e->linktype = s.linktype;
            e->dated = s.dated;
            e->caplen = s.caplen;
            e->iface = s.iface;
            e->section = s.section;
            e->first = w == SAT_PCAPNG_PACKET && s.caplen ? s.data[0] : 0;
        }
        if (w == SAT_PCAPNG_END || w == SAT_PCAPNG_STOP || w < 0)
            break;
    }
    sat_pcapng_get_counts(r, &out->counts);
    sat_pcapng_free(r);
}

static const char *seed_dir;
static int seed_no;

/* Reads b whole and in chunks of 1 and 7 bytes: the same events. */
static void read_case(const char *name, const bb *b, evs *out)
{
    read_all(b->b, b->n, 0, out);
    static evs other;
    size_t chunks[] = {1, 7};
    for (size_t k = 0; k < 2; k++) {
        read_all(b->b, b->n, chunks[k], &other);
        CHECK_EQ_INT(other.n, out->n);
        int same = other.n == out->n;
        for (int i = 0; same && i < out->n; i++) {
            const ev *a = &out->e[i], *c = &other.e[i];
            same = a->what == c->what && a->block == c->block && a->ts == c->ts &&
                   a->linktype == c->linktype && a->caplen == c->caplen &&
                   a->first == c->first && (a->why == c->why ||
                                            (a->why && c->why && !strcmp(a->why, c->why)));
        }
        if (!same)
            fprintf(stderr, "%s: read %zu bytes at a time differs from read whole\n", name,
                    chunks[k]);
        for (int i = 0; !same && i < out->n; i++)
            fprintf(stderr, "  %d/%d block %llu/%llu ts %lld/%lld first %u/%u why %s/%s\n",
                    out->e[i].what, other.e[i].what, (unsigned long long)out->e[i].block,
                    (unsigned long long)other.e[i].block, (long long)out->e[i].ts,
                    (long long)other.e[i].ts, out->e[i].first, other.e[i].first,
                    out->e[i].why ? out->e[i].why : "-", other.e[i].why ? other.e[i].why : "-");
        CHECK(same);
    }
    if (seed_dir) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%02d-%s", seed_dir, ++seed_no, name);
        FILE *f = fopen(p, "wb");
        if (f) {
            fputc(0, f); /* the fuzz target's first byte: the chunk size (0: whole) */
            fwrite(b->b, 1, b->n, f);
            fclose(f);
        }
    }
}

static int count_what(const evs *e, int what)
{
    int k = 0;
    for (int i = 0; i < e->n; i++)
        k += e->e[i].what == what;
    return k;
}

static const ev *nth(const evs *e, int what, int k)
{
    for (int i = 0; i < e->n; i++)
        if (e->e[i].what == what && k-- == 0)
            return &e->e[i];
    return NULL;
}

#define NS 1000000000LL

static void test_good_file(int big)
{
    bb b = {0};
    b.big = big;
    shb(&b, 1);
    idb(&b, 1, 262144, -1, 0);       /* 0: Ethernet, microseconds */
    idb(&b, 101, 0, 9, 0);           /* 1: raw IP, nanoseconds */
    idb(&b, 1, 40, 0x80 | 10, 0);    /* 2: Ethernet, 2^-10 s, snaplen 40 */
    idb(&b, 101, 0, 0, 1000);        /* 3: raw IP, seconds, offset +1000 s */
    other(&b, 4, 12);                /* name resolution */
    epb(&b, 0, 1700000000123456ULL, frame_eth, 54, 54);
    epb(&b, 1, 1700000001987654321ULL, frame_eth + 14, 40, 40);
    epb(&b, 2, (1700000002ULL << 10) | 512, frame_eth, 40, 54); /* .5 s */
    epb(&b, 3, 1700000003ULL, frame_eth + 14, 40, 40);
    other(&b, 5, 20);                /* interface statistics */
    spb(&b, frame_eth, 54);          /* interface 0, dated with the packet before */
    pb(&b, 0, 1700000005000001ULL, frame_eth, 54);
    other(&b, 0x0A, 8);              /* decryption secrets */
    other(&b, 0x00000BAD, 16);       /* custom */
    other(&b, 0x40000BAD, 4);
    other(&b, 0x12345678, 0);        /* an unknown type */
    evs e;
    read_case(big ? "good-be" : "good-le", &b, &e);
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_PACKET), 6);
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_SKIPPED), 6);
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_REJECT), 0);
    CHECK_EQ_INT(e.e[e.n - 1].what, SAT_PCAPNG_END);
    const ev *p0 = nth(&e, SAT_PCAPNG_PACKET, 0), *p1 = nth(&e, SAT_PCAPNG_PACKET, 1),
             *p2 = nth(&e, SAT_PCAPNG_PACKET, 2), *p3 = nth(&e, SAT_PCAPNG_PACKET, 3),
             *p4 = nth(&e, SAT_PCAPNG_PACKET, 4), *p5 = nth(&e, SAT_PCAPNG_PACKET, 5);
    if (!p5)
        return;
    CHECK_EQ_INT(p0->ts, 1700000000123456000LL);
    CHECK_EQ_INT(p0->linktype, 1);
    CHECK_EQ_INT(p0->caplen, 54);
    CHECK_EQ_INT(p1->ts, 1700000001987654321LL);
    CHECK_EQ_INT(p1->linktype, 101);
    CHECK_EQ_INT(p1->first, 0x45);
    CHECK_EQ_INT(p2->ts, 1700000002 * NS + 500000000);
    CHECK_EQ_INT(p2->caplen, 40);
    CHECK_EQ_INT(p3->ts, 1700001003 * NS);
    CHECK_EQ_INT(p3->iface, 3);
    CHECK_EQ_INT(p4->dated, 0); /* the simple packet block */
    CHECK_EQ_INT(p4->ts, p3->ts);
    CHECK_EQ_INT(p4->linktype, 1);
    CHECK_EQ_INT(p4->caplen, 54);
    CHECK_EQ_INT(p5->ts, 1700000005000001000LL); /* the obsolete packet block */
    CHECK_EQ_INT(e.counts.sections, 1);
    CHECK_EQ_INT(e.counts.interfaces, 4);
    CHECK_EQ_INT(e.counts.skipped, 6);
    CHECK_EQ_INT(e.counts.undated, 1);
    /* every packet decodes down to its TCP SYN */
    sat_packet pk;
    const char *why;
    memset(&pk, 0, sizeof pk);
    CHECK_EQ_INT(sat_pkt_decode(101, frame_eth + 14, 40, &pk, &why), SAT_OK);
    CHECK_EQ_INT(pk.dport, 389);
    free(b.b);
}

/* Two sections: the second's interface 0 is another link type; its interface 1 does
 * not exist any more. The second section is big-endian. */
static void test_sections(void)
{
    bb b = {0};
    shb(&b, 1);
    idb(&b, 1, 0, -1, 0);
    idb(&b, 1, 0, -1, 0);
    epb(&b, 1, 1000000, frame_eth, 54, 54);
    b.big = 1;
    shb(&b, 1);
    idb(&b, 276, 0, -1, 0);
    epb(&b, 0, 2000000, frame_eth, 20, 20);
    epb(&b, 1, 3000000, frame_eth, 20, 20); /* no interface 1 in this section */
    b.big = 0;
    shb(&b, 2);                             /* a version not read: skipped */
    idb(&b, 1, 0, -1, 0);
    epb(&b, 0, 4000000, frame_eth, 54, 54);
    shb(&b, 1);
    idb(&b, 113, 0, -1, 0);
    epb(&b, 0, 5000000, frame_eth, 20, 20);
    evs e;
    read_case("sections", &b, &e);
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_PACKET), 3);
    const ev *p0 = nth(&e, SAT_PCAPNG_PACKET, 0), *p1 = nth(&e, SAT_PCAPNG_PACKET, 1),
             *p2 = nth(&e, SAT_PCAPNG_PACKET, 2);
    if (p2) {
        CHECK_EQ_INT(p0->linktype, 1);
        CHECK_EQ_INT(p0->section, 1);
        CHECK_EQ_INT(p1->linktype, 276);
        CHECK_EQ_INT(p1->section, 2);
        CHECK_EQ_INT(p1->ts, 2 * NS);
        CHECK_EQ_INT(p2->linktype, 113);
        CHECK_EQ_INT(p2->section, 4);
        CHECK_EQ_INT(p2->ts, 5 * NS);
    }
    const ev *r0 = nth(&e, SAT_PCAPNG_REJECT, 0), *r1 = nth(&e, SAT_PCAPNG_REJECT, 1);
    CHECK(r0 && !strcmp(r0->why, "interface id with no interface description"));
    CHECK(r0 && r0->block == 8);
    CHECK(r1 && strstr(r1->why, "major version other than 1"));
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_SKIPPED), 2); /* the version 2 section's blocks */
    CHECK_EQ_INT(e.counts.sections, 4);
    CHECK_EQ_INT(e.e[e.n - 1].what, SAT_PCAPNG_END);
    free(b.b);
}

/* One malformed block between two good packets: rejected with why, the packet after it
 * read (or, when the length cannot be trusted, a stop with why). */
typedef enum { M_LEN_NOT4, M_SHORT_EPB, M_SHORT_IDB, M_SHORT_SPB, M_NO_IFACE, M_CAPLEN,
               M_TRAIL, M_LEN_BELOW_12, M_TRUNC, M_TRUNC_HEAD, M_OPT_PAST, M_TSRESOL_LEN,
               M_TIME_RANGE, M_SPB_NO_IFACE, M_SPB_CAPLEN, M_BOM,
               M_NOT_SHB_FIRST, M_SKIPPED_NOT4 } mcase;

static void malformed(mcase m, const char *name, int want, const char *why)
{
    bb b = {0};
    int lead_shb = m != M_NOT_SHB_FIRST;
    if (lead_shb)
        shb(&b, 1);
    if (m != M_SPB_NO_IFACE) {
        idb(&b, 1, 0, -1, 0);
        epb(&b, 0, 1000000, frame_eth, 54, 54);
    }
    size_t at = b.n;
    switch (m) {
    case M_LEN_NOT4: /* 33 bytes, trailing copy where the length says */
        at = begin(&b, 6);
        for (int i = 0; i < 21; i++)
            u8(&b, 0);
        u32at(&b, at + 4, 33);
        u32(&b, 33);
        break;
    case M_SHORT_EPB:
        at = begin(&b, 6);
        u32(&b, 0);
        end(&b, at); /* 16 bytes: below the 32 of its fixed part */
        break;
    case M_SHORT_IDB:
        at = begin(&b, 1);
        end(&b, at);
        epb(&b, 1, 1000000, frame_eth, 54, 54); /* its interface: rejected too */
        break;
    case M_SHORT_SPB:
        at = begin(&b, 3);
        end(&b, at);
        break;
    case M_NO_IFACE:
        epb(&b, 5, 1000000, frame_eth, 54, 54);
        break;
    case M_CAPLEN:
        epb(&b, 0, 1000000, frame_eth, 54, 54);
        u32at(&b, at + 20, 60); /* captured length 60 in a block with room for 56 */
        break;
    case M_TRAIL:
        epb(&b, 0, 1000000, frame_eth, 54, 54);
        u32at(&b, b.n - 4, 999);
        break;
    case M_LEN_BELOW_12:
        at = begin(&b, 6);
        u32at(&b, at + 4, 8);
        break;
    case M_TRUNC:
        epb(&b, 0, 1000000, frame_eth, 54, 54);
        b.n -= 10;
        break;
    case M_TRUNC_HEAD:
        u32(&b, 6);
        u8(&b, 0);
        break;
    case M_OPT_PAST: {
        at = begin(&b, 1);
        u16(&b, 1);
        u16(&b, 0);
        u32(&b, 0);
        u16(&b, 2); /* if_name, 200 bytes said, 4 there */
        u16(&b, 200);
        u32(&b, 0);
        end(&b, at);
        epb(&b, 1, 1000000, frame_eth, 54, 54);
        break;
    }
    case M_TSRESOL_LEN:
        at = begin(&b, 1);
        u16(&b, 1);
        u16(&b, 0);
        u32(&b, 0);
        u16(&b, 9);
        u16(&b, 2);
        u16(&b, 6);
        u16(&b, 0);
        u32(&b, 0);
        end(&b, at);
        break;
    case M_TIME_RANGE:
        epb(&b, 0, UINT64_MAX, frame_eth, 54, 54);
        break;
    case M_SPB_NO_IFACE: /* before any interface description */
        spb(&b, frame_eth, 54);
        idb(&b, 1, 0, -1, 0);
        break;
    case M_SPB_CAPLEN:
        spb(&b, frame_eth, 54);
        u32at(&b, b.n - 4 - 56 - 4, 100); /* original length 100, 56 bytes of room */
        break;
    case M_BOM:
        shb(&b, 1);
        u32at(&b, b.n - 28 + 8, 0x11223344);
        break;
    case M_NOT_SHB_FIRST:
        break;
    case M_SKIPPED_NOT4:
        at = begin(&b, 5);
        u8(&b, 1);
        u32at(&b, at + 4, 13);
        b.n = at + 9;
        u32(&b, 13); /* 13 bytes, trailing copy at 9 */
        break;
    }
    if (m != M_TRUNC && m != M_TRUNC_HEAD) /* those end the file */
        epb(&b, 0, 2000000, frame_eth, 54, 54);
    evs e;
    read_case(name, &b, &e);
    const ev *r = nth(&e, want, 0);
    CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "%s: no %s\n", name, want == SAT_PCAPNG_STOP ? "stop" : "reject");
        free(b.b);
        return;
    }
    if (!r->why || !strstr(r->why, why))
        fprintf(stderr, "%s: why '%s', wanted '%s'\n", name, r->why ? r->why : "(null)", why);
    CHECK(r->why && strstr(r->why, why));
    CHECK(r->block >= 1);
    if (want == SAT_PCAPNG_REJECT) {
        /* reading went on: the last packet (at 2 s) was read */
        const ev *last = NULL;
        for (int i = 0; i < e.n; i++)
            if (e.e[i].what == SAT_PCAPNG_PACKET)
                last = &e.e[i];
        if (!(last && last->ts == 2 * NS))
            fprintf(stderr, "%s: the packet after the rejected block was not read\n", name);
        CHECK(last && last->ts == 2 * NS);
        CHECK_EQ_INT(e.e[e.n - 1].what, SAT_PCAPNG_END);
    } else {
        CHECK_EQ_INT(e.e[e.n - 1].what, SAT_PCAPNG_STOP);
    }
    free(b.b);
}

static void test_malformed(void)
{
    const int R = SAT_PCAPNG_REJECT, S = SAT_PCAPNG_STOP;
    malformed(M_LEN_NOT4, "len-not-4", R, "block length not a multiple of 4");
    malformed(M_SKIPPED_NOT4, "skipped-len-not-4", R, "block length not a multiple of 4");
    malformed(M_SHORT_EPB, "short-epb", R, "enhanced packet block shorter than its fixed part");
    malformed(M_SHORT_IDB, "short-idb", R, "interface description shorter than its fixed part");
    malformed(M_SHORT_SPB, "short-spb", R, "simple packet block shorter than its fixed part");
    malformed(M_NO_IFACE, "no-iface", R, "interface id with no interface description");
    malformed(M_SPB_NO_IFACE, "spb-no-iface", R, "interface id with no interface description");
    malformed(M_CAPLEN, "caplen", R, "captured length past the block");
    malformed(M_SPB_CAPLEN, "spb-caplen", R, "captured length past the block");
    malformed(M_OPT_PAST, "option-past", R, "option runs past the block");
    malformed(M_TSRESOL_LEN, "tsresol-len", R, "if_tsresol option is not one byte");
    malformed(M_TIME_RANGE, "time-range", R, "packet time out of range");
    malformed(M_TRAIL, "trailing-length", S, "trailing block length differs");
    malformed(M_LEN_BELOW_12, "len-below-12", S, "block length below 12");
    malformed(M_TRUNC, "truncated", S, "the file ends inside a block");
    malformed(M_TRUNC_HEAD, "truncated-head", S, "the file ends inside a block's header");
    malformed(M_BOM, "bom", S, "unknown byte-order magic");
    malformed(M_NOT_SHB_FIRST, "not-shb-first", S, "does not begin with a section header");
}

/* A packet of an interface whose description was rejected is rejected, named so. */
static void test_rejected_interface(void)
{
    bb b = {0};
    shb(&b, 1);
    size_t at = begin(&b, 1);
    end(&b, at); /* too short: interface 0, rejected */
    idb(&b, 101, 0, -1, 0);
    epb(&b, 0, 1000000, frame_eth, 54, 54);
    epb(&b, 1, 2000000, frame_eth + 14, 40, 40);
    evs e;
    read_case("rejected-iface", &b, &e);
    const ev *r = nth(&e, SAT_PCAPNG_REJECT, 1);
    CHECK(r && !strcmp(r->why, "packet of an interface whose description was rejected"));
    const ev *p = nth(&e, SAT_PCAPNG_PACKET, 0);
    CHECK(p && p->iface == 1 && p->linktype == 101);
    free(b.b);
}

/* More than 65536 descriptions: those beyond are rejected; the next section starts over. */
static void test_interface_cap(void)
{
    bb b = {0};
    shb(&b, 1);
    for (unsigned i = 0; i < SAT_PCAPNG_MAX_IFACES + 2; i++)
        idb(&b, 1, 0, -1, 0);
    epb(&b, 65535, 1000000, frame_eth, 54, 54);
    epb(&b, 65536, 2000000, frame_eth, 54, 54);
    shb(&b, 1);
    idb(&b, 1, 0, -1, 0);
    epb(&b, 0, 3000000, frame_eth, 54, 54);
    evs e;
    read_all(b.b, b.n, 0, &e);
    CHECK_EQ_INT(count_what(&e, SAT_PCAPNG_PACKET), 2);
    const ev *r0 = nth(&e, SAT_PCAPNG_REJECT, 0), *r2 = nth(&e, SAT_PCAPNG_REJECT, 2);
    CHECK(r0 && !strcmp(r0->why, "more than 65536 interfaces in a section"));
    CHECK(r2 && !strcmp(r2->why, "interface id with no interface description"));
    CHECK_EQ_INT(e.counts.interfaces, SAT_PCAPNG_MAX_IFACES + 1);
    free(b.b);
}

/* A custom block of 17 MiB is skipped as it streams (never held whole); a packet block
 * that long is rejected and skipped the same way. */
static void test_long_blocks(void)
{
    static uint8_t zeros[65536];
    for (int type = 0; type < 2; type++) {
        bb b = {0};
        shb(&b, 1);
        idb(&b, 1, 0, -1, 0);
        uint32_t len = 17u << 20;
        u32(&b, type ? 6 : 0x00000BAD);
        u32(&b, len);
        size_t body = len - 12;
        sat_pcapng *r = sat_pcapng_create();
        /* the section, its interface and the long block's head, then its body in 64 KiB
         * pieces, then its trailing length */
        size_t used, fed = 0, off = 0;
        sat_pcapng_step s;
        int w, rejects = 0, skipped = 0, more = 0;
        while (off < b.n) {
            w = sat_pcapng_next(r, b.b + off, b.n - off, 0, &used, &s);
            rejects += w == SAT_PCAPNG_REJECT;
            if (w == SAT_PCAPNG_MORE)
                break;
            off += used;
        }
        CHECK_EQ_INT(off, b.n);
        while (fed < body) {
            size_t n = body - fed < sizeof zeros ? body - fed : sizeof zeros;
            w = sat_pcapng_next(r, zeros, n, 0, &used, &s);
            rejects += w == SAT_PCAPNG_REJECT;
            more += w == SAT_PCAPNG_MORE;
            fed += used;
            if (w == SAT_PCAPNG_STOP || more > 4)
                break;
        }
        CHECK_EQ_INT(fed, body);
        uint8_t trail[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                            (uint8_t)(len >> 24)};
        w = sat_pcapng_next(r, trail, 4, 1, &used, &s);
        skipped += w == SAT_PCAPNG_SKIPPED;
        CHECK_EQ_INT(used, 4);
        w = sat_pcapng_next(r, trail, 0, 1, &used, &s);
        CHECK_EQ_INT(w, SAT_PCAPNG_END);
        CHECK_EQ_INT(skipped, type ? 0 : 1);
        CHECK_EQ_INT(rejects, type ? 1 : 0);
        sat_pcapng_free(r);
        free(b.b);
    }
}

/* ---- fixtures: the merged files against their parts read apart --------------------------- */
typedef struct rows {
    char **s;
    size_t n, cap;
    uint64_t rejects;
    sat_source src[4];
    char fmt[4][16];
    int nsrc;
} rows;

static void add(rows *r, const char *fmt, ...) SAT_PRINTF(2, 3);
static void add(rows *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->s = realloc(r->s, r->cap * sizeof *r->s);
    }
    r->s[r->n++] = strdup(buf);
}

static int on_row(void *ctx, int table, const void *row)
{
    rows *r = ctx;
    switch (table) {
    case SAT_TABLE_SOURCE: {
        const sat_source *s = row;
        if (r->nsrc < 4) {
            r->src[r->nsrc] = *s;
            snprintf(r->fmt[r->nsrc], sizeof r->fmt[0], "%.*s", (int)s->format.len,
                     s->format.ptr);
            r->nsrc++;
        }
        break;
    }
    case SAT_TABLE_REJECT:
        r->rejects++;
        break;
    case SAT_TABLE_TCP_CONN: {
        const sat_tcp_conn *c = row;
        add(r, "tcp %lld %lld %.*s:%u %.*s:%u end=%u flags=%u rtt=%lld %llu/%llu %u/%u r%u",
            (long long)c->syn_ts, (long long)c->end_ts, (int)c->client_ip.len,
            c->client_ip.ptr, c->client_port, (int)c->server_ip.len, c->server_ip.ptr,
            c->server_port, c->end, c->flags, (long long)c->rtt,
            (unsigned long long)c->bytes_c2s, (unsigned long long)c->bytes_s2c, c->pkts_c2s,
            c->pkts_s2c, c->retrans);
        break;
    }
    case SAT_TABLE_TLS_HS: {
        const sat_tls_hs *h = row;
        add(r, "tls %lld %lld %u %u out=%u res=%u off=%u v=%x c=%x dur=%lld alert=%d",
            (long long)h->ts, (long long)h->done_ts, h->client_port, h->server_port,
            h->outcome, h->resumed_by, h->offered, h->version, h->cipher,
            (long long)h->duration, h->alert);
        break;
    }
    case SAT_TABLE_LDAP_OP: {
        const sat_ldap_op *o = row;
        add(r, "op %lld %lld type=%u op=%lld err=%d n=%lld dn=%.*s filter=%.*s",
            (long long)o->ts_ns, (long long)o->result_ts_ns, o->type, (long long)o->op,
            o->err, (long long)o->nentries, (int)o->dn.len, o->dn.ptr ? o->dn.ptr : "",
            (int)o->filter.len, o->filter.ptr ? o->filter.ptr : "");
        break;
    }
    default:
        break;
    }
    return SAT_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *const *paths, size_t n, rows *r, sat_collect_stats *st)
{
    memset(r, 0, sizeof *r);
    sat_event_sink sink = {r,
                           SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT) |
                               SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) |
                               SAT_TABLE_BIT(SAT_TABLE_TLS_HS) |
                               SAT_TABLE_BIT(SAT_TABLE_LDAP_OP),
                           on_row};
    sat_diag d;
    memset(&d, 0, sizeof d);
    memset(st, 0, sizeof *st);
    int rc = sat_collect_run(paths, n, NULL, &sink, st, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    if (r->n)
        qsort(r->s, r->n, sizeof *r->s, cmp_str);
}

static void free_rows(rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->s[i]);
    free(r->s);
}

static int count_prefix(const rows *r, const char *p)
{
    int k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += !strncmp(r->s[i], p, strlen(p));
    return k;
}

static void same_rows(const char *name, const rows *a, const rows *b)
{
    CHECK_EQ_INT(a->n, b->n);
    size_t n = a->n < b->n ? a->n : b->n, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a->s[i], b->s[i]) != 0 && bad++ < 3)
            fprintf(stderr, "%s: row %zu differs:\n  %s\n  %s\n", name, i, a->s[i], b->s[i]);
    CHECK_EQ_INT(bad, 0);
}

static void test_fixtures(const char *srcdir)
{
    char p1[1024], p2[1024], p3[1024], three[1024], two[1024], gz[1100], cmd[2400];
    snprintf(p1, sizeof p1, "%s/fixtures/tls/tls12-sessid.pcap", srcdir);
    snprintf(p2, sizeof p2, "%s/fixtures/pcapng/tls-any.pcap", srcdir);
    snprintf(p3, sizeof p3, "%s/fixtures/pcapng/ldap-rawip.pcap", srcdir);
    snprintf(three, sizeof three, "%s/fixtures/pcapng/three-links.pcapng", srcdir);
    snprintf(two, sizeof two, "%s/fixtures/pcapng/two-sections.pcapng", srcdir);
    const char *parts[] = {p1, p2, p3};
    rows apart, merged;
    sat_collect_stats sa, sm;
    collect(parts, 3, &apart, &sa);
    CHECK_EQ_INT(apart.nsrc, 3);
    CHECK_EQ_INT(apart.rejects, 0);
    /* what the parts hold (fixtures/tls/README.md, fixtures/ldapwire/README.md,
     * make-fixtures.sh's clients) */
    CHECK_EQ_INT(count_prefix(&apart, "tls "), 9);
    CHECK_EQ_INT(count_prefix(&apart, "op "), 48);
    CHECK_EQ_INT(count_prefix(&apart, "tcp "), 24);
    for (int i = 0; i < apart.nsrc; i++)
        CHECK_EQ_STR(apart.fmt[i], "pcap");

    const char *files[] = {three, two, gz};
    snprintf(gz, sizeof gz, "/tmp/test_pcapng_%d.pcapng.gz", (int)getpid());
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", three, gz);
    int have_gz = system(cmd) == 0;
    for (int f = 0; f < 3; f++) {
        if (f == 2 && !have_gz)
            break;
        const char *one[] = {files[f]};
        collect(one, 1, &merged, &sm);
        CHECK_EQ_INT(merged.nsrc, 1);
        CHECK_EQ_STR(merged.fmt[0], "pcapng");
        CHECK_EQ_INT(merged.src[0].lines, sa.packets);
        CHECK_EQ_INT(merged.src[0].rejects, 0);
        CHECK_EQ_INT(merged.src[0].truncated, 0);
        CHECK_EQ_INT(merged.rejects, 0);
        CHECK_EQ_INT(sm.packets, 351);
        CHECK_EQ_INT(sm.unsupported_link, 0);
        CHECK_EQ_INT(sm.ops, sa.ops);
        same_rows(files[f], &apart, &merged);
        free_rows(&merged);
    }
    if (have_gz)
        unlink(gz);
    free_rows(&apart);
}

/* ---- malformed files through collect ------------------------------------------------------- */
typedef struct rej_rows {
    uint64_t line[8];
    char why[8][128], ex[8][160];
    int n;
    sat_source src;
} rej_rows;

static int on_rej(void *ctx, int table, const void *row)
{
    rej_rows *r = ctx;
    if (table == SAT_TABLE_SOURCE) {
        r->src = *(const sat_source *)row;
    } else if (table == SAT_TABLE_REJECT && r->n < 8) {
        const sat_reject *j = row;
        r->line[r->n] = j->line_no;
        snprintf(r->why[r->n], sizeof r->why[0], "%.*s", (int)j->reason.len, j->reason.ptr);
        snprintf(r->ex[r->n], sizeof r->ex[0], "%.*s", (int)j->excerpt.len, j->excerpt.ptr);
        r->n++;
    }
    return SAT_OK;
}

static void collect_bytes(const bb *b, rej_rows *r, sat_collect_stats *st)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_pcapng_%d.pcapng", (int)getpid());
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(b->b, 1, b->n, f);
    fclose(f);
    memset(r, 0, sizeof *r);
    sat_event_sink sink = {r, SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                           on_rej};
    sat_diag d;
    memset(&d, 0, sizeof d);
    const char *paths[] = {path};
    sat_collect_run(paths, 1, NULL, &sink, st, &d);
    unlink(path);
}

static void test_collect_rejects(void)
{
    bb b = {0};
    shb(&b, 1);                              /* block 1 */
    idb(&b, 1, 0, -1, 0);                    /* 2 */
    epb(&b, 0, 1000000, frame_eth, 54, 54);  /* 3: packet 1 */
    epb(&b, 4, 1000000, frame_eth, 54, 54);  /* 4: packet 2, no interface 4 */
    size_t at = begin(&b, 1);                /* 5: a short interface description */
    end(&b, at);
    other(&b, 5, 8);                         /* 6: statistics, skipped */
    epb(&b, 0, 2000000, frame_eth, 54, 54);  /* 7: packet 3 */
    epb(&b, 0, 3000000, frame_eth, 54, 54);  /* 8: its trailing length is wrong: stop */
    u32at(&b, b.n - 4, 12);
    epb(&b, 0, 4000000, frame_eth, 54, 54);  /* never read */
    rej_rows r;
    sat_collect_stats st;
    collect_bytes(&b, &r, &st);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.line[0], 2);
    CHECK_EQ_STR(r.why[0], "interface id with no interface description");
    CHECK(!strncmp(r.ex[0], "block 4 at byte ", 16));
    CHECK(strstr(r.ex[0], "(enhanced packet): 06 00 00 00") != NULL);
    CHECK_EQ_INT(r.line[1], 5);
    CHECK_EQ_STR(r.why[1], "interface description shorter than its fixed part");
    CHECK(!strncmp(r.ex[1], "block 5 at byte ", 16));
    CHECK_EQ_INT(r.line[2], 8);
    CHECK_EQ_STR(r.why[2], "trailing block length differs from the leading one");
    CHECK_EQ_INT(r.src.lines, 3);
    CHECK_EQ_INT(r.src.rejects, 3);
    CHECK_EQ_INT(r.src.truncated, 1);
    CHECK_EQ_INT(st.pcapng_skipped, 1);
    CHECK_EQ_INT(st.packets, 3);
    free(b.b);

    /* a file whose first block cannot be read is not a readable capture */
    bb c = {0};
    shb(&c, 1);
    u32at(&c, 8, 0x01020304);
    collect_bytes(&c, &r, &st);
    CHECK_EQ_INT(st.unreadable, 1);
    CHECK_EQ_INT(st.captures, 0);
    free(c.b);

    /* link types the decoder does not know: counted, said once each */
    bb u = {0};
    shb(&u, 1);
    idb(&u, 147, 0, -1, 0);
    idb(&u, 148, 0, -1, 0);
    for (int i = 0; i < 3; i++) {
        epb(&u, 0, 1000000, frame_eth, 54, 54);
        epb(&u, 1, 1000000, frame_eth, 54, 54);
    }
    collect_bytes(&u, &r, &st);
    CHECK_EQ_INT(st.unsupported_link, 6);
    CHECK_EQ_INT(r.src.rejects, 0);
    free(u.b);
}

int main(void)
{
    seed_dir = getenv("SAT_WRITE_SEEDS");
    test_good_file(0);
    test_good_file(1);
    test_sections();
    test_malformed();
    test_rejected_interface();
    test_interface_cap();
    test_long_blocks();
    test_collect_rejects();
    const char *srcdir = getenv("SAT_SRC");
    if (srcdir)
        test_fixtures(srcdir);
    else
        printf("SAT_SRC not set: the fixtures' cases skipped\n");
    return CHECK_DONE();
}
