/*
 * fuzz_trace_reader.c - libFuzzer target for the .sat reader (trace/FORMAT.md):
 * open + stat + read (all rows, then a projection with a time window) +
 * verify on arbitrary bytes. Any crash, sanitizer report or unbounded
 * allocation is a bug; errors with a diag are the expected outcome.
 * Seed corpus: tests/fuzz/corpus/fuzz_trace_reader/ (small valid traces made
 * by tests/fuzz/gen_trace_corpus.c, plus truncated and corrupted variants).
 */
#include <stdint.h>
#include <stddef.h>

#include "satscope/trace.h"

static int count_row(void *ctx, const void *row)
{
    (void)row;
    (*(uint64_t *)ctx)++;
    return SAT_OK;
}
static int on_source(void *c, const sat_source *s)
{
    volatile size_t touch = s->path.ptr ? s->path.len : 0;
    (void)touch;
    return count_row(c, s);
}
static int on_reject(void *c, const sat_reject *r) { return count_row(c, r); }
static int on_op(void *c, const sat_ldap_op *o)
{
    /* touch every string so ASan sees any bad pointer */
    const sat_str *ss[] = {&o->dn, &o->filter, &o->filter_shape, &o->attrs,
                           &o->method, &o->extra, &o->bind_dn, &o->client_ip,
                           &o->text, &o->details, &o->sid};
    volatile unsigned sum = 0;
    for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++)
        for (uint32_t k = 0; ss[i]->ptr && k < ss[i]->len; k++)
            sum += (unsigned char)ss[i]->ptr[k];
    (void)sum;
    return count_row(c, o);
}
static int on_conn(void *c, const sat_ldap_conn *k) { return count_row(c, k); }
static unsigned touch_strs(const sat_str *const *ss, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; ss[i]->ptr && k < ss[i]->len; k++)
            sum += (unsigned char)ss[i]->ptr[k];
    return sum;
}
static int on_crash(void *c, const sat_crash *k)
{
    const sat_str *ss[] = {&k->host, &k->exe, &k->command, &k->build_id,
                           &k->fingerprint, &k->build_key, &k->missing};
    volatile unsigned sum = touch_strs(ss, sizeof ss / sizeof ss[0]);
    (void)sum;
    return count_row(c, k);
}
static int on_frame(void *c, const sat_frame *f)
{
    const sat_str *ss[] = {&f->module, &f->build_id, &f->function, &f->file};
    volatile unsigned sum = touch_strs(ss, sizeof ss / sizeof ss[0]);
    (void)sum;
    return count_row(c, f);
}

/* Every table (the reader decodes only the tables its sink takes). */
static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_REJECT:
        return on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return count_row(ctx, row);
    }
}

static void on_report(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open_mem(data, size, &d);
    if (r) {
        uint64_t rows = 0;
        sat_event_sink sink = {&rows, SAT_TABLES_ALL, on_row};
        sat_trace_stat st;
        char line[600];
        if (sat_trace_reader_stat(r, &st, &d) == SAT_OK)
            for (size_t i = 0; i < st.ndamaged; i++) /* every damaged block named */
                (void)sat_trace_damage_describe(&st.damaged[i], line, sizeof line);
        (void)sat_trace_read(r, NULL, &sink, &d);
        const sat_trace_damage *dm;
        size_t nd = sat_trace_reader_damage(r, &dm);
        for (size_t i = 0; i < nd; i++)
            (void)sat_trace_damage_describe(&dm[i], line, sizeof line);
        static const char *const cols[] = {"etime", "result_ts_ns", "dn", NULL};
        sat_trace_read_opts o;
        memset(&o, 0, sizeof o);
        o.columns[SAT_TABLE_LDAP_OP] = cols;
        static const char *const fcols[] = {"function", "depth", NULL};
        o.columns[SAT_TABLE_FRAME] = fcols;
        o.from_ns = 1749367154214871640LL;
        o.to_ns = o.from_ns + 500000000LL;
        (void)sat_trace_read(r, &o, &sink, &d);
        sat_trace_reader_close(r);
    }
    (void)sat_trace_verify_mem(data, size, on_report, NULL, &d);
    return 0;
}
