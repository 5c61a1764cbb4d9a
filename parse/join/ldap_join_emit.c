/*
 * ldap_join_emit.c - what the joiner hands the sink: op rows (with their
 * connection's bind DN and client at emit time, and internal searches'
 * filter shapes), connection rows, requests that will never be answered as
 * unfinished; closed connections kept a bounded time for late RESULTs or
 * for their open line; and the end of an epoch (restart or end of input).
 * The joiner's rules are in ldap_join.c.
 */
#include "ldap_join_int.h"

/* ---- emission ------------------------------------------------------------------------ */
static sat_str shape_of(sat_ldap_join *j, sat_str filter)
{
    if (!filter.ptr)
        return SAT_STR_NONE;
    /* a shape grows by at most one '*' per empty value: 2x+16 always fits */
    if (SAT_GROW(j->shape, j->shape_cap, (size_t)filter.len * 2 + 16) != SAT_OK)
        return SAT_STR_NONE;
    size_t n = sat_filter_shape(filter.ptr, filter.len, j->shape, j->shape_cap);
    if (n >= j->shape_cap)
        n = j->shape_cap - 1;
    return sat_str_make(j->shape, n);
}

static void fill_conn_view(const sat_ldap_join *j, sat_ldap_op *row, int32_t ci)
{
    if (ci != NIL && j->cv[ci].in_use) {
        row->bind_dn = jstr_view(&j->cv[ci].s[CS_BINDDN]);
        row->client_ip = jstr_view(&j->cv[ci].s[CS_IP]);
        if (!row->sid.ptr)
            row->sid = jstr_view(&j->cv[ci].s[CS_SID]);
    }
}

int sat_lj_emit_op(sat_ldap_join *j, sat_ldap_op *row, int32_t ci)
{
    row->server = j->server;
    /* internal searches always: their shapes group them (etime --by internal) */
    if (row->type == SAT_OP_SRCH && row->filter.ptr && !row->filter_shape.ptr &&
        (!j->no_shapes || row->internal_depth))
        row->filter_shape = shape_of(j, row->filter);
    fill_conn_view(j, row, ci);
    j->st.ops++;
    return sat_sink_emit(j->sink, SAT_TABLE_LDAP_OP, row);
}

/* Emit pending slot pi (finished or not) and free it. */
int sat_lj_pend_emit(sat_ldap_join *j, int32_t pi)
{
    pend *p = &j->pv[pi];
    sat_ldap_op row = p->row;
    row.dn = jstr_view(&p->s[PS_DN]);
    row.filter = jstr_view(&p->s[PS_FILTER]);
    row.attrs = jstr_view(&p->s[PS_ATTRS]);
    row.method = jstr_view(&p->s[PS_METHOD]);
    row.extra = jstr_view(&p->s[PS_EXTRA]);
    row.text = jstr_view(&p->s[PS_TEXT]);
    row.details = jstr_view(&p->s[PS_DETAILS]);
    row.sid = jstr_view(&p->s[PS_SID]);
    row.entry_dns = jstr_view(&p->s[PS_ENTRY_DNS]);
    int32_t owner = p->owner;
    /* strings stay valid: the slot is recycled only after the callback */
    int rc = sat_lj_emit_op(j, &row, owner);
    sat_lj_pend_unlink(j, pi);
    return rc;
}

int sat_lj_pend_emit_unfinished(sat_ldap_join *j, int32_t pi, int conn_closed)
{
    pend *p = &j->pv[pi];
    p->row.flags |= SAT_OPF_UNFINISHED;
    if (conn_closed)
        p->row.flags |= SAT_OPF_CONN_CLOSED;
    p->row.err = SAT_ABSENT;
    j->st.unfinished++;
    return sat_lj_pend_emit(j, pi);
}

/* A closed connection's last pending request is gone (answered or given
 * up): the slot is free. */
void sat_lj_zombie_release(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    if (c->zprev != NIL) j->cv[c->zprev].znext = c->znext; else j->zhead = c->znext;
    if (c->znext != NIL) j->cv[c->znext].zprev = c->zprev; else j->ztail = c->zprev;
    sat_lj_conn_unlink(j, ci);
}

/* Its requests will never be answered now: emit them as unfinished. */
static int zombie_expire(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int rc = 0, r;
    while (c->phead != NIL) {
        r = sat_lj_pend_emit_unfinished(j, c->phead, 1); /* a zombie: its close was logged */
        if (r < 0 && rc >= 0)
            rc = r;
    }
    sat_lj_zombie_release(j, ci);
    return rc;
}

static int emit_unfinished_of(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    int rc = 0;
    /* a close line, not the end of the input or a restart */
    int closed = c->row.close_ts > 0 && !(c->row.flags & (SAT_CONNF_UNCLOSED | SAT_CONNF_RESTART));
    while (c->phead != NIL && rc >= 0)
        rc = sat_lj_pend_emit_unfinished(j, c->phead, closed);
    /* pending requests are emitted even if a sink failed; the row too */
    while (c->phead != NIL)
        sat_lj_pend_unlink(j, c->phead);
    return rc;
}

/* Emits the connection's row. With keep_pending, requests still awaiting a
 * RESULT keep the slot alive as a closed connection: 389 2.x may log an
 * operation's RESULT after its connection's Disconnect line, and that RESULT
 * must still meet its request (and the connection's client and bind DN).
 * Otherwise they are emitted as unfinished and the slot is freed. */
int sat_lj_conn_emit_ex(sat_ldap_join *j, int32_t ci, int keep_pending)
{
    jconn *c = &j->cv[ci];
    int rc = keep_pending ? 0 : emit_unfinished_of(j, ci);
    sat_ldap_conn row = c->row;
    row.client_ip = jstr_view(&c->s[CS_IP]);
    row.server_addr = jstr_view(&c->s[CS_SADDR]);
    row.tls_version = jstr_view(&c->s[CS_TLSV]);
    row.tls_cipher = jstr_view(&c->s[CS_CIPHER]);
    row.client_cert = jstr_view(&c->s[CS_CERT]);
    row.bind_dn = jstr_view(&c->s[CS_BINDDN]);
    j->st.conns++;
    int rc2 = sat_sink_emit(j->sink, SAT_TABLE_LDAP_CONN, &row);
    if (keep_pending && c->phead != NIL) {
        c->closed = 1;
        c->zprev = j->ztail;
        c->znext = NIL;
        if (j->ztail != NIL) j->cv[j->ztail].znext = ci; else j->zhead = ci;
        j->ztail = ci;
    } else {
        sat_lj_conn_unlink(j, ci);
    }
    return rc < 0 ? rc : rc2;
}

int sat_lj_conn_emit(sat_ldap_join *j, int32_t ci) { return sat_lj_conn_emit_ex(j, ci, 0); }

/* How long (log time) a closed connection waits for late RESULTs. */
#define LATE_RESULT_GRACE_NS (60LL * 1000000000LL)

int sat_lj_expire_zombies(sat_ldap_join *j, sat_ts_ns now)
{
    int rc = 0, r;
    while (j->zhead != NIL && now - j->cv[j->zhead].row.close_ts > LATE_RESULT_GRACE_NS) {
        r = zombie_expire(j, j->zhead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

void sat_lj_await_unlink(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    if (c->zprev != NIL) j->cv[c->zprev].znext = c->znext; else j->ahead = c->znext;
    if (c->znext != NIL) j->cv[c->znext].zprev = c->zprev; else j->atail = c->zprev;
    c->zprev = c->znext = NIL;
    c->await_open = 0;
}

/* No open line came: a connection without one after all, closed when its
 * close line said (counted now, as it would have been then). */
static int await_expire(sat_ldap_join *j, int32_t ci)
{
    sat_lj_await_unlink(j, ci);
    j->preopen_closed++;
    j->cv[ci].row.close_reason = jstr_view(&j->cv[ci].s[CS_REASON]);
    return sat_lj_conn_emit_ex(j, ci, 1);
}

int sat_lj_conn_evict(sat_ldap_join *j, int32_t ci)
{
    jconn *c = &j->cv[ci];
    if (c->closed) /* its row is out: only its late RESULTs are given up */
        return zombie_expire(j, ci);
    j->st.conns_evicted++;
    if (c->await_open)
        return await_expire(j, ci);
    c->row.flags |= SAT_CONNF_UNCLOSED;
    return sat_lj_conn_emit(j, ci);
}

int sat_lj_expire_awaiting(sat_ldap_join *j, sat_ts_ns now, int all)
{
    int rc = 0, r;
    while (j->ahead != NIL &&
           (all || now - j->cv[j->ahead].row.close_ts > LATE_OPEN_NS)) {
        r = await_expire(j, j->ahead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

/* Everything of the current epoch ends: pending → unfinished, conns →
 * unclosed (with extra flags). */
int sat_lj_flush_all(sat_ldap_join *j, uint8_t conn_flags)
{
    int rc = 0, r;
    /* pending requests not owned by a connection (internal ops, orphans) */
    int32_t pi = j->fhead;
    while (pi != NIL) {
        int32_t next = j->pv[pi].fnext;
        if (j->pv[pi].owner == NIL) {
            r = sat_lj_pend_emit_unfinished(j, pi, 0);
            if (r < 0 && rc >= 0)
                rc = r;
        }
        pi = next;
    }
    r = sat_lj_expire_awaiting(j, 0, 1);
    if (r < 0 && rc >= 0)
        rc = r;
    while (j->zhead != NIL) {
        r = zombie_expire(j, j->zhead);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    for (size_t i = 0; i < j->ccap; i++) {
        if (!j->cv[i].in_use)
            continue;
        j->cv[i].row.flags |= conn_flags;
        if ((conn_flags & SAT_CONNF_RESTART) && j->restart_why[0] && !j->cv[i].closed)
            j->cv[i].row.close_reason = sat_str_cstr(j->restart_why);
        r = sat_lj_conn_emit(j, (int32_t)i);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}
