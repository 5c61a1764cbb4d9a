/*
 * test_http_pattern.c - PCRE2 patterns as access log matchers
 * (parse/http/http_pattern.c): group names to fields, the "time" group's kind told
 * by its text, "end" times, duplicate names, the messages for a pattern that
 * does not compile or names no field, the match limit, and rows built from a
 * pattern's captures equal to those of the format definition of the same
 * fixture line.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http_rows.h"
#include "parse/http/http_pattern.h"

static sat_http_pattern *compile(const char *re, sat_diag *d)
{
    memset(d, 0, sizeof *d);
    sat_http_pattern *p = sat_http_pattern_compile(re, strlen(re), d);
    if (!p)
        fprintf(stderr, "  (pattern: %s)\n", d->msg);
    return p;
}

/* Matches line with p; 1 and caps filled, or 0 with *why. */
static int match(const sat_http_pattern *p, const char *line, sat_http_caps *caps,
                 const char **why)
{
    sat_http_matcher m;
    if (sat_http_pattern_matcher(p, &m) != SAT_OK)
        return -1;
    /* a heap copy with no NUL after it: a read past the line is caught by ASan */
    size_t n = strlen(line);
    char *copy = malloc(n ? n : 1);
    memcpy(copy, line, n);
    *why = NULL;
    int rc = m.match(m.self, copy, n, caps, why);
    /* the spans point into the line: move them to the original for checks */
    for (int f = 0; f < SAT_HF__COUNT; f++)
        if (caps->v[f].ptr)
            caps->v[f].ptr = line + (caps->v[f].ptr - copy);
    free(copy);
    m.free(m.self);
    return rc;
}

static const char NGINX_SAT_RE[] =
    "^(?<client>\\S+) (?<conn>\\d+) (?<conn_requests>\\d+) (?<end>[\\d.]+) \\S+ "
    "\"(?<request>[^\"]*)\" (?<status>\\d+) (?<bytes>\\d+) (?<rt_s>[\\d.]+) "
    "(?<upstream_s>\\S+) (?<tls_protocol>\\S+) (?<tls_reused>\\S+)$";
static const char NGINX_SAT_LINE[] =
    "127.0.0.1 2 1 1796143544.592 2026-12-01T16:45:44+00:00 \"GET /static/small.txt?c=1.2 "
    "HTTP/1.1\" 200 512 0.000 - TLSv1.2 .";

static void test_fields(void)
{
    sat_diag d;
    sat_http_pattern *p = compile(NGINX_SAT_RE, &d);
    CHECK(p != NULL);
    if (!p)
        return;
    const sat_http_facts *f = sat_http_pattern_facts(p);
    CHECK_EQ_INT(f->syntax, SAT_HTTP_SYNTAX_PATTERN);
    CHECK_EQ_INT(f->time_is_end, 1); /* nginx's $msec: when the line was written */
    CHECK(f->present & SAT_HF_BIT(SAT_HF_TLS_REUSED));
    CHECK(f->present & SAT_HF_BIT(SAT_HF_RT_S));
    CHECK(!(f->present & SAT_HF_BIT(SAT_HF_USER_AGENT)));
    CHECK_EQ_STR(f->name, "pattern");
    sat_http_caps caps;
    const char *why;
    CHECK_EQ_INT(match(p, NGINX_SAT_LINE, &caps, &why), 1);
    CHECK_EQ_SSTR(caps.v[SAT_HF_CLIENT], "127.0.0.1");
    CHECK_EQ_SSTR(caps.v[SAT_HF_CONN], "2");
    CHECK_EQ_SSTR(caps.v[SAT_HF_CONN_REQUESTS], "1");
    CHECK_EQ_SSTR(caps.v[SAT_HF_TIME_EPOCH_S], "1796143544.592");
    CHECK_EQ_SSTR(caps.v[SAT_HF_REQUEST], "GET /static/small.txt?c=1.2 HTTP/1.1");
    CHECK_EQ_SSTR(caps.v[SAT_HF_STATUS], "200");
    CHECK_EQ_SSTR(caps.v[SAT_HF_UPSTREAM_S], "-");
    CHECK_EQ_SSTR(caps.v[SAT_HF_TLS_REUSED], ".");
    CHECK(caps.v[SAT_HF_TIME_CLF].ptr == NULL);
    CHECK(caps.v[SAT_HF_USER_AGENT].ptr == NULL);
    CHECK_EQ_INT(match(p, "not a log line", &caps, &why), 0);
    CHECK_EQ_STR(why, "does not match the pattern");
    sat_http_pattern_free(p);
}

static void test_time_kinds(void)
{
    sat_diag d;
    sat_http_pattern *p = compile("^(?<time>\\[[^]]+\\]|\\S+) (?<status>\\d+)", &d);
    CHECK(p != NULL);
    if (!p)
        return;
    static const struct {
        const char *line;
        int field;
    } cases[] = {
        {"[01/Dec/2026:16:45:44 +0000] 200", SAT_HF_TIME_CLF},
        {"2026-12-01T16:45:44+00:00 200", SAT_HF_TIME_ISO},
        {"1796143544.592 200", SAT_HF_TIME_EPOCH_S},
        {"1796143544 200", SAT_HF_TIME_EPOCH_S},
        {"1796143626609 200", SAT_HF_TIME_EPOCH_MS},
        {"1796143626609123 200", SAT_HF_TIME_EPOCH_US},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sat_http_caps caps;
        const char *why;
        CHECK_EQ_INT(match(p, cases[i].line, &caps, &why), 1);
        CHECK(caps.v[cases[i].field].ptr != NULL);
        int others = 0;
        for (int f = SAT_HF_TIME_CLF; f <= SAT_HF_TIME_FRAC_US; f++)
            others += f != cases[i].field && caps.v[f].ptr != NULL;
        CHECK_EQ_INT(others, 0);
    }
    sat_http_pattern_free(p);

    /* end times: the line's time is the response's end */
    p = compile("^(?<end_epoch_ms>\\d+) (?<rt_ms>\\d+)$", &d);
    CHECK(p && sat_http_pattern_facts(p)->time_is_end == 1);
    sat_http_pattern_free(p);
    /* both: the start is used, the end group ignored */
    p = compile("^(?<time_epoch_ms>\\d+) (?<end_epoch_ms>\\d+)$", &d);
    CHECK(p && sat_http_pattern_facts(p)->time_is_end == 0);
    if (p) {
        sat_http_caps caps;
        const char *why;
        CHECK_EQ_INT(match(p, "1000 2000", &caps, &why), 1);
        CHECK_EQ_SSTR(caps.v[SAT_HF_TIME_EPOCH_MS], "1000");
    }
    sat_http_pattern_free(p);
}

static void test_duplicates_and_unnamed(void)
{
    sat_diag d;
    /* two alternatives naming the same field: the one that matched */
    sat_http_pattern *p =
        compile("(?J)^(?:(?<time>\\d+) A (?<status>\\d+)|(\\w+) (?<time>\\S+) B (?<status>\\d+))$",
                &d);
    CHECK(p != NULL);
    if (!p)
        return;
    sat_http_caps caps;
    const char *why;
    CHECK_EQ_INT(match(p, "x 2026-12-01T00:00:00Z B 404", &caps, &why), 1);
    CHECK_EQ_SSTR(caps.v[SAT_HF_STATUS], "404");
    CHECK_EQ_SSTR(caps.v[SAT_HF_TIME_ISO], "2026-12-01T00:00:00Z");
    CHECK_EQ_INT(match(p, "17 A 200", &caps, &why), 1);
    CHECK_EQ_SSTR(caps.v[SAT_HF_STATUS], "200");
    /* a group that did not take part leaves its field unset */
    sat_http_pattern_free(p);
    p = compile("^(?<time>\\d+)(?: (?<user_agent>.+))?$", &d);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(match(p, "12", &caps, &why), 1);
        CHECK(caps.v[SAT_HF_USER_AGENT].ptr == NULL);
    }
    sat_http_pattern_free(p);
}

static void test_errors(void)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(compile("(?<time>\\d+) (?<sttaus>\\d+)", &d) == NULL);
    CHECK(strstr(d.msg, "the group name 'sttaus' is no field") != NULL);
    CHECK(strstr(d.msg, "time, end (and time_X, end_X for X = clf,iso,epoch,") != NULL);
    CHECK(strstr(d.msg, "status") != NULL && strstr(d.msg, "user_agent") != NULL);
    CHECK(strstr(d.msg, "time_strf") == NULL); /* needs a strftime format: not offered */
    memset(&d, 0, sizeof d);
    CHECK(compile("(?<status>\\d+)", &d) == NULL);
    CHECK(strstr(d.msg, "no group gives the line's time") != NULL);
    memset(&d, 0, sizeof d);
    CHECK(compile("(?<time>\\d+", &d) == NULL);
    CHECK(strstr(d.msg, "at offset 11") != NULL);
    CHECK_EQ_STR(d.where, "--pattern");
    char names[512];
    size_t n = sat_http_pattern_names(names, sizeof names);
    CHECK(n == strlen(names));
    CHECK(strncmp(names, "time, end (", 11) == 0);
    char small[8];
    CHECK_EQ_INT(sat_http_pattern_names(small, sizeof small), n);
    CHECK_EQ_INT(strlen(small), 7);
}

static void test_match_limit(void)
{
    sat_diag d;
    sat_http_pattern *p = compile("^(?<time>\\d+) (a+)+$", &d);
    CHECK(p != NULL);
    if (!p)
        return;
    char line[64] = "1 ";
    memset(line + 2, 'a', 40);
    line[42] = 'b';
    line[43] = 0;
    sat_http_caps caps;
    const char *why = NULL;
    CHECK_EQ_INT(match(p, line, &caps, &why), 0);
    CHECK(why && strstr(why, "match limit") != NULL);
    sat_http_pattern_free(p);
}

/* The row of a fixture line read by a pattern equals the row the format
 * definition gives (the row builder is one for both). */
static void test_rows(void)
{
    sat_diag d;
    sat_http_pattern *p = compile(NGINX_SAT_RE, &d);
    CHECK(p != NULL);
    if (!p)
        return;
    sat_http_caps caps;
    const char *why;
    CHECK_EQ_INT(match(p, NGINX_SAT_LINE, &caps, &why), 1);
    sat_http_scratch scratch;
    sat_http_req r;
    memset(&r, 0, sizeof r);
    CHECK_EQ_INT(sat_http_row_build(&caps, sat_http_pattern_facts(p), &scratch, &r, &why),
                 SAT_OK);
    CHECK_EQ_INT(r.ts, 1796143544592000000LL);
    CHECK_EQ_INT(r.status, 200);
    CHECK_EQ_INT(r.bytes, 512);
    CHECK_EQ_INT(r.response_time, 0);
    CHECK_EQ_INT(r.conn, 2);
    CHECK_EQ_INT(r.conn_request, 1);
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_NEW);
    CHECK_EQ_SSTR(r.method, "GET");
    CHECK_EQ_SSTR(r.path_template, "/static/small.txt");
    CHECK_EQ_SSTR(r.tls_protocol, "TLSv1.2");

    sat_http_format *fmt = sat_http_format_compile(
        "$remote_addr $connection $connection_requests $msec $time_iso8601 \"$request\" $status "
        "$body_bytes_sent $request_time $upstream_response_time $ssl_protocol $ssl_session_reused",
        &d);
    CHECK(fmt != NULL);
    if (fmt) {
        sat_http_caps fc;
        sat_http_scratch fs;
        sat_http_req fr;
        memset(&fr, 0, sizeof fr);
        CHECK_EQ_INT(sat_http_format_match(fmt, NGINX_SAT_LINE, strlen(NGINX_SAT_LINE), &fc,
                                           &why), 1);
        CHECK_EQ_INT(sat_http_row_build(&fc, sat_http_format_facts(fmt), &fs, &fr, &why),
                     SAT_OK);
        CHECK_EQ_INT(fr.ts, r.ts);
        CHECK_EQ_INT(fr.status, r.status);
        CHECK_EQ_INT(fr.bytes, r.bytes);
        CHECK_EQ_INT(fr.response_time, r.response_time);
        CHECK_EQ_INT(fr.upstream_time, r.upstream_time);
        CHECK_EQ_INT(fr.conn, r.conn);
        CHECK_EQ_INT(fr.conn_request, r.conn_request);
        CHECK_EQ_INT(fr.tls_session, r.tls_session);
        CHECK(sat_str_eq(fr.path_template, r.path_template));
        CHECK(sat_str_eq(fr.client_ip, r.client_ip));
        sat_http_format_free(fmt);
    }
    sat_http_pattern_free(p);
}

/* A fixture log read with a pattern that says what its format says gives
 * the rows the format gives, on one and on two parser threads, and its
 * source declares the same fields. */
static void same_rows(const char *path, const char *def, const char *re)
{
    char log_format[1024];
    snprintf(log_format, sizeof log_format, "%s%s", SAT_HTTP_PATTERN_PREFIX, re);
    hrows want, got;
    CHECK_EQ_INT(hr_collect(&want, path, def, 1, 0), SAT_OK);
    for (int threads = 1; threads <= 2; threads++) {
        CHECK_EQ_INT(hr_collect(&got, path, log_format, threads, 4096), SAT_OK);
        CHECK(want.n > 0);
        CHECK_EQ_INT(got.n, want.n);
        CHECK_EQ_INT(got.nrejects, want.nrejects);
        CHECK_EQ_STR(got.format, "pattern");
        CHECK_EQ_INT(got.src.fields, want.src.fields);
        size_t bad = 0;
        for (size_t i = 0; i < got.n && i < want.n; i++) {
            const sat_http_req *a = &got.v[i].r, *b = &want.v[i].r;
            int same = a->ts == b->ts && a->status == b->status && a->bytes == b->bytes &&
                       a->response_time == b->response_time &&
                       a->upstream_time == b->upstream_time && a->conn == b->conn &&
                       a->conn_request == b->conn_request && a->client_port == b->client_port &&
                       a->tls_session == b->tls_session && a->flags == b->flags &&
                       a->utc_offset_s == b->utc_offset_s &&
                       !strcmp(got.v[i].method, want.v[i].method) &&
                       !strcmp(got.v[i].path, want.v[i].path) &&
                       !strcmp(got.v[i].tmpl, want.v[i].tmpl) &&
                       !strcmp(got.v[i].proto, want.v[i].proto) &&
                       !strcmp(got.v[i].tls, want.v[i].tls) &&
                       !strcmp(got.v[i].client, want.v[i].client) &&
                       !strcmp(got.v[i].ua, want.v[i].ua);
            if (!same && bad++ < 3)
                fprintf(stderr, "  %s row %zu differs: ts %lld/%lld rt %lld/%lld flags %d/%d "
                                "conn_request %lld/%lld\n", path, i, (long long)a->ts,
                        (long long)b->ts, (long long)a->response_time,
                        (long long)b->response_time, a->flags, b->flags,
                        (long long)a->conn_request, (long long)b->conn_request);
        }
        CHECK_EQ_INT(bad, 0);
        hr_free(&got);
    }
    hr_free(&want);
}

static void test_fixtures(void)
{
    same_rows("fixtures/http-nginx/access-sat.log.gz",
              "$remote_addr $connection $connection_requests $msec $time_iso8601 \"$request\" "
              "$status $body_bytes_sent $request_time $upstream_response_time $ssl_protocol "
              "$ssl_session_reused",
              NGINX_SAT_RE);
    same_rows("fixtures/http-nginx/access.log.gz", "nginx-combined",
              "^(?<client>\\S+) - (?<user>\\S+) \\[(?<end_clf>[^]]+)\\] \"(?<request>[^\"]*)\" "
              "(?<status>\\d+) (?<bytes>\\d+) \"(?<referer>[^\"]*)\" \"(?<user_agent>[^\"]*)\"$");
    same_rows("fixtures/http-apache/access_sat.log.gz",
              "%h %{c}a %l %u %t \"%r\" %>s %b %D %T %{ms}T %{us}T %k %{SSL_PROTOCOL}x "
              "%{SSL_SESSION_RESUMED}x",
              "^(?<client>\\S+) \\S+ \\S+ (?<user>\\S+) \\[(?<time>[^]]+)\\] \"(?<request>[^\"]*)\" "
              "(?<status>\\d+) (?<bytes_clf>\\S+) (?<rt_us>\\d+) \\d+ \\d+ \\d+ (?<keepalive>\\d+) "
              "(?<tls_protocol>\\S+) (?<tls_resumed>\\S+)$");
    same_rows("fixtures/http-tomcat/run1/access_main.log.gz",
              "%h %l %u %t \"%r\" %s %b %D %T %F %I %{Connection}i",
              "^(?<client>\\S+) \\S+ (?<user>\\S+) \\[(?<time_clf>[^]]+)\\] \"(?<request>[^\"]*)\" "
              "(?<status>\\d+) (?<bytes_clf>\\S+) (?<rt_us>\\d+) \\S+ \\S+ \\S+ \\S+$");
}

int main(void)
{
    test_fields();
    test_time_kinds();
    test_duplicates_and_unnamed();
    test_errors();
    test_match_limit();
    test_rows();
    test_fixtures();
    return CHECK_DONE();
}
