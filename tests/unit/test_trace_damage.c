/*
 * test_trace_damage.c - a .sat trace (trace/FORMAT.md) that is not whole: a
 * writer killed part-way (every truncation of its partial file reads, block
 * by block; abort removes it), a flipped byte caught by verify with the block
 * named, and damaged blocks of every table (first, middle, last; in their
 * data or header; with and without footer) skipped with every other block
 * read, named by read, stat and verify.
 */
#include "check.h"
#include "trace_rows.h"

static void test_killed_writer(void)
{
    char path[128], partial[160], cut[160];
    path_of(path, sizeof path, "killed.sat");
    path_of(cut, sizeof cut, "cut.sat");
    sat_diag d = {0};
    sat_trace_write_opts wo = {10, 0, 0};
    sat_trace_writer *w = sat_trace_writer_create(path, &wo, &d);
    CHECK(w != NULL);
    snprintf(partial, sizeof partial, "%s", sat_trace_writer_partial_path(w));
    /* beside the trace, under a name nobody could plant a link at in advance */
    CHECK(strncmp(partial, path, strlen(path)) == 0 && strstr(partial, ".partial") != NULL);
    CHECK(strlen(partial) == strlen(path) + 15);
    for (uint64_t i = 0; i < 95; i++) {
        anyrow r;
        gen_row(SAT_TABLE_LDAP_OP, i, &r, 0);
        CHECK_EQ_INT(sat_trace_writer_append(w, SAT_TABLE_LDAP_OP, &r), 0);
    }
    CHECK_EQ_INT(sat_trace_writer_flush(w), 0);
    CHECK(access(path, F_OK) != 0); /* the final name only after close */
    size_t n;
    uint8_t *buf = slurp(partial, &n);
    CHECK(buf != NULL && n > 100);
    CHECK_EQ_INT(sat_trace_verify(partial, NULL, NULL, &d), SAT_E_TRUNCATED);
    uint64_t prev = 0;
    int bad = 0;
    for (size_t len = 0; buf && len <= n; len += (len < 64 || n - len < 64) ? 1 : 7) {
        spit(cut, buf, len);
        sat_diag dd = {0};
        sat_trace_reader *r = sat_trace_reader_open(cut, &dd);
        if (len < 20) {
            bad += r != NULL;
            sat_trace_reader_close(r);
            continue;
        }
        if (!r || dd.code != SAT_E_TRUNCATED) {
            bad++;
            sat_trace_reader_close(r);
            continue;
        }
        rctx x = {0};
        sat_event_sink sink = make_sink(&x);
        if (sat_trace_read(r, NULL, &sink, &dd) != 0 || x.bad ||
            (x.n[SAT_TABLE_LDAP_OP] % 10 && x.n[SAT_TABLE_LDAP_OP] != 95) ||
            x.n[SAT_TABLE_LDAP_OP] < prev)
            bad++;
        prev = x.n[SAT_TABLE_LDAP_OP];
        sat_trace_reader_close(r);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(prev, 95); /* flush wrote the last, short block too */
    free(buf);
    CHECK_EQ_INT(sat_trace_writer_close(w, &d), 0);
    CHECK(access(partial, F_OK) != 0);
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    rctx x = {0};
    sat_event_sink sink = make_sink(&x);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), 0);
    CHECK_EQ_INT(x.n[SAT_TABLE_LDAP_OP], 95);
    sat_trace_reader_close(r);

    /* abort removes the partial file */
    w = sat_trace_writer_create(path, &wo, &d);
    CHECK(w != NULL);
    snprintf(partial, sizeof partial, "%s", sat_trace_writer_partial_path(w));
    CHECK(access(partial, F_OK) == 0);
    sat_trace_writer_abort(w);
    CHECK(access(partial, F_OK) != 0);
    CHECK_EQ_INT(count_partials("killed.sat"), 0);
}

static int reports;
static char first_report[600];
static void on_report(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    if (!reports++)
        snprintf(first_report, sizeof first_report, "%s: %s", where, msg);
}

static void test_flipped_byte(void)
{
    char path[128];
    path_of(path, sizeof path, "flip.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {0, 0, 500, 0};
    CHECK_EQ_INT(write_trace(path, counts, 100, 0), 0);
    size_t n;
    uint8_t *buf = slurp(path, &n);
    size_t b2 = block_offset(buf, n, 2), b3 = block_offset(buf, n, 3);
    CHECK(b2 > 0 && b3 > b2);
    buf[(b2 + b3) / 2] ^= 1;
    spit(path, buf, n);
    sat_diag d = {0};
    reports = 0;
    CHECK_EQ_INT(sat_trace_verify(path, on_report, NULL, &d), SAT_E_CORRUPT);
    CHECK_EQ_INT(reports, 1);
    CHECK(strstr(first_report, "block 2") != NULL);
    /* and in the header of block 3 */
    buf[(b2 + b3) / 2] ^= 1;
    buf[b3 + 9] ^= 0x40;
    spit(path, buf, n);
    reports = 0;
    CHECK_EQ_INT(sat_trace_verify(path, on_report, NULL, &d), SAT_E_CORRUPT);
    CHECK(strstr(first_report, "block 3") != NULL);
    free(buf);
}

/* ---- damaged blocks: skipped, every other block read (FORMAT.md) ---------- */
typedef struct cctx {
    uint64_t n[SAT_TABLE__COUNT];
} cctx;
static int cc_any(void *ctx, int t, const void *row)
{
    (void)row;
    ((cctx *)ctx)->n[t]++;
    return 0;
}

typedef struct blk {
    size_t off, len, data_off, data_len;
    int table;
    uint32_t nrows;
    int64_t min_ts, max_ts;
} blk;

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* The blocks of a complete trace, walked by their headers up to the footer. */
static size_t list_blocks(const uint8_t *b, size_t n, blk *out, size_t cap, size_t *footer)
{
    *footer = (size_t)le(b + n - 24, 8);
    size_t k = 0;
    for (size_t off = 20; off < *footer && k < cap; k++) {
        blk *x = &out[k];
        x->off = off;
        x->table = (int)le(b + off + 4, 2);
        x->nrows = (uint32_t)le(b + off + 8, 4);
        size_t dir = (size_t)le(b + off + 12, 4);
        x->data_len = (size_t)le(b + off + 16, 4);
        x->min_ts = (int64_t)le(b + off + 20, 8);
        x->max_ts = (int64_t)le(b + off + 28, 8);
        x->data_off = off + 40 + dir;
        x->len = 40 + dir + x->data_len;
        off += x->len;
    }
    return k;
}

/* Damages block `which` of buf (in its column data, or in its header), reads
 * the copy (with its footer, or cut before it: indexed by scanning) and
 * checks that exactly that block's rows are missing and named. */
static int check_damage(const char *path, const uint8_t *orig, size_t n, const blk *bl,
                        size_t nbl, size_t footer, size_t which, int in_header,
                        int partial, const uint64_t counts[SAT_TABLE__COUNT])
{
    int fails0 = check_failed;
    uint8_t *buf = malloc(n);
    memcpy(buf, orig, n);
    const blk *x = &bl[which];
    if (in_header)
        buf[x->off + 9] ^= 0x10;
    else
        buf[x->data_off + x->data_len / 2] ^= 0x01;
    spit(path, buf, partial ? footer : n);
    free(buf);
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    CHECK(r != NULL);
    if (!r)
        return 1;
    CHECK_EQ_INT(d.code, partial ? SAT_E_TRUNCATED : 0);
    cctx c = {{0}};
    sat_event_sink sink = {&c, SAT_TABLES_ALL, cc_any};
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), SAT_E_CORRUPT);
    char want[64];
    snprintf(want, sizeof want, "block %zu (offset %zu)", which, x->off);
    CHECK(strstr(d.where, want) != NULL);
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        CHECK_EQ_INT(c.n[t], counts[t] - (t == x->table ? x->nrows : 0));
    const sat_trace_damage *dm;
    CHECK_EQ_INT(sat_trace_reader_damage(r, &dm), 1);
    /* a header that fails its checksum in a trace without footer names no
     * table: nothing trustworthy says what it held */
    int known = !(partial && in_header);
    CHECK_EQ_INT(dm[0].block, which);
    CHECK_EQ_INT(dm[0].offset, x->off);
    CHECK_EQ_INT(dm[0].length, x->len);
    CHECK_EQ_INT(dm[0].table_id, known ? x->table : -1);
    CHECK_EQ_INT(dm[0].rows, known ? x->nrows : 0);
    CHECK_EQ_INT(dm[0].min_ts, known ? x->min_ts : 0);
    CHECK_EQ_INT(dm[0].max_ts, known ? x->max_ts : 0);
    char line[600];
    sat_trace_damage_describe(&dm[0], line, sizeof line);
    CHECK(strstr(line, known ? sat_table_get(x->table)->name : "unknown table") != NULL);
    CHECK(strstr(line, "lost (") != NULL);
    /* reading only the other tables meets no damage (a known table) */
    if (known) {
        sat_trace_read_opts o;
        memset(&o, 0, sizeof o);
        o.tables = 0xffu & ~(1u << x->table);
        memset(&c, 0, sizeof c);
        CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
        CHECK_EQ_INT(sat_trace_reader_damage(r, &dm), 0);
    }
    /* stat (info) names it and counts only the intact blocks */
    sat_trace_stat st;
    CHECK_EQ_INT(sat_trace_reader_stat(r, &st, &d), 0);
    CHECK_EQ_INT(st.ndamaged, 1);
    CHECK_EQ_INT(st.complete, !partial);
    if (st.ndamaged == 1)
        CHECK_EQ_INT(st.damaged[0].offset, x->off);
    CHECK_EQ_INT(st.tables[x->table].rows, counts[x->table] - x->nrows);
    sat_trace_reader_close(r);
    /* verify names it, with its table when known */
    reports = 0;
    CHECK(sat_trace_verify(path, on_report, NULL, &d) == SAT_E_CORRUPT);
    CHECK_EQ_INT(reports, partial ? 2 : 1); /* partial: and "not complete" */
    (void)nbl;
    return check_failed != fails0;
}

static void test_damaged_blocks(void)
{
    char path[128], dpath[128];
    path_of(path, sizeof path, "dmg.sat");
    path_of(dpath, sizeof dpath, "dmg2.sat");
    uint64_t counts[SAT_TABLE__COUNT] = {5, 7, 1000, 111, 333, 222, 40, 300, 1200};
    CHECK_EQ_INT(write_trace(path, counts, 50, 1), 0);
    size_t n, footer;
    uint8_t *buf = slurp(path, &n);
    CHECK(buf != NULL);
    if (!buf)
        return;
    blk bl[256];
    size_t nbl = list_blocks(buf, n, bl, 256, &footer);
    CHECK(nbl > 40);
    int cases = 0, failed = 0;
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        size_t of_t[64], k = 0;
        for (size_t i = 0; i < nbl && k < 64; i++)
            if (bl[i].table == t)
                of_t[k++] = i;
        CHECK(k >= 1);
        if (!k)
            continue;
        size_t pick3[3] = {of_t[0], of_t[k / 2], of_t[k - 1]}; /* first, middle, last */
        for (int p = 0; p < 3; p++)
            for (int hdr = 0; hdr < 2; hdr++)
                for (int partial = 0; partial < 2; partial++) {
                    /* bytes that are no block at the end of a trace without
                     * footer are its cut-off tail, not damage (FORMAT.md) */
                    if (partial && hdr && pick3[p] == nbl - 1)
                        continue;
                    cases++;
                    if (check_damage(dpath, buf, n, bl, nbl, footer, pick3[p], hdr,
                                     partial, counts)) {
                        failed++;
                        fprintf(stderr, "  damaged block %zu (table %d, header %d, "
                                "partial %d)\n", pick3[p], t, hdr, partial);
                    }
                }
    }
    CHECK(cases >= 8 * 3 * 3);
    CHECK_EQ_INT(failed, 0);

    /* two damaged blocks of one table: both skipped, both named */
    uint8_t *two = malloc(n);
    memcpy(two, buf, n);
    size_t a = 0, b = 0;
    for (size_t i = 0; i < nbl; i++)
        if (bl[i].table == SAT_TABLE_LDAP_OP) {
            if (!a)
                a = i + 1;
            else
                b = i + 1;
        }
    two[bl[a - 1].data_off + 3] ^= 0x80;
    two[bl[b - 1].data_off + 3] ^= 0x80;
    spit(dpath, two, n);
    free(two);
    sat_diag d = {0};
    sat_trace_reader *r = sat_trace_reader_open(dpath, &d);
    cctx c = {{0}};
    sat_event_sink sink = {&c, SAT_TABLES_ALL, cc_any};
    CHECK_EQ_INT(sat_trace_read(r, NULL, &sink, &d), SAT_E_CORRUPT);
    const sat_trace_damage *dm;
    CHECK_EQ_INT(sat_trace_reader_damage(r, &dm), 2);
    CHECK_EQ_INT(c.n[SAT_TABLE_LDAP_OP], 1000 - bl[a - 1].nrows - bl[b - 1].nrows);
    CHECK_EQ_INT(c.n[SAT_TABLE_LDAP_CONN], 111);
    /* a time window that excludes the damaged blocks does not meet them */
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.tables = 1u << SAT_TABLE_LDAP_OP;
    o.from_ns = bl[b - 1].max_ts + 1;
    if (bl[a - 1].max_ts < o.from_ns && o.from_ns > 0) {
        CHECK_EQ_INT(sat_trace_read(r, &o, &sink, &d), 0);
        CHECK_EQ_INT(sat_trace_reader_damage(r, &dm), 0);
    }
    sat_trace_reader_close(r);
    unlink(dpath);
    unlink(path);
    free(buf);
}

int main(void)
{
    if (trace_tmp_make("test_trace_damage"))
        return 1;
    test_killed_writer();
    test_flipped_byte();
    test_damaged_blocks();
    trace_tmp_remove();
    return CHECK_DONE();
}
