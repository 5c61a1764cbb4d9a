/*
 * test_crash_text_ceph.c - Ceph's fatal-signal block in logs
 * (parse/crash/crash_text_ceph.c) on the fixtures of fixtures/crashtext (blocks
 * copied from public reports, set among ordinary log lines): the frames of
 * every generation's forms, the crash's time and signal; the stderr and log
 * copies of one crash counted once, as is the "0>" copy in the dump of
 * recent events; prefixes that keep interleaved streams apart; journald's
 * continuation lines.
 */
#include "check.h"
#include "crash_rec.h"

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

int main(void)
{
    test_ceph_native_old();
    test_ceph_stderr_copies();
    test_ceph_new_generation();
    test_ceph_prefixed_streams();
    test_ceph_dump_repeat();
    return CHECK_DONE();
}
