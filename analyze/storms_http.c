/*
 * storms_http.c - the storms analyzer on HTTP requests (http_req rows of
 * nginx, Apache httpd and Tomcat access logs): which requests are client
 * failures, and what each adds to the load and the reconnect signals the
 * chain of a storm reads (storms_chain.c). Statuses per RFC 9110 section 15
 * (408, 502, 503, 504) and nginx's 499 (ngx_http_request.h: "client closed
 * request").
 *
 * A request is one failure at most, of the first kind that fits:
 *   http_408 .. http_504  its status is 408, 499, 502, 503 or 504: the server
 *                         turned it away or gave up on it, or the client left
 *                         before the answer (499);
 *   slow                  any other status (or none logged) with a response
 *                         time of opts.slow or more (default 1 s): a client
 *                         that waits no longer than that had given up before
 *                         the answer came, which the server logged as a
 *                         success (nginx logs 200 when its answer left just
 *                         before the client's timer ran out; set --slow to
 *                         the clients' timeout).
 * It is dated when the client saw it: the response's end (start + response
 * time; the start when no response time is logged), the way an LDAP error
 * is dated by its RESULT.
 *
 * What each request adds to its window (by its start, as an LDAP operation
 * by its request): one to the load (ld.ops, and ld.reqs for the windows table), its
 * client to the heavy hitters, its response time to the etime histogram
 * (the response-time p90 signal). A connection's first request
 * (conn_request 1: $connection_requests, %k + 1) is a connection opened, and
 * when its TLS session flag is logged ($ssl_session_reused, Apache's
 * SSL_SESSION_RESUMED) a full or resumed handshake: the reconnect side of a
 * storm. A log without connection numbers opens no connection (unknown, not
 * zero: the signals stay absent).
 */
#include "satscope/fields.h"

#include "storms_internal.h"

/* What an HTTP log's format logs (fields.h): without a response time its
 * slow answers cannot be seen, without the request's number on its
 * connection neither the connections opened nor their handshakes. */
void st_http_source(sat_storms *s, const sat_source *src)
{
    if (!(src->fields & SAT_FIELDS_HTTP_SOURCE))
        return;
    uint32_t f = sat_source_fields(src);
    s->t.http.count++;
    s->t.http.no_rt += !(f & SAT_FIELD_BIT(SAT_FIELD_ETIME));
    s->t.http.no_conn += !(f & SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST));
}

static int status_kind(int32_t status)
{
    switch (status) {
    case 408: return SAT_STORM_HTTP_408;
    case 499: return SAT_STORM_HTTP_499;
    case 502: return SAT_STORM_HTTP_502;
    case 503: return SAT_STORM_HTTP_503;
    case 504: return SAT_STORM_HTTP_504;
    default: return -1;
    }
}

void st_on_http(sat_storms *s, const sat_http_req *r)
{
    s->t.rows.http_reqs++;
    if (r->ts <= 0)
        return;
    int has_rt = r->response_time >= 0;
    int kind = status_kind(r->status);
    if (kind < 0 && has_rt && s->opts.slow > 0 && r->response_time >= s->opts.slow)
        kind = SAT_STORM_SLOW;
    if (kind >= 0)
        st_count(s, has_rt ? r->ts + r->response_time : r->ts, kind, r->client_ip);
    uint32_t *id = NULL;
    if (r->client_ip.len) {
        int capped;
        id = st_intern(&s->peers, r->client_ip.ptr, r->client_ip.len, &capped);
    }
    int first = r->conn_request == 1;
    int bucket = has_rt ? st_hist_bucket(r->response_time) : 0;
    FOR_EACH_WINDOW(s, r->ts, w) {
        w->ld.ops++;
        w->ld.reqs++;
        if (id)
            st_mg_add(w, *id, 1);
        if (has_rt) {
            w->hist[bucket]++;
            w->ld.timed++;
        }
        if (first) {
            w->sc.opens++;
            w->sc.hs_full += r->tls_session == SAT_HTTP_SESSION_NEW;
            w->sc.hs += r->tls_session == SAT_HTTP_SESSION_NEW ||
                        r->tls_session == SAT_HTTP_SESSION_RESUMED;
        }
    }
}
