/*
 * test_http_config.c - access log format definitions found in the servers'
 * configuration text (parse/http/http_config.c): the fixtures' own nginx, Apache
 * and Tomcat files, each server's quoting rules, lookup by name, by log file
 * and alone, and the messages when a name is not there.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse/http/http_int.h"
#include "satscope/http_conf.h"

static char *slurp(const char *rel, size_t *len)
{
    const char *src = getenv("SAT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

static sat_http_conf *parse_str(const char *text, int server, int want_rc)
{
    sat_http_conf *c = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_http_conf_parse(text, strlen(text), server, &c, &d);
    CHECK_EQ_INT(rc, want_rc);
    if (rc != want_rc)
        fprintf(stderr, "  %s: %s\n", d.where, d.msg);
    return c;
}

static const char *def_of(const sat_http_conf *c, const char *name)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    const sat_http_conf_def *def = sat_http_conf_lookup(c, name, &d);
    if (!def)
        fprintf(stderr, "  lookup %s: %s\n", name ? name : "(none)", d.msg);
    return def ? def->definition : NULL;
}

static void test_nginx_fixture(void)
{
    size_t len;
    char *t = slurp("fixtures/http-nginx/nginx.conf.excerpt", &len);
    CHECK(t != NULL);
    if (!t)
        return;
    sat_http_conf *c = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(sat_http_conf_parse(t, len, SAT_HTTP_CONF_AUTO, &c, &d), SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_NGINX);
    const char *sat = "$remote_addr $connection $connection_requests $msec $time_iso8601 "
                      "\"$request\" $status $body_bytes_sent $request_time "
                      "$upstream_response_time $ssl_protocol $ssl_session_reused";
    CHECK_EQ_STR(def_of(c, "sat"), sat);
    /* combined is nginx's own, by name and by the log written with it */
    const char *combined = "$remote_addr - $remote_user [$time_local] \"$request\" $status "
                           "$body_bytes_sent \"$http_referer\" \"$http_user_agent\"";
    CHECK_EQ_STR(def_of(c, "combined"), combined);
    CHECK_EQ_STR(def_of(c, "access.log.gz"), combined);
    CHECK_EQ_STR(def_of(c, "fixtures/http-nginx/access-sat.log.gz"), sat);
    CHECK_EQ_STR(def_of(c, "access-sat.log.1"), sat);
    CHECK_EQ_STR(def_of(c, "access.log-20261201.zst"), combined);
    CHECK_EQ_STR(def_of(c, NULL), sat); /* the one the file defines */
    const sat_http_conf_def *defs;
    CHECK_EQ_INT(sat_http_conf_defs(c, &defs), 2);
    CHECK_EQ_INT(defs[0].line, 8);
    CHECK_EQ_STR(defs[0].escape, "default");
    CHECK_EQ_INT(defs[1].builtin, 1);
    const sat_http_conf_log *logs;
    CHECK_EQ_INT(sat_http_conf_logs(c, &logs), 2);
    CHECK_EQ_STR(logs[1].prefix, "access-sat.log");
    CHECK_EQ_INT(logs[1].line, 10);
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, "error.log", &d) == NULL);
    CHECK(strstr(d.msg, "no format or access log named 'error.log'") != NULL);
    CHECK(strstr(d.msg, "sat, combined (built in)") != NULL);
    CHECK(strstr(d.msg, "access.log, access-sat.log") != NULL);
    sat_http_conf_free(c);
    free(t);
}

static void test_nginx_quoting(void)
{
    /* several strings over lines, both quotes, escapes, comments, escape=,
     * a '#' inside a word, a ${var} with a '{' */
    sat_http_conf *c = parse_str(
        "# log_format commented 'x';\n"
        "http {\n"
        "  log_format  main  escape=json '$remote_addr - [$time_local] '   # a comment\n"
        "                    \"\\\"$request\\\" \"\n"
        "                    '$status ${request_time}s it\\'s\\tx\\q';\n"
        "  log_format bare $remote_addr#x\\;y;\n"
        "  access_log /var/log/nginx/main.log main buffer=32k flush=5s;\n"
        "  access_log off;\n"
        "  include /etc/nginx/conf.d/*.conf;\n"
        "  log_format dup 'a';\n"
        "  log_format dup 'b';\n"
        "  access_log /x/other.log undefined_name;\n"
        "}\n",
        SAT_HTTP_CONF_AUTO, SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_NGINX);
    CHECK_EQ_STR(def_of(c, "main"),
                 "$remote_addr - [$time_local] \"$request\" $status ${request_time}s it's\tx\\q");
    CHECK_EQ_STR(def_of(c, "bare"), "$remote_addr#x\\;y"); /* a backslash before ; stays */
    CHECK_EQ_STR(def_of(c, "main.log"), def_of(c, "main"));
    CHECK_EQ_STR(def_of(c, "dup"), "a"); /* nginx keeps the first */
    const sat_http_conf_def *defs;
    size_t n = sat_http_conf_defs(c, &defs);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_STR(defs[0].escape, "json");
    CHECK_EQ_INT(defs[0].line, 3);
    CHECK(defs[2].note == NULL && defs[3].note != NULL);
    const char *const *inc;
    CHECK_EQ_INT(sat_http_conf_includes(c, &inc), 1);
    CHECK_EQ_STR(inc[0], "/etc/nginx/conf.d/*.conf");
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, "other.log", &d) == NULL);
    CHECK(strstr(d.msg, "line 12 names the format 'undefined_name'") != NULL);
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, NULL, &d) == NULL);
    CHECK(strstr(d.msg, "several formats, and no name to choose one (the nginx") != NULL);
    CHECK(strstr(d.msg, "not read, the files it includes: /etc/nginx/conf.d/*.conf") != NULL);
    sat_http_conf_free(c);

    /* an unterminated quote: the line it opens on, the definitions before kept */
    c = parse_str("log_format a 'x';\nlog_format b 'y\n;\n", SAT_HTTP_CONF_NGINX, SAT_E_FORMAT);
    CHECK(c != NULL);
    CHECK_EQ_STR(def_of(c, "a"), "x");
    sat_http_conf_free(c);
    sat_diag d2;
    memset(&d2, 0, sizeof d2);
    c = NULL;
    CHECK_EQ_INT(sat_http_conf_parse("\n\nlog_format b \"y;\n", 18, 0, &c, &d2), SAT_E_FORMAT);
    CHECK_EQ_STR(d2.where, "line 3");
    sat_http_conf_free(c);
}

static void test_apache_fixture(void)
{
    size_t len;
    char *t = slurp("fixtures/http-apache/apache2.conf.excerpt", &len);
    CHECK(t != NULL);
    if (!t)
        return;
    sat_http_conf *c = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(sat_http_conf_parse(t, len, SAT_HTTP_CONF_AUTO, &c, &d), SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_APACHE);
    CHECK_EQ_STR(def_of(c, "common"), "%h %l %u %t \"%r\" %>s %b");
    CHECK_EQ_STR(def_of(c, "combined"),
                 "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\"");
    const char *sat = "%h %{c}a %l %u %t \"%r\" %>s %b %D %T %{ms}T %{us}T %k "
                      "%{SSL_PROTOCOL}x %{SSL_SESSION_RESUMED}x";
    CHECK_EQ_STR(def_of(c, "sat"), sat);
    CHECK_EQ_STR(def_of(c, "access_sat.log.gz"), sat);
    CHECK_EQ_STR(def_of(c, "access_common.log.gz"), def_of(c, "common"));
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, NULL, &d) == NULL); /* three: which? */
    CHECK(strstr(d.msg, "common, combined, sat") != NULL);
    CHECK(strstr(d.msg, "access_common.log, access_combined.log, access_sat.log") != NULL);
    sat_http_conf_free(c);
    free(t);
}

static void test_apache_quoting(void)
{
    sat_http_conf *c = parse_str(
        "# LogFormat \"%h\" commented\n"
        "<IfModule log_config_module>\n"
        "    logformat \"%h %l \\\"%r\\\" \\\\ %>s\" first\n"
        "    LogFormat \"%h %{X-Forwarded-For}i \\\n"
        "%D\" cont\n"
        "    LogFormat '%h \\'%r\\'' single\n"
        "    LogFormat \"%a\"\n"
        "    LogFormat \"%v %h\" first\n"
        "</IfModule>\n"
        "CustomLog ${APACHE_LOG_DIR}/inline.log \"%h %T\" env=!dontlog\n"
        "TransferLog logs/transfer_log\n"
        "CustomLog \"|/usr/bin/rotatelogs /var/log/a.%Y 86400\" cont\n"
        "Include conf.d/*.conf\n",
        SAT_HTTP_CONF_AUTO, SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_APACHE);
    CHECK_EQ_STR(def_of(c, "first"), "%v %h"); /* the last definition wins */
    CHECK_EQ_STR(def_of(c, "cont"), "%h %{X-Forwarded-For}i %D");
    CHECK_EQ_STR(def_of(c, "single"), "%h '%r'");
    CHECK_EQ_STR(def_of(c, "inline.log"), "%h %T");
    CHECK_EQ_STR(def_of(c, "transfer_log.1.gz"), "%a"); /* the nameless LogFormat */
    const sat_http_conf_def *defs;
    size_t n = sat_http_conf_defs(c, &defs);
    CHECK(n >= 1 && defs[0].line == 8); /* where it was defined last */
    CHECK(n >= 2 && defs[1].line == 4);
    sat_http_conf_free(c);

    c = parse_str("LogFormat \"%h \\\"%r\\\" %>s\" x\n", SAT_HTTP_CONF_APACHE, SAT_OK);
    CHECK_EQ_STR(def_of(c, "x"), "%h \"%r\" %>s");
    CHECK_EQ_STR(def_of(c, NULL), "%h \"%r\" %>s");
    /* TransferLog without a nameless LogFormat: Apache's default, CLF */
    sat_http_conf_free(c);
    c = parse_str("TransferLog /var/log/t.log\n", SAT_HTTP_CONF_APACHE, SAT_OK);
    CHECK_EQ_STR(def_of(c, "t.log"), "%h %l %u %t \"%r\" %>s %b");
    sat_http_conf_free(c);
}

static void test_tomcat(void)
{
    size_t len;
    char *t = slurp("fixtures/http-tomcat/server.xml", &len);
    CHECK(t != NULL);
    if (!t)
        return;
    sat_http_conf *c = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(sat_http_conf_parse(t, len, SAT_HTTP_CONF_AUTO, &c, &d), SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_TOMCAT);
    const char *main_p = "%h %l %u %t \"%r\" %s %b %D %T %F %I %{Connection}i";
    CHECK_EQ_STR(def_of(c, "access_main"), main_p);
    CHECK_EQ_STR(def_of(c, "fixtures/http-tomcat/run1/access_main.log.gz"), main_p);
    CHECK_EQ_STR(def_of(c, "access_combined.log.gz"), "combined");
    CHECK_EQ_STR(def_of(c, "access_ssl.2026-12-01.log"),
                 "%h %t \"%r\" %s %D %I %{begin:msec}t %{end:msec}t "
                 "%{jakarta.servlet.request.ssl_session_id}r "
                 "%{jakarta.servlet.request.cipher_suite}r %{jakarta.servlet.request.key_size}r");
    const sat_http_conf_def *defs;
    CHECK_EQ_INT(sat_http_conf_defs(c, &defs), 3);
    CHECK_EQ_INT(defs[0].line, 15);
    CHECK_EQ_INT(defs[0].server, SAT_HTTP_CONF_TOMCAT);
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, "catalina.out", &d) == NULL);
    CHECK(strstr(d.msg, "access_main*.log, access_combined*.log, access_ssl*.log") != NULL);
    sat_http_conf_free(c);
    free(t);

    /* comments hide valves; entities, character references, attribute
     * normalisation; single quotes; defaults; the only valve */
    c = parse_str("<Host>\n<!-- <Valve className=\"org.apache.catalina.valves.AccessLogValve\"\n"
                  " pattern=\"commented\"/> -->\n"
                  "<Valve className='org.apache.catalina.valves.AccessLogValve'\n"
                  "  pattern='%h &apos;%r&apos; &lt;%s&gt; &amp; &#37;b&#x20;%{a&quot;b}i\n"
                  "x\ty'/>\n"
                  "<Valve className=\"org.apache.catalina.valves.RemoteIpValve\"/>\n</Host>\n",
                  SAT_HTTP_CONF_AUTO, SAT_OK);
    CHECK_EQ_INT(sat_http_conf_server_of(c), SAT_HTTP_CONF_TOMCAT);
    const char *want = "%h '%r' <%s> & %b %{a\"b}i x y";
    CHECK_EQ_STR(def_of(c, NULL), want);
    CHECK_EQ_STR(def_of(c, "access_log"), want); /* the default prefix */
    CHECK_EQ_STR(def_of(c, "access_log.2026-12-01"), want);
    CHECK_EQ_INT(sat_http_conf_defs(c, &defs), 1);
    CHECK_EQ_INT(defs[0].line, 4);
    sat_http_conf_free(c);

    c = parse_str("<Valve className=\"org.apache.catalina.valves.ExtendedAccessLogValve\" "
                  "prefix=\"w3c\" pattern=\"date time cs-uri\"/>"
                  "<Valve className=\"org.apache.catalina.valves.AccessLogValve\" prefix=\"np\"/>",
                  SAT_HTTP_CONF_AUTO, SAT_OK);
    CHECK_EQ_INT(sat_http_conf_defs(c, &defs), 2);
    CHECK(defs[0].note && strstr(defs[0].note, "W3C"));
    CHECK(defs[1].note && strstr(defs[1].note, "no pattern"));
    sat_http_conf_free(c);

    c = parse_str("<Server>\n<Valve className=\"x.AccessLogValve\" pattern=\"%h\"/>\n<!-- open",
                  SAT_HTTP_CONF_AUTO, SAT_E_FORMAT);
    CHECK_EQ_STR(def_of(c, NULL), "%h");
    sat_http_conf_free(c);
}

static void test_empty_and_odd(void)
{
    sat_http_conf *c = parse_str("", SAT_HTTP_CONF_AUTO, SAT_OK);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_http_conf_lookup(c, NULL, &d) == NULL);
    CHECK(strstr(d.msg, "no format definition") != NULL);
    sat_http_conf_free(c);
    /* words and statements that are not whole: no crash, nothing made up */
    const char *odd[] = {"log_format", "log_format ;", "access_log;", "log_format x", "}}}{{",
                         "LogFormat", "CustomLog a", "<Valve", "<Valve className=", "<Valve a='",
                         "log_format x 'a' \\", "<?xml", "<![CDATA["};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        sat_http_conf *o = NULL;
        int rc = sat_http_conf_parse(odd[i], strlen(odd[i]), 0, &o, NULL);
        CHECK(rc == SAT_OK || rc == SAT_E_FORMAT);
        const sat_http_conf_def *defs;
        size_t n = sat_http_conf_defs(o, &defs);
        for (size_t k = 0; k < n; k++)
            CHECK(defs[k].name && defs[k].definition);
        sat_http_conf_free(o);
    }
    sat_http_conf_free(NULL);
}

/* A definition found in a file, handed to the format compiler as
 * sat_http_conf_format_arg writes it, matches the lines the server writes
 * with it: quotes, backslashes and '&' reach the compiler as they are. */
static int arg_matches(const char *conf, int server, const char *name, const char *line,
                       char *arg, size_t cap)
{
    sat_http_conf *c = parse_str(conf, server, SAT_OK);
    sat_diag d;
    memset(&d, 0, sizeof d);
    const sat_http_conf_def *def = sat_http_conf_lookup(c, name, &d);
    int ok = -1;
    if (def && sat_http_conf_format_arg(def, 0, arg, cap) < cap) {
        sat_http_format *f = sat_http_format_compile(arg, &d);
        if (!f)
            fprintf(stderr, "  compile %s: %s\n", arg, d.msg);
        sat_http_caps caps;
        const char *why;
        ok = f ? sat_http_format_match(f, line, strlen(line), &caps, &why) : -1;
        sat_http_format_free(f);
    }
    sat_http_conf_free(c);
    return ok;
}

static void test_format_arg(void)
{
    char arg[512];
    CHECK_EQ_INT(arg_matches("log_format t '\"$remote_addr\" x&amp;y \\\\q [$time_local] '\n"
                             "  '\"$request\" $status';",
                             SAT_HTTP_CONF_NGINX, "t",
                             "\"1.2.3.4\" x&amp;y \\q [01/Dec/2026:16:45:44 +0000] "
                             "\"GET / HTTP/1.1\" 200", arg, sizeof arg), 1);
    CHECK_EQ_STR(arg, "nginx:\"\\\"$remote_addr\\\" x&amp;amp;y \\\\q [$time_local] "
                      "\\\"$request\\\" $status\"");
    /* every part quoted: not taken for configuration quotes */
    CHECK_EQ_INT(arg_matches("LogFormat \"\\\"%h\\\" \\\"%t\\\" \\\"%r\\\" \\\"%>s\\\"\" q\n",
                             SAT_HTTP_CONF_APACHE, "q",
                             "\"1.2.3.4\" \"[01/Dec/2026:16:45:44 +0000]\" \"GET / HTTP/1.1\" "
                             "\"200\"", arg, sizeof arg), 1);
    /* the server's own presets go by name */
    CHECK_EQ_INT(arg_matches("access_log /l/a.log;", SAT_HTTP_CONF_NGINX, "a.log",
                             "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 "
                             "5 \"-\" \"curl\"", arg, sizeof arg), 1);
    CHECK_EQ_STR(arg, "nginx-combined");
    CHECK_EQ_INT(arg_matches("LogFormat \"%h %l %u %t \\\"%r\\\" %>s %b\" common\n",
                             SAT_HTTP_CONF_APACHE, "common",
                             "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 5",
                             arg, sizeof arg), 1);
    CHECK_EQ_STR(arg, "apache-common");
    CHECK_EQ_INT(arg_matches("<Valve className=\"a.AccessLogValve\" pattern=\"combined\"/>",
                             SAT_HTTP_CONF_TOMCAT, NULL,
                             "1.2.3.4 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 200 5 "
                             "\"-\" \"curl\"", arg, sizeof arg), 1);
    CHECK_EQ_STR(arg, "tomcat-combined");
    /* too small a buffer: the length it needs, NUL-ended */
    sat_http_conf_def def = {SAT_HTTP_CONF_APACHE, "x", "%h \"%r\"", NULL, NULL, 1, 0};
    char small[8];
    CHECK_EQ_INT(sat_http_conf_format_arg(&def, 0, small, sizeof small), 18);
    CHECK_EQ_STR(small, "apache:");
    CHECK_EQ_INT(sat_http_conf_format_arg(&def, 0, arg, sizeof arg), 18);
    CHECK_EQ_STR(arg, "apache:\"%h \\\"%r\\\"\"");
}

int main(void)
{
    test_format_arg();
    test_nginx_fixture();
    test_nginx_quoting();
    test_apache_fixture();
    test_apache_quoting();
    test_tomcat();
    test_empty_and_odd();
    return CHECK_DONE();
}
