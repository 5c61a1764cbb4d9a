/*
 * dis_ldap_op.c - LDAP operations for the stream dissector (dis_ldap.c): the
 * requests awaiting a response (by messageID, RFC 4511 4.1.1.1), and each
 * request and response (RFC 4511 4.2 - 4.14, controls 4.1.11, notice of
 * disconnection 4.4.1, StartTLS 4.14) made into a sat_ldap_record for the
 * joiner (parse.h).
 */
#include "dis_ldap_int.h"

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
lpend *sat_dl_pend_get(ldap_st *s, int32_t id)
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

/* ---- records ------------------------------------------------------------------------ */

void sat_dl_rec_init(ldap_st *s, sat_ldap_record *r, int kind, sat_ts_ns ts, int64_t msgid)
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
    sat_dl_rec_init(s, &r, SAT_REC_CONNECT, ts, SAT_ABSENT);
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
    if (ber_peek(c) != 0xa0 || sat_dl_ber_get(c, 0xa0, &seq) < 0)
        return 0;
    while (sat_cursor_left(&seq)) {
        sat_str oid;
        if (sat_dl_ber_get(&seq, 0x30, &ctl) < 0 || sat_dl_ber_str(&ctl, 0x04, &oid) < 0)
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
    sat_dl_rec_init(s, &r, SAT_REC_REQUEST, ts, id);
    s->slen = 0;
    int starttls = 0;
    switch (tag) {
    case T_BIND_REQ: {
        uint8_t at;
        o->type = SAT_OP_BIND;
        if (sat_dl_ber_int(op, 0x02, &n) < 0 || sat_dl_ber_str(op, 0x04, &o->dn) < 0 ||
            sat_dl_ber_tl(op, &at, &v) < 0)
            return LDAP_BAD;
        o->flags |= n == 3 ? SAT_OPF_BIND_V3 : n == 2 ? SAT_OPF_BIND_V2 : 0;
        if (at == 0x80) {
            o->method = sat_str_cstr("SIMPLE");
        } else if (at == 0xa3) {
            if (sat_dl_ber_str(&v, 0x04, &o->method) < 0)
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
        if (sat_dl_ber_str(op, 0x04, &o->dn) < 0 || sat_dl_ber_int(op, 0x0a, &scope) < 0 ||
            sat_dl_ber_int(op, 0x0a, &deref) < 0 || sat_dl_ber_int(op, 0x02, &sz) < 0 ||
            sat_dl_ber_int(op, 0x02, &tl) < 0 || sat_dl_ber_get(op, 0x01, &b) < 0)
            return LDAP_BAD;
        o->scope = scope >= 0 && scope <= 2 ? (uint8_t)scope : SAT_SCOPE_NONE;
        int fr = sat_dl_render_filter(s, op, 0);
        if (fr == -2)
            return SAT_E_NOMEM;
        if (fr < 0)
            return LDAP_BAD;
        size_t fend = s->slen;
        if (sat_dl_ber_get(op, 0x30, &attrs) < 0)
            return LDAP_BAD;
        while (sat_cursor_left(&attrs)) {
            sat_str a;
            if (sat_dl_ber_str(&attrs, 0x04, &a) < 0)
                return LDAP_BAD;
            if ((s->slen > fend && sb_c(s, ' ') < 0) ||
                sat_dl_sb_value(s, (const uint8_t *)a.ptr, a.len) < 0)
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
        if (sat_dl_ber_str(op, 0x04, &o->dn) < 0)
            return LDAP_BAD;
        if (tag == T_MODDN_REQ) {
            sat_str rdn, sup = SAT_STR_NONE;
            if (sat_dl_ber_str(op, 0x04, &rdn) < 0 || sat_dl_ber_get(op, 0x01, &v) < 0 ||
                (ber_peek(op) == 0x80 && sat_dl_ber_str(op, 0x80, &sup) < 0))
                return LDAP_BAD;
            if (sb_lit(s, "newrdn=") < 0 || sat_dl_sb_put(s, rdn.ptr, rdn.len) < 0 ||
                (sup.ptr && (sb_lit(s, " newsuperior=") < 0 ||
                             sat_dl_sb_put(s, sup.ptr, sup.len) < 0)))
                return SAT_E_NOMEM;
            o->extra = sb_view(s, 0);
        } else if (tag == T_CMP_REQ) {
            if (sat_dl_ber_get(op, 0x30, &v) < 0 || sat_dl_ber_str(&v, 0x04, &o->extra) < 0)
                return LDAP_BAD;
        }
        break;
    case T_DEL_REQ:
        o->type = SAT_OP_DEL;
        o->dn = sat_str_make((const char *)op->p, op->len);
        break;
    case T_ABANDON:
        o->type = SAT_OP_ABANDON;
        if (sat_dl_ber_intval(op, &n) < 0 || n < 0 || n > INT32_MAX)
            return LDAP_BAD;
        o->target_op = n;
        break;
    case T_UNBIND:
        o->type = SAT_OP_UNBIND;
        break;
    case T_EXT_REQ: {
        o->type = SAT_OP_EXT;
        if (sat_dl_ber_str(op, 0x80, &o->method) < 0)
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
        lpend *e = sat_dl_pend_get(s, (int32_t)id);
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
        lpend *e = known_only ? pend_find(s, (int32_t)id) : sat_dl_pend_get(s, (int32_t)id);
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
    if (sat_dl_ber_int(op, 0x0a, &code) < 0 || sat_dl_ber_str(op, 0x04, &matched) < 0 ||
        sat_dl_ber_str(op, 0x04, &diag) < 0 || code < 0 || code > INT32_MAX)
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
    sat_dl_rec_init(s, &r, SAT_REC_RESULT, ts, id);
    s->slen = 0;
    o->err = (int32_t)code;
    o->tag = tag;
    if (diag.len || matched.len) {
        if (sat_dl_sb_put(s, diag.ptr, diag.len) < 0 ||
            (matched.len && (sb_lit(s, diag.len ? " (matched DN: " : "(matched DN: ") < 0 ||
                             sat_dl_sb_put(s, matched.ptr, matched.len) < 0 || sb_c(s, ')') < 0)))
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
int sat_dl_handle_msg(ldap_st *s, int dir, sat_ts_ns ts, const uint8_t *m, size_t n)
{
    sat_cursor c = sat_cursor_make(m, n), body, op;
    int64_t id;
    uint8_t tag;
    if (sat_dl_ber_get(&c, 0x30, &body) < 0 || sat_cursor_left(&c) ||
        sat_dl_ber_int(&body, 0x02, &id) < 0 || id < 0 || id > INT32_MAX ||
        sat_dl_ber_tl(&body, &tag, &op) < 0)
        return LDAP_BAD;
    if (dir == SAT_DIR_C2S)
        return sat_dl_is_request_tag(tag) && id > 0 ? request(s, ts, id, tag, &op, &body)
                                                    : LDAP_BAD;
    return sat_dl_is_response_tag(tag) ? response(s, ts, id, tag, &op) : LDAP_BAD;
}

/* A SearchResultEntry skipped for its size still counts: its messageID and
 * tag are in the first bytes. */
