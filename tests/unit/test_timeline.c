/*
 * test_timeline.c - the timeline analyzer (analyze_timeline.h) on hand-made
 * rows: the etime bins, window boundaries and empty windows, widening up the
 * ladder as the span grows, errors by etime's rule, percentiles within their
 * stated accuracy, connections open at each window's end (with and without
 * an open line, one still open at the end), hours of local time at a
 * half-hour offset, the sources, and merges of parts cut anywhere equal to
 * one pass (JSON byte for byte).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "result_check.h"
#include "satscope/analyze.h"

#define S 1000000000LL
static const int64_t T0 = 1749478800LL * S; /* 2025-06-09T14:20:00Z */

/* ---- rows ------------------------------------------------------------------------ */
typedef struct trow {
    int table;
    sat_ldap_op op;
    sat_ldap_conn conn;
    sat_source src;
} trow;

static trow rows[8192];
static size_t nrows;

static sat_ldap_op *op_at(int64_t ts, int type, int32_t err, int64_t etime)
{
    trow *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_LDAP_OP;
    sat_ldap_op *o = &r->op;
    o->ts_ns = ts;
    o->result_ts_ns = etime >= 0 ? ts + etime : 0;
    o->type = (uint8_t)type;
    o->err = err;
    o->etime = etime;
    o->wtime = o->optime = SAT_ABSENT;
    o->internal_op = SAT_ABSENT;
    o->conn = 1;
    return o;
}

static sat_ldap_conn *conn_at(int64_t open, int64_t close, int code, int flags)
{
    trow *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_LDAP_CONN;
    r->conn.open_ts = open;
    r->conn.close_ts = close;
    r->conn.close_code = (uint8_t)code;
    r->conn.flags = (uint8_t)flags;
    return &r->conn;
}

static void source(uint32_t id, const char *path, int32_t off)
{
    trow *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_SOURCE;
    r->src.id = id;
    r->src.path = sat_str_cstr(path);
    r->src.kind = sat_str_cstr("log");
    r->src.format = sat_str_cstr("389-text");
    r->src.utc_offset_s = off;
    r->src.first_ts = T0;
    r->src.last_ts = T0 + 10 * S;
}

static const void *row_ptr(const trow *r)
{
    return r->table == SAT_TABLE_LDAP_OP ? (const void *)&r->op
           : r->table == SAT_TABLE_LDAP_CONN ? (const void *)&r->conn
                                              : (const void *)&r->src;
}

/* The analyzer fed rows [a, b). */
static sat_timeline *feed(size_t a, size_t b)
{
    sat_timeline *t = sat_timeline_create(NULL);
    CHECK(t != NULL);
    sat_event_sink k = sat_timeline_sink(t);
    for (size_t i = a; i < b; i++)
        CHECK_EQ_INT(sat_sink_emit(&k, rows[i].table, row_ptr(&rows[i])), SAT_OK);
    return t;
}

static sat_result *result_of(sat_timeline *t)
{
    CHECK_EQ_INT(sat_timeline_finish(t), SAT_OK);
    sat_result *r = sat_result_new("timeline");
    CHECK_EQ_INT(sat_timeline_result(t, r), SAT_OK);
    return r;
}

static char *json_of(sat_timeline *t)
{
    sat_result *r = result_of(t);
    char *j = rc_render(r, AS_JSON, NULL);
    sat_result_free(r);
    return j;
}

static uint64_t cnt(const sat_rnode *row, const char *col)
{
    const sat_value *v = sat_row_get(row, col);
    return v && !v->absent && v->unit == SAT_UNIT_COUNT ? v->v.u : 999999;
}

static double dur(const sat_rnode *o, const char *key, int in_row)
{
    const sat_value *v = in_row ? sat_row_get(o, key) : sat_rnode_val(o, key);
    return v && !v->absent ? v->v.d : NAN;
}

static const sat_rnode *nth(const sat_rnode *table, size_t i)
{
    const sat_rnode *r = sat_rnode_first(table);
    while (r && i--)
        r = sat_rnode_next(r);
    return r;
}

/* ---- the cases ------------------------------------------------------------------- */
static void test_bins(void)
{
    CHECK_EQ_INT(sat_tl_bin(0), 0);
    CHECK_EQ_INT(sat_tl_bin(999), 0);
    CHECK_EQ_INT(sat_tl_bin(1000), 1);
    CHECK_EQ_INT(sat_tl_bin(1258), 1);
    CHECK_EQ_INT(sat_tl_bin(1259), 2);
    CHECK_EQ_INT(sat_tl_bin(S), 61); /* 1 s: 6 decades above 1 us */
    CHECK_EQ_INT(sat_tl_bin(1000 * S - 1), SAT_TL_BINS - 2);
    CHECK_EQ_INT(sat_tl_bin(1000 * S), SAT_TL_BINS - 1);
    CHECK(sat_tl_bin_lo_s(0) == 0 && fabs(sat_tl_bin_hi_s(0) - 1e-6) < 1e-15);
    CHECK(fabs(sat_tl_bin_lo_s(61) - 1.0) < 1e-12 && isinf(sat_tl_bin_hi_s(SAT_TL_BINS - 1)));
    for (int b = 1; b < SAT_TL_BINS; b++)
        CHECK(sat_tl_bin_lo_s(b) == sat_tl_bin_hi_s(b - 1));
}

/* Windows of 1 s: boundaries, empty windows as zeros, errors by etime's rule. */
static void test_windows(void)
{
    nrows = 0;
    op_at(T0, SAT_OP_SRCH, 0, 1000000);
    op_at(T0 + S - 1, SAT_OP_BIND, 49, 2000000);             /* an error, same window */
    op_at(T0 + S, SAT_OP_BIND, 14, 100000);                  /* SASL in progress: none */
    op_at(T0 + S + 1, SAT_OP_CMP, 5, 100000);                /* compareFalse: none */
    sat_ldap_op *u = op_at(T0 + 2 * S, SAT_OP_SRCH, SAT_ABSENT, SAT_ABSENT);
    u->flags = SAT_OPF_UNFINISHED;                           /* no RESULT: none */
    op_at(T0 + 5 * S + S / 2, SAT_OP_MOD, 32, 3000000);      /* an error */
    op_at(T0 + 5 * S, SAT_OP_UNBIND, SAT_ABSENT, 7 * S);     /* counted, never timed */
    sat_timeline *t = feed(0, nrows);
    sat_result *r = result_of(t);
    const sat_rnode *root = sat_result_root(r), *w = sat_rnode_get(root, "windows");
    CHECK_EQ_INT(sat_table_window(w), S);
    CHECK_EQ_INT(sat_rnode_count(w), 6);
    CHECK_EQ_INT(cnt(nth(w, 0), "count"), 2);
    CHECK_EQ_INT(cnt(nth(w, 0), "errors"), 1);
    CHECK_EQ_INT(cnt(nth(w, 0), "ops.BIND"), 1);
    CHECK_EQ_INT(cnt(nth(w, 0), "ops.SRCH"), 1);
    CHECK_EQ_INT(cnt(nth(w, 1), "count"), 2);
    CHECK_EQ_INT(cnt(nth(w, 1), "errors"), 0);
    CHECK_EQ_INT(cnt(nth(w, 2), "count"), 1);
    CHECK_EQ_INT(cnt(nth(w, 2), "errors"), 0);
    CHECK(isnan(dur(nth(w, 2), "p50_s", 1))); /* no timed operation: absent */
    CHECK_EQ_INT(cnt(nth(w, 3), "count"), 0);
    CHECK_EQ_INT(cnt(nth(w, 4), "ops.SRCH"), 0);
    CHECK_EQ_INT(cnt(nth(w, 5), "count"), 2);
    CHECK_EQ_INT(cnt(nth(w, 5), "errors"), 1);
    CHECK_EQ_INT(cnt(nth(w, 5), "timed"), 1); /* the UNBIND's etime is not a latency */
    CHECK(sat_row_get(nth(w, 0), "ops.ADD") == NULL); /* only the types seen */
    CHECK(sat_row_get(nth(w, 0), "ops.UNBIND") != NULL);
    /* Little's law: 3 ms of work in a 1 s window */
    CHECK(fabs(dur(nth(w, 0), "concurrency", 1) - 0.003) < 1e-9);
    CHECK(isnan(dur(nth(w, 0), "wtime_mean_s", 1))); /* not logged */
    const sat_value *v = sat_rnode_val(root, "operations");
    CHECK(v && v->v.u == 7);
    v = sat_rnode_val(root, "errors");
    CHECK(v && v->v.u == 2);
    rc_check_text_and_tables(r);
    sat_result_free(r);
    sat_timeline_free(t);
}

/* The ladder: 2000 windows of 1 s fit; one second more needs 10 s windows; a
 * day and a half needs 600 s ones. Nothing is lost on the way. */
static void test_widening(void)
{
    int64_t spans[] = {1999 * S, 2000 * S, 36 * 3600 * S};
    int64_t want[] = {1 * S, 10 * S, 600 * S};
    for (int c = 0; c < 3; c++) {
        nrows = 0;
        for (int64_t ts = T0; ts <= T0 + spans[c]; ts += spans[c] / 100)
            op_at(ts, SAT_OP_SRCH, 0, 1000);
        sat_timeline *t = feed(0, nrows);
        sat_result *r = result_of(t);
        const sat_rnode *w = sat_rnode_get(sat_result_root(r), "windows");
        CHECK_EQ_INT(sat_table_window(w), want[c]);
        CHECK(sat_rnode_count(w) <= SAT_TL_WINDOWS_MAX);
        uint64_t sum = 0;
        for (const sat_rnode *x = sat_rnode_first(w); x; x = sat_rnode_next(x))
            sum += cnt(x, "count");
        CHECK_EQ_INT(sum, nrows);
        sat_result_free(r);
        sat_timeline_free(t);
    }
}

/* Percentiles: within 12.2% of the exact ones; exact when every etime is equal. */
static void test_percentiles(void)
{
    nrows = 0;
    for (int i = 1; i <= 1000; i++)
        op_at(T0 + i * (S / 1000), SAT_OP_SRCH, 0, (int64_t)i * 1000000); /* 1 ms .. 1 s */
    sat_timeline *t = feed(0, nrows);
    sat_result *r = result_of(t);
    const sat_rnode *root = sat_result_root(r);
    double p50 = dur(root, "p50_s", 0), p90 = dur(root, "p90_s", 0), p99 = dur(root, "p99_s", 0);
    CHECK(fabs(p50 / 0.500 - 1) <= 0.122);
    CHECK(fabs(p90 / 0.900 - 1) <= 0.122);
    CHECK(fabs(p99 / 0.990 - 1) <= 0.122);
    const sat_rnode *h = sat_rnode_get(root, "etime_histogram");
    uint64_t sum = 0;
    for (const sat_rnode *x = sat_rnode_first(h); x; x = sat_rnode_next(x))
        sum += cnt(x, "count");
    CHECK_EQ_INT(sum, 1000);
    CHECK(fabs(dur(nth(h, 0), "lo_s", 1) - 0.001) < 1e-9); /* the first nonzero bin */
    sat_result_free(r);
    sat_timeline_free(t);

    nrows = 0;
    for (int i = 0; i < 10; i++)
        op_at(T0 + i, SAT_OP_BIND, 0, S / 2);
    t = feed(0, nrows);
    r = result_of(t);
    const sat_rnode *w0 = nth(sat_rnode_get(sat_result_root(r), "windows"), 0);
    CHECK(dur(w0, "p50_s", 1) == 0.5 && dur(w0, "p99_s", 1) == 0.5);
    sat_result_free(r);
    sat_timeline_free(t);
}

/* Connections open at each window's end. */
static void test_connections(void)
{
    nrows = 0;
    op_at(T0, SAT_OP_SRCH, 0, 1000);
    conn_at(T0 + 1 * S, T0 + 5 * S, SAT_CLOSE_U1, 0);                      /* A */
    conn_at(0, T0 + 3 * S, SAT_CLOSE_B1, SAT_CONNF_NO_OPEN);               /* B: before */
    conn_at(T0 + 2 * S, T0 + 9 * S, SAT_CLOSE_NONE, SAT_CONNF_UNCLOSED);   /* C: open at end */
    conn_at(T0 + 4 * S, T0 + 4 * S + 1, SAT_CLOSE_A1, 0);                  /* D: brief */
    op_at(T0 + 9 * S, SAT_OP_SRCH, 0, 1000);
    sat_timeline *t = feed(0, nrows);
    sat_result *r = result_of(t);
    const sat_rnode *w = sat_rnode_get(sat_result_root(r), "windows");
    static const uint64_t open[10] = {1, 2, 3, 2, 2, 1, 1, 1, 1, 1};
    CHECK_EQ_INT(sat_rnode_count(w), 10);
    for (size_t i = 0; i < 10; i++)
        CHECK_EQ_INT(cnt(nth(w, i), "conns.open"), open[i]);
    CHECK_EQ_INT(cnt(nth(w, 4), "conns.opened"), 1);
    CHECK_EQ_INT(cnt(nth(w, 4), "conns.closed"), 1);
    CHECK_EQ_INT(cnt(nth(w, 4), "closes.A1"), 1);
    CHECK_EQ_INT(cnt(nth(w, 3), "closes.B1"), 1);
    CHECK_EQ_INT(cnt(nth(w, 5), "closes.U1"), 1);
    CHECK_EQ_INT(cnt(nth(w, 9), "conns.closed"), 0); /* C never closed */
    CHECK(sat_row_get(nth(w, 0), "closes.T2") == NULL);
    sat_result_free(r);
    sat_timeline_free(t);
}

/* Hours of local time at +05:30: 15:00 local is 09:30 UTC. */
static void test_hours(void)
{
    nrows = 0;
    int64_t d = 1749427200LL * S; /* 2025-06-09T00:00:00Z */
    op_at(d + 10 * 3600 * S, SAT_OP_SRCH, 0, 1000);
    op_at(d + 10 * 3600 * S + 29 * 60 * S, SAT_OP_SRCH, 0, 1000);
    op_at(d + 10 * 3600 * S + 31 * 60 * S, SAT_OP_SRCH, 0, 1000);
    source(1, "b.log", 0); /* the first that states an offset other than 0 gives it */
    source(0, "a.log", 19800);
    sat_timeline *t = feed(0, nrows);
    sat_result *r = result_of(t);
    const sat_rnode *root = sat_result_root(r), *h = sat_rnode_get(root, "hours");
    CHECK(dur(root, "utc_offset_s", 0) == 19800);
    CHECK_EQ_INT(sat_table_window(h), 3600 * S);
    CHECK_EQ_INT(sat_rnode_count(h), 2);
    const sat_value *s0 = sat_row_get(nth(h, 0), "start_ts");
    CHECK(s0 && s0->v.i == d + 9 * 3600 * S + 30 * 60 * S);
    CHECK_EQ_INT(cnt(nth(h, 0), "count"), 2);
    CHECK_EQ_INT(cnt(nth(h, 1), "count"), 1);
    const sat_rnode *src = sat_rnode_get(root, "sources");
    const sat_value *p = sat_row_get(nth(src, 0), "path");
    CHECK(p && !strcmp(p->v.s, "a.log")); /* by id */
    sat_result_free(r);
    sat_timeline_free(t);
}

/* Parts cut anywhere, merged in order, equal one pass; among the cuts, parts
 * whose own spans chose finer windows than the whole's. */
static void test_merge(void)
{
    nrows = 0;
    source(0, "a.log", 7200);
    uint64_t x = 12345;
    for (int i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t ts = T0 + (int64_t)(i < 2500 ? i * (S / 2) : 1250 * S + (int64_t)(i - 2500) * 7 * S);
        if (i % 97 == 0)
            conn_at(ts, ts + (int64_t)(x >> 40) % (30 * S), 1 + (int)(x % 5), 0);
        op_at(ts, 1 + (int)(x >> 60) % 8, (x >> 20) % 13 == 0 ? 32 : 0,
              (int64_t)((x >> 24) % 2000000000ULL));
    }
    source(1, "b.log", 0);
    sat_timeline *one = feed(0, nrows);
    char *want = json_of(one);
    CHECK(want && strstr(want, "\"window_s\": 10,")); /* the whole needs 10 s windows */
    size_t cuts[][3] = {{1, 0, 0}, {nrows / 2, 0, 0}, {200, 2600, 0}, {nrows - 1, 0, 0},
                        {5, 900, 2700}};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        size_t at[5] = {0}, n = 1;
        for (int k = 0; k < 3 && cuts[c][k]; k++)
            at[n++] = cuts[c][k];
        at[n] = nrows;
        sat_timeline *into = feed(at[0], at[1]);
        for (size_t p = 1; p < n; p++) {
            sat_timeline *part = feed(at[p], at[p + 1]);
            CHECK_EQ_INT(sat_timeline_merge(into, part), SAT_OK);
            sat_timeline_free(part);
        }
        char *got = json_of(into);
        CHECK(got && want && !strcmp(got, want));
        if (got && want && strcmp(got, want))
            printf("cut %zu: merged JSON differs from one pass\n", c);
        free(got);
        sat_timeline_free(into);
    }
    free(want);
    sat_timeline_free(one);
}

int main(void)
{
    test_bins();
    test_windows();
    test_widening();
    test_percentiles();
    test_connections();
    test_hours();
    test_merge();
    return CHECK_DONE();
}
