/*
 * http_row.c - the row builder: the spans one line's matcher found (a compiled
 * format or a PCRE2 pattern, http_int.h) -> one sat_http_req (event.h),
 * whatever syntax described the line.
 *
 * The rules, once for every format:
 *   - time: the most precise time field the line holds (the compiler keeps one;
 *     a pattern may give several: epoch us, ms, s, then ISO, CLF, strftime), with
 *     %{msec_frac}t / %{usec_frac}t added to a CLF or strftime time; a line
 *     whose time is missing or unreadable is rejected ("no time", "bad time");
 *   - ts is the request's start: a format whose time is the end (facts) gives
 *     ts = end - response time (SAT_HTTPF_TS_END), or the end itself when no
 *     response time was logged (SAT_HTTPF_TS_END_ONLY);
 *   - durations to ns: $request_time seconds with fraction, %D microseconds,
 *     %{ms}T milliseconds, %T whole seconds (SAT_HTTPF_RT_COARSE);
 *     $upstream_response_time is a list "0.010, 0.020 : 0.005" (',' between
 *     servers tried, ':' between upstream groups, nginx's ngx_http_upstream
 *     docs): summed, its "-" entries skipped, all "-" = not known; a response
 *     or (summed) upstream time past the plausible bound (event.h) rejects the
 *     line, naming it;
 *   - "-" is "not known" for every field (SAT_ABSENT, SAT_STR_NONE), but CLF's
 *     bytes (%b), where "-" means none were sent: 0;
 *   - the request line "GET /a?b HTTP/1.1" is split at its blanks; "-", or one
 *     that is not METHOD TARGET [PROTOCOL] (what a client that sent garbage
 *     leaves: nginx logs the bytes), sets SAT_HTTPF_NO_REQUEST_LINE;
 *   - the TLS session: nginx "r" resumed / "." new, Apache "Resumed" / "Initial";
 *     a TLS protocol or session flag sets SAT_HTTPF_TLS;
 *   - conn_request: $connection_requests as logged, Apache %k + 1.
 */
#include "http_int.h"
#include "timefmt.h"

const char *sat_http_field_name(int f)
{
    static const char *const names[SAT_HF__COUNT] = {
        [SAT_HF_IGNORE] = "ignore",
        [SAT_HF_CLIENT] = "client",
        [SAT_HF_CLIENT_PORT] = "client_port",
        [SAT_HF_USER] = "user",
        [SAT_HF_TIME_CLF] = "time_clf",
        [SAT_HF_TIME_ISO] = "time_iso",
        [SAT_HF_TIME_EPOCH_S] = "time_epoch",
        [SAT_HF_TIME_EPOCH_MS] = "time_epoch_ms",
        [SAT_HF_TIME_EPOCH_US] = "time_epoch_us",
        [SAT_HF_TIME_STRF] = "time_strf",
        [SAT_HF_TIME_FRAC_MS] = "time_frac_ms",
        [SAT_HF_TIME_FRAC_US] = "time_frac_us",
        [SAT_HF_REQUEST] = "request",
        [SAT_HF_METHOD] = "method",
        [SAT_HF_TARGET] = "target",
        [SAT_HF_PATH] = "path",
        [SAT_HF_QUERY] = "query",
        [SAT_HF_PROTOCOL] = "protocol",
        [SAT_HF_STATUS] = "status",
        [SAT_HF_BYTES] = "bytes",
        [SAT_HF_BYTES_CLF] = "bytes_clf",
        [SAT_HF_RT_S] = "rt_s",
        [SAT_HF_RT_MS] = "rt_ms",
        [SAT_HF_RT_US] = "rt_us",
        [SAT_HF_RT_WHOLE_S] = "rt_whole_s",
        [SAT_HF_UPSTREAM_S] = "upstream_s",
        [SAT_HF_TLS_PROTOCOL] = "tls_protocol",
        [SAT_HF_TLS_REUSED] = "tls_reused",
        [SAT_HF_TLS_RESUMED] = "tls_resumed",
        [SAT_HF_CONN] = "conn",
        [SAT_HF_CONN_REQUESTS] = "conn_requests",
        [SAT_HF_KEEPALIVE] = "keepalive",
        [SAT_HF_VHOST] = "vhost",
        [SAT_HF_USER_AGENT] = "user_agent",
        [SAT_HF_REFERER] = "referer",
    };
    return f >= 0 && f < SAT_HF__COUNT && names[f] ? names[f] : "?";
}

uint32_t sat_http_source_fields(const sat_http_facts *f)
{
    uint64_t p = f->present;
    uint32_t out = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE;
    if (p & (SAT_HF_BIT(SAT_HF_RT_S) | SAT_HF_BIT(SAT_HF_RT_MS) | SAT_HF_BIT(SAT_HF_RT_US) |
             SAT_HF_BIT(SAT_HF_RT_WHOLE_S)))
        out |= SAT_FIELD_BIT(SAT_FIELD_ETIME);
    if (p & (SAT_HF_BIT(SAT_HF_TLS_REUSED) | SAT_HF_BIT(SAT_HF_TLS_RESUMED)))
        out |= SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION);
    if (p & (SAT_HF_BIT(SAT_HF_CONN_REQUESTS) | SAT_HF_BIT(SAT_HF_KEEPALIVE)))
        out |= SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST);
    if (p & SAT_HF_BIT(SAT_HF_UPSTREAM_S))
        out |= SAT_FIELD_BIT(SAT_FIELD_UPSTREAM);
    return out;
}

/* ---- numbers ---------------------------------------------------------------------- */
/* Seconds with an optional fraction, "0.123" -> ns; -1 if the span is not one. */
static int secs_ns(const char *p, size_t n, int64_t *ns)
{
    const char *end = p + n, *q = p;
    int64_t s = 0;
    while (q < end && hx_digit(*q)) {
        s = s * 10 + (*q++ - '0');
        if (s > 9000000000LL) /* past 2255, or a duration of 285 years: an int64 of ns */
            return -1;
    }
    int64_t frac = 0;
    if (q < end && *q == '.') {
        const char *f = q + 1;
        q = sat_fraction_ns(f, end, &frac, NULL);
        if (q == f && q == p + 1)
            return -1; /* "." alone */
    } else if (q == p) {
        return -1;
    }
    if (q != end)
        return -1;
    *ns = s * 1000000000LL + frac;
    return 0;
}

/* A whole number of `unit` ns; -1 if not one. */
static int whole_ns(sat_str v, int64_t unit, int64_t *ns)
{
    int64_t x;
    if (hx_uint(v.ptr, v.len, &x) < 0 || x > INT64_MAX / unit)
        return -1;
    *ns = x * unit;
    return 0;
}

/* The upstream list; 1 with *ns, 0 all "-", -1 malformed. */
static int upstream_sum(const char *p, size_t n, int64_t *ns)
{
    const char *end = p + n;
    int64_t sum = 0;
    int any = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ',' || *p == ':'))
            p++;
        const char *s = p;
        while (p < end && *p != ' ' && *p != ',' && *p != ':')
            p++;
        if (p == s)
            break;
        if (p - s == 1 && *s == '-')
            continue;
        int64_t v;
        if (secs_ns(s, (size_t)(p - s), &v) < 0 || v > INT64_MAX - sum)
            return -1;
        sum += v;
        any = 1;
    }
    *ns = sum;
    return any;
}

/* ---- the request line ------------------------------------------------------------ */
static int is_token_char(char c)
{
    /* RFC 9110 tchar */
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || hx_digit(c) ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static void split_request(sat_str r, sat_http_req *out)
{
    const char *p = r.ptr, *end = r.ptr + r.len;
    if (hx_dash(r)) {
        out->flags |= SAT_HTTPF_NO_REQUEST_LINE;
        return;
    }
    const char *m = p;
    while (p < end && is_token_char(*p))
        p++;
    if (p == m || p >= end || *p != ' ') {
        out->flags |= SAT_HTTPF_NO_REQUEST_LINE;
        return;
    }
    const char *me = p;
    while (p < end && *p == ' ')
        p++;
    const char *t = p;
    /* the target runs to the last blank: a raw blank inside it (Apache logs
     * what the client sent) stays in the target */
    const char *te = end;
    const char *sp = end;
    while (sp > t && sp[-1] != ' ')
        sp--;
    if (sp > t && end - sp >= 5 && memcmp(sp, "HTTP/", 5) == 0) {
        te = sp - 1;
        while (te > t && te[-1] == ' ')
            te--;
        out->protocol = sat_str_make(sp, (size_t)(end - sp));
    }
    if (te == t) {
        out->flags |= SAT_HTTPF_NO_REQUEST_LINE;
        out->protocol = SAT_STR_NONE;
        return;
    }
    out->method = sat_str_make(m, (size_t)(me - m));
    out->path = sat_str_make(t, (size_t)(te - t));
}

/* ---- the client -------------------------------------------------------------------- */
static void client(sat_str v, sat_http_req *out)
{
    if (hx_dash(v))
        return;
    const char *p = v.ptr, *end = p + v.len;
    const char *colon = NULL;
    int colons = 0;
    for (const char *q = p; q < end; q++)
        if (*q == ':') {
            colons++;
            colon = q;
        }
    int64_t port;
    if (p[0] == '[') { /* "[v6]:port" */
        const char *rb = memchr(p, ']', v.len);
        if (rb) {
            out->client_ip = sat_str_make(p + 1, (size_t)(rb - p - 1));
            if (rb + 1 < end && rb[1] == ':' &&
                hx_uint(rb + 2, (size_t)(end - rb - 2), &port) == 0 && port <= 65535)
                out->client_port = (uint16_t)port;
            return;
        }
    } else if (colons == 1 && hx_uint(colon + 1, (size_t)(end - colon - 1), &port) == 0 &&
               port <= 65535) {
        out->client_ip = sat_str_make(p, (size_t)(colon - p));
        out->client_port = (uint16_t)port;
        return;
    }
    out->client_ip = v;
}

static sat_str text(sat_str v) { return hx_dash(v) ? SAT_STR_NONE : v; }

/* ---- time ------------------------------------------------------------------------- */
static int line_time(const sat_http_caps *c, const sat_http_facts *f, sat_ts_ns *ts,
                     int32_t *off, const char **why)
{
    const sat_str *v = c->v;
    int64_t x;
    *off = 0;
    if (v[SAT_HF_TIME_EPOCH_US].ptr && !hx_dash(v[SAT_HF_TIME_EPOCH_US])) {
        if (whole_ns(v[SAT_HF_TIME_EPOCH_US], 1000, ts) < 0)
            goto bad;
        return 0;
    }
    if (v[SAT_HF_TIME_EPOCH_MS].ptr && !hx_dash(v[SAT_HF_TIME_EPOCH_MS])) {
        if (whole_ns(v[SAT_HF_TIME_EPOCH_MS], 1000000, ts) < 0)
            goto bad;
        return 0;
    }
    if (v[SAT_HF_TIME_EPOCH_S].ptr && !hx_dash(v[SAT_HF_TIME_EPOCH_S])) {
        if (secs_ns(v[SAT_HF_TIME_EPOCH_S].ptr, v[SAT_HF_TIME_EPOCH_S].len, ts) < 0)
            goto bad;
        return 0;
    }
    int rc;
    if (v[SAT_HF_TIME_ISO].ptr && !hx_dash(v[SAT_HF_TIME_ISO]))
        rc = sat_http_time_iso(v[SAT_HF_TIME_ISO].ptr, v[SAT_HF_TIME_ISO].len, ts, off);
    else if (v[SAT_HF_TIME_CLF].ptr && !hx_dash(v[SAT_HF_TIME_CLF]))
        rc = sat_http_time_clf(v[SAT_HF_TIME_CLF].ptr, v[SAT_HF_TIME_CLF].len, ts, off);
    else if (v[SAT_HF_TIME_STRF].ptr && f->strf[0])
        rc = sat_http_time_strf(f->strf, v[SAT_HF_TIME_STRF].ptr, v[SAT_HF_TIME_STRF].len, ts,
                                off);
    else {
        *why = "no time";
        return -1;
    }
    if (rc < 0)
        goto bad;
    /* the fraction logged beside a time of whole seconds */
    if (v[SAT_HF_TIME_FRAC_US].ptr) {
        if (v[SAT_HF_TIME_FRAC_US].len != 6 || hx_uint(v[SAT_HF_TIME_FRAC_US].ptr, 6, &x) < 0)
            goto bad;
        *ts += x * 1000;
    } else if (v[SAT_HF_TIME_FRAC_MS].ptr) {
        if (v[SAT_HF_TIME_FRAC_MS].len != 3 || hx_uint(v[SAT_HF_TIME_FRAC_MS].ptr, 3, &x) < 0)
            goto bad;
        *ts += x * 1000000;
    }
    return 0;
bad:
    *why = "bad time";
    return -1;
}

/* A number field: SAT_ABSENT for "-", or the number; -1 if malformed. */
static int count_field(sat_str v, int64_t *out)
{
    if (!v.ptr || hx_dash(v)) {
        *out = SAT_ABSENT;
        return 0;
    }
    return hx_uint(v.ptr, v.len, out);
}

/* The response time in ns from whichever unit was logged; SAT_ABSENT. */
static int response_time(const sat_http_caps *c, sat_http_req *out)
{
    const sat_str *v = c->v;
    out->response_time = SAT_ABSENT;
    if (v[SAT_HF_RT_US].ptr && !hx_dash(v[SAT_HF_RT_US]))
        return whole_ns(v[SAT_HF_RT_US], 1000, &out->response_time);
    if (v[SAT_HF_RT_S].ptr && !hx_dash(v[SAT_HF_RT_S]))
        return secs_ns(v[SAT_HF_RT_S].ptr, v[SAT_HF_RT_S].len, &out->response_time);
    if (v[SAT_HF_RT_MS].ptr && !hx_dash(v[SAT_HF_RT_MS]))
        return whole_ns(v[SAT_HF_RT_MS], 1000000, &out->response_time);
    if (v[SAT_HF_RT_WHOLE_S].ptr && !hx_dash(v[SAT_HF_RT_WHOLE_S])) {
        out->flags |= SAT_HTTPF_RT_COARSE;
        return whole_ns(v[SAT_HF_RT_WHOLE_S], 1000000000LL, &out->response_time);
    }
    return 0;
}

int sat_http_row_build(const sat_http_caps *caps, const sat_http_facts *facts,
                       sat_http_scratch *scratch, sat_http_req *out, const char **why)
{
    const sat_str *v = caps->v;
    memset(out, 0, sizeof *out);
    out->status = SAT_ABSENT;
    out->bytes = SAT_ABSENT;
    out->upstream_time = SAT_ABSENT;
    out->conn = SAT_ABSENT;
    out->conn_request = SAT_ABSENT;
    out->method = out->path = out->path_template = out->protocol = SAT_STR_NONE;
    out->tls_protocol = out->vhost = out->user = out->user_agent = out->client_ip =
        SAT_STR_NONE;

    sat_ts_ns t;
    int32_t off;
    if (line_time(caps, facts, &t, &off, why) < 0)
        return SAT_E_FORMAT;
    out->utc_offset_s = off;

    int64_t x;
    if (count_field(v[SAT_HF_STATUS], &x) < 0 || x > 999) {
        *why = "bad status";
        return SAT_E_FORMAT;
    }
    out->status = (int32_t)x;
    if (v[SAT_HF_BYTES_CLF].ptr) {
        if (count_field(v[SAT_HF_BYTES_CLF], &x) < 0)
            goto bad_bytes;
        out->bytes = x == SAT_ABSENT ? 0 : x;
    } else if (count_field(v[SAT_HF_BYTES], &out->bytes) < 0) {
        goto bad_bytes;
    }
    if (response_time(caps, out) < 0) {
        *why = "bad response time";
        return SAT_E_FORMAT;
    }
    if (out->response_time != SAT_ABSENT &&
        sat_parse_dur_check(out->response_time, "response time", scratch->why,
                            sizeof scratch->why)) {
        *why = scratch->why;
        return SAT_E_FORMAT;
    }
    if (v[SAT_HF_UPSTREAM_S].ptr) {
        int u = upstream_sum(v[SAT_HF_UPSTREAM_S].ptr, v[SAT_HF_UPSTREAM_S].len, &x);
        if (u < 0) {
            *why = "bad upstream time";
            return SAT_E_FORMAT;
        }
        /* the bound is the request's: the sum of the upstreams it tried */
        if (u > 0 && sat_parse_dur_check(x, "upstream time", scratch->why, sizeof scratch->why)) {
            *why = scratch->why;
            return SAT_E_FORMAT;
        }
        if (u > 0)
            out->upstream_time = x;
    }
    if (count_field(v[SAT_HF_CONN], &out->conn) < 0 ||
        count_field(v[SAT_HF_CONN_REQUESTS], &out->conn_request) < 0) {
        *why = "bad connection number";
        return SAT_E_FORMAT;
    }
    if (out->conn_request == SAT_ABSENT && v[SAT_HF_KEEPALIVE].ptr) {
        if (count_field(v[SAT_HF_KEEPALIVE], &x) < 0) {
            *why = "bad keepalive count";
            return SAT_E_FORMAT;
        }
        out->conn_request = x == SAT_ABSENT ? SAT_ABSENT : x + 1;
    }

    /* the client */
    if (v[SAT_HF_CLIENT].ptr)
        client(v[SAT_HF_CLIENT], out);
    if (v[SAT_HF_CLIENT_PORT].ptr && count_field(v[SAT_HF_CLIENT_PORT], &x) == 0 &&
        x != SAT_ABSENT && x <= 65535)
        out->client_port = (uint16_t)x;
    out->user = text(v[SAT_HF_USER]);
    out->vhost = text(v[SAT_HF_VHOST]);
    out->user_agent = text(v[SAT_HF_USER_AGENT]);

    /* the request */
    if (v[SAT_HF_REQUEST].ptr)
        split_request(v[SAT_HF_REQUEST], out);
    if (v[SAT_HF_METHOD].ptr && !hx_dash(v[SAT_HF_METHOD]))
        out->method = v[SAT_HF_METHOD];
    if (v[SAT_HF_PROTOCOL].ptr && !hx_dash(v[SAT_HF_PROTOCOL]))
        out->protocol = v[SAT_HF_PROTOCOL];
    if (v[SAT_HF_TARGET].ptr && !hx_dash(v[SAT_HF_TARGET])) {
        out->path = v[SAT_HF_TARGET];
    } else if (v[SAT_HF_PATH].ptr && !hx_dash(v[SAT_HF_PATH])) {
        out->path = v[SAT_HF_PATH];
        /* %U%q side by side in the line: the target as the client sent it */
        sat_str q = v[SAT_HF_QUERY];
        if (q.ptr && q.len && q.ptr == out->path.ptr + out->path.len && q.ptr[0] == '?')
            out->path.len += q.len;
    }
    if (!v[SAT_HF_REQUEST].ptr && !out->path.ptr)
        out->flags |= v[SAT_HF_METHOD].ptr || v[SAT_HF_PATH].ptr || v[SAT_HF_TARGET].ptr
                          ? SAT_HTTPF_NO_REQUEST_LINE
                          : 0;
    if (out->path.ptr) {
        size_t n = sat_http_path_template(out->path.ptr, out->path.len, scratch->tmpl,
                                          sizeof scratch->tmpl);
        out->path_template = sat_str_make(scratch->tmpl, n);
        if (sat_http_path_is_static(scratch->tmpl, n))
            out->flags |= SAT_HTTPF_STATIC;
    }

    /* TLS */
    sat_str tp = v[SAT_HF_TLS_PROTOCOL];
    if (tp.ptr && !hx_dash(tp)) {
        out->tls_protocol = tp;
        out->flags |= SAT_HTTPF_TLS;
    }
    sat_str r = v[SAT_HF_TLS_REUSED];
    if (r.ptr && r.len == 1 && (r.ptr[0] == 'r' || r.ptr[0] == '.')) {
        out->tls_session = r.ptr[0] == 'r' ? SAT_HTTP_SESSION_RESUMED : SAT_HTTP_SESSION_NEW;
        out->flags |= SAT_HTTPF_TLS;
    }
    r = v[SAT_HF_TLS_RESUMED];
    if (r.ptr && ((r.len == 7 && !memcmp(r.ptr, "Resumed", 7)) ||
                  (r.len == 7 && !memcmp(r.ptr, "Initial", 7)))) {
        out->tls_session = r.ptr[0] == 'R' ? SAT_HTTP_SESSION_RESUMED : SAT_HTTP_SESSION_NEW;
        out->flags |= SAT_HTTPF_TLS;
    }

    /* the start of the request */
    out->ts = t;
    if (facts->time_is_end) {
        out->flags |= SAT_HTTPF_TS_END;
        if (out->response_time != SAT_ABSENT)
            out->ts = t - out->response_time;
        else
            out->flags |= SAT_HTTPF_TS_END_ONLY;
    }
    return SAT_OK;
bad_bytes:
    *why = "bad byte count";
    return SAT_E_FORMAT;
}
