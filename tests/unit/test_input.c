/*
 * test_input.c - collect/input.c: the same lines come out of plain, gzip,
 * bzip2, xz and zstd files (single and multi-member/-frame, compressed here
 * with the libraries themselves), edge cases of line splitting (no final
 * newline, CRLF, a line over the 1 MiB cap, empty file), and truncated or
 * corrupt compressed files give every decodable line, then SAT_E_TRUNCATED.
 */
#include "check.h"
#include "satscope/collect.h"

#include <bzlib.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static char tmpdir[256];

typedef struct {
    unsigned char *p;
    size_t n, cap;
} blob;

static void blob_cat(blob *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static char *write_file(const char *name, const void *p, size_t n)
{
    static char paths[32][512];
    static int next;
    char *path = paths[next++ % 32];
    snprintf(path, 512, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
    return path;
}

/* ---- compressors (the libraries' own one-shot APIs) ------------------------------ */
static blob gz(const void *p, size_t n)
{
    blob b = {0, 0, 0};
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    b.p = malloc(cap);
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    z.next_out = b.p;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    b.n = cap - z.avail_out;
    deflateEnd(&z);
    return b;
}
static blob bz2(const void *p, size_t n)
{
    blob b = {0, 0, 0};
    unsigned cap = (unsigned)(n + n / 100 + 1024);
    b.p = malloc(cap);
    /* 100k blocks so that a file cut in the middle still has whole blocks. */
    BZ2_bzBuffToBuffCompress((char *)b.p, &cap, (char *)p, (unsigned)n, 1, 0, 0);
    b.n = cap;
    return b;
}
static blob xz(const void *p, size_t n)
{
    blob b = {0, 0, 0};
    size_t cap = lzma_stream_buffer_bound(n), pos = 0;
    b.p = malloc(cap);
    lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, p, n, b.p, &pos, cap);
    b.n = pos;
    return b;
}
static blob zst(const void *p, size_t n)
{
    blob b = {0, 0, 0};
    size_t cap = ZSTD_compressBound(n);
    b.p = malloc(cap);
    b.n = ZSTD_compress(b.p, cap, p, n, 1);
    return b;
}
/* Two members/streams/frames: each half compressed on its own, concatenated. */
static blob twice(blob (*c)(const void *, size_t), const char *p, size_t n)
{
    size_t half = n / 2;
    blob a = c(p, half), b = c(p + half, n - half), r = {0, 0, 0};
    blob_cat(&r, a.p, a.n);
    blob_cat(&r, b.p, b.n);
    free(a.p);
    free(b.p);
    return r;
}

/* ---- the test text ------------------------------------------------------------------- */
static char *text;
static size_t text_len;
static size_t nlines;
static size_t *line_off, *line_len;

static void make_text(void)
{
    blob b = {0, 0, 0};
    uint32_t seed = 12345;
    char line[512];
    for (int i = 0; i < 12000; i++) {
        seed = seed * 1103515245u + 12345u;
        int pad = (int)((seed >> 16) % 200);
        int n = snprintf(line, sizeof line,
                         "[08/Jun/2025:07:19:%02d.%09d +0000] conn=%d op=%d SRCH "
                         "base=\"dc=example,dc=com\" scope=2 filter=\"(uid=u%d)\" %.*s\n",
                         i % 60, i * 7, i / 5, i % 5, (int)(seed % 100000), pad,
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                         "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
        blob_cat(&b, line, (size_t)n);
        if (i == 100)
            blob_cat(&b, "a windows line\r\n", 16);
        if (i == 200)
            blob_cat(&b, "\n", 1); /* an empty line */
    }
    blob_cat(&b, "last line without newline", 25);
    text = (char *)b.p;
    text_len = b.n;
    line_off = malloc(sizeof(size_t) * 20000);
    line_len = malloc(sizeof(size_t) * 20000);
    size_t s = 0;
    for (size_t i = 0; i <= text_len; i++) {
        if (i == text_len || text[i] == '\n') {
            if (i == text_len && s == i)
                break;
            line_off[nlines] = s;
            line_len[nlines] = i - s;
            nlines++;
            s = i + 1;
        }
    }
}

/* Read every line; check each against the reference; returns the final rc. */
static int read_and_compare(const char *path, size_t *got_lines, sat_diag *d,
                            int expect_exact)
{
    sat_input *in = sat_input_open(path, d);
    if (!in)
        return -100;
    const char *l;
    size_t n, i = 0;
    int rc, mismatches = 0;
    while ((rc = sat_input_next_line(in, &l, &n, d)) == 1) {
        if (i >= nlines || n != line_len[i] || memcmp(l, text + line_off[i], n) != 0)
            mismatches++;
        i++;
    }
    if (expect_exact) {
        if (mismatches)
            fprintf(stderr, "%s: %d mismatching lines\n", path, mismatches);
        CHECK_EQ_INT(mismatches, 0);
    }
    *got_lines = i;
    sat_input_close(in);
    return rc;
}

static void test_all_compressions(void)
{
    struct {
        const char *name, *comp;
        blob b;
    } cases[] = {
        {"t.log", "none", {(unsigned char *)text, text_len, 0}},
        {"t.log.gz", "gzip", gz(text, text_len)},
        {"t.log.bz2", "bzip2", bz2(text, text_len)},
        {"t.log.xz", "xz", xz(text, text_len)},
        {"t.log.zst", "zstd", zst(text, text_len)},
        {"t2.gz", "gzip", twice(gz, text, text_len)},
        {"t2.bz2", "bzip2", twice(bz2, text, text_len)},
        {"t2.xz", "xz", twice(xz, text, text_len)},
        {"t2.zst", "zstd", twice(zst, text, text_len)},
        /* a misleading name: compression is told by content */
        {"plain-named.txt", "gzip", gz(text, text_len)},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *path = write_file(cases[c].name, cases[c].b.p, cases[c].b.n);
        sat_diag d = {0};
        sat_input *in = sat_input_open(path, &d);
        CHECK(in != NULL);
        if (!in)
            continue;
        CHECK_EQ_STR(sat_input_compression(in), cases[c].comp);
        size_t plen = 0;
        const char *peek = sat_input_peek(in, &plen);
        CHECK_EQ_INT(plen, 65536);
        CHECK(peek && memcmp(peek, text, plen) == 0);
        CHECK_EQ_INT(sat_input_raw_size(in), cases[c].b.n);
        sat_input_close(in);

        size_t got = 0;
        int rc = read_and_compare(path, &got, &d, 1);
        if (rc != 0)
            fprintf(stderr, "%s: rc %d %s\n", cases[c].name, rc, d.msg);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(got, nlines);
        if (c > 0)
            free(cases[c].b.p);
    }
}

static void test_edges(void)
{
    sat_diag d = {0};
    const char *l;
    size_t n;

    /* CRLF: the '\r' stays for the parser to strip. */
    char *p = write_file("crlf.log", "a\r\nb\r\n", 6);
    sat_input *in = sat_input_open(p, &d);
    CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
    CHECK(n == 2 && l[0] == 'a' && l[1] == '\r');
    CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
    CHECK(n == 2 && l[0] == 'b');
    CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 0);
    sat_input_close(in);

    /* Empty file: no line, empty peek. */
    p = write_file("empty.log", "", 0);
    in = sat_input_open(p, &d);
    CHECK(in != NULL);
    size_t plen = 99;
    sat_input_peek(in, &plen);
    CHECK_EQ_INT(plen, 0);
    CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 0);
    CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 0);
    sat_input_close(in);

    /* Missing file. */
    memset(&d, 0, sizeof d);
    in = sat_input_open("/nonexistent/dir/access", &d);
    CHECK(in == NULL);
    CHECK_EQ_INT(d.code, SAT_E_IO);
    CHECK_EQ_STR(d.msg, "No such file or directory");
    CHECK_EQ_STR(d.where, "/nonexistent/dir/access");

    /* A 2.5 MiB line between two short ones: cut at 1 MiB, the rest skipped. */
    size_t big = (size_t)5 << 19;
    blob b = {0, 0, 0};
    blob_cat(&b, "first\n", 6);
    char *x = malloc(big);
    memset(x, 'x', big);
    blob_cat(&b, x, big);
    blob_cat(&b, "\nafter\nend", 10);
    free(x);
    blob gzb = gz(b.p, b.n);
    const char *names[2] = {"long.log", "long.log.gz"};
    blob data[2] = {b, gzb};
    for (int k = 0; k < 2; k++) {
        p = write_file(names[k], data[k].p, data[k].n);
        in = sat_input_open(p, &d);
        CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
        CHECK(n == 5 && memcmp(l, "first", 5) == 0);
        CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
        CHECK_EQ_INT(n, (size_t)1 << 20);
        CHECK(l[0] == 'x' && l[n - 1] == 'x');
        CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
        CHECK(n == 5 && memcmp(l, "after", 5) == 0);
        CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 1);
        CHECK(n == 3 && memcmp(l, "end", 3) == 0);
        CHECK_EQ_INT(sat_input_next_line(in, &l, &n, &d), 0);
        CHECK_EQ_INT(sat_input_cut_lines(in), 1);
        CHECK_EQ_INT(sat_input_bytes(in), data[0].n);
        sat_input_close(in);
    }
    free(b.p);
    free(gzb.p);
}

static void test_truncated(void)
{
    struct {
        const char *name;
        blob b;
    } cases[] = {
        {"cut.gz", gz(text, text_len)},
        {"cut.bz2", bz2(text, text_len)},
        {"cut.xz", xz(text, text_len)},
        {"cut.zst", zst(text, text_len)},
        {"cut2.gz", twice(gz, text, text_len)},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        /* Cut at 70%: the decoders must give the lines before the cut. */
        size_t keep = cases[c].b.n * 7 / 10;
        char *p = write_file(cases[c].name, cases[c].b.p, keep);
        sat_diag d = {0};
        size_t got = 0;
        int rc = read_and_compare(p, &got, &d, 1);
        CHECK_EQ_INT(rc, SAT_E_TRUNCATED);
        CHECK_EQ_INT(d.code, SAT_E_TRUNCATED);
        CHECK(strstr(d.msg, "ends early after") != NULL);
        CHECK(strstr(d.where, cases[c].name) != NULL);
        CHECK(got > nlines / 3 && got < nlines);
        if (got <= nlines / 3 || got >= nlines)
            fprintf(stderr, "%s: got %zu of %zu lines: %s\n", cases[c].name, got,
                    nlines, d.msg);

        /* Corrupt bytes in the middle: lines before, then SAT_E_TRUNCATED. */
        unsigned char *q = malloc(cases[c].b.n);
        memcpy(q, cases[c].b.p, cases[c].b.n);
        for (size_t i = cases[c].b.n / 2; i < cases[c].b.n / 2 + 64; i++)
            q[i] ^= 0x5a;
        p = write_file(cases[c].name, q, cases[c].b.n);
        memset(&d, 0, sizeof d);
        got = 0;
        /* gzip and xz check their CRC only at the end of a member/block, so
         * garbage may come out before the error: only the status is sure. */
        rc = read_and_compare(p, &got, &d, 0);
        CHECK_EQ_INT(rc, SAT_E_TRUNCATED);
        fprintf(stderr, "note: corrupt %s: %zu lines, then: %s: %s\n",
                cases[c].name, got, d.where, d.msg);
        free(q);
        free(cases[c].b.p);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sat_test_input.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    make_text();
    test_all_compressions();
    test_edges();
    test_truncated();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    free(text);
    free(line_off);
    free(line_len);
    return CHECK_DONE();
}
