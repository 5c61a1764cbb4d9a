/*
 * test_etime_state.c - the etime analyzer's state in a partial
 * (analyze/etime_state.c, internal_ops_state.c): parts of real inputs, each
 * written through its state and read back into a fresh instance, then merged,
 * give the one pass's document byte for byte, for every --by (the digest's
 * three roles among them: none, filter, client), with the 10 s summaries of
 * `during` and a span asked for; a state merged from parts (two halves of a
 * day) goes through too. A state of other options is refused, and a cut or
 * flipped state is refused with a message or read as some state, never a
 * crash (run it under the ASan build).
 */
#include <stdlib.h>
#include <unistd.h>

#include "analyze/etime_int.h"
#include "check.h"
#include "satscope/analyze.h"
#include "satscope/collect.h"
#include "satscope/trace.h"
#include "row_copies.h"

typedef row_copies rows;

static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

/* The rows of inputs under SAT_SRC; 0 when one is missing. */
static int collect(const char *const *rel, size_t n, const char *log_format, rows *rs)
{
    const char *src = getenv("SAT_SRC");
    char buf[4][1024];
    const char *paths[4];
    for (size_t i = 0; i < n; i++) {
        snprintf(buf[i], sizeof buf[i], "%s/%s", src ? src : ".", rel[i]);
        if (access(buf[i], R_OK) != 0) {
            printf("note: %s not found\n", buf[i]);
            return 0;
        }
        paths[i] = buf[i];
    }
    memset(rs, 0, sizeof *rs);
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = quiet;
    o.log_format = log_format;
    sat_event_sink k = {rs, sat_etime_sink(NULL).tables, row_copies_add};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_collect_run(paths, n, &o, &k, &st, &d) >= 0);
    CHECK(rs->n > 100);
    return 1;
}


static sat_etime *fed(const sat_etime_opts *o, const rows *rs, size_t from, size_t to)
{
    sat_etime *e = sat_etime_create(o);
    if (!e)
        abort();
    sat_event_sink k = sat_etime_sink(e);
    for (size_t i = from; i < to; i++)
        CHECK(sat_sink_emit(&k, rs->table[i], rs->row[i]) >= 0);
    return e;
}

/* The finished analyzer's JSON document (with a span covering all when
 * `during`: its summaries are in the result then). */
static char *doc(sat_etime *e, const sat_etime_opts *o)
{
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    if (o->during) {
        sat_span sp = {1, INT64_MAX, 7, NULL, 0};
        CHECK_EQ_INT(sat_etime_focus(e, &sp, 1), SAT_OK);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(f && sat_analyzer_json(sat_analyzer_find("etime"), e, f, &d) >= 0);
    fclose(f);
    CHECK(len > 100);
    return buf;
}

static void save(const sat_etime *e, sat_sw *w)
{
    memset(w, 0, sizeof *w);
    CHECK_EQ_INT(sat_analyzer_find("etime")->save(e, w), SAT_OK);
}

/* The state of w read into a new instance; NULL (and a message) when refused. */
static sat_etime *load(const sat_sw *w, const sat_etime_opts *o)
{
    sat_etime *fresh = sat_etime_create(o);
    sat_sr r;
    sat_sr_init(&r, w->p, w->n);
    int rc = sat_analyzer_find("etime")->load(fresh, &r);
    if (rc != SAT_OK)
        printf("  read back: %s\n", r.msg);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK(sat_cursor_left(&r.c) == 0); /* every byte written is read */
    return fresh;
}

/* e through its state (the registry's save and load): a fresh instance.
 * Its state saved again reads back as itself (the bytes of a state written
 * from rows hold a filter's shape pointer, a cache cleared on reading, so
 * the fixed point is that of a state read once). */
static sat_etime *through_state(sat_etime *e, const sat_etime_opts *o)
{
    sat_sw w, again, twice;
    save(e, &w);
    sat_etime *fresh = load(&w, o);
    save(fresh, &again);
    sat_etime *second = load(&again, o);
    save(second, &twice);
    size_t at = 0;
    while (at < again.n && at < twice.n && again.p[at] == twice.p[at])
        at++;
    if (at != again.n || again.n != twice.n)
        printf("  saved again: %zu bytes where %zu were, first differing at %zu\n", twice.n,
               again.n, at);
    CHECK(again.n == twice.n && at == again.n);
    CHECK(again.n == w.n);
    sat_etime_free(second);
    sat_sw_free(&twice);
    sat_sw_free(&again);
    sat_sw_free(&w);
    sat_etime_free(e);
    return fresh;
}

/* The document of parts [cuts[i], cuts[i+1]) merged in order, each through
 * its state first when via_state; with `pairs`, the first two merged before
 * (a merged instance's state). */
static char *merged_doc(const rows *rs, const sat_etime_opts *o, const size_t *cuts,
                        size_t nparts, int pairs, int via_state)
{
    sat_etime *p[6];
    for (size_t i = 0; i < nparts; i++)
        p[i] = fed(o, rs, cuts[i], cuts[i + 1]);
    size_t first = 1;
    if (pairs && nparts > 2) {
        CHECK_EQ_INT(sat_etime_merge(p[0], p[1]), SAT_OK);
        sat_etime_free(p[1]);
        p[1] = NULL;
        first = 2;
    }
    for (size_t i = 0; i < nparts; i++)
        if (p[i] && via_state)
            p[i] = through_state(p[i], o);
    for (size_t i = first; i < nparts; i++)
        CHECK_EQ_INT(sat_etime_merge(p[0], p[i]), SAT_OK);
    char *got = doc(p[0], o);
    for (size_t i = 0; i < nparts; i++)
        sat_etime_free(p[i]);
    return got;
}

static int same_doc(const char *got, const char *ref, const char *what, const sat_etime_opts *o,
                    size_t nparts, size_t cut)
{
    if (!strcmp(got, ref))
        return 1;
    size_t at = 0;
    while (got[at] && got[at] == ref[at])
        at++;
    printf("by %s%s, %zu parts (cut at %zu): %s differs at byte %zu:\n  %.100s\n  %.100s\n",
           sat_etime_by_name(o->by), o->during ? ", during" : "", nparts, cut, what, at,
           ref + (at > 30 ? at - 30 : 0), got + (at > 30 ? at - 30 : 0));
    return 0;
}

/* Parts through their state merge as the parts in memory do; and as one
 * pass, but for the spans' summaries (`during`), whose merge of two parts
 * that share 10 s is within its bound only (etime_during.c). */
static int parts_equal(const rows *rs, const sat_etime_opts *o, const size_t *cuts,
                       size_t nparts, int pairs, const char *ref)
{
    char *mem = merged_doc(rs, o, cuts, nparts, pairs, 0);
    char *got = merged_doc(rs, o, cuts, nparts, pairs, 1);
    int same = same_doc(got, mem, "through their state, the merge", o, nparts, cuts[1]);
    if (!o->during)
        same &= same_doc(mem, ref, "the merge in memory, one pass", o, nparts, cuts[1]);
    free(mem);
    free(got);
    return same;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_set(const char *const *paths, size_t n, const char *log_format)
{
    rows rs;
    if (!collect(paths, n, log_format, &rs))
        return;
    int ok = 1;
    /* every key, and the digest's default with the spans' summaries */
    for (int by = SAT_ETIME_BY_NONE; by <= SAT_ETIME_BY_METHOD + 1; by++) {
        sat_etime_opts o;
        memset(&o, 0, sizeof o);
        o.by = by <= SAT_ETIME_BY_METHOD ? by : SAT_ETIME_BY_NONE;
        o.during = by > SAT_ETIME_BY_METHOD;
        sat_etime *one = fed(&o, &rs, 0, rs.n);
        char *ref = doc(one, &o);
        sat_etime_free(one);
        for (int round = 0; round < 3; round++) {
            size_t nparts = 2 + (size_t)(rnd() % 4), cuts[7] = {0};
            for (size_t c = 1; c < nparts; c++) {
                size_t lo = cuts[c - 1] + 1, left = nparts - c;
                cuts[c] = lo + (size_t)(rnd() % (rs.n - lo - left + 1));
            }
            cuts[nparts] = rs.n;
            ok &= parts_equal(&rs, &o, cuts, nparts, round == 2, ref);
        }
        free(ref);
    }
    printf("%s: %zu rows, parts through their state %s\n", paths[0], rs.n,
           ok ? "merge as in memory (and as one pass)" : "DIFFER");
    CHECK(ok);
    row_copies_free(&rs);
}

static void test_real_inputs(void)
{
    static const char *const sets[][2] = {
        {"fixtures/incident/access.20250609-133000.gz", "fixtures/incident/access"},
        {"fixtures/389ds-load/access.zst", "fixtures/389ds-load/access-swapped.zst"},
        {"fixtures/internal/access.zst", NULL},
        {"fixtures/389ds/access-2.3.1.log", NULL},
        {"fixtures/trace-v1.0/access-2.3.1.sat", NULL},
        {"fixtures/http-nginx/access.log.gz", "fixtures/http-apache/access_combined.log.gz"},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        check_set(sets[i], sets[i][1] ? 2 : 1, NULL);
}

/* A state of other options is refused, saying which. */
static void test_other_options(const rows *rs)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.by = SAT_ETIME_BY_CLIENT;
    sat_etime *e = fed(&o, rs, 0, rs->n);
    sat_sw w;
    save(e, &w);
    sat_etime_opts other[3];
    for (int i = 0; i < 3; i++)
        other[i] = o;
    other[0].by = SAT_ETIME_BY_FILTER;
    other[1].max_keys = 10;
    other[2].during = 1;
    for (int i = 0; i < 3; i++) {
        sat_etime *f = sat_etime_create(&other[i]);
        sat_sr r;
        sat_sr_init(&r, w.p, w.n);
        CHECK_EQ_INT(sat_etime_load(f, &r), SAT_E_CORRUPT);
        CHECK(strstr(r.msg, "etime: made") != NULL);
        sat_etime_free(f);
    }
    sat_sw_free(&w);
    sat_etime_free(e);
}

/* Read n bytes of a state: refused with a message, or read whole; either
 * way the instance merges, finishes and writes its result, then is freed. */
static int read_some(const sat_etime_opts *o, const unsigned char *p, size_t n)
{
    sat_etime *f = sat_etime_create(o);
    sat_sr r;
    sat_sr_init(&r, p, n);
    int rc = sat_etime_load(f, &r);
    if (rc != SAT_OK)
        CHECK(r.msg[0] != '\0');
    else {
        sat_etime *g = sat_etime_create(o);
        CHECK(sat_etime_merge(g, f) >= SAT_E_NOMEM);
        free(doc(g, o));
        sat_etime_free(g);
    }
    sat_etime_free(f);
    return rc == SAT_OK;
}

static void test_corrupt(const rows *rs)
{
    for (int during = 0; during <= 1; during++) {
        sat_etime_opts o;
        memset(&o, 0, sizeof o);
        o.by = during ? SAT_ETIME_BY_NONE : SAT_ETIME_BY_FILTER;
        o.during = during;
        /* a part cut mid-way: operations still waiting for their client's */
        sat_etime *e = fed(&o, rs, 0, rs->n / 2);
        sat_sw w;
        save(e, &w);
        size_t refused = 0, tries = 0;
        for (size_t cut = 0; cut < w.n; cut += 1 + cut / 7 + (size_t)(rnd() % 97), tries++)
            refused += !read_some(&o, w.p, cut);
        CHECK(refused == tries); /* every cut state is refused */
        unsigned char *copy = malloc(w.n);
        size_t read = 0;
        for (int k = 0; k < 300; k++) {
            memcpy(copy, w.p, w.n);
            for (int f = 0; f < 1 + k % 3; f++)
                copy[rnd() % w.n] ^= (unsigned char)(1 + rnd() % 255);
            read += read_some(&o, copy, w.n);
        }
        printf("state of %zu bytes: %zu cuts refused, %zu of 300 flipped states read\n", w.n,
               refused, read);
        free(copy);
        sat_sw_free(&w);
        sat_etime_free(e);
    }
}

int main(void)
{
    test_real_inputs();
    rows rs;
    static const char *const internal[] = {"fixtures/internal/access.zst"};
    if (collect(internal, 1, NULL, &rs)) {
        test_other_options(&rs);
        test_corrupt(&rs);
        row_copies_free(&rs);
    }
    return CHECK_DONE();
}
