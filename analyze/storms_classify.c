/*
 * storms_classify.c - the storms analyzer's event sink: each row (LDAP operation
 * and connection, TLS handshake, TCP connection, source) classified as a client
 * failure or not, deduplicated, and counted in the windows of every series;
 * the requests left at a close and the retry rule, counted at finish.
 *
 * Failures (enum sat_storm_kind), one per failed operation or connection:
 *   ldap_op   ABANDON; results err=3 (timeLimitExceeded), 11 (adminLimit-
 *             Exceeded), 51 (busy), 52 (unavailable), 80 (other) - RFC 4511
 *             4.1.9; external operations only (internal ones are the server's)
 *   ldap_conn 389 close codes A1 (client abandoned / closed with an op
 *             outstanding), B1, B4, T1, T2, T3 (event.h sat_close_code)
 *   tls_hs    incomplete (ClientHello never answered) and failed handshakes
 *   http_req  statuses 408, 499, 502, 503, 504 and slow answers (storms_http.c)
 *   tcp_conn  a client RST or FIN with a request unanswered (the dissector's
 *             view, event.h SAT_TCPF_CLIENT_LEFT_WAITING); a connection
 *             attempt the server never answered before the client gave up
 *             (SAT_TCPF_SYN_GAVE_UP: a full listen queue drops SYNs), dated
 *             when it gave up (its RST or FIN, else its last SYN + 1 s, the
 *             least a stack waits before sending it again: RFC 6298 2.1); a
 *             connection whose SYN had to be sent again and that carried no
 *             byte of the client (answered too late: it gave up at once; one
 *             that went on to carry its request was slow, not failed); a
 *             connection given up for a retry (st_finish_retries)
 * Deduplication: an ABANDON and the A1 close of the same connection (key
 * server + conn_epoch + conn) are one failure, counted as the ABANDON; an
 * answer of a failure kind (busy, a limit...) and the client leaving that
 * connection after it (A1, B1) are one, counted as the answer; on the
 * wire one failure per connection (key source + flow), counted as the most
 * specific kind (TLS > client RST or FIN or SYN never answered > SYN retry
 * > retried), so an
 * incomplete handshake, the client's FIN or RST that followed it and its
 * retry are one. The rule does not depend on the order rows arrive in: a
 * later, more specific row moves the count.
 */
#include <math.h>

#include "storms_internal.h"

/* The failures of client in window widx (st_cw), NULL when its table is full
 * (clients_lost: the storm's distinct clients are then estimated) or memory
 * ran out. */
uint64_t *st_client_window(sat_storms *s, int64_t widx, const char *client, size_t len)
{
    char key[8 + 256];
    if (len > sizeof key - 8)
        len = sizeof key - 8; /* (addresses are far shorter) */
    memcpy(key, &widx, 8);
    memcpy(key + 8, client, len);
    int folded = 0;
    st_cw *c = (st_cw *)sat_keyed_at(&s->cw, key, 8 + len, &folded);
    if (!c)
        s->nomem = 1;
    if (folded)
        s->t.clients_lost = 1;
    return c && !folded ? &c->n : NULL;
}

/* The id of key in t, a table of uint32 ids numbered in the order the keys
 * came (the clients and peers tables): a new key gets the next one. NULL
 * when the table is full (*capped) or out of memory. */
uint32_t *st_intern(sat_strtab *t, const void *key, size_t len, int *capped)
{
    int is_new;
    uint32_t *id = (uint32_t *)sat_strtab_upsert(t, key, len, &is_new, capped);
    if (id && is_new)
        *id = (uint32_t)(t->n - 1);
    return id;
}

/* +1 / -1 failure of this client in the window of ts */
static void count_client(sat_storms *s, sat_ts_ns ts, sat_str client, int add)
{
    if (!client.len || !client.ptr)
        return;
    uint64_t *n = st_client_window(s, st_window_of(ts, s->opts.window), client.ptr, client.len);
    if (n && add)
        (*n)++;
    else if (n && *n)
        (*n)--;
}

static void count(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    s->t.kinds[kind]++;
    s->t.f.events++;
    int any = 0;
    FOR_EACH_WINDOW(s, ts, w) {
        any = 1;
        w->kinds[kind]++;
        w->events++;
        if (client.len && client.ptr) {
            uint64_t h = sat_strtab_hash(client.ptr, client.len);
            w->bits[(h >> 7) % ST_BITS / 64] |= (uint64_t)1 << ((h >> 7) % 64);
        }
    }
    if (!any || !client.len || !client.ptr)
        return;
    count_client(s, ts, client, 1);
}

void st_count(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    count(s, ts, kind, client);
}

static void uncount(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    count_client(s, ts, client, 0); /* the same connection: the same client */
    if (s->t.kinds[kind])
        s->t.kinds[kind]--;
    if (s->t.f.events)
        s->t.f.events--;
    FOR_EACH_WINDOW(s, ts, w) {
        if (w->kinds[kind]) {
            w->kinds[kind]--;
            w->events--;
        }
    }
}

void st_uncount(sat_storms *s, sat_ts_ns ts, int kind, sat_str client)
{
    uncount(s, ts, kind, client);
}

static int wire_prio(int kind)
{
    switch (kind) {
    case SAT_STORM_TLS_INCOMPLETE:
    case SAT_STORM_TLS_FAILED: return 3;
    case SAT_STORM_RST_CLIENT:
    case SAT_STORM_SYN_UNANSWERED:
    case SAT_STORM_FIN_WAITING: return 2; /* (a connection ends one way only) */
    case SAT_STORM_SYN_RETRY: return 1;
    default: return 0; /* retried: only when nothing else said it failed */
    }
}

static void mark(sat_storms *s, st_dedup *d, int kind, sat_ts_ns ts, sat_str client)
{
    int capped;
    uint32_t *id = client.len ? st_intern(&s->peers, client.ptr, client.len, &capped) : NULL;
    d->client = id ? *id : UINT32_MAX;
    d->has = 1;
    d->kind = (uint8_t)kind;
    d->ts = ts;
}

int st_is_client_left(int kind)
{
    return kind == SAT_STORM_CLOSE_A1 || kind == SAT_STORM_CLOSE_B1;
}

/* The rows of one LDAP connection that are one failure: an ABANDON counts
 * (one per abandoned operation) and so does a B1..T3 close; the A1 close of
 * a connection with an ABANDON does not (the client gave up, then left: one
 * failure, counted as the ABANDON, whichever row comes first), nor does the
 * client's leaving (A1, B1) of a connection answered busy, unavailable or
 * with a limit (the answer counts: the client got its failure, then left;
 * on_op) - the server's own closes (B4, T1..T3) still count; a request
 * left unanswered at a close counts only when nothing else of its
 * connection does. */
static void ldap_keyed(sat_storms *s, st_dedup *d, sat_ts_ns ts, int kind, sat_str client)
{
    int had = d->has ? d->kind : -1;
    if (d->errs && (st_is_client_left(kind) || kind == SAT_STORM_CLOSED_WAITING)) {
        s->t.f.deduped++;
        return;
    }
    if (had < 0) {
        count(s, ts, kind, client);
        mark(s, d, kind, ts, client);
    } else if (kind == SAT_STORM_CLOSED_WAITING) {
        s->t.f.deduped++;
    } else if (had == SAT_STORM_CLOSED_WAITING ||
               (had == SAT_STORM_CLOSE_A1 && kind == SAT_STORM_ABANDON)) {
        uncount(s, d->ts, had, client); /* the more specific row takes its place */
        count(s, ts, kind, client);
        s->t.f.deduped++;
        mark(s, d, kind, ts, client);
    } else if (kind == SAT_STORM_CLOSE_A1 && had == SAT_STORM_ABANDON) {
        s->t.f.deduped++;
    } else {
        count(s, ts, kind, client); /* another ABANDON, or a B1..T3 close */
        if (had != SAT_STORM_ABANDON)
            mark(s, d, kind, ts, client);
    }
}

/* One failure per key: the first row counts; a later row of a more specific
 * kind moves the count to itself (ldap_keyed for LDAP connections). */
static void count_keyed(sat_storms *s, sat_strtab *t, const void *key, size_t klen,
                        sat_ts_ns ts, int kind, sat_str client, int ldap)
{
    int capped;
    st_dedup *d = (st_dedup *)sat_strtab_upsert(t, key, klen, NULL, &capped);
    if (!d) {
        s->nomem |= !capped;
        count(s, ts, kind, client);
        return;
    }
    if (ldap) {
        ldap_keyed(s, d, ts, kind, client);
        return;
    }
    if (!d->has) {
        count(s, ts, kind, client);
    } else if (wire_prio(kind) > wire_prio(d->kind)) {
        uncount(s, d->ts, d->kind, client);
        count(s, ts, kind, client);
        s->t.f.deduped++;
    } else {
        s->t.f.deduped++;
        return;
    }
    mark(s, d, kind, ts, client);
}

static int is_wire_server(const sat_storms *s, uint32_t server)
{
    return sat_keyed_n(&s->wire_servers) &&
           sat_strtab_find(&s->wire_servers.tab, &server, sizeof server);
}

/* A request whose connection closed before its RESULT: a failure of kind
 * closed_waiting, counted at finish (st_finish_closed_waiting), once the source
 * rows (which come last) have said which servers are captures: on the wire
 * the TCP rule (SAT_TCPF_CLIENT_LEFT_WAITING) counts it already. */
void st_keep_closed_waiting(sat_storms *s, const sat_ldap_op *op)
{
    if (s->nwaiting == s->waiting_cap) {
        if (s->waiting_cap >= ST_DEDUP_MAX) {
            s->t.f.not_examined++;
            return;
        }
        if (SAT_GROW(s->waiting, s->waiting_cap, s->nwaiting + 1) != SAT_OK) {
            s->nomem = 1;
            return;
        }
    }
    uint32_t client = UINT32_MAX;
    if (op->client_ip.len) {
        int capped;
        uint32_t *id = st_intern(&s->peers, op->client_ip.ptr, op->client_ip.len, &capped);
        client = id ? *id : UINT32_MAX;
    }
    st_waiting *w = &s->waiting[s->nwaiting++];
    memset(w, 0, sizeof *w);
    w->key.server = op->server;
    w->key.epoch = op->conn_epoch;
    w->key.conn = op->conn;
    w->ts = op->ts_ns;
    w->client = client;
}

void st_finish_closed_waiting(sat_storms *s)
{
    for (size_t i = 0; i < s->nwaiting; i++) {
        const st_waiting *w = &s->waiting[i];
        if (is_wire_server(s, w->key.server))
            continue;
        sat_str client = SAT_STR_NONE;
        if (w->client != UINT32_MAX) {
            client.ptr = sat_strtab_key(&s->peers, w->client);
            client.len = sat_strtab_len(&s->peers, w->client);
        }
        count_keyed(s, &s->ldap_dedup, &w->key, sizeof w->key, w->ts, SAT_STORM_CLOSED_WAITING,
                    client, 1);
    }
    s->nwaiting = 0; /* counted: a second finish must not count them again */
}

/* An input's time range, for the periods it covers (by path: ids differ
 * between analyzers that merge). */
void st_keep_source(sat_storms *s, const char *path, size_t len, sat_ts_ns first,
                        sat_ts_ns last)
{
    if (!len || first <= 0)
        return;
    st_src *r = (st_src *)sat_keyed_at(&s->sources, path, len, NULL);
    if (!r) {
        s->nomem = 1;
        return;
    }
    sat_acc_min(&r->first_ts, first);
    sat_acc_max(&r->last_ts, last);
}

static int on_source(void *ctx, const sat_source *src)
{
    sat_storms *s = (sat_storms *)ctx;
    st_keep_source(s, src->path.ptr, src->path.len, src->first_ts, src->last_ts);
    st_http_source(s, src);
    if (src->kind.len == 4 && !memcmp(src->kind.ptr, "pcap", 4)) {
        st_server *sv = (st_server *)sat_keyed_at(&s->wire_servers, &src->server,
                                                  sizeof src->server, NULL);
        if (sv)
            sv->sources++;
        else
            s->nomem = 1;
    }
    return SAT_OK;
}

static void op_window(st_win *w, const sat_ldap_op *op, const uint32_t *id, int bucket);
static void keep_ldap_attempt(sat_storms *s, const sat_ldap_conn *c);

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_storms *s = (sat_storms *)ctx;
    s->t.rows.ldap_ops++;
    if (op->internal_depth)
        return SAT_OK;
    sat_ts_ns rts = op->result_ts_ns ? op->result_ts_ns : op->ts_ns;
    if (op->type == SAT_OP_ABANDON) {
        st_connkey k;
        memset(&k, 0, sizeof k);
        k.server = op->server;
        k.epoch = op->conn_epoch;
        k.conn = op->conn;
        count_keyed(s, &s->ldap_dedup, &k, sizeof k, op->ts_ns, SAT_STORM_ABANDON,
                    op->client_ip, 1);
    } else {
        int kind = -1;
        switch (op->err) {
        case 3: kind = SAT_STORM_ERR_TIMELIMIT; break;
        case 11: kind = SAT_STORM_ERR_ADMINLIMIT; break;
        case 51: kind = SAT_STORM_ERR_BUSY; break;
        case 52: kind = SAT_STORM_ERR_UNAVAILABLE; break;
        case 80: kind = SAT_STORM_ERR_OTHER; break;
        default: break;
        }
        if (kind >= 0) {
            count(s, rts, kind, op->client_ip);
            st_connkey k;
            memset(&k, 0, sizeof k);
            k.server = op->server;
            k.epoch = op->conn_epoch;
            k.conn = op->conn;
            int capped;
            st_dedup *d = (st_dedup *)sat_strtab_upsert(&s->ldap_dedup, &k, sizeof k, NULL,
                                                        &capped);
            if (d && d->has && st_is_client_left(d->kind)) {
                /* its close came first: the answer takes its place */
                uncount(s, d->ts, d->kind, op->client_ip);
                s->t.f.deduped++;
                d->has = 0;
            }
            if (d)
                d->errs = 1;
            else
                s->nomem |= !capped;
        }
    }
    if (op->type == SAT_OP_UNBIND || op->type == SAT_OP_ABANDON || op->ts_ns <= 0)
        return SAT_OK;
    if ((op->flags & SAT_OPF_UNFINISHED) && (op->flags & SAT_OPF_CONN_CLOSED) &&
        !(op->flags & SAT_OPF_PERSISTENT))
        st_keep_closed_waiting(s, op);
    uint32_t *id = NULL;
    if (op->client_ip.len) {
        int capped;
        id = st_intern(&s->peers, op->client_ip.ptr, op->client_ip.len, &capped);
    }
    int bucket = op->etime >= 0 ? st_hist_bucket(op->etime) : 0;
    FOR_EACH_WINDOW(s, op->ts_ns, w)
        op_window(w, op, id, bucket);
    return SAT_OK;
}

/* bucket: st_hist_bucket(op->etime), once for every series */
static void op_window(st_win *w, const sat_ldap_op *op, const uint32_t *id, int bucket)
{
    w->ld.ops++;
    if (id)
        st_mg_add(w, *id, 1);
    if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
        w->ld.unindexed++;
    if ((op->flags & SAT_OPF_UNFINISHED) && (op->flags & SAT_OPF_CONN_CLOSED) &&
        !(op->flags & SAT_OPF_PERSISTENT)) {
        w->hist[ST_HIST]++; /* never answered: the longest wait of all */
        w->ld.timed++;
    } else if (op->etime >= 0) {
        w->hist[bucket]++;
        w->ld.timed++;
    }
    if (op->wtime >= 0) {
        sat_sum_add(&w->wtime_sum_ns, op->wtime);
        w->ld.wtime_n++;
    }
    /* the work of an operation, without its wait: optime, or etime - wtime;
     * unindexed searches are a signal of their own */
    sat_dur_ns work = op->optime >= 0                     ? op->optime
                      : op->etime >= 0 && op->wtime >= 0 ? op->etime - op->wtime
                                                          : -1;
    /* the work per search: a slow disk or a lock shows in every search; a
     * batch of long searches (unmarked where the log cannot mark unindexed
     * ones) is a signal of its own, and so are the other operations' costs
     * (a re-bind storm's password hashing is the retries', not the server's);
     * a search answered busy or unavailable was refused, not worked on: its
     * zero would pull the work per search down just when the queue is full */
    if (work >= 0 && op->type == SAT_OP_SRCH && !(op->notes & (SAT_NOTE_A | SAT_NOTE_U)) &&
        op->err != 51 && op->err != 52) {
        if (work >= ST_LONG_SEARCH_NS) {
            w->ld.long_searches++;
        } else {
            sat_sum_add(&w->optime_sum_ns, work);
            w->ld.optime_n++;
        }
    }
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    sat_storms *s = (sat_storms *)ctx;
    s->t.rows.ldap_conns++;
    if (c->open_ts > 0)
        FOR_EACH_WINDOW(s, c->open_ts, w)
            w->sc.opens++;
    keep_ldap_attempt(s, c);
    int kind = -1;
    switch (c->close_code) {
    case SAT_CLOSE_A1: kind = SAT_STORM_CLOSE_A1; break;
    case SAT_CLOSE_B1: kind = SAT_STORM_CLOSE_B1; break;
    case SAT_CLOSE_B4: kind = SAT_STORM_CLOSE_B4; break;
    case SAT_CLOSE_T1: kind = SAT_STORM_CLOSE_T1; break;
    case SAT_CLOSE_T2: kind = SAT_STORM_CLOSE_T2; break;
    case SAT_CLOSE_T3: kind = SAT_STORM_CLOSE_T3; break;
    default: break;
    }
    if (kind < 0 || c->close_ts <= 0)
        return SAT_OK;
    st_connkey k;
    memset(&k, 0, sizeof k);
    k.server = c->server;
    k.epoch = c->conn_epoch;
    k.conn = c->conn;
    count_keyed(s, &s->ldap_dedup, &k, sizeof k, c->close_ts, kind, c->client_ip, 1);
    return SAT_OK;
}

static void count_wire(sat_storms *s, uint32_t source, uint32_t flow, sat_ts_ns ts, int kind,
                       sat_str client)
{
    uint32_t k[2] = {source, flow};
    count_keyed(s, &s->wire_dedup, k, sizeof k, ts, kind, client, 0);
}

/* Whether a handshake redoes its client's last one, which did not finish
 * (the client, with no session to resume, has to begin again in full); and
 * whether this one finished, for the next. */
static int redone(sat_storms *s, const sat_tls_hs *h)
{
    if (h->flags & SAT_TLSF_NO_CLIENT_HELLO || !h->client_ip.len)
        return 0;
    int capped;
    uint32_t *id = st_intern(&s->peers, h->client_ip.ptr, h->client_ip.len, &capped);
    if (!id) {
        s->nomem |= !capped;
        return 0;
    }
    if (*id >= s->hs_unfinished_cap) {
        size_t old = s->hs_unfinished_cap;
        if (SAT_GROW(s->hs_unfinished, s->hs_unfinished_cap, (size_t)*id + 1) != SAT_OK) {
            s->nomem = 1;
            return 0;
        }
        memset(s->hs_unfinished + old, 0, s->hs_unfinished_cap - old);
    }
    int was = s->hs_unfinished[*id];
    s->hs_unfinished[*id] = h->outcome == SAT_TLS_INCOMPLETE || h->outcome == SAT_TLS_FAILED;
    return was;
}

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    sat_storms *s = (sat_storms *)ctx;
    s->t.rows.tls_hs++;
    int redo = redone(s, h) && h->outcome == SAT_TLS_FULL;
    FOR_EACH_WINDOW(s, h->ts, w) {
        w->sc.hs_full += h->outcome == SAT_TLS_FULL;
        w->sc.hs_redone += (uint64_t)redo;
        w->sc.hs += h->outcome == SAT_TLS_FULL || h->outcome == SAT_TLS_RESUMED;
        /* how long the server took to answer; a ClientHello the client gave
         * up on is the longest wait (an alert before any ServerHello is an
         * answer, but its time is not kept) */
        if (!(h->flags & SAT_TLSF_NO_CLIENT_HELLO)) {
            if (h->outcome == SAT_TLS_INCOMPLETE) {
                w->ans_hist[ST_HIST]++;
                w->ld.answered++;
            } else if (h->server_hello_ts >= h->ts && h->server_hello_ts > 0) {
                w->ans_hist[st_hist_bucket(h->server_hello_ts - h->ts)]++;
                w->ld.answered++;
            }
        }
    }
    if (h->outcome == SAT_TLS_INCOMPLETE || h->outcome == SAT_TLS_FAILED)
        count_wire(s, h->source, h->flow, h->ts,
                   h->outcome == SAT_TLS_INCOMPLETE ? SAT_STORM_TLS_INCOMPLETE
                                                    : SAT_STORM_TLS_FAILED,
                   h->client_ip);
    return SAT_OK;
}

/* A new row of the attempts table, its client interned; NULL when the
 * table is full or memory ran out (counted: not examined). */
static st_attempt *new_attempt(sat_storms *s, sat_str client_ip)
{
    if (s->nattempts == s->attempts_cap) {
        if (s->attempts_cap >= ST_ATTEMPTS_MAX) {
            s->t.f.not_examined++;
            return NULL;
        }
        if (SAT_GROW(s->attempts, s->attempts_cap, s->nattempts + 1) != SAT_OK) {
            s->nomem = 1;
            return NULL;
        }
    }
    int capped;
    uint32_t *id = st_intern(&s->peers, client_ip.ptr, client_ip.len, &capped);
    if (!id) {
        s->nomem |= !capped;
        s->t.f.not_examined++;
        return NULL;
    }
    st_attempt *a = &s->attempts[s->nattempts++];
    memset(a, 0, sizeof *a);
    a->client = *id;
    return a;
}

/* Remember the connection for the retry rule (st_finish_retries). Without its
 * SYN the connection started before the capture: not a retry of anything. */
static void keep_attempt(sat_storms *s, const sat_tcp_conn *c)
{
    if ((c->flags & SAT_TCPF_NO_SYN) || c->syn_ts <= 0 || !c->client_ip.len || s->nomem)
        return;
    st_attempt *a = new_attempt(s, c->client_ip);
    if (!a)
        return;
    sat_try_of_tcp(&a->t, c);
    a->source = c->source;
    a->unanswered = c->bytes_c2s > 0 && c->bytes_s2c == 0;
}

/* The same for an LDAP connection of a log: its open and close (a client
 * that gave up on it and opened another is retrying, as in a capture). */
static void keep_ldap_attempt(sat_storms *s, const sat_ldap_conn *c)
{
    if (c->open_ts <= 0 || !c->client_ip.len || s->nomem)
        return;
    st_attempt *a = new_attempt(s, c->client_ip);
    if (!a)
        return;
    uint64_t h = sat_strtab_hash(c->client_ip.ptr, c->client_ip.len) * 0x9e3779b97f4a7c15ULL;
    a->t.peer = h ^ sat_hash_u64(0x4c444150ULL << 32 | c->server); /* "LDAP" */
    a->t.syn_ts = c->open_ts;
    a->t.gave_up_ts = c->close_ts > c->open_ts ? c->close_ts : c->open_ts; /* its close */
    a->source = c->server;
    a->t.flow = c->conn_epoch;
    a->t.conn = c->conn;
    a->ldap = 1;
}

static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    sat_storms *s = (sat_storms *)ctx;
    s->t.rows.tcp_conns++;
    if (!(c->flags & SAT_TCPF_NO_SYN))
        FOR_EACH_WINDOW(s, c->syn_ts, w)
            w->sc.opens++;
    /* a client that resets or closes a connection it was done with is not
     * failing: only one leaving a request unanswered is */
    int waiting = (c->flags & SAT_TCPF_CLIENT_LEFT_WAITING) != 0;
    /* dated when the client gave up, not when the connection ended (a frozen
     * server answers and closes dead connections much later) */
    sat_ts_ns left = c->client_left_ts > 0 ? c->client_left_ts : c->end_ts;
    if (c->flags & SAT_TCPF_SYN_GAVE_UP)
        count_wire(s, c->source, c->flow,
                   c->client_left_ts > 0 ? c->client_left_ts
                                         : c->end_ts + (sat_dur_ns)1000000000,
                   SAT_STORM_SYN_UNANSWERED, c->client_ip);
    else if (c->end == SAT_TCP_END_RST_CLIENT && waiting)
        count_wire(s, c->source, c->flow, left, SAT_STORM_RST_CLIENT, c->client_ip);
    else if (c->end == SAT_TCP_END_FIN_CLIENT && waiting)
        count_wire(s, c->source, c->flow, left, SAT_STORM_FIN_WAITING, c->client_ip);
    else if (c->syn_retrans && !c->bytes_c2s)
        count_wire(s, c->source, c->flow, c->syn_ts, SAT_STORM_SYN_RETRY, c->client_ip);
    keep_attempt(s, c);
    return SAT_OK;
}

/* One row into a plain analyzer (a router sends each row here, to the
 * sub of its server: storms_servers.c). */
int st_on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    case SAT_TABLE_HTTP_REQ:
        st_on_http((sat_storms *)ctx, (const sat_http_req *)row);
        return SAT_OK;
    default:
        return SAT_OK;
    }
}

/* The retries (the rule: retry_rule.h): from one client address to one
 * server address and port (a capture's TCP connections; a log's LDAP
 * connections: to one server), a failure is a connection a failure is
 * counted on, or one never answered (the client sent bytes, the server
 * none). The retry is counted where it started (amplification); the
 * connection given up is a failure of kind "retried" unless another kind
 * already counts it.
 * A client that opens connections often opens one soon after any failure,
 * retrying or not (a batch job, an application's pool, a busy host): the
 * chance of that is counted beside the retries, per failure where it was
 * given up, from the client's own rate of connections away from its failures
 * (a Poisson rate r: 1 - exp(-r x retry_window); chance_of_next); what fed a
 * storm is the retries beyond it (storms_chain.c mechanism_of). */

/* Whether a failure is counted on the connection (its dedup key found). */
static int attempt_counted(const sat_storms *s, const st_attempt *a)
{
    if (a->ldap) {
        st_connkey k;
        memset(&k, 0, sizeof k);
        k.server = a->source;
        k.epoch = a->t.flow;
        k.conn = a->t.conn;
        return sat_strtab_find(&s->ldap_dedup, &k, sizeof k) != NULL;
    }
    uint32_t key[2] = {a->source, a->t.flow};
    return sat_strtab_find(&s->wire_dedup, key, sizeof key) != NULL;
}

/* The chance that a peer's next connection falls within the retry window
 * of each of its nf failures (fail[], by give-up time) anyway, added to the
 * failure's window. The peer's own rate is read where no failure of its was
 * just given up, after its start-up (its first ST_STARTUP_S: a pool opening
 * its connections, many clients behind one address starting, is a burst,
 * not a rate): its connections outside those windows, one per second at
 * most, over the time outside them (at least ST_CALM_S of it). */
static void chance_of_next(sat_storms *s, const st_attempt *a, size_t n, const sat_ts_ns *fail,
                           size_t nf)
{
    sat_dur_ns win = s->opts.retry_window;
    if (!nf || n < 2 || a[n - 1].t.syn_ts <= a[0].t.syn_ts || win <= 0)
        return;
    sat_ts_ns from = a[0].t.syn_ts + (sat_ts_ns)(ST_STARTUP_S * 1e9), to = a[n - 1].t.syn_ts;
    if (to <= from)
        return;
    uint64_t seconds = 0;
    int64_t last_sec = INT64_MIN;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].t.syn_ts < from)
            continue;
        while (k < nf && fail[k] <= a[i].t.syn_ts)
            k++;
        if (k && a[i].t.syn_ts - fail[k - 1] <= win)
            continue; /* just after a failure: a retry or not, not the rate */
        int64_t sec = a[i].t.syn_ts / (sat_ts_ns)1000000000;
        seconds += sec != last_sec;
        last_sec = sec;
    }
    /* the time outside the windows after failures, within the peer's span */
    sat_ts_ns covered = 0, reach = from;
    for (size_t f = 0; f < nf; f++) {
        sat_ts_ns lo = fail[f] > reach ? fail[f] : reach;
        sat_ts_ns hi = fail[f] + win < to ? fail[f] + win : to;
        if (hi > lo) {
            covered += hi - lo;
            reach = hi;
        }
    }
    double outside = (double)(to - from - covered) / 1e9;
    if (outside < ST_CALM_S || !seconds)
        return; /* too little calm time to read a rate from: taken as none */
    double p = 1.0 - exp(-((double)seconds / outside) * ((double)win / 1e9));
    uint64_t u = (uint64_t)llround(p * 1e6);
    for (size_t i = 0; i < nf && u; i++)
        FOR_EACH_WINDOW(s, fail[i], w)
            w->sc.retries_chance_u += u;
}

static void on_retry(void *ctx, size_t i, size_t f)
{
    sat_storms *s = (sat_storms *)ctx;
    const st_attempt *cur = &s->attempts[i], *prev = &s->attempts[f];
    s->t.f.retries++;
    FOR_EACH_WINDOW(s, cur->t.syn_ts, w)
        w->sc.retries++;
    if (!prev->ldap && !attempt_counted(s, prev)) {
        sat_str client;
        client.ptr = sat_strtab_key(&s->peers, prev->client);
        client.len = sat_strtab_len(&s->peers, prev->client);
        count_wire(s, prev->source, prev->t.flow, prev->t.gave_up_ts, SAT_STORM_RETRIED, client);
    }
}

static void on_peer(void *ctx, size_t first, size_t n, const sat_ts_ns *gave_up, size_t nf)
{
    sat_storms *s = (sat_storms *)ctx;
    chance_of_next(s, &s->attempts[first], n, gave_up, nf);
}

void st_finish_retries(sat_storms *s)
{
    if (!s->nattempts)
        return;
    for (size_t i = 0; i < s->nattempts; i++) {
        st_attempt *a = &s->attempts[i];
        a->t.failed = a->unanswered || attempt_counted(s, a);
    }
    if (sat_try_match(s->attempts, s->nattempts, sizeof *s->attempts, s->opts.retry_window,
                      on_retry, on_peer, s) != SAT_OK)
        s->nomem = 1;
    s->nattempts = 0; /* counted: a second finish must not count them again */
}
