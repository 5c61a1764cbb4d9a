/*
 * test_storms_state.c - the storms analyzer's state in a partial
 * (analyze/storms_state.c): on the storm fixtures (a slapd log and the LDAP
 * and TLS captures of fixtures/storm/, a server of each kind and their subs)
 * with the windows chosen per period and the digest's --window 10 s, and on
 * three hours of synthetic log (the 1 s series dropped; a 1 ms window
 * widened past 4096 windows):
 *  - parts cut at several rows, each written and read back, merged: the JSON
 *    of one pass, every byte written read;
 *  - the first part written and read back, then fed the rest: one pass too
 *    (what only later rows read was kept: the kept connections, and whose
 *    last handshake did not finish, also on two rows made here);
 *  - a state cut at every length is refused with a message; bytes flipped are
 *    refused or read into an analyzer that finishes (never a crash: run it
 *    under the ASan build; SAT_STORMS_STATE_FLIPS=N changes bytes at N
 *    places, 300 by default); a state of another --window is refused.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/collect.h"
#include "satscope/trace.h"
#include "analyze/state_io.h"
#include "analyze/storms_internal.h"
#include "row_copies.h"

#define S ((sat_ts_ns)1000000000)

typedef row_copies rows;


static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

static int collect_storm_fixtures(rows *rs)
{
    static const char *const rel[] = {"fixtures/storm/storm-ldap-slapd.log",
                                      "fixtures/storm/storm-ldap.pcap",
                                      "fixtures/storm/storm-tls.pcap",
                                      "fixtures/tls/tls-storm.pcap"};
    const char *src = getenv("SAT_SRC");
    char buf[4][4096];
    const char *paths[4];
    for (int i = 0; i < 4; i++) {
        snprintf(buf[i], sizeof buf[i], "%s/%s", src ? src : ".", rel[i]);
        paths[i] = buf[i];
    }
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = quiet;
    o.no_source_lines = 1;
    sat_event_sink k = {rs, SAT_TABLES_ALL, row_copies_add};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_collect_run(paths, 4, &o, &k, &st, &d);
    if (rc < 0)
        fprintf(stderr, "collect: %s %s\n", d.where, d.msg);
    return rc >= 0 && rs->n > 0;
}

/* Three hours of a log: a client's operation every 2 s, a burst of busy
 * answers in the second hour (past 4096 s the 1 s series is dropped). */
static void synthetic_log(rows *rs)
{
    const sat_ts_ns t0 = 1749400000 * S;
    for (int i = 0; i < 3 * 1800; i++) {
        sat_ldap_op o;
        memset(&o, 0, sizeof o);
        o.ts_ns = t0 + (sat_ts_ns)i * 2 * S;
        o.result_ts_ns = o.ts_ns + S / 100;
        o.conn = 1 + i / 50;
        o.op = i % 50;
        o.internal_op = o.etime = o.wtime = o.optime = SAT_ABSENT;
        o.nentries = o.tag = o.target_op = SAT_ABSENT;
        o.type = SAT_OP_SRCH;
        o.err = i >= 2500 && i < 2530 ? 51 : 0;
        char client[32];
        snprintf(client, sizeof client, "10.0.0.%d", 1 + i % 7);
        o.client_ip = sat_str_cstr(client);
        row_copies_add(rs, SAT_TABLE_LDAP_OP, &o);
    }
}

static const sat_analyzer *storms_table(void) { return sat_analyzer_find("storms"); }

static void feed(sat_storms *s, const rows *rs, size_t from, size_t to)
{
    sat_event_sink k = sat_storms_sink(s);
    for (size_t i = from; i < to; i++)
        CHECK(sat_sink_emit(&k, rs->table[i], rs->row[i]) >= 0);
}

/* s finished and rendered as the command's JSON (malloc'd); s freed. A
 * state with a byte changed may say memory ran out (its flag): then only
 * that it does not crash is checked. */
static char *render(sat_storms *s, int must_finish)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_storms_finish(s);
    CHECK(rc >= 0 || !must_finish);
    rc = sat_analyzer_json(storms_table(), s, f, &d);
    CHECK(rc >= 0 || !must_finish);
    fclose(f);
    sat_storms_free(s);
    return buf;
}

static char *json_of(sat_storms *s) { return render(s, 1); }

static sat_storms *make(const sat_storms_opts *o)
{
    sat_storms *s = sat_storms_create(o);
    if (!s)
        abort();
    return s;
}

/* s's state written and read back into a new analyzer (s freed). */
static sat_storms *through_state(const sat_storms_opts *o, sat_storms *s, size_t *nbytes)
{
    sat_sw w;
    memset(&w, 0, sizeof w);
    CHECK(sat_storms_save(s, &w) == SAT_OK);
    sat_storms *fresh = make(o);
    sat_sr r;
    sat_sr_init(&r, w.p, w.n);
    int rc = sat_storms_load(fresh, &r);
    if (rc != SAT_OK)
        fprintf(stderr, "read back: %s\n", r.msg);
    CHECK(rc == SAT_OK);
    CHECK(sat_cursor_left(&r.c) == 0);
    if (nbytes)
        *nbytes = w.n;
    sat_sw_free(&w);
    sat_storms_free(s);
    return fresh;
}

static void check_exact(const char *what, const sat_storms_opts *o, const rows *rs)
{
    sat_storms *one = make(o);
    feed(one, rs, 0, rs->n);
    size_t nbytes = 0;
    one = through_state(o, one, &nbytes);
    char *ref = json_of(make(o)); /* (an empty one: the JSON must not be) */
    char *got_one = json_of(one);
    CHECK(strcmp(ref, got_one) != 0);
    free(ref);
    one = make(o);
    feed(one, rs, 0, rs->n);
    ref = json_of(one);
    CHECK_EQ_STR(got_one, ref); /* one pass through its state */
    free(got_one);
    fprintf(stderr, "%s: %zu rows, a state of %zu bytes\n", what, rs->n, nbytes);
    static const double at[] = {0.05, 0.3, 0.5, 0.77, 0.95};
    for (size_t c = 0; c < sizeof at / sizeof at[0]; c++) {
        size_t cut = (size_t)(at[c] * (double)rs->n);
        sat_storms *a = make(o), *b = make(o);
        feed(a, rs, 0, cut);
        feed(b, rs, cut, rs->n);
        a = through_state(o, a, NULL);
        b = through_state(o, b, NULL);
        CHECK(sat_storms_merge(a, b) == SAT_OK);
        sat_storms_free(b);
        char *got = json_of(a);
        if (strcmp(got, ref))
            fprintf(stderr, "%s: parts cut at row %zu merged through their state differ\n",
                    what, cut);
        CHECK_EQ_INT(strcmp(got, ref), 0);
        free(got);

        a = make(o);
        feed(a, rs, 0, cut);
        a = through_state(o, a, NULL);
        feed(a, rs, cut, rs->n);
        got = json_of(a);
        if (strcmp(got, ref))
            fprintf(stderr, "%s: read back at row %zu and fed the rest: differs\n", what, cut);
        CHECK_EQ_INT(strcmp(got, ref), 0);
        free(got);
    }
    free(ref);
}

/* A 1 ms window over three hours widens past 4096 windows: the state keeps
 * the step it reached. */
static void check_widened(const rows *rs)
{
    sat_storms_opts o;
    memset(&o, 0, sizeof o);
    o.window = S / 1000;
    sat_storms *s = make(&o);
    feed(s, rs, 0, rs->n);
    s = through_state(&o, s, NULL);
    CHECK(s->nsubs == 1 && s->subs[0]->ser[0].window > o.window);
    sat_storms_free(s);
    check_exact("three hours of a log, --window 1 ms", &o, rs);
}

/* The long synthetic log drops the 1 s series; the state says so. */
static void check_dropped(const rows *rs)
{
    sat_storms *s = make(NULL);
    feed(s, rs, 0, rs->n);
    s = through_state(NULL, s, NULL);
    CHECK(s->nsubs == 1 && s->subs[0]->ser[0].dropped && !s->subs[0]->ser[3].dropped);
    sat_storms_free(s);
    check_exact("three hours of a log, windows by period", NULL, rs);
}

/* Whose last handshake did not finish: a client whose ClientHello went
 * unanswered before the state was written, whose next handshake (read after)
 * is full, redid it (storms_classify.c redone). */
static uint64_t redone_of(const sat_storms *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nsubs; i++) {
        const sat_strtab *t = &s->subs[i]->ser[0].windows;
        for (size_t k = 0; k < t->n; k++)
            n += ((const st_win *)sat_strtab_val(t, k))->sc.hs_redone;
    }
    return n;
}

static void check_unfinished_handshake(void)
{
    sat_tls_hs h[2];
    memset(h, 0, sizeof h);
    for (int i = 0; i < 2; i++) {
        h[i].ts = 1749400000 * S + i * S;
        h[i].client_ip = sat_str_cstr("10.0.0.9");
        h[i].server_ip = sat_str_cstr("10.0.0.5");
        h[i].server_port = 636;
        h[i].flow = (uint32_t)i + 1;
        h[i].duration = SAT_ABSENT;
    }
    h[0].outcome = SAT_TLS_INCOMPLETE;
    h[1].outcome = SAT_TLS_FULL;
    h[1].server_hello_ts = h[1].ts + S / 1000;
    sat_storms *s = make(NULL);
    sat_event_sink k = sat_storms_sink(s);
    CHECK(sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h[0]) >= 0);
    s = through_state(NULL, s, NULL);
    k = sat_storms_sink(s);
    CHECK(sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h[1]) >= 0);
    CHECK_EQ_INT(redone_of(s), 1);
    sat_storms_free(s);
}

/* A state cut short or with a byte changed: refused with a message, or (a
 * byte of a count, a time) read and finished without a crash. */
static void check_corrupt(const rows *rs)
{
    sat_storms *s = make(NULL);
    feed(s, rs, 0, rs->n);
    sat_sw w;
    memset(&w, 0, sizeof w);
    CHECK(sat_storms_save(s, &w) == SAT_OK);
    sat_storms_free(s);
    size_t step = w.n / 400 + 1, cuts = 0, cut_refused = 0;
    for (size_t n = 0; n < w.n; n += n + 16 >= w.n ? 1 : step) {
        sat_storms *t = make(NULL);
        sat_sr r;
        sat_sr_init(&r, w.p, n);
        int rc = sat_storms_load(t, &r);
        cuts++;
        cut_refused += rc == SAT_E_CORRUPT && r.msg[0];
        if (cuts == 200)
            fprintf(stderr, "cut at byte %zu of %zu: %s\n", n, w.n, r.msg);
        sat_storms_free(t);
    }
    CHECK_EQ_INT(cut_refused, cuts);
    size_t flips = 0, refused = 0, nflip = 300;
    const char *env = getenv("SAT_STORMS_STATE_FLIPS"); /* more, for a longer run */
    if (env && atol(env) > 0)
        nflip = (size_t)atol(env);
    for (size_t at = 0; at < w.n; at += w.n / nflip + 1) {
        for (int v = 0; v < 2; v++) {
            unsigned char *p = malloc(w.n);
            if (!p)
                abort();
            memcpy(p, w.p, w.n);
            p[at] ^= v ? 0x01 : 0xff;
            sat_storms *t = make(NULL);
            sat_sr r;
            sat_sr_init(&r, p, w.n);
            int rc = sat_storms_load(t, &r);
            flips++;
            if (rc != SAT_OK) {
                refused++;
                CHECK(r.msg[0] != 0);
                sat_storms_free(t);
            } else {
                free(render(t, 0)); /* whatever it says, it says it */
            }
            free(p);
        }
    }
    fprintf(stderr, "%zu cuts refused; %zu of %zu changed bytes refused\n", cut_refused,
            refused, flips);
    CHECK(refused > 0);

    /* another --window: refused by what it means */
    sat_storms_opts ten;
    memset(&ten, 0, sizeof ten);
    ten.window = 10 * S;
    sat_storms *t = make(&ten);
    sat_sr r;
    sat_sr_init(&r, w.p, w.n);
    CHECK(sat_storms_load(t, &r) == SAT_E_CORRUPT);
    fprintf(stderr, "windows by period read as --window 10 s: %s\n", r.msg);
    CHECK(strstr(r.msg, "options") != NULL);
    sat_storms_free(t);
    sat_sw_free(&w);
}

int main(void)
{
    rows rs;
    memset(&rs, 0, sizeof rs);
    CHECK(collect_storm_fixtures(&rs));
    sat_storms_opts ten;
    memset(&ten, 0, sizeof ten);
    ten.window = 10 * S;
    check_exact("storm fixtures, windows by period", NULL, &rs);
    check_exact("storm fixtures, --window 10 s", &ten, &rs);
    check_corrupt(&rs);
    check_unfinished_handshake();
    row_copies_free(&rs);
    synthetic_log(&rs);
    check_dropped(&rs);
    check_widened(&rs);
    row_copies_free(&rs);
    return CHECK_DONE();
}
