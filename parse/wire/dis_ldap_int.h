/*
 * dis_ldap_int.h - (private to the LDAP stream dissector, parse/wire/dis_ldap*.c)
 * the state its files share: a flow's per-direction buffers, its pending
 * requests, its scratch buffer, the protocolOp tags and OIDs it knows, and
 * the functions one file calls in another.
 *   dis_ldap.c         the stream: framing messages across segments, gaps,
 *                      the connection's close, sniffing, the dissector table;
 *   dis_ldap_ber.c     BER over sat_cursor, an LDAPMessage's frame, whether
 *                      bytes start a plausible one;
 *   dis_ldap_filter.c  the scratch buffer and a SearchRequest's filter
 *                      rendered as an RFC 4515 string;
 *   dis_ldap_op.c      the pending requests and each message made into a
 *                      sat_ldap_record for the joiner.
 * The rules are in dis_ldap.c's opening comment.
 *
 * Ownership: a flow's state owns its buffers; records handed to the joiner
 * borrow them (and the flow table's addresses) for the call only.
 */
#ifndef SAT_PARSE_DIS_LDAP_INT_H
#define SAT_PARSE_DIS_LDAP_INT_H

#include <stdio.h>

#include "dissectors.h"
#define LDAP_MAX_MSG (1u << 20)       /* reassembly bound per direction */
#define LDAP_FILTER_DEPTH 32          /* nesting of and/or/not rendered */
#define LDAP_MAX_PENDING 65536        /* outstanding requests timed per flow */
#define LDAP_MAX_BER_LEN_OCTETS 4     /* long-form lengths up to 4 GiB - 1 */

#define OID_STARTTLS "1.3.6.1.4.1.1466.20037"
#define OID_PAGED "1.2.840.113556.1.4.319"
#define OID_PSEARCH "2.16.840.1.113730.3.4.3"
#define OID_PROXY "2.16.840.1.113730.3.4.18"
#define OID_SORT "1.2.840.113556.1.4.473"
#define OID_VLV "2.16.840.1.113730.3.4.9"

/* RFC 4511 protocolOp tags (APPLICATION class, constructed unless noted) */
enum {
    T_BIND_REQ = 0x60, T_BIND_RESP = 0x61, T_UNBIND = 0x42 /* primitive */,
    T_SEARCH_REQ = 0x63, T_ENTRY = 0x64, T_SEARCH_DONE = 0x65, T_REF = 0x73,
    T_MOD_REQ = 0x66, T_MOD_RESP = 0x67, T_ADD_REQ = 0x68, T_ADD_RESP = 0x69,
    T_DEL_REQ = 0x4a /* primitive */, T_DEL_RESP = 0x6b, T_MODDN_REQ = 0x6c,
    T_MODDN_RESP = 0x6d, T_CMP_REQ = 0x6e, T_CMP_RESP = 0x6f,
    T_ABANDON = 0x50 /* primitive */, T_EXT_REQ = 0x77, T_EXT_RESP = 0x78,
    T_INTERMEDIATE = 0x79
};

/* ---- state ----------------------------------------------------------------------- */
typedef struct ldir {
    uint8_t *buf;        /* a message being gathered (header included) */
    size_t len, cap;
    uint64_t skip;       /* bytes of an oversized or damaged message to drop */
    uint8_t resync;      /* lost the message boundary: look for the next one */
    uint8_t skip_entry;  /* the message being skipped is a SearchResultEntry */
} ldir;

typedef struct lpend {   /* a request awaiting its response, by messageID */
    int32_t id;
    uint8_t used, starttls, persistent;
    uint32_t nentries, nrefs;
    sat_ts_ns ts;        /* 0: request not seen (entries counted anyway) */
} lpend;

typedef struct ldap_st {
    sat_wire_ctx ctx;
    int64_t conn;
    sat_str client_ip, server_ip; /* borrowed from the flow table */
    uint16_t client_port, server_port;
    uint8_t opened, upgraded, notice;
    uint8_t dead[2];     /* gave up on that direction's bytes */
    ldir d[2];
    lpend *pt;           /* open addressing, linear probing; pcap power of 2 */
    size_t pcap, pcount;
    char *sb;            /* scratch: filter, attrs, text of one record */
    size_t slen, scap;
} ldap_st;

/* Internal result of decoding one message besides SAT_OK / negatives. */
#define LDAP_BAD 3

/* ---- dis_ldap_ber.c: BER (X.690) over sat_cursor, LDAPMessage framing ---------- */
int sat_dl_is_request_tag(int t);
int sat_dl_is_response_tag(int t);
int sat_dl_ber_tl(sat_cursor *c, uint8_t *tag, sat_cursor *val);
int sat_dl_ber_get(sat_cursor *c, uint8_t want, sat_cursor *val);
int sat_dl_ber_intval(const sat_cursor *v, int64_t *out);
int sat_dl_ber_int(sat_cursor *c, uint8_t tag, int64_t *out);
int sat_dl_ber_str(sat_cursor *c, uint8_t tag, sat_str *out);
int sat_dl_frame_len(const uint8_t *p, size_t n, uint64_t *total);
int sat_dl_plausible(const uint8_t *p, size_t n, int dir, int *op_tag, int64_t *msgid);

/* ---- dis_ldap_filter.c: the scratch buffer, RFC 4515 filters ------------------- */
int sat_dl_sb_put(ldap_st *s, const void *p, size_t n);
int sat_dl_sb_value(ldap_st *s, const uint8_t *p, size_t n);
int sat_dl_render_filter(ldap_st *s, sat_cursor *c, int depth);

/* ---- dis_ldap_op.c: requests and responses made into records ------------------- */
lpend *sat_dl_pend_get(ldap_st *s, int32_t id);
void sat_dl_rec_init(ldap_st *s, sat_ldap_record *r, int kind, sat_ts_ns ts, int64_t msgid);
int sat_dl_handle_msg(ldap_st *s, int dir, sat_ts_ns ts, const uint8_t *m, size_t n);

/* ---- small helpers -------------------------------------------------------------- */
static inline int ber_peek(const sat_cursor *c) { return sat_cursor_left(c) ? c->p[c->pos] : -1; }

static inline int str_is(sat_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.ptr && s.len == n && memcmp(s.ptr, lit, n) == 0;
}

static inline int sb_c(ldap_st *s, char c) { return sat_dl_sb_put(s, &c, 1); }
static inline int sb_lit(ldap_st *s, const char *lit) { return sat_dl_sb_put(s, lit, strlen(lit)); }

static inline sat_str sb_view(const ldap_st *s, size_t from)
{
    return sat_str_make(s->sb + from, s->slen - from);
}

static inline int emit(ldap_st *s, const sat_ldap_record *r)
{
    return s->ctx.join ? sat_ldap_join_record(s->ctx.join, r) : SAT_OK;
}

#endif
