/*
 * wire.h - packets and TCP streams: the contract between the capture reader
 * (collect/capture.c, libpcap), the packet decoder and flow table (parse/), and
 * the stream dissectors (TLS, LDAP) that turn a connection's bytes into rows.
 *
 *   capture --frame--> sat_pkt_decode --sat_packet--> sat_flow_packet
 *       --in-order bytes per direction--> sat_stream_dissector --> rows (sink/joiner)
 *
 * Everything here decodes untrusted bytes: bounds-checked (base.h sat_cursor),
 * never reads past the captured length, never aborts; parse/ does no I/O.
 * Specs: RFC 791/8200 (IPv4/IPv6), RFC 9293 (TCP), RFC 5246/8446 (TLS 1.2/1.3),
 * RFC 4511 (LDAPv3), pcap LINKTYPE_ values (tcpdump.org/linktypes.html).
 */
#ifndef SATSCOPE_WIRE_H
#define SATSCOPE_WIRE_H

#include "satscope/event.h"
#include "satscope/parse.h"

/* ---- one packet --------------------------------------------------------------- */
enum sat_tcp_flag_bits {
    SAT_TCP_FIN = 0x01, SAT_TCP_SYN = 0x02, SAT_TCP_RST = 0x04,
    SAT_TCP_PSH = 0x08, SAT_TCP_ACK = 0x10
};

typedef struct sat_packet {
    sat_ts_ns ts;
    uint64_t number;          /* 1-based position in the capture (rejects name it) */
    uint8_t ip_version;       /* 4 or 6 */
    uint8_t src[16], dst[16]; /* addresses; IPv4 in the first 4 bytes */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t tcp_flags;        /* enum sat_tcp_flag_bits */
    const uint8_t *payload;   /* TCP payload present in the capture (view into
                                 the frame: valid as long as the frame) */
    size_t payload_len;       /* bytes present */
    size_t payload_wire_len;  /* bytes on the wire (from the IP length); more
                                 than payload_len when the snaplen cut it */
} sat_packet;

/* Result of sat_pkt_decode besides SAT_OK / negative errors. */
#define SAT_PKT_NOT_TCP 1 /* a valid frame that is not TCP over IP (ARP, UDP...):
                             skipped and counted, not an error */

/* Decodes one captured frame of pcap link type `linktype` (1 Ethernet with
 * 802.1Q/QinAD tags, 113 Linux cooked v1, 276 Linux cooked v2, 101/12/14 raw
 * IP, 0 BSD loopback/null, 108 OpenBSD loop) down to TCP. Returns SAT_OK with
 * *pkt filled (pkt->number and pkt->ts are left as the caller set them),
 * SAT_PKT_NOT_TCP, SAT_E_UNSUPPORTED (link type), or SAT_E_FORMAT /
 * SAT_E_TRUNCATED with *why set to a short static sentence. */
int sat_pkt_decode(int linktype, const uint8_t *frame, size_t caplen, sat_packet *pkt,
                   const char **why);

/* ---- stream dissectors -------------------------------------------------------------
 * A plug-in that reads one TCP connection's bytes, in order, per direction. */
typedef struct sat_flow_info {
    uint32_t source, flow;       /* as in sat_tcp_conn */
    sat_str client_ip, server_ip;/* owned by the flow table, valid until the
                                    dissector is destroyed */
    uint16_t client_port, server_port;
} sat_flow_info;

typedef struct sat_wire_ctx {
    const sat_event_sink *sink;  /* rows (tls_hs, rejects) go here */
    sat_ldap_join *join;         /* LDAP records go here (conn = flow number,
                                    op = message id); may be NULL */
    uint32_t source;             /* sat_source.id of the capture */
} sat_wire_ctx;

enum sat_stream_dir { SAT_DIR_C2S = 0, SAT_DIR_S2C = 1 };

/* Returned by data() when the protocol switches to TLS from the next byte of
 * both directions on (LDAP StartTLS answered with success): the flow table
 * ends this dissector and gives the rest to the TLS dissector. */
#define SAT_STREAM_UPGRADE_TLS 2

typedef struct sat_stream_dissector {
    const char *name;            /* "tls", "ldap" */
    /* Confidence 0..100 that a connection whose first payload bytes (in
     * direction dir) are buf is this protocol. Content first; the port only
     * breaks ties. 30 or more claims the connection; 1..29 says "a prefix of
     * mine, too short to tell": the flow table asks again with more bytes
     * (tcp_flow.c: up to a bound, or the connection's end); 0 is a no. */
    int (*sniff)(const uint8_t *buf, size_t len, int dir, uint16_t server_port);
    void *(*create)(const sat_flow_info *flow, const sat_wire_ctx *ctx); /* NULL: no memory */
    /* Bytes of one direction, in order, as they arrived (ts of their segment).
     * Returns SAT_OK, SAT_STREAM_UPGRADE_TLS, or a negative status (sink error
     * or no memory; malformed bytes are the dissector's business: it gives up
     * on the flow quietly or reports a reject, and returns SAT_OK). */
    int (*data)(void *st, int dir, sat_ts_ns ts, const uint8_t *p, size_t n);
    /* n bytes of direction dir are missing (lost, or cut by the snaplen). */
    int (*gap)(void *st, int dir, sat_ts_ns ts, size_t n);
    /* The connection ended: how = enum sat_tcp_end; emits what is pending. */
    int (*end)(void *st, int how, sat_ts_ns ts);
    void (*destroy)(void *st);   /* NULL is fine */
    /* Optional (NULL: not told): direction dir sent its FIN at ts (capture
     * order; its bytes before the FIN were delivered). What the peer sends
     * afterwards answers a client that has gone: a ServerHello after the
     * client's FIN does not complete a handshake the client abandoned. */
    int (*closed)(void *st, int dir, sat_ts_ns ts);
    /* Optional (NULL: the flow table's byte rule decides): the client is
     * closing or resetting; does it leave a request the server has not
     * answered? 1 yes, 0 no, -1 cannot tell (the byte rule decides). */
    int (*awaiting)(void *st);
} sat_stream_dissector;

/* NULL-terminated registry (parse/wire/stream_registry.c). */
const sat_stream_dissector *const *sat_stream_dissectors(void);
const sat_stream_dissector *sat_stream_dissector_by_name(const char *name);

/* ---- the flow table (parse/wire/tcp_flow.c) ------------------------------------
 * Tracks TCP connections in bounded memory, reassembles each direction into
 * order (a bounded window of out-of-order segments; beyond it, a gap), picks a
 * dissector per connection by content, and emits one tcp_conn row per
 * connection into ctx->sink when it ends (FIN/RST seen both ways or a RST,
 * idle timeout, eviction at capacity, or finish). */
typedef struct sat_flow_opts {
    size_t max_flows;          /* 0 = 100,000 */
    sat_dur_ns idle_timeout;   /* 0 = 300 s of capture time without a packet */
    uint16_t ldap_port;        /* non-zero: LDAP on this port whatever the content */
    /* NULL-terminated dissectors to choose from; NULL = sat_stream_dissectors()
     * (tests pass their own). Borrowed: must outlive the table. */
    const sat_stream_dissector *const *dissectors;
} sat_flow_opts;

typedef struct sat_flow_stats {
    uint64_t packets, not_tcp, flows, evicted, expired, gaps_bytes;
} sat_flow_stats;

typedef struct sat_flow_table sat_flow_table;
/* ctx and its sink/join are borrowed: they must outlive the table. */
sat_flow_table *sat_flow_table_create(const sat_flow_opts *opts, const sat_wire_ctx *ctx);
/* One decoded packet (in capture order). Returns SAT_OK or a sink's status. */
int sat_flow_packet(sat_flow_table *t, const sat_packet *p);
/* End of the capture at end_ts: every open connection ends (SAT_TCP_END_NONE). */
int sat_flow_finish(sat_flow_table *t, sat_ts_ns end_ts);
void sat_flow_get_stats(const sat_flow_table *t, sat_flow_stats *out);
void sat_flow_table_free(sat_flow_table *t); /* NULL is fine */

/* ---- pcapng files, block by block (parse/wire/pcapng.c) ------------------------------
 * draft-ietf-opsawg-pcapng. The reader is fed the file's bytes as they come (no I/O
 * here): each step looks at the bytes from the current position, consumes some and says
 * what it found. Every interface keeps its own link type, so one file may mix them;
 * a new section header starts a new list of interfaces. Bounds: at most
 * SAT_PCAPNG_MAX_IFACES interfaces per section, blocks read whole (section headers,
 * interface descriptions, packets) at most SAT_PCAPNG_MAX_BLOCK bytes (a longer one is
 * rejected and skipped); blocks of other kinds are skipped as they stream, whatever
 * their length. */
#define SAT_PCAPNG_MAX_IFACES 65536u
#define SAT_PCAPNG_MAX_BLOCK (16u << 20)

enum sat_pcapng_what {
    SAT_PCAPNG_MORE = 0, /* give at least `need` bytes from the current position (or eof) */
    SAT_PCAPNG_PACKET,   /* a packet: data..caplen views the caller's bytes */
    SAT_PCAPNG_READ,     /* a section header or interface taken, or part of a skip done */
    SAT_PCAPNG_SKIPPED,  /* a whole block of a kind not read (statistics, names, ...) */
    SAT_PCAPNG_REJECT,   /* a malformed block: rejected; reading goes on at the next */
    SAT_PCAPNG_STOP,     /* the rest of the file cannot be read (why says why); sticky */
    SAT_PCAPNG_END       /* the end of the file, at a block boundary */
};

typedef struct sat_pcapng_step {
    int what;              /* enum sat_pcapng_what (also the return value) */
    size_t need;           /* MORE: bytes wanted from the current position */
    /* the block the step was about (PACKET, SKIPPED, REJECT, STOP) */
    uint64_t block;        /* 1-based number of the block in the file */
    uint64_t offset;       /* its first byte's offset in the file */
    uint32_t type;         /* its block type */
    const char *kind;      /* "enhanced packet", "interface description", ... */
    int packet_block;      /* 1: an enhanced, simple or obsolete packet block */
    const uint8_t *head;   /* its first head_len bytes (for an excerpt) */
    size_t head_len;
    const char *why;       /* REJECT, STOP: a short sentence, the same for the same fault */
    /* PACKET */
    const uint8_t *data;
    uint32_t caplen, origlen;
    int linktype;          /* LINKTYPE_ value of its interface */
    uint32_t iface, section; /* interface id in its section; section number, 1-based */
    sat_ts_ns ts;
    int dated;             /* 0: a simple packet block, which carries no time: ts is the
                              packet before it in the file (0 before any) */
} sat_pcapng_step;

typedef struct sat_pcapng_counts {
    uint64_t blocks, sections, interfaces, packets, rejects;
    uint64_t skipped;      /* blocks of kinds not read */
    uint64_t undated;      /* simple packet blocks (dated by the packet before them) */
} sat_pcapng_counts;

typedef struct sat_pcapng sat_pcapng;
sat_pcapng *sat_pcapng_create(void);  /* NULL: no memory */
void sat_pcapng_free(sat_pcapng *r);  /* NULL is fine */
/* One step over buf[0..avail), the file's bytes from the current position; eof: no more
 * follow. Sets *used (bytes consumed: the caller drops them before the next step) and *s.
 * Returns s->what, or SAT_E_NOMEM (the interface list could not grow). A PACKET's views
 * are valid until the caller drops or moves its bytes. */
int sat_pcapng_next(sat_pcapng *r, const uint8_t *buf, size_t avail, int eof, size_t *used,
                    sat_pcapng_step *s);
void sat_pcapng_get_counts(const sat_pcapng *r, sat_pcapng_counts *out);

#endif /* SATSCOPE_WIRE_H */
