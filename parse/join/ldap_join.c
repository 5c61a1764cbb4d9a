/*
 * ldap_join.c - the stateful half of LDAP log decoding, shared by every log
 * format (389 text, 389 JSON, OpenLDAP stats): pairs each request with its
 * RESULT however far apart they are logged, carries the connection's client,
 * listener and bind DN onto each operation, keeps server restarts apart
 * (connection numbers start again) and emits sat_ldap_op / sat_ldap_conn rows.
 * The semantics are those written in include/satscope/parse.h. This file
 * holds the joiner's life cycle and each record's handling; the tables,
 * emission and connection order have files of their own (ldap_join_int.h
 * lists them).
 *
 * Memory: connections and pending requests live in two slabs (arrays reused
 * through free lists) indexed by chained hash tables. Their strings are owned
 * growable buffers that stay with the slab slot when it is recycled, so in a
 * steady state nothing is malloc'd per line or per field.
 *
 * Op rows take the connection's bind DN and client at emit time (for a BIND,
 * after the bind DN it sets): the joiner copies no connection strings into
 * pending requests, and concurrent binds on one connection are rare.
 *
 * Concurrency: the joiner sees opens and closes in log order anyway, so it
 * keeps the two running counts that ldap_conn.concurrent / preopen_closed
 * carry (event.h): an analyzer then has the exact peak from the rows without
 * sorting every connection's open and close times (which grows with the
 * number of connections, i.e. with the span of the input). Log order is also
 * the finest order there is: two lines with the same timestamp (whole seconds
 * in older logs) keep the order the server wrote them in.
 */
#include "ldap_join_int.h"

#define STARTTLS_OID "1.3.6.1.4.1.1466.20037"

sat_ldap_join *sat_ldap_join_create(uint32_t server, const sat_event_sink *sink,
                                    size_t max_pending)
{
    sat_ldap_join *j = (sat_ldap_join *)calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->server = server;
    j->sink = sink;
    j->max_pending = max_pending ? max_pending : SAT_JOIN_MAX_PENDING_DEFAULT;
    j->max_conns = SAT_JOIN_MAX_OPEN_DEFAULT;
    j->ohead = j->otail = NIL;
    j->max_conn_opened = -1;
    j->pfree = j->cfree = NIL;
    j->fhead = j->ftail = NIL;
    j->zhead = j->ztail = NIL;
    j->ahead = j->atail = NIL;
    j->pnb = 1024;
    j->cnb = 1024;
    j->pbucket = (int32_t *)malloc(j->pnb * sizeof(int32_t));
    j->cbucket = (int32_t *)malloc(j->cnb * sizeof(int32_t));
    if (!j->pbucket || !j->cbucket) {
        sat_ldap_join_free(j);
        return NULL;
    }
    for (size_t i = 0; i < j->pnb; i++)
        j->pbucket[i] = NIL;
    for (size_t i = 0; i < j->cnb; i++)
        j->cbucket[i] = NIL;
    return j;
}

void sat_ldap_join_free(sat_ldap_join *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->pcap; i++)
        for (int k = 0; k < PS__COUNT; k++)
            jstr_free(&j->pv[i].s[k]);
    for (size_t i = 0; i < j->ccap; i++)
        for (int k = 0; k < CS__COUNT; k++)
            jstr_free(&j->cv[i].s[k]);
    free(j->pv);
    free(j->cv);
    free(j->pbucket);
    free(j->cbucket);
    free(j->stack);
    free(j->shape);
    free(j->holes);
    free(j);
}

void sat_ldap_join_set_filter_shapes(sat_ldap_join *j, int on)
{
    if (j)
        j->no_shapes = !on;
}

void sat_ldap_join_set_max_open(sat_ldap_join *j, size_t max_open)
{
    if (j)
        j->max_conns = max_open ? max_open : SAT_JOIN_MAX_OPEN_DEFAULT;
}

void sat_ldap_join_set_restart_detection(sat_ldap_join *j, int on)
{
    if (j)
        j->no_restarts = !on;
}

void sat_ldap_join_stats(const sat_ldap_join *j, sat_join_stats *out)
{
    if (out)
        *out = j ? j->st : (sat_join_stats){0};
}

/* ---- record handling -------------------------------------------------------------- */
static void row_from_record(sat_ldap_join *j, sat_ldap_op *row, const sat_ldap_record *rec)
{
    *row = rec->op_fields;
    row->ts_ns = rec->ts;
    row->result_ts_ns = 0;
    row->server = j->server;
    row->conn_epoch = j->epoch;
    row->conn = rec->conn;
    row->op = rec->op;
    row->internal_op = rec->internal_op;
    row->internal_depth = rec->internal_depth;
    row->filter_shape = SAT_STR_NONE;
    row->bind_dn = SAT_STR_NONE;
    row->client_ip = SAT_STR_NONE;
}

static int type_from_tag(int32_t tag)
{
    switch (tag) {
    case 97: return SAT_OP_BIND;
    case 101: return SAT_OP_SRCH;
    case 103: return SAT_OP_MOD;
    case 105: return SAT_OP_ADD;
    case 107: return SAT_OP_DEL;
    case 109: return SAT_OP_MODRDN;
    case 111: return SAT_OP_CMP;
    case 120: return SAT_OP_EXT;
    default: return SAT_OP_UNKNOWN;
    }
}

/* The connection a record's op belongs to: external ops create it lazily,
 * internal ops only borrow their parent's if it is known. */
static int32_t op_conn(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (rec->internal)
        return rec->conn > 0 ? sat_lj_conn_find(j, rec->conn) : NIL;
    return sat_lj_conn_get(j, rec->conn, 1);
}

static int set_pend_strings(pend *p, const sat_ldap_op *f)
{
    int rc = 0;
    rc |= jstr_merge(&p->s[PS_DN], f->dn);
    rc |= jstr_merge(&p->s[PS_FILTER], f->filter);
    rc |= jstr_merge(&p->s[PS_ATTRS], f->attrs);
    rc |= jstr_merge(&p->s[PS_METHOD], f->method);
    rc |= jstr_merge(&p->s[PS_EXTRA], f->extra);
    rc |= jstr_merge(&p->s[PS_TEXT], f->text);
    rc |= jstr_merge(&p->s[PS_DETAILS], f->details);
    rc |= jstr_merge(&p->s[PS_SID], f->sid);
    return rc ? SAT_E_NOMEM : 0;
}

static int on_request(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t ci = op_conn(j, rec);
    int type = rec->op_fields.type;
    if (ci != NIL && !rec->internal)
        j->cv[ci].row.ops++;
    if (type == SAT_OP_ABANDON || type == SAT_OP_UNBIND) {
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        return sat_lj_emit_op(j, &row, ci);
    }
    int rc = 0;
    /* the same key again (op number reuse, repeated lines): the first one
     * never got its RESULT */
    if (!(rec->internal && rec->internal_op == SAT_ABSENT)) {
        int32_t old = sat_lj_pend_find(j, rec->conn, rec->op, rec->internal_op, rec->internal,
                            rec_depth(rec));
        if (old != NIL)
            rc = sat_lj_pend_emit_unfinished(j, old, 0);
    }
    int r2;
    int32_t pi = sat_lj_pend_new(j, rec, ci, &r2);
    if (pi == NIL)
        return r2 < 0 ? r2 : rc;
    pend *p = &j->pv[pi];
    row_from_record(j, &p->row, rec);
    p->row.dn = p->row.filter = p->row.attrs = p->row.method = SAT_STR_NONE;
    int r3 = set_pend_strings(p, &rec->op_fields);
    if (r3 < 0)
        return r3;
    return rc < 0 ? rc : r2;
}

static int32_t find_for(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (rec->internal && rec->internal_op == SAT_ABSENT)
        return j->stack_len ? j->stack[j->stack_len - 1] : NIL;
    return sat_lj_pend_find(j, rec->conn, rec->op, rec->internal_op, rec->internal,
                            rec_depth(rec));
}

static void merge_numbers(sat_ldap_op *dst, const sat_ldap_op *f, int additive_nentries)
{
    if (f->type != SAT_OP_UNKNOWN && dst->type == SAT_OP_UNKNOWN)
        dst->type = f->type;
    if (f->scope != SAT_SCOPE_NONE) dst->scope = f->scope;
    dst->flags |= f->flags;
    dst->notes |= f->notes;
    if (f->err != SAT_ABSENT) dst->err = f->err;
    if (f->tag != SAT_ABSENT) dst->tag = f->tag;
    if (f->nentries != SAT_ABSENT) {
        if (additive_nentries && dst->nentries != SAT_ABSENT)
            dst->nentries += f->nentries;
        else
            dst->nentries = f->nentries;
    }
    if (f->etime != SAT_ABSENT) dst->etime = f->etime;
    if (f->wtime != SAT_ABSENT) dst->wtime = f->wtime;
    if (f->optime != SAT_ABSENT) dst->optime = f->optime;
    if (f->wbusy != SAT_ABSENT) dst->wbusy = f->wbusy;
    if (f->wbusy_max != SAT_ABSENT) dst->wbusy_max = f->wbusy_max;
    if (f->wqdepth != SAT_ABSENT) dst->wqdepth = f->wqdepth;
    if (f->target_op != SAT_ABSENT) dst->target_op = f->target_op;
    /* one per ENTRY / REFERRAL line: they add up */
    dst->entry_lines += f->entry_lines;
    dst->referral_lines += f->referral_lines;
}

static int on_detail(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t pi = find_for(j, rec);
    if (pi == NIL)
        return 0; /* its request is not in this input: nothing to amend */
    pend *p = &j->pv[pi];
    merge_numbers(&p->row, &rec->op_fields, 1);
    if (jstr_append_line(&p->s[PS_ENTRY_DNS], rec->op_fields.entry_dns, SAT_ENTRY_DNS_MAX) < 0)
        return SAT_E_NOMEM;
    return set_pend_strings(p, &rec->op_fields);
}

/* A BIND's outcome on its connection, and StartTLS's. */
static int apply_result_to_conn(sat_ldap_join *j, int32_t ci, sat_ldap_op *row,
                                sat_str result_dn, sat_str request_dn)
{
    if (row->type == SAT_OP_BIND && row->err == 14)
        row->flags |= SAT_OPF_SASL_INPROGRESS;
    if (ci == NIL || row->internal_depth)
        return 0;
    jconn *c = &j->cv[ci];
    if (row->type == SAT_OP_BIND && row->err == 0) {
        sat_str dn = result_dn.ptr ? result_dn : request_dn;
        if (!dn.ptr)
            dn = sat_str_make("", 0);
        /* dn may point into c's own buffer only if equal; copy via the row */
        if (jstr_set(&c->s[CS_BINDDN], dn) < 0)
            return SAT_E_NOMEM;
    }
    if (row->type == SAT_OP_EXT && row->err == 0 && row->method.ptr &&
        row->method.len == sizeof STARTTLS_OID - 1 &&
        memcmp(row->method.ptr, STARTTLS_OID, row->method.len) == 0) {
        if (c->row.listener == SAT_LISTENER_LDAP ||
            c->row.listener == SAT_LISTENER_UNKNOWN)
            c->row.listener = SAT_LISTENER_STARTTLS;
        c->row.flags |= SAT_CONNF_TLS;
    }
    return 0;
}

static int on_result(sat_ldap_join *j, const sat_ldap_record *rec)
{
    const sat_ldap_op *f = &rec->op_fields;
    int32_t pi = find_for(j, rec);
    if (pi == NIL) {
        int32_t ci = op_conn(j, rec);
        if (ci != NIL && !rec->internal)
            j->cv[ci].row.ops++;
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        row.result_ts_ns = rec->ts;
        if (row.type == SAT_OP_UNKNOWN)
            row.type = (uint8_t)type_from_tag(f->tag);
        row.flags |= SAT_OPF_NO_REQUEST;
        j->st.results_without_request++;
        SAT_FORWARD_IF_ERROR(apply_result_to_conn(j, ci, &row, f->dn, SAT_STR_NONE));
        return sat_lj_emit_op(j, &row, ci);
    }
    pend *p = &j->pv[pi];
    merge_numbers(&p->row, f, 0);
    if (p->row.type == SAT_OP_UNKNOWN)
        p->row.type = (uint8_t)type_from_tag(p->row.tag);
    p->row.result_ts_ns = rec->ts;
    if (jstr_merge(&p->s[PS_TEXT], f->text) < 0 ||
        jstr_merge(&p->s[PS_DETAILS], f->details) < 0 ||
        jstr_merge(&p->s[PS_SID], f->sid) < 0 ||
        (!p->s[PS_DN].set && jstr_merge(&p->s[PS_DN], f->dn) < 0))
        return SAT_E_NOMEM;
    sat_ldap_op tmp = p->row;
    tmp.method = jstr_view(&p->s[PS_METHOD]);
    SAT_FORWARD_IF_ERROR(apply_result_to_conn(j, p->owner, &tmp, f->dn,
                                              jstr_view(&p->s[PS_DN])));
    p->row.flags = tmp.flags;
    int32_t owner = p->owner;
    int rc = sat_lj_pend_emit(j, pi);
    if (owner != NIL && j->cv[owner].closed && j->cv[owner].phead == NIL)
        sat_lj_zombie_release(j, owner);
    return rc;
}

int sat_ldap_join_record(sat_ldap_join *j, const sat_ldap_record *rec)
{
    if (!j || !rec)
        return SAT_E_USAGE;
    j->finished = 0;
    j->cur_ts = rec->ts;
    if (j->ahead != NIL)
        SAT_FORWARD_IF_ERROR(sat_lj_expire_awaiting(j, rec->ts, 0));
    if (j->zhead != NIL)
        SAT_FORWARD_IF_ERROR(sat_lj_expire_zombies(j, rec->ts));
    switch (rec->kind) {
    case SAT_REC_CONNECT:
        return sat_lj_on_connect(j, rec);
    case SAT_REC_TLS: {
        int32_t ci = sat_lj_conn_get(j, rec->conn, 1);
        if (ci == NIL)
            return SAT_E_NOMEM;
        jconn *c = &j->cv[ci];
        c->row.flags |= SAT_CONNF_TLS;
        if (jstr_merge(&c->s[CS_TLSV], rec->conn_fields.tls_version) < 0 ||
            jstr_merge(&c->s[CS_CIPHER], rec->conn_fields.tls_cipher) < 0 ||
            jstr_merge(&c->s[CS_CERT], rec->conn_fields.client_cert) < 0)
            return SAT_E_NOMEM;
        return 0;
    }
    case SAT_REC_CLIENT_CERT: {
        int32_t ci = sat_lj_conn_get(j, rec->conn, 1);
        if (ci == NIL)
            return SAT_E_NOMEM;
        j->cv[ci].row.flags |= (uint8_t)(SAT_CONNF_TLS |
                                         (rec->conn_fields.flags & (SAT_CONNF_CERT_BOUND |
                                                                    SAT_CONNF_CERT_MAP_FAILED)));
        return jstr_merge(&j->cv[ci].s[CS_CERT], rec->conn_fields.client_cert);
    }
    case SAT_REC_REQUEST:
        return on_request(j, rec);
    case SAT_REC_DETAIL:
        return on_detail(j, rec);
    case SAT_REC_RESULT:
        return on_result(j, rec);
    case SAT_REC_AUTOBIND: {
        int32_t ci = op_conn(j, rec);
        sat_ldap_op row;
        row_from_record(j, &row, rec);
        row.type = SAT_OP_AUTOBIND;
        if (ci != NIL && !rec->internal && rec->op_fields.dn.ptr &&
            jstr_set(&j->cv[ci].s[CS_BINDDN], rec->op_fields.dn) < 0)
            return SAT_E_NOMEM;
        return sat_lj_emit_op(j, &row, ci);
    }
    case SAT_REC_SESSION: {
        int32_t ci = op_conn(j, rec);
        if (ci != NIL && jstr_merge(&j->cv[ci].s[CS_SID], rec->op_fields.sid) < 0)
            return SAT_E_NOMEM;
        if (rec->op != SAT_ABSENT) {
            int32_t pi = find_for(j, rec);
            if (pi != NIL && jstr_merge(&j->pv[pi].s[PS_SID], rec->op_fields.sid) < 0)
                return SAT_E_NOMEM;
        }
        return 0;
    }
    case SAT_REC_CLOSE:
        return sat_lj_on_close(j, rec);
    case SAT_REC_RESTART: {
        uint64_t before = j->st.restarts;
        int rc = sat_lj_restart(j, "server restart: the server's start line");
        if (j->st.restarts != before)
            j->st.restarts_by_start_line++;
        return rc;
    }
    default:
        return SAT_E_USAGE;
    }
}

int sat_ldap_join_finish(sat_ldap_join *j)
{
    if (!j)
        return SAT_E_USAGE;
    if (j->finished)
        return 0;
    j->finished = 1;
    return sat_lj_flush_all(j, SAT_CONNF_UNCLOSED);
}
