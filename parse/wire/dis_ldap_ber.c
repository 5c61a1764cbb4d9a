/*
 * dis_ldap_ber.c - BER for the LDAP stream dissector (dis_ldap.c): the X.690
 * subset of RFC 4511 section 5.1 (definite lengths, single-byte tags, no
 * constructed strings) read over sat_cursor, the frame of an LDAPMessage, and
 * whether bytes start a plausible one of a direction (RFC 4511 4.2 - 4.14
 * protocolOp tags).
 */
#include "dis_ldap_int.h"

int sat_dl_is_request_tag(int t)
{
    switch (t) {
    case T_BIND_REQ: case T_UNBIND: case T_SEARCH_REQ: case T_MOD_REQ: case T_ADD_REQ:
    case T_DEL_REQ: case T_MODDN_REQ: case T_CMP_REQ: case T_ABANDON: case T_EXT_REQ:
        return 1;
    default:
        return 0;
    }
}

int sat_dl_is_response_tag(int t)
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
int sat_dl_ber_tl(sat_cursor *c, uint8_t *tag, sat_cursor *val)
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

int sat_dl_ber_get(sat_cursor *c, uint8_t want, sat_cursor *val)
{
    uint8_t t;
    return sat_dl_ber_tl(c, &t, val) < 0 || t != want ? -1 : 0;
}

/* Two's complement INTEGER / ENUMERATED contents of 1..8 bytes. */
int sat_dl_ber_intval(const sat_cursor *v, int64_t *out)
{
    if (v->len < 1 || v->len > 8)
        return -1;
    uint64_t x = (v->p[0] & 0x80) ? UINT64_MAX : 0;
    for (size_t i = 0; i < v->len; i++)
        x = x << 8 | v->p[i];
    *out = (int64_t)x;
    return 0;
}

int sat_dl_ber_int(sat_cursor *c, uint8_t tag, int64_t *out)
{
    sat_cursor v;
    return sat_dl_ber_get(c, tag, &v) < 0 ? -1 : sat_dl_ber_intval(&v, out);
}

int sat_dl_ber_str(sat_cursor *c, uint8_t tag, sat_str *out)
{
    sat_cursor v;
    if (sat_dl_ber_get(c, tag, &v) < 0)
        return -1;
    *out = sat_str_make((const char *)v.p, v.len);
    return 0;
}

/* Frame of the message at p: 1 with *total (header + contents), 0 when the
 * header is not complete yet, -1 when p does not start an LDAPMessage. */
int sat_dl_frame_len(const uint8_t *p, size_t n, uint64_t *total)
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
int sat_dl_plausible(const uint8_t *p, size_t n, int dir, int *op_tag, int64_t *msgid)
{
    uint64_t total;
    int fr = sat_dl_frame_len(p, n, &total);
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
    if (sat_dl_ber_get(&c, 0x02, &v) < 0)
        return n < total ? -1 : 0;
    if (v.len > 4 || sat_dl_ber_intval(&v, &id) < 0 || id < 0 || id > INT32_MAX)
        return 0;
    if (dir == SAT_DIR_C2S && id == 0)
        return 0;
    int t = ber_peek(&c);
    if (t < 0)
        return -1;
    if (!(dir == SAT_DIR_C2S ? sat_dl_is_request_tag(t) : sat_dl_is_response_tag(t)))
        return 0;
    if (op_tag)
        *op_tag = t;
    if (msgid)
        *msgid = id;
    if (n < total)
        return -1;
    uint8_t tag;
    if (sat_dl_ber_tl(&c, &tag, &v) < 0)
        return 0;
    if (sat_cursor_left(&c) && (sat_dl_ber_get(&c, 0xa0, &v) < 0 || sat_cursor_left(&c)))
        return 0;
    return 1;
}
