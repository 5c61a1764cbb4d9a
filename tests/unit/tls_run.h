/*
 * tls_run.h - a conversation (tls_build.h) through the TLS dissector
 * (parse/wire/dis_tls.c: create / data / end) into a capturing sink, for the tests
 * test_dis_tls_*.c: whole, in chunks, cut after any byte; and the check every
 * handshake case makes (the same row however the bytes are fed, no
 * truncation that comes out "resumed" unless the whole does).
 */
#ifndef SAT_TEST_TLS_RUN_H
#define SAT_TEST_TLS_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "parse/wire/dissectors.h"
#include "tls_build.h"

/* ---- capture sink ------------------------------------------------------------------- */
typedef struct cap_row {
    sat_tls_hs h;
    char sni[256];
    char cip[64];
} cap_row;
typedef struct capture {
    int n;
    cap_row rows[4];
} capture;

static inline int on_tls(void *ctx, const sat_tls_hs *h)
{
    capture *c = (capture *)ctx;
    if (c->n < 4) {
        cap_row *r = &c->rows[c->n];
        r->h = *h;
        snprintf(r->sni, sizeof r->sni, "%.*s", h->sni.ptr ? (int)h->sni.len : 0,
                 h->sni.ptr ? h->sni.ptr : "");
        snprintf(r->cip, sizeof r->cip, "%.*s", (int)h->client_ip.len, h->client_ip.ptr);
        r->h.sni = h->sni.ptr ? sat_str_cstr(r->sni) : SAT_STR_NONE;
        r->h.client_ip = r->h.server_ip = SAT_STR_NONE;
    }
    c->n++;
    return SAT_OK;
}

static inline int rows_tls(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    default:
        return 0;
    }
}

#define T0 1700000000000000000LL
#define STEP_NS 1000000LL

/* Feeds the first `limit` bytes of the conversation (SIZE_MAX: all), in
 * chunks of `chunk` bytes (0: each step whole); step i has ts T0 + i ms. */
static inline int run(const convo *c, size_t chunk, size_t limit, capture *out)
{
    static const char cip[] = "192.0.2.1", sip[] = "198.51.100.7";
    sat_flow_info fi;
    memset(&fi, 0, sizeof fi);
    fi.source = 3;
    fi.flow = 42;
    fi.client_ip = sat_str_cstr(cip);
    fi.server_ip = sat_str_cstr(sip);
    fi.client_port = 50000;
    fi.server_port = 443;
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = out;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_wire_ctx ctx = {&sink, NULL, 3};
    memset(out, 0, sizeof *out);
    void *st = sat_dissect_tls.create(&fi, &ctx);
    if (!st)
        return -1;
    size_t fed = 0;
    for (int i = 0; i < c->nsteps && fed < limit; i++) {
        const bb *d = &c->data[i];
        size_t n = d->n;
        if (n > limit - fed)
            n = limit - fed;
        size_t ck = chunk ? chunk : (n ? n : 1);
        for (size_t off = 0; off < n; off += ck) {
            size_t k = n - off < ck ? n - off : ck;
            int rc = sat_dissect_tls.data(st, c->dir[i], T0 + i * STEP_NS, d->b + off, k);
            if (rc < 0) {
                sat_dissect_tls.destroy(st);
                return rc;
            }
        }
        fed += n;
    }
    int rc = sat_dissect_tls.end(st, SAT_TCP_END_FIN_CLIENT, T0 + 100 * STEP_NS);
    int rc2 = sat_dissect_tls.end(st, SAT_TCP_END_FIN_CLIENT, T0 + 100 * STEP_NS); /* idempotent */
    sat_dissect_tls.destroy(st);
    return rc < 0 ? rc : rc2;
}

static inline int same_row(const sat_tls_hs *a, const sat_tls_hs *b)
{
    return a->ts == b->ts && a->server_hello_ts == b->server_hello_ts &&
           a->done_ts == b->done_ts && a->offered_version == b->offered_version &&
           a->version == b->version && a->cipher == b->cipher && a->outcome == b->outcome &&
           a->resumed_by == b->resumed_by && a->offered == b->offered && a->flags == b->flags &&
           a->alert == b->alert && a->duration == b->duration && sat_str_eq(a->sni, b->sni);
}

/* Runs c whole, then byte by byte and in 7-byte chunks (same row), then every
 * truncation (never resumed unless the whole is). Returns the whole run's row. */
static inline sat_tls_hs check_convo(const char *name, const convo *c, capture *whole)
{
    CHECK_EQ_INT(run(c, 0, SIZE_MAX, whole), 0);
    CHECK_EQ_INT(whole->n, 1);
    capture one, seven;
    CHECK_EQ_INT(run(c, 1, SIZE_MAX, &one), 0);
    CHECK_EQ_INT(run(c, 7, SIZE_MAX, &seven), 0);
    int ok1 = one.n == 1 && same_row(&one.rows[0].h, &whole->rows[0].h);
    int ok7 = seven.n == 1 && same_row(&seven.rows[0].h, &whole->rows[0].h);
    if (!ok1 || !ok7)
        fprintf(stderr, "%s: split feeding changed the row\n", name);
    CHECK(ok1);
    CHECK(ok7);
    size_t total = 0;
    for (int i = 0; i < c->nsteps; i++)
        total += c->data[i].n;
    int wrong = 0;
    for (size_t lim = 0; lim < total; lim++) {
        capture t;
        if (run(c, 0, lim, &t) != 0 || t.n > 1)
            wrong++;
        else if (t.n == 1 && t.rows[0].h.outcome == SAT_TLS_RESUMED &&
                 whole->rows[0].h.outcome != SAT_TLS_RESUMED)
            wrong++;
    }
    if (wrong)
        fprintf(stderr, "%s: %d truncations went wrong\n", name, wrong);
    CHECK_EQ_INT(wrong, 0);
    return whole->rows[0].h;
}

#endif
