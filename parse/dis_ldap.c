/*
 * dis_ldap.c - LDAPv3 decoded from the wire: a stream dissector (wire.h) that
 * reads one TCP connection's bytes per direction, frames LDAPMessages (BER,
 * X.690 definite lengths, RFC 4511 section 5.1) and turns requests and
 * responses into sat_ldap_record rows for the joiner (parse.h), so a capture
 * yields the same ldap_op / ldap_conn rows as a server's access log:
 *
 *   conn = the flow number, op = the messageID, ts = the segment's time;
 *   a RESULT record carries etime = response time - request time (the wire
 *   latency seen where the capture was taken: the joiner computes nothing).
 *
 * Specs: RFC 4511 (protocol, BER subset of 5.1: definite lengths only, no
 * constructed strings), RFC 4515 (string filters: how a SearchRequest's filter
 * is rendered), RFC 4513/4511 4.14 (StartTLS), RFC 2696 (paged results),
 * draft-ietf-ldapext-psearch (persistent search), X.690 (BER).
 *
 * Framing: messages split across data() calls are gathered in a per-direction
 * buffer (bounded: LDAP_MAX_MSG); complete messages in a call are decoded in
 * place without a copy. A message larger than the bound is skipped by its
 * length (a SearchResultEntry still counts). A gap (lost bytes) inside a known
 * message keeps the framing (the rest of that message is skipped); a gap at
 * an unknown place makes the direction look for the next plausible message.
 * A message's ts is that of the segment that completed it (the server acts
 * on a request, the client on a response, once all of it is there). After a
 * successful StartTLS response data() returns SAT_STREAM_UPGRADE_TLS and
 * reads nothing more: bytes after the response in the same call are TLS.
 * Bytes that are not BER LDAP make the dissector give up on that direction
 * quietly: no row is made from them (wire.h: malformed bytes are the
 * dissector's business); the other direction goes on.
 */
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

static int is_request_tag(int t)
{
    switch (t) {
    case T_BIND_REQ: case T_UNBIND: case T_SEARCH_REQ: case T_MOD_REQ: case T_ADD_REQ:
    case T_DEL_REQ: case T_MODDN_REQ: case T_CMP_REQ: case T_ABANDON: case T_EXT_REQ:
        return 1;
    default:
        return 0;
    }
}

static int is_response_tag(int t)
{
    switch (t) {
    case T_BIND_RESP: case T_ENTRY: case T_SEARCH_DONE: case T_REF: case T_MOD_RESP:
    case T_ADD_RESP: case T_DEL_RESP: case T_MODDN_RESP: case T_CMP_RESP: case T_EXT_RESP:
    case T_INTERMEDIATE:
        return 1;
    default:
        return 0;
    }
}

/* ---- BER over sat_cursor -------------------------------------------------------- */

/* One tag-length header; *val is a cursor over the contents, which lie
 * entirely within c (checked), and c moves past them. Returns 0 or -1
 * (truncated, indefinite or over-long length, multi-byte tag: not LDAP). */
static int ber_tl(sat_cursor *c, uint8_t *tag, sat_cursor *val)
{
    uint8_t t = sat_cursor_u8(c);
    uint8_t l = sat_cursor_u8(c);
    if (c->err || (t & 0x1f) == 0x1f)
        return -1;
    size_t n = l;
    if (l & 0x80) {
        unsigned k = l & 0x7f;
        if (k == 0 || k > LDAP_MAX_BER_LEN_OCTETS)
            return -1;
        n = 0;
        while (k--)
            n = n << 8 | sat_cursor_u8(c);
        if (c->err)
            return -1;
    }
    if (n > sat_cursor_left(c))
        return -1;
    *val = sat_cursor_make(c->p + c->pos, n);
    c->pos += n;
    *tag = t;
    return 0;
}

static int ber_get(sat_cursor *c, uint8_t want, sat_cursor *val)
{
    uint8_t t;
    return ber_tl(c, &t, val) < 0 || t != want ? -1 : 0;
}

static int ber_peek(const sat_cursor *c) { return sat_cursor_left(c) ? c->p[c->pos] : -1; }

/* Two's complement INTEGER / ENUMERATED contents of 1..8 bytes. */
static int ber_intval(const sat_cursor *v, int64_t *out)
{
    if (v->len < 1 || v->len > 8)
        return -1;
    uint64_t x = (v->p[0] & 0x80) ? UINT64_MAX : 0;
    for (size_t i = 0; i < v->len; i++)
        x = x << 8 | v->p[i];
    *out = (int64_t)x;
    return 0;
}

static int ber_int(sat_cursor *c, uint8_t tag, int64_t *out)
{
    sat_cursor v;
    return ber_get(c, tag, &v) < 0 ? -1 : ber_intval(&v, out);
}

static int ber_str(sat_cursor *c, uint8_t tag, sat_str *out)
{
    sat_cursor v;
    if (ber_get(c, tag, &v) < 0)
        return -1;
    *out = sat_str_make((const char *)v.p, v.len);
    return 0;
}

static int str_is(sat_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.ptr && s.len == n && memcmp(s.ptr, lit, n) == 0;
}

/* Frame of the message at p: 1 with *total (header + contents), 0 when the
 * header is not complete yet, -1 when p does not start an LDAPMessage. */
static int frame_len(const uint8_t *p, size_t n, uint64_t *total)
{
    if (n < 1)
        return 0;
    if (p[0] != 0x30)
        return -1;
    if (n < 2)
        return 0;
    uint8_t l = p[1];
    if (l < 0x80) {
        *total = 2u + l;
        return 1;
    }
    unsigned k = l & 0x7f;
    if (k == 0 || k > LDAP_MAX_BER_LEN_OCTETS)
        return -1;
    if (n < 2u + k)
        return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < k; i++)
        v = v << 8 | p[2 + i];
    *total = 2u + k + v;
    return 1;
}

/* Whether p starts a plausible LDAPMessage of direction dir: SEQUENCE, a
 * messageID INTEGER (0..2^31-1, non-zero from a client), a protocolOp tag of
 * that direction whose length fits. 1 yes (all of it checked), -1 plausible
 * so far but n is too short to tell, 0 no. *op_tag gets the op tag. */
static int plausible(const uint8_t *p, size_t n, int dir, int *op_tag, int64_t *msgid)
{
    uint64_t total;
    int fr = frame_len(p, n, &total);
    if (fr <= 0)
        return fr < 0 ? 0 : -1;
    if (total < 7 || total > (uint64_t)LDAP_MAX_MSG * 4096)
        return 0;
    size_t hdr = p[1] < 0x80 ? 2 : 2u + (p[1] & 0x7f);
    size_t have = n < total ? n : (size_t)total;
    sat_cursor c = sat_cursor_make(p + hdr, have - hdr);
    sat_cursor v;
    int64_t id;
    if (sat_cursor_left(&c) && c.p[c.pos] != 0x02)
        return 0;
    if (ber_get(&c, 0x02, &v) < 0)
        return n < total ? -1 : 0;
    if (v.len > 4 || ber_intval(&v, &id) < 0 || id < 0 || id > INT32_MAX)
        return 0;
    if (dir == SAT_DIR_C2S && id == 0)
        return 0;
    int t = ber_peek(&c);
    if (t < 0)
        return -1;
    if (!(dir == SAT_DIR_C2S ? is_request_tag(t) : is_response_tag(t)))
        return 0;
    if (op_tag)
        *op_tag = t;
    if (msgid)
        *msgid = id;
    if (n < total)
        return -1;
    uint8_t tag;
    if (ber_tl(&c, &tag, &v) < 0)
        return 0;
    if (sat_cursor_left(&c) && (ber_get(&c, 0xa0, &v) < 0 || sat_cursor_left(&c)))
        return 0;
    return 1;
}

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

/* ---- pending requests -------------------------------------------------------------- */
static size_t ph(int32_t id, size_t cap) { return (size_t)sat_hash_u64((uint64_t)(uint32_t)id) & (cap - 1); }

static lpend *pend_find(ldap_st *s, int32_t id)
{
    if (!s->pcap)
        return NULL;
    for (size_t i = ph(id, s->pcap);; i = (i + 1) & (s->pcap - 1)) {
        if (!s->pt[i].used)
            return NULL;
        if (s->pt[i].id == id)
            return &s->pt[i];
    }
}

static int pend_grow(ldap_st *s)
{
    size_t ncap = s->pcap ? s->pcap * 2 : 16;
    lpend *nt = (lpend *)calloc(ncap, sizeof *nt);
    if (!nt)
        return SAT_E_NOMEM;
    for (size_t k = 0; k < s->pcap; k++) {
        if (!s->pt[k].used)
            continue;
        size_t i = ph(s->pt[k].id, ncap);
        while (nt[i].used)
            i = (i + 1) & (ncap - 1);
        nt[i] = s->pt[k];
    }
    free(s->pt);
    s->pt = nt;
    s->pcap = ncap;
    return SAT_OK;
}

/* The entry for id, created (reset) if absent; NULL when the table is at its
 * bound (that request just goes untimed) or out of memory. */
static lpend *pend_get(ldap_st *s, int32_t id)
{
    lpend *e = pend_find(s, id);
    if (e)
        return e;
    if (s->pcount >= LDAP_MAX_PENDING)
        return NULL;
    if ((s->pcount + 1) * 2 > s->pcap && pend_grow(s) < 0)
        return NULL;
    size_t i = ph(id, s->pcap);
    while (s->pt[i].used)
        i = (i + 1) & (s->pcap - 1);
    e = &s->pt[i];
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->id = id;
    s->pcount++;
    return e;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void pend_del(ldap_st *s, lpend *e)
{
    size_t i = (size_t)(e - s->pt), mask = s->pcap - 1;
    s->pt[i].used = 0;
    s->pcount--;
    for (size_t j = (i + 1) & mask; s->pt[j].used; j = (j + 1) & mask) {
        size_t home = ph(s->pt[j].id, s->pcap);
        /* move j into the hole at i unless its home lies in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->pt[i] = s->pt[j];
            s->pt[j].used = 0;
            i = j;
        }
    }
}

/* ---- scratch buffer (rendered strings of one record) ---------------------------- */
static int sb_put(ldap_st *s, const void *p, size_t n)
{
    if (s->scap - s->slen < n) {
        size_t ncap = s->scap ? s->scap : 256;
        while (ncap - s->slen < n)
            ncap *= 2;
        char *nb = (char *)realloc(s->sb, ncap);
        if (!nb)
            return -1;
        s->sb = nb;
        s->scap = ncap;
    }
    if (n)
        memcpy(s->sb + s->slen, p, n);
    s->slen += n;
    return 0;
}
static int sb_c(ldap_st *s, char c) { return sb_put(s, &c, 1); }
static int sb_lit(ldap_st *s, const char *lit) { return sb_put(s, lit, strlen(lit)); }

/* An assertion value as RFC 4515 3 writes it: '*', '(', ')', '\' and NUL
 * escaped as \XX; control bytes too, so the string stays one printable line. */
static int sb_value(ldap_st *s, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = p[i];
        if (b == '*' || b == '(' || b == ')' || b == '\\' || b < 0x20 || b == 0x7f) {
            char e[3] = {'\\', hex[b >> 4], hex[b & 15]};
            if (sb_put(s, p + run, i - run) < 0 || sb_put(s, e, 3) < 0)
                return -1;
            run = i + 1;
        }
    }
    return sb_put(s, p + run, n - run);
}

static sat_str sb_view(const ldap_st *s, size_t from)
{
    return sat_str_make(s->sb + from, s->slen - from);
}

/* ---- filters (RFC 4511 4.5.1 -> RFC 4515 string) ----------------------------------- */
/* Returns 0, -1 malformed, -2 out of memory. */
static int render_filter(ldap_st *s, sat_cursor *c, int depth)
{
    uint8_t tag;
    sat_cursor v, x;
    sat_str a, b;
    if (depth > LDAP_FILTER_DEPTH || ber_tl(c, &tag, &v) < 0)
        return -1;
    if (sb_c(s, '(') < 0)
        return -2;
    int rc = 0;
    switch (tag) {
    case 0xa0: /* and */
    case 0xa1: /* or: an empty set is RFC 4526's absolute true / false */
        if (sb_c(s, tag == 0xa0 ? '&' : '|') < 0)
            return -2;
        while (rc == 0 && sat_cursor_left(&v))
            rc = render_filter(s, &v, depth + 1);
        break;
    case 0xa2: /* not */
        if (sb_c(s, '!') < 0)
            return -2;
        rc = render_filter(s, &v, depth + 1);
        if (rc == 0 && sat_cursor_left(&v))
            rc = -1;
        break;
    case 0xa3: case 0xa5: case 0xa6: case 0xa8: { /* attribute value assertions */
        static const char *const ops[] = {"=", "", ">=", "<=", "", "~="};
        if (ber_str(&v, 0x04, &a) < 0 || ber_str(&v, 0x04, &b) < 0 || sat_cursor_left(&v))
            return -1;
        if (sb_value(s, (const uint8_t *)a.ptr, a.len) < 0 || sb_lit(s, ops[tag - 0xa3]) < 0 ||
            sb_value(s, (const uint8_t *)b.ptr, b.len) < 0)
            return -2;
        break;
    }
    case 0xa4: { /* substrings: initial? any* final? ; at least one */
        if (ber_str(&v, 0x04, &a) < 0 || ber_get(&v, 0x30, &x) < 0 || sat_cursor_left(&v) ||
            !sat_cursor_left(&x))
            return -1;
        if (sb_value(s, (const uint8_t *)a.ptr, a.len) < 0 || sb_c(s, '=') < 0)
            return -2;
        int first = 1, ended = 0;
        while (sat_cursor_left(&x)) {
            uint8_t st;
            sat_cursor sv;
            if (ended || ber_tl(&x, &st, &sv) < 0 || st < 0x80 || st > 0x82 ||
                (st == 0x80 && !first))
                return -1;
            if (st != 0x80 && first && sb_c(s, '*') < 0)
                return -2;
            if (sb_value(s, sv.p, sv.len) < 0 || (st != 0x82 && sb_c(s, '*') < 0))
                return -2;
            ended = st == 0x82;
            first = 0;
        }
        break;
    }
    case 0x87: /* present: the contents are the attribute description */
        if (sb_value(s, v.p, v.len) < 0 || sb_lit(s, "=*") < 0)
            return -2;
        break;
    case 0xa9: { /* extensible: [1] rule? [2] type? [3] value [4] dnAttributes? */
        sat_str rule = SAT_STR_NONE, type = SAT_STR_NONE, val = SAT_STR_NONE;
        int dnattrs = 0;
        if (ber_peek(&v) == 0x81 && ber_str(&v, 0x81, &rule) < 0)
            return -1;
        if (ber_peek(&v) == 0x82 && ber_str(&v, 0x82, &type) < 0)
            return -1;
        if (ber_str(&v, 0x83, &val) < 0)
            return -1;
        if (ber_peek(&v) == 0x84) {
            if (ber_get(&v, 0x84, &x) < 0 || x.len != 1)
                return -1;
            dnattrs = x.p[0] != 0;
        }
        if (sat_cursor_left(&v) || (!rule.ptr && !type.ptr))
            return -1;
        if ((type.ptr && sb_value(s, (const uint8_t *)type.ptr, type.len) < 0) ||
            (dnattrs && sb_lit(s, ":dn") < 0) ||
            (rule.ptr && (sb_c(s, ':') < 0 ||
                          sb_value(s, (const uint8_t *)rule.ptr, rule.len) < 0)) ||
            sb_lit(s, ":=") < 0 || sb_value(s, (const uint8_t *)val.ptr, val.len) < 0)
            return -2;
        break;
    }
    default:
        return -1;
    }
    if (rc)
        return rc;
    return sb_c(s, ')') < 0 ? -2 : 0;
}

/* ---- records ------------------------------------------------------------------------ */
static int emit(ldap_st *s, const sat_ldap_record *r)
{
    return s->ctx.join ? sat_ldap_join_record(s->ctx.join, r) : SAT_OK;
}

static void rec_init(ldap_st *s, sat_ldap_record *r, int kind, sat_ts_ns ts, int64_t msgid)
{
    sat_ldap_record_clear(r);
    r->kind = kind;
    r->ts = ts;
    r->conn = s->conn;
    r->op = msgid;
    r->op_fields.conn = s->conn;
    r->op_fields.op = msgid;
    r->conn_fields.conn = s->conn;
}

/* The connection's open record, before its first message. */
static int open_once(ldap_st *s, sat_ts_ns ts)
{
    if (s->opened)
        return SAT_OK;
    s->opened = 1;
    sat_ldap_record r;
    rec_init(s, &r, SAT_REC_CONNECT, ts, SAT_ABSENT);
    char addr[80];
    int v6 = s->server_ip.ptr && memchr(s->server_ip.ptr, ':', s->server_ip.len);
    int n = snprintf(addr, sizeof addr, v6 ? "[%.*s]:%u" : "%.*s:%u",
                     (int)(s->server_ip.len < 64 ? s->server_ip.len : 64),
                     s->server_ip.ptr ? s->server_ip.ptr : "", (unsigned)s->server_port);
    r.conn_fields.client_ip = s->client_ip;
    r.conn_fields.client_port = s->client_port;
    r.conn_fields.listener = SAT_LISTENER_LDAP;
    if (n > 0 && s->server_ip.ptr)
        r.conn_fields.server_addr = sat_str_make(addr, (size_t)n < sizeof addr ? (size_t)n : sizeof addr - 1);
    return emit(s, &r);
}

/* Request controls (RFC 4511 4.1.11) that the op flags name. */
static int control_flags(sat_cursor *c)
{
    sat_cursor seq, ctl;
    int flags = 0;
    if (ber_peek(c) != 0xa0 || ber_get(c, 0xa0, &seq) < 0)
        return 0;
    while (sat_cursor_left(&seq)) {
        sat_str oid;
        if (ber_get(&seq, 0x30, &ctl) < 0 || ber_str(&ctl, 0x04, &oid) < 0)
            break;
        if (str_is(oid, OID_PAGED))
            flags |= SAT_OPF_PAGED;
        else if (str_is(oid, OID_PSEARCH))
            flags |= SAT_OPF_PERSISTENT;
        else if (str_is(oid, OID_PROXY))
            flags |= SAT_OPF_PROXIED;
        else if (str_is(oid, OID_SORT))
            flags |= SAT_OPF_SORT;
        else if (str_is(oid, OID_VLV))
            flags |= SAT_OPF_VLV;
    }
    return flags;
}

static const char *ext_name(sat_str oid)
{
    static const struct { const char *oid, *name; } known[] = {
        {OID_STARTTLS, "STARTTLS"},
        {"1.3.6.1.4.1.4203.1.11.3", "WHOAMI"},
        {"1.3.6.1.4.1.4203.1.11.1", "PASSMOD"},
        {"1.3.6.1.1.8", "CANCEL"},
        {"1.3.6.1.1.21.1", "TXN_START"},
        {"1.3.6.1.1.21.3", "TXN_END"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (str_is(oid, known[i].oid))
            return known[i].name;
    return NULL;
}

static int request(ldap_st *s, sat_ts_ns ts, int64_t id, uint8_t tag, sat_cursor *op,
                   sat_cursor *rest)
{
    sat_ldap_record r;
    sat_ldap_op *o = &r.op_fields;
    sat_cursor v;
    int64_t n;
    rec_init(s, &r, SAT_REC_REQUEST, ts, id);
    s->slen = 0;
    int starttls = 0;
    switch (tag) {
    case T_BIND_REQ: {
        uint8_t at;
        o->type = SAT_OP_BIND;
        if (ber_int(op, 0x02, &n) < 0 || ber_str(op, 0x04, &o->dn) < 0 ||
            ber_tl(op, &at, &v) < 0)
            return LDAP_BAD;
        o->flags |= n == 3 ? SAT_OPF_BIND_V3 : n == 2 ? SAT_OPF_BIND_V2 : 0;
        if (at == 0x80) {
            o->method = sat_str_cstr("SIMPLE");
        } else if (at == 0xa3) {
            if (ber_str(&v, 0x04, &o->method) < 0)
                return LDAP_BAD;
        } else {
            o->method = sat_str_cstr("other");
        }
        break;
    }
    case T_SEARCH_REQ: {
        int64_t scope, deref, sz, tl;
        sat_cursor b, attrs;
        o->type = SAT_OP_SRCH;
        if (ber_str(op, 0x04, &o->dn) < 0 || ber_int(op, 0x0a, &scope) < 0 ||
            ber_int(op, 0x0a, &deref) < 0 || ber_int(op, 0x02, &sz) < 0 ||
            ber_int(op, 0x02, &tl) < 0 || ber_get(op, 0x01, &b) < 0)
            return LDAP_BAD;
        o->scope = scope >= 0 && scope <= 2 ? (uint8_t)scope : SAT_SCOPE_NONE;
        int fr = render_filter(s, op, 0);
        if (fr == -2)
            return SAT_E_NOMEM;
        if (fr < 0)
            return LDAP_BAD;
        size_t fend = s->slen;
        if (ber_get(op, 0x30, &attrs) < 0)
            return LDAP_BAD;
        while (sat_cursor_left(&attrs)) {
            sat_str a;
            if (ber_str(&attrs, 0x04, &a) < 0)
                return LDAP_BAD;
            if ((s->slen > fend && sb_c(s, ' ') < 0) ||
                sb_value(s, (const uint8_t *)a.ptr, a.len) < 0)
                return SAT_E_NOMEM;
        }
        o->filter = sat_str_make(s->sb, fend);
        if (s->slen > fend)
            o->attrs = sb_view(s, fend);
        break;
    }
    case T_MOD_REQ:
    case T_ADD_REQ:
    case T_MODDN_REQ:
    case T_CMP_REQ:
        o->type = tag == T_MOD_REQ ? SAT_OP_MOD : tag == T_ADD_REQ ? SAT_OP_ADD
                : tag == T_MODDN_REQ ? SAT_OP_MODRDN : SAT_OP_CMP;
        if (ber_str(op, 0x04, &o->dn) < 0)
            return LDAP_BAD;
        if (tag == T_MODDN_REQ) {
            sat_str rdn, sup = SAT_STR_NONE;
            if (ber_str(op, 0x04, &rdn) < 0 || ber_get(op, 0x01, &v) < 0 ||
                (ber_peek(op) == 0x80 && ber_str(op, 0x80, &sup) < 0))
                return LDAP_BAD;
            if (sb_lit(s, "newrdn=") < 0 || sb_put(s, rdn.ptr, rdn.len) < 0 ||
                (sup.ptr && (sb_lit(s, " newsuperior=") < 0 || sb_put(s, sup.ptr, sup.len) < 0)))
                return SAT_E_NOMEM;
            o->extra = sb_view(s, 0);
        } else if (tag == T_CMP_REQ) {
            if (ber_get(op, 0x30, &v) < 0 || ber_str(&v, 0x04, &o->extra) < 0)
                return LDAP_BAD;
        }
        break;
    case T_DEL_REQ:
        o->type = SAT_OP_DEL;
        o->dn = sat_str_make((const char *)op->p, op->len);
        break;
    case T_ABANDON:
        o->type = SAT_OP_ABANDON;
        if (ber_intval(op, &n) < 0 || n < 0 || n > INT32_MAX)
            return LDAP_BAD;
        o->target_op = n;
        break;
    case T_UNBIND:
        o->type = SAT_OP_UNBIND;
        break;
    case T_EXT_REQ: {
        o->type = SAT_OP_EXT;
        if (ber_str(op, 0x80, &o->method) < 0)
            return LDAP_BAD;
        const char *name = ext_name(o->method);
        if (name)
            o->extra = sat_str_cstr(name);
        starttls = str_is(o->method, OID_STARTTLS);
        break;
    }
    default:
        return LDAP_BAD;
    }
    o->flags |= (uint16_t)control_flags(rest);
    int rc = open_once(s, ts);
    if (rc < 0)
        return rc;
    if (tag != T_ABANDON && tag != T_UNBIND) {
        lpend *e = pend_get(s, (int32_t)id);
        if (e) {
            /* the same id again: the earlier request was never answered */
            e->ts = ts;
            e->nentries = e->nrefs = 0;
            e->starttls = (uint8_t)starttls;
            e->persistent = (o->flags & SAT_OPF_PERSISTENT) != 0;
        }
    }
    return emit(s, &r);
}

static int response(ldap_st *s, sat_ts_ns ts, int64_t id, uint8_t tag, sat_cursor *op)
{
    /* the client's side is unreadable: only answers to requests seen count */
    int known_only = s->dead[SAT_DIR_C2S];
    if (tag == T_ENTRY || tag == T_REF) {
        lpend *e = known_only ? pend_find(s, (int32_t)id) : pend_get(s, (int32_t)id);
        if (e && tag == T_ENTRY)
            e->nentries++;
        else if (e)
            e->nrefs++;
        return open_once(s, ts);
    }
    if (tag == T_INTERMEDIATE)
        return open_once(s, ts);
    int64_t code;
    sat_str matched, diag;
    if (ber_int(op, 0x0a, &code) < 0 || ber_str(op, 0x04, &matched) < 0 ||
        ber_str(op, 0x04, &diag) < 0 || code < 0 || code > INT32_MAX)
        return LDAP_BAD;
    if (id == 0) {
        /* unsolicited notification (RFC 4511 4.4.1: notice of disconnection):
         * not an operation; the close says so */
        s->notice = 1;
        return SAT_OK;
    }
    lpend *e = pend_find(s, (int32_t)id);
    if (known_only && (!e || e->ts == 0))
        return SAT_OK;
    sat_ldap_record r;
    sat_ldap_op *o = &r.op_fields;
    rec_init(s, &r, SAT_REC_RESULT, ts, id);
    s->slen = 0;
    o->err = (int32_t)code;
    o->tag = tag;
    if (diag.len || matched.len) {
        if (sb_put(s, diag.ptr, diag.len) < 0 ||
            (matched.len && (sb_lit(s, diag.len ? " (matched DN: " : "(matched DN: ") < 0 ||
                             sb_put(s, matched.ptr, matched.len) < 0 || sb_c(s, ')') < 0)))
            return SAT_E_NOMEM;
        o->text = sb_view(s, 0);
    }
    int upgrade = 0;
    if (tag == T_SEARCH_DONE)
        o->nentries = e ? e->nentries : 0;
    if (e) {
        if (e->ts > 0 && ts >= e->ts)
            o->etime = ts - e->ts;
        o->referral_lines = e->nrefs;
        upgrade = e->starttls && tag == T_EXT_RESP && code == 0;
        pend_del(s, e);
    }
    int rc = open_once(s, ts);
    if (rc < 0)
        return rc;
    rc = emit(s, &r);
    if (rc < 0)
        return rc;
    if (upgrade) {
        s->upgraded = 1;
        return SAT_STREAM_UPGRADE_TLS;
    }
    return SAT_OK;
}

/* One complete message m[0..n). SAT_OK, SAT_STREAM_UPGRADE_TLS, LDAP_BAD or
 * a negative status. */
static int handle_msg(ldap_st *s, int dir, sat_ts_ns ts, const uint8_t *m, size_t n)
{
    sat_cursor c = sat_cursor_make(m, n), body, op;
    int64_t id;
    uint8_t tag;
    if (ber_get(&c, 0x30, &body) < 0 || sat_cursor_left(&c) ||
        ber_int(&body, 0x02, &id) < 0 || id < 0 || id > INT32_MAX ||
        ber_tl(&body, &tag, &op) < 0)
        return LDAP_BAD;
    if (dir == SAT_DIR_C2S)
        return is_request_tag(tag) && id > 0 ? request(s, ts, id, tag, &op, &body) : LDAP_BAD;
    return is_response_tag(tag) ? response(s, ts, id, tag, &op) : LDAP_BAD;
}

/* A SearchResultEntry skipped for its size still counts: its messageID and
 * tag are in the first bytes. */
static void count_skipped_entry(ldap_st *s, int dir, const uint8_t *p, size_t n)
{
    int t = 0;
    int64_t id = 0;
    if (dir == SAT_DIR_S2C && plausible(p, n, dir, &t, &id) != 0 && t == T_ENTRY) {
        lpend *e = pend_get(s, (int32_t)id);
        if (e)
            e->nentries++;
    }
}

/* Not LDAP (any more) in direction dir: nothing more is read from it. The
 * other direction goes on, but once the client's side is gone, responses
 * count only for requests seen before (no row from an id nobody saw asked). */
static void give_up(ldap_st *s, int dir)
{
    s->dead[dir] = 1;
    s->d[dir].len = 0;
    s->d[dir].skip = 0;
    s->d[dir].resync = 0;
}

static int buf_append(ldir *d, const uint8_t *p, size_t n)
{
    if (d->cap - d->len < n) {
        size_t ncap = d->cap ? d->cap : 4096;
        while (ncap - d->len < n)
            ncap *= 2;
        uint8_t *nb = (uint8_t *)realloc(d->buf, ncap);
        if (!nb)
            return SAT_E_NOMEM;
        d->buf = nb;
        d->cap = ncap;
    }
    memcpy(d->buf + d->len, p, n);
    d->len += n;
    return SAT_OK;
}

/* After a gap: the first plausible message start in p (its offset), or n
 * when there is none. A candidate cut by the end of p counts when its
 * messageID and op tag are visible (the framing then checks the rest, and a
 * wrong guess makes the flow give up); one cut shorter than that is dropped
 * with the bytes before it, which loses at most that message. */
static size_t resync_scan(const uint8_t *p, size_t n, int dir)
{
    const uint8_t *q = p, *end = p + n;
    while (q < end && (q = (const uint8_t *)memchr(q, 0x30, (size_t)(end - q))) != NULL) {
        int t = 0;
        int v = plausible(q, (size_t)(end - q), dir, &t, NULL);
        if (v == 1 || (v < 0 && t != 0))
            return (size_t)(q - p);
        q++;
    }
    return n;
}

static int dispatch(ldap_st *s, int dir, int rc)
{
    if (rc == LDAP_BAD) {
        give_up(s, dir);
        return SAT_OK;
    }
    return rc;
}

static int ldap_data(void *st, int dir, sat_ts_ns ts, const uint8_t *p, size_t n)
{
    ldap_st *s = (ldap_st *)st;
    if (!s || (dir != SAT_DIR_C2S && dir != SAT_DIR_S2C) || (!p && n))
        return SAT_OK;
    ldir *d = &s->d[dir];
    while (n > 0 && !s->dead[dir] && !s->upgraded) {
        int rc;
        uint64_t total;
        if (d->skip) {
            size_t k = d->skip < n ? (size_t)d->skip : n;
            d->skip -= k;
            p += k;
            n -= k;
            continue;
        }
        if (d->resync) {
            size_t k = resync_scan(p, n, dir);
            p += k;
            n -= k;
            if (n)
                d->resync = 0;
            continue;
        }
        if (d->len) {
            /* complete the message being gathered */
            int fr = frame_len(d->buf, d->len, &total);
            if (fr < 0) {
                give_up(s, dir);
                break;
            }
            if (fr == 1 && total > LDAP_MAX_MSG) {
                count_skipped_entry(s, dir, d->buf, d->len);
                d->skip = total - d->len;
                d->len = 0;
                continue;
            }
            size_t want = fr == 0 ? (d->len < 2 ? 1 : 2u + (d->buf[1] & 0x7f) - d->len)
                                  : (size_t)total - d->len;
            size_t k = want < n ? want : n;
            if ((rc = buf_append(d, p, k)) < 0)
                return rc;
            p += k;
            n -= k;
            if (fr == 1 && d->len == total) {
                d->len = 0;
                rc = dispatch(s, dir, handle_msg(s, dir, ts, d->buf, (size_t)total));
                if (rc != SAT_OK)
                    return rc;
            }
            continue;
        }
        int fr = frame_len(p, n, &total);
        if (fr < 0) {
            give_up(s, dir);
            break;
        }
        if (fr == 1 && total > LDAP_MAX_MSG) {
            count_skipped_entry(s, dir, p, n);
            d->skip = total;
            continue;
        }
        if (fr == 1 && total <= n) {
            rc = dispatch(s, dir, handle_msg(s, dir, ts, p, (size_t)total));
            if (rc != SAT_OK)
                return rc;
            p += total;
            n -= (size_t)total;
            continue;
        }
        if ((rc = buf_append(d, p, n)) < 0)
            return rc;
        n = 0;
    }
    return SAT_OK;
}

static int ldap_gap(void *st, int dir, sat_ts_ns ts, size_t n)
{
    ldap_st *s = (ldap_st *)st;
    (void)ts;
    if (!s || (dir != SAT_DIR_C2S && dir != SAT_DIR_S2C) || !n || s->dead[dir] || s->upgraded)
        return SAT_OK;
    ldir *d = &s->d[dir];
    if (d->skip) {
        if (n <= d->skip) {
            d->skip -= n;
            return SAT_OK;
        }
        n -= (size_t)d->skip;
        d->skip = 0;
    } else if (d->len) {
        uint64_t total;
        int fr = frame_len(d->buf, d->len, &total);
        size_t have = d->len;
        d->len = 0;
        if (fr == 1) {
            /* the message is lost, its end still known: stay in step */
            uint64_t rem = total - have;
            if (n <= rem) {
                d->skip = rem - n;
                return SAT_OK;
            }
            n -= (size_t)rem;
        }
    }
    if (n)
        d->resync = 1;
    return SAT_OK;
}

static const char *close_reason(int how)
{
    switch (how) {
    case SAT_TCP_END_FIN_CLIENT: return "client closed (FIN)";
    case SAT_TCP_END_FIN_SERVER: return "server closed (FIN)";
    case SAT_TCP_END_RST_CLIENT: return "client reset (RST)";
    case SAT_TCP_END_RST_SERVER: return "server reset (RST)";
    case SAT_TCP_END_IDLE: return "idle in the capture (expired)";
    case SAT_TCP_END_EVICTED: return "evicted from the flow table";
    default: return NULL;
    }
}

/* A connection still open when the capture ended gets no close record: the
 * joiner reports it unclosed at its finish, as for a log that ends. */
static int ldap_end(void *st, int how, sat_ts_ns ts)
{
    ldap_st *s = (ldap_st *)st;
    const char *why = close_reason(how);
    if (!s || !s->opened || !why)
        return SAT_OK;
    sat_ldap_record r;
    rec_init(s, &r, SAT_REC_CLOSE, ts, SAT_ABSENT);
    r.conn_fields.close_code = SAT_CLOSE_OTHER;
    char buf[96];
    if (s->notice) {
        int k = snprintf(buf, sizeof buf, "%s after notice of disconnection", why);
        r.conn_fields.close_reason = sat_str_make(buf, k > 0 && (size_t)k < sizeof buf ? (size_t)k : 0);
    } else {
        r.conn_fields.close_reason = sat_str_cstr(why);
    }
    s->opened = 0; /* one close per connection */
    return emit(s, &r);
}

/* The client is leaving: does it leave a request unanswered? A persistent
 * search is never answered (its clients end it by closing); abandon and unbind
 * expect no answer and are never pending. Unknown once the client's bytes
 * could not be read. */
static int ldap_awaiting(void *st)
{
    const ldap_st *s = (const ldap_st *)st;
    if (!s || s->dead[SAT_DIR_C2S] || s->upgraded)
        return -1;
    for (size_t i = 0; i < s->pcap; i++)
        if (s->pt[i].used && s->pt[i].ts > 0 && !s->pt[i].persistent)
            return 1;
    return 0;
}

static void *ldap_create(const sat_flow_info *flow, const sat_wire_ctx *ctx)
{
    if (!flow || !ctx)
        return NULL;
    ldap_st *s = (ldap_st *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = *ctx;
    s->conn = flow->flow;
    s->client_ip = flow->client_ip;
    s->server_ip = flow->server_ip;
    s->client_port = flow->client_port;
    s->server_port = flow->server_port;
    return s;
}

static void ldap_destroy(void *st)
{
    ldap_st *s = (ldap_st *)st;
    if (!s)
        return;
    free(s->d[0].buf);
    free(s->d[1].buf);
    free(s->pt);
    free(s->sb);
    free(s);
}

/* Content first (a whole, consistent LDAPMessage scores 80, a plausible
 * start 50); LDAP's ports only break ties. */
static int ldap_sniff(const uint8_t *buf, size_t len, int dir, uint16_t server_port)
{
    if (!buf || len == 0 || (dir != SAT_DIR_C2S && dir != SAT_DIR_S2C))
        return 0;
    if (len == 1)
        return buf[0] == 0x30 ? 10 : 0; /* a SEQUENCE may start here: ask for more */
    int v = plausible(buf, len, dir, NULL, NULL);
    if (v == 0)
        return 0;
    int score = v == 1 ? 80 : 50;
    if (dir == SAT_DIR_S2C)
        score -= 20; /* a client speaks first; a server-first view is a guess */
    if (server_port == 389 || server_port == 3268)
        score += 15;
    return score;
}

const sat_stream_dissector sat_dissect_ldap = {
    "ldap", ldap_sniff, ldap_create, ldap_data, ldap_gap, ldap_end, ldap_destroy,
    NULL, ldap_awaiting,
};
