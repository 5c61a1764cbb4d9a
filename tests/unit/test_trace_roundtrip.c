/*
 * test_trace_roundtrip.c - the .sat trace (trace/FORMAT.md) written and read
 * back: every table with edge values, whole (one block a table, and blocks of
 * 7 rows) and empty; the stat of a trace; the sink's table mask; projection
 * of columns, the columns not asked for read as their absent values (ldap_op,
 * crash, frame); a string over the writer's limit cut; the schema's lookups.
 */
#include <unistd.h>

#include "check.h"
#include "trace_rows.h"

static void test_round_trip(uint32_t rpb)
{
    char path[128];
    path_of(path, sizeof path, "rt.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {5, 7, 1000, 111, 333, 222, 40, 300, 1200};
    CHECK_EQ_INT(write_trace(path, counts, rpb, 0), 0);
    CHECK_EQ_INT(count_partials("rt.sat"), 0); /* the temporary file became rt.sat */
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    CHECK_EQ_INT(d.code, 0);
    if (!r)
        return;
    rctx x = {0};
    sat_event_sink sink = make_sink(&x);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        CHECK_EQ_INT(x.n[t], counts[t]);
    CHECK_EQ_INT(x.bad, 0);

    sat_trace_stat st;
    CHECK_EQ_INT(sat_trace_reader_stat(r, &st, &d), 0);
    CHECK(st.complete);
    CHECK_EQ_INT(st.format_version, (1u << 16) | 5u); /* 1.5 */
    CHECK_EQ_INT(st.ntables, SAT_TABLE__COUNT);
    const sat_table_stat *ops = &st.tables[SAT_TABLE_LDAP_OP];
    CHECK_EQ_STR(ops->name, "ldap_op");
    CHECK_EQ_INT(ops->rows, 1000);
    CHECK_EQ_INT(ops->blocks, rpb ? (1000 + rpb - 1) / rpb : 1);
    CHECK_EQ_INT(ops->min_ts, INT64_MIN);
    CHECK_EQ_INT(ops->max_ts, INT64_MAX);
    CHECK_EQ_INT(ops->ncolumns, sat_table_get(SAT_TABLE_LDAP_OP)->ncolumns);
    CHECK_EQ_STR(ops->columns[0].name, "ts_ns");
    CHECK(ops->columns[0].encoded_bytes > 0);
    CHECK_EQ_INT(st.tables[SAT_TABLE_REJECT].min_ts, 0);
    /* ldap_conn: rows with open_ts 0 count by close_ts */
    CHECK(st.tables[SAT_TABLE_LDAP_CONN].min_ts > 0);
    /* crash: by ts, the rows of unknown time (0) left out; frame: no time */
    const sat_table_stat *crashes = &st.tables[SAT_TABLE_CRASH];
    CHECK_EQ_STR(crashes->name, "crash");
    CHECK_EQ_INT(crashes->rows, 40);
    anyrow first, last;
    gen_row(SAT_TABLE_CRASH, 0, &first, 0);
    gen_row(SAT_TABLE_CRASH, 39, &last, 0);
    CHECK_EQ_INT(crashes->min_ts, first.k.ts);
    CHECK_EQ_INT(crashes->max_ts, last.k.ts);
    CHECK_EQ_STR(st.tables[SAT_TABLE_FRAME].name, "frame");
    CHECK_EQ_INT(st.tables[SAT_TABLE_FRAME].rows, 300);
    CHECK_EQ_INT(st.tables[SAT_TABLE_FRAME].min_ts, 0);
    CHECK_EQ_INT(st.tables[SAT_TABLE_FRAME].max_ts, 0);
    sat_trace_reader_close(r);
    CHECK_EQ_INT(sat_trace_verify(path, NULL, NULL, &d), 0);
}

/* The sink's table mask limits the read: with no tables in the options, the
 * blocks of the tables it does not take are not decoded, and a row of such a
 * table handed to sat_sink_emit never reaches it. */
static void test_sink_mask(void)
{
    char path[128];
    path_of(path, sizeof path, "mask.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {5, 7, 1000, 111, 333, 222, 40, 300, 1200};
    CHECK_EQ_INT(write_trace(path, counts, 100, 0), 0);
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    if (!r)
        return;
    rctx x = {0};
    sat_event_sink sink = make_sink(&x);
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN) | SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        CHECK_EQ_INT(x.n[t], sat_sink_wants(&sink, t) ? counts[t] : 0);
    CHECK_EQ_INT(x.bad, 0);
    CHECK_EQ_INT(sat_trace_reader_blocks_decoded(r), 2 + 3); /* 111 and 222 rows */
    sink.on_row = NULL; /* no callback: no table, whatever the mask */
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    CHECK_EQ_INT(sat_trace_reader_blocks_decoded(r), 5);
    sat_trace_reader_close(r);
    unlink(path);

    memset(&x, 0, sizeof x);
    sink = make_sink(&x);
    sink.tables = SAT_TABLES_ALL & ~SAT_TABLE_BIT(SAT_TABLE_LDAP_OP);
    anyrow row;
    gen_row(SAT_TABLE_LDAP_OP, 0, &row, 0);
    CHECK_EQ_INT(sat_sink_emit(&sink, SAT_TABLE_LDAP_OP, &row), SAT_OK);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 0);
    gen_row(SAT_TABLE_LDAP_CONN, 0, &row, 0);
    CHECK_EQ_INT(sat_sink_emit(&sink, SAT_TABLE_LDAP_CONN, &row), SAT_OK);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_CONN], 1);
    CHECK_EQ_INT(sat_sink_emit(&sink, SAT_TABLE__COUNT, &row), SAT_E_USAGE);
    CHECK_EQ_INT(sat_sink_emit(&sink, -1, &row), SAT_E_USAGE);
    CHECK_EQ_INT(SAT_TABLES_ALL, (1u << SAT_TABLE__COUNT) - 1);
}

static void test_empty(void)
{
    char path[128];
    path_of(path, sizeof path, "empty.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {0, 0, 0, 0};
    CHECK_EQ_INT(write_trace(path, counts, 0, 0), 0);
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r && d.code == 0);
    rctx x = {0};
    sat_event_sink sink = make_sink(&x);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 0);
    sat_trace_stat st;
    CHECK_EQ_INT(sat_trace_reader_stat(r, &st, &d), 0);
    CHECK(st.complete);
    CHECK_EQ_INT(st.tables[SAT_TABLE_LDAP_OP].rows, 0);
    sat_trace_reader_close(r);
    CHECK_EQ_INT(sat_trace_verify(path, NULL, NULL, &d), 0);
}

static void test_projection(void)
{
    char path[128];
    path_of(path, sizeof path, "rt.sat");
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    if (!r)
        return;
    static const char *const opcols[] = {"etime", "dn", "result_ts_ns", NULL};
    static const char *const conncols[] = {"close_code", NULL};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.tables = (1u << SAT_TABLE_LDAP_OP) | (1u << SAT_TABLE_LDAP_CONN);
    o.columns[SAT_TABLE_LDAP_OP] = opcols;
    o.columns[SAT_TABLE_LDAP_CONN] = conncols;
    unsigned char pop[64] = {0}, pconn[64] = {0};
    pop[15] = pop[24] = pop[1] = 1; /* etime, dn, result_ts_ns */
    pconn[8] = 1;
    CHECK_EQ_STR(sat_table_get(SAT_TABLE_LDAP_OP)->columns[15].name, "etime");
    CHECK_EQ_STR(sat_table_get(SAT_TABLE_LDAP_OP)->columns[24].name, "dn");
    CHECK_EQ_STR(sat_table_get(SAT_TABLE_LDAP_CONN)->columns[8].name, "close_code");
    rctx x = {0};
    x.proj[SAT_TABLE_LDAP_OP] = pop;
    x.proj[SAT_TABLE_LDAP_CONN] = pconn;
    /* a sink that also checks the absent values of unrequested fields */
    sat_event_sink sink = make_sink(&x);
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_SOURCE], 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 1000);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_CONN], 111);
    CHECK_EQ_INT(x.bad, 0);
    static const char *const bad[] = {"nonesuch", NULL};
    o.columns[SAT_TABLE_LDAP_OP] = bad;
    CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), SAT_E_USAGE);
    sat_trace_reader_close(r);
}

/* Keeps the last ldap_op, crash and frame row a read hands over: in them,
 * the columns not asked for must read as their absent values. */
static sat_ldap_op last_op;
static sat_crash last_crash;
static sat_frame last_frame;

static int keep_last(void *ctx, int table, const void *row)
{
    (void)ctx;
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        last_op = *(const sat_ldap_op *)row;
        break;
    case SAT_TABLE_CRASH:
        last_crash = *(const sat_crash *)row;
        break;
    case SAT_TABLE_FRAME:
        last_frame = *(const sat_frame *)row;
        break;
    default:
        break;
    }
    return SAT_OK;
}

static void test_absent_defaults(void)
{
    char path[128];
    path_of(path, sizeof path, "rt.sat");
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    static const char *const cols[] = {"conn", NULL};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.columns[SAT_TABLE_LDAP_OP] = cols;
    sat_event_sink s = {NULL, SAT_TABLE_BIT(SAT_TABLE_LDAP_OP), keep_last};
    CHECK_EQ_INT(sat_trace_read(r, &o, &s, &d), 0);
    CHECK_EQ_INT(last_op.ts_ns, 0);
    CHECK_EQ_INT(last_op.etime, SAT_ABSENT);
    CHECK_EQ_INT(last_op.err, SAT_ABSENT);
    CHECK_EQ_INT(last_op.scope, SAT_SCOPE_NONE);
    CHECK(last_op.dn.ptr == NULL);
    CHECK_EQ_INT(last_op.conn, 149981 + 999 / 4);
    sat_trace_reader_close(r);
}

static void test_crash_absent_defaults(void)
{
    char path[128];
    path_of(path, sizeof path, "rt.sat");
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    if (!r)
        return;
    static const char *const ccols[] = {"crash", NULL};
    static const char *const fcols[] = {"depth", "function", NULL};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.tables = (1u << SAT_TABLE_CRASH) | (1u << SAT_TABLE_FRAME);
    o.columns[SAT_TABLE_CRASH] = ccols;
    o.columns[SAT_TABLE_FRAME] = fcols;
    sat_event_sink s = {NULL, SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                              SAT_TABLE_BIT(SAT_TABLE_FRAME), keep_last};
    memset(&last_crash, 0, sizeof last_crash);
    memset(&last_frame, 0, sizeof last_frame);
    CHECK_EQ_INT(sat_trace_read(r, &o, &s, &d), 0);
    anyrow k, f;
    gen_row(SAT_TABLE_CRASH, 39, &k, 0);
    gen_row(SAT_TABLE_FRAME, 299, &f, 0);
    CHECK_EQ_INT(last_crash.crash, k.k.crash);
    CHECK_EQ_INT(last_crash.ts, 0);
    CHECK_EQ_INT(last_crash.source, 0);
    CHECK_EQ_INT(last_crash.pid, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.uid, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.signal, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.si_code, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.fault_addr, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.orig_signal, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.orig_fault_addr, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.crashing_tid, SAT_ABSENT);
    CHECK_EQ_INT(last_crash.threads, 0);
    CHECK_EQ_INT(last_crash.flags, 0);
    CHECK(last_crash.host.ptr == NULL && last_crash.fingerprint.ptr == NULL);
    CHECK_EQ_INT(last_frame.depth, f.f.depth);
    CHECK(sat_str_eq(last_frame.function, f.f.function));
    CHECK_EQ_INT(last_frame.pc, SAT_ABSENT);
    CHECK_EQ_INT(last_frame.offset, SAT_ABSENT);
    CHECK_EQ_INT(last_frame.fn_offset, SAT_ABSENT);
    CHECK_EQ_INT(last_frame.line, SAT_ABSENT);
    CHECK_EQ_INT(last_frame.thread, 0);
    CHECK(last_frame.module.ptr == NULL && last_frame.file.ptr == NULL);
    sat_trace_reader_close(r);
}

/* Strings longer than 1 MiB are cut by the writer (FORMAT.md limits). */
static void test_long_string(void)
{
    char path[128];
    path_of(path, sizeof path, "long.sat");
    sat_diag d = {0};
    sat_trace_writer *w = sat_trace_writer_create(path, NULL, &d);
    size_t n = (2u << 20) + 5;
    char *big = malloc(n);
    memset(big, 'x', n);
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = 1;
    o.dn = sat_str_make(big, n);
    CHECK_EQ_INT(sat_trace_writer_append(w, SAT_TABLE_LDAP_OP, &o), 0);
    CHECK_EQ_INT(sat_trace_writer_close(w, &d), 0);
    free(big);
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    sat_event_sink s = {NULL, SAT_TABLE_BIT(SAT_TABLE_LDAP_OP), keep_last};
    memset(&last_op, 0, sizeof last_op);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &s, &d), 0);
    CHECK_EQ_INT(last_op.dn.len, 1u << 20);
    sat_trace_reader_close(r);
    unlink(path);
}

static void test_schema(void)
{
    CHECK(sat_table_by_name("ldap_op") == sat_table_get(SAT_TABLE_LDAP_OP));
    CHECK(sat_table_get(SAT_TABLE__COUNT) == NULL);
    CHECK_EQ_STR(sat_table_get(SAT_TABLE_LDAP_CONN)->ts_column, "open_ts");
    CHECK_EQ_STR(sat_table_get(SAT_TABLE_SOURCE)->ts_column, "first_ts");
    CHECK(sat_table_get(SAT_TABLE_REJECT)->ts_column == NULL);
}

int main(void)
{
    if (trace_tmp_make("test_trace_roundtrip"))
        return 1;
    test_schema();
    test_round_trip(0);
    test_empty();
    test_round_trip(7);
    test_sink_mask();
    test_projection();
    test_absent_defaults();
    test_crash_absent_defaults();
    test_long_string();
    trace_tmp_remove();
    return CHECK_DONE();
}
