/*
 * test_pkt_decode.c - sat_pkt_decode on hand-built frames: every link type,
 * VLAN tags, IPv4 options and fragments, IPv6 extension headers, Ethernet
 * padding, and cuts at every length (never a read past caplen: each frame is
 * copied into a buffer of exactly caplen bytes, so ASan sees any overrun).
 */
#include <stdlib.h>

#include "check.h"
#include "satscope/wire.h"

static size_t put_tcp(uint8_t *b, uint16_t sp, uint16_t dp, uint32_t seq, uint8_t flags,
                      size_t optlen, const char *payload)
{
    size_t hl = 20 + optlen;
    memset(b, 0, hl);
    b[0] = (uint8_t)(sp >> 8); b[1] = (uint8_t)sp;
    b[2] = (uint8_t)(dp >> 8); b[3] = (uint8_t)dp;
    b[4] = (uint8_t)(seq >> 24); b[5] = (uint8_t)(seq >> 16);
    b[6] = (uint8_t)(seq >> 8); b[7] = (uint8_t)seq;
    b[8] = 0; b[11] = 1; /* ack = 1 */
    b[12] = (uint8_t)((hl / 4) << 4);
    b[13] = flags;
    for (size_t i = 0; i < optlen; i++)
        b[20 + i] = 1; /* NOPs */
    size_t n = strlen(payload);
    memcpy(b + hl, payload, n);
    return hl + n;
}

static size_t put_ipv4(uint8_t *b, size_t optlen, uint8_t proto, uint16_t frag,
                       const uint8_t *l4, size_t l4len)
{
    size_t ihl = 20 + optlen;
    memset(b, 0, ihl);
    b[0] = (uint8_t)(0x40 | (ihl / 4));
    size_t total = ihl + l4len;
    b[2] = (uint8_t)(total >> 8); b[3] = (uint8_t)total;
    b[6] = (uint8_t)(frag >> 8); b[7] = (uint8_t)frag;
    b[8] = 64; b[9] = proto;
    b[12] = 10; b[13] = 0; b[14] = 0; b[15] = 1;
    b[16] = 10; b[17] = 0; b[18] = 0; b[19] = 2;
    memcpy(b + ihl, l4, l4len);
    return ihl + l4len;
}

static size_t put_ipv6(uint8_t *b, uint8_t next, const uint8_t *rest, size_t restlen)
{
    memset(b, 0, 40);
    b[0] = 0x60;
    b[4] = (uint8_t)(restlen >> 8); b[5] = (uint8_t)restlen;
    b[6] = next; b[7] = 64;
    b[8] = 0x20; b[9] = 0x01; b[10] = 0x0d; b[11] = 0xb8; b[23] = 1;
    b[24] = 0x20; b[25] = 0x01; b[26] = 0x0d; b[27] = 0xb8; b[39] = 2;
    memcpy(b + 40, rest, restlen);
    return 40 + restlen;
}

/* Decode a heap copy of exactly caplen bytes. */
static int dec(int lt, const uint8_t *f, size_t caplen, sat_packet *p, const char **why)
{
    uint8_t *c = malloc(caplen ? caplen : 1);
    memcpy(c, f, caplen);
    memset(p, 0, sizeof *p);
    *why = NULL;
    int rc = sat_pkt_decode(lt, c, caplen, p, why);
    /* The payload view points into c: compare before freeing by copying. */
    static uint8_t keep[2048];
    if (rc == SAT_OK && p->payload) {
        memcpy(keep, p->payload, p->payload_len);
        p->payload = keep;
    }
    free(c);
    return rc;
}

static void check_basic(const sat_packet *p, int ver, const char *payload)
{
    CHECK_EQ_INT(p->ip_version, ver);
    CHECK_EQ_INT(p->sport, 40000);
    CHECK_EQ_INT(p->dport, 636);
    CHECK_EQ_INT(p->seq, 0x01020304);
    CHECK_EQ_INT(p->ack, 1);
    CHECK_EQ_INT(p->tcp_flags, SAT_TCP_ACK | SAT_TCP_PSH);
    CHECK_EQ_INT(p->payload_len, strlen(payload));
    CHECK_EQ_INT(p->payload_wire_len, strlen(payload));
    CHECK(p->payload_len == 0 || memcmp(p->payload, payload, p->payload_len) == 0);
}

int main(void)
{
    uint8_t tcp[256], ip[512], fr[1024];
    const char *why;
    sat_packet p;
    const uint8_t AP = SAT_TCP_ACK | SAT_TCP_PSH;
    size_t tl = put_tcp(tcp, 40000, 636, 0x01020304, AP, 12, "hello");
    size_t il = put_ipv4(ip, 4, 6, 0, tcp, tl);

    /* Ethernet, padded to 64 bytes beyond the IP packet: padding is not payload. */
    memset(fr, 0, sizeof fr);
    fr[12] = 0x08; fr[13] = 0x00;
    memcpy(fr + 14, ip, il);
    CHECK_EQ_INT(dec(1, fr, 14 + il + 10, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");
    CHECK_EQ_INT(p.src[0], 10);
    CHECK_EQ_INT(p.dst[3], 2);

    /* Two VLAN tags (802.1ad outside, 802.1Q inside). */
    fr[12] = 0x88; fr[13] = 0xa8; fr[14] = 0; fr[15] = 5; fr[16] = 0x81; fr[17] = 0x00;
    fr[18] = 0; fr[19] = 7; fr[20] = 0x08; fr[21] = 0x00;
    memcpy(fr + 22, ip, il);
    CHECK_EQ_INT(dec(1, fr, 22 + il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");

    /* ARP is not TCP. */
    fr[12] = 0x08; fr[13] = 0x06;
    CHECK_EQ_INT(dec(1, fr, 60, &p, &why), SAT_PKT_NOT_TCP);

    /* Linux cooked v1: protocol at offset 14. */
    memset(fr, 0, 16);
    fr[14] = 0x08; fr[15] = 0x00;
    memcpy(fr + 16, ip, il);
    CHECK_EQ_INT(dec(113, fr, 16 + il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");

    /* Linux cooked v2: protocol first, 20-byte header. */
    memset(fr, 0, 20);
    fr[0] = 0x08; fr[1] = 0x00;
    memcpy(fr + 20, ip, il);
    CHECK_EQ_INT(dec(276, fr, 20 + il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");

    /* Raw IP (101, 12, 14), by version nibble. */
    CHECK_EQ_INT(dec(101, ip, il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");
    CHECK_EQ_INT(dec(12, ip, il, &p, &why), SAT_OK);
    CHECK_EQ_INT(dec(14, ip, il, &p, &why), SAT_OK);
    CHECK_EQ_INT(dec(228, ip, il, &p, &why), SAT_OK);

    /* BSD null, host order (little-endian 2) and OpenBSD loop (network order). */
    fr[0] = 2; fr[1] = 0; fr[2] = 0; fr[3] = 0;
    memcpy(fr + 4, ip, il);
    CHECK_EQ_INT(dec(0, fr, 4 + il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");
    fr[0] = 0; fr[3] = 2;
    CHECK_EQ_INT(dec(108, fr, 4 + il, &p, &why), SAT_OK);
    fr[3] = 7; /* some other family */
    CHECK_EQ_INT(dec(0, fr, 4 + il, &p, &why), SAT_PKT_NOT_TCP);

    /* Unsupported link type. */
    CHECK_EQ_INT(dec(127, ip, il, &p, &why), SAT_E_UNSUPPORTED);
    CHECK(why != NULL);

    /* UDP over IPv4, and a later fragment of TCP: not TCP. A first fragment
     * (MF set, offset 0) decodes. */
    uint8_t ip2[512];
    size_t il2 = put_ipv4(ip2, 0, 17, 0, tcp, tl);
    CHECK_EQ_INT(dec(101, ip2, il2, &p, &why), SAT_PKT_NOT_TCP);
    il2 = put_ipv4(ip2, 0, 6, 0x0010, tcp, tl);
    CHECK_EQ_INT(dec(101, ip2, il2, &p, &why), SAT_PKT_NOT_TCP);
    il2 = put_ipv4(ip2, 0, 6, 0x2000, tcp, tl);
    CHECK_EQ_INT(dec(101, ip2, il2, &p, &why), SAT_OK);

    /* IPv4 total length of 0 (TSO): as far as captured. */
    memcpy(ip2, ip, il);
    ip2[2] = ip2[3] = 0;
    CHECK_EQ_INT(dec(101, ip2, il, &p, &why), SAT_OK);
    check_basic(&p, 4, "hello");

    /* Bad headers. */
    memcpy(ip2, ip, il);
    ip2[0] = 0x43; /* IHL 3 */
    CHECK_EQ_INT(dec(101, ip2, il, &p, &why), SAT_E_FORMAT);
    memcpy(ip2, ip, il);
    ip2[3] = 10; /* total length below the header */
    CHECK_EQ_INT(dec(101, ip2, il, &p, &why), SAT_E_FORMAT);
    memcpy(ip2, ip, il);
    ip2[24 + 12] = 0x30; /* TCP data offset 3 */
    CHECK_EQ_INT(dec(101, ip2, il, &p, &why), SAT_E_FORMAT);
    memcpy(ip2, ip, il);
    ip2[0] = 0x55;
    CHECK_EQ_INT(dec(101, ip2, il, &p, &why), SAT_E_FORMAT);

    /* Snaplen cuts: every length decodes or fails cleanly; inside the payload
     * the wire length stays and the present bytes shrink; inside the TCP
     * options the packet is usable without payload. */
    for (size_t cut = 0; cut <= il; cut++) {
        int rc = dec(101, ip, cut, &p, &why);
        if (cut < 24 + 20) {
            CHECK(rc == SAT_E_TRUNCATED);
            CHECK(why != NULL);
        } else {
            CHECK_EQ_INT(rc, SAT_OK);
            CHECK_EQ_INT(p.payload_wire_len, 5);
            CHECK_EQ_INT(p.payload_len, cut >= 24 + 32 ? cut - (24 + 32) : 0);
        }
    }
    for (size_t cut = 0; cut < 14 + il; cut++) {
        memset(fr, 0, 14);
        fr[12] = 0x08;
        memcpy(fr + 14, ip, il);
        int rc = dec(1, fr, cut, &p, &why);
        CHECK(rc == SAT_OK || rc == SAT_E_TRUNCATED);
    }

    /* IPv6: plain, then hop-by-hop + destination options + fragment (first). */
    size_t t6 = put_tcp(tcp, 40000, 636, 0x01020304, AP, 0, "v6data");
    size_t l6 = put_ipv6(ip, 6, tcp, t6);
    CHECK_EQ_INT(dec(101, ip, l6, &p, &why), SAT_OK);
    check_basic(&p, 6, "v6data");
    CHECK_EQ_INT(p.src[0], 0x20);
    CHECK_EQ_INT(p.dst[15], 2);
    CHECK_EQ_INT(dec(229, ip, l6, &p, &why), SAT_OK);
    uint8_t ext[512];
    size_t e = 0;
    memset(ext, 0, sizeof ext);
    ext[e] = 60; ext[e + 1] = 0; e += 8;       /* hop-by-hop -> dest opts, 8 bytes */
    ext[e] = 44; ext[e + 1] = 1; e += 16;      /* dest opts -> fragment, 16 bytes */
    ext[e] = 51; e += 8;                       /* fragment -> AH, offset 0 */
    ext[e] = 6; ext[e + 1] = 1; e += 12;       /* AH -> TCP, (1+2)*4 = 12 bytes */
    memcpy(ext + e, tcp, t6);
    l6 = put_ipv6(ip, 0, ext, e + t6);
    CHECK_EQ_INT(dec(101, ip, l6, &p, &why), SAT_OK);
    check_basic(&p, 6, "v6data");
    /* Every cut of it is handled. */
    for (size_t cut = 0; cut < l6; cut++) {
        int rc = dec(101, ip, cut, &p, &why);
        CHECK(rc == SAT_OK || rc == SAT_E_TRUNCATED);
    }
    /* A later fragment, UDP, and an extension header longer than the payload. */
    ext[8 + 16 + 2] = 0x01; /* fragment offset 32 */
    l6 = put_ipv6(ip, 0, ext, e + t6);
    CHECK_EQ_INT(dec(101, ip, l6, &p, &why), SAT_PKT_NOT_TCP);
    l6 = put_ipv6(ip, 17, tcp, t6);
    CHECK_EQ_INT(dec(101, ip, l6, &p, &why), SAT_PKT_NOT_TCP);
    memset(ext, 0, 16);
    ext[0] = 6; ext[1] = 200; /* 1608 bytes of hop-by-hop in a 16-byte payload */
    l6 = put_ipv6(ip, 0, ext, 16);
    CHECK_EQ_INT(dec(101, ip, l6, &p, &why), SAT_E_FORMAT);
    /* IPv6 over Ethernet with a VLAN tag. */
    l6 = put_ipv6(ip, 6, tcp, t6);
    memset(fr, 0, 18);
    fr[12] = 0x81; fr[13] = 0x00; fr[16] = 0x86; fr[17] = 0xdd;
    memcpy(fr + 18, ip, l6);
    CHECK_EQ_INT(dec(1, fr, 18 + l6, &p, &why), SAT_OK);
    check_basic(&p, 6, "v6data");
    /* Linux cooked v1 with IPv6 */
    memset(fr, 0, 16);
    fr[14] = 0x86; fr[15] = 0xdd;
    memcpy(fr + 16, ip, l6);
    CHECK_EQ_INT(dec(113, fr, 16 + l6, &p, &why), SAT_OK);
    /* BSD null with AF_INET6 = 24, 28, 30 */
    uint32_t afs[] = {24, 28, 30, 10};
    for (int i = 0; i < 4; i++) {
        memset(fr, 0, 4);
        fr[0] = (uint8_t)afs[i];
        memcpy(fr + 4, ip, l6);
        CHECK_EQ_INT(dec(0, fr, 4 + l6, &p, &why), SAT_OK);
        CHECK_EQ_INT(p.ip_version, 6);
    }
    /* NULL frame, zero length */
    memset(&p, 0, sizeof p);
    CHECK_EQ_INT(sat_pkt_decode(1, NULL, 0, &p, &why), SAT_E_TRUNCATED);
    return CHECK_DONE();
}
