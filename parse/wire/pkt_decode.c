/*
 * pkt_decode.c - one captured frame down to its TCP segment (wire.h
 * sat_pkt_decode). Link layers by pcap LINKTYPE_ value
 * (tcpdump.org/linktypes.html): 1 Ethernet II with any number (bounded) of
 * 802.1Q / 802.1ad / old QinQ 0x9100 tags, 113 Linux cooked v1, 276 Linux
 * cooked v2, 101/12/14 raw IP and 228/229 raw IPv4/IPv6, 0 BSD null and 108
 * OpenBSD loop (a 4-byte address family, written in the capturing host's
 * order for 0 and in network order for 108: both orders are accepted for
 * both). Then IPv4 (RFC 791: options skipped), IPv6 (RFC 8200: extension
 * headers walked, at most SAT_IP6_MAX_EXT of them) and TCP (RFC 9293: options
 * skipped by the data offset).
 *
 * Decisions:
 *  - IP fragments are not reassembled. The first fragment (offset 0) carries
 *    the TCP header and is decoded, its payload ending where the fragment
 *    ends; later fragments have no TCP header and are SAT_PKT_NOT_TCP
 *    (counted, not rejected). The flow table sees the missing bytes as a gap.
 *  - Ethernet padding is cut off: the IP length says where the packet ends.
 *    An IPv4 total length of 0 (TSO/GSO on the capturing host) or an IPv6
 *    jumbogram (payload length 0) means "as far as captured".
 *  - A frame cut by the snaplen inside the TCP options, with the 20 fixed
 *    bytes present, is still a usable packet (ports, sequence, flags) with no
 *    payload present; cut before that it is SAT_E_TRUNCATED.
 * Every read goes through a sat_cursor over [frame, frame + caplen).
 */
#include "satscope/wire.h"

#define SAT_IP6_MAX_EXT 16 /* extension headers walked before giving up */
#define SAT_VLAN_MAX 8     /* stacked VLAN tags accepted */

enum { ET_IPV4 = 0x0800, ET_IPV6 = 0x86DD, ET_VLAN = 0x8100, ET_QINQ = 0x88A8,
       ET_QINQ_OLD = 0x9100 };

static int fail(const char **why, int code, const char *msg)
{
    if (why)
        *why = msg;
    return code;
}

static int decode_tcp(sat_cursor *c, size_t ip_payload, sat_packet *pkt, const char **why)
{
    /* c is positioned at the TCP header; ip_payload is the segment's length
     * on the wire (header + data) as the IP header says. */
    if (ip_payload < 20)
        return fail(why, SAT_E_FORMAT, "IP payload shorter than a TCP header");
    size_t start = c->pos;
    pkt->sport = sat_cursor_be16(c);
    pkt->dport = sat_cursor_be16(c);
    pkt->seq = sat_cursor_be32(c);
    pkt->ack = sat_cursor_be32(c);
    uint8_t off = sat_cursor_u8(c);
    uint8_t flags = sat_cursor_u8(c);
    sat_cursor_skip(c, 6); /* window, checksum, urgent pointer */
    if (c->err)
        return fail(why, SAT_E_TRUNCATED, "TCP header cut by the snaplen");
    size_t hlen = (size_t)(off >> 4) * 4;
    if (hlen < 20)
        return fail(why, SAT_E_FORMAT, "TCP data offset below 5");
    if (hlen > ip_payload)
        return fail(why, SAT_E_FORMAT, "TCP header longer than the IP payload");
    pkt->tcp_flags = flags & (SAT_TCP_FIN | SAT_TCP_SYN | SAT_TCP_RST | SAT_TCP_PSH |
                              SAT_TCP_ACK);
    pkt->payload_wire_len = ip_payload - hlen;
    size_t have = c->len - start; /* captured bytes from the TCP header on */
    if (have > ip_payload)
        have = ip_payload; /* link-layer padding after the packet */
    if (have < hlen) {     /* options cut: header usable, no payload present */
        pkt->payload = NULL;
        pkt->payload_len = 0;
        return SAT_OK;
    }
    pkt->payload = c->p + start + hlen;
    pkt->payload_len = have - hlen;
    if (pkt->payload_len == 0)
        pkt->payload = NULL;
    return SAT_OK;
}

static int decode_ipv4(sat_cursor *c, sat_packet *pkt, const char **why)
{
    size_t start = c->pos;
    uint8_t vihl = sat_cursor_u8(c);
    sat_cursor_skip(c, 1); /* DSCP/ECN */
    uint16_t total = sat_cursor_be16(c);
    sat_cursor_skip(c, 2); /* identification */
    uint16_t frag = sat_cursor_be16(c);
    sat_cursor_skip(c, 1); /* TTL */
    uint8_t proto = sat_cursor_u8(c);
    sat_cursor_skip(c, 2); /* checksum */
    const uint8_t *src = sat_cursor_bytes(c, 4);
    const uint8_t *dst = sat_cursor_bytes(c, 4);
    if (c->err)
        return fail(why, SAT_E_TRUNCATED, "IPv4 header cut by the snaplen");
    if ((vihl >> 4) != 4)
        return fail(why, SAT_E_FORMAT, "IP version is not 4");
    size_t ihl = (size_t)(vihl & 15) * 4;
    if (ihl < 20)
        return fail(why, SAT_E_FORMAT, "IPv4 header length below 20");
    size_t avail = c->len - start;
    size_t plen; /* the IP packet's length on the wire */
    if (total == 0) {
        plen = avail; /* TSO/GSO: the length was left for the NIC to fill */
    } else {
        if (total < ihl)
            return fail(why, SAT_E_FORMAT, "IPv4 total length below its header length");
        plen = total;
    }
    sat_cursor_skip(c, ihl - 20); /* options */
    if (c->err)
        return fail(why, SAT_E_TRUNCATED, "IPv4 options cut by the snaplen");
    if (proto != 6)
        return SAT_PKT_NOT_TCP;
    if ((frag & 0x1fff) != 0)
        return SAT_PKT_NOT_TCP; /* a later fragment: no TCP header in it */
    if (plen < ihl)
        plen = ihl;
    pkt->ip_version = 4;
    memset(pkt->src, 0, sizeof pkt->src);
    memset(pkt->dst, 0, sizeof pkt->dst);
    memcpy(pkt->src, src, 4);
    memcpy(pkt->dst, dst, 4);
    /* The TCP cursor ends where the IP packet ends (padding excluded). */
    sat_cursor t = sat_cursor_make(c->p + c->pos, avail - ihl < plen - ihl ? avail - ihl
                                                                           : plen - ihl);
    return decode_tcp(&t, plen - ihl, pkt, why);
}

static int decode_ipv6(sat_cursor *c, sat_packet *pkt, const char **why)
{
    size_t start = c->pos;
    uint32_t vtf = sat_cursor_be32(c);
    uint16_t paylen = sat_cursor_be16(c);
    uint8_t next = sat_cursor_u8(c);
    sat_cursor_skip(c, 1); /* hop limit */
    const uint8_t *src = sat_cursor_bytes(c, 16);
    const uint8_t *dst = sat_cursor_bytes(c, 16);
    if (c->err)
        return fail(why, SAT_E_TRUNCATED, "IPv6 header cut by the snaplen");
    if ((vtf >> 28) != 6)
        return fail(why, SAT_E_FORMAT, "IP version is not 6");
    size_t avail = c->len - start - 40;
    size_t plen = paylen ? paylen : avail; /* 0: a jumbogram (RFC 2675) */
    /* Walk the extension headers inside the payload's bounds. */
    sat_cursor e = sat_cursor_make(c->p + c->pos, avail < plen ? avail : plen);
    size_t used = 0; /* extension header bytes, counted against plen */
    for (int i = 0;; i++) {
        if (next == 6)
            break;
        if (i >= SAT_IP6_MAX_EXT)
            return fail(why, SAT_E_FORMAT, "too many IPv6 extension headers");
        size_t hl;
        switch (next) {
        case 0:   /* hop-by-hop */
        case 43:  /* routing */
        case 60:  /* destination options */
        case 135: /* mobility */
        case 139: /* HIP */
        case 140: /* shim6 */
        {
            uint8_t nh = sat_cursor_u8(&e);
            uint8_t len = sat_cursor_u8(&e);
            hl = ((size_t)len + 1) * 8;
            next = nh;
            break;
        }
        case 44: { /* fragment */
            uint8_t nh = sat_cursor_u8(&e);
            sat_cursor_skip(&e, 1);
            uint16_t off = sat_cursor_be16(&e);
            if (!e.err && (off & 0xfff8) != 0)
                return SAT_PKT_NOT_TCP; /* a later fragment */
            hl = 8;
            next = nh;
            break;
        }
        case 51: { /* authentication header: length in 4-byte units, minus 2 */
            uint8_t nh = sat_cursor_u8(&e);
            uint8_t len = sat_cursor_u8(&e);
            hl = ((size_t)len + 2) * 4;
            next = nh;
            break;
        }
        default:
            return SAT_PKT_NOT_TCP; /* UDP, ICMPv6, ESP, no next header (59)... */
        }
        if (e.err)
            return fail(why, used + 2 > plen ? SAT_E_FORMAT : SAT_E_TRUNCATED,
                        used + 2 > plen ? "IPv6 extension header past the payload length"
                                        : "IPv6 extension header cut by the snaplen");
        if (hl > plen - used)
            return fail(why, SAT_E_FORMAT, "IPv6 extension header past the payload length");
        /* The reads above consumed 2 or 4 bytes of the header: skip the rest. */
        size_t consumed = e.pos - used;
        sat_cursor_skip(&e, hl - consumed);
        if (e.err)
            return fail(why, SAT_E_TRUNCATED, "IPv6 extension header cut by the snaplen");
        used += hl;
    }
    pkt->ip_version = 6;
    memcpy(pkt->src, src, 16);
    memcpy(pkt->dst, dst, 16);
    sat_cursor t = sat_cursor_make(e.p + used, e.len - used);
    return decode_tcp(&t, plen - used, pkt, why);
}

static int decode_ip_by_version(sat_cursor *c, sat_packet *pkt, const char **why)
{
    if (!sat_cursor_need(c, 1))
        return fail(why, SAT_E_TRUNCATED, "no IP header in the frame");
    uint8_t v = c->p[c->pos] >> 4;
    if (v == 4)
        return decode_ipv4(c, pkt, why);
    if (v == 6)
        return decode_ipv6(c, pkt, why);
    return fail(why, SAT_E_FORMAT, "IP version is neither 4 nor 6");
}

static int decode_ethertype(sat_cursor *c, uint16_t et, sat_packet *pkt, const char **why)
{
    for (int tags = 0; et == ET_VLAN || et == ET_QINQ || et == ET_QINQ_OLD; tags++) {
        if (tags >= SAT_VLAN_MAX)
            return fail(why, SAT_E_FORMAT, "too many VLAN tags");
        sat_cursor_skip(c, 2); /* priority, DEI, VLAN id */
        et = sat_cursor_be16(c);
        if (c->err)
            return fail(why, SAT_E_TRUNCATED, "VLAN tag cut by the snaplen");
    }
    if (et == ET_IPV4)
        return decode_ipv4(c, pkt, why);
    if (et == ET_IPV6)
        return decode_ipv6(c, pkt, why);
    return SAT_PKT_NOT_TCP; /* ARP, LLDP, 802.3 length field, ... */
}

/* BSD AF_INET6 differs per system: 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30
 * (macOS); Linux writes 10 when it is the capturing host. */
static int null_family_is(uint32_t af, int *v6)
{
    if (af == 2) {
        *v6 = 0;
        return 1;
    }
    if (af == 10 || af == 24 || af == 28 || af == 30) {
        *v6 = 1;
        return 1;
    }
    return 0;
}

int sat_pkt_decode(int linktype, const uint8_t *frame, size_t caplen, sat_packet *pkt,
                   const char **why)
{
    sat_cursor c = sat_cursor_make(frame, frame ? caplen : 0);
    pkt->payload = NULL;
    pkt->payload_len = pkt->payload_wire_len = 0;
    switch (linktype) {
    case 1: { /* Ethernet */
        sat_cursor_skip(&c, 12);
        uint16_t et = sat_cursor_be16(&c);
        if (c.err)
            return fail(why, SAT_E_TRUNCATED, "frame shorter than an Ethernet header");
        return decode_ethertype(&c, et, pkt, why);
    }
    case 113: { /* Linux cooked v1: type, ARPHRD, addr len, addr[8], protocol */
        sat_cursor_skip(&c, 14);
        uint16_t et = sat_cursor_be16(&c);
        if (c.err)
            return fail(why, SAT_E_TRUNCATED, "frame shorter than a Linux cooked header");
        return decode_ethertype(&c, et, pkt, why);
    }
    case 276: { /* Linux cooked v2: protocol first, then 18 more bytes */
        uint16_t et = sat_cursor_be16(&c);
        sat_cursor_skip(&c, 18);
        if (c.err)
            return fail(why, SAT_E_TRUNCATED, "frame shorter than a Linux cooked v2 header");
        return decode_ethertype(&c, et, pkt, why);
    }
    case 101:
    case 12:
    case 14:
        return decode_ip_by_version(&c, pkt, why);
    case 228:
        return decode_ipv4(&c, pkt, why);
    case 229:
        return decode_ipv6(&c, pkt, why);
    case 0:
    case 108: {
        uint32_t le = sat_cursor_le32(&c);
        if (c.err)
            return fail(why, SAT_E_TRUNCATED, "frame shorter than a loopback header");
        uint32_t be = ((le & 0xff) << 24) | ((le & 0xff00) << 8) | ((le >> 8) & 0xff00) |
                      (le >> 24);
        int v6;
        if (null_family_is(le, &v6) || null_family_is(be, &v6))
            return v6 ? decode_ipv6(&c, pkt, why) : decode_ipv4(&c, pkt, why);
        return SAT_PKT_NOT_TCP; /* another address family */
    }
    default:
        return fail(why, SAT_E_UNSUPPORTED, "unsupported link type");
    }
}
