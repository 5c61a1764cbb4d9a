/*
 * test_state_corrupt.c - an analyzer's state read back from a partial
 * (analyze/state_io.h) never trusts its bytes: for the timeline, handshakes,
 * crashes and cachesize analyzers, each fed real inputs (an access log, TLS
 * captures, an nginx log, a core and crash texts), the saved state read back
 * whole is accepted with every byte read; cut at many lengths it is refused
 * with a message; with bytes flipped it is refused with a message or read
 * as some other state that then finishes and renders (never a crash, which
 * the ASan build checks); made with other options that change what the state
 * means, it is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/collect.h"
#include "satscope/trace.h"
#include "analyze/state_io.h"
#include "row_copies.h"

typedef row_copies rows;

static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

static void collect(rows *rs)
{
    static const char *const rel[] = {
        "fixtures/incident/access.20250609-133000.gz", "fixtures/tls/tls12-sessid.pcap",
        "fixtures/tls/tls-abort.pcap",                 "fixtures/tls/tls-storm.pcap",
        "fixtures/http-nginx/access.log.gz",           "fixtures/crashtext/incident-gdb.log",
        "fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz"};
    const char *src = getenv("SAT_SRC");
    char buf[8][4096];
    const char *paths[8];
    size_t n = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(buf[n], sizeof buf[n], "%s/%s", src ? src : ".", rel[i]);
        if (access(buf[n], R_OK) == 0) {
            paths[n] = buf[n];
            n++;
        }
    }
    CHECK(n == sizeof rel / sizeof rel[0]);
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = quiet;
    o.no_source_lines = 1;
    sat_event_sink k = {rs, SAT_TABLES_ALL, row_copies_add};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_collect_run(paths, n, &o, &k, &st, &d);
    CHECK(rs->n > 1000);
}

/* A fresh instance made with opts loads p; the load's code, its message in msg. */
static int load(const sat_analyzer *a, const void *opts, const unsigned char *p, size_t n,
                int render, char *msg, size_t cap)
{
    void *obj = a->create(opts);
    if (!obj)
        abort();
    sat_sr r;
    sat_sr_init(&r, p, n);
    int rc = a->load(obj, &r);
    snprintf(msg, cap, "%s", r.msg);
    if (rc == SAT_OK && render) { /* some other state: it still finishes and renders */
        FILE *f = fopen("/dev/null", "w");
        sat_diag d;
        memset(&d, 0, sizeof d);
        if (a->finish(obj) >= 0 && f)
            sat_analyzer_json(a, obj, f, &d);
        if (f)
            fclose(f);
    }
    if (rc == SAT_OK)
        CHECK(sat_cursor_left(&r.c) == 0 || render);
    a->free(obj);
    return rc;
}

/* The state of a fed every row (its default options). */
static sat_sw saved(const sat_analyzer *a, const rows *rs)
{
    void *obj = a->create(NULL);
    sat_event_sink k = a->sink(obj);
    for (size_t i = 0; i < rs->n; i++)
        sat_sink_emit(&k, rs->table[i], rs->row[i]);
    sat_sw w;
    memset(&w, 0, sizeof w);
    CHECK(a->save(obj, &w) == SAT_OK);
    a->free(obj);
    return w;
}

static void check_analyzer(const char *name, const rows *rs)
{
    const sat_analyzer *a = sat_analyzer_find(name);
    CHECK(a != NULL);
    if (!a || !a->save || !a->load) {
        printf("SKIP %s: no state yet\n", name);
        return;
    }
    sat_sw w = saved(a, rs);
    char msg[256];
    CHECK(load(a, NULL, w.p, w.n, 0, msg, sizeof msg) == SAT_OK);

    /* cut: every length up to 256 bytes, then 400 lengths spread over the rest */
    size_t refused = 0, cuts = 0;
    for (size_t len = 0; len < w.n; len = len < 256 ? len + 1 : len + 1 + (w.n - 256) / 400) {
        int rc = load(a, NULL, w.p, len, 0, msg, sizeof msg);
        cuts++;
        refused += rc < 0 && msg[0];
        if (rc >= 0 || !msg[0])
            printf("%s: cut at %zu of %zu bytes: rc %d, '%s'\n", name, len, w.n, rc, msg);
    }
    CHECK(refused == cuts);

    /* flipped: 300 bytes spread over the state, one at a time */
    unsigned char *bad = malloc(w.n ? w.n : 1);
    if (!bad)
        abort();
    size_t flips = 0, flip_refused = 0;
    for (size_t i = 0; i < 300 && w.n; i++) {
        size_t at = (size_t)(((uint64_t)i * 2654435761u) % w.n);
        memcpy(bad, w.p, w.n);
        bad[at] ^= (unsigned char)(0x5a + i);
        int rc = load(a, NULL, bad, w.n, 1, msg, sizeof msg);
        flips++;
        if (rc < 0) {
            flip_refused++;
            CHECK(msg[0] != 0);
        }
    }
    printf("%s: %zu bytes of state; %zu cuts refused; %zu of %zu flipped bytes refused\n", name,
           w.n, refused, flip_refused, flips);
    free(bad);
    sat_sw_free(&w);
}

/* Options that change what the state means: a partial made with others is refused. */
/* A's state of every row (made with its default options) read back by an
 * instance made with opts: refused, the message naming `what`. */
static void refused_with(const char *name, const void *opts, const char *what, const rows *rs)
{
    const sat_analyzer *a = sat_analyzer_find(name);
    if (!a || !a->save)
        return;
    sat_sw w = saved(a, rs);
    char msg[256];
    CHECK(load(a, opts, w.p, w.n, 0, msg, sizeof msg) == SAT_E_CORRUPT);
    CHECK(strstr(msg, what) != NULL);
    sat_sw_free(&w);
}

static void check_options(const rows *rs)
{
    sat_timeline_opts t = {200};
    refused_with("timeline", &t, "windows", rs);
    sat_hs_opts h;
    memset(&h, 0, sizeof h);
    h.by = SAT_HS_BY_CLIENT;
    refused_with("handshakes", &h, "by", rs);
}

int main(void)
{
    rows rs;
    memset(&rs, 0, sizeof rs);
    collect(&rs);
    static const char *const names[] = {"timeline", "handshakes", "crashes", "cachesize"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_analyzer(names[i], &rs);
    check_options(&rs);
    row_copies_free(&rs);
    return CHECK_DONE();
}
