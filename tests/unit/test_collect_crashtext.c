/*
 * test_collect_crashtext.c - collect/'s crash text (collect/crash_scan.c and its
 * two hooks in collect.c): a text input no log format recognises is read for
 * crash reports (source format "crash-text", its crash and frame rows carry
 * the source's id, no warning); one without any stays "unknown" and is warned
 * about as before; a log sniffed as 389-text of which no line was an access
 * log line (a 389 errors log) is read again for them; binary inputs are not
 * scanned; --from/--to leave out crashes outside the window (their file is
 * still a crash-text input); a gzip'd input
 * is read like a plain one. Inputs: fixtures/crashtext.
 */
#include "check.h"
#include "satscope/collect.h"
#include "collect/collect_internal.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

typedef struct recorder {
    uint32_t src_id[16];
    char src_path[16][300], src_format[16][32];
    uint64_t src_lines[16], src_rejects[16];
    sat_ts_ns src_first[16];
    int nsrc;
    uint32_t crash_source[32];
    int32_t crash_signal[32];
    sat_ts_ns crash_ts[32];
    int ncrash;
    uint32_t frame_source[256];
    int nframe;
    char warnings[4096];
} recorder;

static void cpy(char *dst, size_t cap, sat_str s)
{
    size_t n = s.ptr ? (s.len < cap - 1 ? s.len : cap - 1) : 0;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static int on_source(void *ctx, const sat_source *s)
{
    recorder *r = ctx;
    if (r->nsrc < 16) {
        r->src_id[r->nsrc] = s->id;
        cpy(r->src_path[r->nsrc], sizeof r->src_path[0], s->path);
        cpy(r->src_format[r->nsrc], sizeof r->src_format[0], s->format);
        r->src_lines[r->nsrc] = s->lines;
        r->src_rejects[r->nsrc] = s->rejects;
        r->src_first[r->nsrc] = s->first_ts;
        r->nsrc++;
    }
    return 0;
}

static int on_crash(void *ctx, const sat_crash *c)
{
    recorder *r = ctx;
    if (r->ncrash < 32) {
        r->crash_source[r->ncrash] = c->source;
        r->crash_signal[r->ncrash] = c->signal;
        r->crash_ts[r->ncrash] = c->ts;
        r->ncrash++;
    }
    return 0;
}

static int on_frame(void *ctx, const sat_frame *f)
{
    recorder *r = ctx;
    if (r->nframe < 256)
        r->frame_source[r->nframe++] = f->source;
    return 0;
}

static int rows_source_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static void on_warn(void *ctx, const char *where, const char *msg)
{
    recorder *r = ctx;
    size_t l = strlen(r->warnings);
    snprintf(r->warnings + l, sizeof r->warnings - l, "%s: %s\n", where, msg);
}

static int run(recorder *r, const char *const *paths, size_t n, sat_ts_ns from, sat_ts_ns to)
{
    memset(r, 0, sizeof *r);
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = r;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                  SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_source_crash_frame;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = on_warn;
    o.warn_ctx = r;
    o.year = 2025;
    o.from_ns = from;
    o.to_ns = to;
    o.parse_threads = 2; /* the hook for rejected logs must see the parallel path too */
    sat_collect_stats st;
    sat_diag d = {0};
    return sat_collect_run(paths, n, &o, &sink, &st, &d);
}

static int src_of(const recorder *r, const char *suffix)
{
    for (int i = 0; i < r->nsrc; i++) {
        size_t a = strlen(r->src_path[i]), b = strlen(suffix);
        if (a >= b && strcmp(r->src_path[i] + a - b, suffix) == 0)
            return i;
    }
    return -1;
}

static char fx[8][600];

static const char *fixture(int slot, const char *name)
{
    const char *src = getenv("SAT_SRC");
    snprintf(fx[slot], sizeof fx[slot], "%s/fixtures/crashtext/%s", src ? src : ".", name);
    return fx[slot];
}

int main(void)
{
    recorder r;

    /* unknown text with crashes, unknown text without, a binary */
    char tmpl[] = "/tmp/satscope-ctcollect-XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    char plain[700], bin[700], gz[700];
    snprintf(plain, sizeof plain, "%s/notes.txt", dir);
    snprintf(bin, sizeof bin, "%s/blob.bin", dir);
    snprintf(gz, sizeof gz, "%s/rook.log.gz", dir);
    FILE *f = fopen(plain, "w");
    fputs("shopping list\nmilk (+0x1)[0x2]\neggs\n", f);
    fclose(f);
    f = fopen(bin, "wb");
    fwrite("\x7f" "ELF\0\0\0*** Caught signal (Aborted) **\n in thread 7f\n", 1, 49, f);
    fclose(f);
    {
        FILE *in = fopen(fixture(0, "ceph-16.2.4-rook.log"), "rb");
        gzFile out = gzopen(gz, "wb");
        char buf[4096];
        size_t n;
        while (in && (n = fread(buf, 1, sizeof buf, in)) > 0)
            gzwrite(out, buf, (unsigned)n);
        gzclose(out);
        if (in)
            fclose(in);
    }

    const char *paths[] = {fixture(1, "journal-glibc.log"), fixture(2, "gdb-live-threads.txt"),
                           plain, bin, gz};
    int rc = run(&r, paths, 5, 0, 0);
    CHECK(rc < 0); /* notes.txt and blob.bin are not logs: as before */
    CHECK_EQ_INT(r.nsrc, 5);
    int j = src_of(&r, "journal-glibc.log"), g = src_of(&r, "gdb-live-threads.txt"),
        p = src_of(&r, "notes.txt"), b = src_of(&r, "blob.bin"), z = src_of(&r, "rook.log.gz");
    CHECK(j >= 0 && g >= 0 && p >= 0 && b >= 0 && z >= 0);
    if (j >= 0 && g >= 0 && p >= 0 && b >= 0 && z >= 0) {
        CHECK_EQ_STR(r.src_format[j], "crash-text");
        CHECK_EQ_INT(r.src_lines[j], 16);
        CHECK_EQ_INT(r.src_first[j], 1749566100LL * 1000000000LL);
        CHECK_EQ_STR(r.src_format[g], "crash-text");
        CHECK_EQ_STR(r.src_format[z], "crash-text");
        CHECK_EQ_STR(r.src_format[p], "unknown");
        CHECK_EQ_STR(r.src_format[b], "unknown");
        CHECK(strstr(r.warnings, "notes.txt: not a recognised log format") != NULL);
        CHECK(strstr(r.warnings, "blob.bin: not a recognised log format") != NULL);
        CHECK(strstr(r.warnings, "journal-glibc.log") == NULL);
        CHECK_EQ_INT(r.ncrash, 3);
        int per[3] = {0, 0, 0};
        for (int i = 0; i < r.ncrash; i++) {
            if (r.crash_source[i] == r.src_id[j])
                per[0]++;
            else if (r.crash_source[i] == r.src_id[g])
                per[1]++;
            else if (r.crash_source[i] == r.src_id[z])
                per[2]++;
        }
        CHECK(per[0] == 1 && per[1] == 1 && per[2] == 1);
        CHECK_EQ_INT(r.nframe, 8 + 61 + 7);
        for (int i = 0; i < r.nframe; i++)
            CHECK(r.frame_source[i] == r.src_id[j] || r.frame_source[i] == r.src_id[g] ||
                  r.frame_source[i] == r.src_id[z]);
    }

    /* a 389 errors log (the access log's timestamps, "- ERR -" after them)
     * is not taken for an access log: it is read for crash text */
    const char *errs[] = {fixture(3, "errors-glibc.log")};
    rc = run(&r, errs, 1, 0, 0);
    CHECK_EQ_INT(r.nsrc, 1);
    CHECK_EQ_STR(r.src_format[0], "crash-text");
    CHECK_EQ_INT(r.src_rejects[0], 0);
    CHECK_EQ_INT(r.ncrash, 1);
    CHECK_EQ_INT(r.nframe, 7);
    if (r.ncrash == 1) {
        CHECK_EQ_INT(r.crash_source[0], r.src_id[0]);
        CHECK_EQ_INT(r.crash_signal[0], 11);
    }
    CHECK(strstr(r.warnings, "errors-glibc.log") == NULL); /* nothing to warn about */

    /* the window: the journal's crash (2025-06-10T14:35Z) in it, Ceph's
     * (2021) out of it; a file whose only crash is outside it is still a
     * crash-text input, without rows */
    const char *two[] = {fixture(4, "journal-glibc.log"), fixture(5, "ceph-16.2.4-rook.log")};
    rc = run(&r, two, 2, 1749500000LL * 1000000000LL, 1749600000LL * 1000000000LL);
    CHECK_EQ_INT(r.ncrash, 1);
    CHECK_EQ_INT(r.nframe, 8);
    int k = src_of(&r, "ceph-16.2.4-rook.log");
    CHECK(k >= 0);
    if (k >= 0)
        CHECK_EQ_STR(r.src_format[k], "crash-text");
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK(strstr(r.warnings, "not a recognised") == NULL);

    unlink(plain);
    unlink(bin);
    unlink(gz);
    rmdir(dir);
    return CHECK_DONE();
}
