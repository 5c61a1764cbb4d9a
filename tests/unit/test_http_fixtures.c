/*
 * test_http_fixtures.c - every HTTP access log of fixtures/http-{nginx,apache,
 * tomcat} read by the real collection (detected, or with --log-format of the
 * server's own definition), on one thread and on two with tiny chunks, and
 * the rows checked against the counts the fixtures' README.md and counts.txt
 * give (the clients' and the server's own figures): requests, statuses,
 * connections, resumed / full first requests, the times and units.
 */
#include "check.h"
#include "http_rows.h"

#include <unistd.h>

#define NGX_SAT                                                                            \
    "$remote_addr $connection $connection_requests $msec $time_iso8601 \"$request\" "      \
    "$status $body_bytes_sent $request_time $upstream_response_time $ssl_protocol "        \
    "$ssl_session_reused"
#define APACHE_SAT                                                                         \
    "%h %{c}a %l %u %t \"%r\" %>s %b %D %T %{ms}T %{us}T %k %{SSL_PROTOCOL}x "            \
    "%{SSL_SESSION_RESUMED}x"
#define TOMCAT_MAIN "%h %l %u %t &quot;%r&quot; %s %b %D %T %F %I %{Connection}i"
#define TOMCAT_SSL                                                                         \
    "%h %t \"%r\" %s %D %I %{begin:msec}t %{end:msec}t "                                  \
    "%{jakarta.servlet.request.ssl_session_id}r %{jakarta.servlet.request.cipher_suite}r " \
    "%{jakarta.servlet.request.key_size}r"

static size_t count_status(const hrows *h, int status, const char *path_has)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->v[i].r.status == status && (!path_has || strstr(h->v[i].path, path_has)))
            n++;
    return n;
}

static const hrow *find_path(const hrows *h, const char *path)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->v[i].path, path))
            return &h->v[i];
    return NULL;
}

/* The runs' boundaries (fixtures/http-nginx/runs.txt), in ns. */
#define NGX_RUN2 1796143547412000000LL
#define NGX_RUN3 1796143551087000000LL

static void nginx_sat(int threads)
{
    hrows h;
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-nginx/access-sat.log.gz", NGX_SAT, threads, 700),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 656);
    CHECK_EQ_INT(h.nrejects, 0);
    CHECK_EQ_STR(h.format, "nginx-custom");
    CHECK_EQ_INT(h.src.fields,
                 SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE | SAT_FIELD_BIT(SAT_FIELD_ETIME) |
                     SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION) |
                     SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST) | SAT_FIELD_BIT(SAT_FIELD_UPSTREAM));
    /* counts.txt: the curl runs and the httperf run apart */
    size_t curl = 0, curl_first = 0, curl_r = 0, curl_new = 0;
    size_t hp = 0, hp_first = 0, hp_r = 0, hp_new = 0, run2_r = 0, run2_new = 0;
    size_t upstream = 0;
    for (size_t i = 0; i < h.n; i++) {
        const sat_http_req *r = &h.v[i].r;
        int lim = !strncmp(h.v[i].path, "/limited/", 9);
        int first = r->conn_request == 1;
        CHECK(r->flags & SAT_HTTPF_TS_END);
        CHECK(!(r->flags & SAT_HTTPF_TS_END_ONLY));
        CHECK(r->flags & SAT_HTTPF_TLS);
        upstream += r->upstream_time != SAT_ABSENT;
        if (lim) {
            hp++;
            hp_first += first;
            hp_r += first && r->tls_session == SAT_HTTP_SESSION_RESUMED;
            hp_new += first && r->tls_session == SAT_HTTP_SESSION_NEW;
        } else {
            curl++;
            curl_first += first;
            curl_r += first && r->tls_session == SAT_HTTP_SESSION_RESUMED;
            curl_new += first && r->tls_session == SAT_HTTP_SESSION_NEW;
            /* run 2: the lines written ($msec, the end) between its start and run 3's */
            sat_ts_ns end = r->ts + r->response_time;
            if (first && end >= NGX_RUN2 && end < NGX_RUN3) {
                run2_r += r->tls_session == SAT_HTTP_SESSION_RESUMED;
                run2_new += r->tls_session == SAT_HTTP_SESSION_NEW;
            }
        }
    }
    CHECK_EQ_INT(curl, 104);
    CHECK_EQ_INT(curl_first, 56);
    CHECK_EQ_INT(curl_r, 24);
    CHECK_EQ_INT(curl_new, 32);
    CHECK_EQ_INT(hp, 552);
    CHECK_EQ_INT(hp_first, 552);
    CHECK_EQ_INT(hp_r, 402);
    CHECK_EQ_INT(hp_new, 150);
    CHECK_EQ_INT(run2_r, 12);
    CHECK_EQ_INT(run2_new, 16);
    CHECK_EQ_INT(upstream, 0); /* "-" everywhere: no upstream */
    CHECK_EQ_INT(count_status(&h, 200, NULL) - count_status(&h, 200, "/limited/"), 80);
    CHECK_EQ_INT(count_status(&h, 404, NULL), 16);
    CHECK_EQ_INT(count_status(&h, 503, NULL) - count_status(&h, 503, "/limited/"), 8);
    CHECK_EQ_INT(count_status(&h, 200, "/limited/"), 118);
    CHECK_EQ_INT(count_status(&h, 499, "/limited/"), 4);
    CHECK_EQ_INT(count_status(&h, 503, "/limited/"), 430);
    /* the first line, field by field */
    const hrow *a = h.n ? &h.v[0] : NULL;
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ_STR(a->client, "127.0.0.1");
        CHECK_EQ_INT(a->r.conn, 2);
        CHECK_EQ_INT(a->r.conn_request, 1);
        CHECK_EQ_INT(a->r.ts, 1796143544592000000LL); /* $msec, request_time 0.000 */
        CHECK_EQ_STR(a->method, "GET");
        CHECK_EQ_STR(a->path, "/static/small.txt?c=1.2");
        CHECK_EQ_STR(a->tmpl, "/static/small.txt");
        CHECK_EQ_STR(a->proto, "HTTP/1.1");
        CHECK_EQ_INT(a->r.status, 200);
        CHECK_EQ_INT(a->r.bytes, 512);
        CHECK_EQ_INT(a->r.response_time, 0);
        CHECK_EQ_STR(a->tls, "TLSv1.2");
        CHECK_EQ_INT(a->r.tls_session, SAT_HTTP_SESSION_NEW);
    }
    /* ids collapse: /item/1234?x=1 and /item/99 are one template */
    const hrow *i1 = find_path(&h, "/item/1234?x=1"), *i2 = find_path(&h, "/item/99");
    const hrow *u1 = find_path(&h, "/user/abc123def/profile"), *u2 = find_path(&h, "/user/zz9/profile");
    CHECK(i1 && i2 && u1 && u2);
    if (i1 && i2 && u1 && u2) {
        CHECK_EQ_STR(i1->tmpl, "/item/{n}");
        CHECK_EQ_STR(i2->tmpl, "/item/{n}");
        CHECK_EQ_STR(u1->tmpl, "/user/{id}/profile");
        CHECK_EQ_STR(u2->tmpl, "/user/{id}/profile");
        CHECK_EQ_INT(i2->r.status, 404);
    }
    /* the 499s: the client's 1 s timeout, request_time 1.00x s */
    for (size_t i = 0; i < h.n; i++)
        if (h.v[i].r.status == 499)
            CHECK(h.v[i].r.response_time >= 1000000000LL &&
                  h.v[i].r.response_time < 1100000000LL);
    hr_free(&h);
}

/* The combined log of the same requests: detected, and with the nginx preset. */
static void nginx_combined(int threads)
{
    hrows h, s;
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-nginx/access.log.gz", NULL, threads, 300), SAT_OK);
    CHECK_EQ_INT(h.n, 656);
    CHECK_EQ_INT(h.nrejects, 0);
    CHECK_EQ_STR(h.format, "http-combined");
    CHECK_EQ_INT(h.src.fields, SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE);
    CHECK_EQ_INT(count_status(&h, 200, NULL), 198);
    CHECK_EQ_INT(count_status(&h, 404, NULL), 16);
    CHECK_EQ_INT(count_status(&h, 503, NULL), 438);
    CHECK_EQ_INT(count_status(&h, 499, NULL), 4);
    if (h.n)
        CHECK_EQ_STR(h.v[0].ua, "curl/7.88.1");
    /* line by line the same requests as the sat log, at the same second */
    CHECK_EQ_INT(hr_collect(&s, "fixtures/http-nginx/access-sat.log.gz", NGX_SAT, 1, 0), SAT_OK);
    size_t same = 0;
    for (size_t i = 0; i < h.n && i < s.n; i++) {
        sat_ts_ns end = s.v[i].r.ts + s.v[i].r.response_time;
        same += h.v[i].r.status == s.v[i].r.status && !strcmp(h.v[i].path, s.v[i].path) &&
                h.v[i].r.ts / 1000000000LL == end / 1000000000LL;
    }
    CHECK_EQ_INT(same, 656);
    hr_free(&s);
    hr_free(&h);

    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-nginx/access.log.gz", "nginx-combined", threads, 0),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 656);
    CHECK_EQ_STR(h.format, "nginx-combined");
    if (h.n)
        CHECK_EQ_INT(h.v[0].r.flags & (SAT_HTTPF_TS_END | SAT_HTTPF_TS_END_ONLY),
                     SAT_HTTPF_TS_END | SAT_HTTPF_TS_END_ONLY);
    hr_free(&h);
}

static void apache(int threads)
{
    hrows h;
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-apache/access_sat.log.gz", APACHE_SAT, threads, 400),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 104);
    CHECK_EQ_INT(h.nrejects, 0);
    CHECK_EQ_STR(h.format, "apache-custom");
    CHECK_EQ_INT(h.src.fields,
                 SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE | SAT_FIELD_BIT(SAT_FIELD_ETIME) |
                     SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION) | SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST));
    for (int run = 1; run <= 2; run++) {
        char tag[8];
        snprintf(tag, sizeof tag, "run=%d", run);
        size_t req = 0, first = 0, resumed = 0, initial = 0;
        for (size_t i = 0; i < h.n; i++) {
            const sat_http_req *r = &h.v[i].r;
            if (!strstr(h.v[i].path, tag))
                continue;
            req++;
            if (r->conn_request == 1) {
                first++;
                resumed += r->tls_session == SAT_HTTP_SESSION_RESUMED;
                initial += r->tls_session == SAT_HTTP_SESSION_NEW;
            }
        }
        CHECK_EQ_INT(req, 52);
        CHECK_EQ_INT(count_status(&h, 200, tag), 40);
        CHECK_EQ_INT(count_status(&h, 404, tag), 8);
        CHECK_EQ_INT(count_status(&h, 503, tag), 4);
        CHECK_EQ_INT(first, 32); /* %k = 0 (README: the 503s are counted too) */
        CHECK_EQ_INT(resumed, 12);
        CHECK_EQ_INT(initial, 20);
    }
    /* %t is the start, %D microseconds: the first line, 955 us */
    if (h.n) {
        CHECK_EQ_INT(h.v[0].r.ts, 1796143619LL * 1000000000LL);
        CHECK_EQ_INT(h.v[0].r.response_time, 955000);
        CHECK_EQ_INT(h.v[0].r.flags & SAT_HTTPF_TS_END, 0);
        CHECK_EQ_INT(h.v[0].r.conn_request, 1);
    }
    /* the cut /slow/ requests: 200 with the whole file, %D about 0.8 s */
    for (size_t i = 0; i < h.n; i++)
        if (!strncmp(h.v[i].path, "/slow/", 6)) {
            CHECK_EQ_INT(h.v[i].r.bytes, 200000);
            CHECK(h.v[i].r.response_time > 500000000LL);
        }
    hr_free(&h);

    static const char *const std[][2] = {
        {"fixtures/http-apache/access_common.log.gz", "http-common"},
        {"fixtures/http-apache/access_combined.log.gz", "http-combined"}};
    for (size_t k = 0; k < 2; k++) {
        CHECK_EQ_INT(hr_collect(&h, std[k][0], NULL, threads, 300), SAT_OK);
        CHECK_EQ_INT(h.n, 104);
        CHECK_EQ_INT(h.nrejects, 0);
        CHECK_EQ_STR(h.format, std[k][1]);
        CHECK_EQ_INT(count_status(&h, 200, NULL), 80);
        CHECK_EQ_INT(count_status(&h, 404, NULL), 16);
        CHECK_EQ_INT(count_status(&h, 503, NULL), 8);
        hr_free(&h);
    }
}

static void tomcat(int threads)
{
    static const char *const dirs[] = {"run1", "run2"};
    hrows h;
    for (size_t k = 0; k < 2; k++) {
        char p[128];
        snprintf(p, sizeof p, "fixtures/http-tomcat/%s/access_main.log.gz", dirs[k]);
        CHECK_EQ_INT(hr_collect(&h, p, TOMCAT_MAIN, threads, 300), SAT_OK);
        CHECK_EQ_INT(h.n, 67);
        CHECK_EQ_INT(h.nrejects, 0);
        CHECK_EQ_STR(h.format, "tomcat-custom");
        CHECK_EQ_INT(count_status(&h, 200, NULL), 54);
        CHECK_EQ_INT(count_status(&h, 404, NULL), 12);
        CHECK_EQ_INT(count_status(&h, 400, NULL), 1);
        size_t norl = 0;
        for (size_t i = 0; i < h.n; i++)
            norl += (h.v[i].r.flags & SAT_HTTPF_NO_REQUEST_LINE) != 0;
        CHECK_EQ_INT(norl, 1); /* the readiness probe's "-" 400 */
        hr_free(&h);

        snprintf(p, sizeof p, "fixtures/http-tomcat/%s/access_combined.log.gz", dirs[k]);
        CHECK_EQ_INT(hr_collect(&h, p, NULL, threads, 300), SAT_OK);
        CHECK_EQ_INT(h.n, 67);
        CHECK_EQ_STR(h.format, "http-combined");
        CHECK_EQ_INT(count_status(&h, 200, NULL), 54);
        hr_free(&h);
        CHECK_EQ_INT(hr_collect(&h, p, "tomcat:combined", threads, 300), SAT_OK);
        CHECK_EQ_INT(h.n, 67);
        CHECK_EQ_STR(h.format, "tomcat-combined");
        hr_free(&h);
    }
    /* %D in microseconds (Tomcat 10): the first /index.html took 21193 us */
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-tomcat/run1/access_main.log.gz", TOMCAT_MAIN,
                            threads, 0),
                 SAT_OK);
    if (h.n > 1) {
        CHECK_EQ_STR(h.v[1].path, "/index.html");
        CHECK_EQ_INT(h.v[1].r.response_time, 21193000);
    }
    hr_free(&h);
    /* access_ssl: the begin in ms is the time read */
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-tomcat/run1/access_ssl.log.gz", TOMCAT_SSL,
                            threads, 0),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 67);
    CHECK_EQ_INT(h.nrejects, 0);
    if (h.n > 1) {
        CHECK_EQ_INT(h.v[1].r.ts, 1796143626835000000LL);
        CHECK_EQ_INT(h.v[1].r.response_time, 21193000);
        CHECK_EQ_INT(h.v[1].r.flags & SAT_HTTPF_TS_END, 0);
    }
    hr_free(&h);
    /* the httperf run: 124 answers of the JSP logged 200, and the probe */
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-tomcat/httperf/access_main.log.gz", TOMCAT_MAIN,
                            threads, 300),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 125);
    CHECK_EQ_INT(count_status(&h, 200, "/sleep.jsp"), 124);
    CHECK_EQ_INT(count_status(&h, 400, NULL), 1);
    hr_free(&h);
    CHECK_EQ_INT(hr_collect(&h, "fixtures/http-tomcat/resume/access_ssl.log.gz", TOMCAT_SSL,
                            threads, 0),
                 SAT_OK);
    CHECK_EQ_INT(h.n, 7);
    CHECK_EQ_INT(h.nrejects, 0);
    hr_free(&h);
}

/* A rotated set in a custom format is read in the order of its content, not
 * of its names: the later half of the nginx sat log named as the older file. */
static void rotated_custom(void)
{
    char dir[] = "/tmp/sat-http-rot-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char cmd[2048], a[128], b[128];
    snprintf(a, sizeof a, "%s/access-sat.log.1", dir);
    snprintf(b, sizeof b, "%s/access-sat.log.2", dir);
    const char *src = getenv("SAT_SRC");
    snprintf(cmd, sizeof cmd,
             "zcat '%s/fixtures/http-nginx/access-sat.log.gz' | head -300 > '%s' && "
             "zcat '%s/fixtures/http-nginx/access-sat.log.gz' | tail -n +301 > '%s'",
             src ? src : ".", a, src ? src : ".", b);
    CHECK_EQ_INT(system(cmd), 0);
    const char *in[2] = {b, a};
    hrows h;
    CHECK_EQ_INT(hr_collect_n(&h, in, 2, NGX_SAT, 1, 0), SAT_OK);
    CHECK_EQ_INT(h.n, 656);
    CHECK_EQ_INT(h.nsources, 2);
    if (h.n == 656) {
        CHECK_EQ_INT(h.v[0].r.ts, 1796143544592000000LL); /* the log's first line first */
        CHECK_EQ_INT(h.v[0].r.source, 0);
        CHECK_EQ_INT(h.v[655].r.source, 1);
        CHECK_EQ_INT(h.v[0].r.server, h.v[655].r.server); /* one server */
    }
    hr_free(&h);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* A line that is not the format's: rejected with its number, the rest read. */
static void rejects(void)
{
    hrows h;
    /* the Apache sat log read with nginx's sat format: every line rejected,
     * nothing of it analysed: an unreadable input */
    int rc = hr_collect(&h, "fixtures/http-apache/access_sat.log.gz", NGX_SAT, 1, 0);
    CHECK_EQ_INT(rc, SAT_E_IO);
    CHECK_EQ_INT(h.n, 0);
    CHECK_EQ_INT(h.nrejects, 104);
    CHECK_EQ_INT(h.first_reject_line, 1);
    CHECK_EQ_INT(h.src.fields, 0); /* no line was the format's: declares nothing */
    hr_free(&h);

    /* bad lines among good ones, parsed in many chunks on two threads: each
     * rejected at its own line number, in order, the others read in order */
    char path[] = "/tmp/sat-http-rej-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    for (int i = 1; i <= 50; i++) {
        if (i == 7 || i == 33)
            fprintf(f, "garbage line %d\n", i);
        else if (i == 50)
            fprintf(f, "10.0.0.1 - - [01/Dec/2026:16:45:44 +0000] \"GET / HTTP/1.1\" 2x0 1\n");
        else
            fprintf(f, "10.0.0.%d - - [01/Dec/2026:16:45:%02d +0000] \"GET /n/%d HTTP/1.1\" 200 %d\n",
                    i, i, i, i);
    }
    fclose(f);
    for (int threads = 1; threads <= 2; threads++) {
        CHECK_EQ_INT(hr_collect(&h, path, NULL, threads, 150), SAT_OK);
        CHECK_EQ_STR(h.format, "http-common");
        CHECK_EQ_INT(h.n, 47);
        CHECK_EQ_INT(h.nrejects, 3);
        CHECK_EQ_INT(h.reject_lines[0], 7);
        CHECK_EQ_INT(h.reject_lines[1], 33);
        CHECK_EQ_INT(h.reject_lines[2], 50);
        CHECK_EQ_INT(h.src.lines, 50);
        CHECK_EQ_INT(h.src.rejects, 3);
        size_t ordered = 0;
        for (size_t i = 0; i + 1 < h.n; i++)
            ordered += h.v[i].r.bytes < h.v[i + 1].r.bytes;
        CHECK_EQ_INT(ordered, 46);
        if (h.n)
            CHECK_EQ_STR(h.v[0].tmpl, "/n/{n}");
        hr_free(&h);
    }
    unlink(path);
}

int main(void)
{
    for (int threads = 1; threads <= 2; threads++) {
        nginx_sat(threads);
        nginx_combined(threads);
        apache(threads);
        tomcat(threads);
    }
    rejects();
    rotated_custom();
    return CHECK_DONE();
}
