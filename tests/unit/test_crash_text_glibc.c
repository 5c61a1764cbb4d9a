/*
 * test_crash_text_glibc.c - glibc's backtrace_symbols() lines in logs
 * (parse/crash/crash_text_glibc.c) on the fixtures of fixtures/crashtext (real
 * output made there: named and stripped, through journald and 389's errors
 * log); glibc's own abort message; and lone lines that are not crashes
 * unless a line before them announces a backtrace.
 */
#include "check.h"
#include "crash_rec.h"

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

int main(void)
{
    test_glibc();
    test_not_crashes();
    return CHECK_DONE();
}
