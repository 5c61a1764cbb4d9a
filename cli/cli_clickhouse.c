/*
 * cli_clickhouse.c - ClickHouse's HTTP interface through libcurl
 * (cli_clickhouse.h; ClickHouse's "HTTP Interface" documentation): a POST
 * per statement, the answer's status 200 or an error whose body's first
 * line is ClickHouse's own message ("Code: 60, e.displayText() = ..."),
 * said as it is. Every request carries insert_distributed_sync=1: an INSERT
 * into a Distributed table returns once every shard has its rows, so that
 * what satscope records as exported is there (a no-op for other tables).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_clickhouse.h"
#include "satscope/base.h"

/* An answer larger than this is not one satscope asked for (counts, a few
 * rows of system tables). */
#define ANSWER_MAX (16u << 20)

struct sat_ch {
    CURL *curl;
    char *url, *user, *password;
    long timeout_s;
    char *answer;
    size_t alen, acap;
    int too_long;
    char err[1024];
};

static int curl_ready;

static size_t on_answer(char *p, size_t size, size_t n, void *vch)
{
    sat_ch *ch = (sat_ch *)vch;
    size_t len = size * n;
    if (ch->alen + len + 1 > ANSWER_MAX) {
        ch->too_long = 1;
        return 0; /* ends the transfer: CURLE_WRITE_ERROR */
    }
    if (SAT_GROW(ch->answer, ch->acap, ch->alen + len + 1))
        return 0;
    memcpy(ch->answer + ch->alen, p, len);
    ch->alen += len;
    ch->answer[ch->alen] = '\0';
    return len;
}

sat_ch *sat_ch_new(const sat_ch_opts *o, const char **why)
{
    *why = "out of memory";
    if (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8)) {
        *why = "not an http:// or https:// URL";
        return NULL;
    }
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return NULL;
        curl_ready = 1;
    }
    sat_ch *ch = (sat_ch *)calloc(1, sizeof *ch);
    if (!ch)
        return NULL;
    ch->curl = curl_easy_init();
    ch->url = strdup(o->url);
    ch->user = o->user ? strdup(o->user) : NULL;
    ch->password = o->password ? strdup(o->password) : NULL;
    ch->timeout_s = o->timeout_s;
    if (!ch->curl || !ch->url || (o->user && !ch->user) || (o->password && !ch->password)) {
        sat_ch_free(ch);
        return NULL;
    }
    return ch;
}

void sat_ch_free(sat_ch *ch)
{
    if (!ch)
        return;
    if (ch->curl)
        curl_easy_cleanup(ch->curl);
    free(ch->url);
    free(ch->user);
    if (ch->password) /* not left in freed memory */
        memset(ch->password, 0, strlen(ch->password));
    free(ch->password);
    free(ch->answer);
    free(ch);
}

sat_ch *sat_ch_for_host(const sat_ch *ch, const char *host)
{
    /* scheme://[userinfo@]host[:port]/rest: the host part replaced */
    const char *h = strstr(ch->url, "://") + 3;
    const char *end = h + strcspn(h, "/?#");
    const char *at = memchr(h, '@', (size_t)(end - h));
    if (at)
        h = at + 1;
    const char *p = h;
    if (*p == '[') { /* an IPv6 literal */
        const char *rb = memchr(p, ']', (size_t)(end - p));
        p = rb ? rb + 1 : end;
    }
    const char *colon = memchr(p, ':', (size_t)(end - p));
    const char *port = colon ? colon : end; /* ":8123/..." or "/..." */
    int v6 = strchr(host, ':') != NULL;
    size_t n = (size_t)(h - ch->url) + strlen(host) + strlen(port) + 3;
    char *url = (char *)malloc(n);
    if (!url)
        return NULL;
    snprintf(url, n, "%.*s%s%s%s%s", (int)(h - ch->url), ch->url, v6 ? "[" : "", host,
             v6 ? "]" : "", port);
    sat_ch_opts o = {url, ch->user, ch->password, ch->timeout_s};
    const char *why;
    sat_ch *other = sat_ch_new(&o, &why);
    free(url);
    return other;
}

/* The URL of a request: the base, then our settings and the statement when
 * the body holds the data. */
static char *request_url(sat_ch *ch, const char *sql)
{
    char *q = sql ? curl_easy_escape(ch->curl, sql, 0) : NULL;
    if (sql && !q)
        return NULL;
    size_t n = strlen(ch->url) + (q ? strlen(q) : 0) + 64;
    char *url = (char *)malloc(n);
    if (url)
        snprintf(url, n, "%s%sinsert_distributed_sync=1%s%s", ch->url,
                 strchr(ch->url, '?') ? "&" : (ch->url[strlen(ch->url) - 1] == '/' ? "?" : "/?"),
                 q ? "&query=" : "", q ? q : "");
    curl_free(q);
    return url;
}

static int fail(sat_ch *ch, const char *fmt, const char *a, const char *b)
{
    snprintf(ch->err, sizeof ch->err, fmt, a, b);
    return -1;
}

int sat_ch_query(sat_ch *ch, const char *sql, const void *body, size_t len, const char **answer)
{
    if (answer)
        *answer = NULL;
    ch->alen = 0;
    ch->too_long = 0;
    if (SAT_GROW(ch->answer, ch->acap, 1))
        return fail(ch, "out of memory%s%s", "", "");
    ch->answer[0] = '\0';
    char *url = request_url(ch, body ? sql : NULL);
    if (!url)
        return fail(ch, "out of memory%s%s", "", "");
    struct curl_slist *hdr = NULL, *h;
    char line[512];
    int hok = 1;
    if (ch->user) {
        snprintf(line, sizeof line, "X-ClickHouse-User: %s", ch->user);
        hok &= (h = curl_slist_append(hdr, line)) != NULL;
        hdr = h ? h : hdr;
    }
    if (ch->password) {
        snprintf(line, sizeof line, "X-ClickHouse-Key: %s", ch->password);
        hok &= (h = curl_slist_append(hdr, line)) != NULL;
        hdr = h ? h : hdr;
        memset(line, 0, sizeof line);
    }
    hok &= (h = curl_slist_append(hdr, "Content-Type: application/octet-stream")) != NULL;
    hdr = h ? h : hdr;
    if (!hok) {
        curl_slist_free_all(hdr);
        free(url);
        return fail(ch, "out of memory%s%s", "", "");
    }
    CURL *c = ch->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? (const char *)body : sql);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : strlen(sql)));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_answer);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, ch);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, ch->timeout_s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, ch->timeout_s ? ch->timeout_s : 30L);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdr);
    free(url);
    switch (rc) {
    case CURLE_OK: break;
    case CURLE_COULDNT_CONNECT:
        return fail(ch, "%s: connection refused (is ClickHouse's HTTP interface listening "
                        "there?)%s", ch->url, "");
    case CURLE_COULDNT_RESOLVE_HOST: return fail(ch, "%s: no such host%s", ch->url, "");
    case CURLE_OPERATION_TIMEDOUT:
        return fail(ch, "%s: no answer in time (--timeout)%s", ch->url, "");
    case CURLE_WRITE_ERROR:
        if (ch->too_long)
            return fail(ch, "%s: an answer of more than 16 MB%s", ch->url, "");
        return fail(ch, "out of memory%s%s", "", "");
    default: return fail(ch, "%s: %s", ch->url, curl_easy_strerror(rc));
    }
    if (status != 200) {
        char first[800];
        size_t n = strcspn(ch->answer, "\n");
        snprintf(first, sizeof first, "%.*s", (int)(n < sizeof first - 1 ? n : sizeof first - 1),
                 ch->answer);
        snprintf(ch->err, sizeof ch->err, "HTTP %ld: %s", status,
                 first[0] ? first : "(no message)");
        return -1;
    }
    if (answer)
        *answer = ch->answer;
    return 0;
}

int sat_ch_query_u64(sat_ch *ch, const char *sql, unsigned long long *v)
{
    const char *a;
    if (sat_ch_query(ch, sql, NULL, 0, &a) < 0)
        return -1;
    char *end;
    *v = strtoull(a, &end, 10);
    if (end == a || (*end && *end != '\n'))
        return fail(ch, "ClickHouse answered '%.60s' where a number was asked for%s", a, "");
    return 0;
}

const char *sat_ch_error(const sat_ch *ch) { return ch->err; }
const char *sat_ch_url(const sat_ch *ch) { return ch->url; }
