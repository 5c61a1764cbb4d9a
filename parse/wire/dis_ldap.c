
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
#include "dis_ldap_int.h"

static void count_skipped_entry(ldap_st *s, int dir, const uint8_t *p, size_t n)
{
    int t = 0;
    int64_t id = 0;
    if (dir == SAT_DIR_S2C && sat_dl_plausible(p, n, dir, &t, &id) != 0 && t == T_ENTRY) {
        lpend *e = sat_dl_pend_get(s, (int32_t)id);
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
    if (SAT_GROW(d->buf, d->cap, d->len + n) != SAT_OK)
        return SAT_E_NOMEM;
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
        int v = sat_dl_plausible(q, (size_t)(end - q), dir, &t, NULL);
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
            int fr = sat_dl_frame_len(d->buf, d->len, &total);
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
                rc = dispatch(s, dir, sat_dl_handle_msg(s, dir, ts, d->buf, (size_t)total));
                if (rc != SAT_OK)
                    return rc;
            }
            continue;
        }
        int fr = sat_dl_frame_len(p, n, &total);
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
            rc = dispatch(s, dir, sat_dl_handle_msg(s, dir, ts, p, (size_t)total));
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
        int fr = sat_dl_frame_len(d->buf, d->len, &total);
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
    sat_dl_rec_init(s, &r, SAT_REC_CLOSE, ts, SAT_ABSENT);
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
    int v = sat_dl_plausible(buf, len, dir, NULL, NULL);
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
