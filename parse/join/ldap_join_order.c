/*
 * ldap_join_order.c - the joiner's open and close lines, and the evidence of
 * a server restart. Servers write open lines from several threads (slapd 2.5
 * its pool threads, 389 its listener threads), so they come out of number
 * order, and now and then after the connection's first operations or even
 * its close. A window of the CONN_WINDOW numbers below the highest opened in
 * this epoch keeps a bit per number not opened yet: an open line for such a
 * hole is disorder. A restart is taken on evidence only: the server's start
 * line, or an open line for a number opened already in this epoch or below
 * the window. A connection seen before its open line merges with it (its
 * open time is its first line's); one closed before its open line waits
 * LATE_OPEN_NS of log time for it. The rows a restart ends say why in
 * close_reason. The joiner's other rules are in ldap_join.c.
 */
#include "ldap_join_int.h"

/* ---- connection order ---------------------------------------------------------------
 * See the opening comment: a window of holes below the highest number opened
 * tells disorder from numbers that start again. */
#define CONN_WINDOW 65536 /* numbers; 8 KiB of bits */

static size_t hole_bit(int64_t n) { return (size_t)((uint64_t)n % CONN_WINDOW); }
static int hole_get(const sat_ldap_join *j, int64_t n)
{
    size_t b = hole_bit(n);
    return (int)((j->holes[b / 64] >> (b % 64)) & 1u);
}
static void hole_put(sat_ldap_join *j, int64_t n, int v)
{
    size_t b = hole_bit(n);
    if (v)
        j->holes[b / 64] |= (uint64_t)1 << (b % 64);
    else
        j->holes[b / 64] &= ~((uint64_t)1 << (b % 64));
}
static void holes_fill(sat_ldap_join *j)
{
    memset(j->holes, 0xff, CONN_WINDOW / 8);
}

/* The open line for number n in this epoch: 1 when it is disorder or new
 * (the window is updated), 0 when it is evidence of a restart (n was opened
 * already in this epoch, or lies below what disorder can explain). */
static int conn_number_fits(sat_ldap_join *j, int64_t n, sat_ts_ns ts)
{
    if (!j->holes) {
        j->holes = (uint64_t *)malloc(CONN_WINDOW / 8);
        if (!j->holes)
            return 1; /* without the window, no restart by number */
    }
    if (j->max_conn_opened < 0) {
        /* the epoch's first: what lies just below may still come */
        holes_fill(j);
        hole_put(j, n, 0);
        j->max_conn_opened = n;
        j->first_conn = n;
        j->first_conn_ts = ts;
        return 1;
    }
    int64_t max = j->max_conn_opened;
    if (n > max) {
        if (n - max >= CONN_WINDOW)
            holes_fill(j);
        else
            for (int64_t k = max + 1; k < n; k++)
                hole_put(j, k, 1);
        hole_put(j, n, 0);
        j->max_conn_opened = n;
        return 1;
    }
    if (n <= max - CONN_WINDOW || !hole_get(j, n))
        return 0;
    if (n < j->first_conn && (ts <= 0 || j->first_conn_ts <= 0 ||
                              ts - j->first_conn_ts > LATE_OPEN_NS ||
                              j->first_conn_ts - ts > LATE_OPEN_NS))
        return 0;
    hole_put(j, n, 0);
    j->st.opens_out_of_order++;
    return 1;
}

/* A connection closed without an open line may get one yet: its number is
 * above every number opened in this epoch, or a hole inside their range. */
static int open_may_follow(const sat_ldap_join *j, int64_t n)
{
    if (j->no_restarts || !j->holes || j->max_conn_opened < 0)
        return 0;
    int64_t max = j->max_conn_opened;
    return n > max || (n > j->first_conn && n > max - CONN_WINDOW && hole_get(j, n));
}

int sat_lj_restart(sat_ldap_join *j, const char *why)
{
    /* "slapd starting" at the top of a log is a start, not a restart */
    if (j->max_conn_opened < 0 && j->ccount == 0 && j->pcount == 0) {
        j->max_conn_opened = -1;
        return 0;
    }
    snprintf(j->restart_why, sizeof j->restart_why, "%s", why);
    int rc = sat_lj_flush_all(j, SAT_CONNF_UNCLOSED | SAT_CONNF_RESTART);
    j->restart_why[0] = '\0';
    j->epoch++;
    j->max_conn_opened = -1;
    j->st.restarts++;
    return rc;
}

int sat_lj_on_connect(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int rc = 0, restart_open = 0;
    int32_t ci = NIL;
    if (!j->no_restarts && !conn_number_fits(j, rec->conn, rec->ts)) {
        char why[sizeof j->restart_why];
        if (rec->conn > j->max_conn_opened - CONN_WINDOW)
            snprintf(why, sizeof why,
                     "server restart: conn=%lld opened again after conn=%lld",
                     (long long)rec->conn, (long long)j->max_conn_opened);
        else
            snprintf(why, sizeof why,
                     "server restart: conn=%lld far below conn=%lld (numbers started again)",
                     (long long)rec->conn, (long long)j->max_conn_opened);
        rc = sat_lj_restart(j, why);
        j->st.restarts_by_number++;
        conn_number_fits(j, rec->conn, rec->ts);
        restart_open = 1;
    } else {
        ci = sat_lj_conn_find(j, rec->conn);
        if (ci != NIL && (!(j->cv[ci].row.flags & SAT_CONNF_NO_OPEN) ||
                          (rec->ts > 0 && j->cv[ci].first_ts > 0 &&
                           rec->ts - j->cv[ci].first_ts > LATE_OPEN_NS))) {
            /* an earlier view of this number that is not this connection's:
             * it ends here */
            rc = sat_lj_conn_emit(j, ci);
            ci = NIL;
        }
    }
    if (j->no_restarts && rec->conn > j->max_conn_opened)
        j->max_conn_opened = rec->conn;
    int done = 0; /* closed already: its close line came first */
    if (ci == NIL && (ci = sat_lj_conn_find_awaiting(j, rec->conn)) != NIL) {
        sat_lj_await_unlink(j, ci);
        done = 1;
    }
    int late = ci != NIL; /* its lines came before its open line */
    if (!late)
        ci = sat_lj_conn_new(j, rec->conn);
    if (ci == NIL)
        return SAT_E_NOMEM;
    jconn *c = &j->cv[ci];
    const sat_ldap_conn *f = &rec->conn_fields;
    c->row.open_ts = rec->ts;
    if (late) {
        j->st.opens_after_lines++;
        if (c->first_ts > 0 && (rec->ts <= 0 || c->first_ts < rec->ts))
            c->row.open_ts = c->first_ts;
    }
    c->row.fd = f->fd;
    c->row.client_port = f->client_port;
    c->row.listener = f->listener;
    c->row.flags = (uint8_t)(SAT_CONNF_COUNTED | (f->flags & SAT_CONNF_TLS) |
                             (late ? c->row.flags & (SAT_CONNF_TLS | SAT_CONNF_CERT_BOUND |
                                                     SAT_CONNF_CERT_MAP_FAILED)
                                   : 0));
    if (f->listener == SAT_LISTENER_LDAPS)
        c->row.flags |= SAT_CONNF_TLS;
    if (restart_open)
        c->row.flags |= SAT_CONNF_RESTART_OPEN;
    /* a connection whose open line carries no time counts as one without
     * an open line (open from the start), as analyzers read open_ts == 0 */
    if (rec->ts > 0) {
        /* one closed already is not open now: it adds to no count */
        c->row.concurrent = done ? j->open_opened : ++j->open_opened;
        c->row.preopen_closed = j->preopen_closed;
    }
    /* a connection seen opening is anonymous until a BIND succeeds (one
     * whose BIND was answered before its open line keeps that bind) */
    if ((!late || !c->s[CS_BINDDN].set) &&
        jstr_set(&c->s[CS_BINDDN], sat_str_make("", 0)) < 0)
        return SAT_E_NOMEM;
    if (jstr_set(&c->s[CS_IP], f->client_ip) < 0 ||
        jstr_set(&c->s[CS_SADDR], f->server_addr) < 0)
        return SAT_E_NOMEM;
    if (done) {
        c->row.close_reason = jstr_view(&c->s[CS_REASON]);
        int r = sat_lj_conn_emit_ex(j, ci, 1);
        return rc < 0 ? rc : r;
    }
    return rc;
}

int sat_lj_on_close(sat_ldap_join *j, const sat_ldap_record *rec)
{
    int32_t ci = sat_lj_conn_get(j, rec->conn, 1);
    if (ci == NIL)
        return SAT_E_NOMEM;
    jconn *c = &j->cv[ci];
    const sat_ldap_conn *f = &rec->conn_fields;
    c->row.close_ts = rec->ts;
    c->row.close_code = f->close_code ? f->close_code : SAT_CLOSE_OTHER;
    if ((c->row.flags & SAT_CONNF_NO_OPEN) && rec->ts > 0 && open_may_follow(j, rec->conn)) {
        /* its open line may still come (written late by another thread):
         * the row waits for it, a bounded time */
        if (c->row.fd == SAT_ABSENT)
            c->row.fd = f->fd;
        if (jstr_set(&c->s[CS_REASON], f->close_reason) < 0)
            return SAT_E_NOMEM;
        c->await_open = 1;
        c->zprev = j->atail;
        c->znext = NIL;
        if (j->atail != NIL) j->cv[j->atail].znext = ci; else j->ahead = ci;
        j->atail = ci;
        return 0;
    }
    /* only a close with a time leaves the count: analyzers take a row
     * without close_ts as open to the end */
    if (rec->ts > 0) {
        if (c->row.open_ts > 0) {
            if (j->open_opened)
                j->open_opened--;
        } else {
            j->preopen_closed++;
        }
    }
    if (c->row.fd == SAT_ABSENT)
        c->row.fd = f->fd;
    /* close_reason is borrowed from the record: valid during sat_lj_conn_emit */
    c->row.close_reason = f->close_reason;
    return sat_lj_conn_emit_ex(j, ci, 1);
}
