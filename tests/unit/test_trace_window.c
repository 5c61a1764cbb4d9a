/*
 * test_trace_window.c - reading a .sat trace (trace/FORMAT.md) within a time
 * window: the blocks outside it are skipped, not decoded (so a damaged one
 * there goes unmet), the rows inside read whole; crashes are kept by their
 * time (none of unknown time), frames always ("Time range of a block").
 */
#include "check.h"
#include "trace_rows.h"

static void test_window(void)
{
    char path[128];
    path_of(path, sizeof path, "win.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {0, 3, 1000, 0};
    CHECK_EQ_INT(write_trace(path, counts, 100, 1), 0);
    anyrow a, b;
    gen_row(SAT_TABLE_LDAP_OP, 350, &a, 1);
    gen_row(SAT_TABLE_LDAP_OP, 550, &b, 1);
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.tables = 1u << SAT_TABLE_LDAP_OP;
    o.from_ns = a.o.ts_ns;
    o.to_ns = b.o.ts_ns;
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    rctx x = {0};
    x.monotonic = 1;
    x.first_index = 350;
    sat_event_sink sink = make_sink(&x);
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 200);
    CHECK_EQ_INT(x.bad, 0);
    CHECK_EQ_INT(sat_trace_reader_blocks_decoded(r), 3);
    sat_trace_reader_close(r);

    /* Corrupt block 0 (outside the window): the window still reads. */
    size_t n;
    uint8_t *buf = slurp(path, &n);
    size_t b0 = block_offset(buf, n, 0), b1 = block_offset(buf, n, 1);
    CHECK(b0 == 20 && b1 > b0);
    buf[b1 - 3] ^= 0x55; /* inside block 0's column data */
    spit(path, buf, n);
    free(buf);
    r = sat_trace_reader_open(path, &d);
    memset(&x, 0, sizeof x);
    x.monotonic = 1;
    x.first_index = 350;
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 200);
    o.from_ns = o.to_ns = 0;
    memset(&d, 0, sizeof d);
    memset(&x, 0, sizeof x);
    x.monotonic = 1;
    x.first_index = 100; /* block 0 (rows 0..99) is skipped, the 9 others read */
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), SAT_E_CORRUPT);
    CHECK(strstr(d.where, "block 0 (offset 20)") != NULL);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 900);
    CHECK_EQ_INT(x.bad, 0);
    sat_trace_reader_close(r);
}

/* 1.3: a window keeps crashes by their ts (none of unknown time) and every
 * frame (FORMAT.md "Time range of a block"); crash blocks outside it are
 * skipped, frame blocks never are. */
typedef struct crash_window_ctx {
    rctx all;           /* frames: every row, in order */
    uint64_t crashes, bad_crash, outside;
    sat_ts_ns from, to;
} crash_window_ctx;

static int cw_crash(void *c, const sat_crash *k)
{
    crash_window_ctx *x = c;
    int64_t base = 1749367154214871640LL;
    x->crashes++;
    if (k->ts == 0 || k->ts < x->from || k->ts >= x->to) {
        x->outside++;
        return SAT_OK;
    }
    anyrow want;
    gen_row(SAT_TABLE_CRASH, (uint64_t)((k->ts - base) / 7000000000LL), &want, 0);
    if (!row_eq(SAT_TABLE_CRASH, &want, k, NULL))
        x->bad_crash++;
    return SAT_OK;
}
static int cw_frame(void *c, const sat_frame *f)
{
    return on_any(&((crash_window_ctx *)c)->all, SAT_TABLE_FRAME, f);
}

static int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return cw_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return cw_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static void test_window_crash(void)
{
    char path[128];
    path_of(path, sizeof path, "wcrash.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {0};
    counts[SAT_TABLE_CRASH] = 60;
    counts[SAT_TABLE_FRAME] = 200;
    CHECK_EQ_INT(write_trace(path, counts, 16, 0), 0);
    anyrow a, b;
    gen_row(SAT_TABLE_CRASH, 12, &a, 0);
    gen_row(SAT_TABLE_CRASH, 30, &b, 0);
    uint64_t expect = 0;
    for (uint64_t i = 12; i < 30; i++) {
        anyrow k;
        gen_row(SAT_TABLE_CRASH, i, &k, 0);
        expect += k.k.ts != 0;
    }
    CHECK_EQ_INT(expect, 15); /* 17, 23 and 29 have no time */
    crash_window_ctx x;
    memset(&x, 0, sizeof x);
    x.from = a.k.ts;
    x.to = b.k.ts;
    sat_event_sink sink = {&x, SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                               SAT_TABLE_BIT(SAT_TABLE_FRAME), rows_crash_frame};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.from_ns = x.from;
    o.to_ns = x.to;
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
    CHECK_EQ_INT(x.crashes, expect);
    CHECK_EQ_INT(x.outside, 0);
    CHECK_EQ_INT(x.bad_crash, 0);
    CHECK_EQ_INT(x.all.n[SAT_TABLE_FRAME], 200);
    CHECK_EQ_INT(x.all.bad, 0);
    /* crash blocks 0 and 1 (rows 0..31) of 4, and the 13 frame blocks */
    CHECK_EQ_INT(sat_trace_reader_blocks_decoded(r), 2 + 13);
    /* without a window: every crash, those of unknown time included */
    memset(&x, 0, sizeof x);
    x.to = INT64_MAX;
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    CHECK_EQ_INT(x.crashes, 60);
    CHECK_EQ_INT(x.outside, 10); /* ts 0: i % 6 == 5 */
    CHECK_EQ_INT(x.bad_crash, 0);
    CHECK_EQ_INT(x.all.n[SAT_TABLE_FRAME], 200);
    sat_trace_reader_close(r);
}

int main(void)
{
    if (trace_tmp_make("test_trace_window"))
        return 1;
    test_window();
    test_window_crash();
    trace_tmp_remove();
    return CHECK_DONE();
}
