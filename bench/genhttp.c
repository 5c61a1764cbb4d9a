/* genhttp: a generator of large, realistic nginx access logs for benchmarks, in nginx's
 * `combined` format or in the custom `sat` log_format of fixtures/http-nginx/nginx.conf.excerpt:
 *
 *   combined: $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
 *             "$http_referer" "$http_user_agent"
 *   sat:      $remote_addr $connection $connection_requests $msec $time_iso8601 "$request"
 *             $status $body_bytes_sent $request_time $upstream_response_time $ssl_protocol
 *             $ssl_session_reused
 *
 * Deterministic for a given seed and option set, and both formats come from the same random
 * draws: with --requests N the two logs describe the same traffic line for line.
 *
 * The traffic is a discrete-event simulation of keepalive TLS connections (nginx 1.22's
 * semantics): a connection carries several requests in sequence ($connection_requests from
 * 1, at most keepalive_requests 100), each line is written when its request ends ($msec and
 * $time_iso8601 are the end; $request_time the whole time; the log is in end order, with
 * the connections of many clients interleaved), $ssl_session_reused is a property of the
 * connection (`r` when the client offered a session still in the server's cache, else `.`).
 * Paths carry ids of every kind the path templates collapse (numbers, hex, UUIDs, mixed
 * ids, queries). An incident (by default minutes 3-7 of every simulated hour) slows the
 * upstream; concurrency rises, response times explode, API clients time out after 5 s
 * (nginx logs 499 at the client's timeout) and reconnect at once on a new connection with
 * a full handshake (the session cache is churned by the flood of new sessions), retrying up
 * to 3 times; nginx answers 503 (limit_req), 502 and 504 (proxy_read_timeout 30 s for the
 * browsers, which do not time out themselves).
 *
 * Output goes to stdout or -o FILE; a summary of what was generated (requests, statuses,
 * connections, first requests resumed/full, timeouts, retries) goes to stderr so that a
 * reader of the log can be checked against it.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS 1000000000ULL
#define MS 1000000ULL

#include "gen_common.h"

/* log-uniform between lo and hi: a heavy but bounded tail */
static double rlogu(double lo, double hi) { return lo * exp(urand() * log(hi / lo)); }

/* ---------- output ---------- */
static FILE *out;
static char obuf[1 << 20];
static size_t olen;
static uint64_t bytes_out, lines_out;
static char line[8192];
static size_t ll;
static uint64_t max_bytes, max_lines;
static int done;

static void oflush(void)
{
    if (olen && fwrite(obuf, 1, olen, out) != olen) {
        fprintf(stderr, "genhttp: write error: %s\n", strerror(errno));
        exit(3);
    }
    olen = 0;
}
static void ls_(const char *s) { size_t n = strlen(s); memcpy(line + ll, s, n); ll += n; }
static void lc(char c) { line[ll++] = c; }
static void lu(uint64_t v)
{
    char t[24]; int n = 0;
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) line[ll++] = t[--n];
}
static void lpad(uint64_t v, int w)
{
    for (int i = w - 1; i >= 0; i--) { line[ll + (size_t)i] = (char)('0' + v % 10); v /= 10; }
    ll += (size_t)w;
}
static void lhex(uint64_t v, int w)
{
    static const char H[] = "0123456789abcdef";
    for (int i = w - 1; i >= 0; i--) { line[ll + (size_t)i] = H[v & 15]; v >>= 4; }
    ll += (size_t)w;
}
static void lend(void)
{
    lc('\n');
    if (olen + ll > sizeof obuf) oflush();
    memcpy(obuf + olen, line, ll); olen += ll;
    bytes_out += ll; lines_out++;
    ll = 0;
    if ((max_bytes && bytes_out >= max_bytes) || (max_lines && lines_out >= max_lines)) done = 1;
}
/* seconds with 3 decimals, as nginx prints $request_time and $msec */
static void lsec3(uint64_t ns) { uint64_t ms = ns / MS; lu(ms / 1000); lc('.'); lpad(ms % 1000, 3); }

/* ---------- options and clock ---------- */
enum { F_COMBINED, F_SAT };
static int opt_format = F_COMBINED, opt_incident = 1;
static int tz_off_min;
static double opt_rate = 1000;        /* requests per second outside the incident */
static uint64_t t_start, now;
static int inc_at_min = 3, inc_len_min = 4;
static uint32_t nclients = 20000;

static const char *MON[12] = {"Jan","Feb","Mar","Apr","May","Jun","Jul","Aug","Sep","Oct","Nov","Dec"};
static int64_t ts_sec = -1;
static char ts_local[40], ts_iso[40];
static size_t ts_local_len, ts_iso_len;
static void ts_cache(uint64_t t)
{
    int64_t sec = (int64_t)(t / NS);
    if (sec == ts_sec) return;
    time_t lt = (time_t)(sec + tz_off_min * 60);
    struct tm tm;
    gmtime_r(&lt, &tm);
    int a = tz_off_min < 0 ? -tz_off_min : tz_off_min;
    char sg = tz_off_min < 0 ? '-' : '+';
    ts_local_len = (size_t)snprintf(ts_local, sizeof ts_local, "[%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d]",
                                    tm.tm_mday, MON[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
                                    tm.tm_min, tm.tm_sec, sg, a / 60, a % 60);
    ts_iso_len = (size_t)snprintf(ts_iso, sizeof ts_iso, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
                                  tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                                  tm.tm_min, tm.tm_sec, sg, a / 60, a % 60);
    ts_sec = sec;
}

/* severity 0..1 of the incident at time t: a one-minute ramp, full, a one-minute easing */
static double severity(uint64_t t)
{
    if (!opt_incident) return 0;
    double off = fmod((double)(t - t_start) / 1e9, 3600.0) - inc_at_min * 60.0;
    double len = inc_len_min * 60.0;
    if (off < 0 || off >= len) return 0;
    if (off < 60) return off / 60.0;
    if (off < len - 60) return 1.0;
    return (len - off) / 60.0;
}

/* ---------- clients ---------- */
enum { K_BROWSER, K_API, K_PROBE };
typedef struct { uint64_t last_tls; uint8_t kind; } client;
static client *clients;

static const char *UA_BROWSER[] = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.6045.163 Mobile Safari/537.36"};
static const char *UA_API[] = {"okhttp/4.12.0", "python-requests/2.31.0", "Go-http-client/1.1",
                               "Apache-HttpClient/4.5.14 (Java/17.0.9)", "curl/7.88.1"};
static void lip(uint32_t c)
{
    if (clients[c].kind == K_PROBE) { ls_("10.0.0."); lu(2 + c % 2); return; }
    if (c % 31 == 0) { ls_("2001:db8:"); lhex(0x100 + c % 3840, 3); ls_("::"); lhex(c & 0xffff, 4); return; }
    switch (c % 4) {
    case 0: ls_("10.40."); lu(c / 251 % 64); lc('.'); lu(1 + c % 251); break;
    case 1: ls_("172.20."); lu(c / 241 % 32); lc('.'); lu(2 + c % 241); break;
    case 2: ls_("192.0.2."); lu(1 + c % 254); break;
    default: ls_("198.51."); lu(100 + c / 211 % 16); lc('.'); lu(1 + c % 211); break;
    }
}

/* ---------- requests ---------- */
enum { R_HOME, R_STATIC_JS, R_STATIC_CSS, R_STATIC_IMG, R_ITEM, R_USER_ORDERS, R_ORDER_UUID,
       R_ORDER_POST, R_CART_PUT, R_CART_DEL, R_SEARCH, R_LOGIN, R_PROFILE, R_HEALTH, R_N };
static const char *RNAME[R_N] = {"/", "/static/js/(4 bundles).js", "/static/css/main.(3 builds).css",
    "/static/img/{name}.png", "/item/{n}", "/api/v1/users/{n}/orders", "/api/v1/orders/{uuid}",
    "/api/v1/orders", "/api/v1/cart/{hex}", "/api/v1/cart/{hex}/items/{n}", "/search",
    "/login", "/user/{id}/profile", "/healthz"};
/* mean service time of the upstream (ms); 0: served by nginx itself (no upstream) */
static const double RSVC_MS[R_N] = {25, 0, 0, 0, 12, 40, 18, 60, 30, 20, 120, 80, 15, 0};
static const char *IMG[] = {"logo", "hero", "banner-winter", "avatar-default", "icons", "spinner"};
static const char *JSB[] = {"app.3f9c2a1e", "app.77b0d4c2", "vendor.c41e8f03", "runtime.0a9d5b6e"};
static const char *WORDS[] = {"shoes", "red+dress", "laptop", "usb-c", "coffee", "tent", "gift",
                              "headphones", "bike", "garden+chair"};

typedef struct {
    int used, thinking, kind_req, method, status, retries, reused, tls13;
    uint32_t client, nreq, maxreq;
    uint64_t conn, t_req, rt, ups, ups2, bytes;
    uint32_t id1, id2;
    uint64_t hid;
} actor;
static actor *actors;
static uint32_t nact, *freelist, nfree;
static size_t capact, capfree; /* freelist: room for every actor */
static uint64_t next_conn = 1;
static int inflight, inflight_peak;

#define ARRIVAL UINT32_MAX
static uint32_t new_actor(void)
{
    uint32_t a;
    if (nfree) a = freelist[--nfree];
    else {
        if (SAT_GROW(actors, capact, (size_t)nact + 1) != SAT_OK ||
            SAT_GROW(freelist, capfree, (size_t)nact + 1) != SAT_OK)
            exit(3);
        a = nact++;
    }
    memset(&actors[a], 0, sizeof actors[a]);
    actors[a].used = 1;
    return a;
}

/* ---------- statistics ---------- */
static uint64_t st_req, st_status[600], st_conns, st_first_r, st_first_full, st_timeouts,
    st_retries, st_by_req[R_N], st_client_closed;

/* a client picked with a heavy-headed popularity (a few clients do most of the requests) */
static uint32_t pick_client(void)
{
    double u = urand();
    return (uint32_t)((double)nclients * u * u * u) % nclients;
}

static const uint32_t WORKERS = 400; /* upstream workers: beyond them requests queue */

/* the next request of a connection: what it asks, and how it will end */
static void start_request(actor *c)
{
    client *cl = &clients[c->client];
    double sev = severity(now);
    if (!c->retries) { /* a retry asks the same thing again */
        int k;
        if (cl->kind == K_PROBE) k = R_HEALTH;
        else if (cl->kind == K_API) {
            static const int api[] = {R_USER_ORDERS, R_USER_ORDERS, R_ORDER_UUID, R_ORDER_UUID,
                                      R_ORDER_POST, R_CART_PUT, R_CART_DEL, R_ITEM, R_SEARCH, R_LOGIN};
            k = api[irand(10)];
        } else if (c->nreq == 0) k = chance(0.6) ? R_HOME : chance(0.5) ? R_ITEM : R_SEARCH;
        else {
            static const int br[] = {R_STATIC_JS, R_STATIC_CSS, R_STATIC_IMG, R_STATIC_IMG, R_ITEM,
                                     R_ITEM, R_SEARCH, R_PROFILE, R_HOME, R_LOGIN, R_CART_PUT, R_ORDER_UUID};
            k = br[irand(12)];
        }
        c->kind_req = k;
        c->method = k == R_ORDER_POST || k == R_LOGIN ? 1 : k == R_CART_PUT ? 2 : k == R_CART_DEL ? 3 : 0;
        c->id1 = irand(k == R_ITEM ? 1000000 : 250000);
        c->id2 = irand(40);
        c->hid = rnd();
    }
    c->t_req = now;
    c->nreq++;
    inflight++;
    if (inflight > inflight_peak) inflight_peak = inflight;
    int k = c->kind_req;
    c->ups = c->ups2 = 0;
    c->status = 200;
    double svc = RSVC_MS[k];
    uint64_t rt;
    if (svc == 0) { /* static file or health check: nginx alone, unaffected by the upstream */
        rt = (uint64_t)(rlogu(0.05, k == R_STATIC_IMG ? 30 : 4) * MS);
        c->status = k != R_HEALTH && chance(0.18) ? 304 : 200;
        c->bytes = c->status == 304 ? 0 : k == R_HEALTH ? 2 : k == R_STATIC_JS ? 180000 + irand(90000)
                 : k == R_STATIC_CSS ? 24000 + irand(8000) : 3000 + irand(60000);
    } else {
        /* the upstream slows down by up to 40x during the incident; beyond WORKERS requests in
         * flight each waits for a worker (a bounded factor, so that the queue drains after) */
        double slow = 1.0 + 39.0 * sev;
        double q = inflight > (int)WORKERS ? (double)(inflight - (int)WORKERS) / WORKERS * 4.0 : 0;
        if (q > 8) q = 8;
        double ms = rlogu(svc * 0.2, svc * 5.0) * slow * (1.0 + q);
        if (chance(0.002)) ms *= 20; /* the odd slow one outside any incident */
        rt = (uint64_t)(ms * MS) + (uint64_t)irand(400000);
        c->ups = (uint64_t)(ms * MS);
        if (sev > 0.2 && chance(0.25 * sev) && cl->kind != K_PROBE) {
            /* limit_req rejects at once */
            c->status = 503; rt = (uint64_t)irand(300000); c->ups = 0; c->bytes = 197;
        } else if (chance(0.0005 + 0.02 * sev)) {
            /* the first upstream refuses, nginx tries the next (proxy_next_upstream) */
            c->ups2 = (uint64_t)(rlogu(0.2, 3) * MS);
            if (chance(0.5)) { c->status = 502; c->bytes = 157; c->ups = c->ups2 / 2; rt = c->ups + c->ups2 + 200000; }
            else rt += c->ups2;
        } else if (rt > 30 * NS) {
            c->status = 504; rt = 30 * NS + (uint64_t)irand(2000000); c->ups = 30 * NS; c->bytes = 167;
        } else {
            if (k == R_ORDER_POST) c->status = 201;
            else if (k == R_CART_DEL) c->status = 204;
            else if (k == R_LOGIN) c->status = chance(0.08) ? 401 : 200;
            else if (k == R_ITEM) c->status = chance(0.03) ? 404 : 200;
            else if (k == R_ORDER_UUID) c->status = chance(0.01) ? 404 : 200;
            else if (chance(0.0008)) c->status = 500;
            c->bytes = c->status == 204 ? 0 : c->status == 404 ? 153 : c->status == 500 ? 177
                     : k == R_HOME ? 14000 + irand(4000) : k == R_SEARCH ? 2000 + irand(30000)
                     : 80 + irand(3000);
        }
        /* API clients give up after 5 s: nginx logs 499 at that time, the upstream cut */
        if (cl->kind == K_API && rt > 5 * NS && c->status != 503) {
            c->status = 499; rt = 5 * NS + (uint64_t)irand(3000000); c->ups = rt - 1000000;
            c->ups2 = 0; c->bytes = 0;
        }
    }
    c->rt = rt;
    hpush(now + rt, (uint32_t)(c - actors));
}

/* a new connection of client cl (a first visit, a return, or a reconnect after a timeout) */
static uint32_t open_conn(uint32_t cl, int retries, const actor *redo)
{
    uint32_t a = new_actor();
    actor *c = &actors[a];
    client *k = &clients[cl];
    c->client = cl;
    c->conn = next_conn++;
    st_conns++;
    /* the session is resumed when the client still holds one the server's cache still has:
     * a short shared cache (1 MB: about 4000 sessions) churned by the incident's flood of
     * new connections forgets it */
    double sev = severity(now);
    c->reused = k->last_tls && now - k->last_tls < 300 * NS && !chance(0.05 + 0.9 * sev);
    k->last_tls = now;
    c->tls13 = cl % 10 < 7;
    c->maxreq = k->kind == K_PROBE ? 1 : k->kind == K_API ? 1 + (uint32_t)rexp(8) : 1 + (uint32_t)rexp(5);
    if (c->maxreq > 100) c->maxreq = 100; /* keepalive_requests 100 */
    if (redo) {
        c->retries = retries;
        c->kind_req = redo->kind_req; c->method = redo->method;
        c->id1 = redo->id1; c->id2 = redo->id2; c->hid = redo->hid;
        if (c->maxreq < 2) c->maxreq = 2;
    }
    start_request(c);
    return a;
}

static const char *METHOD[4] = {"GET", "POST", "PUT", "DELETE"};
static void lrequest(const actor *c)
{
    lc('"'); ls_(METHOD[c->method]); lc(' ');
    switch (c->kind_req) {
    case R_HOME: lc('/'); if (c->id2 % 5 == 0) { ls_("?utm_source=mail&utm_campaign=w"); lu(c->id2); } break;
    /* bundles named by their content hash: a few builds in use at once (browsers that kept
     * the previous deploy's page), not one per request */
    case R_STATIC_JS: ls_("/static/js/"); ls_(JSB[c->id2 % 4]); ls_(".js"); break;
    case R_STATIC_CSS: ls_("/static/css/main."); lhex(0x5e1f09c3u + 0x1000193u * (c->id2 % 3), 8); ls_(".css"); break;
    case R_STATIC_IMG: ls_("/static/img/"); ls_(IMG[c->id2 % 6]); ls_(".png"); break;
    case R_ITEM: ls_("/item/"); lu(c->id1); if (c->id2 % 3 == 0) { ls_("?x="); lu(c->id2); } break;
    case R_USER_ORDERS: ls_("/api/v1/users/"); lu(c->id1); ls_("/orders?page="); lu(1 + c->id2 % 4); break;
    case R_ORDER_UUID:
        ls_("/api/v1/orders/"); lhex(c->hid >> 32, 8); lc('-'); lhex((c->hid >> 16) & 0xffff, 4);
        ls_("-4"); lhex(c->hid & 0xfff, 3); lc('-'); lhex(0x8000 | (c->id1 & 0x3fff), 4); lc('-');
        lhex(c->hid * 0x9e3779b97f4a7c15ULL >> 16, 12);
        break;
    case R_ORDER_POST: ls_("/api/v1/orders"); break;
    case R_CART_PUT: ls_("/api/v1/cart/"); lhex(c->hid, 16); break;
    case R_CART_DEL: ls_("/api/v1/cart/"); lhex(c->hid, 16); ls_("/items/"); lu(c->id2); break;
    case R_SEARCH: ls_("/search?q="); ls_(WORDS[c->id1 % 10]); if (c->id2 & 1) { ls_("&page="); lu(1 + c->id2 % 7); } break;
    case R_LOGIN: ls_("/login"); break;
    case R_PROFILE: ls_("/user/"); lc((char)('a' + c->id1 % 26)); lu(c->id1 % 9973); lc((char)('a' + c->id2 % 26)); lhex(c->id1 & 0xff, 2); ls_("/profile"); break;
    default: ls_("/healthz"); break;
    }
    ls_(" HTTP/1.1\"");
}

static void emit(const actor *c)
{
    ts_cache(now);
    lip(c->client);
    if (opt_format == F_SAT) {
        lc(' '); lu(c->conn); lc(' '); lu(c->nreq); lc(' ');
        lsec3(now); lc(' ');
        memcpy(line + ll, ts_iso, ts_iso_len); ll += ts_iso_len; lc(' ');
        lrequest(c);
        lc(' '); lu((uint64_t)c->status); lc(' '); lu(c->bytes); lc(' ');
        lsec3(c->rt); lc(' ');
        if (RSVC_MS[c->kind_req] == 0 || (c->status == 503 && !c->ups)) lc('-');
        else if (c->ups2) { lsec3(c->ups); ls_(", "); lsec3(c->ups2); }
        else lsec3(c->ups);
        ls_(c->tls13 ? " TLSv1.3 " : " TLSv1.2 ");
        lc(c->reused ? 'r' : '.');
    } else {
        ls_(" - ");
        if (c->kind_req == R_CART_PUT && c->client % 7 == 0) { ls_("u"); lu(c->client); lc(' '); }
        else ls_("- ");
        memcpy(line + ll, ts_local, ts_local_len); ll += ts_local_len; lc(' ');
        lrequest(c);
        lc(' '); lu((uint64_t)c->status); lc(' '); lu(c->bytes); lc(' ');
        const client *k = &clients[c->client];
        if (k->kind == K_BROWSER && c->nreq > 1) ls_("\"https://shop.example.com/\" ");
        else ls_("\"-\" ");
        lc('"');
        ls_(k->kind == K_PROBE ? "kube-probe/1.28" : k->kind == K_API ? UA_API[c->client % 5] : UA_BROWSER[c->client % 5]);
        lc('"');
    }
    lend();
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: genhttp [--format combined|sat] [--size-mb N | --lines N | --requests N]\n"
            "               [--seed N] [--rate REQ_PER_S] [--clients N] [--start EPOCH_S]\n"
            "               [--tz +HHMM] [--incident-at MIN] [--incident-len MIN] [--no-incident]\n"
            "               [-o FILE]\n"
            "  nginx access log: `combined` or the `sat` log_format of\n"
            "  fixtures/http-nginx/nginx.conf.excerpt; a summary of the traffic on stderr.\n"
            "  Default: combined, 100 MB, seed 1, 1000 requests/s, 20000 clients,\n"
            "  start 2026-11-30 08:00:00 UTC, +0000, an incident minutes 3-7 of every hour.\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, max_req = 0;
    const char *path = NULL;
    double size_mb = 100;
    int size_given = 0;
    t_start = 1796025600ULL * NS; /* 2026-11-30 08:00:00 UTC */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (!v) { usage(stderr); return 2; } i++; } while (0)
        if (!strcmp(a, "--format")) { NEED(); if (!strcmp(v, "combined")) opt_format = F_COMBINED; else if (!strcmp(v, "sat")) opt_format = F_SAT; else { usage(stderr); return 2; } }
        else if (!strcmp(a, "--size-mb")) { NEED(); size_mb = atof(v); size_given = 1; }
        else if (!strcmp(a, "--lines")) { NEED(); max_lines = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--requests")) { NEED(); max_req = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--seed")) { NEED(); seed = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--rate")) { NEED(); opt_rate = atof(v); }
        else if (!strcmp(a, "--clients")) { NEED(); nclients = (uint32_t)strtoul(v, NULL, 10); }
        else if (!strcmp(a, "--start")) { NEED(); t_start = strtoull(v, NULL, 10) * NS; }
        else if (!strcmp(a, "--tz")) { NEED(); int h = atoi(v); tz_off_min = (h / 100) * 60 + (h % 100); }
        else if (!strcmp(a, "--incident-at")) { NEED(); inc_at_min = atoi(v); }
        else if (!strcmp(a, "--incident-len")) { NEED(); inc_len_min = atoi(v); }
        else if (!strcmp(a, "--no-incident")) opt_incident = 0;
        else if (!strcmp(a, "-o")) { NEED(); path = v; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else { usage(stderr); return 2; }
    }
    if (opt_rate <= 0 || nclients < 16 || inc_len_min < 2) { usage(stderr); return 2; }
    if (max_lines || max_req) { if (size_given) max_bytes = (uint64_t)(size_mb * 1e6); }
    else max_bytes = (uint64_t)(size_mb * 1e6);
    out = path ? fopen(path, "w") : stdout;
    if (!out) { fprintf(stderr, "genhttp: %s: %s\n", path, strerror(errno)); return 3; }
    seed_rng(seed);
    clients = calloc(nclients, sizeof *clients);
    if (!clients) return 3;
    for (uint32_t i = 0; i < nclients; i++)
        clients[i].kind = i < 2 ? K_PROBE : i % 5 == 1 || i % 5 == 3 ? K_API : K_BROWSER;
    now = t_start;
    /* new connections arrive as a Poisson process; each brings its requests */
    const double req_per_conn = 5.5;
    hpush(now, ARRIVAL);
    uint64_t probe_next = now;
    while (!done && hn) {
        hev e = hpop();
        now = e.t;
        if (e.a == ARRIVAL) {
            if (now >= probe_next) { open_conn(irand(2), 0, NULL); probe_next = now + NS; }
            else open_conn(2 + pick_client() % (nclients - 2), 0, NULL);
            hpush(now + rexp(1e9 * req_per_conn / opt_rate), ARRIVAL);
            continue;
        }
        actor *c = &actors[e.a];
        if (c->thinking) { c->thinking = 0; start_request(c); continue; }
        inflight--;
        emit(c);
        st_req++;
        st_status[c->status]++;
        st_by_req[c->kind_req]++;
        if (c->nreq == 1) { if (c->reused) st_first_r++; else st_first_full++; }
        if (max_req && st_req >= max_req) done = 1;
        if (c->status == 499) {
            /* the client closed: it reconnects at once (a new connection, a new handshake)
             * and asks again, up to 3 times */
            st_timeouts++;
            actor redo = *c;
            c->used = 0; freelist[nfree++] = e.a;
            if (redo.retries < 3) { st_retries++; open_conn(redo.client, redo.retries + 1, &redo); }
            continue;
        }
        int retry = (c->status == 503 || c->status == 502 || c->status == 504) && c->retries < 3 &&
                    clients[c->client].kind == K_API;
        if (c->nreq >= c->maxreq && !retry) {
            st_client_closed++;
            c->used = 0; freelist[nfree++] = e.a;
            continue;
        }
        if (retry) { st_retries++; c->retries++; }
        else c->retries = 0;
        uint64_t think = retry ? (uint64_t)(rlogu(50, 1000) * MS)
                       : clients[c->client].kind == K_BROWSER ? rexp(c->nreq < 4 ? 20e6 : 2e9) : rexp(300e6);
        if (think > 9 * NS) think = 9 * NS; /* within keepalive_timeout 10s */
        /* the next request starts after the think time: an event with no line */
        c->thinking = 1;
        hpush(now + think, e.a);
    }
    oflush();
    if (out != stdout && fclose(out)) { fprintf(stderr, "genhttp: %s: %s\n", path, strerror(errno)); return 3; }
    fprintf(stderr, "genhttp: format %s, seed %llu: %llu lines, %llu bytes, %.1f s simulated\n",
            opt_format == F_SAT ? "sat" : "combined", (unsigned long long)seed,
            (unsigned long long)lines_out, (unsigned long long)bytes_out, (double)(now - t_start) / 1e9);
    fprintf(stderr, "requests %llu\n", (unsigned long long)st_req);
    for (int s = 0; s < 600; s++)
        if (st_status[s]) fprintf(stderr, "status %d: %llu\n", s, (unsigned long long)st_status[s]);
    fprintf(stderr, "connections opened %llu (of which first requests logged: resumed r %llu, full . %llu)\n",
            (unsigned long long)st_conns, (unsigned long long)st_first_r, (unsigned long long)st_first_full);
    fprintf(stderr, "client timeouts (499) %llu, retries %llu, peak requests in flight %d\n",
            (unsigned long long)st_timeouts, (unsigned long long)st_retries, inflight_peak);
    for (int k = 0; k < R_N; k++)
        fprintf(stderr, "template %-32s %llu\n", RNAME[k], (unsigned long long)st_by_req[k]);
    if (opt_incident)
        fprintf(stderr, "incident: minutes %d-%d of every hour from the start (upstream up to 40x slower)\n",
                inc_at_min, inc_at_min + inc_len_min);
    return 0;
}
