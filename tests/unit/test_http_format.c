/*
 * test_http_format.c - the HTTP access-log readers piece by piece
 * (parse/http/http_*.c): the compiler's syntaxes, presets and errors, the matcher
 * on hostile and unusual lines, the row builder's times, units, lists and
 * flags, the path template, and the "http" format's sniff (never an LDAP log).
 */
#include "check.h"
#include "parse/http/http_int.h"

extern const sat_log_format sat_fmt_http;
extern const sat_log_format sat_fmt_389text;
extern const sat_log_format sat_fmt_openldap;

/* One line through def: 1 and *out when a row is built, 0 if rejected (*why). */
static sat_http_scratch scratch;
static int one(const char *def, const char *line, sat_http_req *out, const char **why)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_http_format *f = sat_http_format_compile(def, &d);
    if (!f) {
        fprintf(stderr, "compile failed: %s: %s\n", def, d.msg);
        *why = "compile";
        return -1;
    }
    sat_http_caps caps;
    int ok = sat_http_format_match(f, line, strlen(line), &caps, why) &&
             sat_http_row_build(&caps, sat_http_format_facts(f), &scratch, out, why) == SAT_OK;
    sat_http_format_free(f);
    return ok;
}

static int streq(sat_str s, const char *c)
{
    return c ? s.ptr && s.len == strlen(c) && !memcmp(s.ptr, c, s.len) : !s.ptr;
}

static const char *name_of(const char *def)
{
    static char name[64];
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_http_format *f = sat_http_format_compile(def, &d);
    snprintf(name, sizeof name, "%s", f ? sat_http_format_facts(f)->name : "(error)");
    sat_http_format_free(f);
    return name;
}

static void test_syntaxes(void)
{
    CHECK_EQ_STR(name_of("combined"), "http-combined");
    CHECK_EQ_STR(name_of("common"), "http-common");
    CHECK_EQ_STR(name_of("nginx-combined"), "nginx-combined");
    CHECK_EQ_STR(name_of("tomcat:combined"), "tomcat-combined");
    CHECK_EQ_STR(name_of("$remote_addr [$time_local] \"$request\" $status"), "nginx-custom");
    CHECK_EQ_STR(name_of("%h %t \"%r\" %>s %D"), "apache-custom");
    CHECK_EQ_STR(name_of("%h %t \"%r\" %s %D %F"), "tomcat-custom");       /* %F: Tomcat's */
    CHECK_EQ_STR(name_of("%h %t %{foo}r \"%r\" %s"), "tomcat-custom");     /* %{..}r: Tomcat's */
    CHECK_EQ_STR(name_of("%h %{yyyy-MM-dd HH:mm:ss}t %s"), "tomcat-custom"); /* SimpleDateFormat */
    CHECK_EQ_STR(name_of("%h %{%Y-%m-%d %H:%M:%S}t %s"), "apache-custom");
    CHECK_EQ_STR(name_of("tomcat9:%h %t \"%r\" %s %D"), "tomcat9-custom");
    /* as written in the configuration files: quoted parts, XML entities */
    CHECK_EQ_STR(name_of("'$remote_addr [$time_local] '\n    '\"$request\" $status'"),
                 "nginx-custom");
    CHECK_EQ_STR(name_of("\"%h %t \\\"%r\\\" %>s\""), "apache-custom");
    CHECK_EQ_STR(name_of("%h %t &quot;%r&quot; %s %I"), "apache-custom");

    /* errors say what and where */
    static const char *const bad[] = {
        "",                              /* empty */
        "nonsense",                      /* no preset, no syntax */
        "$remote_addr \"$request\"",     /* no time */
        "%h %t %Z",                      /* unknown directive */
        "%h %t %{",                      /* cut */
        "${remote_addr [$time_local]",   /* unclosed ${ */
        "$remote_user$remote_addr [$time_local]", /* where the first ends cannot be told */
        "%h %{%Q}t",                     /* a strftime conversion not read */
        "tomcat:%h %{yyyy qq}t",         /* a SimpleDateFormat letter not read */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        sat_http_format *f = sat_http_format_compile(bad[i], &d);
        CHECK(f == NULL);
        CHECK(d.msg[0] != '\0');
        CHECK_EQ_INT(sat_http_log_format_check(bad[i], &d), SAT_E_USAGE);
        sat_http_format_free(f);
    }
    /* every preset compiles */
    for (size_t i = 0; sat_http_preset_name(i); i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(sat_http_log_format_check(sat_http_preset_name(i), &d), SAT_OK);
    }
}

static void test_lines(void)
{
    sat_http_req r;
    const char *why = NULL;
    /* Apache escapes a quote in the request line as \" */
    CHECK_EQ_INT(one("combined",
                     "10.0.0.1 - bob [01/Dec/2026:16:45:44 +0200] \"GET /a\\\"b?q=1 HTTP/1.1\" "
                     "200 - \"-\" \"Mozilla/5.0 (X11; Linux) \\\"x\\\"\"",
                     &r, &why),
                 1);
    CHECK(streq(r.path, "/a\\\"b?q=1"));
    CHECK(streq(r.user, "bob"));
    CHECK(streq(r.user_agent, "Mozilla/5.0 (X11; Linux) \\\"x\\\""));
    CHECK_EQ_INT(r.bytes, 0); /* CLF "-" */
    CHECK_EQ_INT(r.ts, (1796143544LL - 7200) * 1000000000LL);
    CHECK_EQ_INT(r.utc_offset_s, 7200);
    CHECK_EQ_INT(r.response_time, SAT_ABSENT);

    /* no request line (a client that sent nothing), junk, HTTP/0.9 */
    CHECK_EQ_INT(one("common", "::1 - - [01/Dec/2026:16:45:44 +0000] \"-\" 408 0", &r, &why), 1);
    CHECK(r.flags & SAT_HTTPF_NO_REQUEST_LINE);
    CHECK(streq(r.client_ip, "::1"));
    CHECK(!r.path.ptr && !r.path_template.ptr && !r.method.ptr);
    CHECK_EQ_INT(one("common", "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"\\x16\\x03\\x01\" 400 157",
                     &r, &why),
                 1);
    CHECK(r.flags & SAT_HTTPF_NO_REQUEST_LINE);
    CHECK_EQ_INT(one("common", "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET /x\" 200 1", &r, &why), 1);
    CHECK(streq(r.method, "GET") && streq(r.path, "/x") && !r.protocol.ptr);

    /* rejects */
    CHECK_EQ_INT(one("common", "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 2x0 1",
                     &r, &why),
                 0);
    CHECK_EQ_INT(one("common", "1.2.3.4 - - [41/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 1",
                     &r, &why),
                 0);
    CHECK_EQ_STR(why, "bad time");
    /* text after the last field: a custom definition's line is read as defined */
    CHECK_EQ_INT(one("apache:%h %l %u %t \"%r\" %>s %b",
                     "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 1 x", &r, &why),
                 0);
    CHECK_EQ_STR(why, "does not match the log format: text after its last field");
    /* the reason names the field where the match stopped */
    CHECK_EQ_INT(one("apache:%h %l %u %t \"%r\" %>s %b %I",
                     "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 1 exec-1 x",
                     &r, &why),
                 0);
    CHECK_EQ_STR(why, "does not match the log format at field 8 of 8 (%I)");
    CHECK_EQ_INT(one("apache:x %t", "[01/Dec/2026:16:45:44 +0000]", &r, &why), 0);
    CHECK_EQ_STR(why, "does not match the log format at its start");
    CHECK_EQ_INT(one("common", "", &r, &why), 0);
    CHECK_EQ_INT(one("common", "1.2.3.4 - - [01/Dec/2026:16:45", &r, &why), 0);

    /* nginx: upstream lists, end time minus request_time, ISO 8601, the client's port */
    const char *ngx = "$remote_addr:$remote_port [$time_iso8601] \"$request\" $status "
                      "$body_bytes_sent $request_time \"$upstream_response_time\" "
                      "$ssl_session_reused $connection_requests";
    CHECK_EQ_INT(one(ngx,
                     "10.1.1.1:5555 [2026-12-01T17:45:44+01:00] \"POST /api/v2/item/"
                     "0x1f/550e8400-e29b-41d4-a716-446655440000 HTTP/2.0\" 502 0 0.250 "
                     "\"0.010, 0.020 : 0.005\" r 3",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.upstream_time, 35000000);
    CHECK_EQ_INT(r.response_time, 250000000);
    CHECK_EQ_INT(r.ts, 1796143544LL * 1000000000LL - 250000000LL);
    CHECK_EQ_INT(r.flags & (SAT_HTTPF_TS_END | SAT_HTTPF_TS_END_ONLY), SAT_HTTPF_TS_END);
    CHECK_EQ_INT(r.utc_offset_s, 3600);
    CHECK(streq(r.client_ip, "10.1.1.1"));
    CHECK_EQ_INT(r.client_port, 5555);
    CHECK(streq(r.path_template, "/api/v2/item/{hex}/{uuid}"));
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_RESUMED);
    CHECK_EQ_INT(r.conn_request, 3);
    CHECK_EQ_INT(one(ngx,
                     "10.1.1.1:5555 [2026-12-01T17:45:44.5Z] \"GET / HTTP/1.1\" 200 0 0.000 "
                     "\"-, 0.004\" . 1",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.upstream_time, 4000000);
    CHECK_EQ_INT(r.ts, 1796147144LL * 1000000000LL + 500000000LL);
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_NEW);
    CHECK_EQ_INT(one(ngx,
                     "10.1.1.1:5555 [2026-12-01T17:45:44Z] \"GET / HTTP/1.1\" 200 0 - \"-\" - 1",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.upstream_time, SAT_ABSENT);
    CHECK_EQ_INT(r.response_time, SAT_ABSENT);
    CHECK_EQ_INT(r.flags & SAT_HTTPF_TS_END_ONLY, SAT_HTTPF_TS_END_ONLY);
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_UNKNOWN);
    CHECK(!(r.flags & SAT_HTTPF_TLS));
    /* quoted fields side by side on one line are a body, not configuration parts */
    CHECK_EQ_INT(one("\"[$time_local]\" \"$status\"", "\"[01/Dec/2026:16:45:44 +0000]\" \"302\"",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.status, 302);
    /* a JSON log_format (escape=json): the keys are literals, \" inside values */
    CHECK_EQ_INT(one("'{\"t\":\"$time_iso8601\",\"s\":$status,\"r\":\"$request\",'\n"
                     "  '\"rt\":$request_time,\"ua\":\"$http_user_agent\"}'",
                     "{\"t\":\"2026-12-01T16:45:44+00:00\",\"s\":404,\"r\":\"GET /a HTTP/1.1\","
                     "\"rt\":0.002,\"ua\":\"say \\\"hi\\\"\"}",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.status, 404);
    CHECK_EQ_INT(r.response_time, 2000000);
    CHECK(streq(r.user_agent, "say \\\"hi\\\""));
    /* $time_local without brackets: the blank inside it is the time's */
    CHECK_EQ_INT(one("$time_local $status", "01/Dec/2026:16:45:44 +0000 204", &r, &why), 1);
    CHECK_EQ_INT(r.status, 204);

    /* Apache: %{end:...}t and %{ms}T; %U%q; %{c}a beside %h; IPv6 with a port */
    CHECK_EQ_INT(one("%h %{end:%d/%b/%Y:%H:%M:%S %z}t.%{end:msec_frac}t \"%m %U%q %H\" %>s %B "
                     "%{ms}T %k \"%{SSL_SESSION_RESUMED}x\"",
                     "[2001:db8::1]:443 01/Dec/2026:16:45:44 +0000.250 \"GET /x/123?a=1 HTTP/1.1\" "
                     "200 - 50 2 \"Resumed\"",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.ts, 1796143544LL * 1000000000LL + 200000000LL); /* .250 - 50 ms */
    CHECK(streq(r.client_ip, "2001:db8::1") && r.client_port == 443);
    CHECK(streq(r.path, "/x/123?a=1") && streq(r.path_template, "/x/{n}"));
    CHECK_EQ_INT(r.bytes, SAT_ABSENT); /* %B "-": not CLF */
    CHECK_EQ_INT(r.conn_request, 3);
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_RESUMED);
    /* %T alone: whole seconds, said coarse; of several units the finest */
    CHECK_EQ_INT(one("%t %T", "[01/Dec/2026:16:45:44 +0000] 2", &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 2000000000LL);
    CHECK(r.flags & SAT_HTTPF_RT_COARSE);
    CHECK_EQ_INT(one("%t %T %{ms}T %D", "[01/Dec/2026:16:45:44 +0000] 2 2345 2345678", &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 2345678000LL);
    CHECK(!(r.flags & SAT_HTTPF_RT_COARSE));
    /* epoch times */
    CHECK_EQ_INT(one("%{msec}t %s", "1796143544123 200", &r, &why), 1);
    CHECK_EQ_INT(r.ts, 1796143544123000000LL);
    CHECK_EQ_INT(one("%{%s}t %s", "1796143544 200", &r, &why), 1);
    CHECK_EQ_INT(r.ts, 1796143544LL * 1000000000LL);
    /* Tomcat: SimpleDateFormat, %D in us (10) or ms (9), fracsec */
    CHECK_EQ_INT(one("tomcat:%{yyyy-MM-dd'T'HH:mm:ss.SSSZ}t %s %D",
                     "2026-12-01T16:45:44.120+0000 200 1500", &r, &why),
                 1);
    CHECK_EQ_INT(r.ts, 1796143544120000000LL);
    CHECK_EQ_INT(r.response_time, 1500000);
    CHECK_EQ_INT(one("tomcat9:%t %s %D", "[01/Dec/2026:16:45:44 +0000] 200 1500", &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 1500000000LL);
    CHECK_EQ_INT(one("tomcat9:%t %s %T", "[01/Dec/2026:16:45:44 +0000] 200 0.021", &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 21000000);
    CHECK_EQ_INT(one("tomcat:%t %s %{fracsec}T", "[01/Dec/2026:16:45:44 +0000] 200 0.5", &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 500000000);
}

/* A preset's line followed by key=value fields (http_extras.c). */
static void test_extras(void)
{
    sat_http_req r;
    const char *why = NULL;
    const char *ncsa = "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET /a HTTP/1.1\" 200 10 "
                       "\"-\" \"curl/8\"";
    char line[512];
    snprintf(line, sizeof line, "%s rt=0.250 uct=\"0.000\" urt=\"0.100, 0.040\" reused=r cs=HIT",
             ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 250000000);
    CHECK_EQ_INT(r.upstream_time, 140000000); /* the list summed */
    CHECK_EQ_INT(r.tls_session, SAT_HTTP_SESSION_RESUMED);
    CHECK(streq(r.user_agent, "curl/8"));
    /* Amplify's ut=, a quoted value with blanks, bare words and quoted strings skipped */
    snprintf(line, sizeof line, "%s \"10.0.0.9\" sn=\"a b\" rt=0.5 ua=\"10.1.1.1:80\" ut=\"0.4\" -",
             ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 1);
    CHECK_EQ_INT(r.response_time, 500000000);
    CHECK_EQ_INT(r.upstream_time, 400000000);
    CHECK(streq(r.vhost, "a b"));
    CHECK(streq(r.user_agent, "curl/8")); /* ua= is the upstream's address */
    /* common, and a preset whose fields the tail does not override */
    CHECK_EQ_INT(one("common",
                     "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 1 rt=0.001",
                     &r, &why),
                 1);
    CHECK_EQ_INT(r.response_time, 1000000);
    /* glued on, an unclosed quote: not a tail */
    snprintf(line, sizeof line, "%srt=0.1", ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 0);
    snprintf(line, sizeof line, "%s rt=\"0.1", ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 0);
    snprintf(line, sizeof line, "%s rt=\"0.1\"x", ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 0);
    /* a bad value is a bad line, as in the server's own format */
    snprintf(line, sizeof line, "%s rt=fast", ncsa);
    CHECK_EQ_INT(one("combined", line, &r, &why), 0);
    /* the keys, for the source's name */
    char keys[16];
    const char *tail = "rt=1 \"x y\" urt=\"2\" bare cs=- verylongkey=1";
    CHECK_EQ_INT((long long)sat_http_extras_names(sat_str_cstr(tail), keys, sizeof keys), 9);
    CHECK_EQ_STR(keys, "rt,urt,cs");
}

static void test_templates(void)
{
    static const char *const cases[][2] = {
        {"/item/1234?x=1", "/item/{n}"},
        {"/item/99", "/item/{n}"},
        {"/", "/"},
        {"", "/"},
        {"?x", "/"},
        {"*", "*"},
        {"/a//b/", "/a//b/"},
        {"/img/12345.jpg", "/img/{n}.jpg"},
        {"/nothere/1.2", "/nothere/{n}"},          /* one dotted number, no extension */
        {"/host/10.0.0.7/up", "/host/{n}/up"},
        {"/d/2024.01.05.log", "/d/{n}.log"},
        {"/a/1..2", "/a/{n}..{n}"},
        /* numbers and hashes inside a segment, after its stem */
        {"/static/app.72526.js", "/static/app.{n}.js"},
        {"/static/app.3f9a1c2b.css", "/static/app.{hex}.css"},
        {"/js/jquery-3.6.0.min.js", "/js/jquery-3.{n}.{n}.min.js"},
        {"/js/app.min.js", "/js/app.min.js"},
        {"/js/index.deadbeef.js", "/js/index.deadbeef.js"}, /* hex letters: a word */
        {"/logs/access.log.1", "/logs/access.log.{n}"},
        {"/img/12345.678.jpg", "/img/{n}.jpg"},
        {"/u/550E8400-E29B-41D4-A716-446655440000/x", "/u/{uuid}/x"},
        {"/c/deadbeef", "/c/deadbeef"},            /* a word of hex letters */
        {"/c/accepted", "/c/accepted"},
        {"/c/5f3a9c21", "/c/{hex}"},
        {"/c/0xff", "/c/{hex}"},
        {"/o/507f1f77bcf86cd799439011", "/o/{hex}"}, /* a 24-digit ObjectId */
        {"/user/abc123def/profile", "/user/{id}/profile"},
        {"/user/zz9/profile", "/user/{id}/profile"},
        {"/api/v2/users", "/api/v2/users"},
        {"/api/v1.3/users", "/api/v1.3/users"},
        {"/page2", "/page2"},
        {"http://example.com:8080/p/42?x", "/p/{n}"},
        {"/a#frag", "/a"},
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sat_http_path_template(cases[i][0], strlen(cases[i][0]), out, sizeof out);
        CHECK_EQ_STR(out, cases[i][1]);
    }
    /* a template longer than its room is cut at a segment and says so */
    char longp[400], small[32];
    size_t o = 0;
    for (int k = 0; k < 40; k++)
        o += (size_t)snprintf(longp + o, sizeof longp - o, "/seg%c", 'a' + k % 26);
    size_t n = sat_http_path_template(longp, o, small, sizeof small);
    CHECK(n < sizeof small);
    CHECK(n >= 4 && !strcmp(small + n - 4, "/..."));
}

static void test_sniff(void)
{
    const char *ncsa = "127.0.0.1 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"c\"\n"
                       "127.0.0.1 - - [01/Dec/2026:16:45:45 +0000] \"GET /x HTTP/1.1\" 404 5\n";
    CHECK(sat_fmt_http.sniff(ncsa, strlen(ncsa)) >= 80);
    CHECK_EQ_INT(sat_fmt_389text.sniff(ncsa, strlen(ncsa)) >= 30, 0);
    CHECK_EQ_INT(sat_fmt_openldap.sniff(ncsa, strlen(ncsa)) >= 30, 0);
    CHECK(sat_log_format_sniff(ncsa, strlen(ncsa)) == &sat_fmt_http);
    sat_ts_ns ts = 0;
    CHECK_EQ_INT(sat_fmt_http.first_ts(ncsa, strlen(ncsa), &ts), SAT_OK);
    CHECK_EQ_INT(ts, 1796143544LL * 1000000000LL);
    static const char *const ldap[] = {
        "[01/Dec/2026:16:45:44.123456789 +0000] conn=1 fd=64 slot=64 connection from 127.0.0.1 to 127.0.0.1\n",
        "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 fd=12 ACCEPT from IP=10.1.2.3:40000 (IP=0.0.0.0:389)\n",
        "{\"date\": \"[01/Dec/2026:16:45:44.123 +0000]\", \"key\": \"x\"}\n",
        "# just a comment\n",
    };
    for (size_t i = 0; i < sizeof ldap / sizeof ldap[0]; i++)
        CHECK_EQ_INT(sat_fmt_http.sniff(ldap[i], strlen(ldap[i])), 0);
    /* one access line among other text is not an access log; two of six are */
    char mixed[2048] = "";
    for (int i = 0; i < 5; i++)
        strcat(mixed, "some other text of a README\n");
    strcat(mixed, "127.0.0.1 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 5\n");
    CHECK_EQ_INT(sat_fmt_http.sniff(mixed, strlen(mixed)), 0);
    char two[2048] = "";
    for (int i = 0; i < 4; i++)
        strcat(two, "some other text\n");
    strcat(two, "127.0.0.1 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 5\n"
                "127.0.0.1 - - [01/Dec/2026:16:45:45 +0000] \"GET / HTTP/1.1\" 200 5\n");
    CHECK(sat_fmt_http.sniff(two, strlen(two)) >= 30);
}

int main(void)
{
    test_syntaxes();
    test_lines();
    test_extras();
    test_templates();
    test_sniff();
    return CHECK_DONE();
}
