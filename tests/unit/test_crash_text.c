/*
 * test_crash_text.c - crash reports written as text in logs (parse/crash_text.c)
 * on the fixtures of fixtures/crashtext (real gdb and glibc output made there,
 * Ceph blocks copied from public reports, set among ordinary log lines): the
 * rows each report gives, frames before their crash row, the crashing thread
 * of "thread apply all bt", prefixes that keep streams apart, Ceph's repeated
 * blocks counted once; and on small inputs written here: the bounds (cut
 * lines, frames over the limit, blocks over the slots), lone lines that are
 * not crashes, the time window, syslog years, a sink's error.
 */
#include "check.h"
#include "satscope/core.h"
#include "satscope/crash.h"

#include <stdlib.h>

/* ---- a sink that keeps copies of every row, in order ----------------------------- */
typedef struct rframe {
    sat_frame f;
    char module[256], function[4200], file[256];
    int has_module, has_function, has_file;
    int order;
} rframe;

typedef struct rcrash {
    sat_crash c;
    char exe[256], command[256], host[64], fingerprint[32], build_key[32], missing[32];
    int has_exe, has_command, has_host, has_missing;
    int order;
} rcrash;

typedef struct rec {
    rframe *fr;
    size_t nfr, capfr;
    rcrash cr[64];
    size_t ncr;
    int order;
    int fail_on_crash; /* return this from on_crash (0: none) */
} rec;

static int copy(char *dst, size_t cap, sat_str s)
{
    if (!s.ptr) {
        dst[0] = '\0';
        return 0;
    }
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    memcpy(dst, s.ptr, n);
    dst[n] = '\0';
    return 1;
}

static int rec_frame(void *ctx, const sat_frame *f)
{
    rec *r = ctx;
    if (r->nfr == r->capfr) {
        r->capfr = r->capfr ? r->capfr * 2 : 64;
        r->fr = realloc(r->fr, r->capfr * sizeof *r->fr);
        if (!r->fr)
            abort();
    }
    rframe *x = &r->fr[r->nfr++];
    x->f = *f;
    x->has_module = copy(x->module, sizeof x->module, f->module);
    x->has_function = copy(x->function, sizeof x->function, f->function);
    x->has_file = copy(x->file, sizeof x->file, f->file);
    x->order = r->order++;
    return 0;
}

static int rec_crash(void *ctx, const sat_crash *c)
{
    rec *r = ctx;
    if (r->fail_on_crash)
        return r->fail_on_crash;
    if (r->ncr == sizeof r->cr / sizeof r->cr[0])
        return SAT_E_LIMIT;
    rcrash *x = &r->cr[r->ncr++];
    x->c = *c;
    x->has_exe = copy(x->exe, sizeof x->exe, c->exe);
    x->has_command = copy(x->command, sizeof x->command, c->command);
    x->has_host = copy(x->host, sizeof x->host, c->host);
    copy(x->fingerprint, sizeof x->fingerprint, c->fingerprint);
    copy(x->build_key, sizeof x->build_key, c->build_key);
    x->has_missing = copy(x->missing, sizeof x->missing, c->missing);
    x->order = r->order++;
    return 0;
}

static int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return rec_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return rec_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static void rec_free(rec *r) { free(r->fr); }

/* The frames of crash `id`, in emission order. */
static size_t frames_of(const rec *r, uint32_t id, const rframe **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfr; i++)
        if (r->fr[i].f.crash == id && n < cap)
            out[n++] = &r->fr[i];
    return n;
}

/* Every frame row comes before its crash row, crash numbers run 1..N. */
static void check_order(const rec *r)
{
    for (size_t k = 0; k < r->ncr; k++) {
        CHECK_EQ_INT(r->cr[k].c.crash, k + 1);
        for (size_t i = 0; i < r->nfr; i++)
            if (r->fr[i].f.crash == r->cr[k].c.crash)
                CHECK(r->fr[i].order < r->cr[k].order);
    }
    for (size_t i = 0; i < r->nfr; i++) {
        int found = 0;
        for (size_t k = 0; k < r->ncr; k++)
            found |= r->fr[i].f.crash == r->cr[k].c.crash;
        CHECK(found); /* no frame row without its crash row */
    }
}

/* ---- feeding --------------------------------------------------------------------- */
static sat_crash_text_stats last_stats;

static int feed_text(rec *r, const char *text, size_t len, const sat_crash_text_opts *o)
{
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = r;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_crash_frame;
    sat_crash_text_opts def;
    memset(&def, 0, sizeof def);
    def.default_year = 2025;
    def.source = 7;
    sat_crash_text *ct = sat_crash_text_create(o ? o : &def, &sink);
    CHECK(ct != NULL);
    if (!ct)
        return SAT_E_NOMEM;
    const char *p = text, *end = text + len;
    uint64_t no = 0;
    int rc = SAT_OK;
    while (p < end && rc >= 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        /* each line in its own buffer, no NUL after it (as collect/ gives them) */
        char *line = malloc(n ? n : 1);
        memcpy(line, p, n);
        rc = sat_crash_text_line(ct, line, n, ++no);
        free(line);
        p = nl ? nl + 1 : end;
    }
    if (rc >= 0)
        rc = sat_crash_text_finish(ct);
    sat_crash_text_get_stats(ct, &last_stats);
    sat_crash_text_free(ct);
    return rc;
}

static char *slurp(const char *name, size_t *len)
{
    const char *src = getenv("SAT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/crashtext/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        check_failed++;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int feed_fixture(rec *r, const char *name)
{
    size_t len;
    char *b = slurp(name, &len);
    if (!b)
        return SAT_E_IO;
    int rc = feed_text(r, b, len, NULL);
    free(b);
    check_order(r);
    return rc;
}

/* A number the fixture itself says, after `key` (so regenerating it keeps the
 * test true): "[Current thread is 1 (Thread 0x.. (LWP 27597))]" -> 27597. */
static long fixture_number_after(const char *name, const char *line_has, const char *key)
{
    size_t len;
    char *b = slurp(name, &len);
    long v = -1;
    if (b) {
        const char *l = strstr(b, line_has);
        const char *k = l ? strstr(l, key) : NULL;
        if (k)
            v = strtol(k + strlen(key), NULL, 10);
        free(b);
    }
    return v;
}

#define NS(s) ((sat_ts_ns)(s) * 1000000000LL)

/* ---- Ceph ------------------------------------------------------------------------------ */
static void test_ceph_native_old(void)
{
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "ceph-0.69-native.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    const rframe *f[32];
    size_t n = frames_of(&r, 1, f, 32);
    CHECK_EQ_INT(n, 12);
    if (r.ncr == 1 && n == 12) {
        const sat_crash *c = &r.cr[0].c;
        CHECK_EQ_INT(c->origin, SAT_CRASH_TEXT_CEPH);
        CHECK_EQ_INT(c->signal, 11);
        CHECK_EQ_INT(c->source, 7);
        /* 2013-09-25 15:06:23.307320, no zone: taken as UTC */
        CHECK_EQ_INT(c->ts, NS(1380121583) + 307320000);
        CHECK_EQ_INT(c->threads, 1);
        CHECK_EQ_INT(c->crashing_tid, SAT_ABSENT);
        CHECK_EQ_STR(r.cr[0].exe, "ceph-mon"); /* the one module that is not a library */
        CHECK_EQ_INT(c->flags, 0);
        /* " 1: ceph-mon() [0x80fdea]" */
        CHECK_EQ_STR(f[0]->module, "ceph-mon");
        CHECK_EQ_INT(f[0]->f.pc, 0x80fdea);
        CHECK(!f[0]->has_function);
        /* " 2: (()+0xfcb0) [0x7fabf58b9cb0]": no symbol, an offset in its module */
        CHECK(!f[1]->has_function && !f[1]->has_module);
        CHECK_EQ_INT(f[1]->f.offset, 0xfcb0);
        CHECK_EQ_INT(f[1]->f.pc, 0x7fabf58b9cb0);
        /* demangled C++ with nested parentheses and templates */
        CHECK(strncmp(f[2]->function, "PGMonitor::get_health(std::list<", 32) == 0);
        CHECK(strstr(f[2]->function, ") const") != NULL);
        CHECK_EQ_INT(f[2]->f.fn_offset, 0x1abe);
        CHECK_EQ_STR(f[8]->function, "DispatchQueue::entry()");
        /* "(clone()+0x6d)": a C function loses the "()" Ceph gave it */
        CHECK_EQ_STR(f[11]->function, "clone");
        CHECK_EQ_INT(f[11]->f.fn_offset, 0x6d);
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ_INT(f[i]->f.depth, (long long)i);
            CHECK_EQ_INT(f[i]->f.thread, 0);
            CHECK_EQ_INT(f[i]->f.source, 7);
        }
    }
    rec_free(&r);
}

static void test_ceph_stderr_copies(void)
{
    /* stderr's copy (no time) and the log's copy of the same crash, cut after
     * its "in thread" line: one crash */
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "ceph-0.87.1-stderr.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    CHECK_EQ_INT(last_stats.duplicates, 1);
    const rframe *f[32];
    CHECK_EQ_INT(frames_of(&r, 1, f, 32), 14);
    if (r.ncr == 1) {
        CHECK_EQ_INT(r.cr[0].c.ts, 0);
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_STR(r.cr[0].exe, "rbd");
        CHECK_EQ_STR(f[2]->function, "pthread_rwlock_unlock");
        CHECK_EQ_STR(f[11]->function, "main");
    }
    rec_free(&r);

    /* behind "ceph-301.1 | ": the stderr copy, then the log's copy cut after
     * frame 4 (same thread, same first frames): one crash */
    rec q = {0};
    CHECK_EQ_INT(feed_fixture(&q, "ceph-11.2.0-forego.log"), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    CHECK_EQ_INT(last_stats.duplicates, 1);
    CHECK_EQ_INT(frames_of(&q, 1, f, 32), 11);
    if (q.ncr == 1) {
        CHECK_EQ_INT(q.cr[0].c.signal, 6);
        CHECK_EQ_STR(f[2]->function, "gsignal");
        CHECK_EQ_STR(f[3]->function, "abort");
        CHECK_EQ_STR(f[4]->function, "ceph::__ceph_assert_fail(char const*, char const*, int, char const*)");
        CHECK_EQ_STR(f[10]->function, "_start");
    }
    rec_free(&q);
}

static void test_ceph_new_generation(void)
{
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "ceph-16.2.4-rook.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    const rframe *f[32];
    CHECK_EQ_INT(frames_of(&r, 1, f, 32), 7);
    if (r.ncr == 1) {
        /* "debug      0> 2021-07-01T16:22:36.445+0000 7fd501047080 -1 *** Caught ..." */
        CHECK_EQ_INT(r.cr[0].c.ts, NS(1625156556) + 445000000);
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_STR(f[0]->module, "libpthread.so.0"); /* basename of /lib64/... */
        CHECK_EQ_INT(f[0]->f.offset, 0x12b20);
        CHECK_EQ_INT(f[0]->f.pc, 0x7fd4fedaeb20);
        CHECK_EQ_STR(f[3]->function, "OSD::init()");
        CHECK_EQ_INT(f[3]->f.fn_offset, 0x863);
        /* " 5: main()": a name, no address */
        CHECK_EQ_STR(f[4]->function, "main");
        CHECK_EQ_INT(f[4]->f.pc, SAT_ABSENT);
        CHECK_EQ_INT(f[4]->f.fn_offset, SAT_ABSENT);
        CHECK(!r.cr[0].has_exe); /* only libraries and demangled names */
    }
    rec_free(&r);

    /* the "0>" copy in the dump of recent events, after the assertion's own
     * backtrace (numbered frames without a "Caught signal": not a crash) */
    rec d = {0};
    CHECK_EQ_INT(feed_fixture(&d, "ceph-16.2.7-dump.log"), SAT_OK);
    CHECK_EQ_INT(d.ncr, 1);
    CHECK_EQ_INT(frames_of(&d, 1, f, 32), 12);
    if (d.ncr == 1) {
        /* 2021-12-23T11:33:16.697-0500 */
        CHECK_EQ_INT(d.cr[0].c.ts, NS(1640277196) + 697000000);
        CHECK_EQ_INT(d.cr[0].c.signal, 6);
        CHECK_EQ_STR(f[1]->function, "gsignal");
        CHECK_EQ_STR(f[4]->module, "libceph-common.so.2");
        CHECK_EQ_INT(f[4]->f.offset, 0x2511d1);
        /* the keys are those of the frames given: gsignal/abort are skipped */
        sat_frame fs[12];
        for (int i = 0; i < 12; i++) {
            fs[i] = f[i]->f;
            fs[i].module = f[i]->has_module ? sat_str_cstr(f[i]->module) : SAT_STR_NONE;
            fs[i].function = f[i]->has_function ? sat_str_cstr(f[i]->function) : SAT_STR_NONE;
        }
        sat_crash_keys k;
        sat_crash_keys_of(fs, 12,
                          sat_str_cstr("16.2.7 (f9aa029788115b5df5eeee328f584156565ee5b7) "
                                       "pacific (stable)"),
                          &k);
        CHECK_EQ_STR(d.cr[0].fingerprint, k.fingerprint);
        CHECK_EQ_STR(d.cr[0].build_key, k.build_key); /* the version is the build */
        /* the trampoline (libpthread, frame 1) and gsignal/abort are skipped */
        CHECK(f[0]->f.flags & SAT_FRAMEF_SIGNAL);
        CHECK(strstr(k.text, "__ceph_assert_fail") == NULL); /* an assertion wrapper: skipped */
        const char *top = "libceph-common.so.2+0x2511d1|?:FSMap::sanity(bool) const|";
        CHECK(strncmp(k.text, top, strlen(top)) == 0);
        CHECK(!(d.cr[0].c.flags & SAT_CRASHF_HANDLER)); /* Ceph names the fault itself */
    }
    rec_free(&d);
}

static void test_ceph_prefixed_streams(void)
{
    /* two monitors crashing at once, their lines interleaved by the harness:
     * mon.a's block has only its "in thread" line in the report */
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "ceph-19.0.0-teuthology.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 2);
    const rframe *f[8];
    if (r.ncr == 2) {
        const rcrash *a = &r.cr[0], *c = &r.cr[1];
        CHECK_EQ_INT(frames_of(&r, a->c.crash, f, 8), 0);
        CHECK(a->c.flags & SAT_CRASHF_TRUNCATED);
        CHECK_EQ_STR(a->missing, "frames");
        CHECK_EQ_INT(a->c.ts, NS(1709859645) + 505000000);
        CHECK_EQ_INT(frames_of(&r, c->c.crash, f, 8), 2);
        CHECK_EQ_STR(f[0]->module, "libc.so.6");
        CHECK_EQ_INT(f[0]->f.offset, 0x54db0);
        CHECK_EQ_INT(c->c.signal, 11);
        CHECK(!(c->c.flags & SAT_CRASHF_TRUNCATED));
        CHECK(!c->has_missing);
    }
    rec_free(&r);

    /* journald's continuation lines, indented under the header */
    rec j = {0};
    CHECK_EQ_INT(feed_fixture(&j, "ceph-19.0.0-journal.log"), SAT_OK);
    CHECK_EQ_INT(j.ncr, 1);
    CHECK_EQ_INT(frames_of(&j, 1, f, 8), 5);
    if (j.ncr == 1) {
        CHECK_EQ_INT(j.cr[0].c.signal, 6);
        CHECK_EQ_INT(j.cr[0].c.ts, 0); /* the header line has no time */
    }
    rec_free(&j);
}

/* The block of the rook fixture, written as Ceph's log writes a crash: the
 * entry, the dump of recent events, the entry again as "0>". */
static void test_ceph_dump_repeat(void)
{
    size_t len;
    char *block = slurp("ceph-16.2.4-rook.log", &len);
    if (!block)
        return;
    /* lines 2.. up to the NOTE line: the entry */
    char *start = strchr(block, '\n') + 1;
    char *note = strstr(block, " NOTE: a copy");
    char *note_end = strchr(note, '\n') + 1;
    size_t blen = (size_t)(note_end - start);
    char *text = malloc(4 * blen + 1024);
    size_t o = 0;
    memcpy(text + o, start + 11, blen - 11); /* without "debug      " */
    o += blen - 11;
    o += (size_t)sprintf(text + o, "--- begin dump of recent events ---\n"
                                   " -2> 2021-07-01T16:22:36.440+0000 7fd501047080  5 asok(0x5) register_command\n"
                                   " -1> 2021-07-01T16:22:36.441+0000 7fd501047080  1 bdev open\n"
                                   "    ");
    memcpy(text + o, start + 11, blen - 11);
    o += blen - 11;
    o += (size_t)sprintf(text + o, "--- end dump of recent events ---\n");
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, text, o, NULL), SAT_OK);
    check_order(&r);
    CHECK_EQ_INT(r.ncr, 1);
    CHECK_EQ_INT(last_stats.duplicates, 1);
    CHECK_EQ_INT(last_stats.crashes, 1);
    CHECK_EQ_INT(r.nfr, 7);
    rec_free(&r);

    /* the same block at another time is another crash */
    char *t2 = malloc(2 * blen + 64);
    size_t o2 = 0;
    memcpy(t2, start + 11, blen - 11);
    o2 += blen - 11;
    memcpy(t2 + o2, start + 11, blen - 11);
    char *ts = strstr(t2 + o2, "16:22:36.445");
    ts[7] = '9'; /* 16:22:39.445 */
    o2 += blen - 11;
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, t2, o2, NULL), SAT_OK);
    CHECK_EQ_INT(q.ncr, 2);
    CHECK_EQ_INT(last_stats.duplicates, 0);
    rec_free(&q);
    free(t2);
    free(text);
    free(block);
}

/* ---- gdb -------------------------------------------------------------------------------- */
static void test_gdb_bt(void)
{
    rec live = {0}, core = {0};
    CHECK_EQ_INT(feed_fixture(&live, "gdb-live-bt.txt"), SAT_OK);
    CHECK_EQ_INT(feed_fixture(&core, "gdb-core-bt.txt"), SAT_OK);
    CHECK_EQ_INT(live.ncr, 1);
    CHECK_EQ_INT(core.ncr, 1);
    const rframe *f[8];
    if (live.ncr == 1) {
        const sat_crash *c = &live.cr[0].c;
        CHECK_EQ_INT(c->origin, SAT_CRASH_TEXT_GDB);
        CHECK_EQ_INT(c->signal, 11);
        CHECK_EQ_INT(c->threads, 1);
        CHECK_EQ_INT(frames_of(&live, 1, f, 8), 3);
        CHECK_EQ_STR(f[0]->function, "entry_name");
        CHECK_EQ_STR(f[0]->file, "chain.c");
        CHECK_EQ_INT(f[0]->f.line, 16);
        CHECK(f[0]->f.pc > 0);
        /* arguments with a string holding parentheses */
        CHECK_EQ_STR(f[1]->function, "handle_request");
        CHECK_EQ_INT(f[1]->f.line, 29);
        CHECK_EQ_STR(f[2]->function, "main");
        CHECK_EQ_INT(f[2]->f.line, 35);
        CHECK_EQ_INT(f[2]->f.depth, 2);
    }
    if (core.ncr == 1) {
        const sat_crash *c = &core.cr[0].c;
        CHECK_EQ_INT(c->signal, 11);
        CHECK_EQ_STR(core.cr[0].command, "/tmp/satscope-crashtext/chain");
        CHECK_EQ_STR(core.cr[0].exe, "/tmp/satscope-crashtext/chain");
        /* frame #0 printed when the core was loaded, then by bt: once */
        CHECK_EQ_INT(frames_of(&core, 1, f, 8), 3);
        /* the same bug, live and from its core */
        if (live.ncr == 1)
            CHECK_EQ_STR(core.cr[0].fingerprint, live.cr[0].fingerprint);
    }
    rec_free(&live);
    rec_free(&core);
}

static void test_gdb_threads(void)
{
    rec live = {0}, core = {0};
    CHECK_EQ_INT(feed_fixture(&live, "gdb-live-threads.txt"), SAT_OK);
    CHECK_EQ_INT(feed_fixture(&core, "gdb-core-threads.txt"), SAT_OK);
    CHECK_EQ_INT(live.ncr, 1);
    CHECK_EQ_INT(core.ncr, 1);
    const rframe *f[128];
    if (live.ncr == 1) {
        const sat_crash *c = &live.cr[0].c;
        CHECK_EQ_INT(c->signal, 6);
        CHECK_EQ_INT(c->threads, 8);
        /* 'Thread 6 "worker-5" received signal SIGABRT' and "* 6" in info threads */
        long lwp = fixture_number_after("gdb-live-threads.txt", "[Switching to Thread", "(LWP ");
        CHECK(lwp > 0);
        CHECK_EQ_INT(c->crashing_tid, lwp);
        size_t n = frames_of(&live, 1, f, 128);
        CHECK_EQ_INT(n, 8 + 6 * 8 + 5); /* the aborting worker, 6 waiting ones, main */
        /* the crashing thread's frames first */
        for (int i = 0; i < 8 && n >= 8; i++)
            CHECK_EQ_INT(f[i]->f.thread, 6);
        if (n >= 8) {
            CHECK_EQ_STR(f[3]->function, "__GI_abort");
            CHECK_EQ_STR(f[4]->function, "check_invariant");
            CHECK_EQ_STR(f[4]->file, "pool.c");
            CHECK_EQ_INT(f[4]->f.depth, 4);
        }
        int main_seen = 0;
        for (size_t i = 8; i < n; i++)
            if (!strcmp(f[i]->function, "main"))
                main_seen = f[i]->f.thread;
        CHECK_EQ_INT(main_seen, 1);
    }
    if (core.ncr == 1) {
        const sat_crash *c = &core.cr[0].c;
        CHECK_EQ_INT(c->signal, 6);
        CHECK_EQ_INT(c->threads, 8);
        long lwp = fixture_number_after("gdb-core-threads.txt", "[Current thread is 1", "(LWP ");
        CHECK(lwp > 0);
        CHECK_EQ_INT(c->crashing_tid, lwp);
        CHECK_EQ_STR(core.cr[0].exe, "/tmp/satscope-crashtext/pool");
        size_t n = frames_of(&core, 1, f, 128);
        CHECK_EQ_INT(n, 8 + 6 * 8 + 5); /* the "#0" printed at load is not a 9th stack */
        if (n)
            CHECK_EQ_INT(f[0]->f.thread, 1);
        if (live.ncr == 1)
            CHECK_EQ_STR(core.cr[0].fingerprint, live.cr[0].fingerprint);
    }
    rec_free(&live);
    rec_free(&core);
}

static void test_gdb_handler(void)
{
    /* the handler's own backtrace_symbols lines, then gdb's view of the abort */
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "gdb-handler.txt"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 2);
    const rframe *f[16];
    if (r.ncr == 2) {
        CHECK_EQ_INT(r.cr[0].c.origin, SAT_CRASH_TEXT_GLIBC);
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_INT(frames_of(&r, 1, f, 16), 8);
        const sat_crash *g = &r.cr[1].c;
        CHECK_EQ_INT(g->origin, SAT_CRASH_TEXT_GDB);
        CHECK_EQ_INT(g->signal, 6);
        CHECK(g->flags & SAT_CRASHF_HANDLER);
        CHECK_EQ_INT(g->orig_signal, 11); /* fatal_signal (sig=11) */
        size_t n = frames_of(&r, 2, f, 16);
        CHECK_EQ_INT(n, 9);
        if (n == 9) {
            CHECK_EQ_STR(f[5]->function, "<signal handler called>");
            CHECK(f[5]->f.flags & SAT_FRAMEF_SIGNAL);
            CHECK_EQ_STR(f[6]->function, "parse_filter");
            CHECK_EQ_INT(f[6]->f.line, 25);
            CHECK_EQ_INT(f[0]->f.pc, SAT_ABSENT); /* "#0  __pthread_kill_implementation (" */
        }
        /* the fingerprint starts below the trampoline */
        sat_frame fs[9];
        for (int i = 0; i < 9 && n == 9; i++) {
            fs[i] = f[i]->f;
            fs[i].module = SAT_STR_NONE;
            fs[i].function = sat_str_cstr(f[i]->function);
        }
        sat_crash_keys k;
        sat_crash_keys_of(fs, n == 9 ? 9 : 0, SAT_STR_NONE, &k);
        CHECK_EQ_STR(k.text, "?:parse_filter|?:process_search|?:main");
        CHECK_EQ_STR(r.cr[1].fingerprint, k.fingerprint);
    }
    rec_free(&r);
}

static void test_gdb_incident_log(void)
{
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "incident-gdb.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 2);
    if (r.ncr == 2) {
        CHECK_EQ_INT(r.cr[0].c.threads, 8);
        CHECK_EQ_INT(r.cr[0].c.signal, 6);
        CHECK_EQ_INT(r.cr[1].c.threads, 1);
        CHECK_EQ_INT(r.cr[1].c.signal, 11);
        const rframe *f[4];
        CHECK_EQ_INT(frames_of(&r, 2, f, 4), 3);
    }
    rec_free(&r);
}

static void test_gdb_synthetic(void)
{
    /* "Backtrace stopped", frames from a library, "??", C++ names */
    const char *t =
        "Program terminated with signal SIGBUS, Bus error.\n"
        "#0  0x00007f0000001000 in memcpy () from /lib64/libc.so.6\n"
        "#1  0x0000000000401234 in std::vector<int, std::allocator<int> >::operator[] (this=0x1, __n=5) at /usr/include/c++/12/bits/stl_vector.h:1123\n"
        "#2  0x0000000000401300 in (anonymous namespace)::run (f=0x2 \"a (b\") at x.cc:9\n"
        "#3  0x0000000000000000 in ?? ()\n"
        "Backtrace stopped: previous frame inner to this frame (corrupt stack?)\n"
        "an ordinary line\n";
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, strlen(t), NULL), SAT_OK);
    check_order(&r);
    CHECK_EQ_INT(r.ncr, 1);
    const rframe *f[8];
    CHECK_EQ_INT(frames_of(&r, 1, f, 8), 4);
    if (r.ncr == 1 && r.nfr == 4) {
        CHECK_EQ_INT(r.cr[0].c.signal, 7);
        CHECK(r.cr[0].c.flags & SAT_CRASHF_UNWIND_CUT);
        CHECK_EQ_STR(f[0]->module, "libc.so.6");
        CHECK_EQ_STR(f[0]->function, "memcpy");
        CHECK_EQ_STR(f[1]->function, "std::vector<int, std::allocator<int> >::operator[]");
        CHECK_EQ_INT(f[1]->f.line, 1123);
        CHECK_EQ_STR(f[2]->function, "(anonymous namespace)::run");
        CHECK_EQ_STR(f[2]->file, "x.cc");
        CHECK(!f[3]->has_function);
        CHECK_EQ_INT(f[3]->f.pc, 0);
    }
    rec_free(&r);

    /* pstack-like "thread apply all bt" without any signal: a stack dump
     * (signal absent), the first thread printed is taken as the crashing one */
    const char *u = "Thread 2 (Thread 0x7f01 (LWP 101)):\n"
                    "#0  0x01 in poll () from /lib64/libc.so.6\n"
                    "Thread 1 (Thread 0x7f00 (LWP 100)):\n"
                    "#0  0x02 in main () at m.c:3\n";
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, u, strlen(u), NULL), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    if (q.ncr == 1) {
        CHECK_EQ_INT(q.cr[0].c.signal, SAT_ABSENT);
        CHECK_EQ_INT(q.cr[0].c.threads, 2);
        CHECK_EQ_INT(q.cr[0].c.crashing_tid, 101);
    }
    rec_free(&q);
}

/* ---- glibc -------------------------------------------------------------------------------- */
static void test_glibc(void)
{
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "glibc-named.txt"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    const rframe *f[16];
    if (r.ncr == 1) {
        CHECK_EQ_INT(r.cr[0].c.origin, SAT_CRASH_TEXT_GLIBC);
        CHECK_EQ_INT(r.cr[0].c.signal, 11); /* "fatal: caught signal 11 (...)" before it */
        CHECK_EQ_STR(r.cr[0].exe, "./handler");
        CHECK_EQ_INT(frames_of(&r, 1, f, 16), 8);
        CHECK_EQ_STR(f[0]->module, "handler");
        CHECK(!f[0]->has_function);
        CHECK_EQ_INT(f[0]->f.offset, 0x11de);
        CHECK_EQ_STR(f[2]->function, "parse_filter");
        CHECK_EQ_INT(f[2]->f.fn_offset, 0x3c);
        CHECK_EQ_INT(f[2]->f.offset, SAT_ABSENT);
        CHECK_EQ_STR(f[6]->module, "libc.so.6");
        CHECK_EQ_STR(f[6]->function, "__libc_start_main");
        CHECK_EQ_INT(f[6]->f.fn_offset, 0x85);
    }
    rec_free(&r);

    rec s = {0};
    CHECK_EQ_INT(feed_fixture(&s, "glibc-stripped.txt"), SAT_OK);
    CHECK_EQ_INT(s.ncr, 1);
    CHECK_EQ_INT(frames_of(&s, 1, f, 16), 7);
    rec_free(&s);

    /* journald: another program's line between two frames does not cut the run */
    rec j = {0};
    CHECK_EQ_INT(feed_fixture(&j, "journal-glibc.log"), SAT_OK);
    CHECK_EQ_INT(j.ncr, 1);
    CHECK_EQ_INT(frames_of(&j, 1, f, 16), 8);
    if (j.ncr == 1) {
        CHECK_EQ_INT(j.cr[0].c.pid, 4242);
        CHECK_EQ_STR(j.cr[0].host, "db1");
        CHECK_EQ_INT(j.cr[0].c.ts, NS(1749566100)); /* Jun 10 14:35:00 2025 */
        CHECK_EQ_INT(j.cr[0].c.signal, 11);
    }
    rec_free(&j);

    /* 389's errors-log timestamps */
    rec e = {0};
    CHECK_EQ_INT(feed_fixture(&e, "errors-glibc.log"), SAT_OK);
    CHECK_EQ_INT(e.ncr, 1);
    if (e.ncr == 1) {
        CHECK_EQ_INT(e.cr[0].c.ts, NS(1749558900) + 500000000); /* 14:35:00.5 +0200 */
        CHECK_EQ_INT(e.cr[0].c.signal, 11);
        CHECK_EQ_STR(e.cr[0].exe, "./handler-stripped");
    }
    rec_free(&e);
}

static void test_not_crashes(void)
{
    /* one backtrace_symbols-like line with nothing announcing it, Ceph's
     * assertion backtrace, a gdb-like "#0" without a frame after it, a
     * "Caught signal" that Ceph did not write */
    const char *t = "2025-01-01T00:00:00Z cache(+0x10)[0x20]\n"
                    "2025-01-01T00:00:01Z ok\n"
                    " ceph version 16.2.5 (0883bdea7337b95e4b611c768c0279868462204a) pacific (stable)\n"
                    " 1: (ceph::__ceph_assert_fail(char const*, char const*, int, char const*)+0x158) [0x55711453eeba]\n"
                    " 2: ceph-osd(+0x56a0d4) [0x55711453f0d4]\n"
                    " 3: /usr/lib/libc.so.6(+0x80aec) [0xffff87940aec]\n"
                    "#0 is the first item\n"
                    "worker: Caught signal (Terminated)\n"
                    "done\n";
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, strlen(t), NULL), SAT_OK);
    CHECK_EQ_INT(r.ncr, 0);
    CHECK_EQ_INT(r.nfr, 0);
    rec_free(&r);

    /* the same lone line after a line that announces a backtrace is one */
    const char *u = "Backtrace:\n./prog(main+0x12)[0x401000]\nafter\n";
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, u, strlen(u), NULL), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    CHECK_EQ_INT(q.nfr, 1);
    rec_free(&q);

    /* glibc's own abort message: exe and SIGABRT */
    const char *v = "*** Error in `./srv': double free or corruption (fasttop): 0x0000000001c3b010 ***\n"
                    "======= Backtrace: =========\n"
                    "/lib/x86_64-linux-gnu/libc.so.6(+0x777e5)[0x7f0d5f4e17e5]\n"
                    "./srv(free_entry+0x1a)[0x400b2a]\n"
                    "======= Memory map: ========\n";
    rec w = {0};
    CHECK_EQ_INT(feed_text(&w, v, strlen(v), NULL), SAT_OK);
    CHECK_EQ_INT(w.ncr, 1);
    if (w.ncr == 1) {
        CHECK_EQ_INT(w.cr[0].c.signal, 6);
        CHECK_EQ_STR(w.cr[0].exe, "./srv");
        CHECK_EQ_INT(w.nfr, 2);
    }
    rec_free(&w);
}

/* ---- bounds, options, errors -------------------------------------------------------------- */
static void test_bounds(void)
{
    /* a Ceph frame longer than the bound: cut, kept, the crash flagged */
    size_t big = SAT_CRASH_TEXT_LINE_MAX + 5000;
    char *t = malloc(big + 256);
    size_t o = (size_t)sprintf(t, "*** Caught signal (Segmentation fault) **\n in thread 7f00\n 1: (f<");
    memset(t + o, 'x', big);
    o += big;
    o += (size_t)sprintf(t + o, ">()+0x10) [0x1000]\n 2: (g()+0x1) [0x2000]\n NOTE: a copy of the executable\n");
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, o, NULL), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    CHECK_EQ_INT(r.nfr, 2);
    CHECK_EQ_INT(last_stats.lines_cut, 1);
    if (r.ncr == 1 && r.nfr == 2) {
        CHECK(r.cr[0].c.flags & SAT_CRASHF_TRUNCATED);
        CHECK(strncmp(r.fr[0].function, "f<xxxx", 6) == 0);
        CHECK(strlen(r.fr[0].function) <= 2048); /* a frame's string is bounded */
        CHECK_EQ_STR(r.fr[1].function, "g");
    }
    rec_free(&r);
    free(t);

    /* frames over max_frames are dropped and counted */
    char run[2048];
    o = 0;
    for (int i = 0; i < 10; i++)
        o += (size_t)sprintf(run + o, "./p(f%d+0x%x)[0x40%04x]\n", i, i, i);
    sat_crash_text_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.max_frames = 4;
    opt.default_year = 2025;
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, run, o, &opt), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    CHECK_EQ_INT(q.nfr, 4);
    CHECK_EQ_INT(last_stats.frames_dropped, 6);
    if (q.ncr == 1)
        CHECK(q.cr[0].c.flags & SAT_CRASHF_TRUNCATED);
    rec_free(&q);

    /* interleaved streams, as many as there are blocks: each is a crash with
     * its own frame; more than that: the quietest blocks end early (a block
     * with nothing but its header is no crash), nothing else is lost */
    for (int streams = SAT_CRASH_TEXT_BLOCKS; streams <= SAT_CRASH_TEXT_BLOCKS + 3; streams += 3) {
        char many[8192];
        o = 0;
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr:*** Caught signal (Aborted) **\n", 'a' + s);
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr: in thread 7f0%d thread_name:x\n", 'a' + s, s);
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr: 1: (f%d()+0x1) [0x10]\n", 'a' + s, s);
        rec m = {0};
        CHECK_EQ_INT(feed_text(&m, many, o, NULL), SAT_OK);
        check_order(&m);
        CHECK_EQ_INT(m.ncr, SAT_CRASH_TEXT_BLOCKS);
        for (size_t i = 0; i < m.nfr; i++) { /* each frame in its own stream's crash */
            int s = atoi(m.fr[i].function + 1);
            CHECK_EQ_INT(m.cr[m.fr[i].f.crash - 1].c.crash, m.fr[i].f.crash);
            CHECK(s >= streams - SAT_CRASH_TEXT_BLOCKS);
        }
        rec_free(&m);
    }

    /* a quiet stream's block is finished before the end of the input */
    o = (size_t)sprintf(run, "Jan  2 03:04:05 h a[1]: x(+0x1)[0x1]\nJan  2 03:04:05 h a[1]: x(+0x2)[0x2]\n");
    char *longer = malloc(o + 400 * 40);
    memcpy(longer, run, o);
    for (int i = 0; i < 400; i++)
        o += (size_t)sprintf(longer + o, "Jan  2 03:04:06 h b[2]: line %d\n", i);
    rec s = {0};
    CHECK_EQ_INT(feed_text(&s, longer, o, NULL), SAT_OK);
    CHECK_EQ_INT(s.ncr, 1);
    rec_free(&s);
    free(longer);
}

static void test_window_year_errors(void)
{
    const char *t = "Dec 31 23:59:59 h p[9]: fatal: caught signal 11\n"
                    "Dec 31 23:59:59 h p[9]: ./p(+0x1)[0x1]\n"
                    "Jan  1 00:00:01 h p[9]: fatal: caught signal 6\n"
                    "Jan  1 00:00:01 h p[9]: ./p(+0x2)[0x2]\n"
                    "./q(+0x3)[0x3]\n./q(+0x4)[0x4]\n";
    sat_crash_text_opts o;
    memset(&o, 0, sizeof o);
    o.default_year = 2024;
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, strlen(t), &o), SAT_OK);
    CHECK_EQ_INT(r.ncr, 3);
    if (r.ncr == 3) {
        CHECK_EQ_INT(r.cr[0].c.ts, NS(1735689599)); /* 2024-12-31T23:59:59Z */
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_INT(r.cr[1].c.ts, NS(1735689601)); /* 2025-01-01T00:00:01Z */
        CHECK_EQ_INT(r.cr[1].c.signal, 6);
        CHECK_EQ_INT(r.cr[2].c.ts, 0);
    }
    rec_free(&r);

    /* no year given: the one rule against the file's time (written on
     * 2025-01-01 00:05): the Dec 31 line is 2024's, not the mtime's year */
    o.default_year = 0;
    o.year_ref = NS(1735690000);
    rec y = {0};
    CHECK_EQ_INT(feed_text(&y, t, strlen(t), &o), SAT_OK);
    CHECK(y.ncr == 3 && y.cr[0].c.ts == NS(1735689599) && y.cr[1].c.ts == NS(1735689601));
    rec_free(&y);
    o.year_ref = 0;
    o.default_year = 2024;

    /* the window keeps the crash inside it and the one without a time */
    o.from_ns = NS(1735689600);
    o.to_ns = NS(1735689700);
    rec w = {0};
    CHECK_EQ_INT(feed_text(&w, t, strlen(t), &o), SAT_OK);
    CHECK_EQ_INT(w.ncr, 2);
    CHECK_EQ_INT(last_stats.outside_window, 1);
    for (size_t i = 0; i < w.nfr; i++) /* no frame of the crash left out */
        CHECK(w.fr[i].f.crash == 1 || w.fr[i].f.crash == 2);
    rec_free(&w);

    /* a sink's error comes back */
    rec e = {0};
    e.fail_on_crash = SAT_E_STOP;
    CHECK_EQ_INT(feed_text(&e, t, strlen(t), &o), SAT_E_STOP);
    rec_free(&e);

    CHECK_EQ_INT(sat_crash_signal_from_text("SIGSEGV", 7), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("SEGV", 4), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("Segmentation fault", 18), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("Aborted", 7), 6);
    CHECK_EQ_INT(sat_crash_signal_from_text("Floating point exception", 24), 8);
    CHECK_EQ_INT(sat_crash_signal_from_text("Segmentation", 12), 0);
    CHECK_EQ_INT(sat_crash_signal_from_text(NULL, 0), 0);
}

/* ---- the kernel's and systemd-coredump's one-line notices ------------------------------ */
static void test_kernel_lines(void)
{
    /* dmesg --time-format iso (fixtures/cores/dmesg/kernel.log's form), syslog's kern.log,
     * a traps: line, systemd-coredump, and a kernel line inside a backtrace of the same
     * process (that block already is the crash) */
    static const char text[] =
        "2026-12-01T09:28:37,441240+00:00 segv_chain-O0[24018]: segfault at 0 ip "
        "000055555555514d sp 00007fffffffe5a0 error 6 in segv_chain-O0[114d,555555555000+1000]"
        " likely on CPU 1 (core 1, socket 0)\n"
        "Jun 10 14:35:00 db1 kernel: [12345.678901] ns-slapd[977]: segfault at 28 ip "
        "00007f3cb0a9a050 sp 00007ffc error 4 in libback-ldbm.so[7f3cb0a80000+40000]\n"
        "Jun 10 14:36:00 db1 kernel: traps: slapd[1001] general protection fault ip:7f00dead "
        "sp:7ffc0000 error:0 in libc.so.6[1a050,7f3cb0a81000+155000]\n"
        "Jun 10 14:37:00 db1 systemd-coredump[1500]: Process 1200 (ns-slapd) of user 389 dumped "
        "core.\n"
        "Jun 10 14:38:00 db1 prog[7]: ./prog(+0x11be)[0x55a80d6cb1be]\n"
        "Jun 10 14:38:00 db1 kernel: prog[7]: segfault at 0 ip 000055d0 sp 00007ffc error 6 in prog\n"
        "Jun 10 14:38:00 db1 prog[7]: ./prog(main+0x5f)[0x55a80d6cb31f]\n"
        "Jun 10 14:39:00 db1 app[8]: Process 12 finished, nothing dumped core here\n";
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, text, sizeof text - 1, NULL), SAT_OK);
    check_order(&r);
    CHECK_EQ_INT(r.ncr, 5);
    if (r.ncr == 5) {
        const sat_crash *a = &r.cr[0].c, *b = &r.cr[1].c, *t = &r.cr[2].c, *c = &r.cr[3].c;
        CHECK_EQ_INT(a->origin, SAT_CRASH_TEXT_KERNEL);
        CHECK_EQ_INT(a->pid, 24018);
        CHECK_EQ_STR(r.cr[0].command, "segv_chain-O0");
        CHECK_EQ_INT(a->signal, 11);
        CHECK_EQ_INT(a->fault_addr, 0);
        CHECK_EQ_INT(a->ts, NS(1796117317) + 441240000);
        CHECK_EQ_INT(a->time_source, SAT_CRASH_TIME_LOG);
        const rframe *f[4];
        CHECK_EQ_INT(frames_of(&r, 1, f, 4), 1); /* module and offset from "[114d,..." */
        if (frames_of(&r, 1, f, 4) == 1) {
            CHECK_EQ_STR(f[0]->module, "segv_chain-O0");
            CHECK_EQ_INT(f[0]->f.offset, 0x114d);
            CHECK_EQ_INT(f[0]->f.pc, 0x55555555514d);
        }
        CHECK_EQ_INT(b->pid, 977);
        CHECK_EQ_INT(b->fault_addr, 0x28);
        CHECK_EQ_INT(frames_of(&r, 2, f, 4), 0); /* an older kernel: no offset in the module */
        CHECK_EQ_INT(b->ts, NS(1749566100));
        CHECK_EQ_INT(t->pid, 1001);
        CHECK_EQ_INT(t->signal, 11);
        CHECK_EQ_INT(t->fault_addr, SAT_ABSENT);
        CHECK_EQ_INT(frames_of(&r, 3, f, 4), 1);
        CHECK_EQ_INT(c->pid, 1200);
        CHECK_EQ_STR(r.cr[3].command, "ns-slapd");
        CHECK_EQ_INT(c->signal, SAT_ABSENT);
        CHECK_EQ_INT(r.cr[4].c.origin, SAT_CRASH_TEXT_GLIBC); /* prog[7]: one crash */
        CHECK_EQ_INT(r.cr[4].c.pid, 7);
    }
    rec_free(&r);
}

/* ---- the time in a core's file name (parse/core_notes.c) --------------------------------- */
static void test_core_name_time(void)
{
    CHECK_EQ_INT(sat_core_name_time("core.1234.1749479056", 1234), NS(1749479056));
    CHECK_EQ_INT(sat_core_name_time("/var/lib/systemd/coredump/core.ns-slapd.389."
                                    "5f2c0e9a4b.1234.1749479056700000.zst", 1234),
                 NS(1749479056) + 700000000);
    CHECK_EQ_INT(sat_core_name_time("core-slapd-1749479056-1234", SAT_ABSENT), NS(1749479056));
    CHECK_EQ_INT(sat_core_name_time("core", 1), 0);
    CHECK_EQ_INT(sat_core_name_time("core.1234", 1234), 0);           /* the pid */
    CHECK_EQ_INT(sat_core_name_time("core.5000000000", 1), 0);        /* after 2100 */
    CHECK_EQ_INT(sat_core_name_time("core.12345678901", 1), 0);       /* 11 digits */
    CHECK_EQ_INT(sat_core_name_time("core.x1749479056", 1), 0);       /* not a whole field */
    CHECK_EQ_INT(sat_core_name_time("/tmp/1749479056/core", 1), 0);   /* a directory's name */
}

int main(void)
{
    test_kernel_lines();
    test_core_name_time();
    test_ceph_native_old();
    test_ceph_stderr_copies();
    test_ceph_new_generation();
    test_ceph_prefixed_streams();
    test_ceph_dump_repeat();
    test_gdb_bt();
    test_gdb_threads();
    test_gdb_handler();
    test_gdb_incident_log();
    test_gdb_synthetic();
    test_glibc();
    test_not_crashes();
    test_bounds();
    test_window_year_errors();
    return CHECK_DONE();
}
